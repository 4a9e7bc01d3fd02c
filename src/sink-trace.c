/*
 * sink-trace.c: --trace OUT.json: the run's requests, calls and per-tick
 * counters as a Chrome Trace Event file (Perfetto, chrome://tracing), kept in
 * a bounded pool and written at the end. doc/trace.md describes the tracks.
 */

#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blktop.h"
#include "host.h"
#include "trace.h"
#include "field-dev.h"

_Static_assert(TRACE_DEV_PID + TRACE_DEVS + HOST_MAX <= 1u << PROC_ID_HOST_SHIFT &&
    HOST_MAX < 255 && TRACE_PATHS < 1u << 24, "host bits above the devices' pids; inode slots");

static uint32_t
trace_hash(const void *p, size_t n, uint64_t seed)
{
	return ((uint32_t)name_hash(p, n, seed));
}

/*
 * A path's id + 1, added the first time; 0 when the tables are full. A mark's
 * label (label) shares the tables but takes at most TRACE_LABELS names and an
 * eighth of the arena, so that a flood of labels leaves the files their paths.
 */
static uint32_t
trace_path(struct trace *t, const char *s, size_t n, int label)
{
	uint32_t	 h, i, id;

	if (n == 0)
		return (0);
	h = trace_hash(s, n, 0);
	for (i = h & (TRACE_PATHS * 2 - 1);; i = (i + 1) & (TRACE_PATHS * 2 - 1)) {
		if ((id = t->path_slot[i]) == 0)
			break;
		if (strncmp(t->arena + t->path_off[id - 1], s, n) == 0 &&
		    t->arena[t->path_off[id - 1] + n] == '\0')
			return (id);
	}
	if (label && (t->nlabels == TRACE_LABELS || t->label_bytes + n + 1 > t->arena_cap / 8)) {
		t->labels_unnamed++;
		return (0);
	}
	if (t->npaths == TRACE_PATHS || t->arena_cap - t->arena_used < n + 1) {
		if (label)
			t->labels_unnamed++;
		else
			t->paths_unnamed++;
		return (0);
	}
	if (label) {
		t->nlabels++;
		t->label_bytes += n + 1;
	}
	memcpy(t->arena + t->arena_used, s, n);
	t->arena[t->arena_used + n] = '\0';
	t->path_off[t->npaths] = (uint32_t)t->arena_used;
	t->arena_used += n + 1;
	t->path_slot[i] = ++t->npaths;
	return (t->npaths);
}

/*
 * The inode's slot: where (dev, ino) of the record's host is, or the free one
 * to put it in; NULL when full. Two hosts' inode 12 of 8:1 are two files.
 */
static struct trace_inode *
trace_inode_slot(struct trace *t, uint32_t dev, uint64_t ino)
{
	uint64_t	 key = (((uint64_t)dev << 32) ^ ino) + t->hbits;
	uint32_t	 i, n, host1 = (uint32_t)(t->host + 1);

	i = trace_hash(&key, sizeof key, 7) & (TRACE_INODES - 1);
	for (n = 0; n < 64; n++, i = (i + 1) & (TRACE_INODES - 1)) {
		if (t->inodes[i].ino == 0 || (t->inodes[i].dev == dev &&
		    t->inodes[i].ino == ino && t->inodes[i].host1 == host1))
			return (&t->inodes[i]);
	}
	return (NULL);
}

/* A call named its file: remember (host, dev, ino) -> path for the requests that carry its pages. */
static void
trace_inode_learn(struct trace *t, uint32_t dev, uint64_t ino, uint32_t path)
{
	struct trace_inode	*s;

	if (ino == 0 || path == 0 || (s = trace_inode_slot(t, dev, ino)) == NULL)
		return;
	s->dev = dev;
	s->ino = ino;
	s->path = path & 0xffffff;
	s->host1 = (uint32_t)(t->host + 1) & 0xff;
}

/* A pid or tid of the record's host as the trace's (0 stays 0: none). */
static uint32_t
trace_id(const struct trace *t, uint32_t id)
{
	return (id == 0 ? 0 : id | t->hbits);
}

/*
 * A file's path's id + 1 (trace_path's): in a run of several hosts its
 * host's name and a ':' before it ("node1:/data/x", as -b and the report
 * name it), so that two hosts' /data/x are two names. Its length in *len.
 */
