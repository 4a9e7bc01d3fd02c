/* sink-report-compare.c: --compare --report OUT.html: per device, latency heatmaps of A and B side by side over time and their difference (as Rezolus' A/B view), the same per run, and the figures' table. */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blktop.h"
#include "compare.h"
#include "report.h"

#define RC_BUCKETS	256
#define RC_CELL_W	8
#define RC_CELL_H	6
#define RC_ROW_H	14

/* One device's latency buckets over every run of both sides, in order. */
struct rc_buckets {
	double		 lo[RC_BUCKETS];
	unsigned	 n;
};

/* A side's -J lines over time (its first run's series), parsed. */
struct rc_series {
	struct jr_doc	*doc;
	unsigned	 n;
};

/* The row of device key in a -J line, or -1. */
static int
rc_device(const struct jr_doc *d, const char *key)
{
	int	 arr = json_read_get(d, 0, "devices"), row;

	for (row = arr >= 0 ? d->n[arr].child : -1; row >= 0; row = d->n[row].next)
		if (json_read_eq(d, json_read_get(d, row, "name"), key))
			return (row);
	return (-1);
}

/* The index of bucket lo, added in order if new; -1 when full. */
static int
rc_bucket(struct rc_buckets *h, double lo)
{
	unsigned	 i;

	for (i = 0; i < h->n && h->lo[i] < lo; i++)
		;
	if (i < h->n && h->lo[i] == lo)
		return ((int)i);
	if (h->n == RC_BUCKETS)
		return (-1);
	memmove(&h->lo[i + 1], &h->lo[i], (h->n - i) * sizeof h->lo[0]);
	h->lo[i] = lo;
	h->n++;
	return ((int)i);
}

/*
 * The read and write latency histograms of device key in line d: with
 * share NULL, their buckets added to h; else each bucket's share of the
 * line's requests added into share[bucket].
 */
static void
rc_hist(struct rc_buckets *h, const struct jr_doc *d, const char *key, double *share)
{
	static const char *const hists[2] = { "read.hist", "write.hist" };
	double		 lo, n, total = 0;
	unsigned	 k;
	int		 row = rc_device(d, key), arr, e, i;

	for (k = 0; k < 2 && row >= 0; k++) {
		arr = json_read_get(d, row, hists[k]);
		for (e = arr >= 0 ? d->n[arr].child : -1; e >= 0; e = d->n[e].next)
			if (json_read_num(d, json_read_get(d, e, "count"), &n))
				total += n;
	}
	for (k = 0; k < 2 && row >= 0; k++) {
		arr = json_read_get(d, row, hists[k]);
		for (e = arr >= 0 ? d->n[arr].child : -1; e >= 0; e = d->n[e].next) {
			if (!json_read_num(d, json_read_get(d, e, "lo_us"), &lo) ||
			    !json_read_num(d, json_read_get(d, e, "count"), &n) ||
			    (share == NULL ? rc_bucket(h, lo) : (i = rc_bucket(h, lo))) < 0)
				continue;
			if (share != NULL && total > 0)
				share[i] += n / total;
		}
	}
}

/*
 * A heatmap of nx by ny cells, m[y * nx + x] each, row 0 on top: shades of
 * blue by value, or (diverging) red where positive, blue where negative.
 */
static void
rc_svg(FILE *out, const double *m, unsigned nx, unsigned ny, int cell_h, int diverging)
{
	double		 top = 1e-12, v;
	unsigned	 x, y;
	int		 shade;

	for (x = 0; x < nx * ny; x++)
		top = fmax(top, fabs(m[x]));
	fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" height=\"%u\">",
	    nx * RC_CELL_W, ny * (unsigned)cell_h);
	for (y = 0; y < ny; y++) {
		for (x = 0; x < nx; x++) {
			v = m[y * nx + x];
			if (v == 0)
				continue;
			shade = (int)lround(255 * (1 - fabs(v) / top));
			fprintf(out, "<rect x=\"%u\" y=\"%u\" width=\"%d\" height=\"%d\" "
			    "fill=\"rgb(%d,%d,%d)\"/>", x * RC_CELL_W, y * (unsigned)cell_h,
			    RC_CELL_W, cell_h, diverging && v > 0 ? 255 : shade, shade,
			    diverging && v > 0 ? shade : 255);
		}
	}
	fprintf(out, "</svg>\n");
}

