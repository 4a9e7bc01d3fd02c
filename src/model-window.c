/* model-window.c: per-device rolling windows of fixed-size ticks fed by the event stream. */

#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "window.h"
#include "depth-seq.h"
#include "model-qdepth.h"

/* The iostat group of a portable operation code. */
enum opclass
window_opclass(unsigned op)
{
	switch (op) {
	case BLK_OP_READ:
		return (OPC_READ);
	case BLK_OP_WRITE:
	case BLK_OP_WRITE_ZEROES:
	case BLK_OP_SECURE_ERASE:
		return (OPC_WRITE);
	default:
		return (OPC_OTHER);
	}
}

/* The counts of every tick without requests: all zero, never written. */
struct tick_op windows_idle_ops[OPC_MAX];

#define WINDOWS_SLAB_BLOCKS	32	/* blocks allocated at a time (176 KiB) */

/* Set up empty windows of nticks ticks, the first one opening at now. */
void
windows_init(struct windows *w, unsigned nticks, uint64_t now)
{
	memset(w, 0, sizeof *w);
	w->nticks = nticks < 2 ? 2 : nticks;
	w->tick_start = now;
	w->span = 1;
	w->min_span = 2;
	w->max_devs = WINDOWS_MAX_DEVS;
	w->max_blocks = WINDOWS_POOL_BYTES / sizeof(union tick_block);
}

/*
 * Lower the device cap (tests: $BLKTOP_MAX_DEVS), say how many ticks a report
 * needs, and bound the tick counts kept to pool_bytes; 0 keeps a default.
 */
void
windows_limit(struct windows *w, unsigned max_devs, unsigned min_span, size_t pool_bytes)
{
	if (max_devs != 0 && max_devs < WINDOWS_MAX_DEVS)
		w->max_devs = max_devs;
	if (min_span != 0)
		w->min_span = min_span < w->nticks ? min_span : w->nticks;
	if (pool_bytes != 0)
		w->max_blocks = pool_bytes / sizeof(union tick_block);
}

/* Free every device ring and the tick counts. */
void
windows_free(struct windows *w)
{
	unsigned	 i;

	for (i = 0; i < w->ndevs; i++) {
		depth_free(&w->devs[i]->dq);
		free(w->devs[i]->ring);
		free(w->devs[i]);
	}
	depth_scratch_free(&w->dscratch);
	w->nbase = 0;
	memset(w->base_slot, 0, sizeof w->base_slot);
	for (i = 0; i < w->nslabs; i++)
		free(w->slabs[i]);
	free(w->slabs);
	w->slabs = NULL;
	w->nslabs = 0;
	w->free = NULL;
	w->nblocks = 0;
	w->ndevs = 0;
	w->last = NULL;
	memset(w->slot, 0, sizeof w->slot);
}

/* Index in every ring of the tick closed ago ticks before the open one. */
static unsigned
windows_index(const struct windows *w, unsigned ago)
{
	return ((unsigned)((w->nclosed - ago) % w->nticks));
}

/* Give a tick's counts back to the pool; the tick has no requests again. */
static void
windows_release(struct windows *w, struct tick *t)
{
	union tick_block	*blk;

	if (t->op == windows_idle_ops)
		return;
	blk = (union tick_block *)(void *)t->op;
	blk->next = w->free;
	w->free = blk;
	t->op = windows_idle_ops;
}

/*
 * Past the pool's bound, the oldest tick still kept goes, on every device,
 * until a block is free; never the ticks a report needs (min_span).
 */
static void
windows_reclaim(struct windows *w)
{
	unsigned	 i, idx;

	while (w->free == NULL && w->span > w->min_span) {
		idx = windows_index(w, w->span - 1);
		for (i = 0; i < w->ndevs; i++)
			windows_release(w, &w->devs[i]->ring[idx]);
		w->span--;
		w->history_cut++;
	}
}

/*
 * Counts for the open tick of a device that had none: from the free blocks,
 * else the oldest history when the pool is at its bound, else a new slab.
 */
