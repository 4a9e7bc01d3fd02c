/* model-depth.c: the depth each request found, from the requests' own times; part_stat samples into the ticks. */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "window.h"
#include "depth-seq.h"
#include "model-qdepth.h"

/*
 * The depth a request R found at its start is 1 + the requests S of its
 * device with S.start <= R.start < S.done: the starts up to R.start less the
 * completions up to it, R counted among the starts. Records come at
 * completion, so the starts and completions seen after the last cut are
 * kept, as they came, and at every tick every start up to now -
 * DEPTH_LAG_NS is final: both sequences are put in order (depth-seq.c: what
 * came since the last walk, its runs merged, not an insertion each, which
 * moved about as many entries as were in flight) and merged in one walk.
 * Exact for every request whose overlapping requests completed within the
 * lag; one that completes later (in flight longer than the lag, or started
 * before the cut) is counted in qd_late instead, and its own depth in no
 * bucket. The same records in the same order give the same depths: a replay
 * cuts at the same ticks. The kernel keeps no in-flight count for it.
 *
 * The depth a request found at its dispatch is the same walk over the
 * dispatch times and the same completions: 1 + the requests S with
 * S.issue <= R.issue < S.done. While every request of a device was
 * dispatched at its start (no queue time: the captures' loop device), the
 * dispatch times are the start times and the starts' walk counts both
 * (struct depthx, issue_apart): a third sequence appended, sorted and walked
 * cost 64 instructions a request (callgrind, fio libaio). Each start
 * carries its request's latency (start to done) and bytes beside it (struct
 * depthx), so that the walk counts both under the depth its request found:
 * the depth-to-latency curve.
 */

/* Bucket of a depth: floor(log2(depth)), fio's "IO depths" 1, 2, 4, ... */
static unsigned
depth_bucket(uint64_t depth)
{
	unsigned	 b;

	if (depth <= 1)
		return (0);
	b = 63 - (unsigned)__builtin_clzll(depth);
	return (b < QD_NBUCKETS ? b : QD_NBUCKETS - 1);
}

/* Tick t's depth counts, by operation class (2 bits of a start's key). */
static void
depth_counts(struct windows *w, struct tick *t, uint32_t *qd[4])
{
	if (t->op == windows_idle_ops)
		t->op = windows_take(w);
	t->flags |= TICK_QD;
	qd[0] = t->op[OPC_READ].qd;
	qd[1] = t->op[OPC_WRITE].qd;
	qd[2] = qd[3] = t->op[OPC_OTHER].qd;
}

/* One request of latency and bytes aux (depthx.aux's form) that found depth bucket b at its start, into acc. */
static void
depth_lat_add(struct qd_acc *acc, unsigned b, uint64_t aux)
{
	struct qd_lat	*l;
	uint64_t	 lat = aux >> QDX_BYTES_BITS;

	if ((l = acc->lat[b]) == NULL)
		l = acc->lat[b] = xcalloc(1, sizeof *l);	/* once per bucket a device reaches */
	if (l->n == 0 || lat < l->min)
		l->min = lat;
	if (lat > l->max)
		l->max = lat;
	l->n++;
	l->sum += lat;
	l->bytes += (aux & ((1ULL << QDX_BYTES_BITS) - 1)) << 9;
	l->hist[hist_bucket(lat)]++;
}

/* Dispatches found to have found inflight, n of them, into acc. */
static void
depth_disp_add(struct qd_acc *acc, uint64_t inflight, unsigned n)
{
	acc->disp[depth_bucket(inflight)] += n;
	acc->ndisp += n;
	if (inflight > acc->disp_max)
		acc->disp_max = inflight > UINT32_MAX ? UINT32_MAX : (uint32_t)inflight;
}

/*
 * Every dispatch up to cut is final: the same walk as the starts', over the
 * dispatch times and the nd completions kept (dv), which are after their
 * dispatches as after their starts.
 */
static void
depth_cut_issue(struct depthx *x, const uint64_t *dv, unsigned nd, uint64_t cut)
{
	const uint64_t	*iv = x->issue.v + x->issue.head;
	uint64_t	 inflight = x->issue_inflight, st;
	unsigned	 i = 0, j = 0, k, ni = x->issue.n;

	while (i < ni && (st = iv[i]) <= cut) {
		while (j < nd && dv[j] <= st) {
			j++;
			inflight--;
		}
		for (k = i + 1; k < ni && iv[k] == st; k++)
			;
		inflight += k - i;
		depth_disp_add(&x->iv, inflight, k - i);
		i = k;
	}
	while (j < nd && dv[j] <= cut) {
		j++;
		inflight--;
	}
	x->issue.head += i;
	x->issue.n -= i;
	x->issue.sorted -= i;
	x->issue_inflight = inflight;
}

