/* sink-report-html.c: the report as one self-contained HTML page: inline CSS and SVG, no script, no link out. */

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#include "blktop.h"
#include "insight.h"
#include "host.h"
#include "report.h"
#include "field-dev.h"
#include "json-wear.h"

/* Seconds a column covers, never zero. */
static double
html_col_secs(const struct report *r, unsigned i)
{
	uint64_t	 d = r->col_end[i] - r->col_start[i];

	return (d > 0 ? (double)d / 1e9 : 1e-9);
}

/* The page's head and style: colours from the theme the UI uses. */
static void
html_head(struct html *h)
{
	FILE	*f = h->f;
	char	 title[8], hi[8];

	html_colour(h->r, THEME_TITLE, "#eeeeee", title);
	html_colour(h->r, THEME_HI_FG, "#5fafff", hi);
	fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	    "<meta name=\"viewport\" content=\"width=device-width\">\n"
	    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	    "style-src 'unsafe-inline'\">\n<title>blktop report: ");
	html_text(f, h->b->opt.replay_path != NULL ? h->b->opt.replay_path : "live");
	fprintf(f, "</title>\n<style>\n"
	    "body{background:%s;color:%s;font:13px/1.45 ui-monospace,monospace;margin:16px 24px}\n"
	    "h1,h2,h3{color:%s;font-weight:600}h1{font-size:20px}h2{font-size:16px;"
	    "border-bottom:1px solid %s;padding-bottom:2px;margin-top:28px}h3{font-size:13px}\n"
	    "table{border-collapse:collapse;margin:6px 0}td,th{padding:2px 8px;"
	    "text-align:right;white-space:nowrap}th{color:%s;border-bottom:1px solid %s}\n"
	    "a{color:%s}td.l,th.l{text-align:left}tr:nth-child(even) td{background:rgba(255,255,255,.04)}\n"
	    "svg{display:block;margin:4px 0 10px}svg text{fill:%s;font:10px ui-monospace,monospace}\n"
	    ".k{display:inline-block;width:10px;height:10px;margin:0 4px 0 12px}\n"
	    ".dim{color:%s}.path{max-width:520px;overflow:hidden;text-overflow:ellipsis}\n"
	    "</style></head><body>\n", h->bg, h->fg, title, h->grid, hi, h->grid, hi, h->dim,
	    h->dim);
}

/* What the page covers: source, times, plan, events and losses. */
static void
html_intro(struct html *h)
{
	const struct blktop	*b = h->b;
	const struct report	*r = h->r;
	FILE			*f = h->f;
	struct utsname		 u;
	char			 t0[64], t1[64];

	fprintf(f, "<h1>blktop report</h1>\n<table>\n<tr><th class=\"l\">source</th>"
	    "<td class=\"l\">");
	if (b->opt.replay_path != NULL)
		html_text(f, b->opt.replay_path);
	else if (uname(&u) == 0) {
		fputs("live on ", f);
		html_text(f, u.nodename);
		fputs(", kernel ", f);
		html_text(f, u.release);
	} else
		fputs("live", f);
	fprintf(f, "</td></tr>\n<tr><th class=\"l\">from</th><td class=\"l\">%s</td></tr>\n"
	    "<tr><th class=\"l\">to</th><td class=\"l\">%s</td></tr>\n"
	    "<tr><th class=\"l\">duration</th><td class=\"l\">%.1f s: %llu ticks, %u columns "
	    "of %u tick%s</td></tr>\n<tr><th class=\"l\">hooks</th><td class=\"l\">",
	    html_time(b, r->first_ts, 1, t0, sizeof t0),
	    html_time(b, r->last_ts, 1, t1, sizeof t1),
	    (double)(r->last_ts - r->first_ts) / 1e9, (unsigned long long)r->ticks,
	    r->ncols, r->ticks_per_col, r->ticks_per_col == 1 ? "" : "s");
	html_text(f, b->plan_text[0] != '\0' ? b->plan_text : "-");
	fprintf(f, "</td></tr>\n<tr><th class=\"l\">events</th><td class=\"l\">%llu, "
	    "%llu lost</td></tr>\n", (unsigned long long)b->events,
	    (unsigned long long)b->lost);
	{
		char	 cut[1024];

		if (report_dropped_text(b, r, cut, sizeof cut) > 0) {
			fputs("<tr><th class=\"l\">dropped</th><td class=\"l\">", f);
			html_text(f, cut);
			fputs("</td></tr>\n", f);
		}
	}
	fputs("</table>\n", f);
}

