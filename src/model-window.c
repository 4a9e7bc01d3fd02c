/* model-window.c: per-device rolling windows of fixed-size ticks fed by the event stream. */

#include <stdlib.h>
#include <string.h>

#include "blktop.h"

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

/* Set up empty windows of nticks ticks, the first one opening at now. */
void
windows_init(struct windows *w, unsigned nticks, uint64_t now)
{
	memset(w, 0, sizeof *w);
	w->nticks = nticks < 2 ? 2 : nticks;
	w->tick_start = now;
}

/* Free every device ring. */
void
windows_free(struct windows *w)
{
	unsigned	 i;

	for (i = 0; i < w->ndevs; i++) {
		free(w->devs[i]->ring);
		free(w->devs[i]);
	}
	w->ndevs = 0;
	w->last = NULL;
	memset(w->seen, 0, sizeof w->seen);
}

/* Index in every ring of the tick closed ago ticks before the open one. */
static unsigned
windows_index(const struct windows *w, unsigned ago)
{
	return ((unsigned)((w->nclosed - ago) % w->nticks));
}

/*
 * The window of a device, created on its first event. Creation allocates, but
 * only once per device and at most WINDOWS_MAX_DEVS times: NULL past that.
 */
struct devwin *
windows_find(struct windows *w, uint32_t dev)
{
	struct devwin	*dw;
	unsigned	 i, h = (dev * 0x9e3779b1u) >> (32 - 7);	/* 2^7 = WINDOWS_HASH */

	if (w->last != NULL && w->last->dev == dev)
		return (w->last);
	if ((dw = w->seen[h]) != NULL && dw->dev == dev)
		return (w->last = dw);
	for (i = 0; i < w->ndevs; i++) {
		if (w->devs[i]->dev == dev)
			return (w->last = w->seen[h] = w->devs[i]);
	}
	if (w->ndevs == WINDOWS_MAX_DEVS)
		return (NULL);
	dw = xcalloc(1, sizeof *dw);
	dw->dev = dev;
	dw->ring = xcalloc(w->nticks, sizeof *dw->ring);
	dw->ring[w->cur].start = w->tick_start;
	w->devs[w->ndevs++] = dw;
	return (w->last = w->seen[h] = dw);
}

/* Account one completed block request to the open tick of its device. */
void
windows_add_block(struct windows *w, const struct ev_block *ev)
{
	struct devwin	*dw;
	struct tick	*t;
	struct tick_op	*to;
	uint64_t	 lat, q, wait, busy;

	if ((dw = windows_find(w, ev->dev)) == NULL) {
		w->dropped++;
		return;
	}
	t = &dw->ring[w->cur];		/* no modulo on every request */
	to = &t->op[window_opclass(ev->op)];

	/* Timestamps come from the kernel or a file: never let them wrap. */
	lat = ev->ts_done > ev->ts_issue ? ev->ts_done - ev->ts_issue : 0;
	q = ev->ts_issue > ev->ts_start ? ev->ts_issue - ev->ts_start : 0;
	wait = ev->ts_done > ev->ts_start ? ev->ts_done - ev->ts_start : 0;

	to->ios++;
	to->bytes += ev->bytes;
	if (ev->error != 0)
		to->errors++;
	to->size[size_bucket(ev->bytes)]++;
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
		t->wait_sum += wait;
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
		t->start = w->tick_start;
		t->end = now;
		/* busy time is credited when requests end: cap at the tick. */
		if (t->busy_ns > now - t->start)
			t->busy_ns = now - t->start;
		t = &w->devs[i]->ring[next];
		memset(t, 0, sizeof *t);
		t->start = now;
	}
	w->nclosed++;
	w->cur = next;
	w->tick_start = now;
}

/* The tick ago ticks back (0 = the open one), or NULL if it is not kept. */
const struct tick *
windows_tick_at(const struct windows *w, const struct devwin *dw, unsigned ago)
{
	if (ago >= w->nticks || ago > w->nclosed)
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
	for (o = 0; o < OPC_MAX; o++) {
		to = &t->op[o];
		so = &s->op[o];
		if (to->ios == 0)
			continue;
		if (to->timed != 0 && (so->timed == 0 || to->lat_min < so->lat_min))
			so->lat_min = to->lat_min;
		if (to->timed != 0 && (so->timed == 0 || to->q_min < so->q_min))
			so->q_min = to->q_min;
		so->ios += to->ios;
		so->timed += to->timed;
		so->bytes += to->bytes;
		so->errors += to->errors;
		so->lat_sum += to->lat_sum;
		so->q_sum += to->q_sum;
		if (to->lat_max > so->lat_max)
			so->lat_max = to->lat_max;
		if (to->q_max > so->q_max)
			so->q_max = to->q_max;
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