/*
 * Every start up to cut is final: walk the starts and completions in time
 * order, counting what is in flight, and count each start's depth into t.
 */
void
depth_cut(struct windows *w, struct devwin *dw, struct tick *t, uint64_t cut)
{
	struct depthq	*q = &dw->dq;
	struct depthx	*x = q->x;
	const uint64_t	*sv, *dv, *av;
	uint64_t	 inflight = q->inflight, st, max = t->qd_max;
	uint32_t	*qd[4];
	unsigned	 i = 0, j = 0, k, b, ns = q->start.n, nd = q->done.n;

	if (cut <= q->cut)
		return;
	depth_seq_sort(&q->start, x != NULL ? x->aux : NULL, &w->dscratch);
	depth_seq_sort(&q->done, NULL, &w->dscratch);
	if (x != NULL && x->issue_apart)
		depth_seq_sort(&x->issue, NULL, &w->dscratch);
	sv = q->start.v + q->start.head;
	dv = q->done.v + q->done.head;
	av = x != NULL ? x->aux + q->start.head : NULL;
	if (ns > 0 && (sv[0] >> 2) <= cut)
		depth_counts(w, t, qd);
	/*
	 * Every completion kept has its start counted before it (in inflight
	 * at the last cut, or earlier in this walk: a completion is after its
	 * start), so inflight never goes below 0.
	 */
	while (i < ns && (st = sv[i] >> 2) <= cut) {
		/* Completions at or before the start are not in flight at it. */
		while (j < nd && dv[j] <= st) {
			j++;
			inflight--;
		}
		/* Requests starting together each find the others. */
		for (k = i + 1; k < ns && (sv[k] >> 2) == st; k++)
			;
		inflight += k - i;
		if (inflight > max)
			max = inflight;
		b = depth_bucket(inflight);
		if (x != NULL && !x->issue_apart)	/* dispatched at their starts: the same depth */
			depth_disp_add(&x->iv, inflight, k - i);
		for (; i < k; i++) {
			qd[sv[i] & 3][b]++;
			depth_lat_add(&x->iv, b, av[i]);	/* starts exist: x does */
		}
	}
	t->qd_max = max > UINT32_MAX ? UINT32_MAX : (uint32_t)max;
	if (x != NULL && x->issue_apart)
		depth_cut_issue(x, dv, nd, cut);
	depth_seq_advance(&q->start, i, &q->done, j, cut, &inflight);
	q->inflight = inflight;
	q->cut = cut;
}

/* A sequence at its bound: the oldest eighth of it is final now (memory stays bounded). */
static void
depth_bound(struct windows *w, struct devwin *dw, struct tick *t)
{
	struct depthq	*q = &dw->dq;

	if (q->start.n >= DEPTH_MAX - 1) {
		depth_seq_sort(&q->start, q->x != NULL ? q->x->aux : NULL, &w->dscratch);
		depth_cut(w, dw, t, q->start.v[q->start.head + q->start.n / 8] >> 2);
	}
	if (q->done.n >= DEPTH_MAX - 1) {
		depth_seq_sort(&q->done, NULL, &w->dscratch);
		depth_cut(w, dw, t, q->done.v[q->done.head + q->done.n / 8]);
	}
	if (q->x != NULL && q->x->issue.n >= DEPTH_MAX - 1) {
		depth_seq_sort(&q->x->issue, NULL, &w->dscratch);
		depth_cut(w, dw, t, q->x->issue.v[q->x->issue.head + q->x->issue.n / 8]);
	}
}

/*
 * A dispatch came after its start: from now on the dispatches are kept apart,
 * from the starts not final yet (in the same order) and as many in flight
 * (once per device).
 */
