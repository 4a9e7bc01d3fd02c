/* test-pdepth.c: a process's depth reached (model-pdepth.c) against a sweep of its requests' own times. */
#include <stdlib.h>
#include <string.h>

#include "blktop.h"
#include "model.h"
#include "check.h"

struct req {
	uint64_t	 start, done;
	uint32_t	 tgid;
};

/* One completed block request of tgid, [start, done). */
static void
feed(struct proc_table *t, uint32_t tgid, uint64_t start, uint64_t done)
{
	struct ev_block b;

	memset(&b, 0, sizeof(b));
	b.type = EV_BLOCK;
	b.ts_start = b.ts_issue = start;
	b.ts_done = done;
	b.pid = b.tgid = tgid;
	b.op = BLK_OP_READ;
	b.bytes = 4096;
	strcpy(b.comm, "t");
	proc_add(t, &b, sizeof(b));
}

/* The depth reached by a sweep: the most requests holding one's start. */
static unsigned
sweep(const struct req *r, unsigned n)
{
	unsigned	 i, j, d, max = 0;

	for (i = 0; i < n; i++) {
		for (d = 0, j = 0; j < n; j++)
			d += r[j].start <= r[i].start && r[i].start < r[j].done;
		if (d > max)
			max = d;
	}
	return (max);
}

/* Process id's counters (since first seen, or the interval's). */
static uint64_t
depth_of(struct proc_table *t, uint32_t id, int total)
{
	const struct proc_entry	*top[64];
	unsigned		 n, i;

	n = top_procs(t, PROC_KEY_READ_IOS, 1, top, 64);
	for (i = 0; i < n; i++) {
		if (top[i]->id == id)
			return (proc_entry_counts(t, top[i], total)->blk_depth_max);
	}
	return (UINT64_MAX);
}

/* By completion time, then shuffled within a few places (records from several CPUs). */
static int
by_done(const void *a, const void *b)
{
	const struct req	*x = a, *y = b;

	return (x->done < y->done ? -1 : x->done > y->done);
}

/* Swap each record with one up to w places later: arrival out of completion order. */
static void
jitter(struct req *r, unsigned n, unsigned w)
{
	struct req	 x;
	unsigned	 i, j;

	for (i = 0; i + 1 < n; i++) {
		j = i + (unsigned)rand() % (w + 1);
		if (j >= n)
			continue;
		x = r[i];
		r[i] = r[j];
		r[j] = x;
	}
}

/* Feed r (n) as tgid's requests, in r's order. */
static void
feed_all(struct proc_table *t, uint32_t tgid, const struct req *r, unsigned n)
{
	unsigned	 i;

	for (i = 0; i < n; i++)
		feed(t, tgid, r[i].start, r[i].done);
}

#define NREQ	3000
static struct req	 reqs[NREQ], sorted[NREQ];

/*
 * fio at iodepth q: q submitted at once, each completion followed by the
 * next submission; fed in completion order and out of it.
 */
static void
test_fio(unsigned q, unsigned w)
{
	struct proc_table	*t = proc_create(0, 0, 0);
	uint64_t		 next[256];
	unsigned		 i, k, want;
	char			 name[160];

	for (k = 0; k < q; k++)
		next[k] = 1000;
	for (i = 0; i < NREQ; i++) {
		k = (unsigned)rand() % q;
		reqs[i].start = next[k];
		reqs[i].done = reqs[i].start + 50 + (uint64_t)(rand() % 5000);
		next[k] = reqs[i].done + 1 + (uint64_t)(rand() % 20);
	}
	qsort(reqs, NREQ, sizeof reqs[0], by_done);
	want = sweep(reqs, NREQ);
	jitter(reqs, NREQ, w);
	feed_all(t, 42, reqs, NREQ);
	pdepth_cut(t, UINT64_MAX, 1);
	snprintf(name, sizeof name, "iodepth %u, arrivals out of order by swaps of up to %u "
	    "places: depth reached %llu, the sweep's %u, none late (%llu)", q, w,
	    (unsigned long long)depth_of(t, 42, 1), want, (unsigned long long)t->pdepth_late);
	CHECK(name, depth_of(t, 42, 1) == want && want == q && t->pdepth_late == 0);
	proc_free(t);
}

