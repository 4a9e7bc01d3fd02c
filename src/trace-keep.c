/*
 * trace-keep.c: which of --trace's events are kept within its byte budget
 * (sink-trace.c fills them in): counters, losses and marks always, in a
 * quarter of the bytes; the slowest requests in another quarter; a uniform
 * sample of the rest, by a key drawn for each (the same for the same run).
 */

#include <stdint.h>
#include <string.h>

#include "blktop.h"
#include "trace.h"

/* xorshift64*: the sampling keys, the same for the same run. */
static uint32_t
trace_rand(struct trace *t)
{
	t->rng ^= t->rng >> 12;
	t->rng ^= t->rng << 25;
	t->rng ^= t->rng >> 27;
	return ((uint32_t)((t->rng * 2685821657736338717ULL) >> 32));
}

/* Heaps of entry indices: the slow one by least duration on top, the sample by greatest key. */
static int
trace_above(const struct trace *t, int slow, uint32_t a, uint32_t b)
{
	return (slow ? t->ev[a].dur < t->ev[b].dur : t->ev[a].prio > t->ev[b].prio);
}

static void
trace_heap_push(struct trace *t, int slow, uint32_t e)
{
	uint32_t	*h = slow ? t->slow : t->samp;
	uint32_t	 i = slow ? t->nslow++ : t->nsamp++, p;

	while (i > 0 && trace_above(t, slow, e, h[p = (i - 1) / 2])) {
		h[i] = h[p];
		i = p;
	}
	h[i] = e;
}

static uint32_t
trace_heap_pop(struct trace *t, int slow)
{
	uint32_t	*h = slow ? t->slow : t->samp;
	uint32_t	 n = slow ? --t->nslow : --t->nsamp;
	uint32_t	 top = h[0], last = h[n], i = 0, c;

	while ((c = 2 * i + 1) < n) {
		if (c + 1 < n && trace_above(t, slow, h[c + 1], h[c]))
			c++;
		if (!trace_above(t, slow, h[c], last))
			break;
		h[i] = h[c];
		i = c;
	}
	if (n > 0)
		h[i] = last;
	return (top);
}

/* A free entry, or UINT32_MAX: the pool is sized so that this cannot happen under the budget. */
static uint32_t
trace_take(struct trace *t)
{
	if (t->nfree > 0)
		return (t->freel[--t->nfree]);
	if (t->fresh < t->cap)
		return (t->fresh++);
	return (UINT32_MAX);
}

/* Into the uniform sample (UINT32_MAX: nothing); past the budget, the entries of greatest key go. */
static void
trace_offer(struct trace *t, uint32_t e)
{
	uint32_t	 x;

	if (e != UINT32_MAX) {
		trace_heap_push(t, 0, e);
		t->samp_bytes += t->ev[e].cost;
	}
	while (t->nsamp > 0 &&
	    t->name_bytes + t->fix_bytes + t->slow_bytes + t->samp_bytes > t->budget) {
		x = trace_heap_pop(t, 0);
		t->samp_bytes -= t->ev[x].cost;
		t->dropped[t->ev[x].kind]++;
		t->freel[t->nfree++] = x;
	}
}

/*
 * Keep an event filled in at t->ev[e]: counters and losses always (in a
 * quarter of the bytes), the slowest requests (another quarter), a sample of
 * the rest.
 */
void
trace_keep(struct trace *t, uint32_t e)
{
	struct trace_ev	*v = &t->ev[e];
	uint32_t	 x;

	v->prio = trace_rand(t);
	t->seen[v->kind]++;
	if ((v->kind == TR_DEVCNT || v->kind == TR_PROCCNT || v->kind == TR_LOST ||
	    v->kind == TR_MARK || v->kind == TR_REC) &&
	    t->fix_bytes + v->cost <= t->budget / 4) {
		t->fix[t->nfix++] = e;
		t->fix_bytes += v->cost;
		/* The sample gives way. */
		trace_offer(t, UINT32_MAX);
		return;
	}
	if (v->kind != TR_REQ) {
		trace_offer(t, e);
		return;
	}
	trace_heap_push(t, 1, e);
	t->slow_bytes += v->cost;
	while (t->slow_bytes > t->budget / 4) {
		x = trace_heap_pop(t, 1);
		t->slow_bytes -= t->ev[x].cost;
		trace_offer(t, x);
	}
}

/* A new entry of a kind, zeroed; NULL (counted as dropped) if none is free. */
struct trace_ev *
trace_new(struct trace *t, enum trace_kind kind, uint32_t *ep)
{
	uint32_t	 e = trace_take(t);

	if (e == UINT32_MAX) {
		t->seen[kind]++;
		t->dropped[kind]++;
		return (NULL);
	}
	memset(&t->ev[e], 0, sizeof t->ev[e]);
	t->ev[e].kind = kind;
	t->ev[e].off = -1;
	*ep = e;
	return (&t->ev[e]);
}
