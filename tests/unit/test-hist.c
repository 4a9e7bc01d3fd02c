/* test-hist.c: bucket edges and percentile error of the log-linear histogram. */

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "blktop.h"
#include "check.h"
#include "../common/rand.h"

/* Compare two uint64_t for qsort. */
static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x < y ? -1 : x > y);
}

/* Deterministic 64-bit generator (splitmix64). */
static uint64_t
rnd(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return (z ^ (z >> 31));
}

/* The bucket by the definition: (ns - lo) * HIST_SUB / lo, with a division. */
static unsigned
bucket_by_division(uint64_t ns)
{
	uint64_t	 lo;
	unsigned	 k;

	if (ns < NSEC_PER_USEC)
		return (0);
	k = 63 - __builtin_clzll(ns / NSEC_PER_USEC);
	if (k >= HIST_POWERS)
		return (HIST_NBUCKETS - 1);
	lo = NSEC_PER_USEC << k;
	return (1 + k * HIST_SUB + (unsigned)(((ns - lo) << HIST_SUB_BITS) / lo));
}

int
main(void)
{
	unsigned	 i, bad = 0, p, seed;
	static uint64_t	 samples[200000], h[HIST_NBUCKETS];
	const double	 pcts[] = { 1, 10, 50, 90, 99, 99.9 };
	char		 name[128];

	CHECK("below 1us is bucket 0", hist_bucket(0) == 0 && hist_bucket(999) == 0);
	CHECK("1us opens bucket 1", hist_bucket(1000) == 1 && hist_bucket_lo(1) == 1000);
	for (i = 1; i < HIST_NBUCKETS - 1; i++) {
		if (hist_bucket(hist_bucket_lo(i)) != i ||
		    hist_bucket(hist_bucket_hi(i) - 1) != i ||
		    hist_bucket_hi(i) <= hist_bucket_lo(i))
			bad++;
	}
	CHECK("every bucket holds exactly [lo, hi)", bad == 0);
	/* The memo (the last latency placed) answers only for that latency: each twice, then the one before. */
	for (i = 1, bad = 0; i < HIST_NBUCKETS - 2; i++) {
		if (hist_bucket(hist_bucket_lo(i)) != i || hist_bucket(hist_bucket_lo(i)) != i ||
		    hist_bucket(hist_bucket_lo(i + 1)) != i + 1 || hist_bucket(hist_bucket_lo(i)) != i ||
		    hist_bucket(hist_bucket_lo(i) / 2) == i || hist_bucket(hist_bucket_hi(i)) != i + 1)
			bad++;
	}
	CHECK("the same latency again, and another between, each in its own bucket", bad == 0);
	CHECK("sub-buckets per power of two >= 4", HIST_SUB >= 4);
	CHECK("2us splits into HIST_SUB buckets",
	    hist_bucket(2000) == 1 + HIST_SUB && hist_bucket(2000 + 2000 / HIST_SUB) == 2 + HIST_SUB);
	CHECK("range reaches 100 s", hist_bucket(100 * NSEC_PER_SEC) < HIST_NBUCKETS - 1);
	CHECK("overflow bucket", hist_bucket(UINT64_MAX) == HIST_NBUCKETS - 1 &&
	    hist_bucket(1000ULL << HIST_POWERS) == HIST_NBUCKETS - 1);
	CHECK("sizes: 4096 bytes", hist_size_bucket(4096) == 4 && hist_size_bucket_lo(4) == 4096);
	CHECK("sizes: below 512 and huge", hist_size_bucket(1) == 0 &&
	    hist_size_bucket(UINT64_MAX) == SIZE_NBUCKETS - 1);
	CHECK("empty histogram percentile is 0", hist_percentile(h, 0, 50, 0, UINT64_MAX) == 0);

	/*
	 * Within the exact extremes (seen live: write p99 10106.9 us beside max
	 * 9580.4; q_us p50 0.5 beside max 0.0). The unbounded answer for these
	 * is a point inside the bucket, past the values it holds.
	 */
	memset(h, 0, sizeof h);
	h[0] = 5;			/* five queue times of 0 ns */
	CHECK("every sample 0 in bucket 0: p50 and p99 are 0, not the bucket's middle",
	    hist_percentile(h, 5, 50, 0, 0) == 0 && hist_percentile(h, 5, 99, 0, 0) == 0);
	CHECK("...and unbounded they would be 500 ns and up (what the fix changes)",
	    hist_percentile(h, 5, 50, 0, UINT64_MAX) >= 500);
	memset(h, 0, sizeof h);
	h[hist_bucket(9580400)] = 1;	/* one request of 9580.4 us */
	CHECK("one request: every percentile is its time",
	    hist_percentile(h, 1, 50, 9580400, 9580400) == 9580400 &&
	    hist_percentile(h, 1, 99, 9580400, 9580400) == 9580400 &&
	    hist_percentile(h, 1, 0, 9580400, 9580400) == 9580400);
	memset(h, 0, sizeof h);
	for (i = 0; i < 99; i++)
		h[hist_bucket(1000 + i)]++;	/* 1.000 .. 1.098 us */
	h[hist_bucket(9580400)]++;
	{
		double	 p99 = hist_percentile(h, 100, 99, 1000, 9580400);
		double	 p999 = hist_percentile(h, 100, 99.9, 1000, 9580400);
		double	 p1 = hist_percentile(h, 100, 1, 1000, 9580400);

		CHECK("p99 and p99.9 never above the max, p100 is the max",
		    p99 <= 9580400 && p999 <= 9580400 &&
		    hist_percentile(h, 100, 100, 1000, 9580400) == 9580400);
		CHECK("p1 never below the min", p1 >= 1000 && p1 <= 1098);
		CHECK("percentiles stay in order", p1 <= hist_percentile(h, 100, 50, 1000, 9580400) &&
		    hist_percentile(h, 100, 50, 1000, 9580400) <= p99 && p99 <= p999);
	}
	memset(h, 0, sizeof h);
	h[hist_bucket(5000)] = 10;
	CHECK("extremes that disagree with the buckets still bound the answer",
	    hist_percentile(h, 10, 99, 0, 4000) == 4000 &&
	    hist_percentile(h, 10, 1, 7000, 8000) == 7000);

	/* Percentiles of random log-uniform samples against the exact ones. */
	for (seed = 1; seed <= 5; seed++) {
		uint64_t s = seed, n = sizeof samples / sizeof samples[0];

		memset(h, 0, sizeof h);
		for (i = 0; i < n; i++) {
			double e = (double)(rnd(&s) >> 11) / 9007199254740992.0;
			samples[i] = (uint64_t)(1000.0 * pow(1e7, e));	/* 1us .. 10s */
			h[hist_bucket(samples[i])]++;
		}
		qsort(samples, n, sizeof samples[0], cmp_u64);
		for (p = 0; p < sizeof pcts / sizeof pcts[0]; p++) {
			uint64_t exact = samples[(size_t)ceil(pcts[p] / 100 * n) - 1];
			unsigned b = hist_bucket(exact);
			double est = hist_percentile(h, n, pcts[p], samples[0], samples[n - 1]);
			double width = (double)(hist_bucket_hi(b) - hist_bucket_lo(b));

			snprintf(name, sizeof name, "seed %u p%g within one sub-bucket "
			    "(exact %llu est %.0f width %.0f)", seed, pcts[p],
			    (unsigned long long)exact, est, width);
			CHECK(name, fabs(est - (double)exact) <= width);
		}
	}
	{
		uint64_t	 x = 88172645463325252ULL, ns, lo, nbad = 0;
		unsigned	 n, b;

		for (n = 0; n < 2000000; n++) {
			xorshift64(&x);
			ns = x >> (x % 64);
			nbad += hist_bucket(ns) != bucket_by_division(ns);
		}
		for (b = 0; b < HIST_NBUCKETS; b++) {
			lo = hist_bucket_lo(b);
			for (ns = lo > 2 ? lo - 2 : 0; ns < lo + 2; ns++)
				nbad += hist_bucket(ns) != bucket_by_division(ns);
		}
		CHECK("hist_bucket without a division: the same bucket for 2 M values and every edge",
		    nbad == 0);
	}
	CHECK_EXIT();
}
