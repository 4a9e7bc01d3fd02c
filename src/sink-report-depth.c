/* sink-report-depth.c: the report's queue depth table: the depths the run's requests found, and what each cost. */

#include <stdio.h>

#include "blktop.h"
#include "model-qdepth.h"
#include "report.h"

/* A latency of n in a histogram, us: its percentile p. */
static double
html_depth_pct(const struct qd_lat *l, double p)
{
	return (hist_percentile(l->hist, l->n, p, l->min, l->max) / 1e3);
}

/*
 * Per device whose depths come from its requests' times, per depth bucket
 * (fio's): the requests that found it at their start and at their dispatch,
 * and the total latency (start to done) and share of the bytes of those
 * that found it at their start, the run's (as the report's JSON "qd").
 */
void
report_depth_html(struct html *h)
{
	const struct report	*r = h->r;
	const struct qd_acc	*a;
	const struct qd_lat	*l;
	FILE			*f = h->f;
	uint64_t		 bytes, max;
	unsigned		 d, k, head = 0;

	for (d = 0; d < r->ndevs; d++) {
		a = depth_acc(windows_get(&h->b->win, r->devs[d]->dev), 1);
		if (a == NULL)
			continue;
		for (bytes = 0, max = 1, k = 0; k < QD_NBUCKETS; k++) {
			if ((l = a->lat[k]) == NULL)
				continue;
			bytes += l->bytes;
			if (l->n > max)
				max = l->n;
		}
		if (!head++)
			fprintf(f, "<h2>Queue depth</h2>\n<p class=\"dim\">The depth each request "
			    "found: 1 + the requests of its device started (dispatched) and not "
			    "completed at its start (dispatch), from the requests' own times, in "
			    "fio's buckets; and the total latency (start to done) and share of the "
			    "bytes of the requests by the depth they found at their start: where "
			    "more depth stops buying bandwidth, latency grows and the share does "
			    "not.</p>\n");
		fprintf(f, "<h3>");
		html_text(f, device_name(r->devs[d]->dev));
		fprintf(f, "</h3>\n<table><tr><th class=\"l\">depth</th><th>at start</th>"
		    "<th>at dispatch</th><th>await us</th><th>p50 us</th><th>p99 us</th>"
		    "<th>bytes</th><th class=\"l\"></th></tr>\n");
		for (k = 0; k < QD_NBUCKETS; k++) {
			l = a->lat[k] != NULL && a->lat[k]->n != 0 ? a->lat[k] : NULL;
			if (l == NULL && a->disp[k] == 0)
				continue;
			if (k == 0)
				fprintf(f, "<tr><td class=\"l\">1</td>");
			else if (k == QD_NBUCKETS - 1)
				fprintf(f, "<tr><td class=\"l\">%llu+</td>", 1ULL << k);
			else
				fprintf(f, "<tr><td class=\"l\">%llu-%llu</td>", 1ULL << k,
				    (2ULL << k) - 1);
			fprintf(f, "<td>%llu</td><td>%llu</td>", l ? (unsigned long long)l->n : 0ULL,
			    (unsigned long long)a->disp[k]);
			if (l != NULL)
				fprintf(f, "<td>%.1f</td><td>%.1f</td><td>%.1f</td><td>%.1f%%</td>",
				    (double)l->sum / (double)l->n / 1e3, html_depth_pct(l, 50),
				    html_depth_pct(l, 99), bytes ? 100.0 * (double)l->bytes /
				    (double)bytes : 0);
			else
				fprintf(f, "<td>-</td><td>-</td><td>-</td><td>-</td>");
			fprintf(f, "<td class=\"l\"><svg class=\"bar\" xmlns=\"http://www.w3.org/2000/"
			    "svg\" width=\"200\" height=\"12\"><rect width=\"%u\" height=\"12\" "
			    "fill=\"%s\"/></svg></td></tr>\n",
			    l ? (unsigned)(200.0 * (double)l->n / (double)max) : 0, h->fg);
		}
		fprintf(f, "</table>\n");
	}
}