/*
 * The summary's columns (dev_fields' rows: their .html titles): the run's
 * requests, bytes and rates, the device times of every class, its depth,
 * util, errors and the sequential share of its requests.
 */
static const struct dev_colref html_dev_cols[] = {
	{ DEVF_NAME, 0 }, { DEVF_IOS, OPC_READ }, { DEVF_IOS, OPC_WRITE }, { DEVF_IOS, OPC_OTHER },
	{ DEVF_BYTES, OPC_READ }, { DEVF_BYTES, OPC_WRITE }, { DEVF_IOPS, OPC_READ },
	{ DEVF_IOPS, OPC_WRITE }, { DEVF_BYTES_S, DEVF_RW }, { DEVF_P50, DEVF_ALL },
	{ DEVF_P99, DEVF_ALL }, { DEVF_P999, DEVF_ALL }, { DEVF_LAT_MAX, DEVF_ALL },
	{ DEVF_QD_MAX, 0 }, { DEVF_QD_MAX_AT, 0 }, { DEVF_QD_AVG, 0 }, { DEVF_UTIL, 0 },
	{ DEVF_ERRORS, DEVF_ALL }, { DEVF_SEQ, 0 },
};

/* One cell of a device's row: times as "1.2ms", bytes as "1.2 MB", "-" where nothing is behind it. */
static void
html_dev_cell(struct html *h, const struct report_dev *rd, const struct dev_ctx *x,
    const struct dev_colref *c)
{
	const struct dev_field_row	*r = &dev_fields[c->field];
	FILE				*f = h->f;
	char				 buf[64], name[DEVNAME_MAX + HOST_NAME_MAX_LEN];
	double				 v;
	int				 known;

	v = dev_field_value(x, c, &known);
	if (r->html.scale != 0)
		v /= r->html.scale;
	if (dev_col_width(&r->html, c->op) < 0)
		fputs("<td class=\"l\">", f);
	else
		fputs("<td>", f);
	switch (r->unit) {
	case DEVU_TEXT:
		fprintf(f, "<a href=\"#dev-%u-%u\">", DEV_MAJOR(x->dev), DEV_MINOR(x->dev));
		html_text(f, report_dev_name(x->dev, name, sizeof name));
		fputs("</a>", f);
		break;
	case DEVU_BYTES:
		fprintf(f, "%sB", html_trim(draw_fmt_bytes(buf, sizeof buf,
		    dev_field_count(x, c))));
		break;
	case DEVU_COUNT:
		fprintf(f, "%llu", (unsigned long long)dev_field_count(x, c));
		break;
	case DEVU_NS:
		fputs(known ? html_trim(draw_fmt_lat(buf, sizeof buf, (uint64_t)v)) : "-", f);
		break;
	case DEVU_WALL:		/* the time of the run's own peak */
		fputs(known ? html_time(h->b, rd->qd_peak_ts, 0, buf, sizeof buf) : "-", f);
		break;
	case DEVU_PCT:
	case DEVU_MEAN:
		if (!known) {
			fputs("-", f);
			break;
		}
		/* FALLTHROUGH */
	default:
		fprintf(f, "%.*f", r->html.prec, v);
		break;
	}
	fputs("</td>", f);
}

/* One row of the summary table: a device's whole run. */
static void
html_summary_row(struct html *h, const struct report_dev *rd)
{
	static struct dev_ctx	 x;	/* large: keep it off the stack */
	unsigned		 k;

	dev_ctx_init(&x, rd->dev, &rd->tot, windows_get(&h->b->win, rd->dev));
	x.qd_max = rd->qd_peak;
	x.run = 1;
	fputs("<tr>", h->f);
	for (k = 0; k < nitems(html_dev_cols); k++)
		html_dev_cell(h, rd, &x, &html_dev_cols[k]);
	fputs("</tr>\n", h->f);
}

