/* model-phase.c: marks and the phases between them, with each device's figures per phase (DLIO's per-epoch table). */

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "phase.h"

/*
 * A phase runs from one mark to the next in stream order (the first from the
 * run's start, the last to its end): a request belongs to the phase during
 * which its record arrived, at its completion. Each device's requests are
 * summed in the open phase as they come; a mark closes it into the table's
 * ring of closed phases (PHASE_MAX, the oldest go first, counted).
 */

struct phase_acc {			/* one device in the open phase */
	uint32_t	 dev;
	uint64_t	 ios[OPC_MAX], bytes[OPC_MAX];
	uint64_t	 timed, await_sum, await_min, await_max;
	uint64_t	 hist[HIST_NBUCKETS];	/* await: start to completion */
};

struct phase_table {
	struct phase		 cur;		/* open: start, label, pid */
	struct phase_acc	 acc[PHASE_DEVS];
	unsigned		 nacc;
	uint64_t		 acc_dropped;	/* requests of devices past PHASE_DEVS */
	struct phase		 done[PHASE_MAX];	/* a ring of closed phases */
	uint64_t		 nclosed;	/* closed since the start */
	uint64_t		 reported;	/* nclosed at the last interval */
	struct mark		 marks[MARK_RING];	/* a ring of the last marks */
	uint64_t		 nmarks;
	uint64_t		 marks_reported;
};

struct phase_table *
phase_create(uint64_t ts)
{
	struct phase_table	*t = xcalloc(1, sizeof *t);

	phase_reset(t, ts);
	return (t);
}

void
phase_free(struct phase_table *t)
{
	free(t);
}

/* The run (again, after a seek) starts at ts: no mark, no phase. */
void
phase_reset(struct phase_table *t, uint64_t ts)
{
	/* What was used only: a new table is calloc's, its untouched pages never mapped (0.5 MiB). */
	memset(t->acc, 0, t->nacc * sizeof t->acc[0]);
	memset(t->done, 0, (t->nclosed < PHASE_MAX ? t->nclosed : PHASE_MAX) * sizeof t->done[0]);
	memset(t->marks, 0, (t->nmarks < MARK_RING ? t->nmarks : MARK_RING) * sizeof t->marks[0]);
	memset(&t->cur, 0, sizeof t->cur);
	t->nacc = 0;
	t->acc_dropped = 0;
	t->nclosed = t->reported = 0;
	t->nmarks = t->marks_reported = 0;
	t->cur.start = ts;
}

/* A request completed: into its device's sums of the open phase. */
void
phase_add_block(struct phase_table *t, const struct ev_block *e)
{
	struct phase_acc	*a = NULL;
	enum opclass		 o = window_opclass(e->op);
	uint64_t		 aw;
	unsigned		 i;

	for (i = 0; i < t->nacc; i++) {
		if (t->acc[i].dev == e->dev) {
			a = &t->acc[i];
			break;
		}
	}
	if (a == NULL) {
		if (t->nacc == PHASE_DEVS) {
			t->acc_dropped++;
			return;
		}
		a = &t->acc[t->nacc++];
		a->dev = e->dev;
	}
	a->ios[o]++;
	a->bytes[o] += e->bytes;
	if (e->flags & BLK_F_NOLAT)
		return;
	aw = e->ts_done > e->ts_start ? e->ts_done - e->ts_start : 0;
	if (a->timed == 0 || aw < a->await_min)
		a->await_min = aw;
	if (aw > a->await_max)
		a->await_max = aw;
	a->timed++;
	a->await_sum += aw;
	a->hist[hist_bucket(aw)]++;
}

