/* model-proc.c: the model's tables: created, fed block requests and file calls per process. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "proc.h"
#include "job.h"
#include "model.h"

/*
 * Both tables are reserved at their bound at proc_create, their pages taken
 * as they fill (model-index.c indexes them, model-file.c keeps the paths).
 * Adding an event never allocates and never makes a system call; a full table evicts its least recently active entry
 * and counts it. Per-interval counters and histograms are reset lazily: an
 * entry touched in a new interval (epoch) clears them.
 */

/* Mix a 32-bit id into a hash. */
static uint32_t
proc_hash32(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x7feb352dU;
	x ^= x >> 15;
	x *= 0x846ca68bU;
	x ^= x >> 16;
	return (x);
}

/* The host of the records added from now on (host.h's, -1: none): a process is its host's. */
void
proc_set_host(struct proc_table *t, int host)
{
	t->host = host;
}

/* Whether process entry e has the id *key. */
static int
proc_same(const void *ctx, uint32_t e, const void *key)
{
	const struct proc_table *t = ctx;

	return (t->procs[e].id == *(const uint32_t *)key);
}

/* Bytes proc_create(max_procs, max_files) allocates: the memory bound of the tables. */
size_t
proc_mem_bound(unsigned max_procs, unsigned max_files)
{
	return (sizeof(struct proc_table) + model_index_size(max_procs) +
	    (size_t)max_procs * sizeof(struct proc_entry) + model_file_table_size(max_files) +
	    model_pattern_size(max_files) + task_mem_bound(TASK_MAX));
}

/* Allocate the tables: at most max_procs processes (threads if by_thread) and max_files files. */
struct proc_table *
proc_create(unsigned max_procs, unsigned max_files, int by_thread)
{
	struct proc_table *t;

	if (max_procs == 0)
		max_procs = PROC_DEF_PROCS;
	if (max_files == 0)
		max_files = PROC_DEF_FILES;
	if (max_procs > PROC_MAX_ENTRIES)
		max_procs = PROC_MAX_ENTRIES;
	if (max_files > PROC_MAX_ENTRIES)
		max_files = PROC_MAX_ENTRIES;
	t = xcalloc(1, sizeof(*t));
	t->by_thread = by_thread;
	t->host = -1;	/* HOST_NONE */
	t->epoch = 1;
	t->blk_file = MODEL_NIL;
	t->file_hint = MODEL_NIL;
	model_index_init(&t->pi, max_procs, t);
	t->procs = model_index_entries(max_procs, sizeof(*t->procs));
	model_file_table_init(t, max_files);
	model_pattern_init(t, max_files);
	t->tasks = task_create(TASK_MAX);
	return (t);
}

/* Free the tables. */
void
proc_free(struct proc_table *t)
{
	if (t == NULL)
		return;
	model_index_free(&t->pi);
	model_index_entries_free(t->procs, t->pi.cap, sizeof(*t->procs));
	model_file_table_free(t);
	model_pattern_free(t);
	task_free(t->tasks);
	pdepth_free(t);
	free(t);
}

/* The name of a process no record named (an imported log without COMM). */
static const char proc_unknown_comm[BLKTOP_COMM_LEN] = "[unknown]";

/* A new process entry for table id id (evicting the least recently active if full). */
static __attribute__((noinline)) struct proc_entry *
proc_new(struct proc_table *t, uint32_t id, uint32_t tgid, const char *comm, uint64_t cgroup,
    uint64_t ts)
{
	struct proc_entry	*p;
	uint32_t		 e;

	if (t->pi.used == t->pi.cap)
		model_index_evict(&t->pi);
	e = model_index_add(&t->pi, proc_hash32(id));
	p = &t->procs[e];
	memset(p, 0, sizeof(*p));
	p->id = id;
	p->tgid = tgid;
	p->host = t->host;
	memcpy(p->comm, comm[0] != '\0' ? comm : proc_unknown_comm, sizeof(p->comm));
	p->comm[sizeof(p->comm) - 1] = '\0';
	p->cgroup = cgroup;
	p->first_ts = p->last_ts = ts;
	p->epoch = t->epoch;
	return (p);
}