/* The summary: a row per device, then the spans where p99 jumped and the rule that found them. */
static void
html_summary(struct html *h)
{
	const struct report	*r = h->r;
	const struct dev_col	*col;
	struct report_span	 sp[16];
	FILE			*f = h->f;
	char			 t0[32], t1[32], a[16], c[16], name[DEVNAME_MAX + HOST_NAME_MAX_LEN];
	unsigned		 d, i, n, any = 0;

	fputs("<h2>Summary</h2>\n<table><tr>", f);
	for (d = 0; d < nitems(html_dev_cols); d++) {
		col = &dev_fields[html_dev_cols[d].field].html;
		fprintf(f, "<th%s>%s</th>", dev_col_width(col, html_dev_cols[d].op) < 0 ?
		    " class=\"l\"" : "", dev_col_title(col, html_dev_cols[d].op));
	}
	fputs("</tr>\n", f);
	for (d = 0; d < r->ndevs; d++)
		html_summary_row(h, r->devs[d]);
	fprintf(f, "</table>\n<p class=\"dim\">Latency is device time, issue to completion, "
	    "of every operation; avg qd is iostat's aqu-sz; util is the time with a request "
	    "in flight; seq is the share of its read and write requests that started at or "
	    "after the previous one's end, in the order they started.</p>\n<h2>Where p99 jumped</h2>\n<p class=\"dim\">Rule: a column with "
	    "at least %d timed requests whose p99 is over %.0f&#215; the median p99 of the "
	    "device's columns; adjacent columns form one span. Spans are outlined on the "
	    "heatmaps.</p>\n", REPORT_ANOMALY_MIN, REPORT_ANOMALY_X);
	for (d = 0; d < r->ndevs; d++) {
		n = report_col_anomalies(r, r->devs[d], sp, nitems(sp));
		for (i = 0; i < n && i < nitems(sp); i++) {
			if (!any++)
				fprintf(f, "<table><tr><th class=\"l\">device</th><th class=\"l\">"
				    "from</th><th class=\"l\">to</th><th>p99</th><th>median p99"
				    "</th></tr>\n");
			fprintf(f, "<tr><td class=\"l\">");
			html_text(f, report_dev_name(r->devs[d]->dev, name, sizeof name));
			fprintf(f, "</td><td class=\"l\">%s</td><td class=\"l\">%s</td><td>%s</td>"
			    "<td>%s</td></tr>\n",
			    html_time(h->b, r->col_start[sp[i].first], 0, t0, sizeof t0),
			    html_time(h->b, r->col_end[sp[i].last], 0, t1, sizeof t1),
			    html_trim(draw_fmt_lat(a, sizeof a, sp[i].p99)),
			    html_trim(draw_fmt_lat(c, sizeof c, report_col_median_p99(r, r->devs[d]))));
		}
		if (n > nitems(sp))
			fprintf(f, "<tr><td class=\"l\" colspan=\"5\">... %u more spans</td></tr>\n",
			    n - (unsigned)nitems(sp));
	}
	fprintf(f, any ? "</table>\n" : "<p>None.</p>\n");
}

/* Time labels under a plot of height y0, about every 120 pixels. */
static void
html_time_axis(struct html *h, unsigned y0)
{
	unsigned	 i, step = 120 / h->cw > 0 ? 120 / h->cw : 1;
	char		 t[32];

	for (i = 0; i < h->r->ncols; i += step)
		fprintf(h->f, "<text x=\"%u\" y=\"%u\">%s</text>", HTML_LEFT + i * h->cw,
		    y0 + 13, html_time(h->b, h->r->col_start[i], 0, t, sizeof t));
}

/* The marks (blktop --mark) as dashed lines down a plot of height ph, at their times, named. */
static void
html_marks(struct html *h, unsigned ph)
{
	const struct report	*r = h->r;
	const struct mark	*m;
	uint64_t		 first, d;
	unsigned		 i, k, n, x;
	char			 col[8];

	n = h->b->phases != NULL ? phase_marks(h->b->phases, 0, &first) : 0;
	html_colour(r, THEME_TITLE, "#eeeeee", col);
	for (k = 0; k < n; k++) {
		m = phase_mark(h->b->phases, first + k);
		for (i = 0; i < r->ncols && !(m->ts >= r->col_start[i] && m->ts < r->col_end[i]); i++)
			;
		if (i == r->ncols)
			continue;
		d = r->col_end[i] - r->col_start[i];
		x = HTML_LEFT + i * h->cw + (d > 0 ? (unsigned)((m->ts - r->col_start[i]) *
		    h->cw / d) : 0);
		fprintf(h->f, "<g class=\"mark\"><title>");
		html_text(h->f, m->label);
		fprintf(h->f, "</title><line x1=\"%u\" x2=\"%u\" y1=\"0\" y2=\"%u\" stroke=\"%s\" "
		    "stroke-width=\"1\" stroke-dasharray=\"2 2\"/></g>", x, x, ph, col);
	}
}

