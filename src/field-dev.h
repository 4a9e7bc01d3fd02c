/* field-dev.h: a device's field table (field-dev.c), read by its JSON (json.c), -b's table, the UI's devices pane, the HTML report's summary and the metrics endpoint (fields.h has the entity-neutral parts: json_val, fmt_num). */

#ifndef FIELD_DEV_H
#define FIELD_DEV_H

#include <stdint.h>
#include <stdio.h>

#include "window.h"

struct devwin;
struct sum;

/*
 * The fields, the JSON object's members first, in its order: the device's,
 * then an operation class's (DEVF_OP_FIRST to DEVF_OP_END: members of its
 * "read", "write" and "other" objects), then the device's again. The rows
 * after DEVF_JSON_END are the views' only.
 */
enum dev_field {
	DEVF_NAME, DEVF_HOST, DEVF_MAJOR, DEVF_MINOR,
	DEVF_IOS, DEVF_BYTES, DEVF_ERRORS, DEVF_NO_LAT, DEVF_IOPS, DEVF_BYTES_S,
	DEVF_BYTES_IO, DEVF_LAT, DEVF_Q, DEVF_HIST, DEVF_Q_HIST, DEVF_SIZE_HIST,
	DEVF_ALL_LAT, DEVF_QD, DEVF_UTIL, DEVF_REQ_PATTERN,
	/* Not members of the JSON's object (a part of one, or a view's only). */
	DEVF_AWAIT, DEVF_P50, DEVF_P99, DEVF_P999, DEVF_LAT_MAX, DEVF_QD_AVG, DEVF_QD_MAX,
	DEVF_QD_MAX_AT, DEVF_SEQ,
	DEVF_MAX
};
#define DEVF_OP_FIRST	DEVF_IOS	/* an operation class's members: these rows */
#define DEVF_OP_END	DEVF_ALL_LAT
#define DEVF_JSON_END	DEVF_AWAIT

/* Which requests a column of an operation class's field counts: one class, reads and writes, all. */
#define DEVF_RW		OPC_MAX		/* reads and writes together */
#define DEVF_ALL	(OPC_MAX + 1)	/* every class */
#define DEVF_NOPS	(OPC_MAX + 2)

/* How a device field's value reads. */
enum dev_unit {
	DEVU_TEXT,		/* its name: each view writes it its own way */
	DEVU_COUNT,		/* a counter: %llu */
	DEVU_BYTES,		/* a count of bytes (the report: "1.2 MB") */
	DEVU_RATE,		/* a count over the time covered (null without that time) */
	DEVU_TIME,		/* a time average, a share of the time (null as a rate) */
	DEVU_NS,		/* a request's time, ns (JSON and -b: us or ms by .scale) */
	DEVU_PCT,		/* a share of its requests (null without one) */
	DEVU_MEAN,		/* a mean over its requests (null without one) */
	DEVU_WALL,		/* a moment, Unix time */
	DEVU_GROUP,		/* a value of its own shape (json) */
	DEVU_MEMBERS,		/* members json writes itself, or none */
};

/* What a device field's value is read from: a device over some ticks. */
struct dev_ctx {
	uint32_t		 dev;
	const struct sum	*sum;
	const struct devwin	*dw;		/* its request pattern; NULL: none */
	unsigned		 qd_max;
	double			 qd_max_at;	/* a run's: the peak's wall time */
	int			 run;		/* a whole run's (the report's) */
	double			 secs;		/* the time covered, never 0 */
	int			 dur;		/* a time covered: rates known */
	struct sum_op		 rw;		/* DEVF_RW's requests (no histograms but lat) */
	struct sum_op		 all;		/* DEVF_ALL's */
};

/* A field's column in a view: its title and width by class (an operation class's field), else [0]. */
struct dev_col {
	const char	*title[DEVF_NOPS];
	int		 width[DEVF_NOPS];	/* negative: left-aligned; 0: [0]'s */
	int		 prec;			/* decimals */
	double		 scale;			/* the value over it (MB: 1e6); 0: 1 */
	const char	*suffix;		/* after the value ("%"), or NULL */
};

