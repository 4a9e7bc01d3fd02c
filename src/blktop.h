/* blktop.h: shared structures and prototypes, grouped by the file that defines them. */

/*
 * The data path, file by file: source-*.c make event records (live BPF, a
 * capture, an imported log), stream.c hands each to the sinks in order
 * (sink-capture.c, sink-model.c feeding model-*.c, then sink-batch.c or the
 * UI in ui/; for --dump sink-dump.c alone), capture-*.c is the file format.
 *
 * Errors: a function that can fail returns -1 (or NULL) and, given a
 * char **errp, sets *errp to one line without a trailing newline that the
 * caller frees; 0 (or the object) on success, *errp untouched. Per-line
 * parsers say why a line is bad through a const char **whyp pointing at a
 * static phrase. Warnings at start and at exit go to stderr through log_warnx;
 * while a view runs, a message for the user goes through stream_notice.
 */
#ifndef BLKTOP_H
#define BLKTOP_H

#include <stdarg.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/types.h>
#include <sys/types.h>

#include "../bpf/blktop-abi.h"
#include "pattern.h"
#include "wear.h"
#include "insight.h"

#ifndef __unused
#define __unused __attribute__((unused))
#endif
#define __printflike(a, b) __attribute__((format(printf, a, b)))
#define nitems(a) (sizeof(a) / sizeof((a)[0]))

#define NSEC_PER_USEC	1000ULL
#define NSEC_PER_SEC	1000000000ULL

/*
 * Log-linear latency histogram: bucket 0 holds values below 1 us; then for each
 * power of two from 1 us to 2^HIST_POWERS us, HIST_SUB equal sub-buckets; the
 * last bucket holds everything from 2^HIST_POWERS us (134 s) up.
 */
#define HIST_SUB_BITS	3
#define HIST_SUB	(1u << HIST_SUB_BITS)
#define HIST_POWERS	27
#define HIST_NBUCKETS	(2 + HIST_POWERS * HIST_SUB)

/* Request sizes: bucket i holds [512 << (i-1), 512 << i) bytes, bucket 0 below 512. */
#define SIZE_NBUCKETS	18

/* log.c */
extern const char *log_prog;
extern void	(*log_fatal_hook)(void);
void		 fatal(const char *, ...) __printflike(1, 2) __attribute__((noreturn));
void		 fatalx(const char *, ...) __printflike(1, 2) __attribute__((noreturn));
void		 log_warnx(const char *, ...) __printflike(1, 2);
void		*xmalloc(size_t);
void		*xcalloc(size_t, size_t);
void		*xreallocarray(void *, size_t, size_t);
char		*xstrdup(const char *);
uint64_t	 hash_bytes(const void *, size_t, uint64_t seed);
int		 xasprintf(char **, const char *, ...) __printflike(2, 3);

/* name.c: names as text that is always valid UTF-8 (doc/blktop.8, NAMES). */
size_t		 utf8_char(const char *, size_t, uint32_t *cp);
int		 utf8_invisible(uint32_t cp);
size_t		 utf8_printable(const char *, size_t);
size_t		 name_text_char(const char *, size_t, int *shown);
size_t		 name_text(char *out, size_t outlen, const char *in, size_t n);
size_t		 name_escape(char *out, size_t outlen, const char *in, size_t n);
char		*name_escape_dup(const char *in, size_t n);
char		*name_escape_strict_dup(const char *in, size_t n);
void		 name_json(FILE *, const char *, size_t n);

/* device.c: kernel dev_t <-> names; resolved from sysfs when live, set by replay. */
#define DEVNAME_MAX	32
#define DEV_MAJOR(d)	((uint32_t)(d) >> 20)
#define DEV_MINOR(d)	((uint32_t)(d) & ((1u << 20) - 1))
#define DEV_MKDEV(ma, mi) (((uint32_t)(ma) << 20) | (uint32_t)(mi))
void		 device_set_sysfs(const char *root);
const char	*device_name(uint32_t dev);
const char	*device_text(uint32_t dev);
void		 device_set_name(uint32_t dev, const char *name);
int		 device_parse(const char *arg, uint32_t *dev, char **errp);
int		 device_whole_disk(uint32_t dev, uint32_t *disk);
char		*device_list_known(void);

/* hist.c */
uint64_t	 hist_bucket_lo(unsigned i);
uint64_t	 hist_bucket_hi(unsigned i);
double		 hist_percentile(const uint64_t *b, uint64_t n, double p, uint64_t min,
		     uint64_t max);
unsigned	 size_bucket(uint64_t bytes);
uint64_t	 size_bucket_lo(unsigned i);

/*
 * Bucket of a latency in ns: 0 below 1 us, then HIST_SUB per power of two.
 * Inline (4-6 per request on the per-record path: a call each was 6% of
 * blktop's samples, perf, fio's libaio job).
 */
static inline unsigned
hist_bucket(uint64_t ns)
{
	uint64_t	 us, lo;
	unsigned	 k, sub;

	if (ns < NSEC_PER_USEC)
		return (0);
	us = ns / NSEC_PER_USEC;
	k = 63 - __builtin_clzll(us);
	if (k >= HIST_POWERS)
		return (HIST_NBUCKETS - 1);
	lo = NSEC_PER_USEC << k;
	/*
	 * (ns - lo) * HIST_SUB / lo without dividing by a variable (a 64-bit
	 * div, ~40 cycles, twice per request): floor(floor(x / 2^k) / 1000) is
	 * floor(x / (1000 * 2^k)), and dividing by the constant is a multiply.
	 */
	sub = (unsigned)((((ns - lo) << HIST_SUB_BITS) >> k) / NSEC_PER_USEC);
	return (1 + k * HIST_SUB + sub);
}

/* Operation classes, as iostat groups them. */
enum opclass { OPC_READ, OPC_WRITE, OPC_OTHER, OPC_MAX };

/*
 * Where on the device (the offset map): a request counts in band
 * sector >> map_shift of its device, MAP_BANDS bands from sector 0; the shift
 * grows (older ticks' bands merged in pairs) when a request starts past them.
 */
#define MAP_BANDS	32

/*
 * The depth a request found at its start (requests of its device in flight,
 * itself included), in buckets as fio's "IO depths": 1, 2-3, 4-7, ..., so
 * bucket b holds depths 2^b to 2^(b+1) - 1.
 */
#define QD_NBUCKETS	16

/* One operation class during one tick. */
struct tick_op {
	uint64_t	 ios;
	uint64_t	 timed;		/* of ios, those with times (not BLK_F_NOLAT) */
	uint64_t	 bytes;
	uint64_t	 errors;
	uint64_t	 lat_sum;	/* device time (issue to done), ns */
	uint64_t	 q_sum;		/* queue time (start to issue), ns */
	uint64_t	 lat_min;	/* exact extremes of the timed ones: */
	uint64_t	 lat_max;	/* percentiles stay within them */
	uint64_t	 q_min;
	uint64_t	 q_max;
	uint32_t	 lat[HIST_NBUCKETS];
	uint32_t	 q[HIST_NBUCKETS];
	uint32_t	 size[SIZE_NBUCKETS];
	uint32_t	 band[MAP_BANDS];	/* requests by where they start: devwin.map_shift */
	uint32_t	 qd[QD_NBUCKETS];	/* depths found at start, final in this tick (model-depth.c) */
};

/*
 * One device during one tick. The counts of a tick with requests are a block
 * of OPC_MAX tick_ops from the windows' pool; a tick without any points at
 * windows_idle_ops (all zero, never written), so a device that sits idle
 * costs its ring of these small heads and nothing more.
 */