/* Height in a heatmap of a latency: log scale, 1 us at the bottom, 10 s at the top. */
static double
html_lat_y(uint64_t ns)
{
	double	 ph = HTML_NSUB * HTML_ROW_H, pos;

	pos = ns <= DRAW_HEAT_LO_NS ? 0 :
	    log10((double)ns / (double)DRAW_HEAT_LO_NS) / DRAW_HEAT_DECADES;
	if (pos > 1)
		pos = 1;
	return (ph * (1 - pos));
}

/* A line over the columns through the points where a percentile is known (gaps where not). */
static void
html_lat_line(struct html *h, const struct report_dev *rd, double p, const char *colour,
    const char *dash)
{
	unsigned	 i;
	int		 pen = 0;
	uint64_t	 v;

	fprintf(h->f, "<path fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\"%s d=\"", colour,
	    dash);
	for (i = 0; i < h->r->ncols; i++) {
		if (rd->cols[i].timed == 0) {
			pen = 0;
			continue;
		}
		v = p > 100 ? rd->cols[i].lat_max : report_col_pct(&rd->cols[i], p);
		fprintf(h->f, "%c%.1f %.1f", pen ? 'L' : 'M',
		    HTML_LEFT + (i + 0.5) * h->cw, html_lat_y(v));
		pen = 1;
	}
	fprintf(h->f, "\"/>");
}

/*
 * A device's latency heatmap: one <g class="col"> a column (its title the
 * column's figures), the UI's rows and heat palette, p50/p99/max lines and
 * the anomalous spans outlined.
 */
