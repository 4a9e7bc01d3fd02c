/* sink-report-compare.c: --compare --report OUT.html: side-by-side latency heatmaps of each device (a row per run), their difference, and the figures' table. */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blktop.h"
#include "compare.h"
#include "report.h"

#define RC_BUCKETS	256
#define RC_CELL_W	6
#define RC_CELL_H	14

/* One device's latency buckets over every run of both sides. */
struct rc_heat {
	double		 lo[RC_BUCKETS];
	unsigned	 n;
	double		 share[2][CMP_MAX_RUNS][RC_BUCKETS];	/* of the run's requests */
};

/* The row of device key in a run's -J line, or -1. */
static int
rc_device(const struct jr_doc *d, const char *key)
{
	int	 arr = jr_get(d, 0, "devices"), row;

	for (row = arr >= 0 ? d->n[arr].child : -1; row >= 0; row = d->n[row].next)
		if (jr_eq(d, jr_get(d, row, "name"), key))
			return (row);
	return (-1);
}

/* The index of bucket lo, added in order if new; -1 when full. */
static int
rc_bucket(struct rc_heat *h, double lo)
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

/* Read and write latency histograms of run r's device row: buckets first, then shares. */
static void
rc_hist(struct rc_heat *h, const struct jr_doc *d, int row, int s, unsigned r, int pass)
{
	static const char *const hists[2] = { "read.hist", "write.hist" };
	double		 lo, n, total = 0;
	unsigned	 k;
	int		 arr, e, i;

	for (k = 0; k < 2; k++) {
		arr = jr_get(d, row, hists[k]);
		for (e = arr >= 0 ? d->n[arr].child : -1; e >= 0; e = d->n[e].next)
			if (jr_num(d, jr_get(d, e, "count"), &n))
				total += n;
	}
	for (k = 0; k < 2; k++) {
		arr = jr_get(d, row, hists[k]);
		for (e = arr >= 0 ? d->n[arr].child : -1; e >= 0; e = d->n[e].next) {
			if (!jr_num(d, jr_get(d, e, "lo_us"), &lo) ||
			    !jr_num(d, jr_get(d, e, "count"), &n) || (i = rc_bucket(h, lo)) < 0)
				continue;
			if (pass == 1 && total > 0)
				h->share[s][r][i] += n / total;
		}
	}
}

/* One heatmap: a row per run (or one row of differences), a column per bucket. */
static void
rc_svg(FILE *out, const struct rc_heat *h, int s, unsigned nrows, const double *diff)
{
	double		 top = 1e-12, v;
	unsigned	 r, i;
	int		 shade;

	for (r = 0; r < nrows; r++)
		for (i = 0; i < h->n; i++)
			top = fmax(top, fabs(diff != NULL ? diff[i] : h->share[s][r][i]));
	fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" height=\"%u\">",
	    h->n * RC_CELL_W, nrows * RC_CELL_H);
	for (r = 0; r < nrows; r++) {
		for (i = 0; i < h->n; i++) {
			v = diff != NULL ? diff[i] : h->share[s][r][i];
			shade = (int)lround(255 * (1 - fabs(v) / top));
			fprintf(out, "<rect x=\"%u\" y=\"%u\" width=\"%d\" height=\"%d\" "
			    "fill=\"rgb(%d,%d,%d)\"><title>%g us: %.2f%%</title></rect>",
			    i * RC_CELL_W, r * RC_CELL_H, RC_CELL_W, RC_CELL_H,
			    diff != NULL && v > 0 ? 255 : shade, shade,
			    diff != NULL && v < 0 ? 255 : diff != NULL ? shade : 255, h->lo[i],
			    v * 100);
		}
	}
	fprintf(out, "</svg>\n");
}

/* A device's three heatmaps: A's runs, B's runs, and B's median share less A's per bucket. */
static void
rc_device_heat(FILE *out, const struct compare *c, const char *key)
{
	struct rc_heat	*h = xcalloc(1, sizeof *h);
	double		 diff[RC_BUCKETS], v[CMP_MAX_RUNS], med[2];
	unsigned	 r, i;
	int		 s, pass, row;

	for (pass = 0; pass < 2; pass++)
		for (s = 0; s < 2; s++)
			for (r = 0; r < c->nrun[s]; r++)
				if ((row = rc_device(&c->run[s][r].doc, key)) >= 0)
					rc_hist(h, &c->run[s][r].doc, row, s, r, pass);
	for (i = 0; i < h->n; i++) {
		for (s = 0; s < 2; s++) {
			for (r = 0; r < c->nrun[s]; r++)
				v[r] = h->share[s][r][i];
			qsort(v, c->nrun[s], sizeof v[0], compare_doubles);
			med[s] = c->nrun[s] % 2 ? v[c->nrun[s] / 2] :
			    (v[c->nrun[s] / 2 - 1] + v[c->nrun[s] / 2]) / 2;
		}
		diff[i] = med[1] - med[0];
	}
	fprintf(out, "<h2>device ");
	html_text(out, key);
	fprintf(out, "</h2><p>Latency (read and write) by bucket, %g us to %g us left to right; "
	    "a row per run; colour: the share of the run's requests.</p>\n<h3>A</h3>",
	    h->n ? h->lo[0] : 0, h->n ? h->lo[h->n - 1] : 0);
	rc_svg(out, h, 0, c->nrun[0], NULL);
	fprintf(out, "<h3>B</h3>");
	rc_svg(out, h, 1, c->nrun[1], NULL);
	fprintf(out, "<h3>B - A</h3><p>Median share of B less median share of A: red where B "
	    "has more, blue where A has.</p>");
	rc_svg(out, h, 0, 1, diff);
	free(h);
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
	    "border:1px solid #ccc}</style></head><body>\n<h1>blktop: A against B</h1>\n");
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
	fprintf(out, "</p>\n");
	for (i = 0; i < c->nfig; i = j) {
		j = compare_group_end(c, i);
		if (c->fig[i].entity == CMP_DEVICE)
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
