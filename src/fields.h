/* fields.h: what the views share of a measure: the field tables, their text formats and json.c's JSON writers. */

#ifndef FIELDS_H
#define FIELDS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct blktop;
struct devwin;
struct file_entry;
struct insight;
struct proc_counts;
struct proc_entry;
struct proc_table;
struct req_extra;
struct req_pattern;
struct sum;

/* fmt.c: the text the views (the UI, -b, the report) write alike. */
size_t		 fmt_dropped(const struct blktop *, int interval, char *, size_t);
void		 fmt_comm(char *out, const char *comm);
void		 fmt_insight_name(const struct proc_table *, const struct insight *, char *,
		     size_t);
const char	*fmt_num(char *, size_t, int width, int prec, int known, double);
const char	*fmt_host(char *, size_t, int host);
size_t		 fmt_file_name(const struct proc_table *, const struct file_entry *, char *,
		     size_t);

/* json.c: the rows -J and --report OUT.json share (doc/blktop.schema.json). */
extern const char *const dev_op_keys[];	/* "read", "write", "other": OPC_* order */
void		 json_string(FILE *, const char *);
void		 json_val(FILE *, int known, int prec, double);
void		 json_num(FILE *, const char *name, int known, int prec, double);
void		 json_sum(FILE *, const struct blktop *, const struct proc_counts *);
void		 json_req_pattern(FILE *, const struct req_pattern *, const struct req_extra *);
void		 json_qd_more(FILE *, const struct sum *);	/* json-dev.c */
void		 json_proc(FILE *, const struct blktop *, const struct proc_entry *, int whole);
void		 json_insights(FILE *, const struct blktop *);
void		 json_file(FILE *, const struct blktop *, const struct file_entry *, int whole);
/* An offset map's grid: v[dir * dir_stride + col * col_stride + band]; timed: a file's (its time axis). */
struct json_map {
	const uint32_t	*v;
	size_t		 dir_stride, col_stride;
	unsigned	 ncols, nbands;
	uint64_t	 band_bytes;
	int		 timed;
	double		 start, column_s;
	unsigned	 nooff;
};
void		 json_offset_map(FILE *, const struct json_map *);
/* A latency summary's members in microseconds, in the order written; has: their bits (none: null). */
enum json_lat_member { JL_MEAN, JL_P50, JL_P90, JL_P99, JL_P999, JL_MIN, JL_MAX, JL_AVG, JL_N };
struct json_lat {
	unsigned	 has;
	double		 v[JL_N];
};
#define JL_BIT(m)	(1U << (m))
void		 json_lat(FILE *, const struct json_lat *);
void		 json_await(FILE *, const struct json_lat *);


/* json-run.c: an interval's object (-J) and a run's (--report OUT.json, report.h). */
struct batch_opts;
void		 json_run_interval(const struct batch_opts *, const struct blktop *,
		     double ts_wall, unsigned nticks);

/*
 * field-proc.c: the fields of a process, and of a file or of all processes
 * where they share a counter (struct proc_counts): one row each, read by
 * the JSON writer (json.c), -b's tables, the UI's processes pane and -o.
 */
enum proc_field {
	PROCF_PID, PROCF_TGID, PROCF_COMM, PROCF_HOST, PROCF_CGROUP,
	PROCF_REQ_READS, PROCF_REQ_WRITES, PROCF_REQ_READ_BYTES, PROCF_REQ_WRITE_BYTES, PROCF_REQ_LAT,
	PROCF_REQ_DEPTH, PROCF_REQ_DEPTH_MAX,
	PROCF_OPENS, PROCF_OPEN_FAILS, PROCF_CALL_READS, PROCF_CALL_WRITES, PROCF_CALL_READ_BYTES,
	PROCF_CALL_WRITE_BYTES, PROCF_CALL_ERRORS, PROCF_CALL_LAT,
	PROCF_DISK_READ_BYTES, PROCF_DISK_WRITE_BYTES, PROCF_DISK_READS, PROCF_DISK_WRITES,
	PROCF_WRITEBACK_BYTES, PROCF_DIRTIED_BYTES, PROCF_CACHE_HIT, PROCF_MMAP_FAULTS,
	PROCF_URING_READS, PROCF_URING_WRITES, PROCF_AIO_READS, PROCF_AIO_WRITES, PROCF_DISK_LAT,
	PROCF_CREATES, PROCF_MKNODS, PROCF_UNLINKS, PROCF_RENAMES, PROCF_MKDIRS, PROCF_RMDIRS, PROCF_CLOSES,
	PROCF_MMAPS, PROCF_MUNMAPS, PROCF_FSYNCS, PROCF_TRUNCATES, PROCF_LIFE_ERRORS, PROCF_LIFE_LAT,
	PROCF_PATTERN, PROCF_THROTTLES, PROCF_THROTTLED_MS,
	PROCF_WRITTEN, PROCF_READ_BACK, PROCF_NEVER_READ, PROCF_UNREAD, PROCF_WEAR_OVER,
	PROCF_LIFETIMES, PROCF_LIFETIME, PROCF_CREATES_S, PROCF_UNLINKS_S,
	/* Not members of the JSON (a part of one, or a sort order only). */
	PROCF_REQ_P50, PROCF_REQ_P99, PROCF_CALL_P99, PROCF_LAT,
	PROCF_MAX
};
#define PROCF_JSON_END	PROCF_REQ_P50	/* the rows before it are JSON members, in order */

