/* test-window.c: window rotation, expiry and aggregation of block events. */

#include <string.h>

#include "blktop.h"
#include "depth-seq.h"
#include "model-qdepth.h"
#include "check.h"
#include "window-find.h"

/* A block event completing at done after lat ns of device time and q ns of queueing. */
static struct ev_block
ev(uint32_t dev, unsigned op, uint32_t bytes, uint64_t done, uint64_t lat, uint64_t q)
{
	struct ev_block e;

	memset(&e, 0, sizeof e);
	e.type = EV_BLOCK;
	e.dev = dev;
	e.op = (uint16_t)op;
	e.bytes = bytes;
	e.ts_done = done;
	e.ts_issue = done - lat;
	e.ts_start = done - lat - q;
	e.inflight = 1;
	return (e);
}

/* A request of no kernel-side count (BLK_F_NODEVSTAT) from start to done. */
static struct ev_block
req(uint32_t dev, uint64_t start, uint64_t done)
{
	struct ev_block e = ev(dev, BLK_OP_READ, 4096, done, done - start, 0);

	e.inflight = 0;
	e.flags = BLK_F_NODEVSTAT;
	return (e);
}

/*
 * The depth each request found at its dispatch, and the latency by the depth
 * found at its start (model-depth.c, struct depthx), counted by hand.
 */
static void
test_depth_dispatch(uint64_t now, uint32_t dev)
{
	struct windows		 w;
	struct ev_block		 e;
	const struct qd_acc	*a;
	unsigned		 i;
	/* start, dispatch, done (us), in completion order: B, A, D, C. */
	static const uint64_t	 sid[][3] = { { 10, 20, 60 }, { 0, 50, 100 }, { 40, 110, 120 },
				     { 30, 30, 200 } };

	windows_init(&w, 8, now);
	for (i = 0; i < 4; i++) {
		e = req(dev, now + sid[i][0] * 1000, now + sid[i][2] * 1000);
		e.ts_issue = now + sid[i][1] * 1000;
		windows_add_block(&w, &e);
	}
	CHECK("dispatch: nothing before the lag", (a = depth_acc(w.devs[0], 0)) != NULL &&
	    a->ndisp == 0 && a->lat[0] == NULL);
	windows_tick(&w, now + NSEC_PER_SEC);
	a = depth_acc(w.devs[0], 0);
	/* Dispatches B 20: 1; C 30: 2; A 50: 3; D 110: 2 (B done at 60, A at 100). */
	CHECK("dispatch: depths and max from the dispatch times", a->ndisp == 4 &&
	    a->disp[0] == 1 && a->disp[1] == 3 && a->disp_max == 3);
	/* Starts A 0: 1; B 10: 2; C 30: 3; D 40: 4: A alone, B and C, D. */
	CHECK("by depth: counts, bytes and total latency by the depth found at start",
	    a->lat[0] != NULL && a->lat[0]->n == 1 && a->lat[0]->sum == 100000 &&
	    a->lat[1] != NULL && a->lat[1]->n == 2 && a->lat[1]->sum == 220000 &&
	    a->lat[1]->min == 50000 && a->lat[1]->max == 170000 && a->lat[1]->bytes == 8192 &&
	    a->lat[2] != NULL && a->lat[2]->n == 1 && a->lat[2]->sum == 80000);
	windows_interval(&w);
	a = depth_acc(w.devs[0], 0);
	CHECK("by depth: a report starts the interval's again, not the run's",
	    a->ndisp == 0 && a->lat[1]->n == 0 && depth_acc(w.devs[0], 1)->ndisp == 4 &&
	    depth_acc(w.devs[0], 1)->lat[1]->n == 2);
	windows_free(&w);
}

/* qsort's order of two times. */
static int
cmp_u64(const void *a, const void *b)
{
	uint64_t	 x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x < y ? -1 : x > y);
}

/*
 * One sort of a sequence whose first m of n times are in order and the rest
 * came as gen makes them: in order after, each aux still beside its time,
 * the same times as qsort's.
 */
