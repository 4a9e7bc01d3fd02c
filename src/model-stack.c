/* model-stack.c: --stack's histograms from the records: block requests, read/write calls, fsyncs; the depth and gap sweeps. */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "blktop.h"
#include "host.h"
#include "stack.h"

/*
 * Each figure is the one storage_latency_stack.bt takes, from the records
 * blktop already has (doc/workflows.md, "Where the time goes"): Q2D is a
 * request's start to its dispatch (ts_start: block_io_start, or the insert
 * where the kernel has no such tracepoint; the script's is insert to
 * dispatch, and only for inserted requests), D2C dispatch to completion.
 * The depth at dispatch and the write-to-fsync gaps need the order of
 * events that come out of order (requests at completion, calls at exit,
 * batches at the tick), so both wait for a sweep at each tick over what
 * happened up to STACK_LAG_NS before it.
 */

/* The slot of v in a bpftrace hist(). */
static inline unsigned
stack_slot(uint64_t v)
{
	if (v == 0)
		return (1);
	return (2 + 63 - (unsigned)__builtin_clzll(v));
}

/* Lowest value of hist slot s (s >= 1). */
uint64_t
stack_hist_slot_lo(unsigned slot)
{
	return (slot <= 1 ? 0 : 1ULL << (slot - 2));
}

/* One value in its hist's unit: x the exact value (ns / 1000 before rounding down). */
static inline void
stack_hist_add(struct stack_hist *h, uint64_t v, double x)
{
	h->b[stack_slot(v)]++;
	h->n++;
	h->sum += x;
}

/* Mean of a hist's exact values, in its unit. */
double
stack_hist_mean(const struct stack_hist *h)
{
	return (h->n > 0 ? h->sum / (double)h->n : 0);
}

/* A time in ns into a hist of us, rounded down as bpftrace's (nsecs - t) / 1000. */
static inline void
stack_hist_us(struct stack_hist *h, uint64_t ns)
{
	stack_hist_add(h, ns / 1000, (double)ns / 1e3);
}

struct stack *
stack_create(void)
{
	struct stack	*st = xcalloc(1, sizeof *st);

	st->procs = xcalloc(STACK_PROCS, sizeof *st->procs);
	st->sfiles = xcalloc(STACK_FILES, sizeof *st->sfiles);
	st->tids = xcalloc(STACK_LAST_SLOTS, sizeof *st->tids);
	st->files = xcalloc(STACK_LAST_SLOTS, sizeof *st->files);
	st->capreqs = st->capcalls = 4096;
	st->reqs = xreallocarray(NULL, st->capreqs, sizeof *st->reqs);
	st->calls = xreallocarray(NULL, st->capcalls, sizeof *st->calls);
	st->host = st->procs_all.host = HOST_NONE;
	return (st);
}

void
stack_free(struct stack *st)
{
	unsigned	 i;

	if (st == NULL)
		return;
	for (i = 0; i < st->ndevs; i++)
		free(st->devs[i]);
	free(st->procs);
	free(st->sfiles);
	free(st->tids);
	free(st->files);
	free(st->reqs);
	free(st->calls);
	free(st);
}

/* The device's own stack, made at its first request, and its place in devs (*di); NULL past STACK_DEVS. */
static struct stack_dev *
stack_dev(struct stack *st, uint32_t dev, unsigned *di)
{
	unsigned	 i;

	for (i = 0; i < st->ndevs; i++)
		if (st->devs[i]->dev == dev) {
			*di = i;
			return (st->devs[i]);
		}
	if (st->ndevs == STACK_DEVS)
		return (NULL);
	st->devs[st->ndevs] = xcalloc(1, sizeof **st->devs);
	st->devs[st->ndevs]->dev = dev;
	*di = st->ndevs;
	return (st->devs[st->ndevs++]);
}

/* The process's (of host) own stack, if made (a few, so a scan). */
static struct stack_proc *
stack_proc_find(struct stack *st, uint32_t tgid, int host)
{
	unsigned	 i;

	for (i = 0; i < st->nprocs; i++)
		if (st->procs[i].tgid == tgid && st->procs[i].host == host)
			return (&st->procs[i]);
	return (NULL);
}