/* Requests at random times and lengths, of two processes, interleaved and out of order. */
static void
test_random(void)
{
	struct proc_table	*t = proc_create(0, 0, 0);
	unsigned		 i, k, n, want[2];
	char			 name[200];

	for (i = 0; i < NREQ; i++) {
		reqs[i].tgid = 1 + i % 2;
		reqs[i].start = (uint64_t)(rand() % 1000000);
		reqs[i].done = reqs[i].start + 1 + (uint64_t)(rand() % (i % 2 ? 20000 : 4000));
	}
	for (k = 0; k < 2; k++) {
		for (n = 0, i = 0; i < NREQ; i++)
			if (reqs[i].tgid == k + 1)
				sorted[n++] = reqs[i];
		want[k] = sweep(sorted, n);
	}
	qsort(reqs, NREQ, sizeof reqs[0], by_done);
	jitter(reqs, NREQ, 4);
	for (i = 0; i < NREQ; i++)
		feed(t, reqs[i].tgid, reqs[i].start, reqs[i].done);
	pdepth_cut(t, UINT64_MAX, 1);
	snprintf(name, sizeof name, "random requests of two processes: depth reached %llu and "
	    "%llu, the sweeps' %u and %u, none late (%llu)",
	    (unsigned long long)depth_of(t, 1, 1), (unsigned long long)depth_of(t, 2, 1),
	    want[0], want[1], (unsigned long long)t->pdepth_late);
	CHECK(name, depth_of(t, 1, 1) == want[0] && depth_of(t, 2, 1) == want[1] &&
	    want[0] != want[1] && t->pdepth_late == 0);
	proc_free(t);
}

/*
 * A depth is final at a cut (a tick, DEPTH_LAG_NS after its start; the
 * end): an interval's figure is the depths made final in it, a request
 * whose start is before the last cut is late.
 */
static void
test_interval(void)
{
	struct proc_table	*t = proc_create(0, 0, 0);

	feed(t, 7, 100, 200);
	feed(t, 7, 150, 250);
	feed(t, 7, 160, 300);
	CHECK("before a cut: no depth yet", depth_of(t, 7, 0) == 0 && depth_of(t, 7, 1) == 0);
	feed(t, 7, 170, 400);
	pdepth_cut(t, 500, 0);
	CHECK("a report's look: the interval has the depth so far (4), the run's none yet",
	    depth_of(t, 7, 0) == 4 && depth_of(t, 7, 1) == 0);
	pdepth_cut(t, 1000, 1);
	CHECK("four overlapping, cut: depth 4 in the interval and since first seen",
	    depth_of(t, 7, 0) == 4 && depth_of(t, 7, 1) == 4);
	proc_interval(t);
	CHECK("an idle interval: no depth (null), since first seen 4",
	    depth_of(t, 7, 0) == 0 && depth_of(t, 7, 1) == 4);
	feed(t, 7, 1500, 1600);
	feed(t, 7, 1550, 1560);
	feed(t, 7, 1400, 1570);	/* arrives last, holds both starts */
	pdepth_cut(t, 3000, 1);
	CHECK("the next interval: its own requests only, the last to arrive counted: 3",
	    depth_of(t, 7, 0) == 3 && depth_of(t, 7, 1) == 4 && t->pdepth_late == 0);
	feed(t, 7, 2900, 3100);
	CHECK("a request that started before the cut is late, its depth in none",
	    t->pdepth_late == 1);
	feed(t, 7, 3050, 3060);
	feed(t, 7, 3050, 3070);
	pdepth_cut(t, UINT64_MAX, 1);
	CHECK("a late request still counts in the depth of later starts it holds: 3",
	    depth_of(t, 7, 0) == 3);
	proc_free(t);
}

/* More processes than slots: each one's own depth still, the slots taken in turn. */
static void
test_slots(void)
{
	struct proc_table	*t = proc_create(0, 0, 0);
	unsigned		 p, ok = 1;

	for (p = 0; p < PDEPTH_SLOTS * 2; p++) {
		feed(t, 100 + p, 1000 + p * 10, 1005 + p * 10);
		feed(t, 100 + p, 1001 + p * 10, 1006 + p * 10);
	}
	pdepth_cut(t, UINT64_MAX, 1);
	for (p = 0; p < PDEPTH_SLOTS * 2; p++)
		ok = ok && depth_of(t, 100 + p, 1) == 2;
	CHECK("twice as many processes as slots: each depth 2", ok);
	proc_free(t);
}

int
main(void)
{
	unsigned	 q[] = { 1, 4, 32, 128 }, i;

	srand(44);
	for (i = 0; i < 4; i++) {
		test_fio(q[i], 0);
		test_fio(q[i], 8);
	}
	test_random();
	test_interval();
	test_slots();
	CHECK_EXIT();
}
