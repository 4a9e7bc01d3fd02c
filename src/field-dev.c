/* field-dev.c: the device's field table: its JSON members, -b's columns, the UI's devices pane and the report's summary. */

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "blktop.h"
#include "draw.h"
#include "fields.h"
#include "field-dev.h"
#include "host.h"
#include "json-key.h"
#include "pattern.h"

#define FD_COUNT(m)	.unit = DEVU_COUNT, .off = offsetof(struct sum_op, m)

static void	dev_json_name(FILE *, const struct dev_ctx *, const struct sum_op *);
static void	dev_json_host(FILE *, const struct dev_ctx *, const struct sum_op *);
static double	dev_major(const struct dev_ctx *, const struct sum_op *, int *);
static double	dev_minor(const struct dev_ctx *, const struct sum_op *, int *);
static double	dev_no_lat(const struct dev_ctx *, const struct sum_op *, int *);
static double	dev_iops(const struct dev_ctx *, const struct sum_op *, int *);
static double	dev_bytes_s(const struct dev_ctx *, const struct sum_op *, int *);
static double	dev_bytes_io(const struct dev_ctx *, const struct sum_op *, int *);
static double	dev_util(const struct dev_ctx *, const struct sum_op *, int *);
static double	dev_await(const struct dev_ctx *, const struct sum_op *, int *);
static double	dev_p50(const struct dev_ctx *, const struct sum_op *, int *);
static double	dev_p99(const struct dev_ctx *, const struct sum_op *, int *);
static double	dev_p999(const struct dev_ctx *, const struct sum_op *, int *);
static double	dev_lat_max(const struct dev_ctx *, const struct sum_op *, int *);
static double	dev_qd_avg(const struct dev_ctx *, const struct sum_op *, int *);
static double	dev_qd_max(const struct dev_ctx *, const struct sum_op *, int *);
static double	dev_qd_max_at(const struct dev_ctx *, const struct sum_op *, int *);
static double	dev_seq(const struct dev_ctx *, const struct sum_op *, int *);

/*
 * The fields, the JSON's members first and in its order (doc/json.md says
 * what each means; doc/blktop.schema.json names each). A new measure of a
 * device: what it is read from in struct sum (the model), one row here, its
 * line in the schema and doc/json.md; a view lists it to show it. An
 * operation class's field has a title by class ({ "r/s", "w/s", "o/s" }).
 */