struct tick {
	uint64_t	 start;		/* stream time (CLOCK_MONOTONIC ns) the tick began */
	uint64_t	 end;		/* 0 while the tick is open */
	uint64_t	 busy_ns;	/* time with a request in flight (iostat io_ticks) */
	uint64_t	 wait_sum;	/* sum of start-to-done of completed requests (aqu-sz) */
	uint32_t	 qd_max;
	uint32_t	 qd_late;	/* requests found in flight past the depth lag (model-depth.c) */
	uint32_t	 in_flight;	/* part_stat's at the tick's last sample (TICK_STAT) */
	uint32_t	 flags;		/* TICK_* */
	struct tick_op	*op;		/* OPC_MAX of them */
};
#define TICK_STAT	0x1	/* busy_ns, wait_sum and in_flight from part_stat samples */
#define TICK_QD		0x2	/* depths from the requests' times (BLK_F_NODEVSTAT) */

/*
 * The depth each request found, from the requests' own start and completion
 * times (model-depth.c): records come at completion, so a request's depth is
 * final at the first tick that closes DEPTH_LAG_NS after its start. Starts
 * and completions after the last cut, each in order.
 */
#define DEPTH_LAG_NS	(250 * 1000 * 1000ULL)
#define DEPTH_MAX	(1u << 18)	/* times kept of each kind per device */
struct depth_seq {
	uint64_t	*v;		/* sorted, from head */
	unsigned	 head, n, cap;
};
struct depthq {
	struct depth_seq start;		/* start << 2 | opclass of requests not final */
	struct depth_seq done;		/* completions after cut */
	uint64_t	 cut;		/* depths final up to here */
	uint64_t	 inflight;	/* seen in flight at cut */
	struct depthx	*x;		/* at dispatch, latency by depth (model-qdepth.h) */
};

/* A whole disk's last part_stat sample (EV_DISKSTAT), for the next one's deltas. */
struct diskbase {
	uint32_t	 dev;
	uint32_t	 in_flight;
	uint64_t	 ts;
	uint64_t	 io_ticks_ms;
	uint64_t	 queue_ms;
};

/* One device since the start of the run, for the device rules (src/insight.c). */
struct devrun {
	uint64_t	 ios;
	uint64_t	 timed;		/* of ios, those with times */
	uint64_t	 q_sum;		/* their queue time (start to issue), ns */
	uint64_t	 wait_sum;	/* their await (start to done), ns */
	uint64_t	 bytes[BLK_FC_MAX];	/* by whose pages they carried (enum blktop_fclass) */
};

/* The rolling window of one device: a fixed ring of ticks, in step with all others. */
struct devwin {
	uint32_t	 dev;		/* kernel dev_t, major << 20 | minor */
	struct devrun	 run;
	uint64_t	 last_busy;	/* highest cumulative busy_ns seen in an event */
	int		 have_busy;
	unsigned	 map_shift;	/* a band of the offset map is 1 << map_shift sectors */
	struct req_pattern rpat;	/* its requests' access pattern, since first seen (model-reqpat.c) */
	struct req_extra rx;		/* and their commonest sizes and strides, switches */
	struct depthq	 dq;		/* depths not yet final (model-depth.c) */
	struct tick	*ring;		/* nticks entries */
};

/*
 * 1024 devices: more than hosts have, snap loop devices and NVMe namespaces
 * included. Past the cap (or $BLKTOP_MAX_DEVS, for tests) a device's requests
 * are counted and named in "dropped", never stored.
 */
#define WINDOWS_MAX_DEVS	1024
#define WINDOWS_HASH		2048	/* slots of the device lookup, a power of two */
#define WINDOWS_DROP_MAX	64	/* devices past the cap named; the rest as one "other" */
/*
 * Tick counts kept for the history, at most (a block is OPC_MAX tick_ops,
 * 5.5 KiB): past it the oldest history of every device goes first, never the
 * ticks a report still needs (windows.history_cut says how often).
 */
#define WINDOWS_POOL_BYTES	(256u << 20)

/* A device past the cap: how many of its requests went uncounted. */
struct windows_drop {
	uint32_t	 dev;		/* 0: the devices past WINDOWS_DROP_MAX of them */
	uint64_t	 requests;	/* since the windows began */
	uint64_t	 interval;	/* since the last report */
};

/* Slabs of tick counts, taken and given back a block at a time. */
union tick_block {
	union tick_block *next;		/* while free */
	struct tick_op	 op[OPC_MAX];
};

struct windows {
	unsigned	 nticks;	/* ring length, >= 2 */
	uint64_t	 tick_start;	/* start of the open tick */
	uint64_t	 nclosed;	/* ticks closed so far */
	unsigned	 cur;		/* ring index of the open tick: nclosed % nticks */
	unsigned	 span;		/* ticks kept, the open one included: <= nticks */
	unsigned	 min_span;	/* never fewer (a report's ticks and the open one) */
	unsigned	 max_devs;	/* <= WINDOWS_MAX_DEVS */
	unsigned	 ndevs;
	struct devwin	*devs[WINDOWS_MAX_DEVS];
	struct devwin	*last;		/* last device looked up: most events repeat it */
	uint16_t	 slot[WINDOWS_HASH];	/* devs index + 1 by a hash of dev_t, 0 free */
	/* What the device cap cut: */
	uint64_t	 dropped;	/* requests of devices past the cap, since the start */
	uint64_t	 dropped_interval;	/* ... since the last report */
	unsigned	 ndrop;		/* devices in drop[] */
	struct windows_drop drop[WINDOWS_DROP_MAX + 1];	/* the last: "other" */
	/* Tick counts: */
	union tick_block *free;		/* blocks to take */
	void		**slabs;
	unsigned	 nslabs;
	size_t		 nblocks;	/* blocks allocated */
	size_t		 max_blocks;	/* the pool's bound: WINDOWS_POOL_BYTES */
	uint64_t	 history_cut;	/* ticks of history given up to stay in it */
	/* Each whole disk's last part_stat sample, by dev_t (model-depth.c): */
	unsigned	 nbase;
	uint16_t	 base_slot[WINDOWS_HASH];	/* base index + 1 */
	struct diskbase	 base[WINDOWS_MAX_DEVS];
};
extern struct tick_op windows_idle_ops[OPC_MAX];

/* Aggregate over a range of ticks, with 64-bit histogram counts. */
struct sum_op {
	uint64_t	 ios;
	uint64_t	 timed;		/* of ios, those in the latency histograms */
	uint64_t	 bytes;
	uint64_t	 errors;
	uint64_t	 lat_sum;
	uint64_t	 q_sum;
	uint64_t	 lat_min;	/* of the timed ones; 0 when none */
	uint64_t	 lat_max;
	uint64_t	 q_min;
	uint64_t	 q_max;
	uint64_t	 lat[HIST_NBUCKETS];
	uint64_t	 q[HIST_NBUCKETS];
	uint64_t	 size[SIZE_NBUCKETS];
	uint64_t	 qd[QD_NBUCKETS];
};

struct sum {
	uint64_t	 dur_ns;	/* time covered by the summed ticks */
	uint64_t	 busy_ns;
	uint64_t	 wait_sum;
	uint64_t	 qd_late;
	uint32_t	 in_flight;	/* the newest tick's sample */
	uint32_t	 flags;		/* TICK_* of any tick summed */
	uint32_t	 qd_max;
	unsigned	 nticks;
	struct sum_op	 op[OPC_MAX];
};

/* model-window.c */
enum opclass	 window_opclass(unsigned op);
void		 windows_init(struct windows *, unsigned nticks, uint64_t now);
void		 windows_limit(struct windows *, unsigned max_devs, unsigned min_span,
		     size_t pool_bytes);
void		 windows_interval(struct windows *);
void		 windows_free(struct windows *);
struct devwin	*windows_find(struct windows *, uint32_t dev);
void		 windows_add_block(struct windows *, const struct ev_block *);
struct tick_op	*windows_take(struct windows *);
/* model-depth.c */
void		 depth_add(struct windows *, struct devwin *, struct tick *,
		     const struct ev_block *, unsigned opclass);
void		 depth_cut(struct windows *, struct devwin *, struct tick *, uint64_t cut);
void		 depth_free(struct depthq *);
void		 windows_depth_flush(struct windows *);
void		 windows_add_diskstat(struct windows *, const struct ev_diskstat *);
const struct diskbase *windows_diskbase(const struct windows *, uint32_t dev);
void		 windows_band_merge(uint32_t *band, unsigned k);
void		 windows_tick(struct windows *, uint64_t now);
const struct devwin *windows_get(const struct windows *, uint32_t dev);
const struct tick *windows_tick_at(const struct windows *, const struct devwin *,
		     unsigned ago);