/* The process's own stack, of the record's host: two hosts' pid 1234 are two; NULL past STACK_PROCS. */
static struct stack_proc *
stack_proc(struct stack *st, uint32_t tgid, const char *comm)
{
	struct stack_proc	*p;
	unsigned		 i;

	if (st->proc_last < st->nprocs && st->procs[st->proc_last].tgid == tgid &&
	    st->procs[st->proc_last].host == st->host)
		return (&st->procs[st->proc_last]);
	for (i = 0; i < st->nprocs; i++)
		if (st->procs[i].tgid == tgid && st->procs[i].host == st->host) {
			st->proc_last = i;
			return (&st->procs[i]);
		}
	if (st->nprocs == STACK_PROCS) {
		st->procs_dropped++;
		return (NULL);
	}
	st->proc_last = st->nprocs;
	p = &st->procs[st->nprocs++];
	p->tgid = tgid;
	p->host = st->host;
	memcpy(p->comm, comm, sizeof p->comm);
	return (p);
}

/*
 * A file's own stack, by host, filesystem and inode (two hosts' inode 12 of
 * 8:1 are two files); made (with path, if not NULL) or NULL past STACK_FILES.
 */
static struct stack_file *
stack_file(struct stack *st, int host, uint32_t fsdev, uint64_t ino, const char *path, size_t len)
{
	struct stack_file	*f;
	unsigned		 i;

	for (i = 0; i < st->nsfiles; i++)
		if (st->sfiles[i].ino == ino && st->sfiles[i].fsdev == fsdev &&
		    st->sfiles[i].host == host)
			return (&st->sfiles[i]);
	if (path == NULL)
		return (NULL);
	if (st->nsfiles == STACK_FILES) {
		st->files_dropped++;
		return (NULL);
	}
	f = &st->sfiles[st->nsfiles++];
	f->ino = ino;
	f->fsdev = fsdev;
	f->host = host;
	if (len >= sizeof f->path)
		len = sizeof f->path - 1;
	memcpy(f->path, path, len);
	f->path[len] = '\0';
	return (f);
}

/* Room for one more in a waiting list: doubled, never past STACK_WAIT_MAX (then 0). */
static int
stack_room(void **v, size_t n, size_t *cap, size_t size)
{
	if (n < *cap)
		return (1);
	if (*cap >= STACK_WAIT_MAX)
		return (0);
	*cap *= 2;
	*v = xreallocarray(*v, *cap, size);
	return (1);
}

/*
 * A block request: the script's direction is rwbs's first letter, R or W,
 * read at dispatch for Q2D, sizes, depth and LBA, and at completion for D2C.
 * The kernel clears a write's preflush once the flush before it is done
 * (blk-flush.c): a write with data and a preflush is dispatched, and
 * completes, as "W..."; an empty one (an fsync's) is never dispatched
 * itself, the flush is, but it completes as "WS" and is in the script's
 * D2C of writes only. Figures into the device's stack and "all".
 */