/*
 * Find or create the process entry for an event; refreshes its LRU place.
 * Inline, the creation out of line: twice a request (its block record and
 * its call's), a call of 52 instructions each (callgrind).
 */
static inline __attribute__((always_inline)) struct proc_entry *
proc_get(struct proc_table *t, uint32_t pid, uint32_t tgid, const char *comm, uint64_t cgroup,
    uint64_t ts)
{
	struct proc_entry	*p;
	int			 host = t->host;
	uint32_t		 id = PROC_ID_OF(t->by_thread ? pid : tgid, host), e;

	/*
	 * The most recently active entry, else the one before it (two threads
	 * or a process and its device's completions taking turns), before the
	 * hash: a record is mostly of the process of the record before.
	 */
	e = t->pi.head;
	if (e == MODEL_NIL || t->procs[e].id != id) {
		if (e != MODEL_NIL)
			e = t->pi.links[e].next;
		if (e == MODEL_NIL || t->procs[e].id != id)
			e = model_index_find(&t->pi, proc_hash32(id), proc_same, &id);
		if (e != MODEL_NIL)
			model_index_touch(&t->pi, e);
	}
	if (e != MODEL_NIL) {
		p = &t->procs[e];
		/*
		 * In the folded view the main thread names the process. An
		 * empty comm (an imported log without one) renames nothing.
		 */
		if (comm[0] != '\0' && (t->by_thread || pid == tgid ||
		    p->comm[0] == '\0' || strcmp(p->comm, proc_unknown_comm) == 0))
			memcpy(p->comm, comm, sizeof(p->comm));
		p->comm[sizeof(p->comm) - 1] = '\0';
		p->last_ts = ts;
		p->cgroup = cgroup;
		proc_entry_epoch(t, p);
		return (p);
	}
	return (proc_new(t, id, tgid, comm, cgroup, ts));
}

/*
 * A latency into an interval histogram: its bucket b (hist_bucket(ns), found
 * once for the process's and the file's histograms), count and extremes.
 */
static inline void
proc_hist_add(struct proc_hist *h, uint64_t ns, unsigned b)
{
	if (h->n == 0 || ns < h->min)
		h->min = ns;
	if (ns > h->max)
		h->max = ns;
	h->n++;
	if (b < HIST_NBUCKETS && h->b[b] != UINT32_MAX)
		h->b[b]++;
}

/* Both counter sets of an entry. */
#define COUNT2(e, field, op) do { (e)->iv.field op; (e)->tot.field op; } while (0)

/*
 * The live entry of a process by table id, made active in this interval (it
 * is charged for work another task did for it); NULL if it is gone.
 */
static struct proc_entry *
proc_find(struct proc_table *t, uint32_t id, uint64_t ts)
{
	uint32_t	 e = model_index_find(&t->pi, proc_hash32(id), proc_same, &id);
	struct proc_entry *p;

	if (e == MODEL_NIL)
		return (NULL);
	p = &t->procs[e];
	model_index_touch(&t->pi, e);
	p->last_ts = ts;
	proc_entry_epoch(t, p);
	return (p);
}

/*
 * The file a block request carried pages of: the file itself, or the
 * device's metadata pseudo-file; NULL for direct I/O and requests without
 * data (direct I/O reaches its file through the O_DIRECT call records).
 */
static struct file_entry *
proc_block_file(struct proc_table *t, const struct ev_block *ev)
{
	char name[40];

	switch (ev->fclass) {
	case BLK_FC_FILE:
		return (model_file_by_ino(t, ev->fsdev, ev->ino, ev->ts_done));
	case BLK_FC_META:
		snprintf(name, sizeof name, "metadata:[%u:%u]", DEV_MAJOR(ev->dev),
		    DEV_MINOR(ev->dev));
		return (model_file_named(t, name, ev->ts_done));
	default:
		return (NULL);
	}
}

/*
 * A completed block request: counted on its submitter, kernel threads
 * included (blk_*), and its bytes on whose behalf they moved (disk_*): the
 * file whose pages it carried, and the submitter, or for the writeback of
 * pages another process dirtied, that process.
 */
