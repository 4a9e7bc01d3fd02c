/*
 * json-dev.c: a device's JSON object (json_dev_write), its members written
 * by the rows of the device field table (field-dev.c: latency and queue
 * summaries, histograms, depths, the request pattern) and the depth
 * buckets an interval's and a phase's devices share. json.c holds the
 * helpers every writer uses; nothing there calls back here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blktop.h"
#include "fields.h"
#include "json-key.h"
#include "field-dev.h"
#include "model-qdepth.h"

/* "lo" and "hi" of depth bucket i, fio's "IO depths" (the last open). */
static void
json_qd_bucket(FILE *f, unsigned i)
{
	fprintf(f, "{\"lo\":%llu,\"hi\":", 1ULL << i);
	if (i == QD_NBUCKETS - 1)
		fprintf(f, "null");
	else
		fprintf(f, "%llu", (2ULL << i) - 1);
}

/* ,"key":[{"lo","hi","count"}...]: the non-empty buckets of a depth histogram. */
static void
json_qd_hist(FILE *f, const char *key, const uint64_t *h)
{
	unsigned	 i, first = 1;

	fprintf(f, ",\"%s\":[", key);
	for (i = 0; i < QD_NBUCKETS; i++) {
		if (h[i] == 0)
			continue;
		if (!first)
			fputc(',', f);
		json_qd_bucket(f, i);
		fprintf(f, "," JK(JK_COUNT) "%llu}", (unsigned long long)h[i]);
		first = 0;
	}
	fputc(']', f);
}

/*
 * What "qd" holds past avg and max where the ticks had it (nothing for a
 * capture of records that carried the kernel-side count): "in_flight",
 * part_stat's at the newest sample; "late", requests whose depth, or whose
 * share of another's, came past the lag (model-depth.c); "hist", the depths
 * found at start in fio's buckets (lo to hi).
 */
void
json_qd_more(FILE *f, const struct sum *s)
{
	uint64_t	 h[QD_NBUCKETS];
	unsigned	 i, o;

	if (s->flags & TICK_STAT)
		fprintf(f, ",\"in_flight\":%u", s->in_flight);
	if (!(s->flags & TICK_QD))
		return;
	fprintf(f, "," JK(JK_LATE) "%llu", (unsigned long long)s->qd_late);
	for (i = 0; i < QD_NBUCKETS; i++) {
		for (h[i] = 0, o = 0; o < OPC_MAX; o++)
			h[i] += s->op[o].qd[i];
	}
	json_qd_hist(f, "hist", h);
}


/*
 * A device's summary of a histogram of n times between min and max (their
 * sum): p50, p90, p99[, p999], min, max, avg; null when it holds none. A
 * run's (the report) has p999, an interval's not.
 */
static struct json_lat
json_dev_lat(const uint64_t *h, uint64_t n, uint64_t min, uint64_t max, uint64_t sum,
    int p999)
{
	struct json_lat	 l = { 0 };

	if (n != 0) {
		l.has = JL_BIT(JL_P50) | JL_BIT(JL_P90) | JL_BIT(JL_P99) | JL_BIT(JL_MIN) |
		    JL_BIT(JL_MAX) | JL_BIT(JL_AVG) | (p999 ? JL_BIT(JL_P999) : 0);
		l.v[JL_P50] = hist_percentile(h, n, 50, min, max) / 1e3;
		l.v[JL_P90] = hist_percentile(h, n, 90, min, max) / 1e3;
		l.v[JL_P99] = hist_percentile(h, n, 99, min, max) / 1e3;
		if (p999)
			l.v[JL_P999] = hist_percentile(h, n, 99.9, min, max) / 1e3;
		l.v[JL_MIN] = (double)min / 1e3;
		l.v[JL_MAX] = (double)max / 1e3;
		l.v[JL_AVG] = (double)sum / (double)n / 1e3;
	}
	return (l);
}

/*
 * ,"hist_dispatch" (the depths found at dispatch), "max_dispatch" and
 * "by_depth": per depth bucket found at start, the requests' count, bytes,
 * share of the bytes and total latency ("await_us", start to done). A run's
 * (the report's) has "hist" too, the by_depth counts: the ticks it sums
 * miss the depths made final after the run's last tick.
 */
static void
json_qd_depth(FILE *f, const struct qd_acc *a, int run)
{
	const struct qd_lat	*l;
	struct json_lat		 lat;
	uint64_t		 h[QD_NBUCKETS], bytes = 0;
	unsigned		 i, first = 1;

	for (i = 0; i < QD_NBUCKETS; i++) {
		h[i] = a->lat[i] != NULL ? a->lat[i]->n : 0;
		bytes += a->lat[i] != NULL ? a->lat[i]->bytes : 0;
	}
	if (run)
		json_qd_hist(f, "hist", h);
	json_qd_hist(f, "hist_dispatch", a->disp);
	json_num(f, "max_dispatch", a->ndisp != 0, 0, a->disp_max);
	fprintf(f, ",\"by_depth\":[");
	for (i = 0; i < QD_NBUCKETS; i++) {
		if ((l = a->lat[i]) == NULL || l->n == 0)
			continue;
		if (!first)
			fputc(',', f);
		json_qd_bucket(f, i);
		fprintf(f, "," JK(JK_COUNT) "%llu,\"%s\":%llu", (unsigned long long)l->n,
		    dev_fields[DEVF_BYTES].key, (unsigned long long)l->bytes);
		json_num(f, "bytes_pct", bytes != 0, 2, bytes ? 100.0 * (double)l->bytes /
		    (double)bytes : 0);
		lat = json_dev_lat(l->hist, l->n, l->min, l->max, l->sum, run);
		json_await(f, &lat);
		fputc('}', f);
		first = 0;
	}
	fputc(']', f);
}