const struct dev_field_row dev_fields[DEVF_MAX] = {
	[DEVF_NAME] = { JK_NAME, DEVU_TEXT, .json = dev_json_name,
	    .b = { { "Device" }, { -12 } }, .ui = { { "Device" }, { -12 } },
	    .line = { { "Device" }, { -10 } }, .html = { { "device" }, { -1 } },
	    .help = "the disk's name (a partition's requests are its disk's)" },
	[DEVF_HOST] = { JK_HOST, DEVU_MEMBERS, .json = dev_json_host,
	    .help = "its host, in a run of several hosts (captures merged); absent in a run of one" },
	[DEVF_MAJOR] = { "major", DEVU_COUNT, .get = dev_major, .help = "its major number" },
	[DEVF_MINOR] = { "minor", DEVU_COUNT, .get = dev_minor, .help = "its minor number" },
	[DEVF_IOS] = { "ios", FD_COUNT(ios), .html = { { "reads", "writes", "other" } },
	    .prom = { "blktop_disk_requests_total", "counter", "Block requests completed." },
	    .help = "requests done" },
	[DEVF_BYTES] = { JK_BYTES, .unit = DEVU_BYTES, .off = offsetof(struct sum_op, bytes),
	    .html = { { "read", "written" } }, .prom = { "blktop_disk_bytes_total", "counter",
	    "Bytes of the block requests completed." }, .help = "bytes of those requests" },
	[DEVF_ERRORS] = { "errors", FD_COUNT(errors), .html = { { [DEVF_ALL] = "errors" } },
	    .prom = { "blktop_disk_errors_total", "counter",
	    "Block requests completed with an error." }, .help = "requests done with an error" },
	[DEVF_NO_LAT] = { "no_lat", DEVU_COUNT, .run = -1, .get = dev_no_lat,
	    .help = "requests done without a time (their start not seen)" },
	[DEVF_IOPS] = { "iops", DEVU_RATE, .get = dev_iops, .prec = 1,
	    .b = { { "r/s", "w/s", "o/s" }, { 9, 9, 8 }, 1 },
	    .ui = { { "r/s", "w/s" }, { 6 } }, .line = { { "r/s", "w/s" }, { 6 } },
	    .html = { { "r/s", "w/s" }, .prec = 1 },
	    .trace = { { [DEVF_ALL] = "IOPS" }, .prec = 1 },
	    .help = "requests a second" },
	[DEVF_BYTES_S] = { "bytes_per_s", DEVU_RATE, .get = dev_bytes_s,
	    .b = { { "rMB/s", "wMB/s" }, { 8 }, 2, 1e6 },
	    .ui = { { "rMB/s", "wMB/s" }, { 6 }, .scale = 1e6 },
	    .line = { { [DEVF_RW] = "MB/s" }, { 6 }, .scale = 1e6 },
	    .html = { { [DEVF_RW] = "MB/s" }, .prec = 2, .scale = 1048576.0 },
	    .trace = { { "read MB/s", "write MB/s" }, .prec = 3, .scale = 1e6 },
	    .help = "bytes a second (-b, the UI: MB/s; the report: MiB/s)" },
	[DEVF_BYTES_IO] = { "bytes_per_io", DEVU_MEAN, .get = dev_bytes_io, .prec = 1,
	    .help = "mean request size, bytes (iostat's rareq-sz, wareq-sz)" },
	[DEVF_LAT] = { "lat_us", DEVU_GROUP, .json = json_dev_lat_us,
	    .prom = { "blktop_disk_device_time_seconds", "histogram", "Device time of block "
	    "requests: issue to the driver to completion (biolatency's).", DEVM_OP,
	    offsetof(struct sum_op, lat), offsetof(struct sum_op, lat_sum) },
	    .help = "device times, issue to done, us" },
	[DEVF_Q] = { "q_us", DEVU_GROUP, .json = json_dev_q_us,
	    .prom = { "blktop_disk_queue_time_seconds", "histogram", "Queue time of block "
	    "requests: start to issue to the driver.", DEVM_OP, offsetof(struct sum_op, q),
	    offsetof(struct sum_op, q_sum) },
	    .help = "queue times, start to issue, us" },
	[DEVF_HIST] = { "hist", DEVU_GROUP, .run = -1, .json = json_dev_lat_hist,
	    .help = "the device times' non-empty buckets" },
	[DEVF_Q_HIST] = { "q_hist", DEVU_GROUP, .run = -1, .json = json_dev_q_hist,
	    .help = "the queue times' non-empty buckets" },
	[DEVF_SIZE_HIST] = { "size_hist", DEVU_GROUP, .run = -1, .json = json_dev_size_hist,
	    .help = "the request sizes' non-empty buckets" },
	[DEVF_ALL_LAT] = { "lat_us", DEVU_GROUP, .run = 1, .json = json_dev_lat_us,
	    .help = "the device times of every class together, us" },
	[DEVF_QD] = { "qd", DEVU_GROUP, .json = json_dev_qd,
	    .prom = { "blktop_disk_in_flight_requests", "gauge", "Requests in flight: the "
	    "kernel's count at the last tick, or when the last one completed.", DEVM_IN_FLIGHT },
	    .help = "queue depth: its mean, its peak and how the requests found it" },
	[DEVF_UTIL] = { "util_pct", DEVU_TIME, .get = dev_util, .prec = 2,
	    .b = { { "%util" }, { 6 }, 1 }, .ui = { { "%util" }, { 5 }, 1 },
	    .line = { { "util" }, { 3 }, 0, .suffix = "%" },
	    .html = { { "util %" }, .prec = 1 },
	    .prom = { "blktop_disk_busy_seconds_total", "counter", "Time with at least one "
	    "request in flight (iostat's %util numerator).", DEVM_BUSY },
	    .help = "the time with a request in flight, %" },
	[DEVF_REQ_PATTERN] = { NULL, DEVU_MEMBERS, .json = json_dev_pattern,
	    .help = "its requests' pattern since first seen (doc/json.md)" },
	[DEVF_AWAIT] = { NULL, DEVU_NS, .get = dev_await,
	    .b = { { "r_await", "w_await" }, { 8 }, 3, 1e6 },
	    .help = "mean time start to done (iostat's await), ms" },
	[DEVF_P50] = { NULL, DEVU_NS, .get = dev_p50,
	    .b = { { "r_p50", "w_p50" }, { 9, 8 }, 1, 1e3 },
	    .ui = { { "r_p50", "w_p50" }, { DRAW_LAT_WIDTH } },
	    .html = { { [DEVF_ALL] = "p50" } }, .help = "median device time" },
	[DEVF_P99] = { NULL, DEVU_NS, .get = dev_p99,
	    .b = { { "r_p99", "w_p99" }, { 9, 8 }, 1, 1e3 },
	    .ui = { { "r_p99", "w_p99" }, { DRAW_LAT_WIDTH } },
	    .line = { { [DEVF_ALL] = "p99" }, { DRAW_LAT_WIDTH } },
	    .html = { { [DEVF_ALL] = "p99" } },
	    .trace = { { [DEVF_ALL] = "p99 device ms" }, .prec = 3, .scale = 1e6 },
	    .help = "99th percentile device time" },
	[DEVF_P999] = { NULL, DEVU_NS, .get = dev_p999, .html = { { [DEVF_ALL] = "p99.9" } },
	    .help = "99.9th percentile device time" },
	[DEVF_LAT_MAX] = { NULL, DEVU_NS, .get = dev_lat_max, .html = { { [DEVF_ALL] = "max" } },
	    .help = "longest device time" },
	[DEVF_QD_AVG] = { JK_AVG, DEVU_TIME, .get = dev_qd_avg, .prec = 3,
	    .b = { { "aqu-sz" }, { 8 }, 2 }, .ui = { { "aqu-sz" }, { 6 }, 2 },
	    .line = { { "aqu" }, { 5 }, 2 }, .html = { { "avg qd" }, .prec = 2 },
	    .trace = { { "aqu-sz" }, .prec = 2 },
	    .help = "mean requests in flight (iostat's aqu-sz)" },
	[DEVF_QD_MAX] = { JK_MAX, DEVU_COUNT, .get = dev_qd_max, .b = { { "qd_max" }, { 7 } },
	    .ui = { { "qd_max" }, { 6 } }, .html = { { "peak qd" } },
	    .help = "the most requests in flight at once" },
	[DEVF_QD_MAX_AT] = { "max_at", DEVU_WALL, .run = 1, .get = dev_qd_max_at, .prec = 3,
	    .html = { { "at" }, { -1 } }, .help = "when they were, Unix time" },
	[DEVF_SEQ] = { NULL, DEVU_PCT, .get = dev_seq, .b = { { "seq%" }, { 5 } },
	    .html = { { "seq %" } },
	    .help = "of its requests since first seen, the sequential, %" },
};