void
proc_add_block(struct proc_table *t, const void *rec)
{
	const struct ev_block	*ev = rec;
	struct proc_entry	*p, *owner;
	struct file_entry	*f;
	char			 comm[BLKTOP_COMM_LEN];
	uint64_t		 lat = 0, wait = 0;
	unsigned		 d, lat_b = 0;
	int			 haslat = !(ev->flags & BLK_F_NOLAT);

	t->blk_file = MODEL_NIL;
	if (ev->op == BLK_OP_READ)
		d = 0;
	else if (ev->op == BLK_OP_WRITE)
		d = 1;
	else
		return;
	memcpy(comm, ev->comm, sizeof(comm));
	if (comm[0] == '\0')
		strcpy(comm, "[unknown]");	/* no start hook saw the submitter */
	p = proc_get(t, ev->pid, ev->tgid, comm, ev->cgroup, ev->ts_done);
	COUNT2(p, blk_ios[d], += 1);
	COUNT2(p, blk_bytes[d], += ev->bytes);
	if (haslat) {
		lat = ev->ts_done > ev->ts_issue ? ev->ts_done - ev->ts_issue : 0;
		wait = ev->ts_done > ev->ts_start ? ev->ts_done - ev->ts_start : 0;
		lat_b = hist_bucket(lat);
		COUNT2(p, blk_lat_sum, += lat);
		COUNT2(p, blk_wait_sum, += wait);
		proc_hist_add(&p->blk_lat, lat, lat_b);
		if (ev->ts_done > ev->ts_start)
			pdepth_add(t, p, ev->ts_start, ev->ts_done);
	}
	owner = p;
	if ((f = proc_block_file(t, ev)) != NULL) {
		t->blk_file = (uint32_t)(f - t->files);
		COUNT2(f, disk_ios[d], += 1);
		COUNT2(f, disk_bytes[d], += ev->bytes);
		if (haslat) {
			COUNT2(f, blk_lat_sum, += lat);
			COUNT2(f, blk_wait_sum, += wait);
			proc_hist_add(&f->blk_lat, lat, lat_b);
		}
		if (ev->fclass == BLK_FC_FILE && d == 0)
			COUNT2(f, fill_bytes, += ev->bytes);
		if (ev->fclass == BLK_FC_FILE && d == 1 && f->dirtier != 0 &&
		    f->dirtier != p->id && (owner = proc_find(t, f->dirtier, ev->ts_done)) != NULL)
			COUNT2(owner, wb_bytes, += ev->bytes);
		else
			owner = p;
	}
	COUNT2(owner, disk_bytes[d], += ev->bytes);
	if (ev->fclass == BLK_FC_FILE && d == 0)
		COUNT2(owner, fill_bytes, += ev->bytes);
}

/* The file entry the last block request was charged to (MODEL_NIL: none), and its hash. */
uint32_t
proc_block_file_last(const struct proc_table *t, uint64_t *fhash)
{
	*fhash = t->blk_file != MODEL_NIL ? t->files[t->blk_file].hash : 0;
	return (t->blk_file);
}

/* A request judged (model-reqpat.c) into its file's pattern, if the entry still holds that file. */
void
proc_file_req_add(struct proc_table *t, uint32_t file, uint64_t fhash, enum pat_dir d,
    uint64_t off, uint64_t bytes)
{
	struct file_entry *f = &t->files[file];

	if (f->hash != fhash || f->chunk == MODEL_NIL)
		return;		/* the file left the table meanwhile */
	pattern_req_add(&f->rpat, NULL, d, off, bytes);
}

/* A page dirtied or a file mapping faulted: on the task it happened in, and on the file. */
void
proc_add_page(struct proc_table *t, const void *rec)
{
	const struct ev_page	*ev = rec;
	struct proc_entry	*p;
	struct file_entry	*f;

	p = proc_get(t, ev->pid, ev->tgid, ev->comm, ev->cgroup, ev->ts);
	f = model_file_by_ino(t, ev->dev, ev->ino, ev->ts);
	model_file_add_pid(f, ev->tgid);
	if (ev->kind == PAGE_DIRTY) {
		COUNT2(p, dirtied_bytes, += ev->bytes);
		COUNT2(f, dirtied_bytes, += ev->bytes);
		f->dirtier = p->id;
	} else {
		COUNT2(p, mmap_faults, += 1);
		COUNT2(f, mmap_faults, += 1);
		/* A page read in through a mapping: an access of a page, at its offset. */
		if (model_fault_offset(ev) >= 0)
			model_pattern_access(t, p, f, ev->ts, 0, model_fault_offset(ev), ev->bytes,
			    PAT_READ);
	}
}

