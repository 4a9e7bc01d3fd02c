/* model-pdepth.c: the most block requests a process kept in flight at once, from the requests' own start and completion times. */

#include <stdint.h>
#include <stdlib.h>

#include "base.h"
#include "proc.h"
#include "model.h"
#include "depth-seq.h"

/*
 * The depth a request R of process P found at its start is the number of
 * P's requests S with S.start <= R.start < S.done (R among them); P's depth
 * reached is the highest of those. It is the device's walk (model-depth.c)
 * over one process's requests: records come at completion, so P's starts
 * and completions after the last cut are kept, each put in order before a
 * walk, and at every tick every start up to now - DEPTH_LAG_NS is final
 * (sink-model.c): one merge of the two sequences, counting what is in
 * flight. Exact for every
 * request whose overlapping requests completed within the lag; one whose
 * start is before the cut when it comes is counted in pdepth_late, its own
 * depth in none. The kernel keeps no in-flight count for it ("Cheaper than
 * biolatency"): a request costs two appends, put in order at the walk
 * (depth-seq.c: their runs in order merged).
 *
 * The processes doing block I/O share PDEPTH_SLOTS slots; a process without
 * one takes the least recently used, whose pending starts are made final
 * first (with what came: its later requests' share of them is lost). A final
 * depth lands in the process's figure since first seen, and in its
 * interval's if the process is active in the interval the cut falls in (a
 * cut makes no process active: the lists of -J stay those of the records);
 * at each report the interval's figure also takes the depths not final yet
 * with what came so far, each at most its final value: a live interval's
 * figure is final for requests that started DEPTH_LAG_NS before the report,
 * a lower bound for the rest; the run's (--report) is exact.
 */
struct pdepth_slot {
	uint32_t	 owner;		/* process entry + 1, 0: none */
	uint32_t	 id;
	uint64_t	 last;		/* its last request's completion: the least recent goes */
	struct depth_seq start, done;	/* after cut (depth-seq.c) */
	uint64_t	 cut;		/* depths final up to here */
	uint64_t	 inflight;	/* in flight at cut */
	struct depth_scratch scratch;	/* slot 0's: the sorts of every slot use it */
};

/*
 * Slot s's starts up to cut: walk them and the completions in time order;
 * final: they are final (and go), else the interval's figure takes what came
 * so far (at a report: a depth not final yet is at most the final one).
 */
static void
pdepth_walk(struct proc_table *t, struct pdepth_slot *s, uint64_t cut, int final)
{
	struct proc_entry	*p;
	const uint64_t		*sv, *dv;
	uint64_t		 inflight = s->inflight, st, max = 0;
	unsigned		 i = 0, j = 0, k, ns = s->start.n, nd = s->done.n;

	if (cut <= s->cut)
		return;
	depth_seq_sort(&s->start, NULL, &t->pdepth[0].scratch);
	depth_seq_sort(&s->done, NULL, &t->pdepth[0].scratch);
	sv = s->start.v + s->start.head;
	dv = s->done.v + s->done.head;
	while (i < ns && (st = sv[i]) <= cut) {
		while (j < nd && dv[j] <= st) {
			j++;
			inflight--;
		}
		for (k = i + 1; k < ns && sv[k] == st; k++)
			;
		inflight += k - i;	/* requests starting together each find the others */
		if (inflight > max)
			max = inflight;
		i = k;
	}
	if (final) {
		depth_seq_advance(&s->start, i, &s->done, j, cut, &inflight);
		s->inflight = inflight;
		s->cut = cut;
	}
	if (max == 0 || s->owner == 0)
		return;
	p = &t->procs[s->owner - 1];
	if (p->id != s->id || p->dslot != (uint32_t)(s - t->pdepth) + 1)
		return;		/* its process left the table */
	if (final && max > p->tot.blk_depth_max)
		p->tot.blk_depth_max = max;
	if (p->epoch == t->epoch && max > p->iv.blk_depth_max)
		p->iv.blk_depth_max = max;
}

/* Process p's slot: its own, else the least recently used one, made final and emptied. */
static struct pdepth_slot *
pdepth_slot(struct proc_table *t, struct proc_entry *p)
{
	struct pdepth_slot	*s, *old = NULL;
	uint32_t		 e = (uint32_t)(p - t->procs) + 1;
	unsigned		 i;

	if (t->pdepth == NULL)
		t->pdepth = xcalloc(PDEPTH_SLOTS, sizeof *t->pdepth);	/* once, at the first request */
	if (p->dslot != 0) {
		s = &t->pdepth[p->dslot - 1];
		if (s->owner == e && s->id == p->id)
			return (s);
		t->pdepth_late++;	/* its pending requests were made final without it */
	}
	for (i = 0; i < PDEPTH_SLOTS; i++) {
		s = &t->pdepth[i];
		if (old == NULL || s->last < old->last)
			old = s;
	}
	pdepth_walk(t, old, UINT64_MAX, 1);
	old->owner = e;
	old->id = p->id;
	old->start.head = old->start.n = old->start.sorted = 0;
	old->done.head = old->done.n = old->done.sorted = 0;
	old->cut = 0;
	old->inflight = 0;
	p->dslot = (uint32_t)(old - t->pdepth) + 1;
	return (old);
}

/* Request [start, done) of process p completed: kept until its depth is final. */
void
pdepth_add(struct proc_table *t, struct proc_entry *p, uint64_t start, uint64_t done)
{
	struct pdepth_slot	*s = pdepth_slot(t, p);

	if (done <= start)
		done = start + 1;	/* in flight at its own start */
	s->last = done;
	/* At its bound, the oldest eighth is final now (memory stays bounded). */
	if (s->start.n >= PDEPTH_MAX - 1) {
		depth_seq_sort(&s->start, NULL, &t->pdepth[0].scratch);
		pdepth_walk(t, s, s->start.v[s->start.head + s->start.n / 8], 1);
	}
	if (s->done.n >= PDEPTH_MAX - 1) {
		depth_seq_sort(&s->done, NULL, &t->pdepth[0].scratch);
		pdepth_walk(t, s, s->done.v[s->done.head + s->done.n / 8], 1);
	}
	if (start <= s->cut) {
		/* Its start is past: its own depth and its share of others' came too late. */
		t->pdepth_late++;
		if (done > s->cut) {
			s->inflight++;
			depth_append(&s->done, done, PDEPTH_MAX);
		}
		return;
	}
	depth_append(&s->start, start, PDEPTH_MAX);
	depth_append(&s->done, done, PDEPTH_MAX);
}

/*
 * Every process's starts up to cut are final (a tick: now - DEPTH_LAG_NS;
 * the end: UINT64_MAX); not final: a report's look at those up to cut, for
 * the interval's figures.
 */
void
pdepth_cut(struct proc_table *t, uint64_t cut, int final)
{
	unsigned	 i;

	if (t->pdepth == NULL)
		return;
	for (i = 0; i < PDEPTH_SLOTS; i++) {
		if (t->pdepth[i].owner != 0)
			pdepth_walk(t, &t->pdepth[i], cut, final);
	}
}

/* Free the slots. */
void
pdepth_free(struct proc_table *t)
{
	unsigned	 i;

	if (t->pdepth == NULL)
		return;
	for (i = 0; i < PDEPTH_SLOTS; i++) {
		free(t->pdepth[i].start.v);
		free(t->pdepth[i].done.v);
	}
	depth_scratch_free(&t->pdepth[0].scratch);
	free(t->pdepth);
	t->pdepth = NULL;
}