void		 windows_sum(const struct windows *, const struct devwin *,
		     unsigned first_ago, unsigned count, struct sum *);
void		 windows_sum_tick(struct sum *, const struct tick *);

/* model-phase.c: marks and the phases between them. */
#define PHASE_DEVS	16		/* devices with figures per phase */
#define PHASE_MAX	256		/* closed phases kept (the oldest go first) */
#define MARK_RING	256		/* marks kept for the views */
struct mark {
	uint64_t	 ts;
	uint32_t	 pid;
	char		 label[MARK_LABEL_MAX];
};
struct phase_dev {			/* one device over one phase; NAN where nothing is behind */
	uint32_t	 dev;
	uint64_t	 ios, timed;
	uint64_t	 bytes[OPC_MAX];
	double		 secs, mb_s, aqu;
	double		 mean_us, p50_us, p90_us, p99_us, max_us;	/* await: start to completion */
};
struct phase {
	uint64_t	 start, end;	/* stream time */
	uint64_t	 seq;		/* closed phases before it */
	int		 has_label;	/* 0: the run's start, before any mark */
	int		 ended;		/* the open phase was closed at the run's end */
	uint32_t	 pid;		/* who sent its mark */
	char		 label[MARK_LABEL_MAX];
	unsigned	 ndevs;
	uint64_t	 devs_dropped;	/* requests of devices past PHASE_DEVS */
	struct phase_dev devs[PHASE_DEVS];
};
struct phase_table;
struct phase_table *phase_create(uint64_t ts);
void		 phase_free(struct phase_table *);
void		 phase_reset(struct phase_table *, uint64_t ts);
void		 phase_add_block(struct phase_table *, const struct ev_block *);
void		 phase_add_mark(struct phase_table *, const struct ev_mark *);
void		 phase_end(struct phase_table *, uint64_t ts);
void		 phase_interval(struct phase_table *);
unsigned	 phase_count(const struct phase_table *, int interval, uint64_t *first);
const struct phase *phase_get(const struct phase_table *, uint64_t seq);
uint64_t	 phase_dropped(const struct phase_table *);
uint64_t	 phase_unlisted(const struct phase_table *, int interval);
unsigned	 phase_marks(const struct phase_table *, int interval, uint64_t *first);
const struct mark *phase_mark(const struct phase_table *, uint64_t seq);
uint64_t	 phase_marks_unlisted(const struct phase_table *, int interval);

/* Hook variants for block requests, chosen by probing or forced. */
enum hook_attach { ATTACH_TP_BTF, ATTACH_RAW_TP, ATTACH_MAX };
enum hook_start { START_IO_START, START_RQ_INSERT, START_ISSUE, START_MAX };

struct hook_plan {
	enum hook_attach attach;
	enum hook_start	 start;
};

struct blktop;
struct source;
struct sink;
struct rec_type;
struct capture_header;

/* Run time of BPF programs, as the kernel counts it (source-cost.c). */
struct prog_cost {
	uint64_t	 run_ns;	/* 0 while statistics are off */
	uint64_t	 runs;
	uint64_t	 misses;	/* runs skipped: the program would have nested */
	uint64_t	 paths_reused;	/* read/write records sent without their path, put back */
	uint64_t	 paths_missed;	/* ... whose path user space did not have */
	uint64_t	 batched;	/* records that came in a batch (EV_BATCH) */
};

/* What blktop cost over the last report (model-self.c). */
struct self_cost {
	int		 valid;		/* 0 until two samples were taken */
	double		 secs;		/* wall time the figures cover */
	double		 cpu_pct;	/* user + system, % of one CPU */
	uint64_t	 events;	/* records taken from the source */
	double		 events_per_s;
	int		 have_bpf;	/* the BPF figures are known */
	uint64_t	 bpf_ns;	/* run time of its BPF programs */
	uint64_t	 bpf_runs;
	double		 bpf_pct;	/* that run time, % of one CPU */
	uint64_t	 paths_reused;	/* prog_cost's, over the report */
	uint64_t	 paths_missed;
	uint64_t	 batched;
};

/* Where a source stands, for the UI's header. */
struct source_status {
	int64_t		 wall_ns;	/* the recording's wall clock at the position */
	uint64_t	 pos_ns;	/* stream time of the position */
	double		 speed;		/* 0 = as fast as possible */
	int		 paused;
	int		 at_end;
};

/*
 * A kind of source (the live kernel, recorded files): a table entry whose
 * callbacks take the instance. The controls are NULL where a source has
 * none: the UI offers what is there and says what is not.
 */
struct source_entry {
	const char	*name;
	int		 own_ticks;	/* its records carry the ticks; else blktop's timer */
	const char	*lost_where;	/* where lost events were lost, for the exit line */
	int		 (*start)(struct source *, char **errp);
	void		 (*drain)(struct source *);	/* hand pending events to the stream */
	void		 (*halt)(struct source *);	/* the run is over: no more records (optional) */
	void		 (*stop)(struct source *);
	int		 (*device)(struct source *, const char *arg, uint32_t *dev,
			     char **errp);		/* a device name as this source knows it */
	void		 (*pause)(struct source *);
	void		 (*step)(struct source *);	/* one tick forward, paused */
	void		 (*seek)(struct source *, double delta_secs);
	void		 (*seek_start)(struct source *);
	void		 (*set_speed)(struct source *, double);
	void		 (*status)(struct source *, struct source_status *);
	int		 (*cost)(struct source *, struct prog_cost *); /* -1: unknown */
};

/* The source of one run: its entry and its own state. */
struct source {
	const struct source_entry *entry;
	struct blktop	*b;
	void		*data;
};

/*
 * A kind of sink: what consumes the stream, in the order registered
 * (capture, model, then a view). Every callback is optional.
 */
/* What the view can ask of a sink. */
enum sink_ctl {
	SINK_CTL_TOGGLE,	/* start or stop (the capture sink: `r`) */
};

struct sink_entry {
	const char	*name;
	int		 output;	/* writes reports: quiet while the stream is silent */
	int		 (*start)(struct sink *, char **errp);
	void		 (*begin)(struct sink *, uint64_t ts);	/* the windows open at ts */
	/* A record of at least its type's fixed length: rt its entry, NULL for a type unknown here. */
	void		 (*event)(struct sink *, const struct rec_type *rt, const void *rec,
			     size_t len);
	void		 (*tick)(struct sink *, uint64_t ts);	/* after all took the tick */
	void		 (*report)(struct sink *, uint64_t ts, unsigned nticks);
	void		 (*interval)(struct sink *);	/* after a report: a new interval */
	void		 (*end)(struct sink *);		/* the source has nothing more */
	int		 report_at_end;	/* wants the interval still open reported before end */
	void		 (*stop)(struct sink *);
	/* The view's controls (stream_sink_control): act, with a line for the status bar in *msg. */
	int		 (*control)(struct sink *, enum sink_ctl, char **msg);
	const char	*(*status)(struct sink *);	/* a short state for the header, or NULL */
	/*
	 * A config file setting of the sink's (or NULL): 1 if the key is its
	 * own and the value good (and taken into data, its state, unless data
	 * is NULL), 0 if the key is not its own, -1 with *errp if the value is
	 * bad. Checked before the sinks start (data NULL), taken at the sink's
	 * start (config_apply).
	 */
	int		 (*config)(struct blktop *, void *data, const char *key,
			     const char *value, char **errp);
};

/* One sink of this run: its entry, its options and its own state. */
struct sink {
	const struct sink_entry *entry;
	struct blktop	*b;
	const void	*opts;	/* its entry's options struct (stream_add_sink), or NULL */
	void		*data;
};

#define STREAM_MAX_SINKS 8