static void
stack_block(struct stack *st, const struct ev_block *ev, struct stack_proc *p)
{
	struct stack_dev	*d[2] = { &st->all, NULL };
	struct stack_req	*r;
	uint64_t		 gb;
	unsigned		 dir, i, di = STACK_NODEV;

	if (ev->op == BLK_OP_READ)
		dir = STACK_READ;
	else if (ev->op == BLK_OP_WRITE)
		dir = STACK_WRITE;
	else
		return;
	if ((d[1] = stack_dev(st, ev->dev, &di)) == NULL)
		st->devs_dropped++;
	if ((ev->flags & BLK_F_PREFLUSH) && ev->bytes == 0) {
		for (i = 0; i < 2 && d[i] != NULL; i++)
			if (!(ev->flags & BLK_F_NOLAT) && ev->ts_done >= ev->ts_issue)
				stack_hist_us(&d[i]->d2c[dir], ev->ts_done - ev->ts_issue);
		return;
	}
	gb = ev->sector >> 21;
	for (i = 0; i < 2 && d[i] != NULL; i++) {
		d[i]->bs[dir].b[stack_slot(ev->bytes / 1024)]++;
		d[i]->bs[dir].n++;
		d[i]->bs[dir].sum += (double)ev->bytes / 1024;
		d[i]->lba[dir][gb >= STACK_LBA_MAX ? STACK_LBA_SLOTS - 1 : 1 + gb / STACK_LBA_STEP]++;
		d[i]->lba_n[dir]++;
		if (ev->flags & BLK_F_NOLAT)
			continue;
		if (!(ev->flags & BLK_F_NOSTART) && ev->ts_issue >= ev->ts_start)
			stack_hist_us(&d[i]->q2d[dir], ev->ts_issue - ev->ts_start);
		if (ev->ts_done >= ev->ts_issue)
			stack_hist_us(&d[i]->d2c[dir], ev->ts_done - ev->ts_issue);
	}
	if (p != NULL && !(ev->flags & BLK_F_NOLAT) && ev->ts_done >= ev->ts_issue) {
		if (!(ev->flags & BLK_F_NOSTART) && ev->ts_issue >= ev->ts_start)
			stack_hist_us(&p->q2d, ev->ts_issue - ev->ts_start);
		stack_hist_us(&p->d2c, ev->ts_done - ev->ts_issue);
	}
	if (ev->flags & BLK_F_NOLAT)
		return;
	if (!stack_room((void **)&st->reqs, st->nreqs, &st->capreqs, sizeof *st->reqs)) {
		st->over++;
		return;
	}
	r = &st->reqs[st->nreqs++];
	r->issue = ev->ts_issue;
	r->done = ev->ts_done > ev->ts_issue ? ev->ts_done : ev->ts_issue + 1;
	r->dev = ev->dev;
	r->dir = (uint8_t)dir;
	r->di = (uint8_t)di;
	r->counted = ev->ts_issue < st->cut ? 3 : 0;
	if (ev->ts_issue < st->cut)
		st->late++;
}

/* A read/write family call (the script's vfs_read/vfs_write): not io_uring, libaio, sendfile and the like. */
static int
stack_is_rw(const struct ev_rw *ev)
{
	if (ev->path_flags & VFS_PF_KIO)
		return (0);
	return ((ev->sys >= VFS_SYS_READ && ev->sys <= VFS_SYS_PWRITEV2) ||
	    ev->sys == VFS_SYS_VFS_READ || ev->sys == VFS_SYS_VFS_WRITE);
}

/* A write or an fsync into the gap sweep's list. */
static void
stack_call(struct stack *st, uint64_t ts, uint32_t fsdev, uint64_t ino, uint32_t tid,
    uint32_t tgid, int fsync)
{
	struct stack_call	*c;

	if (!stack_room((void **)&st->calls, st->ncalls, &st->capcalls, sizeof *st->calls)) {
		st->over++;
		return;
	}
	c = &st->calls[st->ncalls++];
	c->ts = ts;
	c->fsdev = fsdev;
	c->ino = ino;
	c->tid = tid;
	c->tgid = tgid;
	c->host = st->host;
	c->fsync = (uint8_t)fsync;
	if (ts < st->cut)
		st->late++;
}

