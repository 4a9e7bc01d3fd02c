/* bench-window.c: aggregation throughput: synthetic block events through the windows, on one core. */

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "blktop.h"

static struct blktop bt;

/* CPU seconds used by this thread. */
static double
cpu_now(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ((double)ts.tv_sec + (double)ts.tv_nsec / 1e9);
}

/* Compare doubles for qsort. */
static int
cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x < y ? -1 : x > y);
}

int
main(int argc, char **argv)
{
	size_t		 n = 1 << 20, i;
	unsigned	 rounds = argc > 1 ? (unsigned)atoi(argv[1]) : 9, r, k;
	struct ev_block	*evs = xcalloc(n, sizeof *evs);
	double		 rate[64], t0, t1;
	uint64_t	 s = 88172645463325252ULL, ts = NSEC_PER_SEC;

	if (rounds == 0 || rounds > 64)
		rounds = 9;
	/* Four devices, mixed ops, latencies spread over 1us..100ms. */
	for (i = 0; i < n; i++) {
		s ^= s << 13; s ^= s >> 7; s ^= s << 17;
		ts += 1000 + s % 4000;
		evs[i].type = EV_BLOCK;
		evs[i].dev = DEV_MKDEV(7, s % 4);
		evs[i].op = (uint16_t)(s % 10 < 6 ? BLK_OP_READ : s % 10 < 9 ? BLK_OP_WRITE : BLK_OP_FLUSH);
		evs[i].bytes = 512u << (s % 9);
		evs[i].ts_done = ts;
		evs[i].ts_issue = ts - (1000 + (s >> 20) % 100000000 / (1 + s % 1000));
		evs[i].ts_start = evs[i].ts_issue - (s >> 40) % 50000;
		evs[i].busy_ns = ts / 2;
		evs[i].inflight = (uint32_t)(1 + s % 32);
	}
	bt.nticks = 600;
	bt.tick_ns = NSEC_PER_SEC;
	bt.ticks_per_report = 1;
	stream_add_sink(&bt, &sink_model, NULL);	/* the windows alone, as the live run's model */
	stream_begin(&bt, 0);
	for (r = 0; r < rounds; r++) {
		t0 = cpu_now();
		for (k = 0; k < 10; k++) {
			for (i = 0; i < n; i++) {
				stream_event(&bt, &evs[i], sizeof evs[i]);
				if ((i & 0x3ffff) == 0)
					windows_tick(&bt.win, evs[i].ts_done);
			}
		}
		t1 = cpu_now();
		rate[r] = 10.0 * (double)n / (t1 - t0);
	}
	qsort(rate, rounds, sizeof rate[0], cmp_d);
	printf("aggregation: %.1f million events/s on one core (median of %u rounds of %zu events; min %.1f max %.1f)\n",
	    rate[rounds / 2] / 1e6, rounds, 10 * n, rate[0] / 1e6, rate[rounds - 1] / 1e6);
	windows_free(&bt.win);
	free(evs);
	return (0);
}