/* Add the requests of from to to: counts, times and the device time histogram. */
static void
dev_op_add(struct sum_op *to, const struct sum_op *from)
{
	unsigned	 i;

	windows_extremes_add(&to->lat_min, &to->lat_max, to->timed, from->lat_min,
	    from->lat_max, from->timed);
	to->ios += from->ios;
	to->timed += from->timed;
	to->bytes += from->bytes;
	to->errors += from->errors;
	to->lat_sum += from->lat_sum;
	to->q_sum += from->q_sum;
	for (i = 0; i < HIST_NBUCKETS; i++)
		to->lat[i] += from->lat[i];
}

/* A device over the ticks summed in s: its fields' context (dw: its pattern, or NULL). */
void
dev_ctx_init(struct dev_ctx *x, uint32_t dev, const struct sum *s, const struct devwin *dw)
{
	unsigned	 o;

	memset(x, 0, sizeof *x);
	x->dev = dev;
	x->sum = s;
	x->dw = dw;
	x->qd_max = s->qd_max;
	x->dur = s->dur_ns != 0;
	x->secs = s->dur_ns > 0 ? (double)s->dur_ns / 1e9 : 1e-9;
	for (o = 0; o < OPC_MAX; o++) {
		if (o != OPC_OTHER)
			dev_op_add(&x->rw, &s->op[o]);
		dev_op_add(&x->all, &s->op[o]);
	}
}

/* The requests a column counts: one class's, reads and writes, or all. */
const struct sum_op *
dev_ctx_op(const struct dev_ctx *x, unsigned op)
{
	if (op == DEVF_RW)
		return (&x->rw);
	if (op == DEVF_ALL)
		return (&x->all);
	return (&x->sum->op[op < OPC_MAX ? op : 0]);
}

/* Its name as a JSON string. */
static void
dev_json_name(FILE *f, const struct dev_ctx *x, const struct sum_op *o)
{
	(void)o;
	json_string(f, device_name(x->dev));
}