/* Which entities have a field (struct field's ents). */
#define FIELD_PROC	0x1		/* a process's row */
#define FIELD_FILE	0x2		/* a file's row */
#define FIELD_SUM	0x4		/* the calls of every process ("tables") */
#define FIELD_INTERVAL	0x8		/* an interval's only, not a whole run's */

/* How a field's value reads (its unit and its JSON form). */
enum field_unit {
	FIELD_COUNT,		/* a counter: null where the source cannot tell */
	FIELD_RAW,		/* a counter always known: %llu */
	FIELD_ID,		/* pid, tgid: %u */
	FIELD_TEXT,		/* comm */
	FIELD_PCT,		/* a share, 0 to 100 */
	FIELD_US,		/* microseconds */
	FIELD_NUM,		/* a mean of its own unit (a depth) */
	FIELD_SECS,		/* seconds, or a rate a second */
	FIELD_GROUP,		/* members of its own shape (json) */
};

/* What a field's value is read from. */
struct field_ctx {
	const struct blktop		*b;
	const struct proc_counts	*c;
	const struct proc_entry		*pe;	/* a process's row, else NULL */
	const struct file_entry		*fe;	/* a file's row, else NULL */
	unsigned			 ent;	/* FIELD_PROC, FIELD_FILE or FIELD_SUM */
	int				 whole;	/* a whole run's totals (no latencies) */
	const struct proc_hist		*hist[2];	/* a group's latencies (calls, requests), else NULL */
};

/* A field's column in a text table: its title and width (negative: left-aligned). */
struct field_col {
	const char	*title;
	int		 width;
};

/*
 * One field (htop's Process_fields, below's render config per model field):
 * one row says all of it, each view reading its own part.
 */
struct field {
	const char	*key;		/* its JSON member; -o's name if it sorts */
	const char	*old;		/* -o's former name of it, or NULL */
	enum field_unit	 unit;
	unsigned	 ents;		/* FIELD_*: whose it is */
	size_t		 off;		/* a counter: its offset in struct proc_counts; */
	double		(*get)(const struct field_ctx *, int *known);	/* else its value */
	void		(*json)(FILE *, const struct field_ctx *);	/* or its JSON value */
	unsigned	 need;		/* HAVE_* bits all needed, else null */
	unsigned	 need_any;	/* HAVE_* bits one of which is needed */
	unsigned	 need_file;	/* HAVE_* bits a file's value needs too */
	int		 prec;		/* JSON decimals */
	int		 bytes;		/* a count of bytes (the report: "1.2 MB") */
	int		 sorts;		/* -o orders by it: sort_key */
	int		 sort_key;	/* enum proc_key */
	int		 top_key;	/* enum proc_key whose top rows show it best (the UI) */
	struct field_col b;		/* -b's column (a count of the interval) */
	struct field_col ui;		/* the UI's column (a rate of the interval) */
	const char	*html;		/* the HTML report's column title */
	const char	*help;
};
extern const struct field proc_fields[PROCF_MAX];
/* json.c: the values of the fields of a shape of their own. */
void		 json_field_req_lat(FILE *, const struct field_ctx *);
void		 json_field_call_lat(FILE *, const struct field_ctx *);
void		 json_field_disk_lat(FILE *, const struct field_ctx *);
void		 json_field_pattern(FILE *, const struct field_ctx *);
/* field-proc.c */
uint64_t	 field_count(const struct field *, const struct field_ctx *);
double		 field_value(const struct field *, const struct field_ctx *, int *known);
void		 field_json(FILE *, const struct field_ctx *, unsigned from, unsigned to,
		     int *first);
void		 field_json_one(FILE *, const struct field *, const struct field_ctx *, int *first);
void		 field_text(const struct field *, const struct field_ctx *, char *, size_t);
const char	*field_key_name(int key);
int		 field_key_parse(const char *);
size_t		 field_key_list(char *, size_t, const char *sep);
void		 json_host(FILE *, int host);

/*
 * field-file.c: a file's fields as its views show them (the UI's files
 * pane, -b's files table, the report's); proc: its row of proc_fields where
 * it shares a process's counter (its JSON key and value), else -1.
 */
enum file_field_id {
	FILEF_CALL_READS, FILEF_CALL_WRITES, FILEF_CALL_READ_BYTES, FILEF_CALL_WRITE_BYTES,
	FILEF_DISK_READ_BYTES, FILEF_DISK_WRITE_BYTES, FILEF_CACHE_HIT, FILEF_SEQ, FILEF_SIZE,
	FILEF_OPENS, FILEF_P50, FILEF_P99, FILEF_PIDS, FILEF_PATH,
	FILEF_MAX
};
struct file_field {
	int		 proc;		/* enum proc_field, or -1 */
	const char	*key;		/* its JSON member where proc is -1 and it has one */
	int		 top_key;	/* enum proc_key whose top rows show it best */
	struct field_col b;		/* -b's column (negative width: left-aligned) */
	struct field_col ui;		/* the UI's column (0: the rest) */
	const char	*html;		/* the report's column title; NULL: its proc row's */
	const char	*help;		/* NULL: its proc row's */
};
extern const struct file_field file_fields[FILEF_MAX];
const char	*file_field_key(unsigned);
const char	*file_field_html(unsigned);
void		 file_field_b_head(FILE *, const unsigned *cols, unsigned n);

#endif