struct tick_op *
windows_take(struct windows *w)
{
	union tick_block	*blk;
	unsigned		 i;

	if (w->free == NULL && w->nblocks >= w->max_blocks)
		windows_reclaim(w);
	if (w->free == NULL) {
		blk = xreallocarray(NULL, WINDOWS_SLAB_BLOCKS, sizeof *blk);
		w->slabs = xreallocarray(w->slabs, w->nslabs + 1, sizeof *w->slabs);
		w->slabs[w->nslabs++] = blk;
		for (i = 0; i < WINDOWS_SLAB_BLOCKS; i++) {
			blk[i].next = w->free;
			w->free = &blk[i];
		}
		w->nblocks += WINDOWS_SLAB_BLOCKS;
	}
	blk = w->free;
	w->free = blk->next;
	memset(blk, 0, sizeof *blk);
	return (blk->op);
}

/* Slot of the device lookup where dev's probe starts. */
static unsigned
windows_hash(uint32_t dev)
{
	return ((dev * 0x9e3779b1u) >> (32 - 11));	/* 2^11 = WINDOWS_HASH */
}

/* Count a request of a device past the cap, by device while there is room to name it. */
static void
windows_drop(struct windows *w, uint32_t dev)
{
	struct windows_drop	*d;
	unsigned		 i;

	w->dropped++;
	w->dropped_interval++;
	for (i = 0; i < w->ndrop && w->drop[i].dev != dev; i++)
		;
	if (i == w->ndrop && w->ndrop < WINDOWS_DROP_MAX)
		w->drop[w->ndrop++].dev = dev;
	d = i < w->ndrop ? &w->drop[i] : &w->drop[WINDOWS_DROP_MAX];
	d->requests++;
	d->interval++;
}

/* A report was made: the counts "since the last report" begin again. */
void
windows_interval(struct windows *w)
{
	unsigned	 i;

	w->dropped_interval = 0;
	for (i = 0; i <= WINDOWS_DROP_MAX; i++)
		w->drop[i].interval = 0;
	for (i = 0; i < w->ndevs; i++)
		depth_interval(&w->devs[i]->dq);
}

/*
 * The window of a device not looked up last (window-find.h), created on its
 * first event. Creation allocates, but only once per device and at most
 * max_devs times: NULL past that.
 */
struct devwin *
windows_find_add(struct windows *w, uint32_t dev)
{
	struct devwin	*dw;
	unsigned	 h, i;

	for (h = windows_hash(dev); w->slot[h] != 0; h = (h + 1) & (WINDOWS_HASH - 1)) {
		if (w->devs[w->slot[h] - 1]->dev == dev)
			return (w->last = w->devs[w->slot[h] - 1]);
	}
	if (w->ndevs >= w->max_devs)
		return (NULL);
	dw = xcalloc(1, sizeof *dw);
	dw->dev = dev;
	dw->ring = xcalloc(w->nticks, sizeof *dw->ring);
	for (i = 0; i < w->nticks; i++)
		dw->ring[i].op = windows_idle_ops;
	dw->ring[w->cur].start = w->tick_start;
	w->devs[w->ndevs++] = dw;
	w->slot[h] = (uint16_t)w->ndevs;
	return (w->last = dw);
}

/* The window of a device if it has one, else NULL; nothing changes (a report's lookup). */
const struct devwin *
windows_get(const struct windows *w, uint32_t dev)
{
	unsigned h;

	for (h = windows_hash(dev); w->slot[h] != 0; h = (h + 1) & (WINDOWS_HASH - 1)) {
		if (w->devs[w->slot[h] - 1]->dev == dev)
			return (w->devs[w->slot[h] - 1]);
	}
	return (NULL);
}

/* Account one completed block request to the open tick of its device. */
/* Merge bands in groups of 1 << k: the map covers 2^k times the sectors. */
void
windows_band_merge(uint32_t *band, unsigned k)
{
	uint32_t	 m[MAP_BANDS] = { 0 };
	unsigned	 i;

	if (k >= 32)
		k = 31;
	for (i = 0; i < MAP_BANDS; i++)
		m[i >> k] += band[i];
	memcpy(band, m, sizeof m);
}

