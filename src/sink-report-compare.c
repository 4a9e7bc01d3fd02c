/* sink-report-compare.c: --compare --report OUT.html: per device, latency heatmaps of A and B side by side over time and their difference (as Rezolus' A/B view), the same per run, and the figures' table. */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blktop.h"
#include "compare.h"
#include "report.h"

#define RC_CELL_W	8
#define RC_CELL_H	6
#define RC_ROW_H	14

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

/* Map m of nx columns by h->nb buckets ([x * nb + i]) as rc_svg's rows, slowest on top. */
static double *
rc_rows(const struct cmp_heat *h, const double *m, unsigned nx)
{
	double		*out = xcalloc((size_t)(nx ? nx : 1) * h->nb, sizeof *out);
	unsigned	 x, y;

	for (x = 0; x < nx; x++)
		for (y = 0; y < h->nb; y++)
			out[(size_t)(h->nb - 1 - y) * nx + x] = m[(size_t)x * h->nb + y];
	return (out);
}

/*
 * Over time: a column per interval of each side's first run, the latency
 * buckets bottom (fastest) to top, each cell the bucket's share of the
 * column's requests; the difference's columns are the same fraction of
 * each run's length.
 */
static void
rc_time_heat(FILE *out, const struct cmp_heat *h)
{
	double	*m;

	if (h->ndiff == 0)
		return;
	fprintf(out, "<h3>Over time: A, B and B - A</h3><p>Each side's first run, a column per "
	    "interval (1/%d of its length, or its capture's tick), latency buckets from %g us "
	    "(bottom) to %g us (top); colour: the bucket's share of the column's requests. "
	    "B - A: red where B has the larger share, blue where A has.</p>"
	    "<div class=\"ab\"><div><b>A</b>", CMP_COLUMNS, h->lo[0], h->lo[h->nb - 1]);
	rc_svg(out, m = rc_rows(h, h->time[0], h->nx[0]), h->nx[0], h->nb, RC_CELL_H, 0);
	free(m);
	fprintf(out, "</div><div><b>B</b>");
	rc_svg(out, m = rc_rows(h, h->time[1], h->nx[1]), h->nx[1], h->nb, RC_CELL_H, 0);
	free(m);
	fprintf(out, "</div><div><b>B - A</b>");
	rc_svg(out, m = rc_rows(h, h->time_diff, h->ndiff), h->ndiff, h->nb, RC_CELL_H, 1);
	free(m);
	fprintf(out, "</div></div>\n");
}

/* Per run: a row per run of each side over the buckets, and B's median share less A's. */
static void
rc_run_heat(FILE *out, const struct compare *c, const struct cmp_heat *h)
{
	fprintf(out, "<h3>Per run: A, B and B - A</h3><p>A row per run, latency buckets from "
	    "%g us (left) to %g us (right); colour: the bucket's share of the run's requests. "
	    "B - A: B's median share less A's.</p><b>A</b>", h->lo[0], h->lo[h->nb - 1]);
	rc_svg(out, h->run[0], h->nb, c->nrun[0], RC_ROW_H, 0);
	fprintf(out, "<b>B</b>");
	rc_svg(out, h->run[1], h->nb, c->nrun[1], RC_ROW_H, 0);
	fprintf(out, "<b>B - A</b>");
	rc_svg(out, h->run_diff, h->nb, 1, RC_ROW_H, 1);
}

/* A device's heatmaps: its buckets over every run and interval, then the maps. */
static void
rc_device_heat(FILE *out, const struct compare *c, const char *key)
{
	struct cmp_heat	 h;

	fprintf(out, "<h2>device ");
	html_text(out, key);
	fprintf(out, "</h2>\n");
	if (!compare_heat(c, key, &h)) {
		fprintf(out, "<p>No timed request in any run.</p>\n");
		return;
	}
	rc_time_heat(out, &h);
	rc_run_heat(out, c, &h);
	compare_heat_free(&h);
}

/* The compare as a self-contained HTML page. */
void
compare_html(FILE *out, const struct compare *c)
{
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
	}
	fprintf(out, "<p>");
	html_text(out, compare_note(c, note, sizeof note));
	fprintf(out, "</p><p>Rule: ");
	html_text(out, CMP_RULE);
	fprintf(out, "</p><p>");
	html_text(out, "heatmap: " CMP_HEAT_RULE);	/* the UI's help line, the same text */
	fprintf(out, "</p>\n");
	for (i = 0; i < c->nfig; i = j) {
		j = compare_group_end(c, i);
		if (c->fig[i].entity == CMP_DEVICE && strcmp(c->fig[i].name, "read.ios") == 0)
			rc_device_heat(out, c, c->fig[i].key);
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