static void
html_heatmap(struct html *h, const struct report_dev *rd)
{
	static const char	*labels[DRAW_HEAT_DECADES + 1] = {
		"1us", "10us", "100us", "1ms", "10ms", "100ms", "1s", "10s"
	};
	const struct report	*r = h->r;
	FILE			*f = h->f;
	uint64_t		 hist[HIST_NBUCKETS], cells[HTML_NSUB], max = 0;
	struct report_span	 sp[64];
	unsigned		 i, k, n, ph = HTML_NSUB * HTML_ROW_H, level;
	char			 col[8], lo[8], hi8[8], t[32], a[16], c[16], d[16];

	for (i = 0; i < r->ncols; i++) {
		for (k = 0; k < HIST_NBUCKETS; k++)
			hist[k] = rd->cols[i].lat[k];
		draw_heat_column(hist, HTML_NSUB, cells);
		for (k = 0; k < HTML_NSUB; k++)
			if (cells[k] > max)
				max = cells[k];
	}
	fprintf(f, "<svg class=\"heatmap\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" "
	    "height=\"%u\" data-columns=\"%u\"><rect x=\"%u\" y=\"0\" width=\"%u\" height=\"%u\" "
	    "fill=\"%s\"/>", HTML_LEFT + h->pw + 60, ph + HTML_BOTTOM, r->ncols, HTML_LEFT,
	    h->pw, ph, h->bg);
	for (k = 0; k < nitems(labels); k++)
		fprintf(f, "<text x=\"2\" y=\"%u\">%s</text><line x1=\"%u\" x2=\"%u\" "
		    "y1=\"%u\" y2=\"%u\" stroke=\"%s\" stroke-width=\"0.5\"/>",
		    k == DRAW_HEAT_DECADES ? 9 : ph - k * ph / DRAW_HEAT_DECADES + 3, labels[k],
		    HTML_LEFT - 4, HTML_LEFT, ph - k * ph / DRAW_HEAT_DECADES,
		    ph - k * ph / DRAW_HEAT_DECADES, h->grid);
	for (i = 0; i < r->ncols; i++) {
		const struct report_col *cl = &rd->cols[i];

		fprintf(f, "\n<g class=\"col\"><title>%s: %llu requests, %.0f/s",
		    html_time(h->b, r->col_start[i], 0, t, sizeof t),
		    (unsigned long long)(cl->ios[0] + cl->ios[1] + cl->ios[2]),
		    (double)(cl->ios[0] + cl->ios[1] + cl->ios[2]) / html_col_secs(r, i));
		if (cl->timed > 0)
			fprintf(f, ", p50 %s p99 %s max %s",
			    html_trim(draw_fmt_lat(a, sizeof a, report_col_pct(cl, 50))),
			    html_trim(draw_fmt_lat(c, sizeof c, report_col_pct(cl, 99))),
			    html_trim(draw_fmt_lat(d, sizeof d, cl->lat_max)));
		fprintf(f, "</title>");
		for (k = 0; k < HIST_NBUCKETS; k++)
			hist[k] = cl->lat[k];
		draw_heat_column(hist, HTML_NSUB, cells);
		for (k = 0; k < HTML_NSUB; k++) {
			if (cells[k] == 0)
				continue;
			level = draw_heat_level(cells[k], max);
			html_colour(r, THEME_HEAT_0 + level, "#ffe66d", col);
			fprintf(f, "<rect x=\"%u\" y=\"%u\" width=\"%u\" height=\"%u\" fill=\"%s\"/>",
			    HTML_LEFT + i * h->cw, ph - (k + 1) * HTML_ROW_H, h->cw, HTML_ROW_H, col);
		}
		fprintf(f, "</g>");
	}
	fputc('\n', f);
	html_colour(r, THEME_MAIN_FG, "#cccccc", lo);
	html_colour(r, THEME_HI_FG, "#5fafff", hi8);
	html_colour(r, THEME_LOST, "#ff5f5f", col);
	html_lat_line(h, rd, 50, lo, "");
	html_lat_line(h, rd, 99, hi8, "");
	html_lat_line(h, rd, 101, col, " stroke-dasharray=\"3 2\"");
	n = report_col_anomalies(r, rd, sp, nitems(sp));
	for (i = 0; i < n && i < nitems(sp); i++)
		fprintf(f, "<rect class=\"anomaly\" x=\"%u\" y=\"0.5\" width=\"%u\" height=\"%u\" "
		    "fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\"/>",
		    HTML_LEFT + sp[i].first * h->cw, (sp[i].last - sp[i].first + 1) * h->cw,
		    ph - 1, col);
	html_marks(h, ph);
	html_time_axis(h, ph);
	fprintf(f, "</svg>\n<div class=\"dim\">device time per column; colour: requests "
	    "(log scale, the UI's palette)");
	for (k = 1; k < THEME_LEVELS; k += 2) {
		html_colour(r, THEME_HEAT_0 + k, "#ffe66d", col);
		fprintf(f, "<span class=\"k\" style=\"background:%s\"></span>", col);
	}
	html_colour(r, THEME_LOST, "#ff5f5f", col);
	fprintf(f, "<span class=\"k\" style=\"background:%s\"></span>p50"
	    "<span class=\"k\" style=\"background:%s\"></span>p99"
	    "<span class=\"k\" style=\"background:%s\"></span>max</div>\n", lo, hi8, col);
}

/* A line chart of up to three series over the columns, with its largest value labelled. */
static void
html_chart(struct html *h, const char *title, const char *unit, unsigned nser,
    const double *const *ser, const char *const *colours, const char *const *names)
{
	FILE		*f = h->f;
	double		 max = 0;
	unsigned	 s, i;

	for (s = 0; s < nser; s++)
		for (i = 0; i < h->r->ncols; i++)
			if (ser[s][i] > max)
				max = ser[s][i];
	fprintf(f, "<h3>%s", title);
	for (s = 0; s < nser; s++)
		fprintf(f, "<span class=\"k\" style=\"background:%s\"></span>%s", colours[s],
		    names[s]);
	fprintf(f, "</h3>\n<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" "
	    "width=\"%u\" height=\"%u\"><rect x=\"%u\" y=\"0\" width=\"%u\" height=\"%u\" "
	    "fill=\"none\" stroke=\"%s\"/><text x=\"2\" y=\"10\">%.4g</text><text x=\"2\" "
	    "y=\"%u\">0 %s</text>", HTML_LEFT + h->pw + 60, HTML_CHART_H + HTML_BOTTOM,
	    HTML_LEFT, h->pw, HTML_CHART_H, h->grid, max, HTML_CHART_H, unit);
	for (s = 0; s < nser && max > 0; s++) {
		fprintf(f, "<path fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" d=\"", colours[s]);
		for (i = 0; i < h->r->ncols; i++)
			fprintf(f, "%c%.1f %.1f", i ? 'L' : 'M', HTML_LEFT + (i + 0.5) * h->cw,
			    HTML_CHART_H * (1 - ser[s][i] / max));
		fprintf(f, "\"/>");
	}
	html_time_axis(h, HTML_CHART_H);
	fprintf(f, "</svg>\n");
}