/* A request starts past the map: widen the bands of every tick kept, until it fits. */
static void
windows_map_grow(struct windows *w, struct devwin *dw, uint64_t sector)
{
	unsigned	 k = 0, a, o;
	struct tick	*t;

	while (dw->map_shift + k < 63 && (sector >> (dw->map_shift + k)) >= MAP_BANDS)
		k++;
	for (a = 0; a < w->span; a++) {
		t = &dw->ring[windows_index(w, a)];
		if (t->op == windows_idle_ops)
			continue;
		for (o = 0; o < OPC_MAX; o++)
			windows_band_merge(t->op[o].band, k);
	}
	dw->map_shift += k;
}

void
windows_add_block(struct windows *w, const struct ev_block *ev)
{
	struct devwin	*dw;
	struct tick	*t;
	struct tick_op	*to;
	uint64_t	 lat, q, wait, busy;
	unsigned	 opc;

	if ((dw = w->last != NULL && w->last->dev == ev->dev ? w->last :
	    windows_find_add(w, ev->dev)) == NULL) {
		windows_drop(w, ev->dev);
		return;
	}
	t = &dw->ring[w->cur];		/* no modulo on every request */
	if (t->op == windows_idle_ops)
		t->op = windows_take(w);
	opc = window_opclass(ev->op);
	to = &t->op[opc];

	/* Timestamps come from the kernel or a file: never let them wrap. */
	lat = ev->ts_done > ev->ts_issue ? ev->ts_done - ev->ts_issue : 0;
	q = ev->ts_issue > ev->ts_start ? ev->ts_issue - ev->ts_start : 0;
	wait = ev->ts_done > ev->ts_start ? ev->ts_done - ev->ts_start : 0;

	to->ios++;
	to->bytes += ev->bytes;
	dw->run.ios++;
	dw->run.bytes[ev->fclass < BLK_FC_MAX ? ev->fclass : BLK_FC_NONE] += ev->bytes;
	if (ev->error != 0)
		to->errors++;
	to->size[hist_size_bucket(ev->bytes)]++;
	if ((ev->sector >> dw->map_shift) >= MAP_BANDS)
		windows_map_grow(w, dw, ev->sector);
	to->band[ev->sector >> dw->map_shift]++;
	/*
	 * No latency known (an issue-only import, a completion the kernel never
	 * ran our hook for): counts and sizes only. Its in-flight count and the
	 * device's busy time are still right (both 0 in an import).
	 */
	if (!(ev->flags & BLK_F_NOLAT)) {
		if (to->timed == 0 || lat < to->lat_min)
			to->lat_min = lat;
		if (to->timed == 0 || q < to->q_min)
			to->q_min = q;
		to->timed++;
		to->lat_sum += lat;
		to->q_sum += q;
		if (lat > to->lat_max)
			to->lat_max = lat;
		if (q > to->q_max)
			to->q_max = q;
		to->lat[hist_bucket(lat)]++;
		to->q[hist_bucket(q)]++;
		if (!(t->flags & TICK_STAT))	/* else part_stat's queue time */
			t->wait_sum += wait;
		dw->run.timed++;
		dw->run.q_sum += q;
		dw->run.wait_sum += wait;
	}
	if (ev->flags & BLK_F_NODEVSTAT) {
		/* Depth from the requests' times, busy time from part_stat samples. */
		depth_add(w, dw, t, ev, opc);
		return;
	}
	if (ev->inflight > t->qd_max)
		t->qd_max = ev->inflight;

	/*
	 * busy_ns is the device's cumulative busy time; events from different
	 * CPUs can arrive out of order, so only growth counts. The first event
	 * of a device may carry history from before this stream began: credit
	 * it no more than its own lifetime.
	 */
	if (!dw->have_busy) {
		busy = ev->busy_ns < wait ? ev->busy_ns : wait;
		dw->have_busy = 1;
		dw->last_busy = ev->busy_ns;
		t->busy_ns += busy;
	} else if (ev->busy_ns > dw->last_busy) {
		t->busy_ns += ev->busy_ns - dw->last_busy;
		dw->last_busy = ev->busy_ns;
	}
}

