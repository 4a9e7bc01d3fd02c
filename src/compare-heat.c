/* compare-heat.c: a compared device's latency buckets over time and per run, each side's and B - A, for the report's heatmaps and the UI's. */

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "blktop.h"
#include "compare.h"
#include "json-key.h"

/* The row of device key in a -J line, or -1. */
static int
cmp_heat_device(const struct jr_doc *d, const char *key)
{
	int	 arr = json_read_get(d, 0, JK_DEVICES), row;

	for (row = arr >= 0 ? d->n[arr].child : -1; row >= 0; row = d->n[row].next)
		if (json_read_eq(d, json_read_get(d, row, JK_NAME), key))
			return (row);
	return (-1);
}

/* The index of bucket lo, added in order if new; -1 when full. */
static int
cmp_heat_bucket(struct cmp_heat *h, double lo)
{
	unsigned	 i;

	for (i = 0; i < h->nb && h->lo[i] < lo; i++)
		;
	if (i < h->nb && h->lo[i] == lo)
		return ((int)i);
	if (h->nb == CMP_HEAT_BUCKETS)
		return (-1);
	memmove(&h->lo[i + 1], &h->lo[i], (h->nb - i) * sizeof h->lo[0]);
	h->lo[i] = lo;
	h->nb++;
	return ((int)i);
}

/*
 * The read and write latency histograms of device key in line d: with
 * share NULL, their buckets added to h; else each bucket's share of the
 * line's requests added into share[bucket].
 */
static void
cmp_heat_hist(struct cmp_heat *h, const struct jr_doc *d, const char *key, double *share)
{
	static const char *const hists[2] = { "read.hist", "write.hist" };
	double		 lo, n, total = 0;
	unsigned	 k;
	int		 row = cmp_heat_device(d, key), arr, e, i;

	for (k = 0; k < 2 && row >= 0; k++) {
		arr = json_read_get(d, row, hists[k]);
		for (e = arr >= 0 ? d->n[arr].child : -1; e >= 0; e = d->n[e].next)
			if (json_read_num(d, json_read_get(d, e, JK_COUNT), &n))
				total += n;
	}
	for (k = 0; k < 2 && row >= 0; k++) {
		arr = json_read_get(d, row, hists[k]);
		for (e = arr >= 0 ? d->n[arr].child : -1; e >= 0; e = d->n[e].next) {
			if (!json_read_num(d, json_read_get(d, e, JK_LO_US), &lo) ||
			    !json_read_num(d, json_read_get(d, e, JK_COUNT), &n) ||
			    (share == NULL ? cmp_heat_bucket(h, lo) : (i = cmp_heat_bucket(h, lo))) < 0)
				continue;
			if (share != NULL && total > 0)
				share[i] += n / total;
		}
	}
}

/* The median of n values (sorted in place). */
static double
cmp_heat_median(double *v, unsigned n)
{
	qsort(v, n, sizeof v[0], compare_doubles);
	return (n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2);
}

/*
 * Device key's heatmaps (struct cmp_heat, compare.h): its buckets over every
 * run and interval of both sides, then each side's shares over time and per
 * run, and B - A both ways. 0 when no run timed a request of it.
 */
