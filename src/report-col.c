/* report-col.c: the report's columns judged: a column's percentile, a device's median column p99, the spans over it. */

#include <stdlib.h>

#include "base.h"
#include "window.h"
#include "sinks.h"
#include "report.h"

/* A percentile of a column's device times, ns, within their extremes; 0 when it holds none. */
uint64_t
report_col_pct(const struct report_col *c, double p)
{
	uint64_t	 h[HIST_NBUCKETS], n = 0;
	unsigned	 i;

	for (i = 0; i < HIST_NBUCKETS; i++)
		n += h[i] = c->lat[i];
	return (n == 0 ? 0 : (uint64_t)hist_percentile(h, n, p, c->lat_min, c->lat_max));
}

/* Order two u64 for qsort. */
static int
report_col_cmp_u64(const void *a, const void *b)
{
	uint64_t	 x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x < y ? -1 : x > y);
}

/* The median of the p99s of a device's columns that hold enough requests to judge; 0 if none. */
uint64_t
report_col_median_p99(const struct report *r, const struct report_dev *rd)
{
	uint64_t	 v[REPORT_COLS_MAX];
	unsigned	 i, n = 0;

	for (i = 0; i < r->ncols; i++) {
		if (rd->cols[i].timed >= REPORT_ANOMALY_MIN)
			v[n++] = report_col_pct(&rd->cols[i], 99);
	}
	if (n == 0)
		return (0);
	qsort(v, n, sizeof *v, report_col_cmp_u64);
	return (n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2);
}

/*
 * The spans where p99 jumped: runs of columns holding at least
 * REPORT_ANOMALY_MIN timed requests whose p99 is over REPORT_ANOMALY_X times
 * the median column p99. Returns how many (at most max are stored).
 */
unsigned
report_col_anomalies(const struct report *r, const struct report_dev *rd,
    struct report_span *out, unsigned max)
{
	uint64_t	 med = report_col_median_p99(r, rd), p99;
	unsigned	 i, n = 0;
	int		 prev = 0;

	for (i = 0; i < r->ncols; i++) {
		p99 = rd->cols[i].timed >= REPORT_ANOMALY_MIN ?
		    report_col_pct(&rd->cols[i], 99) : 0;
		if (med == 0 || (double)p99 <= REPORT_ANOMALY_X * (double)med) {
			prev = 0;
			continue;
		}
		if (prev) {		/* the open span, stored if n <= max */
			if (n <= max) {
				out[n - 1].last = i;
				if (p99 > out[n - 1].p99)
					out[n - 1].p99 = p99;
			}
			continue;
		}
		if (n < max) {
			out[n].first = out[n].last = i;
			out[n].p99 = p99;
		}
		n++;
		prev = 1;
	}
	return (n);
}