/* Close the open tick of every device at now and open the next one. */
void
windows_tick(struct windows *w, uint64_t now)
{
	struct tick	*t;
	unsigned	 i, cur = windows_index(w, 0), next;

	if (now < w->tick_start)
		now = w->tick_start;
	next = (unsigned)((w->nclosed + 1) % w->nticks);
	for (i = 0; i < w->ndevs; i++) {
		t = &w->devs[i]->ring[cur];
		if (now > DEPTH_LAG_NS)		/* depths of requests old enough are final */
			depth_cut(w, w->devs[i], t, now - DEPTH_LAG_NS);
		t->start = w->tick_start;
		t->end = now;
		/* busy time is credited when requests end: cap at the tick. */
		if (t->busy_ns > now - t->start)
			t->busy_ns = now - t->start;
		t = &w->devs[i]->ring[next];
		windows_release(w, t);
		memset(t, 0, sizeof *t);
		t->op = windows_idle_ops;
		t->start = now;
	}
	w->nclosed++;
	if (w->span < w->nticks)
		w->span++;
	w->cur = next;
	w->tick_start = now;
}

/* The tick ago ticks back (0 = the open one), or NULL if it is not kept. */
const struct tick *
windows_tick_at(const struct windows *w, const struct devwin *dw, unsigned ago)
{
	if (ago >= w->span)
		return (NULL);
	return (&dw->ring[windows_index(w, ago)]);
}

/* Add one tick into a summary; only a closed tick adds duration. */
void
windows_sum_tick(struct sum *s, const struct tick *t)
{
	const struct tick_op	*to;
	struct sum_op		*so;
	unsigned		 o, i;

	s->nticks++;
	if (t->end != 0)
		s->dur_ns += t->end - t->start;
	s->busy_ns += t->busy_ns;
	s->wait_sum += t->wait_sum;
	if (t->qd_max > s->qd_max)
		s->qd_max = t->qd_max;
	s->qd_late += t->qd_late;
	if ((t->flags & TICK_STAT) && !(s->flags & TICK_STAT))
		s->in_flight = t->in_flight;	/* ticks are summed newest first */
	s->flags |= t->flags;
	for (o = 0; o < OPC_MAX; o++) {
		to = &t->op[o];
		so = &s->op[o];
		if (t->flags & TICK_QD) {
			for (i = 0; i < QD_NBUCKETS; i++)
				so->qd[i] += to->qd[i];
		}
		if (to->ios == 0)
			continue;
		windows_extremes_add(&so->lat_min, &so->lat_max, so->timed, to->lat_min,
		    to->lat_max, to->timed);
		windows_extremes_add(&so->q_min, &so->q_max, so->timed, to->q_min, to->q_max,
		    to->timed);
		so->ios += to->ios;
		so->timed += to->timed;
		so->bytes += to->bytes;
		so->errors += to->errors;
		so->lat_sum += to->lat_sum;
		so->q_sum += to->q_sum;
		for (i = 0; i < HIST_NBUCKETS; i++) {
			so->lat[i] += to->lat[i];
			so->q[i] += to->q[i];
		}
		for (i = 0; i < SIZE_NBUCKETS; i++)
			so->size[i] += to->size[i];
	}
}

/* Add count ticks from first_ago back into one summary. */
void
windows_sum(const struct windows *w, const struct devwin *dw,
    unsigned first_ago, unsigned count, struct sum *s)
{
	const struct tick	*t;
	unsigned		 ago;

	memset(s, 0, sizeof *s);
	for (ago = first_ago; ago < first_ago + count; ago++) {
		if ((t = windows_tick_at(w, dw, ago)) == NULL)
			break;
		windows_sum_tick(s, t);
	}
}
