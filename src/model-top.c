/* model-top.c: the model's sort keys' values (their names: field-proc.c), and top-N selection of processes or files by one of them. */
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "proc.h"
#include "model.h"

#define MODEL_TOP_MAX	PROC_TOP_MAX

/* One candidate of a top-N selection. */
struct model_top_cand {
	uint64_t	 v;
	uint64_t	 tie;		/* smaller wins among equal values */
	uint32_t	 e;
};

/* Value of key k in a set of counters. */
static uint64_t
model_top_value(const struct proc_counts *c, enum proc_key k)
{
	switch (k) {
	case PROC_KEY_READ_BYTES:	return c->blk_bytes[0];
	case PROC_KEY_WRITE_BYTES:	return c->blk_bytes[1];
	case PROC_KEY_READ_IOS:		return c->blk_ios[0];
	case PROC_KEY_WRITE_IOS:	return c->blk_ios[1];
	case PROC_KEY_VFS_READ_BYTES:	return c->vfs_bytes[0];
	case PROC_KEY_VFS_WRITE_BYTES:	return c->vfs_bytes[1];
	case PROC_KEY_VFS_READS:	return c->vfs_calls[0];
	case PROC_KEY_VFS_WRITES:	return c->vfs_calls[1];
	case PROC_KEY_OPENS:		return c->opens + c->open_fails;
	case PROC_KEY_LAT:		return c->vfs_lat_sum + c->blk_lat_sum;
	case PROC_KEY_DISK_READ_BYTES:	return c->disk_bytes[0];
	case PROC_KEY_DISK_WRITE_BYTES:	return c->disk_bytes[1];
	case PROC_KEY_NEVER_READ:	return c->wear.never_read;
	default:			return 0;
	}
}

/* Whether a ranks before b. */
static int
model_top_before(const struct model_top_cand *a, const struct model_top_cand *b)
{
	if (a->v != b->v)
		return (a->v > b->v);
	return (a->tie < b->tie);
}

/* Sift down in a heap whose root is the worst kept candidate. */
static void
model_top_down(struct model_top_cand *h, unsigned n, unsigned i)
{
	for (;;) {
		unsigned l = 2 * i + 1, r = l + 1, w = i;
		struct model_top_cand tmp;

		if (l < n && model_top_before(&h[w], &h[l]))
			w = l;
		if (r < n && model_top_before(&h[w], &h[r]))
			w = r;
		if (w == i)
			return;
		tmp = h[i];
		h[i] = h[w];
		h[w] = tmp;
		i = w;
	}
}

/* Offer a candidate to a bounded heap of the n best. */
static void
model_top_offer(struct model_top_cand *h, unsigned *len, unsigned n,
    const struct model_top_cand *c)
{
	unsigned i;

	if (*len < n) {
		i = (*len)++;
		h[i] = *c;
		while (i > 0 && model_top_before(&h[(i - 1) / 2], &h[i])) {
			struct model_top_cand tmp = h[i];

			h[i] = h[(i - 1) / 2];
			h[(i - 1) / 2] = tmp;
			i = (i - 1) / 2;
		}
		return;
	}
	if (n == 0 || !model_top_before(c, &h[0]))
		return;
	h[0] = *c;
	model_top_down(h, n, 0);
}

/* Order for qsort: best first. */
static int
model_top_cmp(const void *a, const void *b)
{
	const struct model_top_cand *x = a, *y = b;

	return (model_top_before(x, y) ? -1 : model_top_before(y, x) ? 1 : 0);
}

/*
 * Entry e's rank in c: the value of key k and the tie-breaker (a process's
 * id, a file's first sighting); 0 if e was idle this interval and the total
 * is not asked for.
 */
static int
model_top_rank(const struct proc_table *t, int files, enum proc_key k, int total, uint32_t e,
    struct model_top_cand *c)
{
	const struct proc_counts	*counts;
	uint64_t			 epoch;

	if (files) {
		epoch = t->files[e].epoch;
		counts = proc_file_counts(t, &t->files[e], total);
		c->tie = t->files[e].first_ts;
	} else {
		epoch = t->procs[e].epoch;
		counts = proc_entry_counts(t, &t->procs[e], total);
		c->tie = t->procs[e].id;
	}
	if (!total && epoch != t->epoch)
		return (0);
	c->v = model_top_value(counts, k);
	c->e = e;
	return (1);
}

/*
 * The n processes (into procs) or files (into files, if not NULL) ranking
 * first by key k, best first: over the current interval (only entries active
 * in it) or, if total, since first seen. The walk is in LRU order, so it ends
 * at the first entry idle this interval. Returns how many were stored.
 */
static unsigned
model_top_select(const struct proc_table *t, enum proc_key k, int total,
    const struct proc_entry **procs, const struct file_entry **files, unsigned n)
{
	/* Once per report, not per event: grown to the most rows asked, kept. */
	static struct model_top_cand	*heap;
	static unsigned			 room;
	const struct model_index	*ix = files != NULL ? &t->fi : &t->pi;
	struct model_top_cand		 c;
	unsigned			 len = 0, i;
	uint32_t			 e;

	if (n > MODEL_TOP_MAX)
		n = MODEL_TOP_MAX;
	if (n > room) {
		heap = xreallocarray(heap, n, sizeof *heap);
		room = n;
	}
	for (e = ix->head; e != MODEL_NIL; e = ix->links[e].next) {
		if (!model_top_rank(t, files != NULL, k, total, e, &c))
			break;
		model_top_offer(heap, &len, n, &c);
	}
	qsort(heap, len, sizeof(heap[0]), model_top_cmp);
	for (i = 0; i < len; i++) {
		if (files != NULL)
			files[i] = &t->files[heap[i].e];
		else
			procs[i] = &t->procs[heap[i].e];
	}
	return (len);
}

/*
 * The n processes ranking first by key k, best first: over the current
 * interval (only entries active in it) or, if total, since first seen. Returns
 * how many were stored in out; they stay valid until the next event.
 */
unsigned
top_procs(const struct proc_table *t, enum proc_key k, int total,
    const struct proc_entry **out, unsigned n)
{
	return (model_top_select(t, k, total, out, NULL, n));
}

/* The same for files; ties go to the file seen first. */
unsigned
top_files(const struct proc_table *t, enum proc_key k, int total,
    const struct file_entry **out, unsigned n)
{
	return (model_top_select(t, k, total, NULL, out, n));
}

/* Call fn on every file of the table, most recently active first. */
void
top_each_file(const struct proc_table *t, void (*fn)(void *, const struct file_entry *),
    void *ctx)
{
	uint32_t e;

	for (e = t->fi.head; e != MODEL_NIL; e = t->fi.links[e].next)
		fn(ctx, &t->files[e]);
}

/* Call fn on every process (thread) of the table, most recently active first. */
void
top_each(const struct proc_table *t, void (*fn)(void *, const struct proc_entry *), void *ctx)
{
	uint32_t e;

	for (e = t->pi.head; e != MODEL_NIL; e = t->pi.links[e].next)
		fn(ctx, &t->procs[e]);
}