static int
depth_sort_case(struct depth_scratch *s, unsigned m, unsigned n, int gen)
{
	struct depth_seq q;
	uint64_t	*aux = NULL, *want;
	unsigned	 i, ok = 1, seed = 12345 + n + (unsigned)gen;

	memset(&q, 0, sizeof q);
	want = xcalloc(n + 1, sizeof *want);
	for (i = 0; i < n; i++) {
		seed = seed * 1103515245 + 12345;
		if (i < m)
			want[i] = 1000 + i * 10;
		else if (gen == 0)	/* anywhere */
			want[i] = 1000 + (seed >> 8) % (n * 10);
		else if (gen == 1)	/* a little late, as completions come */
			want[i] = 1000 + i * 10 - ((seed >> 8) % 16 == 0 ? 25 : 0);
		else if (gen == 2)	/* the new part's halves swapped: one descent, far to move */
			want[i] = 1000 + (i - m < (n - m) / 2 ? i + (n - m) / 2 : i - (n - m) / 2) * 10;
		else			/* few values, many equal */
			want[i] = 1000 + (seed >> 8) % 3;
		depth_append_aux(&q, &aux, want[i], want[i] * 3 + 1, DEPTH_MAX);
		if (i + 1 == m) {
			depth_seq_sort(&q, aux, s);
			ok &= q.sorted == m;
		}
	}
	qsort(want, n, sizeof *want, cmp_u64);
	depth_seq_sort(&q, aux, s);
	ok &= q.sorted == n && q.n == n;
	for (i = 0; i < n; i++)
		ok &= q.v[q.head + i] == want[i] && aux[q.head + i] == want[i] * 3 + 1;
	free(want);
	free(aux);
	free(q.v);
	return (ok);
}

/* The depth sequences' one sort a walk (depth-seq.c) against qsort. */
static void
test_depth_sort(void)
{
	struct depth_scratch s;
	int		 gen, ok;

	memset(&s, 0, sizeof s);
	for (gen = 0; gen < 4; gen++) {
		ok = depth_sort_case(&s, 0, 5000, gen) && depth_sort_case(&s, 700, 5000, gen) &&
		    depth_sort_case(&s, 0, 3, gen) && depth_sort_case(&s, 300, 301, gen) &&
		    depth_sort_case(&s, 900, 2000, gen);
		CHECK(gen == 0 ? "depth sort: times anywhere, by radix, merged with those in order" :
		    gen == 1 ? "depth sort: times nearly in order, their runs merged" :
		    gen == 2 ? "depth sort: two runs, one far out of order: merged, not inserted" :
		    "depth sort: equal times", ok);
	}
	depth_scratch_free(&s);
}