/* One record, with the stream's verdict on it (STREAM_KEEP_*): what the filters keep, into the stack. */
void
stack_add(struct stack *st, const struct rec_type *rt, const void *rec, size_t len,
    unsigned keep)
{
	struct stack_proc	*p = NULL;
	const struct ev_rw	*rw;
	const struct ev_fop	*fop;
	uint64_t		 ts;

	if (rt == NULL || (rt->valid != NULL && !rt->valid(rec, len)))
		return;
	st->host = host_count() > 1 ? host_current() : HOST_NONE;	/* as the process table's */
	if (rt == &rec_types[EV_BLOCK]) {
		const struct ev_block *ev = rec;

		if (!(keep & STREAM_KEEP_DEV))
			return;
		if (keep & STREAM_KEEP_PROC)
			p = stack_proc(st, ev->tgid, ev->comm);
		stack_block(st, ev, p);
		ts = ev->ts_done;
	} else if (rt == &rec_types[EV_RW]) {
		rw = rec;
		if (!stack_is_rw(rw) || !(keep & STREAM_KEEP_PROC))
			return;
		p = stack_proc(st, rw->tgid, rw->comm);
		stack_hist_us(&st->procs_all.vfs[rw->op == BLK_OP_WRITE], rw->lat_ns);
		if (p != NULL)
			stack_hist_us(&p->vfs[rw->op == BLK_OP_WRITE], rw->lat_ns);
		if (rw->op == BLK_OP_WRITE && (rw->sys == VFS_SYS_WRITE ||
		    rw->sys == VFS_SYS_VFS_WRITE))
			stack_call(st, rw->ts, rw->dev, rw->ino, rw->pid, rw->tgid, 0);
		ts = rw->ts;
	} else if (rt == &rec_types[EV_FOP]) {
		fop = rec;
		if (fop->op != FOP_FSYNC || (fop->flags & 1) ||
		    !(keep & STREAM_KEEP_PROC))
			return;
		p = stack_proc(st, fop->tgid, fop->comm);
		stack_hist_us(&st->procs_all.fsync, fop->lat_ns);
		if (p != NULL)
			stack_hist_us(&p->fsync, fop->lat_ns);
		if (fop->ino != 0) {
			struct stack_file *f = stack_file(st, st->host, fop->dev, fop->ino, fop->path,
			    len > sizeof *fop ? strnlen(fop->path, len - sizeof *fop) : 0);

			if (f != NULL)
				stack_hist_us(&f->fsync, fop->lat_ns);
		}
		stack_call(st, fop->ts - fop->lat_ns, fop->dev, fop->ino, fop->pid, fop->tgid, 1);
		ts = fop->ts;
	} else
		return;
	if (st->first_ts == 0 || ts < st->first_ts)
		st->first_ts = ts;
	if (ts > st->last_ts)
		st->last_ts = ts;
}

/*
 * Requests in order of dispatch (by_done 0) or completion (1): an insertion
 * sort, as they come nearly in order (at completion; a request moves past
 * about as many as were in flight), where qsort took 1,270 instructions a
 * request (callgrind).
 */