static void
depth_issue_apart(struct depthq *q, struct depthx *x)
{
	const uint64_t	*sv = q->start.v + q->start.head;
	unsigned	 i;

	x->issue_apart = 1;
	x->issue.cap = q->start.cap > DEPTH_ROOM(DEPTH_MAX) ? q->start.cap : DEPTH_ROOM(DEPTH_MAX);
	x->issue.v = xreallocarray(x->issue.v, x->issue.cap, sizeof *x->issue.v);
	x->issue.head = 0;
	x->issue.n = q->start.n;
	x->issue.sorted = q->start.sorted;
	for (i = 0; i < q->start.n; i++)
		x->issue.v[i] = sv[i] >> 2;
	x->issue_inflight = q->inflight;
}

/* A completed request (BLK_F_NODEVSTAT, of operation class opc) of device dw, counted in tick t. */
void
depth_add(struct windows *w, struct devwin *dw, struct tick *t, const struct ev_block *ev,
    unsigned opc)
{
	struct depthq	*q = &dw->dq;
	struct depthx	*x;
	uint64_t	 s = ev->ts_start, d = ev->ts_done, is = ev->ts_issue, lat, sz;

	/* No times (a completion never seen, an empty flush): no depth, none found. */
	if ((ev->flags & BLK_F_NOLAT) || s > (UINT64_MAX >> 2))
		return;
	if (d <= s)
		d = s + 1;	/* in flight at its own start */
	if (is < s)
		is = s;
	if (is >= d)
		is = d - 1;	/* and at its own dispatch */
	if ((x = q->x) == NULL)
		x = q->x = xcalloc(1, sizeof *x);	/* once per device */
	depth_bound(w, dw, t);
	if (s <= q->cut) {
		/* Its start is past: its own depth and its share of others' came too late. */
		t->qd_late++;
		t->flags |= TICK_QD;
		if (d > q->cut) {
			q->inflight++;
			depth_append(&q->done, d, DEPTH_MAX);
			if (is > q->cut) {
				if (!x->issue_apart)
					depth_issue_apart(q, x);
				depth_append(&x->issue, is, DEPTH_MAX);
			} else
				x->issue_inflight++;
		}
		return;
	}
	lat = d - s;
	if (lat >= 1ULL << (64 - QDX_BYTES_BITS))
		lat = (1ULL << (64 - QDX_BYTES_BITS)) - 1;
	sz = ev->bytes >> 9;
	if (sz >= 1ULL << QDX_BYTES_BITS)
		sz = (1ULL << QDX_BYTES_BITS) - 1;
	if (is != s && !x->issue_apart)
		depth_issue_apart(q, x);	/* before this start is in q->start */
	depth_append_aux(&q->start, &x->aux, s << 2 | opc, lat << QDX_BYTES_BITS | sz,
	    DEPTH_MAX);
	if (x->issue_apart)
		depth_append(&x->issue, is, DEPTH_MAX);
	depth_append(&q->done, d, DEPTH_MAX);
}

/*
 * What the depths final since the last report added up to goes into the
 * run's and starts again (once a report, not per request: the run's are as
 * of the last report, or of the end, sink-model.c).
 */
void
depth_interval(struct depthq *q)
{
	struct qd_acc	*a, *r;
	struct qd_lat	*l, *rl;
	unsigned	 b, i;

	if (q->x == NULL)
		return;
	a = &q->x->iv;
	r = &q->x->run;
	for (b = 0; b < QD_NBUCKETS; b++) {
		r->disp[b] += a->disp[b];
		if ((l = a->lat[b]) == NULL || l->n == 0)
			continue;
		if ((rl = r->lat[b]) == NULL)
			rl = r->lat[b] = xcalloc(1, sizeof *rl);
		if (rl->n == 0 || l->min < rl->min)
			rl->min = l->min;
		if (l->max > rl->max)
			rl->max = l->max;
		rl->n += l->n;
		rl->bytes += l->bytes;
		rl->sum += l->sum;
		for (i = 0; i < HIST_NBUCKETS; i++)
			rl->hist[i] += l->hist[i];
		memset(l, 0, sizeof *l);
	}
	r->ndisp += a->ndisp;
	if (a->disp_max > r->disp_max)
		r->disp_max = a->disp_max;
	memset(a->disp, 0, sizeof a->disp);
	a->ndisp = 0;
	a->disp_max = 0;
}

/* Every device's depths since the last report into its run's (the end: no report follows). */
void
depth_fold(struct windows *w)
{
	unsigned	 i;

	for (i = 0; i < w->ndevs; i++)
		depth_interval(&w->devs[i]->dq);
}