static uint32_t
trace_file_path(struct trace *t, const char *path, size_t *len)
{
	char	 buf[HOST_NAME_MAX_LEN + VFS_PATH_MAX];
	int	 n;

	if (t->host == HOST_NONE || *len == 0 || host_name(t->host) == NULL)
		return (trace_path(t, path, *len, 0));
	n = snprintf(buf, sizeof buf, "%s:%.*s", host_name(t->host), (int)*len, path);
	*len = n < 0 ? 0 : (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1;
	return (trace_path(t, buf, *len, 0));
}

static uint32_t
trace_inode_path(struct trace *t, uint32_t dev, uint64_t ino)
{
	struct trace_inode	*s;

	if (ino == 0 || (s = trace_inode_slot(t, dev, ino)) == NULL || s->ino == 0)
		return (0);
	return (s->path);
}

/* A thread's name and process, kept the first time (and its comm updated: exec). */
static void
trace_thread(struct trace *t, uint32_t tid, uint32_t tgid, const char *comm)
{
	uint32_t	 i, n;

	if (tid == 0)
		return;
	i = trace_hash(&tid, sizeof tid, 3) & (TRACE_THREADS - 1);
	for (n = 0; n < TRACE_THREADS; n++, i = (i + 1) & (TRACE_THREADS - 1)) {
		if (t->threads[i].tid == tid) {
			memcpy(t->threads[i].comm, comm, BLKTOP_COMM_LEN);
			t->threads[i].tgid = tgid;
			return;
		}
		if (t->threads[i].tid == 0)
			break;
	}
	/* Three quarters full at most (the probes stay short), an eighth of the bytes. */
	if (n == TRACE_THREADS || t->nthreads >= TRACE_THREADS / 4 * 3 ||
	    t->name_bytes + TRACE_COST_THREAD > t->budget / 8) {
		t->threads_unnamed++;
		return;
	}
	t->threads[i].tid = tid;
	t->threads[i].tgid = tgid;
	memcpy(t->threads[i].comm, comm, BLKTOP_COMM_LEN);
	t->nthreads++;
	t->name_bytes += TRACE_COST_THREAD;
}

/* The device's index among the trace's devices, or -1. */
int
trace_dev_find(const struct trace *t, uint32_t dev)
{
	unsigned	 i;

	for (i = 0; i < t->ndevs; i++) {
		if (t->devs[i] == dev)
			return ((int)i);
	}
	return (-1);
}

/* ... added the first time; -1 past TRACE_DEVS. */
static int
trace_dev(struct trace *t, uint32_t dev)
{
	int	 i;

	if ((i = trace_dev_find(t, dev)) >= 0)
		return (i);
	if (t->ndevs == TRACE_DEVS)
		return (-1);
	t->devs[t->ndevs] = dev;
	return ((int)t->ndevs++);
}

/* The open tick's counts of a process; NULL past TRACE_PROCS of them. */
static struct trace_proc *
trace_proc(struct trace *t, uint32_t tgid)
{
	uint32_t	 i, n;

	if (tgid == 0)
		return (NULL);
	i = trace_hash(&tgid, sizeof tgid, 5) & (TRACE_PROCS - 1);
	for (n = 0; n < TRACE_PROCS / 2; n++, i = (i + 1) & (TRACE_PROCS - 1)) {
		if (t->procs[i].tgid == tgid)
			return (&t->procs[i]);
		if (t->procs[i].tgid == 0) {
			if (t->nprocs >= TRACE_PROCS / 2)
				return (NULL);
			t->nprocs++;
			t->procs[i].tgid = tgid;
			return (&t->procs[i]);
		}
	}
	return (NULL);
}

static void
trace_block(struct trace *t, const struct ev_block *r)
{
	struct trace_proc	*p;
	struct trace_ev		*v;
	uint32_t		 e;

	if (r->op == BLK_OP_READ && r->fclass == BLK_FC_FILE &&
	    (p = trace_proc(t, trace_id(t, r->tgid))) != NULL)
		p->fill += r->bytes;
	if (trace_dev(t, r->dev) < 0) {
		t->devs_dropped++;
		return;
	}
	trace_thread(t, trace_id(t, r->pid), trace_id(t, r->tgid), r->comm);
	if ((v = trace_new(t, TR_REQ, &e)) == NULL)
		return;
	v->ts = r->ts_start;
	v->dur = r->ts_done > r->ts_start ? r->ts_done - r->ts_start : 0;
	v->mid = r->ts_issue < r->ts_start ? r->ts_start :
	    r->ts_issue > r->ts_done ? r->ts_done : r->ts_issue;
	if (r->flags & BLK_F_NOLAT) {
		v->ts = r->ts_done;
		v->dur = 0;
		v->mid = r->ts_done;
	}
	v->off = (int64_t)r->sector;
	v->bytes = r->bytes;
	v->pid = trace_id(t, r->pid);
	v->tgid = trace_id(t, r->tgid);
	v->dev = r->dev;
	v->error = r->error;
	v->op = r->op;
	v->fl = (uint16_t)(r->fclass | (r->flags & BLK_F_NOLAT ? 0x100 : 0));
	v->path = r->fclass == BLK_FC_FILE ? trace_inode_path(t, r->fsdev, r->ino) : 0;
	v->seq = ++t->seq;
	v->cost = TRACE_COST_REQ + (v->path ? (uint32_t)strlen(trace_path_str(t, v->path)) : 0);
	trace_keep(t, e);
}

/* The fields of a file call: its thread, time, file. */
static struct trace_ev *
trace_call(struct trace *t, enum trace_kind kind, uint32_t *ep, uint64_t ts, uint64_t lat,
    uint32_t pid, uint32_t tgid, const char *comm, uint32_t dev, uint64_t ino,
    const char *path, size_t path_len, int32_t error)
{
	struct trace_ev	*v;

	pid = trace_id(t, pid);
	tgid = trace_id(t, tgid);
	trace_thread(t, pid, tgid, comm);
	if ((v = trace_new(t, kind, ep)) == NULL)
		return (NULL);
	v->ts = ts > lat ? ts - lat : 0;
	v->dur = ts > lat ? lat : ts;
	v->pid = pid;
	v->tgid = tgid;
	v->dev = dev;
	v->error = error;
	v->path = trace_file_path(t, path, &path_len);
	trace_inode_learn(t, dev, ino, v->path);
	v->cost = (v->path ? (uint32_t)path_len : 0);
	return (v);
}

static void
trace_rw(struct trace *t, const struct ev_rw *r, size_t len)
{
	struct trace_proc	*p;
	struct trace_ev		*v;
	uint32_t		 e;
	int			 async = r->sys >= VFS_SYS_URING_READ && r->sys <= VFS_SYS_AIO_WRITE;

	if (EV_RW_SIZE(r->path_len) > len || r->path_len >= VFS_PATH_MAX)
		return;
	if ((p = trace_proc(t, trace_id(t, r->tgid))) != NULL) {
		if (r->op == BLK_OP_READ)
			p->rd += r->done;
		else
			p->wr += r->done;
		/* O_DIRECT reads came from the device, not the cache: the hit share's miss side. */
		if (r->op == BLK_OP_READ && (r->path_flags & VFS_PF_DIRECT) && r->error == 0)
			p->fill += r->done;
	}
	if ((v = trace_call(t, async ? TR_ASYNC : TR_CALL, &e, r->ts, r->lat_ns, r->pid,
	    r->tgid, r->comm, r->dev, r->ino, r->path, r->path_len, r->error)) == NULL)
		return;
	v->sys = r->sys;
	v->op = r->op;
	v->off = r->pos;
	v->bytes = r->done;
	v->asked = r->asked;
	if (async)
		v->seq = ++t->seq;
	v->cost += async ? TRACE_COST_ASYNC : TRACE_COST_CALL;
	trace_keep(t, e);
}

static void
trace_open(struct trace *t, const struct ev_open *r, size_t len)
{
	struct trace_ev	*v;
	uint32_t	 e;

	if (EV_OPEN_SIZE(r->path_len) > len || r->path_len >= VFS_PATH_MAX)
		return;
	if ((v = trace_call(t, TR_OPEN, &e, r->ts, r->lat_ns, r->pid, r->tgid, r->comm,
	    r->dev, r->ino, r->path, r->path_len, r->ret < 0 ? r->ret : 0)) == NULL)
		return;
	v->sys = r->sys;
	v->cost += TRACE_COST_CALL;
	trace_keep(t, e);
}

static void
trace_fop(struct trace *t, const struct ev_fop *r, size_t len)
{
	struct trace_ev	*v;
	uint32_t	 e;

	if (r->path_len >= VFS_PATH_MAX || r->path2_len >= VFS_PATH_MAX ||
	    EV_FOP_SIZE(r->path_len, r->path2_len) > len || r->op >= FOP_MAX)
		return;
	if ((v = trace_call(t, TR_FOP, &e, r->ts, r->lat_ns, r->pid, r->tgid, r->comm,
	    r->dev, r->ino, r->path, r->path_len, r->error)) == NULL)
		return;
	v->op = r->op;
	v->sys = r->sys;
	v->cost += TRACE_COST_CALL;
	trace_keep(t, e);
}

static void
trace_lost(struct trace *t, const struct ev_lost *r)
{
	struct trace_ev	*v;
	uint32_t	 e;

	if ((v = trace_new(t, TR_LOST, &e)) == NULL)
		return;
	v->ts = r->ts;
	v->bytes = r->count;
	v->fl = (uint16_t)(r->kind < LOST_KINDS ? r->kind : LOST_RECORDS);
	v->cost = TRACE_COST_INSTANT;
	trace_keep(t, e);
}

/* A mark: an instant, and the start of a phase's slice. */
static void
trace_mark(struct trace *t, const struct ev_mark *r, size_t len)
{
	struct trace_ev	*v;
	uint32_t	 e;

	if (!rec_types[EV_MARK].valid(r, len) || (v = trace_new(t, TR_MARK, &e)) == NULL)
		return;
	v->ts = r->ts;
	v->pid = v->tgid = r->pid;
	v->path = trace_path(t, r->label, r->label_len, 1);
	v->cost = TRACE_COST_MARK + r->label_len;
	trace_keep(t, e);
}

/* One record, with the stream's verdict: what the filters keep, into the trace. */
static void
trace_event(struct sink *s, const struct rec_type *rt, const void *rec, size_t len,
    unsigned keep)
{
	struct trace	*t = s->data;

	if (rt == NULL || !(keep & STREAM_KEEP_PROC))
		return;
	t->host = host_count() > 1 ? host_current() : HOST_NONE;	/* as the process table's */
	t->hbits = PROC_ID_OF(0, t->host);
	switch (rt - rec_types) {
	case EV_BLOCK:
		if (keep & STREAM_KEEP_DEV)
			trace_block(t, rec);
		break;
	case EV_RW:
		trace_rw(t, rec, len);
		break;
	case EV_OPEN:
		trace_open(t, rec, len);
		break;
	case EV_FOP:
		trace_fop(t, rec, len);
		break;
	case EV_LOST:
		trace_lost(t, rec);
		break;
	case EV_MARK:
		trace_mark(t, rec, len);
		break;
	default:
		break;
	}
}

/* A tick closed: each device's counters from the windows, each busy process's from the tick's calls. */
static void
trace_tick(struct sink *s, uint64_t ts)
{
	struct trace		*t = s->data;
	struct blktop		*b = s->b;
	const struct devwin	*dw;
	const struct tick	*k;
	struct trace_ev		*v;
	static struct sum	 sum;		/* large: keep them off the stack */
	static struct dev_ctx	 x;
	const struct dev_colref	 p99 = { DEVF_P99, DEVF_ALL };
	struct trace_proc	*top[TRACE_PROC_COUNTERS], *p;
	double			 lat;
	unsigned		 i, j, ntop = 0;
	int			 known;
	uint32_t		 e, was[TRACE_PROC_COUNTERS], nwas;

	for (i = 0; i < b->win.ndevs; i++) {
		dw = b->win.devs[i];
		if (trace_dev(t, dw->dev) < 0 ||
		    (k = windows_tick_at(&b->win, dw, 1)) == NULL || k->end <= k->start)
			continue;
		if ((v = trace_new(t, TR_DEVCNT, &e)) == NULL)
			continue;
		memset(&sum, 0, sizeof sum);
		windows_sum_tick(&sum, k);
		dev_ctx_init(&x, dw->dev, &sum, NULL);
		lat = dev_field_value(&x, &p99, &known);
		v->seq = x.all.ios;
		v->ts = k->end;
		v->mid = k->end - k->start;
		v->dev = dw->dev;
		v->bytes = sum.op[OPC_READ].bytes;
		v->asked = sum.op[OPC_WRITE].bytes;
		v->extra = k->wait_sum;
		v->p99_us = !known ? UINT32_MAX : (uint32_t)(lat / 1000);
		v->cost = TRACE_COST_DEVCNT;
		trace_keep(t, e);
	}
	/* The busiest processes of the tick, and a zero for those shown last tick and idle now. */
	for (i = 0; i < TRACE_PROCS; i++) {
		p = &t->procs[i];
		if (p->tgid == 0 || p->rd + p->wr == 0)
			continue;
		if (ntop < TRACE_PROC_COUNTERS)
			j = ntop++;
		else if (top[ntop - 1]->rd + top[ntop - 1]->wr < p->rd + p->wr)
			j = ntop - 1;
		else
			continue;
		for (; j > 0 && top[j - 1]->rd + top[j - 1]->wr < p->rd + p->wr; j--)
			top[j] = top[j - 1];
		top[j] = p;
	}
	memcpy(was, t->shown, sizeof was);
	nwas = t->nshown;
	t->nshown = 0;
	for (i = 0; i < ntop; i++) {
		t->shown[t->nshown++] = top[i]->tgid;
		if ((v = trace_new(t, TR_PROCCNT, &e)) == NULL)
			continue;
		v->ts = ts;
		v->mid = ts > t->tick_start ? ts - t->tick_start : 0;
		v->tgid = v->pid = top[i]->tgid;
		v->bytes = top[i]->rd;
		v->asked = top[i]->wr;
		v->extra = top[i]->fill;
		v->cost = TRACE_COST_PROCCNT;
		trace_keep(t, e);
	}
	for (i = 0; i < nwas; i++) {
		for (j = 0; j < t->nshown && t->shown[j] != was[i]; j++)
			;
		if (j < t->nshown || (v = trace_new(t, TR_PROCCNT, &e)) == NULL)
			continue;
		v->ts = ts;
		v->mid = ts > t->tick_start ? ts - t->tick_start : 0;
		v->tgid = v->pid = was[i];
		v->cost = TRACE_COST_PROCCNT;
		trace_keep(t, e);
	}
	memset(t->procs, 0, sizeof t->procs);
	t->nprocs = 0;
	t->tick_start = ts;
	/* A recording started (-w, r, the trigger): an instant. */
	if (b->rec_start.n != t->rec_seen && (v = trace_new(t, TR_REC, &e)) != NULL) {
		v->ts = b->rec_start.ts;
		v->path = trace_path(t, b->rec_start.why, strlen(b->rec_start.why), 0);
		v->cost = TRACE_COST_INSTANT;
		trace_keep(t, e);
	}
	t->rec_seen = b->rec_start.n;
}

/* Write the file once: at the end of a replay, or when a live run stops. */
static void
trace_write(struct sink *s)
{
	struct trace	*t = s->data;
	struct blktop	*b = s->b;
	FILE		*f;
	uint64_t	 kept, dropped = 0;
	unsigned	 k;
	int		 bad;

	if (t == NULL || (f = t->f) == NULL || t->written)
		return;
	t->written = 1;
	for (k = 0; k < TR_KINDS; k++)
		dropped += t->dropped[k];
	kept = (uint64_t)t->nfix + t->nslow + t->nsamp;
	trace_json(f, t, b, dropped);
	bad = ferror(f);
	if (fclose(f) != 0 || bad) {
		log_warnx("--trace %s: write failed: %s", t->opts.path,
		    strerror(errno != 0 ? errno : EIO));
		b->status = 1;
	} else {
		if (dropped)
			log_warnx("--trace %s: %" PRIu64 " of %" PRIu64 " events did not fit in "
			    "--trace-max %" PRIu64 " MB: kept the slowest requests and a uniform "
			    "sample of the rest (the trace's otherData says so)", t->opts.path,
			    dropped, dropped + kept, t->opts.max_bytes >> 20);
		if (t->opts.announce)
			fprintf(stderr, "%s: trace written to %s\n", log_prog, t->opts.path);
	}
	t->f = NULL;
}

/* The events' budget for a bound of max_bytes, the pool's entries and the paths' arena: trace_start's sizes. */
static void
trace_sizes(uint64_t max_bytes, uint64_t *budget, uint64_t *cap, size_t *arena_cap)
{
	*budget = max_bytes > 2 * TRACE_FRAME ? max_bytes - TRACE_FRAME : max_bytes / 2;
	*cap = *budget / TRACE_MIN_COST + 2;
	*arena_cap = *budget / 4 < (64u << 20) ? *budget / 4 : (64u << 20);
}

/*
 * Bytes trace_start reserves for a bound of max_bytes: the memory a trace
 * can hold by its end, which --trace-max is checked against at parse.
 */
uint64_t
trace_pool_bytes(uint64_t max_bytes)
{
	uint64_t	 budget, cap;
	size_t		 arena_cap;

	trace_sizes(max_bytes, &budget, &cap, &arena_cap);
	return (cap * (sizeof(struct trace_ev) + 4 * sizeof(uint32_t)) + arena_cap + 1 +
	    TRACE_PATHS * 3 * sizeof(uint32_t) + TRACE_INODES * sizeof(struct trace_inode) +
	    TRACE_THREADS * sizeof(struct trace_thread) + sizeof(struct trace));
}

/*
 * Open the file now, so that a bad name fails at once (0600, never over a
 * file or through a link), and reserve the pool: its pages are touched only
 * as events fill it.
 */
static int
trace_start(struct sink *s, char **errp)
{
	struct trace	*t;
	uint64_t	 cap;
	int		 fd;

	*errp = NULL;
	t = s->data = xcalloc(1, sizeof *t);
	t->opts = *(const struct trace_opts *)s->opts;
	t->b = s->b;
	t->host = HOST_NONE;
	t->tick_start = t->run_start = s->b->last_tick;
	t->rng = 0x9e3779b97f4a7c15ULL;
	/* --trace-max's bound (TRACE_MAX_MB) keeps cap far below 2^32. */
	trace_sizes(t->opts.max_bytes, &t->budget, &cap, &t->arena_cap);
	t->cap = (uint32_t)cap;
	t->ev = xcalloc(t->cap, sizeof *t->ev);
	t->freel = xcalloc(t->cap, sizeof *t->freel);
	t->slow = xcalloc(t->cap, sizeof *t->slow);
	t->fix = xcalloc(t->cap, sizeof *t->fix);
	t->samp = xcalloc(t->cap, sizeof *t->samp);
	t->arena = xcalloc(1, t->arena_cap + 1);
	t->path_off = xcalloc(TRACE_PATHS, sizeof *t->path_off);
	t->path_slot = xcalloc(TRACE_PATHS * 2, sizeof *t->path_slot);
	t->inodes = xcalloc(TRACE_INODES, sizeof *t->inodes);
	t->threads = xcalloc(TRACE_THREADS, sizeof *t->threads);
	fd = open(t->opts.path, O_WRONLY|O_CREAT|O_EXCL|O_NOFOLLOW|O_CLOEXEC, 0600);
	if (fd == -1 || (t->f = fdopen(fd, "w")) == NULL) {
		xasprintf(errp, "--trace %s: %s", t->opts.path,
		    errno == EEXIST ? "file exists (a trace never overwrites)" : strerror(errno));
		if (fd != -1)
			close(fd);
		return (-1);
	}
	return (0);
}

/* The windows start again (a replay began or seeked): forget the events, keep the names. */
static void
trace_begin(struct sink *s, uint64_t ts)
{
	struct trace	*t = s->data;

	if (t == NULL)
		return;
	t->fresh = t->nfree = t->nslow = t->nsamp = t->nfix = 0;
	t->slow_bytes = t->samp_bytes = t->fix_bytes = 0;
	memset(t->seen, 0, sizeof t->seen);
	memset(t->dropped, 0, sizeof t->dropped);
	memset(t->procs, 0, sizeof t->procs);
	t->nprocs = t->nshown = 0;
	t->tick_start = t->run_start = ts;
}

/* The source has nothing more: write the file; a trace-only run is done. */
static void
trace_end(struct sink *s)
{
	struct trace	*t = s->data;
	struct blktop	*b = s->b;

	trace_write(s);
	if (t != NULL && t->opts.ends_run && b->base != NULL)
		event_base_loopbreak(b->base);
}

/* blktop stops: write the file if the source never ended, free everything. */
static void
trace_stop(struct sink *s)
{
	struct trace	*t = s->data;

	if (t == NULL)
		return;
	trace_write(s);
	free(t->ev);
	free(t->freel);
	free(t->slow);
	free(t->fix);
	free(t->samp);
	free(t->arena);
	free(t->path_off);
	free(t->path_slot);
	free(t->inodes);
	free(t->threads);
	free(t);
	s->data = NULL;
}

const struct sink_entry sink_trace = {
	.name = "trace",
	.start = trace_start,
	.begin = trace_begin,
	.event = trace_event,
	.tick = trace_tick,
	.end = trace_end,
	.stop = trace_stop,
};