/* A dirtier paused by the kernel: on the task it happened to. */
static void
proc_add_throttle(struct proc_table *t, const void *rec)
{
	const struct ev_throttle	*ev = rec;
	struct proc_entry		*p;

	p = proc_get(t, ev->pid, ev->tgid, ev->comm, ev->cgroup, ev->ts);
	COUNT2(p, throttles, += 1);
	COUNT2(p, throttle_ms, += ev->pause_ms);
}

/* One open: counted on the process and on the file (failed ones under the path asked for). */
void
proc_add_open(struct proc_table *t, const void *rec)
{
	const struct ev_open	*ev = rec;
	struct proc_entry	*p;
	struct file_entry	*f;

	p = proc_get(t, ev->pid, ev->tgid, ev->comm, ev->cgroup, ev->ts);
	f = model_file_event(t, ev->path, ev->path_len, ev->path_flags, ev->ftype, ev->ino,
	    ev->tgid, ev->ts);
	if (ev->ret >= 0) {
		COUNT2(p, opens, += 1);
		t->sum.opens++;
		COUNT2(f, opens, += 1);
		if (ev->path_flags & VFS_PF_CREATED) {
			COUNT2(p, creates, += 1);
			t->sum.creates++;
			COUNT2(f, creates, += 1);
		}
		model_file_set_ino(t, f, ev->dev, ev->ino);
		model_pattern_open(t, p, f, ev->ts);
		if (ev->path_flags & VFS_PF_CREATED)
			model_pattern_life(t, p, f, ev->ts, MODEL_PENDING_CREATE);
		else if ((ev->flags & O_TRUNC) && (ev->flags & O_ACCMODE) != O_RDONLY &&
		    ev->ftype == VFS_FT_REG)
			model_pattern_life(t, p, f, ev->ts, MODEL_PENDING_TRUNC);
	} else {
		COUNT2(p, open_fails, += 1);
		t->sum.open_fails++;
		COUNT2(f, open_fails, += 1);
	}
}

/* A lifecycle call into one set of counters. */
static void
proc_count_fop(struct proc_counts *c, const struct ev_fop *ev)
{
	c->fops[ev->op] += 1;
	if (ev->error != 0)
		c->fop_errors += 1;
	else if (ev->op == FOP_MKNOD)
		c->creates += 1;
	c->fop_lat_sum += ev->lat_ns;
}

/*
 * A lifecycle call: on the process, and on the file it named (a rename on
 * both names' rows); a file whose path did not come, by inode.
 */
void
proc_add_fop(struct proc_table *t, const void *rec)
{
	const struct ev_fop	*ev = rec;
	struct proc_entry	*p;
	struct file_entry	*f;

	p = proc_get(t, ev->pid, ev->tgid, ev->comm, ev->cgroup, ev->ts);
	proc_count_fop(&p->iv, ev);
	proc_count_fop(&p->tot, ev);
	proc_count_fop(&t->sum, ev);
	if ((ev->path_flags & VFS_PF_NOPATH) && ev->ino != 0 &&
	    (ev->ftype == VFS_FT_REG || ev->ftype == VFS_FT_BLK)) {
		f = model_file_by_ino(t, ev->dev, ev->ino, ev->ts);
		model_file_add_pid(f, ev->tgid);
	} else if (ev->path_len == 0 && (ev->path_flags & VFS_PF_NOPATH) && ev->ino == 0)
		return;		/* nothing names it (an imported close): the process only */
	else {
		f = model_file_event(t, ev->path, ev->path_len, ev->path_flags, ev->ftype,
		    ev->ino, ev->tgid, ev->ts);
		if (ev->ino != 0)
			model_file_set_ino(t, f, ev->dev, ev->ino);
	}
	proc_count_fop(&f->iv, ev);
	proc_count_fop(&f->tot, ev);
	if (ev->op == FOP_UNLINK && ev->error == 0)
		model_pattern_life(t, p, f, ev->ts, MODEL_PENDING_UNLINK);
	if (ev->op == FOP_TRUNCATE && ev->error == 0)
		model_pattern_truncate(t, p, f, ev->ts, ev->len);
	if (ev->op == FOP_RENAME && ev->path2_len > 0) {
		/* Its unread bytes go with it (RENAME_EXCHANGE, 2, swaps: not followed). */
		if (ev->error == 0 && !(ev->flags & 2))
			model_pattern_life(t, p, f, ev->ts, MODEL_PENDING_RENAME_OUT);
		f = model_file_event(t, ev->path + ev->path_len + 1, ev->path2_len,
		    ev->path_flags & ~VFS_PF_NOPATH, ev->ftype, 0, ev->tgid, ev->ts);
		proc_count_fop(&f->iv, ev);
		proc_count_fop(&f->tot, ev);
		if (ev->error == 0 && !(ev->flags & 2))
			model_pattern_life(t, p, f, ev->ts, MODEL_PENDING_RENAME_IN);
	}
}