int
compare_heat(const struct compare *c, const char *key, struct cmp_heat *h)
{
	double		 v[CMP_MAX_RUNS], med[2], a, b;
	unsigned	 r, x, i, nx;
	int		 s;

	memset(h, 0, sizeof *h);
	for (s = 0; s < 2; s++) {
		for (r = 0; r < c->nrun[s]; r++)
			cmp_heat_hist(h, &c->run[s][r].doc, key, NULL);
		for (r = 0; r < c->nser[s]; r++)
			cmp_heat_hist(h, &c->ser[s][r], key, NULL);
	}
	if (h->nb == 0)
		return (0);
	for (s = 0; s < 2; s++) {
		h->nx[s] = c->nser[s];
		h->time[s] = xcalloc((size_t)(h->nx[s] ? h->nx[s] : 1) * h->nb, sizeof *h->time[s]);
		for (x = 0; x < h->nx[s]; x++)
			cmp_heat_hist(h, &c->ser[s][x], key, &h->time[s][(size_t)x * h->nb]);
		h->run[s] = xcalloc((size_t)c->nrun[s] * h->nb, sizeof *h->run[s]);
		for (r = 0; r < c->nrun[s]; r++)
			cmp_heat_hist(h, &c->run[s][r].doc, key, &h->run[s][(size_t)r * h->nb]);
	}
	/* Over time: column x of the difference is the same fraction of each side's length. */
	h->ndiff = nx = h->nx[0] > h->nx[1] ? h->nx[0] : h->nx[1];
	h->time_diff = xcalloc((size_t)(nx ? nx : 1) * h->nb, sizeof *h->time_diff);
	for (x = 0; x < nx; x++) {
		for (i = 0; i < h->nb; i++) {
			a = h->nx[0] ? h->time[0][(size_t)(x * h->nx[0] / nx) * h->nb + i] : 0;
			b = h->nx[1] ? h->time[1][(size_t)(x * h->nx[1] / nx) * h->nb + i] : 0;
			h->time_diff[(size_t)x * h->nb + i] = b - a;
		}
	}
	/* Per bucket: B's median share of a run's requests less A's. */
	for (i = 0; i < h->nb; i++) {
		for (s = 0; s < 2; s++) {
			for (r = 0; r < c->nrun[s]; r++)
				v[r] = h->run[s][(size_t)r * h->nb + i];
			med[s] = cmp_heat_median(v, c->nrun[s]);
		}
		h->run_diff[i] = med[1] - med[0];
	}
	h->aligned = !c->rates && h->nx[0] > 0 && h->nx[0] == h->nx[1];
	return (1);
}

/* What compare_heat allocated. */
void
compare_heat_free(struct cmp_heat *h)
{
	int	 s;

	for (s = 0; s < 2; s++) {
		free(h->time[s]);
		free(h->run[s]);
	}
	free(h->time_diff);
	memset(h, 0, sizeof *h);
}

/*
 * A map of nx columns by h->nb buckets ([x * nb + i], fastest first) in
 * ncols columns of nsub sub-rows (out[c * nsub + k], k 0 the fastest): a
 * column the mean of the columns it covers, a sub-row the sum of its
 * buckets' shares. For a screen narrower or lower than the map.
 */
void
compare_heat_fold(const struct cmp_heat *h, const double *m, unsigned nx, unsigned ncols,
    unsigned nsub, double *out)
{
	unsigned	 c, x, x0, x1, i;

	memset(out, 0, (size_t)ncols * nsub * sizeof *out);
	if (nx == 0 || nsub == 0)
		return;
	for (c = 0; c < ncols; c++) {
		x0 = (unsigned)((uint64_t)c * nx / ncols);
		x1 = (unsigned)((uint64_t)(c + 1) * nx / ncols);
		if (x1 <= x0)
			x1 = x0 + 1;
		for (x = x0; x < x1 && x < nx; x++)
			for (i = 0; i < h->nb; i++)
				out[(size_t)c * nsub + (uint64_t)i * nsub / h->nb] +=
				    m[(size_t)x * h->nb + i] / (x1 - x0);
	}
}

/* A side's -J lines over time (compare.c's series), each parsed in place: c->ser[s]. */
void
compare_heat_series(struct compare *c, int s)
{
	char	*line, *nl, *err;

	for (line = c->series[s]; line != NULL && *line != '\0'; line = nl != NULL ? nl + 1 : NULL) {
		if ((nl = strchr(line, '\n')) != NULL)
			*nl = '\0';
		c->ser[s] = xreallocarray(c->ser[s], c->nser[s] + 1, sizeof *c->ser[s]);
		if (json_read_parse(&c->ser[s][c->nser[s]], line, strlen(line), &err) != 0) {
			free(err);
			json_read_free(&c->ser[s][c->nser[s]]);
			continue;
		}
		c->nser[s]++;
	}
}