/* A run of several hosts: whose device (null: a log's, of no host); nothing in a run of one. */
static void
dev_json_host(FILE *f, const struct dev_ctx *x, const struct sum_op *o)
{
	const char	*name;

	(void)o;
	if (host_count() <= 1)
		return;
	fprintf(f, ",\"%s\":", dev_fields[DEVF_HOST].key);
	if ((name = host_name(host_of_dev(x->dev))) != NULL)
		json_string(f, name);
	else
		fputs("null", f);
}

/* Its major number. */
static double
dev_major(const struct dev_ctx *x, const struct sum_op *o, int *known)
{
	(void)o;
	*known = 1;
	return (DEV_MAJOR(x->dev));
}

/* Its minor number. */
static double
dev_minor(const struct dev_ctx *x, const struct sum_op *o, int *known)
{
	(void)o;
	*known = 1;
	return (DEV_MINOR(x->dev));
}

/* Requests without a time. */
static double
dev_no_lat(const struct dev_ctx *x, const struct sum_op *o, int *known)
{
	(void)x;
	*known = 1;
	return ((double)(o->ios - o->timed));
}

/* Requests a second: none without the time they cover. */
static double
dev_iops(const struct dev_ctx *x, const struct sum_op *o, int *known)
{
	*known = x->dur;
	return ((double)o->ios / x->secs);
}

/* Bytes a second. */
static double
dev_bytes_s(const struct dev_ctx *x, const struct sum_op *o, int *known)
{
	*known = x->dur;
	return ((double)o->bytes / x->secs);
}

/* Bytes a request: none without one. */
static double
dev_bytes_io(const struct dev_ctx *x, const struct sum_op *o, int *known)
{
	(void)x;
	*known = o->ios != 0;
	return (o->ios != 0 ? (double)o->bytes / (double)o->ios : 0);
}

/* The share of the time with a request in flight, %. */
static double
dev_util(const struct dev_ctx *x, const struct sum_op *o, int *known)
{
	(void)o;
	*known = x->dur;
	return (fmin(100.0, (double)x->sum->busy_ns / 1e9 / x->secs * 100.0));
}

/* Mean time from start to done, ns: none without a timed request. */
static double
dev_await(const struct dev_ctx *x, const struct sum_op *o, int *known)
{
	(void)x;
	*known = o->timed != 0;
	return (o->timed ? (double)(o->lat_sum + o->q_sum) / (double)o->timed : 0);
}

/* A percentile of its device times, ns. */
static double
dev_pct(const struct sum_op *o, double p, int *known)
{
	*known = o->timed != 0;
	return (hist_percentile(o->lat, o->timed, p, o->lat_min, o->lat_max));
}

/* The median device time. */
static double
dev_p50(const struct dev_ctx *x, const struct sum_op *o, int *known)
{
	(void)x;
	return (dev_pct(o, 50, known));
}

/* The 99th percentile device time. */
static double
dev_p99(const struct dev_ctx *x, const struct sum_op *o, int *known)
{
	(void)x;
	return (dev_pct(o, 99, known));
}

/* The 99.9th percentile device time. */
static double
dev_p999(const struct dev_ctx *x, const struct sum_op *o, int *known)
{
	(void)x;
	return (dev_pct(o, 99.9, known));
}

/* The longest device time. */
static double
dev_lat_max(const struct dev_ctx *x, const struct sum_op *o, int *known)
{
	(void)x;
	*known = o->timed != 0;
	return ((double)o->lat_max);
}

/* Mean requests in flight over the time covered. */
static double
dev_qd_avg(const struct dev_ctx *x, const struct sum_op *o, int *known)
{
	(void)o;
	*known = x->dur;
	return ((double)x->sum->wait_sum / 1e9 / x->secs);
}

/* The most requests in flight at once. */
static double
dev_qd_max(const struct dev_ctx *x, const struct sum_op *o, int *known)
{
	(void)o;
	*known = 1;
	return (x->qd_max);
}

/* When the peak was (a run's): none without a request ever in flight. */
static double
dev_qd_max_at(const struct dev_ctx *x, const struct sum_op *o, int *known)
{
	(void)o;
	*known = x->qd_max > 0;
	return (x->qd_max_at);
}

/* Of its requests judged against a previous one, the sequential, %. */
static double
dev_seq(const struct dev_ctx *x, const struct sum_op *o, int *known)
{
	double	 seq = x->dw != NULL ? pattern_req_pct(&x->dw->rpat, 0) : -1;

	(void)o;
	*known = seq >= 0;
	return (seq);
}