static void
stack_isort(struct stack_req *v, size_t n, int by_done)
{
	struct stack_req	 x;
	size_t			 i, j;

	for (i = 1; i < n; i++) {
		x = v[i];
		for (j = i; j > 0 && (by_done ? v[j - 1].done > x.done : v[j - 1].issue > x.issue); j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

/* Order of calls by time (a write before an fsync of the same ns). */
static int
stack_call_cmp(const void *a, const void *b)
{
	const struct stack_call	*x = a, *y = b;

	if (x->ts != y->ts)
		return (x->ts < y->ts ? -1 : 1);
	return ((int)x->fsync - (int)y->fsync);
}

/*
 * The depth each request found at its dispatch, for all devices and for its
 * own, in its direction: 1 + the requests S of that key with S.issue <=
 * R.issue < S.done, R counted. One walk for every key: the waiting list
 * holds every request not yet done before the previous cut, sorted by
 * dispatch; done, the same sorted by completion (a walk per key and
 * direction cost 460 instructions a request, callgrind, fio's libaio capture).
 */
static void
stack_depths(struct stack *st, uint64_t cut, const struct stack_req *done)
{
	uint64_t	 starts[STACK_DEVS + 1][STACK_NDIRS], ends[STACK_DEVS + 1][STACK_NDIRS];
	uint64_t	 depth;
	size_t		 i, k = 0;
	unsigned	 all = STACK_DEVS;	/* the row of "all" */

	memset(starts, 0, sizeof starts);
	memset(ends, 0, sizeof ends);
	for (i = 0; i < st->nreqs; i++) {
		const struct stack_req *r = &st->reqs[i];

		if (r->issue >= cut)
			break;
		/* ends: completions of each key up to r's dispatch. */
		for (; k < st->nreqs && done[k].done <= r->issue; k++) {
			ends[all][done[k].dir]++;
			if (done[k].di < STACK_DEVS)
				ends[done[k].di][done[k].dir]++;
		}
		starts[all][r->dir]++;
		if (!(r->counted & 1)) {
			depth = starts[all][r->dir] - ends[all][r->dir];
			stack_hist_add(&st->all.qd[r->dir], depth, (double)depth);
		}
		if (r->di >= STACK_DEVS)
			continue;
		starts[r->di][r->dir]++;
		if (!(r->counted & 2)) {
			depth = starts[r->di][r->dir] - ends[r->di][r->dir];
			stack_hist_add(&st->devs[r->di]->qd[r->dir], depth, (double)depth);
		}
	}
}

/* Follow one thread or file in a small table: its slot (a full table reuses the probe's last). */
static struct stack_last *
stack_last(struct stack_last *t, uint64_t key)
{
	uint64_t	 h = (key | 1) * 0x9e3779b97f4a7c15ULL;
	unsigned	 i, s;

	for (i = 0; i < 16; i++) {
		s = (unsigned)((h >> 40) + i) & (STACK_LAST_SLOTS - 1);
		if (t[s].key == key || t[s].key == 0)
			break;
	}
	t[s].key = key | (key == 0);
	return (&t[s]);
}

/* The calls up to cut, in time order: a thread's last write to its fsync, a file's first to its fsync. */
static void
stack_gaps(struct stack *st, uint64_t cut)
{
	struct stack_proc	*p;
	struct stack_file	*f;
	struct stack_last	*l;
	size_t			 i;

	qsort(st->calls, st->ncalls, sizeof *st->calls, stack_call_cmp);
	for (i = 0; i < st->ncalls && st->calls[i].ts < cut; i++) {
		const struct stack_call *c = &st->calls[i];
		/* A run of several hosts: a host's thread or file is its own (one host: as before). */
		uint64_t hkey = c->host >= 0 ? (uint64_t)(c->host + 1) * 0x9e3779b97f4a7c15ULL : 0;
		uint64_t fkey = (((uint64_t)c->fsdev << 40) ^ c->ino) ^ hkey;
		uint64_t tkey = c->tid ^ hkey;

		if (!c->fsync) {
			stack_last(st->tids, tkey)->ts = c->ts;
			l = stack_last(st->files, fkey);
			if (l->ts == 0)
				l->ts = c->ts;
			continue;
		}
		p = stack_proc_find(st, c->tgid, c->host);
		f = c->ino != 0 ? stack_file(st, c->host, c->fsdev, c->ino, NULL, 0) : NULL;
		l = stack_last(st->tids, tkey);
		if (l->ts != 0 && c->ts >= l->ts) {
			stack_hist_us(&st->procs_all.wgap, c->ts - l->ts);
			if (p != NULL)
				stack_hist_us(&p->wgap, c->ts - l->ts);
			if (f != NULL)
				stack_hist_us(&f->wgap, c->ts - l->ts);
		}
		l->ts = 0;
		l = stack_last(st->files, fkey);
		if (l->ts != 0 && c->ts >= l->ts) {
			stack_hist_us(&st->procs_all.dirty, c->ts - l->ts);
			if (p != NULL)
				stack_hist_us(&p->dirty, c->ts - l->ts);
			if (f != NULL)
				stack_hist_us(&f->dirty, c->ts - l->ts);
		}
		l->ts = 0;
	}
	memmove(st->calls, st->calls + i, (st->ncalls - i) * sizeof *st->calls);
	st->ncalls -= i;
}

/* A sweep: every depth at a dispatch before cut, every gap ending before it; what is done goes. */
void
stack_cut(struct stack *st, uint64_t cut)
{
	struct stack_req *done;
	size_t		 i, n;

	if (cut <= st->cut)
		return;
	stack_isort(st->reqs, st->nreqs, 0);
	done = xreallocarray(NULL, st->nreqs + 1, sizeof *done);
	memcpy(done, st->reqs, st->nreqs * sizeof *done);
	stack_isort(done, st->nreqs, 1);
	stack_depths(st, cut, done);
	free(done);
	for (i = 0, n = 0; i < st->nreqs; i++) {
		if (st->reqs[i].issue < cut)
			st->reqs[i].counted = 3;
		if (st->reqs[i].done >= cut)
			st->reqs[n++] = st->reqs[i];
	}
	st->nreqs = n;
	stack_gaps(st, cut);
	st->cut = cut;
}
