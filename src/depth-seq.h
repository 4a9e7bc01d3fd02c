/* depth-seq.h: a sequence of times that grows at its end, put in order before each walk (struct depth_seq): the device's depths (model-depth.c) and a process's (model-pdepth.c). */
#ifndef BLKTOP_DEPTH_SEQ_H
#define BLKTOP_DEPTH_SEQ_H

#include <stdint.h>
#include <string.h>

#include "base.h"
#include "window.h"

/*
 * Room for one more at the end of q, a sequence bounded at max times
 * (depth_bound, pdepth's): by moving it down, or growing it (not per event).
 * Its first time takes room for DEPTH_ROOM(max) at once, whose pages are
 * taken as they are written: doubling from 256 copied it at every step and
 * left each copy's pages behind (a device's three sequences held 12.6 MB,
 * the heap grew 19 MB under fio's libaio job at 345k requests/s). A move, of
 * n <= max times, comes after max / 2 inserts or more (twice as often as in
 * room for 2 max: some 15 bytes moved an insert at that rate); at max, a
 * move of the whole sequence came after each bound's cut of an eighth of
 * it, eight times a request moved (at 270k requests/s, 63 instructions and
 * 2 MiB of memory traffic a request, callgrind). Only a sequence that
 * outgrows its bound (its cuts took nothing) grows further, by doubling.
 */
#define DEPTH_ROOM(max)	((max) + (max) / 2)
static inline void
depth_room(struct depth_seq *q, uint64_t **aux, unsigned max)
{
	if (q->head + q->n < q->cap)
		return;
	if (q->head > 0 && (q->head >= q->cap / 2 || q->cap >= DEPTH_ROOM(max))) {
		memmove(q->v, q->v + q->head, q->n * sizeof *q->v);
		if (aux != NULL)
			memmove(*aux, *aux + q->head, q->n * sizeof **aux);
		q->head = 0;
		return;
	}
	q->cap = q->cap == 0 ? DEPTH_ROOM(max) : q->cap * 2;
	q->v = xreallocarray(q->v, q->cap, sizeof *q->v);
	if (aux != NULL)
		*aux = xreallocarray(*aux, q->cap, sizeof **aux);
}

/* Append key as it came (put in order before the next walk: depth_seq_sort); max: q's bound. */
static inline void
depth_append(struct depth_seq *q, uint64_t key, unsigned max)
{
	if (q->head + q->n >= q->cap)
		depth_room(q, NULL, max);
	q->v[q->head + q->n++] = key;
}

/* Append key, with val beside it in *aux (kept parallel to q). */
static inline void
depth_append_aux(struct depth_seq *q, uint64_t **aux, uint64_t key, uint64_t val, unsigned max)
{
	unsigned	 i;

	if (q->head + q->n >= q->cap)
		depth_room(q, aux, max);
	i = q->head + q->n++;
	q->v[i] = key;
	(*aux)[i] = val;
}

/*
 * After a walk up to cut that took i starts and j completions: the
 * completions left up to cut leave too (each one less in flight), and both
 * sequences move on past what went.
 */
static inline void
depth_seq_advance(struct depth_seq *start, unsigned i, struct depth_seq *done, unsigned j,
    uint64_t cut, uint64_t *inflight)
{
	const uint64_t	*dv = done->v + done->head;

	while (j < done->n && dv[j] <= cut) {
		j++;
		(*inflight)--;
	}
	start->head += i;
	start->n -= i;
	start->sorted -= i;
	done->head += j;
	done->n -= j;
	done->sorted -= j;
}

/* depth-seq.c */
void		 depth_seq_sort(struct depth_seq *, uint64_t *aux, struct depth_scratch *);
void		 depth_scratch_free(struct depth_scratch *);

#endif