/* A counter's value (rows with an offset in struct sum_op, or counts read by .get). */
uint64_t
dev_field_count(const struct dev_ctx *x, const struct dev_colref *c)
{
	const struct dev_field_row	*r = &dev_fields[c->field];
	const struct sum_op		*o = dev_ctx_op(x, c->op);
	uint64_t			 v;
	int				 known;

	if (r->get != NULL)
		return ((uint64_t)r->get(x, o, &known));
	memcpy(&v, (const char *)o + r->off, sizeof v);
	return (v);
}

/* A field's value, and whether anything is behind it (else *known is 0). */
double
dev_field_value(const struct dev_ctx *x, const struct dev_colref *c, int *known)
{
	const struct dev_field_row	*r = &dev_fields[c->field];

	*known = 1;
	if (r->get == NULL)
		return ((double)dev_field_count(x, c));
	return (r->get(x, dev_ctx_op(x, c->op), known));
}

/* A column's title for class op (an operation class's field), else its only one. */
const char *
dev_col_title(const struct dev_col *c, unsigned op)
{
	return (op < DEVF_NOPS && c->title[op] != NULL ? c->title[op] : c->title[0]);
}

/* A column's width for class op, else its only one. */
int
dev_col_width(const struct dev_col *c, unsigned op)
{
	return (op < DEVF_NOPS && c->width[op] != 0 ? c->width[op] : c->width[0]);
}

/*
 * The rows from to to (not included) as JSON members of the requests o (an
 * operation class's object), or of the device (o NULL: its rows of every
 * class's requests): ,"key":value, { before the first while *first; null
 * where nothing is behind it. A run's form (x->run) leaves out an
 * interval's rows, and the other way round.
 */
void
dev_field_json(FILE *f, const struct dev_ctx *x, const struct sum_op *o, unsigned from,
    unsigned to, int *first)
{
	const struct dev_field_row	*r;
	struct dev_colref		 c;
	double				 v;
	unsigned			 i;
	int				 known;

	for (i = from; i < to && i < DEVF_MAX; i++) {
		r = &dev_fields[i];
		if ((r->run > 0 && !x->run) || (r->run < 0 && x->run))
			continue;
		if (r->unit == DEVU_MEMBERS) {
			r->json(f, x, o != NULL ? o : &x->all);
			continue;
		}
		fprintf(f, "%c\"%s\":", *first ? '{' : ',', r->key);
		*first = 0;
		if (r->json != NULL) {
			r->json(f, x, o != NULL ? o : &x->all);
			continue;
		}
		c = (struct dev_colref){ i, o != NULL ? (unsigned)(o - x->sum->op) : DEVF_ALL };
		if (r->unit == DEVU_COUNT || r->unit == DEVU_BYTES)
			fprintf(f, "%llu", (unsigned long long)dev_field_count(x, &c));
		else {
			v = dev_field_value(x, &c, &known);
			json_val(f, known, r->prec, v);
		}
	}
}

/* A field as -b's table has it: its width, "-" where nothing is behind it. */
void
dev_field_b(const struct dev_ctx *x, const struct dev_colref *c, char *buf, size_t len)
{
	const struct dev_field_row	*r = &dev_fields[c->field];
	const struct dev_col		*col = &r->b;
	int				 w = dev_col_width(col, c->op), known;
	double				 v;

	switch (r->unit) {
	case DEVU_TEXT:
		snprintf(buf, len, "%*s", w, device_text(x->dev));
		break;
	case DEVU_COUNT:
	case DEVU_BYTES:
		snprintf(buf, len, "%*llu", w, (unsigned long long)dev_field_count(x, c));
		break;
	default:
		v = dev_field_value(x, c, &known);
		fmt_num(buf, len, w, col->prec, known, col->scale != 0 ? v / col->scale : v);
		break;
	}
}

/* -b's header of the columns cols (n), a space apart. */
void
dev_field_b_head(FILE *f, const struct dev_colref *cols, unsigned n)
{
	const struct dev_col	*col;
	unsigned		 i;

	for (i = 0; i < n; i++) {
		col = &dev_fields[cols[i].field].b;
		fprintf(f, "%s%*s", i ? " " : "", dev_col_width(col, cols[i].op),
		    dev_col_title(col, cols[i].op));
	}
	fputc('\n', f);
}