#define FILTER_MAX_PIDS	64	/* at most VFS_MAX_TGIDS */
/* -r FILE...: files merged into one replay at most, and source-merge.c's limits. */
#define MERGE_MAX_FILES		64
#define MERGE_MAJOR		4094		/* devices renumbered for a clash */
#define MERGE_GAP_NS		(3600 * NSEC_PER_SEC)	/* longer silences: one tick */
#define MERGE_NAMES_MAX		4096		/* opens kept for the basename join */

/*
 * Each sink's options, in a struct of its own: filled by the option table
 * (options-table.c: the command line, a capture, the config file), handed to the sink by
 * stream_add_sink. A sink reads its own options from there, no other's.
 */
/* sink-capture.c */
#define CAPTURE_FLIGHT_DEFAULT	30	/* seconds kept before an `r` */
struct capture_opts {
	const char	*record_path;	/* -w: record from the start */
	const char	*record_dir;	/* --record-dir: where `r` and the trigger write */
	int		 flight_secs;	/* --flight: -1 until options_finish picks the default */
	const char	*trigger;	/* --trigger-p99 MS[:DEVICE] */
};
/* sink-batch.c */
struct batch_opts {
	int		 json;		/* -J */
	FILE		*out;
	unsigned	 top;		/* --top: rows of the process and file tables */
	int		 sort_key;	/* -o: enum proc_key */
	int		 stack;		/* --stack: the latency stack (src/stack.h) */
};
/* sink-metrics.c */
struct metrics_opts {
	char		 listen_addr[64];	/* --listen */
	uint16_t	 listen_port;	/* 0: no metrics endpoint */
	int		 listen_fd;	/* bound by main() before the source starts, -1 before */
	int		 node_names;	/* --metrics-node-names: node_exporter's disk families too */
};
/* sink-report.c */
struct report_opts {
	const char	*path;		/* --report: .html or .json */
	const char	*theme;		/* -t, else the config file's; NULL: the default */
	int		 sort_key;	/* -o: enum proc_key */
	int		 announce;	/* say where it was written (-v, --headless) */
	int		 ends_run;	/* its end is the run's (--headless without --listen) */
};
/* sink-trace.c */
#define TRACE_MAX_DEFAULT_MB	256
#define TRACE_MAX_MB		4096	/* --trace-max's bound: a 4 GiB file, its events held to the end */
struct trace_opts {
	const char	*path;		/* --trace: the Chrome Trace Event file */
	int64_t		 offset_ns;	/* --trace-offset: added to every ts */
	uint64_t	 max_bytes;	/* --trace-max, in bytes */
	int		 announce;	/* say where it was written (-v, --headless) */
	int		 ends_run;	/* its end is the run's (a replay for files alone) */
};
/* sink-dump.c */
struct dump_opts {
	int		 format;	/* --dump: REPLAY_DUMP_CSV or _JSONL, 0 without --dump */
};
/* ui/ui.c */
struct ui_opts {
	const char	*theme;		/* -t, checked at start; NULL: the config file's */
	char		 config_path[PATH_MAX];	/* the view's config file, "" for none */
	char		 config_note[256];	/* what was wrong with it, for the view */
	const struct capture_opts *capture;	/* the capture's settings, which W saves too */
};

/* Everything one run of blktop knows. */
#define OPTIONS_MAX	96		/* rows of the option table (options-table.c) at most */
#define HAVE_NBITS	11		/* the HAVE_* bits (below) */

struct blktop {
	struct event_base	*base;
	struct source		*src;
	struct sink		 sinks[STREAM_MAX_SINKS];	/* in stream order */
	unsigned		 nsinks;
	struct sink		*event_sinks[STREAM_MAX_SINKS];	/* those taking records */
	unsigned		 nevent_sinks;
	void			 (*notice)(void *, const char *);	/* view's, */
	void			*notice_arg;				/* with its state */
	struct windows		 win;

	/* options */
	int			 batch;		/* -b */
	double			 interval;	/* -d, seconds */
	long			 count;		/* -n, 0 = forever */
	unsigned		 nticks;	/* history length in ticks */
	unsigned		 ndevs;		/* -D */
	uint32_t		 devs[FILTER_MAX_DEVS];
	const char		*hooks;		/* --hooks or BLKTOP_HOOKS */
	int			 verbose;
	unsigned		 ntgids;	/* -p */
	uint32_t		 job_pids[8];	/* --job (JOB_MAX_PIDS, job.h) */
	unsigned		 njob_pids;
	uint32_t		 tgids[FILTER_MAX_PIDS];
	unsigned		 ncomms;	/* -c */
	const char		*comms[FILTER_MAX_COMMS];
	const char		*cgroup_path;	/* --cgroup */
	uint64_t		 cgroup_id;
	int			 all_files;	/* --all-files: pipes, sockets, ttys too */
	int			 no_vfs;	/* --no-vfs: block requests only */
	int			 by_thread;	/* --threads */
	struct insight_conf	 insight;	/* the insights' thresholds (--insight, config insight.*) */
	unsigned		 max_procs;	/* --max-procs */
	unsigned		 max_files;	/* --max-files */
	unsigned		 max_devs;	/* $BLKTOP_MAX_DEVS (tests), 0: WINDOWS_MAX_DEVS */
	char			 vfs_plan[32];

	/* state */
	uint64_t		 tick_ns;	/* length of one window tick */
	unsigned		 ticks_per_report;
	unsigned		 ticks_since_report;
	int64_t			 mono_to_wall;	/* add to CLOCK_MONOTONIC ns for wall-clock ns */
	int			 wall_known;	/* mono_to_wall is known (not a log without a clock) */
	uint64_t		 events;	/* records taken from the source */
	uint64_t		 block_events;	/* EV_BLOCK records among them */
	uint64_t		 bad_records;	/* records refused by stream_event */
	uint64_t		 lost;		/* events the kernel could not hand over, in all */
	uint64_t		 lost_report;	/* lost since the last report */
	const char		*lost_unknown;	/* why the kernel's loss counters are unreadable: lost null */
	uint64_t		 lost_kind[LOST_KINDS];	/* lost, by unit (enum blktop_lost_kind) */
	uint64_t		 lost_kind_report[LOST_KINDS];
	long			 reports;	/* printed by the batch view */
	int			 exiting;
	int			 ending;	/* the source has nothing more: its last report */
	struct {				/* the capture sink's last recording started */
		unsigned	 n;		/* since the start */
		uint64_t	 ts;		/* stream time, within a tick */
		const char	*why;		/* "-w", "r" (the UI), "trigger" */
	}			 rec_start;
	int			 status;	/* exit status: 1 once data was lost (a recording failed) */
	int			 silent;	/* seeking: output sinks skip reports */
	uint64_t		 last_tick;	/* stream time of the last tick taken */
	struct hook_plan	 plan;
	char			 plan_text[96];
	unsigned		 have;		/* HAVE_*: what the source's records can tell */
	char			 na[HAVE_NBITS][160];	/* why a HAVE_* bit is off ("": not said) */
	struct proc_table	*procs;	/* per-process and per-file tables, NULL if none */
	struct phase_table	*phases;	/* marks and phases (model-phase.c) */
	struct reqpat		*reqpat;	/* requests waiting to be judged in start order (model-reqpat.c) */
	struct self_cost	 self;		/* blktop's own cost over the last report */
	uid_t			 uid;		/* who it runs as once started (privs.c) */

	/* each sink's options (above), handed to it by stream_add_sink */
	struct capture_opts	 capture_opts;
	struct batch_opts	 batch_opts;
	struct stack		*stack;		/* --stack's figures (src/stack.h), or NULL */
	struct metrics_opts	 metrics_opts;
	struct report_opts	 report_opts;
	struct dump_opts	 dump_opts;
	struct trace_opts	 trace_opts;
	struct ui_opts		 ui_opts;

