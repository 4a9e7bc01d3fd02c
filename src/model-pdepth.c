/* model-pdepth.c: the most block requests a process kept in flight at once, from the requests' own start and completion times. */

#include <stdint.h>
#include <stdlib.h>

#include "base.h"
#include "proc.h"
#include "model.h"

/*
 * The depth a request R of process P found at its start is the number of
 * P's requests S with S.start <= R.start < S.done (R among them); P's depth
 * reached is the highest of those. Records come at completion, in no exact
 * order, so each kept request carries the count of the requests seen so far
 * that hold its start, and an arriving request L adds itself to every kept
 * R whose start it holds (L.start <= R.start < L.done) and counts the kept
 * ones that hold its own. The last of a set of requests in flight together
 * to arrive finds the others kept, so the maximum of those counts is exact,
 * whatever the order, for as long as the requests overlapping a start are
 * kept. A process keeps its last PDEPTH_KEEP requests, fewer while its depth
 * is low (2 x its depth so far + 16: the per-request walk stays short); a
 * request that starts before the completion of one no longer kept may have
 * overlapped it: counted in pdepth_late, its depth perhaps short. The kernel
 * keeps no in-flight count for it ("Cheaper than biolatency").
 *
 * The processes doing block I/O share PDEPTH_SLOTS slots, taken by the least
 * recently used when all are held (its requests forgotten: the next of them
 * that overlaps one is late). The figure lands in the interval the request
 * that raised it completed in (and in the process's totals).
 */

/* A slot's window: its requests kept, their counts raised as later ones arrive. */
static unsigned
pdepth_window(const struct pdepth_slot *s)
{
	uint64_t	 w = 2 * (uint64_t)s->max + 16;

	return (w < PDEPTH_KEEP ? (unsigned)w : PDEPTH_KEEP);
}

/* Process p's slot: its own, else the least recently used one, emptied. */
static struct pdepth_slot *
pdepth_slot(struct proc_table *t, struct proc_entry *p, uint64_t ts)
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
	}
	for (i = 0; i < PDEPTH_SLOTS; i++) {
		s = &t->pdepth[i];
		if (old == NULL || s->last < old->last)
			old = s;
	}
	old->owner = e;
	old->id = p->id;
	old->n = old->head = 0;
	old->max = 0;
	old->gone_done = p->dslot != 0 ? ts : 0;	/* what it did before is not kept */
	p->dslot = (uint32_t)(old - t->pdepth) + 1;
	return (old);
}

/* Request [start, done) of process p completed: the depths it and the kept ones found. */
void
pdepth_add(struct proc_table *t, struct proc_entry *p, uint64_t start, uint64_t done)
{
	struct pdepth_slot	*s = pdepth_slot(t, p, done);
	unsigned		 i, k, mine = 1, max = 0, w;

	if (start < s->gone_done)
		t->pdepth_late++;
	for (i = 0; i < s->n; i++) {
		k = (s->head + i) % PDEPTH_KEEP;
		if (s->start[k] <= start && start < s->done[k])
			mine++;
		if (start <= s->start[k] && s->start[k] < done && ++s->c[k] > max)
			max = s->c[k];
	}
	if (mine > max)
		max = mine;
	w = pdepth_window(s);
	while (s->n >= w) {
		if (s->done[s->head] > s->gone_done)
			s->gone_done = s->done[s->head];
		s->head = (s->head + 1) % PDEPTH_KEEP;
		s->n--;
	}
	k = (s->head + s->n++) % PDEPTH_KEEP;
	s->start[k] = start;
	s->done[k] = done;
	s->c[k] = mine;
	s->last = done;
	if (max > s->max)
		s->max = max;
	if (max > p->iv.blk_depth_max)
		p->iv.blk_depth_max = max;
	if (max > p->tot.blk_depth_max)
		p->tot.blk_depth_max = max;
}

/* Free the slots. */
void
pdepth_free(struct proc_table *t)
{
	free(t->pdepth);
	t->pdepth = NULL;
}