/*
 * What one read/write call adds to each set of counters it goes into (five
 * a call), worked out once: added into a set, nothing of the record is read
 * again, where the record, maybe aliasing the sets, was read for each.
 */
struct proc_rw_add {
	uint64_t	 done, asked, lat, direct;
	unsigned	 d;		/* 0 read, 1 write */
	unsigned	 uring, aio, error;	/* 0 or 1 */
};

/*
 * A read/write call, as proc_rw_add has it, into one set of counters;
 * inlined into its five calls (called, 115 instructions a call record of
 * the 1255 proc_add_rw took, callgrind).
 */
static inline __attribute__((always_inline)) void
proc_count_rw(struct proc_counts *c, const struct proc_rw_add *a)
{
	c->vfs_calls[a->d] += 1;
	c->uring_calls[a->d] += a->uring;
	c->aio_calls[a->d] += a->aio;
	c->vfs_bytes[a->d] += a->done;
	c->direct_read_bytes += a->direct;
	c->vfs_asked[a->d] += a->asked;
	c->vfs_lat_sum += a->lat;
	c->vfs_errors += a->error;
	if (a->lat > c->vfs_lat_max)
		c->vfs_lat_max = a->lat;
}

/* One read/write call: on the process and on the file. */
void
proc_add_rw(struct proc_table *t, const void *rec)
{
	const struct ev_rw	*ev = rec;
	struct proc_entry	*p;
	struct file_entry	*f;
	struct proc_rw_add	 add;
	unsigned		 d = ev->op == BLK_OP_WRITE, lat_b;

	p = proc_get(t, ev->pid, ev->tgid, ev->comm, ev->cgroup, ev->ts);
	if ((ev->path_flags & VFS_PF_NOPATH) && ev->ino != 0 &&
	    (ev->ftype == VFS_FT_REG || ev->ftype == VFS_FT_BLK)) {
		/* A file whose path did not come (src/source-live-paths.c): its row by inode. */
		f = model_file_by_ino(t, ev->dev, ev->ino, ev->ts);
		model_file_add_pid(f, ev->tgid);
	} else {
		f = model_file_event(t, ev->path, ev->path_len, ev->path_flags, ev->ftype,
		    ev->ino, ev->tgid, ev->ts);
		model_file_set_ino(t, f, ev->dev, ev->ino);
	}
	add.d = d;
	add.done = ev->done;
	add.asked = ev->asked;
	add.lat = ev->lat_ns;
	add.direct = d == 0 && (ev->path_flags & VFS_PF_DIRECT) && ev->error == 0 ? ev->done : 0;
	add.uring = ev->sys == VFS_SYS_URING_READ || ev->sys == VFS_SYS_URING_WRITE;
	add.aio = !add.uring && (ev->sys == VFS_SYS_AIO_READ || ev->sys == VFS_SYS_AIO_WRITE);
	add.error = ev->error != 0;
	proc_count_rw(&p->iv, &add);
	proc_count_rw(&p->tot, &add);
	proc_count_rw(&t->sum, &add);
	proc_count_rw(&f->iv, &add);
	proc_count_rw(&f->tot, &add);
	/* Direct I/O: the bytes done moved to or from the device for this file. */
	if ((ev->path_flags & VFS_PF_DIRECT) && ev->error == 0)
		COUNT2(f, disk_bytes[d], += ev->done);
	if (ev->path_flags & VFS_PF_DIRECT) {
		pattern_direct(&f->pat, ev->pos, ev->asked, ev->error);
		pattern_direct(&p->pat, ev->pos, ev->asked, ev->error);
	}
	lat_b = hist_bucket(ev->lat_ns);
	proc_hist_add(&p->vfs_lat, ev->lat_ns, lat_b);
	proc_hist_add(&f->lat, ev->lat_ns, lat_b);
	model_pattern_add(t, p, f, ev);
}