/* The median of n values (sorted in place). */
static double
rc_median(double *v, unsigned n)
{
	qsort(v, n, sizeof v[0], compare_doubles);
	return (n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2);
}

/*
 * Over time: a column per interval of each side's first run, the latency
 * buckets bottom (fastest) to top, each cell the bucket's share of the
 * column's requests; the difference's columns are the same fraction of
 * each run's length.
 */
static void
rc_time_heat(FILE *out, const struct rc_series *ser, struct rc_buckets *h,
    const char *key)
{
	double		*m[2], *diff;
	unsigned	 nx = ser[0].n > ser[1].n ? ser[0].n : ser[1].n, x, y, c;
	int		 s;

	if (nx == 0 || h->n == 0)
		return;
	diff = xcalloc((size_t)nx * h->n, sizeof *diff);
	for (s = 0; s < 2; s++) {
		m[s] = xcalloc((size_t)(ser[s].n ? ser[s].n : 1) * h->n, sizeof *m[s]);
		for (x = 0; x < ser[s].n; x++) {
			double share[RC_BUCKETS] = { 0 };

			rc_hist(h, &ser[s].doc[x], key, share);
			for (y = 0; y < h->n; y++)
				m[s][(h->n - 1 - y) * ser[s].n + x] = share[y];
		}
	}
	for (x = 0; x < nx; x++) {
		for (y = 0; y < h->n; y++) {
			double a = 0, b = 0;

			if (ser[0].n > 0) {
				c = x * ser[0].n / nx;
				a = m[0][y * ser[0].n + c];
			}
			if (ser[1].n > 0) {
				c = x * ser[1].n / nx;
				b = m[1][y * ser[1].n + c];
			}
			diff[y * nx + x] = b - a;
		}
	}
	fprintf(out, "<h3>Over time: A, B and B - A</h3><p>Each side's first run, a column per "
	    "interval (1/%d of its length, or its capture's tick), latency buckets from %g us "
	    "(bottom) to %g us (top); colour: the bucket's share of the column's requests. "
	    "B - A: red where B has the larger share, blue where A has.</p>"
	    "<div class=\"ab\"><div><b>A</b>", CMP_COLUMNS, h->lo[0], h->lo[h->n - 1]);
	rc_svg(out, m[0], ser[0].n, h->n, RC_CELL_H, 0);
	fprintf(out, "</div><div><b>B</b>");
	rc_svg(out, m[1], ser[1].n, h->n, RC_CELL_H, 0);
	fprintf(out, "</div><div><b>B - A</b>");
	rc_svg(out, diff, nx, h->n, RC_CELL_H, 1);
	fprintf(out, "</div></div>\n");
	free(m[0]);
	free(m[1]);
	free(diff);
}

/* Per run: a row per run of each side over the buckets, and B's median share less A's. */
static void
rc_run_heat(FILE *out, const struct compare *c, struct rc_buckets *h, const char *key)
{
	double		*m[2], diff[RC_BUCKETS], v[CMP_MAX_RUNS], med[2];
	unsigned	 r, i;
	int		 s;

	if (h->n == 0)
		return;
	for (s = 0; s < 2; s++) {
		m[s] = xcalloc((size_t)c->nrun[s] * h->n, sizeof *m[s]);
		for (r = 0; r < c->nrun[s]; r++)
			rc_hist(h, &c->run[s][r].doc, key,
			    &m[s][r * h->n]);
	}
	for (i = 0; i < h->n; i++) {
		for (s = 0; s < 2; s++) {
			for (r = 0; r < c->nrun[s]; r++)
				v[r] = m[s][r * h->n + i];
			med[s] = rc_median(v, c->nrun[s]);
		}
		diff[i] = med[1] - med[0];
	}
	fprintf(out, "<h3>Per run: A, B and B - A</h3><p>A row per run, latency buckets from "
	    "%g us (left) to %g us (right); colour: the bucket's share of the run's requests. "
	    "B - A: B's median share less A's.</p><b>A</b>", h->lo[0], h->lo[h->n - 1]);
	rc_svg(out, m[0], h->n, c->nrun[0], RC_ROW_H, 0);
	fprintf(out, "<b>B</b>");
	rc_svg(out, m[1], h->n, c->nrun[1], RC_ROW_H, 0);
	fprintf(out, "<b>B - A</b>");
	rc_svg(out, diff, h->n, 1, RC_ROW_H, 1);
	free(m[0]);
	free(m[1]);
}

