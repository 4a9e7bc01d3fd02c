/* sink-report-phases.c: the report's table of the phases between marks, each device's figures over each. */

#include <math.h>
#include <stdio.h>

#include "blktop.h"
#include "report.h"

/* A figure, or a dash where nothing is behind it. */
static void
report_phase_num(FILE *f, double v, int prec)
{
	if (isnan(v))
		fprintf(f, "<td>&#8211;</td>");
	else
		fprintf(f, "<td>%.*f</td>", prec, v);
}

/* "Phases": one row per phase and device, as DLIO's per-epoch table; nothing without a mark. */
void
report_html_phases(FILE *f, const struct blktop *b)
{
	const struct phase	*p;
	const struct phase_dev	*d;
	uint64_t		 first, gone, marks;
	unsigned		 i, k, n;
	char			 t0[32];

	n = b->phases != NULL ? phase_count(b->phases, 0, &first) : 0;
	if (n == 0)
		return;
	gone = phase_dropped(b->phases);
	fprintf(f, "<h2>Phases</h2>\n<p class=\"dim\">From one mark (<code>blktop --mark "
	    "LABEL</code>) to the next; a request counts in the phase its completion fell "
	    "in. Await is start to completion, in &#181;s; aqu-sz the time average of "
	    "requests in flight.%s</p>\n<table><tr><th class=\"l\">phase</th><th class=\"l\">"
	    "from</th><th>seconds</th><th class=\"l\">device</th><th>requests</th>"
	    "<th>MB/s</th><th>aqu-sz</th><th>mean</th><th>p50</th><th>p90</th><th>p99</th>"
	    "<th>max</th></tr>\n", gone ? " The oldest phases are not kept:" : "");
	if (gone)
		fprintf(f, "<tr><td class=\"l\" colspan=\"12\">%llu earlier phases not kept</td>"
		    "</tr>\n", (unsigned long long)gone);
	if ((marks = phase_marks_unlisted(b->phases, 0)) > 0)
		fprintf(f, "<tr><td class=\"l\" colspan=\"12\">%llu earlier marks not drawn on "
		    "the charts (the last %u are)</td></tr>\n", (unsigned long long)marks, MARK_RING);
	for (i = 0; i < n; i++) {
		p = phase_get(b->phases, first + i);
		for (k = 0; k == 0 || k < p->ndevs; k++) {
			fprintf(f, "<tr><td class=\"l\">");
			html_text(f, p->has_label ? p->label : "(before the first mark)");
			fprintf(f, "</td><td class=\"l\">%s</td><td>%.3f</td>",
			    html_time(b, p->start, 0, t0, sizeof t0),
			    (double)(p->end - p->start) / 1e9);
			if (p->ndevs == 0) {
				fprintf(f, "<td class=\"l\" colspan=\"9\">no requests</td></tr>\n");
				break;
			}
			d = &p->devs[k];
			fprintf(f, "<td class=\"l\">");
			html_text(f, device_name(d->dev));
			fprintf(f, "</td><td>%llu</td>", (unsigned long long)d->ios);
			report_phase_num(f, d->mb_s, 2);
			report_phase_num(f, d->aqu, 2);
			report_phase_num(f, d->mean_us, 1);
			report_phase_num(f, d->p50_us, 1);
			report_phase_num(f, d->p90_us, 1);
			report_phase_num(f, d->p99_us, 1);
			report_phase_num(f, d->max_us, 1);
			fprintf(f, "</tr>\n");
		}
	}
	fprintf(f, "</table>\n");
}
