/* depth-seq.c: a depth sequence's times that came since its last walk, put in order once, before the walk. */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "window.h"
#include "depth-seq.h"

/*
 * Records come in completion order, so a sequence of start or dispatch times
 * grows out of order by about as many as were in flight, and completions
 * come in each CPU's batches: an insertion each moved 6.75 times a request
 * (fio libaio, 2 jobs at depth 32, callgrind). Times are appended as they
 * come instead, and the part that came since the sequence was last in order
 * is sorted when a walk or a bound needs it: the runs that came in order
 * are merged in (a few hundred in 32,768 starts, a few completions), and
 * where that moves too much, the rest by a radix sort of 11-bit digits,
 * merged with the part in order. Equal times may come out in any order:
 * every figure of a walk counts them alike.
 */

#define DEPTH_RADIX_BITS	11
#define DEPTH_RADIX		(1u << DEPTH_RADIX_BITS)
#define DEPTH_RADIX_PASSES	6	/* 64 bits */
#define DEPTH_SORT_MOVES	16	/* the runs' moves a time, at most (a radix sort's cost), */
#define DEPTH_SORT_SMALL	256	/* and as many more (a radix pass adds up 2048 counts) */

/* Room for n times (and their aux) in the scratch: grows at a walk, never per event. */
static void
depth_scratch_room(struct depth_scratch *s, unsigned n, int aux)
{
	if (n <= s->cap && (!aux || s->aux != NULL))
		return;
	if (n > s->cap)
		s->cap = n < 1024 ? 1024 : n + n / 4;
	s->v = xreallocarray(s->v, s->cap, sizeof *s->v);
	if (aux || s->aux != NULL)
		s->aux = xreallocarray(s->aux, s->cap, sizeof *s->aux);
}

/* Give the scratch back. */
void
depth_scratch_free(struct depth_scratch *s)
{
	free(s->v);
	free(s->aux);
	memset(s, 0, sizeof *s);
}

/* In v[0, i) in order, whose last is above key: the first above key (galloping back, then halving). */
static unsigned
depth_sort_above(const uint64_t *v, unsigned i, uint64_t key)
{
	unsigned	 hi = i - 1, lo, mid, step = 1;

	while (step <= hi && v[hi - step] > key)
		step <<= 1;
	if (step > hi) {
		if (v[0] > key)
			return (0);
		lo = 0;
	} else
		lo = hi - step;
	/* v[lo] <= key < v[hi] */
	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		if (v[mid] > key)
			hi = mid;
		else
			lo = mid;
	}
	return (hi);
}

/*
 * v[from, n) into the v[0, from) in order, a[] moved alike (a NULL: none):
 * each run that came in order is merged with the times before it that are
 * above its first (copied to s, about as many as were in flight), not
 * inserted a time at a time (which moved each of those once for each time
 * of the run below it). Stops where the moves pass DEPTH_SORT_MOVES a time,
 * with room for a few runs far out of order, and says where (n: all in
 * order).
 */
static unsigned
depth_sort_runs(uint64_t *v, uint64_t *a, unsigned from, unsigned n, struct depth_scratch *s)
{
	uint64_t	 moves = 0, slack = DEPTH_SORT_SMALL + (n - from) / 2;
	unsigned	 i, r, p, d, x, y, k;

	for (i = from == 0 ? 1 : from; i < n; i = r) {
		if (v[i - 1] <= v[i]) {
			r = i + 1;
			continue;
		}
		if (moves > (uint64_t)(i - from) * DEPTH_SORT_MOVES + slack)
			return (i);
		for (r = i + 1; r < n && v[r - 1] <= v[r]; r++)
			;
		p = depth_sort_above(v, i, v[i]);
		d = i - p;
		depth_scratch_room(s, d, a != NULL);
		memcpy(s->v, v + p, d * sizeof *v);
		if (a != NULL)
			memcpy(s->aux, a + p, d * sizeof *a);
		/* Forward into v[p, r): k <= y, so no time of the run is written over before it is read. */
		for (x = 0, y = i, k = p; x < d && y < r; k++) {
			if (v[y] < s->v[x]) {
				if (a != NULL)
					a[k] = a[y];
				v[k] = v[y++];
			} else {
				if (a != NULL)
					a[k] = s->aux[x];
				v[k] = s->v[x++];
			}
		}
		for (; x < d; x++, k++) {
			if (a != NULL)
				a[k] = s->aux[x];
			v[k] = s->v[x];
		}
		moves += 2 * d + (y - i);
	}
	return (n);
}

/*
 * LSD radix sort of the n times v (a beside them, or NULL), all of them
 * within [lo, lo + 2^bits), using s; the result is left in s->v (s->aux).
 */