/* A process of the tree: into the tree, not the process table (it did no I/O). */
static void
proc_add_task(struct proc_table *t, const void *rec)
{
	task_add(t->tasks, rec, t->host);
}

/* The process tree the records told. */
const struct task_table *
proc_tasks(const struct proc_table *t)
{
	return (t->tasks);
}

/* What each record type adds to the tables; NULL: nothing. */
static void (*const proc_adders[EV_MAX])(struct proc_table *, const void *) = {
	[EV_BLOCK] = proc_add_block,
	[EV_OPEN] = proc_add_open,
	[EV_RW] = proc_add_rw,
	[EV_PAGE] = proc_add_page,
	[EV_THROTTLE] = proc_add_throttle,
	[EV_TASK] = proc_add_task,
	[EV_FOP] = proc_add_fop,
};

/*
 * A record the stream took (rt its entry, len at least the entry's fixed
 * part): what else makes it well formed checked, and added; 0 if used, 1 if
 * not a type for these tables, -1 if malformed. A call's adder named, not
 * looked up, lets the model sink's caller take this and the check inline.
 */
int
proc_add_typed(struct proc_table *t, const struct rec_type *rt, const void *rec, size_t len)
{
	void	(*add)(struct proc_table *, const void *);

	if (rt == &rec_types[EV_RW])
		add = proc_add_rw;	/* most records but requests: called direct, not through the table */
	else if ((add = proc_adders[rt - rec_types]) == NULL)
		return (1);
	if (rt->valid != NULL && !rt->valid(rec, len)) {
		t->bad++;
		return (-1);
	}
	add(t, rec);
	return (0);
}

/* Any record, its type and length checked first (what the stream does); as proc_add_typed. */
int
proc_add(struct proc_table *t, const void *rec, size_t len)
{
	const struct rec_type	*rt;
	uint32_t		 type;

	if (len < sizeof type) {
		t->bad++;
		return (-1);
	}
	memcpy(&type, rec, sizeof type);
	if ((rt = rec_type_of(type)) == NULL || proc_adders[type] == NULL)
		return (1);
	if (len < rt->min_len) {
		t->bad++;
		return (-1);
	}
	return (proc_add_typed(t, rt, rec, len));
}

/* Close the current interval: later events count into a fresh one. */
void
proc_interval(struct proc_table *t)
{
	t->epoch++;
	memset(&t->sum, 0, sizeof t->sum);
	t->procs_evicted_mark = t->pi.evicted;
	t->files_evicted_mark = t->fi.evicted;
}

/* The calls of every process in the current interval (opens, reads and writes, lifecycle). */
const struct proc_counts *
proc_sum(const struct proc_table *t)
{
	return (&t->sum);
}

/* The counters an entry has for the current interval (zeros if idle), or since first seen. */
static const struct proc_counts *
proc_counts_of(const struct proc_table *t, const struct proc_counts *iv,
    const struct proc_counts *tot, uint64_t epoch, int total)
{
	static const struct proc_counts zero;

	if (total)
		return (tot);
	return (epoch == t->epoch ? iv : &zero);
}

/* An entry's counters: the current interval's (zeros if idle) or its totals. */
const struct proc_counts *
proc_entry_counts(const struct proc_table *t, const struct proc_entry *p, int total)
{
	return (proc_counts_of(t, &p->iv, &p->tot, p->epoch, total));
}