/*
 * Where on the device: its offset map, a row per band (the device's start at
 * the bottom) and a column per report column; reads in the upper half of a
 * row, writes in the lower, shaded by count (log scale).
 */
#define HTML_MAP_ROW	6
static void
html_map(struct html *h, const struct report_dev *rd)
{
	const struct report	*r = h->r;
	FILE			*f = h->f;
	uint32_t		 max = 0, v;
	unsigned		 i, k, o, ph = MAP_BANDS * HTML_MAP_ROW;
	char			 col[2][8], t[32], lbl[16];
	const char		*l;

	html_colour(r, THEME_READ, "#5fafd7", col[0]);
	html_colour(r, THEME_WRITE, "#ffaf5f", col[1]);
	for (i = 0; i < r->ncols; i++)
		for (o = 0; o < 2; o++)
			for (k = 0; k < MAP_BANDS; k++)
				if (rd->cols[i].band[o][k] > max)
					max = rd->cols[i].band[o][k];
	fprintf(f, "<h3>Where on the device</h3>\n<svg class=\"offsetmap\" "
	    "xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" height=\"%u\" "
	    "data-bands=\"%u\" data-band-bytes=\"%llu\"><rect x=\"%u\" y=\"0\" width=\"%u\" "
	    "height=\"%u\" fill=\"%s\"/>", HTML_LEFT + h->pw + 60, ph + HTML_BOTTOM, MAP_BANDS,
	    (unsigned long long)512 << rd->map_shift, HTML_LEFT, h->pw, ph, h->bg);
	for (k = 0; k <= MAP_BANDS; k += MAP_BANDS / 4) {
		l = draw_fmt_bytes(lbl, sizeof lbl, ((uint64_t)k << rd->map_shift) * 512);
		fprintf(f, "<text x=\"2\" y=\"%u\">%s</text>", k == MAP_BANDS ? 9 :
		    ph - k * HTML_MAP_ROW + 3, html_trim(l));
	}
	for (i = 0; i < r->ncols; i++) {
		fprintf(f, "\n<g class=\"col\"><title>%s</title>",
		    html_time(h->b, r->col_start[i], 0, t, sizeof t));
		for (o = 0; o < 2; o++)
			for (k = 0; k < MAP_BANDS; k++) {
				if ((v = rd->cols[i].band[o][k]) == 0)
					continue;
				fprintf(f, "<rect x=\"%u\" y=\"%u\" width=\"%u\" height=\"%u\" "
				    "fill=\"%s\" fill-opacity=\"%.2f\"/>", HTML_LEFT + i * h->cw,
				    ph - (k + 1) * HTML_MAP_ROW + o * HTML_MAP_ROW / 2, h->cw,
				    HTML_MAP_ROW / 2, col[o],
				    0.25 + 0.75 * log1p(v) / log1p(max));
			}
		fprintf(f, "</g>");
	}
	html_time_axis(h, ph);
	fprintf(f, "</svg>\n<div class=\"dim\">requests by where they start on the device "
	    "(bands of %s): reads in the upper half of a row, writes in the lower; a "
	    "sequential stream is a diagonal, random I/O a spread</div>\n",
	    html_trim(draw_fmt_bytes(lbl, sizeof lbl, (uint64_t)512 << rd->map_shift)));
}