/* A side's series: its -J lines, each parsed in place. */
static void
rc_series(struct rc_series *ser, char *text)
{
	char	*line, *nl, *err;

	memset(ser, 0, sizeof *ser);
	for (line = text; line != NULL && *line != '\0'; line = nl != NULL ? nl + 1 : NULL) {
		if ((nl = strchr(line, '\n')) != NULL)
			*nl = '\0';
		ser->doc = xreallocarray(ser->doc, ser->n + 1, sizeof *ser->doc);
		if (json_read_parse(&ser->doc[ser->n], line, strlen(line), &err) != 0) {
			free(err);
			json_read_free(&ser->doc[ser->n]);
			continue;
		}
		ser->n++;
	}
}

/* A device's heatmaps: its buckets over every run and interval, then the maps. */
static void
rc_device_heat(FILE *out, const struct compare *c, const struct rc_series *ser, const char *key)
{
	struct rc_buckets	 h = { .n = 0 };
	unsigned		 r;
	int			 s;

	for (s = 0; s < 2; s++) {
		for (r = 0; r < c->nrun[s]; r++)
			rc_hist(&h, &c->run[s][r].doc, key, NULL);
		for (r = 0; r < ser[s].n; r++)
			rc_hist(&h, &ser[s].doc[r], key, NULL);
	}
	fprintf(out, "<h2>device ");
	html_text(out, key);
	fprintf(out, "</h2>\n");
	if (h.n == 0) {
		fprintf(out, "<p>No timed request in any run.</p>\n");
		return;
	}
	rc_time_heat(out, ser, &h, key);
	rc_run_heat(out, c, &h, key);
}

/* The compare as a self-contained HTML page. */
void
compare_html(FILE *out, const struct compare *c)
{
	struct rc_series ser[2];
	char		 note[256], *text;
	size_t		 len;
	unsigned	 i, j;
	int		 s;
	FILE		*m;

	fprintf(out, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>blktop compare"
	    "</title><style>body{font-family:sans-serif}pre{font-size:12px}svg{display:block;"
	    "border:1px solid #ccc;margin:2px 0 8px}.ab{display:flex;gap:16px}</style></head>"
	    "<body>\n<h1>blktop: A against B</h1>\n");
	for (s = 0; s < 2; s++) {
		fprintf(out, "<p>%s:", s == 0 ? "A" : "B");
		for (i = 0; i < c->nrun[s]; i++) {
			fputc(' ', out);
			html_text(out, c->run[s][i].path);
		}
		fprintf(out, "</p>\n");
		rc_series(&ser[s], c->series[s]);
	}
	fprintf(out, "<p>");
	html_text(out, compare_note(c, note, sizeof note));
	fprintf(out, "</p><p>Rule: ");
	html_text(out, CMP_RULE);
	fprintf(out, "</p>\n");
	for (i = 0; i < c->nfig; i = j) {
		j = compare_group_end(c, i);
		if (c->fig[i].entity == CMP_DEVICE && strcmp(c->fig[i].name, "read.ios") == 0)
			rc_device_heat(out, c, ser, c->fig[i].key);
	}
	for (s = 0; s < 2; s++) {
		for (i = 0; i < ser[s].n; i++)
			json_read_free(&ser[s].doc[i]);
		free(ser[s].doc);
	}
	/* The figures as -b's table. */
	if ((m = open_memstream(&text, &len)) == NULL)
		fatal("open_memstream");
	compare_text(m, c);
	if (fclose(m) != 0)
		fatal("open_memstream");
	fprintf(out, "<h2>Figures</h2><pre>");
	html_text(out, text);
	fprintf(out, "</pre></body></html>\n");
	free(text);
}