/* A file's counters: the current interval's (zeros if idle) or its totals. */
const struct proc_counts *
proc_file_counts(const struct proc_table *t, const struct file_entry *f, int total)
{
	return (proc_counts_of(t, &f->iv, &f->tot, f->epoch, total));
}

/* Percentile p (0..100) of an interval histogram, in ns, within its extremes; 0 if empty. */
double
proc_hist_pct(const struct proc_hist *h, double p)
{
	uint64_t	b[HIST_NBUCKETS];
	unsigned	i;

	if (h->n == 0)
		return (0);
	for (i = 0; i < HIST_NBUCKETS; i++)
		b[i] = h->b[i];
	return (hist_percentile(b, h->n, p, h->min, h->max));
}

/* The histograms of an idle entry: none of this interval. */
static const struct proc_hist proc_hist_none;

/* A file's interval histogram of its read/write calls, or (block) of its device requests. */
const struct proc_hist *
proc_file_hist(const struct proc_table *t, const struct file_entry *f, int block)
{
	if (f->epoch != t->epoch)
		return (&proc_hist_none);
	return (block ? &f->blk_lat : &f->lat);
}

/* A process's interval histogram of its read/write calls, or (block) of its device requests. */
const struct proc_hist *
proc_entry_hist(const struct proc_table *t, const struct proc_entry *e, int block)
{
	if (e->epoch != t->epoch)
		return (&proc_hist_none);
	return (block ? &e->blk_lat : &e->vfs_lat);
}

/* Interval percentile of a file's read/write call latency, ns. */
uint64_t
proc_file_lat(const struct proc_table *t, const struct file_entry *f, double p)
{
	return ((uint64_t)proc_hist_pct(proc_file_hist(t, f, 0), p));
}

/*
 * Share of the bytes read by calls that the page cache served: 100 less the
 * bytes that came from the device per byte read, those being the disk reads
 * into the cache and what O_DIRECT reads returned, which bypass it (counted
 * as the device's: a file read only with O_DIRECT is 0, not 100; readahead
 * can outrun the calls: floored at 0); -1 when nothing was read by calls, or
 * fills are not known.
 */
double
proc_cache_hit_pct(unsigned have, const struct proc_counts *c)
{
	double miss;

	if (!(have & HAVE_FILES) || !(have & HAVE_VFS) || c->vfs_bytes[0] == 0)
		return (-1);
	miss = (double)(c->fill_bytes + c->direct_read_bytes) / (double)c->vfs_bytes[0];
	return (miss >= 1 ? 0 : 100 * (1 - miss));
}

/* Interval percentile of the device latency of a file's block requests, ns. */
uint64_t
proc_file_blk_lat(const struct proc_table *t, const struct file_entry *f, double p)
{
	return ((uint64_t)proc_hist_pct(proc_file_hist(t, f, 1), p));
}

/* Interval percentile of a process's read/write call (vfs) or device (block) latency, ns. */
uint64_t
proc_entry_lat(const struct proc_table *t, const struct proc_entry *e, int block, double p)
{
	return ((uint64_t)proc_hist_pct(proc_entry_hist(t, e, block), p));
}

/* Sizes and eviction counts. */
void
proc_stats(const struct proc_table *t, struct proc_stats *s)
{
	s->procs = t->pi.used;
	s->max_procs = t->pi.cap;
	s->procs_evicted = t->pi.evicted;
	s->files = t->fi.used;
	s->max_files = t->fi.cap;
	s->files_evicted = t->fi.evicted;
	s->procs_evicted_interval = t->pi.evicted - t->procs_evicted_mark;
	s->files_evicted_interval = t->fi.evicted - t->files_evicted_mark;
	s->chunks_used = t->chunks_used;
	s->nchunks = t->nchunks;
	s->bad = t->bad;
	s->pairs_evicted = t->pairs_evicted;
	s->pattern_early = t->pattern_early;
	s->pattern_late = t->pattern_late;
	s->pattern_gone = t->pattern_gone;
	s->maps_reused = t->maps_reused;
	s->pairs = (t->pair_mask + 1) * MODEL_PAIR_WAYS;
	s->by_thread = t->by_thread;
}
