/*
 * model-wear.c: bytes written and never read (wear.h), for the model's
 * files, processes and intervals. Called from model-pattern.c's ring, in
 * the order the calls were made: a write adds its range to its file's
 * unread ranges, a read takes out what it reads back, a create, truncation
 * or unlink settles what is left as never read.
 *
 * A file's figures are its own. A process is charged with the bytes it
 * wrote, and with the read back and never read bytes of the files it wrote
 * last (struct file_wear's writer: exact where each file has one writer, as
 * a KV-cache's chunk files do); a file's life goes to the process that
 * unlinked it. The interval's totals (proc_sum) count every file.
 */
#include <stddef.h>
#include <string.h>

#include "base.h"
#include "proc.h"
#include "model.h"

/* What one step adds to the counters of a file, a process and the interval. */
struct model_wear_add {
	uint64_t	 written, read_back, never_read, over, lives, life_ns;
};

/* Add a into one set of counters. */
static void
model_wear_count(struct wear_counts *w, const struct model_wear_add *a)
{
	w->written += a->written;
	w->read_back += a->read_back;
	w->never_read += a->never_read;
	w->over += a->over;
	w->lives += a->lives;
	w->life_ns += a->life_ns;
}

/* Process entry e + 1 if it still holds id (made active in this interval), else NULL. */
static struct proc_entry *
model_wear_proc(struct proc_table *t, uint32_t e1, uint32_t id)
{
	if (e1 == 0 || t->procs[e1 - 1].id != id)
		return (NULL);
	model_proc_active(t, e1 - 1);
	return (&t->procs[e1 - 1]);
}

/* Into the file's counters, the interval's and those of process p (if any). */
static void
model_wear_charge(struct proc_table *t, struct file_entry *f, struct proc_entry *p,
    const struct model_wear_add *a)
{
	model_wear_count(&f->iv.wear, a);
	model_wear_count(&f->tot.wear, a);
	model_wear_count(&t->sum.wear, a);
	if (p != NULL) {
		model_wear_count(&p->iv.wear, a);
		model_wear_count(&p->tot.wear, a);
	}
}

/* Add v to one counter (at off in struct wear_counts) of the file, the interval and process p. */
static inline void
model_wear_charge1(struct proc_table *t, struct file_entry *f, struct proc_entry *p, size_t off,
    uint64_t v)
{
	*(uint64_t *)(void *)((char *)&f->iv.wear + off) += v;
	*(uint64_t *)(void *)((char *)&f->tot.wear + off) += v;
	*(uint64_t *)(void *)((char *)&t->sum.wear + off) += v;
	if (p != NULL) {
		*(uint64_t *)(void *)((char *)&p->iv.wear + off) += v;
		*(uint64_t *)(void *)((char *)&p->tot.wear + off) += v;
	}
}

/*
 * A read or write call judged (its file active in this interval): the
 * writer's own bytes written; the bytes it read back or overwrote unread,
 * and the gaps joined, to the file's last writer. One counter each, only
 * those that moved (the generic charge of all six cost 74 instructions a
 * call, callgrind).
 */
void
model_wear_access(struct proc_table *t, const struct model_pending *c)
{
	struct file_entry	*f = &t->files[c->file];
	struct file_wear	*w = &f->wear;
	struct proc_entry	*last = NULL;
	uint64_t		 over = w->unread.over, ow = 0, n;
	int			 found = 0;

	/* A read of a file with nothing unread moves nothing (56 instructions a request, callgrind). */
	if (c->dir == PAT_READ && w->unread.n == 0)
		return;
	/* Its type as last seen, maybe by a later unlink's record (VFS_FT_NONE): not refused. */
	if (f->ftype == VFS_FT_FIFO || f->ftype == VFS_FT_SOCK || f->ftype == VFS_FT_CHR ||
	    (f->path_flags & VFS_PF_PSEUDO))
		return;		/* pipes, sockets, terminals, anon inodes: no bytes kept to read back */
	if (c->dir == PAT_WRITE)
		n = wear_write(w, c->off, c->bytes, &ow);
	else
		n = wear_read(w, c->off, c->bytes);
	if ((c->dir == PAT_READ && n > 0) || ow > 0 || w->unread.over != over) {
		last = model_wear_proc(t, w->writer, w->writer_id);
		found = 1;
	}
	if (c->dir == PAT_READ && n > 0)
		model_wear_charge1(t, f, last, offsetof(struct wear_counts, read_back), n);
	if (ow > 0)
		model_wear_charge1(t, f, last, offsetof(struct wear_counts, never_read), ow);
	if (w->unread.over != over)
		model_wear_charge1(t, f, last, offsetof(struct wear_counts, over),
		    w->unread.over - over);
	if (c->dir != PAT_WRITE || n == 0)
		return;
	if (!found || w->writer != c->proc + 1 || w->writer_id != c->proc_id)
		last = model_wear_proc(t, c->proc + 1, c->proc_id);
	model_wear_charge1(t, f, last, offsetof(struct wear_counts, written), n);
	w->writer = c->proc + 1;
	w->writer_id = c->proc_id;
}

/* A create, truncation (O_TRUNC, truncate, ftruncate) or unlink (MODEL_PENDING_*) of a file in the table. */
void
model_wear_life(struct proc_table *t, const struct model_pending *c)
{
	struct file_entry	*f = &t->files[c->file];
	struct file_wear	*w = &f->wear;
	struct model_wear_add	 a;
	uint64_t		 over;

	model_file_active(t, c->file);
	memset(&a, 0, sizeof a);
	if (c->dir == MODEL_PENDING_RENAME_OUT) {
		/* Not settled: its ranges move, created_ns and writer with them. */
		t->wear_moving.wear = *w;
		t->wear_moving.ts = c->ts;
		t->wear_moving.tgid = c->tgid;
		t->wear_moving.set = 1;
		memset(&w->unread, 0, sizeof w->unread);
		w->unread.over = t->wear_moving.wear.unread.over;
		w->created_ns = 0;
		return;
	}
	if (c->dir == MODEL_PENDING_TRUNC_AT && c->off > 0) {
		/* Cut to a length: what lies past it goes, never read; a file cut to 0 is settled whole. */
		a.never_read = wear_cut(&w->unread, c->off, UINT64_MAX - (uint64_t)c->off);
		if (a.never_read > 0)
			model_wear_charge(t, f, model_wear_proc(t, w->writer, w->writer_id), &a);
		return;
	}
	a.never_read = wear_settle(w);	/* a create, truncation or unlink; a rename's target replaced */
	if (a.never_read > 0)
		model_wear_charge(t, f, model_wear_proc(t, w->writer, w->writer_id), &a);
	memset(&a, 0, sizeof a);
	switch (c->dir) {
	case MODEL_PENDING_RENAME_IN:
		if (t->wear_moving.set && t->wear_moving.ts == c->ts &&
		    t->wear_moving.tgid == c->tgid) {
			over = w->unread.over;
			*w = t->wear_moving.wear;
			w->unread.over = over;
		}
		t->wear_moving.set = 0;
		break;
	case MODEL_PENDING_CREATE:
		w->created_ns = c->ts;
		break;
	case MODEL_PENDING_UNLINK:
		if (w->created_ns != 0 && c->ts >= w->created_ns) {
			a.lives = 1;
			a.life_ns = c->ts - w->created_ns;
			model_wear_charge(t, f, model_wear_proc(t, c->proc + 1, c->proc_id), &a);
		}
		w->created_ns = 0;
		break;
	default:
		break;
	}
}