/* Depths from the requests' times, and part_stat samples into the ticks (model-depth.c). */
static void
test_depth(uint64_t now, uint32_t dev)
{
	struct windows		 w;
	struct sum		 s;
	struct ev_block		 e;
	struct ev_diskstat	 d;
	uint64_t		 i, n;
	unsigned		 b;
	/* In completion order: A [0,100) B [10,50) C [20,200) D [50,60) E [300,400). */
	static const uint64_t	 se[][2] = { { 10, 50 }, { 50, 60 }, { 0, 100 }, { 20, 200 },
				     { 300, 400 } };

	windows_init(&w, 8, now);
	for (i = 0; i < 5; i++) {
		e = req(dev, now + se[i][0] * 1000, now + se[i][1] * 1000);
		windows_add_block(&w, &e);
	}
	windows_sum(&w, w.devs[0], 0, 1, &s);
	CHECK("depth: none final before the lag", s.qd_max == 0 && !(s.flags & TICK_QD));
	windows_tick(&w, now + NSEC_PER_SEC);
	windows_sum(&w, w.devs[0], 1, 1, &s);
	/* A 1, B 2, C 3, D 3 (B done at its start: not in flight), E 1. */
	CHECK("depth: max and buckets from the times", s.qd_max == 3 &&
	    s.op[OPC_READ].qd[0] == 2 && s.op[OPC_READ].qd[1] == 3 && s.qd_late == 0);

	/* F started before the cut and came after it: late, no depth of its own. */
	e = req(dev, now + NSEC_PER_SEC / 2, now + 3 * NSEC_PER_SEC);
	windows_add_block(&w, &e);
	e = req(dev, now + 2 * NSEC_PER_SEC, now + 2 * NSEC_PER_SEC + 10);
	windows_add_block(&w, &e);
	windows_tick(&w, now + 3 * NSEC_PER_SEC);
	windows_sum(&w, w.devs[0], 1, 1, &s);
	CHECK("depth: a request past the cut is late, and still counts in flight",
	    s.qd_late == 1 && s.qd_max == 2 && s.op[OPC_READ].qd[1] == 1);

	/* Bounded: more times than DEPTH_MAX before any tick, every depth still counted. */
	n = DEPTH_MAX + 100;
	for (i = 0; i < n; i++) {
		e = req(dev, now + 4 * NSEC_PER_SEC + i * 10, now + 4 * NSEC_PER_SEC + i * 10 + 15);
		windows_add_block(&w, &e);
	}
	CHECK("depth: times kept stay under the bound", w.devs[0]->dq.start.n < DEPTH_MAX &&
	    w.devs[0]->dq.done.n < DEPTH_MAX);
	windows_tick(&w, now + 5 * NSEC_PER_SEC);
	depth_flush(&w);
	windows_sum(&w, w.devs[0], 1, 1, &s);
	for (i = 0, b = 0; b < QD_NBUCKETS; b++)
		i += s.op[OPC_READ].qd[b];
	CHECK("depth: every one of them found 2 (its predecessor's last 5 ns), the first 1",
	    i == n && s.op[OPC_READ].qd[1] == n - 1 && s.qd_max == 2);
	windows_free(&w);

	/* part_stat: a sample's deltas are the tick's busy and queue time, not the records'. */
	windows_init(&w, 8, now);
	memset(&d, 0, sizeof d);
	d.type = EV_DISKSTAT;
	d.dev = dev;
	d.ts = now;
	d.io_ticks_ms = 4000;
	d.queue_ms = 9000;
	depth_add_diskstat(&w, &d);	/* no window yet: the baseline */
	e = req(dev, now + 10, now + 5000000);
	windows_add_block(&w, &e);
	d.ts = now + NSEC_PER_SEC;
	d.io_ticks_ms = 4100;
	d.queue_ms = 9500;
	d.in_flight = 3;
	depth_add_diskstat(&w, &d);
	windows_tick(&w, now + NSEC_PER_SEC);
	windows_sum(&w, w.devs[0], 1, 1, &s);
	CHECK("part_stat: busy and queue time are the sample's deltas, in flight its own",
	    s.busy_ns == 100 * 1000000ULL && s.wait_sum == 500 * 1000000ULL && s.in_flight == 3 &&
	    (s.flags & TICK_STAT));
	d.ts = now + 2 * NSEC_PER_SEC;
	d.io_ticks_ms = 0xFFFFFFF0;	/* the kernel prints it as 32 bits */
	depth_add_diskstat(&w, &d);
	windows_tick(&w, now + 2 * NSEC_PER_SEC);
	windows_sum(&w, w.devs[0], 1, 1, &s);
	CHECK("part_stat: busy time is capped at the tick", s.busy_ns == NSEC_PER_SEC);
	d.ts = now + 3 * NSEC_PER_SEC;
	d.io_ticks_ms = 0x20;		/* wrapped: 0x30 ms later */
	depth_add_diskstat(&w, &d);
	windows_tick(&w, now + 3 * NSEC_PER_SEC);
	windows_sum(&w, w.devs[0], 1, 1, &s);
	CHECK("part_stat: a 32-bit counter's wrap is a delta", s.busy_ns == 0x30 * 1000000ULL);
	windows_free(&w);
}

