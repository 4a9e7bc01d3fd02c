/* json-dev.c: the one writer of a device's JSON object, for -J's intervals and --report's run. */

#include <math.h>
#include <stdio.h>

#include "blktop.h"
#include "fields.h"

static const char *json_dev_ops[OPC_MAX] = { "read", "write", "other" };

/*
 * {"p50":..,"p90":..,"p99":..[,"p999":..],"min":..,"max":..,"avg":..} in
 * microseconds of a histogram of n times between min and max (their sum);
 * null when it holds none. A run's (the report) has p999, an interval's not.
 */
static void
json_dev_lat(FILE *f, const uint64_t *h, uint64_t n, uint64_t min, uint64_t max,
    uint64_t sum, int p999)
{
	if (n == 0) {
		fprintf(f, "null");
		return;
	}
	fprintf(f, "{\"p50\":%.1f,\"p90\":%.1f,\"p99\":%.1f",
	    hist_percentile(h, n, 50, min, max) / 1e3,
	    hist_percentile(h, n, 90, min, max) / 1e3,
	    hist_percentile(h, n, 99, min, max) / 1e3);
	if (p999)
		fprintf(f, ",\"p999\":%.1f", hist_percentile(h, n, 99.9, min, max) / 1e3);
	fprintf(f, ",\"min\":%.1f,\"max\":%.1f,\"avg\":%.1f}", (double)min / 1e3,
	    (double)max / 1e3, (double)sum / (double)n / 1e3);
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
		fprintf(f, "%s{\"lo_us\":%g,\"hi_us\":%g,\"count\":%llu}",
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
		fprintf(f, "%s{\"lo_bytes\":%llu,\"count\":%llu}", first ? "" : ",",
		    (unsigned long long)size_bucket_lo(i), (unsigned long long)size[i]);
		first = 0;
	}
	fputc(']', f);
}

/*
 * One operation class over dur_ns (rates null without one): an interval's
 * has its requests without a time and the histograms, a run's the p999.
 */
static void
json_dev_op(FILE *f, const struct sum_op *o, uint64_t dur_ns, int run)
{
	double		 secs = (double)dur_ns / 1e9;

	fprintf(f, "{\"ios\":%llu,\"bytes\":%llu,\"errors\":%llu",
	    (unsigned long long)o->ios, (unsigned long long)o->bytes,
	    (unsigned long long)o->errors);
	if (!run)
		fprintf(f, ",\"no_lat\":%llu", (unsigned long long)(o->ios - o->timed));
	json_num(f, "iops", dur_ns != 0, 1, dur_ns ? (double)o->ios / secs : 0);
	json_num(f, "bytes_per_s", dur_ns != 0, 0, dur_ns ? (double)o->bytes / secs : 0);
	fprintf(f, ",\"lat_us\":");
	json_dev_lat(f, o->lat, o->timed, o->lat_min, o->lat_max, o->lat_sum, run);
	fprintf(f, ",\"q_us\":");
	json_dev_lat(f, o->q, o->timed, o->q_min, o->q_max, o->q_sum, run);
	if (!run) {
		fprintf(f, ",\"hist\":");
		json_dev_hist(f, o->lat);
		fprintf(f, ",\"q_hist\":");
		json_dev_hist(f, o->q);
		fprintf(f, ",\"size_hist\":");
		json_dev_sizes(f, o->size);
	}
	fputc('}', f);
}

/* ,"lat_us": the device times of every operation class together (a run's). */
static void
json_dev_all_lat(FILE *f, const struct sum *s)
{
	const struct sum_op	*so;
	uint64_t		 h[HIST_NBUCKETS] = { 0 }, n = 0, min = 0, max = 0, sum = 0;
	unsigned		 o, i;

	for (o = 0; o < OPC_MAX; o++) {
		so = &s->op[o];
		for (i = 0; i < HIST_NBUCKETS; i++)
			h[i] += so->lat[i];
		if (so->timed != 0 && (n == 0 || so->lat_min < min))
			min = so->lat_min;
		n += so->timed;
		sum += so->lat_sum;
		if (so->lat_max > max)
			max = so->lat_max;
	}
	fprintf(f, ",\"lat_us\":");
	json_dev_lat(f, h, n, min, max, sum, 1);
}

/*
 * A device's object, up to and with its request pattern, left open for the
 * caller's own members (the report's anomalies and offset map; -J has none):
 * its name, each operation class, "qd", "util_pct", "request_pattern". d->run
 * picks a whole run's form (the report) over an interval's (-J).
 */
void
json_dev_write(FILE *f, const struct json_dev *d)
{
	const struct sum	*s = d->sum;
	double			 secs = s->dur_ns > 0 ? (double)s->dur_ns / 1e9 : 1e-9;
	int			 dur = s->dur_ns != 0;	/* rates need the time they cover */
	unsigned		 o;

	fprintf(f, "{\"name\":");
	json_string(f, device_name(d->dev));
	fprintf(f, ",\"major\":%u,\"minor\":%u", DEV_MAJOR(d->dev), DEV_MINOR(d->dev));
	for (o = 0; o < OPC_MAX; o++) {
		fprintf(f, ",\"%s\":", json_dev_ops[o]);
		json_dev_op(f, &s->op[o], s->dur_ns, d->run);
	}
	if (d->run)
		json_dev_all_lat(f, s);
	/* Time averages: null only without the time they cover. */
	fprintf(f, ",\"qd\":{\"avg\":");
	json_val(f, dur, 3, (double)s->wait_sum / 1e9 / secs);
	fprintf(f, ",\"max\":%u", d->qd_max);
	if (d->run)	/* no request ever in flight: no moment of the peak */
		json_num(f, "max_at", d->qd_max > 0, 3, d->qd_max_at);
	else
		json_qd_more(f, s);
	fputc('}', f);
	json_num(f, "util_pct", dur, 2, fmin(100.0, (double)s->busy_ns / 1e9 / secs * 100.0));
	if (d->dw != NULL)
		json_req_pattern(f, &d->dw->rpat, &d->dw->rx);
	else
		fprintf(f, ",\"request_pattern\":null");
}