/*
 * A field's Prometheus family (sink-metrics.c), name NULL: not exported.
 * DEVM_OP: a series per device and operation, of the row's counter (.off
 * into struct sum_op) or, for a histogram, of .hist and .sum (ns) there;
 * the others a series per device of what the metrics sink keeps for it.
 */
enum dev_metric_from { DEVM_OP, DEVM_IN_FLIGHT, DEVM_BUSY };
struct dev_metric {
	const char		*name;
	const char		*type;		/* "counter", "gauge", "histogram" */
	const char		*help;
	enum dev_metric_from	 from;
	size_t			 hist, sum;
};

/* One field of a device: one row says all of it, each view reading its own part. */
struct dev_field_row {
	const char	*key;		/* its JSON member (an operation class's: in its object) */
	enum dev_unit	 unit;
	int		 run;		/* 1: a run's only (the report), -1: an interval's only */
	size_t		 off;		/* a counter of struct sum_op: its offset; */
	double		(*get)(const struct dev_ctx *, const struct sum_op *, int *known);
	void		(*json)(FILE *, const struct dev_ctx *, const struct sum_op *);
	int		 prec;		/* JSON decimals */
	struct dev_col	 b;		/* -b's column */
	struct dev_col	 ui;		/* the UI's devices pane, a heatmap each */
	struct dev_col	 line;		/* the UI's devices pane, one line each */
	struct dev_col	 html;		/* the report's summary */
	struct dev_metric prom;		/* the metrics endpoint's family */
	struct dev_col	 trace;		/* --trace's device counters (sink-trace-json.c) */
	const char	*help;
};
extern const struct dev_field_row dev_fields[DEVF_MAX];

/* A view's column: a field, and which requests (an operation class's field). */
struct dev_colref {
	unsigned	 field;		/* enum dev_field */
	unsigned	 op;		/* OPC_*, DEVF_RW, DEVF_ALL */
};

/* field-dev.c */
void		 dev_ctx_init(struct dev_ctx *, uint32_t dev, const struct sum *,
		     const struct devwin *);
const struct sum_op *dev_ctx_op(const struct dev_ctx *, unsigned op);
double		 dev_field_value(const struct dev_ctx *, const struct dev_colref *, int *known);
uint64_t	 dev_field_count(const struct dev_ctx *, const struct dev_colref *);
const char	*dev_col_title(const struct dev_col *, unsigned op);
int		 dev_col_width(const struct dev_col *, unsigned op);
void		 dev_field_json(FILE *, const struct dev_ctx *, const struct sum_op *,
		     unsigned from, unsigned to, int *first);
void		 dev_field_b(const struct dev_ctx *, const struct dev_colref *, char *, size_t);
void		 dev_field_b_head(FILE *, const struct dev_colref *, unsigned n);
/* json.c: a device's JSON object (-J's, or a run's with x->run), and its fields of a shape of their own. */
void		 json_dev_write(FILE *, const struct dev_ctx *);
void		 json_dev_host(FILE *, const struct dev_ctx *, const struct sum_op *);
void		 json_dev_lat_us(FILE *, const struct dev_ctx *, const struct sum_op *);
void		 json_dev_q_us(FILE *, const struct dev_ctx *, const struct sum_op *);
void		 json_dev_lat_hist(FILE *, const struct dev_ctx *, const struct sum_op *);
void		 json_dev_q_hist(FILE *, const struct dev_ctx *, const struct sum_op *);
void		 json_dev_size_hist(FILE *, const struct dev_ctx *, const struct sum_op *);
void		 json_dev_qd(FILE *, const struct dev_ctx *, const struct sum_op *);
void		 json_dev_pattern(FILE *, const struct dev_ctx *, const struct sum_op *);

#endif