/* Close the open phase at ts: each device's figures into the ring. */
static void
phase_close(struct phase_table *t, uint64_t ts)
{
	struct phase		*p = &t->done[t->nclosed % PHASE_MAX];
	const struct phase_acc	*a;
	struct phase_dev	*d;
	double			 secs;
	unsigned		 i, o;

	*p = t->cur;
	p->end = ts > p->start ? ts : p->start;
	p->seq = t->nclosed;
	p->ndevs = t->nacc;
	p->devs_dropped = t->acc_dropped;
	secs = (double)(p->end - p->start) / 1e9;
	for (i = 0; i < t->nacc; i++) {
		a = &t->acc[i];
		d = &p->devs[i];
		memset(d, 0, sizeof *d);
		d->dev = a->dev;
		for (o = 0; o < OPC_MAX; o++) {
			d->ios += a->ios[o];
			d->bytes[o] = a->bytes[o];
		}
		d->timed = a->timed;
		d->secs = secs;
		d->mb_s = secs > 0 ? (double)(a->bytes[OPC_READ] + a->bytes[OPC_WRITE]) /
		    secs / 1e6 : NAN;
		d->aqu = secs > 0 ? (double)a->await_sum / 1e9 / secs : NAN;
		if (a->timed == 0) {
			d->mean_us = d->p50_us = d->p90_us = d->p99_us = d->max_us = NAN;
			continue;
		}
		d->mean_us = (double)a->await_sum / (double)a->timed / 1e3;
		d->p50_us = hist_percentile(a->hist, a->timed, 50, a->await_min, a->await_max) / 1e3;
		d->p90_us = hist_percentile(a->hist, a->timed, 90, a->await_min, a->await_max) / 1e3;
		d->p99_us = hist_percentile(a->hist, a->timed, 99, a->await_min, a->await_max) / 1e3;
		d->max_us = (double)a->await_max / 1e3;
	}
	t->nclosed++;
	memset(t->acc, 0, sizeof t->acc);
	t->nacc = 0;
	t->acc_dropped = 0;
}

/* A mark: the open phase ends at it, the next starts with its label. */
void
phase_add_mark(struct phase_table *t, const struct ev_mark *e)
{
	struct mark	*m = &t->marks[t->nmarks++ % MARK_RING];

	m->ts = e->ts;
	m->pid = e->pid;
	memcpy(m->label, e->label, e->label_len);
	m->label[e->label_len] = '\0';
	phase_close(t, e->ts);
	memset(&t->cur, 0, sizeof t->cur);
	t->cur.start = e->ts;
	t->cur.has_label = 1;
	t->cur.pid = e->pid;
	memcpy(t->cur.label, m->label, e->label_len + 1);
}

/* The run ended at ts: the phase after the last mark closes (once; only if there was a mark). */
void
phase_end(struct phase_table *t, uint64_t ts)
{
	if (t->nmarks == 0 || t->cur.ended)
		return;
	phase_close(t, ts);
	t->cur.ended = 1;
}

/* A report was read: its marks and phases are behind. */
void
phase_interval(struct phase_table *t)
{
	t->reported = t->nclosed;
	t->marks_reported = t->nmarks;
}

/* Of n items in a ring of size, those still in it, or those since reported: the first's number, how many. */
static unsigned
phase_ring(uint64_t n, uint64_t size, uint64_t reported, int interval, uint64_t *first)
{
	uint64_t	 lo = n > size ? n - size : 0;

	if (interval && reported > lo)
		lo = reported;
	*first = lo;
	return ((unsigned)(n - lo));
}

/*
 * Of n items in a ring of size, those that phase_ring does not give because
 * the ring no longer has them: since the last report if interval, else since
 * the start (a flood of marks in one interval outruns the ring; said, not cut).
 */
static uint64_t
phase_ring_gone(uint64_t n, uint64_t size, uint64_t reported, int interval)
{
	uint64_t	 lo = n > size ? n - size : 0, base = interval ? reported : 0;

	return (lo > base ? lo - base : 0);
}

/* Closed phases: the first's number (phase_get) and how many; since the last report if interval. */
unsigned
phase_count(const struct phase_table *t, int interval, uint64_t *first)
{
	return (phase_ring(t->nclosed, PHASE_MAX, t->reported, interval, first));
}

const struct phase *
phase_get(const struct phase_table *t, uint64_t seq)
{
	return (&t->done[seq % PHASE_MAX]);
}

/* Closed phases since the last report (interval) or the start that phase_count cannot give. */
uint64_t
phase_unlisted(const struct phase_table *t, int interval)
{
	return (phase_ring_gone(t->nclosed, PHASE_MAX, t->reported, interval));
}

/* Closed phases no longer in the ring. */
uint64_t
phase_dropped(const struct phase_table *t)
{
	return (t->nclosed > PHASE_MAX ? t->nclosed - PHASE_MAX : 0);
}

/* Marks: those still in the ring, since the last report if interval. */
unsigned
phase_marks(const struct phase_table *t, int interval, uint64_t *first)
{
	return (phase_ring(t->nmarks, MARK_RING, t->marks_reported, interval, first));
}

/* Marks since the last report (interval) or the start that phase_marks cannot give. */
uint64_t
phase_marks_unlisted(const struct phase_table *t, int interval)
{
	return (phase_ring_gone(t->nmarks, MARK_RING, t->marks_reported, interval));
}

const struct mark *
phase_mark(const struct phase_table *t, uint64_t seq)
{
	return (&t->marks[seq % MARK_RING]);
}