	/* replay options (source-replay.c, import.c) */
	const char		*replay_path;	/* -r: the file, or the files' names joined */
	const char		*replay_files[MERGE_MAX_FILES];	/* -r FILE... */
	unsigned		 nreplay_files;	/* 0: replay_path alone */
	double			 speed;		/* --speed, 0 = as fast as possible, -1 = default */
	uint8_t			 opt_from[OPTIONS_MAX];	/* options.c: where each row's value came from */
	unsigned		 ndev_args;	/* -D as given, resolved once the source is known */
	const char		*dev_args[FILTER_MAX_DEVS];
};

/* Whether the -D filter keeps a device (no filter keeps all): on every record, inline. */
static inline int
stream_dev_wanted(const struct blktop *b, uint32_t dev)
{
	unsigned	 i;

	if (b->ndevs == 0)
		return (1);
	for (i = 0; i < b->ndevs; i++) {
		if (b->devs[i] == dev)
			return (1);
	}
	return (0);
}

/* stream.c, the filters' slow path */
int		 stream_proc_filter(const struct blktop *, uint32_t tgid, const char *comm,
		     uint64_t cgroup);

/* Whether the -p, -c and --cgroup filters keep a process (none keeps all): on every record, inline. */
static inline int
stream_proc_wanted(const struct blktop *b, uint32_t tgid, const char *comm, uint64_t cgroup)
{
	if (b->cgroup_id == 0 && b->ntgids == 0 && b->ncomms == 0)
		return (1);
	return (stream_proc_filter(b, tgid, comm, cgroup));
}

/* Wall time, in seconds since the epoch, of stream time ts (the source's clock). */
static inline double
stream_wall(const struct blktop *b, uint64_t ts)
{
	return ((double)((int64_t)ts + b->mono_to_wall) / 1e9);
}

/* sink-metrics.c: counters since start, served to Prometheus. */
extern const struct sink_entry sink_metrics;
int		 metrics_parse_listen(const char *, char *addr, size_t,
		     uint16_t *port, char **errp);

/* sink-metrics-http.c: the endpoint's HTTP/1.1 server, bounded against hostile clients. */
struct evbuffer;
struct http_request {
	int		 head;		/* HEAD: the reply's headers only */
	const char	*path;		/* the request target as sent */
	const char	*accept;	/* the Accept header, NULL if none */
};
struct http_reply {
	int		 status;
	const char	*reason;
	const char	*type;		/* Content-Type, NULL for none */
	const char	*extra;		/* more header lines, each ending in \r\n, or NULL */
	struct evbuffer	*body;		/* filled by the handler, even for HEAD */
};
struct metrics_http_stats {
	uint64_t	 accepted;
	uint64_t	 requests;	/* answered, errors included */
	uint64_t	 timed_out;	/* closed at a deadline */
	uint64_t	 refused_full;	/* at the connection cap: an idle one closed, or a 503 */
	uint64_t	 refused_fds;	/* accept() out of file descriptors */
	uint64_t	 refused_busy;	/* over the output budget */
};
struct http_server;
struct event_base;
typedef void	(*http_handler)(void *, const struct http_request *, struct http_reply *);
int		 metrics_http_bind(const char *addr, uint16_t port, char **errp);
struct http_server *metrics_http_start(struct blktop *, int fd, unsigned max_conns,
		     http_handler, void *);
const struct metrics_http_stats *metrics_http_stats(const struct http_server *);
unsigned	 metrics_http_nconns(const struct http_server *);
void		 metrics_http_free(struct http_server *);


/* privs.c */
int		 privs_drop(uid_t *, char **errp);
int		 privs_bpf_probe(int *errnop);
void		 privs_keep_bpf(void);
int		 privs_kept(const char **whyp);
void		 privs_print_probe(FILE *);
int		 privs_open_user(const char *, int flags);
int		 privs_sudo_uid(uid_t *);
int		 privs_sudo_ids(uid_t *, gid_t *, char **errp);

/* config.c: the config file, KEY = VALUE lines (doc/blktop.8, FILES). */
#define CONFIG_FILE_MAX		(64 * 1024)
#define CONFIG_ITEMS_MAX	128
#define CONFIG_KEY_MAX		40
#define CONFIG_VALUE_MAX	200
struct config_item {
	char		 key[CONFIG_KEY_MAX];
	char		 value[CONFIG_VALUE_MAX];
	unsigned	 line;
};
struct config {
	unsigned	 nitems;
	struct config_item items[CONFIG_ITEMS_MAX];
};
int		 config_default_path(char *, size_t, char **errp);
int		 config_parse(struct config *, const char *, size_t, char **errp);
int		 config_read(struct config *, const char *path, char **errp);
int		 config_write(const char *path, const char *text, char **errp);
const char	*config_insight_line(const struct blktop *, unsigned, char *, size_t);
const char	*config_value_why(const char *);
struct sink_entry;
void		 config_apply(struct sink *);
int		 config_load(struct blktop *, const char *path,
		     const struct sink_entry *view, char **errp);

/* model-self.c */
void		 self_reset(struct blktop *);
void		 self_sample(struct blktop *);

/* rec-type.c: the one table of record types; no other file switches on a record's type. */
struct rec_type {
	const char	*name;		/* "block", "open", ...: --dump's type column */
	size_t		 min_len;	/* its fixed part: a shorter record is malformed */
	size_t		 full_len;	/* 0, or a fixed size it grew to: shorter ones are zero-filled */
	size_t		 ts_off;	/* where its CLOCK_MONOTONIC ns time (uint64_t) is */
	int		 event;		/* counted as an event (ticks and losses are not) */
	int		 charges;	/* has a process, command and cgroup to charge */
	size_t		 tgid_off;	/* those fields, if charges */
	size_t		 comm_off;
	size_t		 cgroup_off;
	size_t		 dev_off[2];	/* its kernel dev_t fields (uint32_t), 0 past the last */
	int		(*valid)(const void *rec, size_t len);	/* more than min_len; NULL: nothing */
};
extern const struct rec_type rec_types[EV_MAX];
const struct rec_type *rec_type_of(uint32_t type);
uint64_t	 rec_type_ts(const void *rec, size_t len);
void		 rec_type_owner(const struct rec_type *, const void *rec, uint32_t *tgid,
		     const char **comm, uint64_t *cgroup);
int		 rec_type_tick(void *buf, size_t size, size_t *lenp, uint64_t ts);

/* stream.c: validate, count, hand to the sinks; one place closes reports. */
void		 stream_add_sink(struct blktop *, const struct sink_entry *, const void *opts);
int		 stream_start(struct blktop *, char **errp);
void		 stream_begin(struct blktop *, uint64_t ts);
int		 stream_event(struct blktop *, const void *rec, size_t len);
void		 stream_end(struct blktop *);
void		 stream_report(struct blktop *);
void		 stream_stop(struct blktop *);
void		 stream_notice(struct blktop *, const char *, ...) __printflike(2, 3);
void		 stream_set_ticks(struct blktop *, double history_secs);
int		 stream_sink_control(struct blktop *, const char *name, enum sink_ctl,
		     char **msg);
const char	*stream_sink_status(struct blktop *, const char *name);

/* source.c: the source of a run, whatever its kind. */
struct source	*source_create(struct blktop *, const struct source_entry *);
void		 source_free(struct source *);
int		 source_device(struct source *, const char *arg, uint32_t *dev,
		     char **errp);
uint64_t	 source_now(void);

/* source-live.c */
extern const struct source_entry source_live;
int		 live_check_privileges(char **errp);
void		 live_print_probe(const struct blktop *, FILE *);
int		 live_parse_hooks(const char *spec, struct hook_plan *, char **errp);

/* source-replay.c: captures and imported text logs, paced, with seek and step. */
#define REPLAY_SPEED_MIN	0.25
#define REPLAY_SPEED_MAX	64.0
extern const struct source_entry source_replay;
/* replay-file.c: one file of a replay, a capture or a text log, by its first bytes. */
struct replay_file;
struct replay_file *replay_file_open(const char *path, int quiet, char **errp);
int		 replay_file_next(struct replay_file *, void *buf, size_t size,
		     size_t *lenp);
