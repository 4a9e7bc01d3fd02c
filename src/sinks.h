/*
 * sinks.h: what consumes the stream: a kind of sink as a table entry
 * (struct sink_entry) and its instance, each sink's options struct, and
 * every sink's entry (sink-*.c, ui/ui.c). For stream.c, which calls them,
 * the sinks themselves, the option table that fills their options, and
 * main.c, which registers them.
 */
#ifndef BLKTOP_SINKS_H
#define BLKTOP_SINKS_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "host.h"

struct blktop;
struct rec_type;
struct sink;

/*
 * A kind of sink: what consumes the stream, in the order registered
 * (capture, model, then a view). Every callback is optional.
 */
/*
 * The stream's verdict on a record, decided once (stream_keep): each sink
 * takes what it needs of it; the capture keeps every record.
 */
#define STREAM_KEEP_DEV		0x1	/* -D keeps its device, or it names none the filter asks */
#define STREAM_KEEP_PROC	0x2	/* -p, -c, --cgroup keep its process, or it charges none */
#define STREAM_KEEP_ALL		(STREAM_KEEP_DEV | STREAM_KEEP_PROC)

/* What the view can ask of a sink. */
enum sink_ctl {
	SINK_CTL_TOGGLE,	/* start or stop (the capture sink: `r`) */
};

struct sink_entry {
	const char	*name;
	int		 output;	/* writes reports: quiet while the stream is silent */
	int		 (*start)(struct sink *, char **errp);
	void		 (*begin)(struct sink *, uint64_t ts);	/* the windows open at ts */
	/*
	 * A record of at least its type's fixed length: rt its entry, NULL for
	 * a type unknown here; keep the filters' verdict on it (STREAM_KEEP_*).
	 */
	void		 (*event)(struct sink *, const struct rec_type *rt, const void *rec,
			     size_t len, unsigned keep);
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
	int		 idle;	/* takes no records for now (stream_sink_idle) */
};

#define STREAM_MAX_SINKS 8

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
	const char	*hostname;	/* --hostname: the host a capture names, NULL: uname's */
	unsigned	 nlabels;	/* --label KEY=VALUE, checked */
	struct host_label labels[HOST_LABELS_MAX];
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

/* sink-metrics.c: counters since start, served to Prometheus. */
extern const struct sink_entry sink_metrics;
int		 metrics_parse_listen(const char *, char *addr, size_t,
		     uint16_t *port, char **errp);

/* sink-dump.c: --dump, every record of the replay as CSV or JSON Lines. */
#define REPLAY_DUMP_CSV		1
#define REPLAY_DUMP_JSONL	2
extern const struct sink_entry sink_dump;

/* sink-model.c: the windows and the process and file tables. */
extern const struct sink_entry sink_model;

/* sink-capture.c: the capture writer, flight recorder and trigger. */
extern const struct sink_entry sink_capture;

/* sink-batch.c: -b and -J. */
extern const struct sink_entry sink_batch;
void		 batch_print_text(const struct batch_opts *, const struct blktop *,
		     double ts_wall, unsigned nticks);

/* sink-trace.c: --trace, a Chrome Trace Event file for Perfetto. */
extern const struct sink_entry sink_trace;
uint64_t	 trace_pool_bytes(uint64_t max_bytes);

/* sink-report.c: --report (report.h: its own declarations). */
extern const struct sink_entry sink_report;
/* ui/ui.c: the live terminal UI (ui/ui.h: its own declarations). */
extern const struct sink_entry sink_ui;

#endif /* BLKTOP_SINKS_H */