static void
depth_sort_radix(struct depth_scratch *s, uint64_t *v, uint64_t *a, unsigned n, uint64_t lo,
    unsigned bits)
{
	uint32_t	 count[DEPTH_RADIX_PASSES][DEPTH_RADIX], *pc, c, sum;
	uint64_t	*src = v, *srca = a, *dst = s->v, *dsta = a != NULL ? s->aux : NULL, *tv, r;
	unsigned	 passes = (bits + DEPTH_RADIX_BITS - 1) / DEPTH_RADIX_BITS, p, i, sh, d;

	if (passes == 0) {
		memcpy(s->v, v, n * sizeof *v);	/* all equal */
		if (a != NULL)
			memcpy(s->aux, a, n * sizeof *a);
		return;
	}
	/* A tick's times span 33 bits or fewer (8.6 s): three digits, unrolled. */
	memset(count, 0, (passes < 3 ? 3 : passes) * sizeof count[0]);
	for (i = 0; i < n; i++) {
		r = src[i] - lo;
		count[0][r & (DEPTH_RADIX - 1)]++;
		count[1][(r >> DEPTH_RADIX_BITS) & (DEPTH_RADIX - 1)]++;
		count[2][(r >> (2 * DEPTH_RADIX_BITS)) & (DEPTH_RADIX - 1)]++;
		for (p = 3; p < passes; p++)
			count[p][(r >> (p * DEPTH_RADIX_BITS)) & (DEPTH_RADIX - 1)]++;
	}
	for (p = 0; p < passes; p++) {
		for (sum = 0, d = 0; d < DEPTH_RADIX; d++) {
			c = count[p][d];
			count[p][d] = sum;
			sum += c;
		}
	}
	for (p = 0; p < passes; p++) {
		sh = p * DEPTH_RADIX_BITS;
		pc = count[p];
		if (srca != NULL) {
			for (i = 0; i < n; i++) {
				r = src[i];
				d = pc[((r - lo) >> sh) & (DEPTH_RADIX - 1)]++;
				dst[d] = r;
				dsta[d] = srca[i];
			}
		} else {
			for (i = 0; i < n; i++) {
				r = src[i];
				dst[pc[((r - lo) >> sh) & (DEPTH_RADIX - 1)]++] = r;
			}
		}
		/* The next pass reads what this one wrote: v (a) and s take turns. */
		tv = src; src = dst; dst = tv;
		tv = srca; srca = dsta; dsta = tv;
	}
	if (src != s->v) {
		memcpy(s->v, src, n * sizeof *v);
		if (a != NULL)
			memcpy(s->aux, srca, n * sizeof *a);
	}
}

/*
 * The m times in s->v (s->aux), in order, merged into v[0, from) in order,
 * from the end: the times of v below the least of s stay where they are.
 */
static void
depth_sort_merge(const struct depth_scratch *s, uint64_t *v, uint64_t *a, unsigned from,
    unsigned m)
{
	const uint64_t	*sv = s->v, *sa = s->aux;
	unsigned	 p = from, t = m, k = from + m;

	while (t > 0) {
		if (p > 0 && v[p - 1] > sv[t - 1]) {
			k--;
			p--;
			v[k] = v[p];
			if (a != NULL)
				a[k] = a[p];
		} else {
			k--;
			t--;
			v[k] = sv[t];
			if (a != NULL)
				a[k] = sa[t];
		}
	}
}

/*
 * Put all of q in order (aux, beside q->v, or NULL, moved alike), using s:
 * the times that came since it last was, by merging the runs that came in
 * order while that moves few (each CPU's batches come in order), the rest by
 * a radix sort.
 */
void
depth_seq_sort(struct depth_seq *q, uint64_t *aux, struct depth_scratch *s)
{
	uint64_t	*v = q->v + q->head, *a = aux != NULL ? aux + q->head : NULL, lo, hi;
	unsigned	 from = q->sorted, n = q->n, i;

	if (from < n)
		from = depth_sort_runs(v, a, from, n, s);
	q->sorted = n;
	if (from == n)
		return;
	for (lo = hi = v[from], i = from + 1; i < n; i++) {
		if (v[i] < lo)
			lo = v[i];
		if (v[i] > hi)
			hi = v[i];
	}
	depth_scratch_room(s, n - from, a != NULL);
	depth_sort_radix(s, v + from, a != NULL ? a + from : NULL, n - from, lo,
	    hi == lo ? 0 : 64 - (unsigned)__builtin_clzll(hi - lo));
	depth_sort_merge(s, v, a, from, n - from);
}