int
main(void)
{
	struct windows	 w;
	struct sum	 s;
	struct ev_block	 e;
	const struct tick *t;
	uint64_t	 now = 1000 * NSEC_PER_SEC;
	unsigned	 i;
	uint32_t	 dev = DEV_MKDEV(7, 0);

	windows_init(&w, 4, now);
	e = ev(dev, BLK_OP_READ, 4096, now + 10, 5000, 100);
	windows_add_block(&w, &e);
	e = ev(dev, BLK_OP_WRITE, 8192, now + 20, 20000, 0);
	windows_add_block(&w, &e);
	e = ev(dev, BLK_OP_FLUSH, 0, now + 30, 1000, 0);
	windows_add_block(&w, &e);
	e = ev(dev, BLK_OP_DISCARD, 1 << 20, now + 40, 1000, 0);
	windows_add_block(&w, &e);
	t = windows_tick_at(&w, windows_find(&w, dev), 0);
	CHECK("events land in the open tick", t != NULL && t->op[OPC_READ].ios == 1 &&
	    t->op[OPC_WRITE].ios == 1 && t->op[OPC_OTHER].ios == 2);
	CHECK("read bytes and latency", t->op[OPC_READ].bytes == 4096 &&
	    t->op[OPC_READ].lat_sum == 5000 && t->op[OPC_READ].q_sum == 100);
	CHECK("latency histogram counts", t->op[OPC_READ].lat[hist_bucket(5000)] == 1);
	CHECK("opclass of write zeroes is write", window_opclass(BLK_OP_WRITE_ZEROES) == OPC_WRITE);

	windows_tick(&w, now + NSEC_PER_SEC);
	CHECK("closed tick keeps its events", windows_tick_at(&w, w.devs[0], 1)->op[OPC_READ].ios == 1);
	CHECK("new tick starts empty", windows_tick_at(&w, w.devs[0], 0)->op[OPC_READ].ios == 0);
	windows_sum(&w, w.devs[0], 1, 1, &s);
	CHECK("sum of one tick", s.op[OPC_READ].ios == 1 && s.op[OPC_WRITE].bytes == 8192 &&
	    s.dur_ns == NSEC_PER_SEC && s.nticks == 1);

	for (i = 2; i <= 4; i++)
		windows_tick(&w, now + i * NSEC_PER_SEC);
	CHECK("tick older than the ring has expired", windows_tick_at(&w, w.devs[0], 4) == NULL);
	windows_sum(&w, w.devs[0], 1, 10, &s);
	CHECK("expired events leave the sums", s.op[OPC_READ].ios == 0 && s.nticks == 3);

	/* Busy time: cumulative in events, only growth counts, capped per tick. */
	e = ev(dev, BLK_OP_READ, 4096, now + 4 * NSEC_PER_SEC + 500, 400, 100);
	e.busy_ns = 1000000;
	windows_add_block(&w, &e);
	e.busy_ns = 1300000;
	windows_add_block(&w, &e);
	e.busy_ns = 1200000;	/* older event arriving late */
	windows_add_block(&w, &e);
	e.busy_ns = 1500000;
	windows_add_block(&w, &e);
	windows_tick(&w, now + 5 * NSEC_PER_SEC);
	windows_sum(&w, w.devs[0], 1, 1, &s);
	CHECK("busy time grows by deltas, late events ignored", s.busy_ns == 1500000);
	e.busy_ns = 10 * NSEC_PER_SEC;
	windows_add_block(&w, &e);
	windows_tick(&w, now + 6 * NSEC_PER_SEC);
	windows_sum(&w, w.devs[0], 1, 1, &s);
	CHECK("busy time capped at the tick length", s.busy_ns == NSEC_PER_SEC);

	/* Timestamps out of order never wrap into huge latencies. */
	e = ev(dev, BLK_OP_READ, 4096, now + 6 * NSEC_PER_SEC + 10, 0, 0);
	e.ts_issue = e.ts_done + 50;
	e.ts_start = e.ts_issue + 50;
	windows_add_block(&w, &e);
	t = windows_tick_at(&w, w.devs[0], 0);
	CHECK("reversed timestamps count as zero latency",
	    t->op[OPC_READ].lat_max == 0 && t->op[OPC_READ].q_max == 0);

	/*
	 * An event without times (an issue-only import, a completion never
	 * seen): counted with its bytes and size, kept out of the latency
	 * sums, while its in-flight count and the busy clock still count.
	 */
	windows_tick(&w, now + 7 * NSEC_PER_SEC);
	e = ev(dev, BLK_OP_READ, 8192, now + 7 * NSEC_PER_SEC + 10, 3000000, 1000);
	e.flags = BLK_F_NOLAT | BLK_F_UNSEEN;
	e.inflight = 9;
	e.busy_ns = 10 * NSEC_PER_SEC + 2000;
	windows_add_block(&w, &e);
	t = windows_tick_at(&w, w.devs[0], 0);
	CHECK("no-latency event: counted, bytes and size kept",
	    t->op[OPC_READ].ios == 1 && t->op[OPC_READ].bytes == 8192 &&
	    t->op[OPC_READ].size[hist_size_bucket(8192)] == 1);
	CHECK("no-latency event: out of the latency sums and histograms",
	    t->op[OPC_READ].timed == 0 && t->op[OPC_READ].lat_sum == 0 &&
	    t->op[OPC_READ].lat[hist_bucket(3000000)] == 0 &&
	    t->op[OPC_READ].q[hist_bucket(1000)] == 0 && t->wait_sum == 0);
	CHECK("no-latency event: in-flight count and busy time still count",
	    t->qd_max == 9 && t->busy_ns == 2000);
	e = ev(dev, BLK_OP_READ, 4096, now + 7 * NSEC_PER_SEC + 20, 5000, 0);
	windows_add_block(&w, &e);
	windows_tick(&w, now + 8 * NSEC_PER_SEC);
	windows_sum(&w, w.devs[0], 1, 1, &s);
	CHECK("sums: timed counts only requests with times",
	    s.op[OPC_READ].ios == 2 && s.op[OPC_READ].timed == 1 &&
	    hist_percentile(s.op[OPC_READ].lat, s.op[OPC_READ].timed, 99,
	    s.op[OPC_READ].lat_min, s.op[OPC_READ].lat_max) < 10000);
	CHECK("sums: the timed request's time is the exact min, max and every percentile",
	    s.op[OPC_READ].lat_min == 5000 && s.op[OPC_READ].lat_max == 5000 &&
	    hist_percentile(s.op[OPC_READ].lat, s.op[OPC_READ].timed, 50,
	    s.op[OPC_READ].lat_min, s.op[OPC_READ].lat_max) == 5000);

	/* The device cap holds: events past it are counted and named, not stored. */
	for (i = 1; i <= WINDOWS_MAX_DEVS + 5; i++) {
		e = ev(DEV_MKDEV(8, i), BLK_OP_READ, 512, now + 8 * NSEC_PER_SEC, 10, 0);
		windows_add_block(&w, &e);
	}
	CHECK("device cap", w.ndevs == WINDOWS_MAX_DEVS && w.dropped == 6 &&
	    w.dropped_interval == 6 && w.ndrop == 6 &&
	    w.drop[0].dev == DEV_MKDEV(8, WINDOWS_MAX_DEVS) && w.drop[0].requests == 1);
	{
		unsigned	 found = 0;

		for (i = 1; i < WINDOWS_MAX_DEVS; i++)
			found += windows_find(&w, DEV_MKDEV(8, i)) == w.devs[i];
		CHECK("device lookup: each of 1024 devices finds its own window",
		    found == WINDOWS_MAX_DEVS - 1 &&
		    windows_find(&w, DEV_MKDEV(8, WINDOWS_MAX_DEVS)) == NULL);
	}
	windows_interval(&w);
	CHECK("a report resets the interval's drops, not the totals",
	    w.dropped_interval == 0 && w.drop[0].interval == 0 && w.dropped == 6);
	windows_free(&w);

	/* A lower cap ($BLKTOP_MAX_DEVS): the devices past it one by one, then as "other". */
	windows_init(&w, 4, now);
	windows_limit(&w, 2, 0, 0);
	for (i = 0; i < 2 + WINDOWS_DROP_MAX + 3; i++) {
		e = ev(DEV_MKDEV(7, i), BLK_OP_WRITE, 4096, now + 10, 10, 0);
		windows_add_block(&w, &e);
		windows_add_block(&w, &e);
	}
	CHECK("cap 2: two devices kept, the rest dropped by device and as other",
	    w.ndevs == 2 && w.dropped == 2 * (WINDOWS_DROP_MAX + 3) &&
	    w.ndrop == WINDOWS_DROP_MAX && w.drop[1].dev == DEV_MKDEV(7, 3) &&
	    w.drop[1].requests == 2 && w.drop[WINDOWS_DROP_MAX].dev == 0 &&
	    w.drop[WINDOWS_DROP_MAX].requests == 6);
	windows_free(&w);

	/*
	 * Memory: a tick without requests takes no counts; a ring going round
	 * gives them back; past the pool's bound the oldest history goes, never
	 * what a report needs, and the reports' sums stay exact.
	 */
	windows_init(&w, 600, now);
	for (i = 0; i < WINDOWS_MAX_DEVS; i++) {
		e = ev(DEV_MKDEV(9, i), BLK_OP_READ, 4096, now + 10, 10, 0);
		windows_add_block(&w, &e);
	}
	for (i = 1; i <= 700; i++)
		windows_tick(&w, now + i * NSEC_PER_SEC);
	{
		size_t		 nfree = 0;
		union tick_block *blk;

		for (blk = w.free; blk != NULL; blk = blk->next)
			nfree++;
		CHECK("1024 devices, one request each, 700 idle ticks: every block back, "
		    "no more than one a device", nfree == w.nblocks &&
		    w.nblocks <= WINDOWS_MAX_DEVS + 32 && w.span == 600);
	}
	windows_free(&w);

	windows_init(&w, 600, now);
	windows_limit(&w, 0, 3, 64 * sizeof(union tick_block));
	for (i = 1; i <= 100; i++) {
		unsigned	 d;

		for (d = 0; d < 16; d++) {
			e = ev(DEV_MKDEV(9, d), BLK_OP_READ, 4096, now + i * NSEC_PER_SEC - 10, 10, 0);
			windows_add_block(&w, &e);
		}
		windows_tick(&w, now + i * NSEC_PER_SEC);
	}
	CHECK("pool of 64 blocks, 16 busy devices: 4 closed ticks of history kept, 96 given up",
	    w.nblocks == 64 && w.span == 5 && w.history_cut == 96 &&
	    windows_tick_at(&w, w.devs[0], 4) != NULL &&
	    windows_tick_at(&w, w.devs[0], 5) == NULL);
	windows_sum(&w, w.devs[15], 1, 2, &s);
	CHECK("pool at its bound: the last report's ticks are whole",
	    s.nticks == 2 && s.op[OPC_READ].ios == 2 && s.dur_ns == 2 * NSEC_PER_SEC);
	windows_free(&w);

	windows_init(&w, 600, now);
	windows_limit(&w, 0, 8, sizeof(union tick_block));
	for (i = 1; i <= 20; i++) {
		unsigned	 d;

		for (d = 0; d < 40; d++) {
			e = ev(DEV_MKDEV(9, d), BLK_OP_READ, 4096, now + i * NSEC_PER_SEC - 10, 10, 0);
			windows_add_block(&w, &e);
		}
		windows_tick(&w, now + i * NSEC_PER_SEC);
	}
	windows_sum(&w, w.devs[39], 1, 7, &s);
	CHECK("a bound too small for a report's ticks: the report's ticks are kept anyway",
	    w.span == 9 && s.nticks == 7 && s.op[OPC_READ].ios == 7 &&
	    w.nblocks <= 40 * 9 + 32);
	windows_free(&w);

	/* Exact extremes over ticks: the least and the most of the timed requests. */
	windows_init(&w, 4, now);
	e = ev(dev, BLK_OP_READ, 4096, now + 10, 7000, 0);
	windows_add_block(&w, &e);
	e = ev(dev, BLK_OP_READ, 4096, now + 20, 3000, 200);
	windows_add_block(&w, &e);
	windows_tick(&w, now + NSEC_PER_SEC);
	e = ev(dev, BLK_OP_READ, 4096, now + NSEC_PER_SEC + 10, 9000, 50);
	windows_add_block(&w, &e);
	e = ev(dev, BLK_OP_READ, 4096, now + NSEC_PER_SEC + 20, 1000, 0);
	e.flags = BLK_F_NOLAT;		/* no time: not an extreme */
	windows_add_block(&w, &e);
	windows_tick(&w, now + 2 * NSEC_PER_SEC);
	windows_sum(&w, w.devs[0], 1, 2, &s);
	CHECK("sums: exact min and max of the timed requests over ticks",
	    s.op[OPC_READ].timed == 3 && s.op[OPC_READ].lat_min == 3000 &&
	    s.op[OPC_READ].lat_max == 9000 && s.op[OPC_READ].q_min == 0 &&
	    s.op[OPC_READ].q_max == 200);
	windows_sum(&w, w.devs[0], 1, 1, &s);
	CHECK("sums: a tick's own extremes", s.op[OPC_READ].lat_min == 9000 &&
	    s.op[OPC_READ].lat_max == 9000 && s.op[OPC_READ].q_min == 50);
	windows_free(&w);
	test_depth(now, dev);
	test_depth_dispatch(now, dev);
	test_depth_sort();
	CHECK_EXIT();
}