const struct capture_header *replay_file_header(struct replay_file *);
void		 replay_file_close(struct replay_file *, uint64_t *skipped,
		     uint64_t *tail_lost);
int		 replay_header_device(const struct capture_header *, const char *arg,
		     uint32_t *dev, char **errp);
const char *const *replay_paths(const struct blktop *, unsigned *np);

/* source-merge.c: the files of one run (-r FILE...) as one stream in time order. */
struct merge;
struct merge_names;
struct merge	*merge_open(const char *const *paths, unsigned n, int quiet,
		     char **errp);
const struct capture_header *merge_header(struct merge *);
unsigned	 merge_nfiles(struct merge *);
const struct capture_header *merge_file_header(struct merge *, unsigned);
void		 merge_set_tick(struct merge *, uint64_t tick_ns);
int		 merge_next(struct merge *, void *buf, size_t size, size_t *lenp);
void		 merge_close(struct merge *, int report, uint64_t fed);
struct merge_names *merge_names_create(void);
void		 merge_names_free(struct merge_names *);
void		 merge_names_open(struct merge_names *, const void *rec, size_t len);
int		 merge_names_join(struct merge_names *, const void *rec, size_t len,
		     void *out, size_t size, size_t *outlen);
uint64_t	 merge_names_joined(const struct merge_names *);

/* sink-dump.c: --dump, every record of the replay as CSV or JSON Lines. */
#define REPLAY_DUMP_CSV		1
#define REPLAY_DUMP_JSONL	2
extern const struct sink_entry sink_dump;

/* sink-model.c: the windows and the process and file tables. */
extern const struct sink_entry sink_model;

/* sink-capture.c: the capture writer, flight recorder and trigger. */
extern const struct sink_entry sink_capture;

/* import.c: text logs of bpftrace scripts as event records. */
struct import;
struct capture_header;
/* What import_open found in a log's lines. */
struct import_counts {
	uint64_t	 records;	/* lines imported (alignment lines: used) */
	uint64_t	 malformed;	/* lines of the format that do not parse */
	unsigned long	 first_malformed; /* the first one's line number, 0 if none */
	uint64_t	 skipped;	/* lines that are no record: bpftrace's own (Attaching,
					   WARNING, ERROR, Lost), headers, blank lines,
					   anonymous mmaps */
	uint64_t	 notes;		/* ... of them bpftrace's WARNING and ERROR lines */
	uint64_t	 lost;		/* events bpftrace said it lost (EV_LOST records) */
};
struct import	*import_open(const char *path, char **errp);
int		 import_next(struct import *, void *buf, size_t size, size_t *lenp);
const struct capture_header *import_header(struct import *);
const struct import_counts *import_counts(const struct import *);
void		 import_close(struct import *);

/* sink-batch.c: -b and -J. */
extern const struct sink_entry sink_batch;
void		 batch_print_text(const struct batch_opts *, const struct blktop *,
		     double ts_wall, unsigned nticks);

/* mark.c: marks into a live run, blktop --mark. */
void		 mark_listen(struct blktop *);
void		 mark_close(void);
int		 mark_send(const char *label);
const char	*mark_label_bad(const char *, size_t);

/* sink-trace.c: --trace, a Chrome Trace Event file for Perfetto. */
extern const struct sink_entry sink_trace;
uint64_t	 trace_pool_bytes(uint64_t max_bytes);

/* sink-report.c: --report (report.h: its own declarations). */
extern const struct sink_entry sink_report;
/* ui/ui.c: the live terminal UI (ui/ui.h: its own declarations). */
extern const struct sink_entry sink_ui;

/* What a source's records can tell (struct blktop.have); a field without it is null, not 0. */
#define HAVE_FILES	0x1		/* block records name their file (live, captures 2.x) */
#define HAVE_DIRTY	0x2		/* page-dirty records (VFS_PAGES_DIRTY loaded) */
#define HAVE_FAULT	0x4		/* page-fault records (VFS_PAGES_FAULT loaded) */
#define HAVE_VFS	0x8		/* read/write call records */
#define HAVE_URING	0x10		/* io_uring read/write records */
#define HAVE_AIO	0x20		/* libaio read/write records */
#define HAVE_LIFE	0x40		/* lifecycle records (EV_FOP) and created opens */
#define HAVE_MUNMAP	0x80		/* munmaps among them (bpf_find_vma: 5.17) */
#define HAVE_FSYNC	0x100		/* fsync and fdatasync among them (live, captures since fsyncs were traced) */
#define HAVE_THROTTLE	0x200		/* dirtiers' pauses (VFS_PAGES_THROTTLE loaded) */
#define HAVE_TASK	0x400		/* the process tree: EV_TASK records (VFS_PAGES_TASK loaded) */
/* A HAVE_* bit's name and what it tells (source.c). */
struct have_entry {
	unsigned	 bit;
	const char	*name;
	const char	*what;
};
extern const struct have_entry have_table[HAVE_NBITS];
const char	*have_na(const struct blktop *, unsigned bit);
void		 have_set_na(struct blktop *, unsigned bit, const char *fmt, ...)
		     __printflike(3, 4);
size_t		 have_na_list(const struct blktop *, char *, size_t);

/* cgroup.c */
int		 cgroup_path(uint64_t id, char *out, size_t len);
int		 cgroup_v2_mount(const char *mountinfo, char *dir, size_t dirlen,
		     char *root, size_t rootlen);


/*
 * capture-*.c: capture files (doc/capture-format.md): capture-encode.c builds
 * chunks, capture-write.c writes a file, capture-flight.c keeps the last
 * seconds as chunks, capture-read.c reads, capture-header.c is the file header.
 */
#define CAPTURE_VERSION_MAJOR	3	/* 3.0: BLK_F_NODEVSTAT records carry no inflight, busy */
#define CAPTURE_VERSION_MAJOR_OLDEST 1	/* the oldest major read */
#define CAPTURE_VERSION_MINOR	0	/* 2.1: the process filter in the header (3.x: always) */
#define CAPTURE_REC_MAX		16384	/* longest record a capture stores */

/* A device named in a capture header. */
struct capture_dev {
	uint32_t	 dev;		/* kernel dev_t, major << 20 | minor */
	char		 name[DEVNAME_MAX];
};

/* What a capture file says about where and how it was recorded. */
struct capture_header {
	unsigned		 major;		/* set by the reader */
	unsigned		 minor;
	char			*version;	/* blktop version that wrote it */
	char			*host;
	char			*kernel;	/* uname -r */
	char			*plan;		/* probe plan */
	int64_t			 clock_offset;	/* wall ns = CLOCK_MONOTONIC ns + this */
	int			 has_clock;	/* clock_offset is known: a capture whose header
						   was read and says one (not 0), a log with
						   dates in its TIME column, a clock alignment
						   log; not written, set by the readers */
	uint64_t		 created;	/* wall ns when recording began */
	unsigned		 ndevs;
	struct capture_dev	*devs;
	uint64_t		 interval_ns;	/* -d in ns; 0 = neither it nor the filter
						   recorded (1.0 file: see the plan) */
	unsigned		 nfilter;	/* -D devices, 0 = all */
	uint32_t		*filter_devs;	/* their kernel dev_t; NULL if nfilter 0 */
	/*
	 * The process filter the model applied (since 2.1): what it took of
	 * the records, so that a replay takes the same. has_procs: recorded.
	 */
	int			 has_procs;
	uint64_t		 filter_cgroup;	/* --cgroup id, 0 = any */
	unsigned		 nfilter_pids;	/* -p */
	uint32_t		 filter_pids[FILTER_MAX_PIDS];
	unsigned		 nfilter_comms;	/* -c */
	char			 filter_comms[FILTER_MAX_COMMS][BLKTOP_COMM_LEN];
};

/* What a reader met: "replayed N events; skipped K damaged chunks; lost B bytes". */
struct capture_stats {
	uint64_t	 records;	/* records returned */
	uint64_t	 chunks;	/* chunks decoded */
	uint64_t	 skipped;	/* damaged chunks or runs of garbage skipped */
	uint64_t	 skipped_bytes;
	uint64_t	 tail_lost;	/* bytes at the end holding no whole chunk */
	const char	*header_damage;	/* why the file header was passed over, or NULL */
	int		 shrunk;	/* the file shrank while it was read */
};