/* One device: heatmap, IOPS, throughput, queue depth. */
static void
html_device(struct html *h, const struct report_dev *rd)
{
	static double		 v[6][REPORT_COLS_MAX];
	const struct report	*r = h->r;
	const struct report_col	*c;
	const double		*ser[3];
	const char		*cols[3], *names[3];
	char			 rc[8], wc[8], oc[8], qc[8], ac[8];
	char			 name[DEVNAME_MAX + HOST_NAME_MAX_LEN];
	double			 secs;
	unsigned		 i;

	fprintf(h->f, "<h2 id=\"dev-%u-%u\">", DEV_MAJOR(rd->dev), DEV_MINOR(rd->dev));
	html_text(h->f, report_dev_name(rd->dev, name, sizeof name));
	fprintf(h->f, "</h2>\n");
	html_heatmap(h, rd);
	for (i = 0; i < r->ncols; i++) {
		c = &rd->cols[i];
		secs = html_col_secs(r, i);
		v[0][i] = (double)c->ios[OPC_READ] / secs;
		v[1][i] = (double)c->ios[OPC_WRITE] / secs;
		v[2][i] = (double)c->ios[OPC_OTHER] / secs;
		v[3][i] = (double)c->bytes[OPC_READ] / secs / 1048576.0;
		v[4][i] = (double)c->bytes[OPC_WRITE] / secs / 1048576.0;
		v[5][i] = (double)c->wait_sum / 1e9 / secs;
	}
	html_colour(r, THEME_READ, "#5fafd7", rc);
	html_colour(r, THEME_WRITE, "#ffaf5f", wc);
	html_colour(r, THEME_OTHER, "#af87d7", oc);
	ser[0] = v[0], ser[1] = v[1], ser[2] = v[2];
	cols[0] = rc, cols[1] = wc, cols[2] = oc;
	names[0] = "read", names[1] = "write", names[2] = "other";
	html_chart(h, "IOPS", "/s", 3, ser, cols, names);
	ser[0] = v[3], ser[1] = v[4];
	html_chart(h, "Throughput", "MB/s", 2, ser, cols, names);
	for (i = 0; i < r->ncols; i++)
		v[0][i] = rd->cols[i].qd_max;
	html_colour(r, THEME_QD_0 + THEME_LEVELS - 1, "#5fd7ff", qc);
	html_colour(r, THEME_QD_0 + THEME_LEVELS / 2, "#005f87", ac);
	ser[0] = v[0], ser[1] = v[5];
	cols[0] = qc, cols[1] = ac;
	names[0] = "peak", names[1] = "average (aqu-sz)";
	html_chart(h, "Queue depth", "", 2, ser, cols, names);
	html_map(h, rd);
}

/* The whole run as one HTML page. */
void
report_html(FILE *f, const struct blktop *b, const struct report *r)
{
	struct html	 h;
	unsigned	 d;

	memset(&h, 0, sizeof h);
	h.f = f;
	h.b = b;
	h.r = r;
	h.cw = r->ncols > 0 ? HTML_WIDTH / r->ncols : 1;
	if (h.cw < 1)
		h.cw = 1;
	if (h.cw > 40)
		h.cw = 40;
	h.pw = (r->ncols > 0 ? r->ncols : 1) * h.cw;
	html_colour(r, THEME_MAIN_BG, "#1c1c1c", h.bg);
	html_colour(r, THEME_MAIN_FG, "#cccccc", h.fg);
	html_colour(r, THEME_DIV_LINE, "#444444", h.grid);
	html_colour(r, THEME_GRAPH_TEXT, "#a8a8a8", h.dim);
	html_head(&h);
	html_intro(&h);
	html_summary(&h);
	report_hosts_html(&h);
	report_html_phases(f, b);
	for (d = 0; d < r->ndevs; d++)
		html_device(&h, r->devs[d]);
	report_depth_html(&h);
	report_stack_html(&h);
	if (b->procs != NULL) {
		report_tables_procs(&h);
		report_stack_jobs(&h);
		report_tables_files(&h);
		report_tables_pattern(&h);
		report_wear_html(&h, (double)(r->last_ts - r->first_ts) / 1e9);
		report_tables_timeline(&h);
	}
	report_tables_insights(&h);
	fprintf(f, "<p class=\"dim\">Written by blktop %s.</p>\n</body></html>\n",
	    PACKAGE_VERSION);
}
