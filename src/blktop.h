/*
 * blktop.h: the run (struct blktop: the options the user gave, struct
 * run_opts, and the run's state) and the stream that carries it, and the
 * one header a file that needs all of blktop includes. It pulls in the
 * layers' own headers, each of which includes nothing of the layers above:
 *
 *   base.h          compiler helpers, time units, log, names, devices, histograms
 *   event.h         the record types' table, HAVE_* bits (over bpf/blktop-abi.h)
 *   sources.h       a kind of source and its instance, the live and replay entries
 *   replay.h        the files a replay reads: replay-file.c, source-merge.c, import.c
 *   capture-file.h  a capture file's header, writer, flight recorder and reader
 *   window.h        the model of devices: ticks, windows, depths, sums
 *   phase.h         marks and phases
 *   proc.h          the model of processes and files
 *   sinks.h         a kind of sink and its instance, each sink's options and entry
 *   metrics.h       the metrics endpoint's HTTP server
 *   config-file.h   the config file's KEY = VALUE lines
 *   fields.h        the field tables, shared text formats, json.c's writers
 *
 * The private headers of a part (model.h, capture.h, import.h,
 * source-live.h, report.h, trace.h, ui/ui.h) are included by the files of
 * that part alone. A file below the run (one that needs no struct blktop)
 * includes base.h and its layer's header instead of this one.
 *
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

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "base.h"
#include "event.h"
#include "pattern.h"
#include "wear.h"
#include "insight.h"
#include "sources.h"
#include "replay.h"
#include "capture-file.h"
#include "window.h"
#include "phase.h"
#include "proc.h"
#include "sinks.h"
#include "metrics.h"
#include "config-file.h"
#include "fields.h"

struct event_base;

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

#define OPTIONS_MAX	96		/* rows of the option table (options-table.c) at most */

/*
 * What the user asked of the run: filled by the option table (options.c,
 * options-table.c: the command line, a capture, the config file, the
 * defaults) and resolved once the source is known (-D, --cgroup); the run
 * reads them. Each sink's options are in a struct of its own (sinks.h).
 */
struct run_opts {
	int			 batch;		/* -b */
	double			 interval;	/* -d, seconds */
	long			 count;		/* -n, 0 = forever */
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

	/* each sink's options (sinks.h), handed to it by stream_add_sink */
	struct capture_opts	 capture_opts;
	struct batch_opts	 batch_opts;
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

/* Everything one run of blktop knows: its options, then its state. */
struct blktop {
	struct run_opts		 opt;		/* what the user asked (above) */

	struct event_base	*base;
	struct source		*src;
	struct sink		 sinks[STREAM_MAX_SINKS];	/* in stream order */
	unsigned		 nsinks;
	struct sink		*event_sinks[STREAM_MAX_SINKS];	/* those taking records */
	unsigned		 nevent_sinks;
	int			 event_sinks_stale;	/* a sink went idle: the list at the next tick */
	void			 (*notice)(void *, const char *);	/* view's, */
	void			*notice_arg;				/* with its state */
	struct windows		 win;
	unsigned		 nticks;	/* history length in ticks (stream_set_ticks) */
	char			 vfs_plan[32];	/* the vfs hooks the live source chose */

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
	char			 plan_text[1024];	/* the hooks (a replay: its files', whole hook names) */
	unsigned		 have;		/* HAVE_*: what the source's records can tell */
	char			 na[HAVE_NBITS][160];	/* why a HAVE_* bit is off ("": not said) */
	struct proc_table	*procs;	/* per-process and per-file tables, NULL if none */
	struct phase_table	*phases;	/* marks and phases (model-phase.c) */
	struct reqpat		*reqpat;	/* requests waiting to be judged in start order (model-reqpat.c) */
	struct stack		*stack;		/* --stack's figures (src/stack.h), or NULL */
	struct self_cost	 self;		/* blktop's own cost over the last report */
	uid_t			 uid;		/* who it runs as once started (privs.c) */
};

/* Wall time, in seconds since the epoch, of stream time ts (the source's clock). */
static inline double
stream_wall(const struct blktop *b, uint64_t ts)
{
	return ((double)((int64_t)ts + b->mono_to_wall) / 1e9);
}

/* privs.c */
int		 privs_drop(uid_t *, char **errp);
int		 privs_bpf_probe(int *errnop);
void		 privs_keep_bpf(void);
int		 privs_kept(const char **whyp);
void		 privs_print_probe(FILE *);
int		 privs_open_user(const char *, int flags);
int		 privs_sudo_uid(uid_t *);
int		 privs_sudo_ids(uid_t *, gid_t *, char **errp);

/* model-self.c */
void		 self_reset(struct blktop *);
void		 self_sample(struct blktop *);

/* stream.c: validate, count, hand to the sinks; one place closes reports. */
void		 stream_add_sink(struct blktop *, const struct sink_entry *, const void *opts);
void		 stream_sink_idle(struct sink *, int idle);
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

/* cgroup.c */
int		 cgroup_path(uint64_t id, char *out, size_t len);
int		 cgroup_v2_mount(const char *mountinfo, char *dir, size_t dirlen,
		     char *root, size_t rootlen);

#endif