/* capture-header.c */
size_t		 capture_header_build(const struct capture_header *, uint8_t **out);
const char	*capture_header_parse(struct capture_header *, const uint8_t *base,
		     size_t size, size_t *lenp);
void		 capture_header_free(struct capture_header *);
int		 capture_header_is_magic(const uint8_t *base, size_t size);
int		 capture_header_near_magic(const uint8_t *base, size_t size);

/* capture-write.c */
struct capture;
void __printflike(2, 3) capture_seterr(char **errp, const char *fmt, ...);
void		 capture_write_chunk(void *, const uint8_t *, size_t, uint64_t);
int64_t		 capture_clock_offset(void);
struct capture	*capture_create(const char *, const struct capture_header *,
		     char **errp);
int		 capture_add(struct capture *, const void *rec, size_t len);
int		 capture_flush(struct capture *);
const char	*capture_error(struct capture *);
void		 capture_writer_stats(struct capture *, uint64_t *records,
		     uint64_t *chunks, uint64_t *bytes);
int		 capture_close(struct capture *);

/* capture-flight.c */
struct capture_flight;
struct capture_flight *capture_flight_init(unsigned seconds, size_t max_bytes);
void		 capture_flight_add(struct capture_flight *, const void *rec,
		     size_t len);
void		 capture_flight_tick(struct capture_flight *, uint64_t now);
void		 capture_flight_usage(struct capture_flight *, size_t *bytes,
		     unsigned *chunks);
void		 capture_flight_free(struct capture_flight *);
struct capture	*capture_create_from_flight(const char *,
		     const struct capture_header *, struct capture_flight *,
		     char **errp);

/* capture-read.c */
struct capture_reader;
struct capture_reader *capture_open(const char *, char **errp);
struct capture_reader *capture_open_mem(const void *, size_t, char **errp);
int		 capture_next(struct capture_reader *, void *buf, size_t size,
		     size_t *lenp);
const struct capture_header *capture_reader_header(struct capture_reader *);
const struct capture_stats *capture_reader_stats(struct capture_reader *);
void		 capture_reader_close(struct capture_reader *);

/*
 * model-*.c: the model, bounded per-process and per-file tables fed by the stream (see
 * proc_mem_bound for the memory).
 */
/* model-proc.c */
#define PROC_DEF_PROCS		4096	/* default cap on tracked processes (threads) */
#define PROC_DEF_FILES		16384	/* default cap on tracked files */
#define PROC_MAX_ENTRIES	(1u << 24)
#define PROC_FILE_PIDS		8	/* distinct tgids remembered per file */
#define PROC_CHUNK_SIZE		64	/* paths are stored in chunks of this size... */
#define PROC_CHUNKS_PER_FILE	2	/* ...this many per file in the pool: longer paths evict */
#define PROC_INO_WAYS		4	/* files by inode: ways per set, 2 slots per file */
enum proc_key {
	PROC_KEY_READ_BYTES,		/* block bytes read */
	PROC_KEY_WRITE_BYTES,
	PROC_KEY_READ_IOS,		/* block read requests */
	PROC_KEY_WRITE_IOS,
	PROC_KEY_VFS_READ_BYTES,	/* bytes done by read-family calls */
	PROC_KEY_VFS_WRITE_BYTES,
	PROC_KEY_VFS_READS,		/* read-family calls */
	PROC_KEY_VFS_WRITES,
	PROC_KEY_OPENS,			/* opens, failed ones included */
	PROC_KEY_LAT,			/* time in I/O: call latencies + device time, ns */
	PROC_KEY_DISK_READ_BYTES,	/* bytes read from a device on its behalf */
	PROC_KEY_DISK_WRITE_BYTES,	/* bytes written on its behalf, writeback included */
	PROC_KEY_NEVER_READ,		/* bytes written and never read (wear.h) */
	PROC_KEY_MAX
};
/* Counters of a process or file over one interval or since first seen; [0] read, [1] write. */
struct proc_counts {
	uint64_t	 blk_ios[2];	/* block requests completed (processes only) */
	uint64_t	 blk_bytes[2];
	uint64_t	 blk_lat_sum;	/* device time, issue to done, ns */
	uint64_t	 blk_wait_sum;	/* start to done, ns: the depth it kept, integrated (req_depth) */
	uint64_t	 vfs_calls[2];	/* read/write family calls */
	uint64_t	 vfs_bytes[2];	/* bytes done */
	uint64_t	 vfs_asked[2];	/* bytes asked */
	uint64_t	 vfs_errors;
	uint64_t	 vfs_lat_sum;	/* ns */
	uint64_t	 vfs_lat_max;
	uint64_t	 opens;
	uint64_t	 open_fails;
	/*
	 * Bytes that reached the device on its behalf, whatever the path: page
	 * cache fills (read misses, readahead, mmap faults), writeback of the
	 * pages it dirtied (charged to the dirtier, not the flusher), direct I/O.
	 */
	uint64_t	 disk_bytes[2];
	uint64_t	 disk_ios[2];	/* files: block requests that carried its pages */
	uint64_t	 fill_bytes;	/* disk reads into the page cache (of disk_bytes[0]) */
	uint64_t	 direct_read_bytes;	/* of vfs_bytes[0]: what O_DIRECT reads returned, from the device */
	uint64_t	 wb_bytes;	/* processes: writeback others did for it (of disk_bytes[1]) */
	uint64_t	 dirtied_bytes;	/* page-cache bytes it dirtied */
	uint64_t	 mmap_faults;	/* faults served by a file mapping */
	uint64_t	 throttles;	/* processes: pauses the kernel made it take for dirtying pages */
	uint64_t	 throttle_ms;	/* ... and their length, ms */
	uint64_t	 uring_calls[2];	/* of vfs_calls: io_uring reads, writes */
	uint64_t	 aio_calls[2];	/* of vfs_calls: libaio reads, writes */
	/* Lifecycle (EV_FOP; creates also from opens that made their file). */
	uint64_t	 fops[FOP_MAX];	/* calls by enum blktop_fop, failed ones included */
	uint64_t	 creates;	/* opens that created the file, mknods */
	uint64_t	 fop_errors;	/* lifecycle calls that failed */
	uint64_t	 fop_lat_sum;	/* ns, lifecycle calls */
	struct wear_counts wear;	/* what became of the bytes written (wear.h) */
};
/* An interval's latencies of a process or file: 32-bit buckets, how many, the exact extremes. */
struct proc_hist {
	uint64_t		 n;
	uint64_t		 min;		/* 0 when n is 0 */
	uint64_t		 max;
	uint32_t		 b[HIST_NBUCKETS];
};
/* A process (tgid, threads folded in) or, in the per-thread view, a thread. */
struct proc_entry {
	uint32_t		 id;		/* tgid, or tid when by_thread */
	uint32_t		 tgid;
	char			 comm[BLKTOP_COMM_LEN];	/* main thread's when folded */
	uint64_t		 cgroup;
	uint64_t		 first_ts;	/* stream time first and last seen */
	uint64_t		 last_ts;
	uint64_t		 epoch;		/* interval iv and the histograms belong to */
	struct proc_counts	 iv;		/* use proc_entry_counts() */
	struct proc_counts	 tot;
	struct proc_hist	 blk_lat;	/* interval: device latency */
	struct proc_hist	 vfs_lat;	/* interval: read/write call latency */
	struct pattern		 pat;		/* its calls' access pattern, since first seen */
};
/* A file, by path (pseudo ones as pipe:[ino], socket:[ino], anon_inode:[eventfd], memfd:NAME). */
struct file_entry {
	uint64_t		 hash;		/* private to model-file.c */
	uint64_t		 ino;
	uint64_t		 first_ts;
	uint64_t		 last_ts;
	uint64_t		 epoch;
	struct proc_counts	 iv;		/* use proc_file_counts() */
	struct proc_counts	 tot;
	struct proc_hist	 lat;		/* interval: read/write call latency */
	struct proc_hist	 blk_lat;	/* interval: device latency of its requests */
	struct pattern		 pat;		/* its calls' access pattern, since first seen */
	struct pat_touched	 touched;	/* the byte ranges its reads covered, since first seen */
	struct file_wear	 wear;		/* the ranges written, not read back (wear.h) */
	struct req_pattern	 rpat;		/* the requests that carried its pages, since first seen */
	uint32_t		 pids[PROC_FILE_PIDS];	/* tgids that touched it */
	uint32_t		 dirtier;	/* process (table id) that last dirtied it, 0 if none */
	uint32_t		 map;		/* private to model-pattern.c: its offset map + 1, 0 none */
	uint8_t			 npids;
	uint8_t			 pids_more;	/* more than PROC_FILE_PIDS did */
	uint16_t		 ftype;		/* enum blktop_vfs_ftype, last seen */
	uint16_t		 path_flags;	/* VFS_PF_*, last seen */
	uint16_t		 path_len;
	uint32_t		 dev;
	uint32_t		 chunk;		/* private to model-file.c */
};
struct proc_stats {
	unsigned	 procs, max_procs, files, max_files;
	uint64_t	 procs_evicted, files_evicted;
	uint64_t	 procs_evicted_interval, files_evicted_interval;	/* since the last report */
	unsigned	 chunks_used, nchunks;
	uint64_t	 bad;		/* malformed records refused by proc_add(_typed) */
	uint64_t	 pairs_evicted;	/* (process, file) positions dropped for room (model-pattern.c) */
	uint64_t	 pattern_early;	/* calls judged before their 0.3 s: the ring was full */
	uint64_t	 pattern_late;	/* calls judged out of order: past MODEL_PATTERN_REORDER */
	uint64_t	 pattern_gone;	/* calls not judged: their file left the table first */
	uint64_t	 maps_reused;	/* files' offset maps given to another file (model-pattern.c) */
	unsigned	 pairs;		/* positions the table holds */
	int		 by_thread;
};
struct proc_table;		/* private to model-*.c (model.h) */
struct proc_table *proc_create(unsigned max_procs, unsigned max_files, int by_thread);
void		 proc_free(struct proc_table *);
size_t		 proc_mem_bound(unsigned max_procs, unsigned max_files);
int		 proc_add(struct proc_table *, const void *rec, size_t len);
int		 proc_add_typed(struct proc_table *, const struct rec_type *,
		     const void *rec, size_t len);
