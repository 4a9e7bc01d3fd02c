/* hist.c: log-linear latency buckets, request-size buckets and percentiles. */

#include "base.h"

__thread uint64_t	hist_memo_ns;	/* 0: none (below 1 us, never kept) */
__thread unsigned	hist_memo_b;

/* Lowest latency (ns) that falls in bucket i. */
uint64_t
hist_bucket_lo(unsigned i)
{
	unsigned	 k, sub;
	uint64_t	 lo;

	if (i == 0)
		return (0);
	if (i >= HIST_NBUCKETS - 1)
		return (NSEC_PER_USEC << HIST_POWERS);
	k = (i - 1) / HIST_SUB;
	sub = (i - 1) % HIST_SUB;
	lo = NSEC_PER_USEC << k;
	return (lo + ((lo * sub) >> HIST_SUB_BITS));
}

/* First latency (ns) above bucket i; the last bucket is open and reported as 2x its start. */
uint64_t
hist_bucket_hi(unsigned i)
{
	if (i >= HIST_NBUCKETS - 1)
		return (NSEC_PER_USEC << (HIST_POWERS + 1));
	return (hist_bucket_lo(i + 1));
}

/*
 * The p-th percentile (0..100) in ns of a histogram with n samples whose
 * exact extremes are min and max, with linear interpolation inside the
 * bucket it falls in. The bucket's edges are narrowed to [min, max] first:
 * a percentile never leaves the values seen (HdrHistogram clamps to its max
 * likewise), and a bucket of equal values (every sample 0 in bucket 0, one
 * request alone) gives that value, not a point inside the bucket. Callers
 * that track no extreme pass 0 and UINT64_MAX. 0 when empty.
 */
double
hist_percentile(const uint64_t *b, uint64_t n, double p, uint64_t min,
    uint64_t max)
{
	double		 rank, lo, hi, v;
	uint64_t	 seen = 0;
	unsigned	 i;

	for (i = 0; i < HIST_NBUCKETS; i++)
		seen += b[i];
	if (seen < n)
		n = seen;	/* requests without a latency (BLK_F_NOLAT) are not in it */
	seen = 0;
	if (n == 0)
		return (0);
	if (min > max)
		min = max;	/* no sane pair: max is what a view prints beside it */
	if (p < 0)
		p = 0;
	if (p > 100)
		p = 100;
	rank = p / 100.0 * (double)n;
	if (rank < 1)
		rank = 1;
	v = (double)hist_bucket_hi(HIST_NBUCKETS - 1);
	for (i = 0; i < HIST_NBUCKETS; i++) {
		if (b[i] == 0)
			continue;
		if ((double)(seen + b[i]) >= rank) {
			lo = (double)(hist_bucket_lo(i) > min ? hist_bucket_lo(i) : min);
			hi = (double)(hist_bucket_hi(i) < max ? hist_bucket_hi(i) : max);
			if (hi < lo)
				hi = lo;
			v = lo + (hi - lo) * (rank - (double)seen) / (double)b[i];
			break;
		}
		seen += b[i];
	}
	/* Extremes that disagree with the buckets (a caller's bug) still bound it. */
	if (v > (double)max)
		v = (double)max;
	if (v < (double)min)
		v = (double)min;
	return (v);
}

/* Bucket of a request size: 0 below 512 bytes, then one per power of two. */
unsigned
hist_size_bucket(uint64_t bytes)
{
	unsigned	 k;

	if (bytes < 512)
		return (0);
	k = 63 - __builtin_clzll(bytes >> 9);
	if (k + 1 >= SIZE_NBUCKETS)
		return (SIZE_NBUCKETS - 1);
	return (k + 1);
}

/* Lowest size in bytes of size bucket i. */
uint64_t
hist_size_bucket_lo(unsigned i)
{
	if (i == 0)
		return (0);
	return (512ULL << (i - 1));
}