/* A device's depths at dispatch and latency by depth: since the last report, or since the windows began (run); NULL without any. */
const struct qd_acc *
depth_acc(const struct devwin *dw, int run)
{
	if (dw == NULL || dw->dq.x == NULL)
		return (NULL);
	return (run ? &dw->dq.x->run : &dw->dq.x->iv);
}

/* Give a device's times back. */
void
depth_free(struct depthq *q)
{
	unsigned	 b;

	if (q->x != NULL) {
		for (b = 0; b < QD_NBUCKETS; b++) {
			free(q->x->iv.lat[b]);
			free(q->x->run.lat[b]);
		}
		free(q->x->aux);
		free(q->x->issue.v);
		free(q->x);
	}
	free(q->start.v);
	free(q->done.v);
	memset(q, 0, sizeof *q);
}

/*
 * The stream ended: every depth still pending is final with what came (into
 * the last closed tick, the one the last report reads).
 */
void
depth_flush(struct windows *w)
{
	struct tick	*t;
	unsigned	 i, idx;

	idx = w->nclosed == 0 ? w->cur : (unsigned)((w->nclosed - 1) % w->nticks);
	for (i = 0; i < w->ndevs; i++) {
		t = &w->devs[i]->ring[idx];
		depth_cut(w, w->devs[i], t, UINT64_MAX);
	}
}

/* Slot of the sample table where dev's probe starts. */
static unsigned
windows_base_hash(uint32_t dev)
{
	return ((dev * 0x9e3779b1u) >> (32 - 11));	/* 2^11 = WINDOWS_HASH */
}

/* A disk's last sample, or NULL. */
const struct diskbase *
depth_diskbase(const struct windows *w, uint32_t dev)
{
	unsigned	 h;

	for (h = windows_base_hash(dev); w->base_slot[h] != 0; h = (h + 1) & (WINDOWS_HASH - 1)) {
		if (w->base[w->base_slot[h] - 1].dev == dev)
			return (&w->base[w->base_slot[h] - 1]);
	}
	return (NULL);
}

/*
 * A part_stat sample: its deltas from the disk's last one are the open
 * tick's busy time and queue time (iostat: %util from io_ticks, aqu-sz from
 * time_in_queue), in place of what the tick's requests said, and its
 * in-flight the tick's. A disk without a window (no request of it yet) keeps
 * its sample for the next one's deltas.
 */
void
depth_add_diskstat(struct windows *w, const struct ev_diskstat *ev)
{
	struct diskbase		*bs = NULL;
	const struct devwin	*cdw;
	struct devwin		*dw = NULL;
	struct tick		*t;
	unsigned		 h;

	for (h = windows_base_hash(ev->dev); w->base_slot[h] != 0;
	    h = (h + 1) & (WINDOWS_HASH - 1)) {
		if (w->base[w->base_slot[h] - 1].dev == ev->dev) {
			bs = &w->base[w->base_slot[h] - 1];
			break;
		}
	}
	if (bs == NULL) {
		if (w->nbase >= WINDOWS_MAX_DEVS)
			return;
		bs = &w->base[w->nbase++];
		w->base_slot[h] = (uint16_t)w->nbase;
		bs->dev = ev->dev;
	} else if (ev->ts >= bs->ts) {
		/* The windows' own device, found through their const lookup. */
		if ((cdw = windows_get(w, ev->dev)) != NULL)
			dw = (struct devwin *)(uintptr_t)cdw;
		if (dw != NULL) {
			t = &dw->ring[w->cur];
			if (!(t->flags & TICK_STAT)) {
				t->flags |= TICK_STAT;
				t->busy_ns = 0;
				t->wait_sum = 0;
			}
			/* The kernel prints both as 32-bit milliseconds: deltas modulo 2^32. */
			t->busy_ns += (uint64_t)(uint32_t)(ev->io_ticks_ms - bs->io_ticks_ms) *
			    1000000;
			t->wait_sum += (uint64_t)(uint32_t)(ev->queue_ms - bs->queue_ms) * 1000000;
			t->in_flight = ev->in_flight;
		}
	}
	bs->ts = ev->ts;
	bs->io_ticks_ms = ev->io_ticks_ms;
	bs->queue_ms = ev->queue_ms;
	bs->in_flight = ev->in_flight;
}