void		 proc_add_block(struct proc_table *, const void *rec);
void		 proc_add_open(struct proc_table *, const void *rec);
void		 proc_add_rw(struct proc_table *, const void *rec);
void		 proc_add_page(struct proc_table *, const void *rec);
void		 proc_add_fop(struct proc_table *, const void *rec);
void		 proc_interval(struct proc_table *);
const struct proc_counts *proc_sum(const struct proc_table *);
const struct proc_counts *proc_entry_counts(const struct proc_table *,
		     const struct proc_entry *, int total);
const struct proc_counts *proc_file_counts(const struct proc_table *,
		     const struct file_entry *, int total);
const struct proc_hist *proc_entry_hist(const struct proc_table *,
		     const struct proc_entry *, int block);
const struct proc_hist *proc_file_hist(const struct proc_table *,
		     const struct file_entry *, int block);
double		 proc_hist_pct(const struct proc_hist *, double p);
uint64_t	 proc_entry_lat(const struct proc_table *, const struct proc_entry *,
		     int block, double p);
uint64_t	 proc_file_lat(const struct proc_table *, const struct file_entry *, double p);
uint64_t	 proc_file_blk_lat(const struct proc_table *, const struct file_entry *, double p);
double		 proc_cache_hit_pct(unsigned have, const struct proc_counts *);
void		 proc_stats(const struct proc_table *, struct proc_stats *);

/* model-reqpat.c */
struct reqpat	*reqpat_create(void);
void		 reqpat_free(struct reqpat *);
void		 reqpat_reset(struct reqpat *);
void		 reqpat_stats(const struct reqpat *, uint64_t *early, uint64_t *late);
void		 reqpat_add(struct blktop *, const struct ev_block *, uint32_t file, uint64_t fhash);
void		 reqpat_flush(struct blktop *, uint64_t upto);

/* model-pattern.c */
size_t		 model_pattern_size(unsigned max_files);
void		 model_pattern_init(struct proc_table *, unsigned max_files);
void		 model_pattern_free(struct proc_table *);
const struct pat_map *model_file_map(const struct proc_table *, const struct file_entry *);
void		 model_pattern_add(struct proc_table *, struct proc_entry *, struct file_entry *,
		     const struct ev_rw *);
void		 model_pattern_access(struct proc_table *, struct proc_entry *, struct file_entry *,
		     uint64_t ts, uint64_t lat_ns, int64_t off, uint64_t bytes, enum pat_dir);
void		 model_pattern_open(struct proc_table *, struct proc_entry *, struct file_entry *,
		     uint64_t ts);
int64_t		 model_fault_offset(const struct ev_page *);
void		 proc_file_req_add(struct proc_table *, uint32_t file, uint64_t fhash, enum pat_dir,
		     uint64_t off, uint64_t bytes);
uint32_t	 proc_block_file_last(const struct proc_table *, uint64_t *fhash);
void		 proc_pattern_flush(struct proc_table *, uint64_t upto);
#define MODEL_PATTERN_DELAY_NS	300000000ULL	/* > the live source's drain period (100 ms) x 2 */
#define MODEL_PATTERN_REORDER	4096	/* a call moves back past this many later ones at most */

/* model-file.c */
size_t		 model_file_table_size(unsigned max_files);
void		 model_file_table_init(struct proc_table *, unsigned max_files);
void		 model_file_table_free(struct proc_table *);
struct file_entry *model_file_event(struct proc_table *, const char *path, uint16_t len,
		     uint16_t pflags, uint16_t ftype, uint64_t ino, uint32_t tgid, uint64_t ts);
struct file_entry *model_file_by_ino(struct proc_table *, uint32_t dev, uint64_t ino,
		     uint64_t ts);
struct file_entry *model_file_named(struct proc_table *, const char *name, uint64_t ts);
void		 model_file_add_pid(struct file_entry *, uint32_t tgid);
void		 model_file_set_ino(struct proc_table *, struct file_entry *, uint32_t dev,
		     uint64_t ino);
const struct file_entry *model_file_find(struct proc_table *, const char *path);
size_t		 model_file_path(const struct proc_table *, const struct file_entry *,
		     char *buf, size_t len);

/* model-top.c */
#define PROC_TOP_MAX	10000	/* most entries one top call returns: --top's bound */
unsigned	 proc_top(const struct proc_table *, enum proc_key, int total,
		     const struct proc_entry **out, unsigned n);
unsigned	 proc_top_files(const struct proc_table *, enum proc_key, int total,
		     const struct file_entry **out, unsigned n);
void		 proc_each_file(const struct proc_table *,
		     void (*)(void *, const struct file_entry *), void *);
void		 proc_each(const struct proc_table *,
		     void (*)(void *, const struct proc_entry *), void *);

/* json.c: the rows -J and --report OUT.json share (doc/blktop.schema.json). */
void		 json_string(FILE *, const char *);
void		 json_val(FILE *, int known, int prec, double);
void		 json_num(FILE *, const char *name, int known, int prec, double);
void		 json_sum(FILE *, const struct blktop *, const struct proc_counts *);
void		 json_req_pattern(FILE *, const struct req_pattern *, const struct req_extra *);
void		 json_qd_more(FILE *, const struct sum *);
void		 json_proc(FILE *, const struct blktop *, const struct proc_entry *, int whole);
void		 json_insights(FILE *, const struct blktop *);
void		 json_file(FILE *, const struct blktop *, const struct file_entry *, int whole);

#endif