/* The non-empty buckets of a latency histogram. */
static void
json_dev_hist(FILE *f, const uint64_t *h)
{
	unsigned	 i, first = 1;

	fputc('[', f);
	for (i = 0; i < HIST_NBUCKETS; i++) {
		if (h[i] == 0)
			continue;
		fprintf(f, "%s{" JK(JK_LO_US) "%g,\"hi_us\":%g," JK(JK_COUNT) "%llu}",
		    first ? "" : ",", (double)hist_bucket_lo(i) / 1e3,
		    (double)hist_bucket_hi(i) / 1e3, (unsigned long long)h[i]);
		first = 0;
	}
	fputc(']', f);
}

/* The non-empty buckets of a request size histogram. */
static void
json_dev_sizes(FILE *f, const uint64_t *size)
{
	unsigned	 i, first = 1;

	fputc('[', f);
	for (i = 0; i < SIZE_NBUCKETS; i++) {
		if (size[i] == 0)
			continue;
		fprintf(f, "%s{\"lo_bytes\":%llu," JK(JK_COUNT) "%llu}", first ? "" : ",",
		    (unsigned long long)hist_size_bucket_lo(i), (unsigned long long)size[i]);
		first = 0;
	}
	fputc(']', f);
}

/* "lat_us": the device times of the requests o (a run's: with p999). */
void
json_dev_lat_us(FILE *f, const struct dev_ctx *x, const struct sum_op *o)
{
	struct json_lat	 l = json_dev_lat(o->lat, o->timed, o->lat_min, o->lat_max, o->lat_sum,
			     x->run);

	json_lat(f, &l);
}

/* "q_us": their queue times. */
void
json_dev_q_us(FILE *f, const struct dev_ctx *x, const struct sum_op *o)
{
	struct json_lat	 l = json_dev_lat(o->q, o->timed, o->q_min, o->q_max, o->q_sum, x->run);

	json_lat(f, &l);
}

/* "hist": their device times' buckets (an interval's). */
void
json_dev_lat_hist(FILE *f, const struct dev_ctx *x, const struct sum_op *o)
{
	(void)x;
	json_dev_hist(f, o->lat);
}

/* "q_hist": their queue times' buckets. */
void
json_dev_q_hist(FILE *f, const struct dev_ctx *x, const struct sum_op *o)
{
	(void)x;
	json_dev_hist(f, o->q);
}

/* "size_hist": their sizes' buckets. */
void
json_dev_size_hist(FILE *f, const struct dev_ctx *x, const struct sum_op *o)
{
	(void)x;
	json_dev_sizes(f, o->size);
}

/*
 * "qd": its avg, max (and a run's max_at: none without a request ever in
 * flight) from their rows, then how the requests found the depth: a run's
 * from its whole run, an interval's from the ticks since the last report.
 */
void
json_dev_qd(FILE *f, const struct dev_ctx *x, const struct sum_op *o)
{
	const struct sum	*s = x->sum;
	int			 first = 1;

	(void)o;
	dev_field_json(f, x, NULL, DEVF_QD_AVG, DEVF_QD_MAX_AT + 1, &first);
	if (x->run) {
		if (depth_acc(x->dw, 1) != NULL)
			json_qd_depth(f, depth_acc(x->dw, 1), 1);
	} else {
		json_qd_more(f, s);
		if ((s->flags & TICK_QD) && depth_acc(x->dw, 0) != NULL)
			json_qd_depth(f, depth_acc(x->dw, 0), 0);
	}
	fputc('}', f);
}

/* ,"request_pattern": the device's since first seen, null without its windows. */
void
json_dev_pattern(FILE *f, const struct dev_ctx *x, const struct sum_op *o)
{
	(void)o;
	json_req_pattern(f, x->dw != NULL ? &x->dw->rpat : NULL, x->dw != NULL ? &x->dw->rx : NULL);
}

/*
 * A device's object, up to and with its request pattern, left open for the
 * caller's own members (the report's anomalies and offset map; -J has none):
 * the rows of dev_fields (field-dev.c), each operation class's in its own
 * object. x->run picks a whole run's form (the report) over an interval's (-J).
 */
void
json_dev_write(FILE *f, const struct dev_ctx *x)
{
	unsigned	 o;
	int		 first = 1;

	dev_field_json(f, x, NULL, 0, DEVF_OP_FIRST, &first);
	for (o = 0; o < OPC_MAX; o++) {
		fprintf(f, ",\"%s\":", dev_op_keys[o]);
		first = 1;
		dev_field_json(f, x, &x->sum->op[o], DEVF_OP_FIRST, DEVF_OP_END, &first);
		fputc('}', f);
	}
	dev_field_json(f, x, NULL, DEVF_OP_END, DEVF_JSON_END, &first);
}
