/* options-table.c: every option of a run, one row each: names, argument, bounds, default, config key, help. */

#include <sys/stat.h>
#include <sys/vfs.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blktop.h"
#include "fields.h"
#include "options.h"

#define OPTION_STR(x)	#x
#define OPTION_XSTR(x)	OPTION_STR(x)
/* Where a value is: in struct blktop, or in main's struct options. */
#define AT(f)		.off = offsetof(struct blktop, opt.f), .size = sizeof(((struct blktop *)0)->opt.f)
#define LOCAL(f)	.off = offsetof(struct options, f), \
			.size = sizeof(((struct options *)0)->f)
#define INSIGHT(k, t, lo, hi, h)	{ .key = "insight." #k, .type = t, .min = lo, \
			.max = hi, AT(insight.k), .help = h }

/* The value of row e as this run has it (struct blktop or main's options). */
static void *
options_table_at(struct options *o, const struct option_entry *e)
{
	return ((e->flags & OPTION_LOCAL) ? (char *)o + e->off : (char *)o->b + e->off);
}

/* A number of a row read by its call, the message naming the option. */
static int
options_table_number(const struct option_entry *e, enum option_type kind, const char *arg,
    double *v, char **errp)
{
	char	*why;

	if (options_number(e, kind, arg, v, &why) == 0)
		return (0);
	xasprintf(errp, "%s: %s", options_name(e), why);
	free(why);
	return (-1);
}

/* -J: JSON Lines reports, which are batch reports. */
static int
options_table_json(struct options *o, __unused const struct option_entry *e,
    __unused const char *arg, __unused enum option_from from, __unused char **errp)
{
	o->b->opt.batch = o->b->opt.batch_opts.json = 1;
	return (0);
}

/* --stack: the latency stack's histograms and verdicts, a batch run's own output (src/stack.h). */
static int
options_table_stack(struct options *o, __unused const struct option_entry *e,
    __unused const char *arg, __unused enum option_from from, __unused char **errp)
{
	o->b->opt.batch = o->b->opt.batch_opts.stack = 1;
	return (0);
}

/* -D: one more device, named as the run's source names them once it is known. */
static int
options_table_device(struct options *o, __unused const struct option_entry *e, const char *arg,
    __unused enum option_from from, char **errp)
{
	struct blktop	*b = o->b;

	if (b->opt.ndev_args == FILTER_MAX_DEVS) {
		xasprintf(errp, "-D: at most %d devices", FILTER_MAX_DEVS);
		return (-1);
	}
	b->opt.dev_args[b->opt.ndev_args++] = arg;
	return (0);
}

/* -t: a theme name or file, checked by main; on the config file's line, the report's theme. */
static int
options_table_theme(struct options *o, __unused const struct option_entry *e, const char *arg,
    enum option_from from, __unused char **errp)
{
	o->b->opt.report_opts.theme = arg;
	if (from == OPTION_FROM_COMMAND)
		o->theme = arg;
	return (0);
}

/* -r: one more file of the replay. */
static int
options_table_read(struct options *o, __unused const struct option_entry *e, const char *arg,
    __unused enum option_from from, char **errp)
{
	struct blktop	*b = o->b;

	if (b->opt.nreplay_files == MERGE_MAX_FILES) {
		xasprintf(errp, "-r: at most %d files in one replay", MERGE_MAX_FILES);
		return (-1);
	}
	b->opt.replay_files[b->opt.nreplay_files++] = arg;
	return (0);
}

/* --compare: the files are two runs (or two sets apart by --), compared (options_parse: in the UI or as -b). */
static int
options_table_compare(struct options *o, __unused const struct option_entry *e,
    __unused const char *arg, __unused enum option_from from, __unused char **errp)
{
	o->compare = 1;
	return (0);
}

/* --speed: a factor within the row's bounds (an x after it allowed), or max. */
static int
options_table_speed(struct options *o, const struct option_entry *e, const char *arg,
    __unused enum option_from from, char **errp)
{
	char	*end;
	double	 v;

	if (strcmp(arg, "max") == 0) {
		o->b->opt.speed = 0;
		return (0);
	}
	errno = 0;
	v = strtod(arg, &end);
	if (end > arg && (*end == 'x' || *end == 'X') && end[1] == '\0')
		end++;
	if (errno != 0 || end == arg || *end != '\0' || !isfinite(v) || v < e->min || v > e->max) {
		xasprintf(errp, "--speed: '%s' is not a speed from %g to %g or max", arg, e->min,
		    e->max);
		return (-1);
	}
	o->b->opt.speed = v;
	return (0);
}

/* --dump: every record as a row, CSV unless --format says otherwise. */
static int
options_table_dump(struct options *o, __unused const struct option_entry *e,
    __unused const char *arg, __unused enum option_from from, __unused char **errp)
{
	if (o->b->opt.dump_opts.format == 0)
		o->b->opt.dump_opts.format = REPLAY_DUMP_CSV;
	return (0);
}

/* --format: the dump's rows as csv or jsonl. */
static int
options_table_format(struct options *o, __unused const struct option_entry *e, const char *arg,
    __unused enum option_from from, char **errp)
{
	if (strcmp(arg, "csv") == 0)
		o->b->opt.dump_opts.format = REPLAY_DUMP_CSV;
	else if (strcmp(arg, "jsonl") == 0)
		o->b->opt.dump_opts.format = REPLAY_DUMP_JSONL;
	else {
		xasprintf(errp, "--format: '%s' is not csv or jsonl", arg);
		return (-1);
	}
	return (0);
}

/* -p: one more process. */
static int
options_table_pid(struct options *o, const struct option_entry *e, const char *arg,
    __unused enum option_from from, char **errp)
{
	struct blktop	*b = o->b;
	double		 v;

	if (b->opt.ntgids == FILTER_MAX_PIDS) {
		xasprintf(errp, "-p: at most %d processes", FILTER_MAX_PIDS);
		return (-1);
	}
	if (options_table_number(e, OPTION_WHOLE, arg, &v, errp) != 0)
		return (-1);
	b->opt.tgids[b->opt.ntgids++] = (uint32_t)v;
	return (0);
}

/* --job: one more process whose subtree is a job. */
static int
options_table_job(struct options *o, const struct option_entry *e, const char *arg,
    __unused enum option_from from, char **errp)
{
	struct blktop	*b = o->b;
	double		 v;

	if (b->opt.njob_pids == nitems(b->opt.job_pids)) {
		xasprintf(errp, "--job: at most %zu processes", nitems(b->opt.job_pids));
		return (-1);
	}
	if (options_table_number(e, OPTION_WHOLE, arg, &v, errp) != 0)
		return (-1);
	b->opt.job_pids[b->opt.njob_pids++] = (uint32_t)v;
	return (0);
}

/* -c: one more command name. */
static int
options_table_comm(struct options *o, __unused const struct option_entry *e, const char *arg,
    __unused enum option_from from, char **errp)
{
	struct blktop	*b = o->b;

	if (b->opt.ncomms == FILTER_MAX_COMMS) {
		xasprintf(errp, "-c: at most %d names", FILTER_MAX_COMMS);
		return (-1);
	}
	if (*arg == '\0' || strlen(arg) >= BLKTOP_COMM_LEN) {
		xasprintf(errp, "-c: '%s' is not a command name (1 to %d characters)", arg,
		    BLKTOP_COMM_LEN - 1);
		return (-1);
	}
	b->opt.comms[b->opt.ncomms++] = arg;
	return (0);
}

/* --hostname: the host name a capture records, checked. */
static int
options_table_hostname(struct options *o, __unused const struct option_entry *e, const char *arg,
    __unused enum option_from from, char **errp)
{
	if (host_name_check(arg, errp) != 0)
		return (-1);
	o->b->opt.capture_opts.hostname = arg;
	return (0);
}

/* --label: one more KEY=VALUE a capture records. */
static int
options_table_label(struct options *o, __unused const struct option_entry *e, const char *arg,
    __unused enum option_from from, char **errp)
{
	struct capture_opts	*c = &o->b->opt.capture_opts;
	unsigned		 i;

	if (c->nlabels == HOST_LABELS_MAX) {
		xasprintf(errp, "--label: at most %d labels", HOST_LABELS_MAX);
		return (-1);
	}
	if (host_label_parse(arg, &c->labels[c->nlabels], errp) != 0)
		return (-1);
	for (i = 0; i < c->nlabels; i++) {
		if (strcmp(c->labels[i].key, c->labels[c->nlabels].key) == 0) {
			xasprintf(errp, "--label: %s given twice", c->labels[i].key);
			return (-1);
		}
	}
	c->nlabels++;
	return (0);
}

/* --cgroup: a cgroup v2 directory, absolute or under /sys/fs/cgroup, kept by its id (inode). */
static int
options_table_cgroup(struct options *o, __unused const struct option_entry *e, const char *arg,
    __unused enum option_from from, char **errp)
{
	char		 path[PATH_MAX];
	struct stat	 st;
	struct statfs	 sf;

	if (*arg == '/' && strncmp(arg, "/sys/fs/cgroup", 14) == 0)
		snprintf(path, sizeof path, "%s", arg);
	else
		snprintf(path, sizeof path, "/sys/fs/cgroup/%s", arg + (*arg == '/'));
	if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
		xasprintf(errp, "--cgroup: '%s' is not a cgroup directory (%s)", arg, path);
		return (-1);
	}
	if (statfs(path, &sf) != 0 || sf.f_type != 0x63677270) {	/* CGROUP2_SUPER_MAGIC */
		xasprintf(errp, "--cgroup: '%s' is not on a cgroup v2 file system", path);
		return (-1);
	}
	o->b->opt.cgroup_path = arg;
	o->b->opt.cgroup_id = (uint64_t)st.st_ino;
	return (0);
}

/* The sort keys, for --help and -o's message. */
static const char *
options_table_sort_words(unsigned i)
{
	return (i < PROC_KEY_MAX ? field_key_name((int)i) : NULL);
}

/* -o: the tables' order, a sort key by its name. */
static int
options_table_sort(struct options *o, const struct option_entry *e, const char *arg,
    __unused enum option_from from, char **errp)
{
	char		*list = NULL, *s;
	const char	*w;
	unsigned	 i;
	int		 k;

	if ((k = field_key_parse(arg)) >= 0) {
		o->sort_key = k;
		return (0);
	}
	for (i = 0; (w = e->words(i)) != NULL; i++) {
		xasprintf(&s, "%s%s%s", list != NULL ? list : "", list != NULL ? ", " : "", w);
		free(list);
		list = s;
	}
	xasprintf(errp, "-o: unknown sort key '%s' (%s)", arg, list);
	free(list);
	return (-1);
}

/* The insights' thresholds, for --help: the rows of insight.* keys. */
static const char *
options_table_insight_words(unsigned i)
{
	unsigned	 k;

	for (k = 0; k < options_table_count; k++) {
		if (options_table[k].key != NULL &&
		    strncmp(options_table[k].key, "insight.", 8) == 0 && i-- == 0)
			return (options_table[k].key + 8);
	}
	return (NULL);
}

/* --insight KEY=VALUE: one threshold of the insights (KEY with or without "insight."). */
static int
options_table_insight(struct options *o, __unused const struct option_entry *e, const char *arg,
    enum option_from from, char **errp)
{
	char		 key[64], *why = NULL;
	const char	*eq = strchr(arg, '=');
	int		 n, rc;

	if (eq == NULL || eq == arg) {
		xasprintf(errp, "--insight '%s': not KEY=VALUE", arg);
		return (-1);
	}
	n = snprintf(key, sizeof key, "%s%.*s", strncmp(arg, "insight.", 8) == 0 ? "" :
	    "insight.", (int)(eq - arg), arg);
	if (n < 0 || (size_t)n >= sizeof key ||
	    (rc = options_key(o, key, eq + 1, from, &why)) == 0) {
		xasprintf(errp, "--insight: no threshold '%.*s' (doc/insights.md lists them)",
		    (int)(eq - arg), arg);
		return (-1);
	}
	if (rc < 0) {
		xasprintf(errp, "--insight %.*s: %s", (int)(eq - arg), arg, why);
		free(why);
		return (-1);
	}
	return (0);
}

/* --report and --trace: a file name, not empty. */
static int
options_table_file(struct options *o, const struct option_entry *e, const char *arg,
    __unused enum option_from from, char **errp)
{
	if (*arg == '\0') {
		xasprintf(errp, "--%s needs a file name", e->name);
		return (-1);
	}
	*(const char **)options_table_at(o, e) = arg;
	return (0);
}

/* --trace-offset: seconds added to the trace's times, in ns. */
static int
options_table_trace_offset(struct options *o, const struct option_entry *e, const char *arg,
    __unused enum option_from from, char **errp)
{
	double	 v;

	if (options_table_number(e, OPTION_SECS, arg, &v, errp) != 0)
		return (-1);
	o->b->opt.trace_opts.offset_ns = (int64_t)llround(1e9 * v);
	return (0);
}

/* --trace-max: MB, in bytes (main checks it against this machine's memory). */
static int
options_table_trace_max(struct options *o, const struct option_entry *e, const char *arg,
    __unused enum option_from from, char **errp)
{
	double	 v;

	if (options_table_number(e, OPTION_WHOLE, arg, &v, errp) != 0)
		return (-1);
	o->b->opt.trace_opts.max_bytes = (uint64_t)v << 20;
	return (0);
}

/* --config FILE and --no-config: the last one given wins. */
static int
options_table_config(struct options *o, __unused const struct option_entry *e, const char *arg,
    __unused enum option_from from, __unused char **errp)
{
	o->config_path = arg;
	o->no_config = arg == NULL;
	return (0);
}

/* -h and --version: print and exit. */
static int
options_table_help(__unused struct options *o, const struct option_entry *e,
    __unused const char *arg, __unused enum option_from from, __unused char **errp)
{
	if (e->letter == 'h')
		options_usage(stdout);
	else
		printf("blktop %s\n", PACKAGE_VERSION);
	exit(0);
}

/* insight.small_bytes: one of Darshan's bin edges. */
static int
options_table_small_bytes(double v, const char *arg, char **errp)
{
	if (insight_small_edge((uint64_t)v) >= 0)
		return (0);
	xasprintf(errp, "'%s' is not one of Darshan's bin edges (100, 1024, 10240, 102400, "
	    "1048576, 4194304, 10485760, 104857600, 1073741824)", arg);
	return (-1);
}

/* The rows, in --help's order. */
const struct option_entry options_table[] = {
	{ "batch", 'b', NULL, OPTION_FLAG, AT(batch),
	  .help = "no UI: print one report per interval (like top -b)" },
	{ "json", 'J', NULL, OPTION_CALL, .call = options_table_json,
	  .help = "batch reports as JSON Lines (implies -b)" },
	{ "stack", 0, NULL, OPTION_CALL, .call = options_table_stack,
	  .help = "the latency stack: storage_latency_stack.bt's histograms in its layout, "
	  "then its rules per device and process (implies -b; -J: a \"stack\" object)" },
	{ "delay", 'd', "SECS", OPTION_SECS, OPTION_INTERVAL_MIN, OPTION_INTERVAL_MAX, "1", "interval", AT(interval),
	  .flags = OPTION_BOUNDS, .help = "report interval, fractions allowed" },
	{ "iterations", 'n', "N", OPTION_WHOLE, 1, (double)LONG_MAX, AT(count),
	  .help = "stop after N reports" },
	{ "device", 'D', "DEV", OPTION_CALL, .call = options_table_device, .flags = OPTION_REPEAT,
	  .help = "only this device: a name (loop0, nvme0n1) or MAJ:MIN; "
	  "repeatable; a partition selects its disk" },
	{ "probe", 0, NULL, OPTION_FLAG, LOCAL(probe), .flags = OPTION_LOCAL,
	  .help = "print the hook plan this kernel allows and exit" },
	{ "hooks", 0, "PLAN", OPTION_TEXT, .env = "BLKTOP_HOOKS", AT(hooks),
	  .help = "force hooks: ATTACH[:START], ATTACH tp_btf|raw_tp, "
	  "START io_start|rq_insert|issue (also $BLKTOP_HOOKS)" },
	{ "history", 0, "SECS", OPTION_SECS, 0.01, 86400, LOCAL(history), .flags = OPTION_LOCAL,
	  .help = "seconds of history kept per device (UI default 600)" },
	{ "theme", 't', "NAME", OPTION_CALL, .key = "theme", .call = options_table_theme,
	  .flags = OPTION_VIEW, .help = "UI colours: a theme name or a theme file's path" },
	{ "verbose", 'v', NULL, OPTION_COUNT, AT(verbose),
	  .help = "libbpf's messages (twice: debug)" },
	{ "read", 'r', "FILE", OPTION_CALL, .call = options_table_read, .flags = OPTION_REPEAT,
	  .help = "replay a capture (or import a bpftrace text log); no privileges; "
	  "repeated, or with more files after it (every argument that is "
	  "not an option), the files of one run merged in time order" },
	{ "compare", 0, NULL, OPTION_CALL, .call = options_table_compare,
	  .help = "compare captures: A B, or sets A1 A2 ... -- B1 B2 ...; each figure of "
	  "both sides, difference, ratio, a set's spread and significance (the UI on "
	  "a terminal; -b, -J, --report)" },
	{ "speed", 0, "X", OPTION_CALL, REPLAY_SPEED_MIN, REPLAY_SPEED_MAX,
	  .call = options_table_speed, .flags = OPTION_BOUNDS,
	  .help = "replay speed or max; UI default 1, batch max" },
	{ "dump", 0, NULL, OPTION_CALL, .call = options_table_dump,
	  .help = "with -r: every event as a row on stdout" },
	{ "format", 0, "F", OPTION_CALL, .call = options_table_format,
	  .help = "--dump rows as csv (default) or jsonl" },
	{ "write", 'w', "FILE", OPTION_TEXT, AT(capture_opts.record_path),
	  .help = "record every event to a new capture file from the start" },
	{ "record-dir", 0, "D", OPTION_TEXT, .key = "record_dir", AT(capture_opts.record_dir),
	  .help = "where `r` and the trigger create captures (default .)" },
	{ "flight", 0, "SECS", OPTION_WHOLE, 0, 3600, .key = "flight",
	  AT(capture_opts.flight_secs),
	  .help = "keep the last SECS seconds for `r` (default 30, 0: off)" },
	{ "hostname", 0, "NAME", OPTION_CALL, .call = options_table_hostname,
	  .help = "the host name captures record (default: uname's nodename; "
	  "merged captures of several hosts keep their devices apart by it)" },
	{ "label", 0, "KEY=VALUE", OPTION_CALL, .call = options_table_label,
	  .flags = OPTION_REPEAT, .help = "a label captures record (job, rank, node: "
	  "repeatable, at most 16); --dump rows carry it" },
	{ "trigger-p99", 0, "MS[:DEVICE]", OPTION_TEXT, AT(capture_opts.trigger),
	  .help = "start recording when a read or write p99 over a tick passes MS" },
	{ "pid", 'p', "PID", OPTION_CALL, 1, 4194304, .call = options_table_pid,
	  .flags = OPTION_REPEAT, .help = "processes and files of this process only (repeatable)" },
	{ "job", 0, "PID", OPTION_CALL, 1, 4194304, .call = options_table_job,
	  .flags = OPTION_REPEAT, .help = "jobs: only this process's subtree, as one job (repeatable)" },
	{ "comm", 'c', "NAME", OPTION_CALL, .call = options_table_comm, .flags = OPTION_REPEAT,
	  .help = "... of processes with this command name (repeatable)" },
	{ "cgroup", 0, "PATH", OPTION_CALL, .call = options_table_cgroup,
	  .help = "... of this cgroup v2 (absolute or under /sys/fs/cgroup)" },
	{ "all-files", 0, NULL, OPTION_FLAG, AT(all_files),
	  .help = "also pipes, sockets, ttys (default: files and block devices)" },
	{ "no-vfs", 0, NULL, OPTION_FLAG, AT(no_vfs),
	  .help = "trace block requests only, no opens, reads, writes" },
	{ "threads", 0, NULL, OPTION_FLAG, AT(by_thread),
	  .help = "one row per thread instead of per process" },
	/* Refused past what one top call returns: no row is cut unsaid. */
	{ "top", 0, "N", OPTION_WHOLE, 1, PROC_TOP_MAX, "10", AT(batch_opts.top),
	  .flags = OPTION_BOUNDS, .help = "rows of the process and file tables" },
	{ "sort", 'o', "KEY", OPTION_CALL, .def = "lat", .call = options_table_sort,
	  .words = options_table_sort_words, .help = "order of the tables:" },
	{ "max-procs", 0, "N", OPTION_WHOLE, 16, PROC_MAX_ENTRIES, OPTION_XSTR(PROC_DEF_PROCS),
	  AT(max_procs), .flags = OPTION_BOUNDS,
	  .help = "processes tracked at most; least recent evicted" },
	{ "max-files", 0, "N", OPTION_WHOLE, 16, PROC_MAX_ENTRIES, OPTION_XSTR(PROC_DEF_FILES),
	  AT(max_files), .flags = OPTION_BOUNDS, .help = "files tracked at most" },
	{ "insight", 0, "KEY=VALUE", OPTION_CALL, .call = options_table_insight,
	  .flags = OPTION_REPEAT, .words = options_table_insight_words,
	  .help = "an insight's threshold (doc/insights.md):" },
	{ "listen", 0, "[ADDR:]PORT", OPTION_TEXT, LOCAL(listen), .flags = OPTION_LOCAL,
	  .help = "serve Prometheus metrics on http://ADDR:PORT/metrics "
	  "(ADDR 127.0.0.1 unless given; 9989 is blktop's port)" },
	{ "metrics-node-names", 0, NULL, OPTION_FLAG, AT(metrics_opts.node_names),
	  .help = "with --listen, also node_exporter's disk families (node_disk_*, "
	  "node_uname_info) from /proc/diskstats: for a host without node_exporter "
	  "(doc/metrics.md)" },
	{ "headless", 0, NULL, OPTION_FLAG, LOCAL(headless), .flags = OPTION_LOCAL,
	  .help = "no UI and no reports: with --listen, -w or --report, as a service" },
	{ "report", 0, "FILE", OPTION_CALL, AT(report_opts.path), .call = options_table_file,
	  .help = "at the end, the whole run as one HTML page (or JSON if FILE "
	  "ends in .json): heatmaps, charts, top processes and files; "
	  "with -r and no -b, replays at full speed without a UI" },
	{ "trace", 0, "FILE", OPTION_CALL, AT(trace_opts.path), .call = options_table_file,
	  .help = "at the end, every request and call as a Chrome Trace Event "
	  "file for Perfetto (doc/trace.md); with -r and no -b, like --report" },
	{ "mark", 0, "LABEL", OPTION_TEXT, LOCAL(mark_label), .flags = OPTION_LOCAL | OPTION_ALONE,
	  .help = "put a mark into every running blktop (a new phase of its run)" },
	{ "trace-offset", 0, "SECS", OPTION_CALL, -86400, 86400, .call = options_table_trace_offset,
	  .help = "add SECS (may be negative) to the trace's times" },
	{ "trace-max", 0, "MB", OPTION_CALL, 1, TRACE_MAX_MB, OPTION_XSTR(TRACE_MAX_DEFAULT_MB),
	  .call = options_table_trace_max, .flags = OPTION_BOUNDS,
	  .help = "the trace's bound: past it "
	  "the slowest requests and a uniform sample of the rest" },
	{ "config", 0, "FILE", OPTION_CALL, .call = options_table_config,
	  .help = "the UI's settings from FILE, not "
	  "$XDG_CONFIG_HOME/blktop/blktoprc (~/.config/blktop/blktoprc)" },
	{ "no-config", 0, NULL, OPTION_CALL, .call = options_table_config,
	  .help = "the UI's defaults, no config file read or written" },
	{ "help", 'h', NULL, OPTION_CALL, .call = options_table_help, .help = "this text, and exit" },
	{ "version", 0, NULL, OPTION_CALL, .call = options_table_help,
	  .help = "blktop's version, and exit" },
	/* A lower device cap, for tests of what the cap cuts. */
	{ NULL, 0, NULL, OPTION_WHOLE, 1, WINDOWS_MAX_DEVS, .env = "BLKTOP_MAX_DEVS", AT(max_devs) },
	/* The insights' thresholds (doc/insights.md); their defaults are insight.c's. */
	INSIGHT(min_calls, OPTION_WHOLE, 0, 1e12, "a file's calls before small-io and random-io judge it"),
	{ .key = "insight.small_bytes", .type = OPTION_WHOLE, .min = 100, .max = 1073741824,
	  AT(insight.small_bytes), .check = options_table_small_bytes,
	  .help = "calls up to it are small (a Darshan bin edge)" },
	INSIGHT(small_share, OPTION_NUMBER, 0, 1, "small-io: the share of small calls over it"),
	INSIGHT(random_share, OPTION_NUMBER, 0, 1, "random-io: the share of random calls over it"),
	INSIGHT(storm_opens, OPTION_WHOLE, 1, 1e12, "open-storm: opens of a process, at least"),
	INSIGHT(storm_ratio, OPTION_NUMBER, 0, 1e6, "open-storm: opens per call, over it"),
	INSIGHT(reread_factor, OPTION_NUMBER, 1, 1e6, "re-read: bytes read over this many times "
	    "those touched"),
	INSIGHT(reread_bytes, OPTION_WHOLE, 1, 1e18, "re-read: bytes read again, at least"),
	INSIGHT(misaligned_share, OPTION_NUMBER, 0, 1, "misaligned-direct: the share over it"),
	INSIGHT(fsync_calls, OPTION_WHOLE, 1, 1e12, "fsync-heavy: fsyncs of a process, at least"),
	INSIGHT(fsync_ratio, OPTION_NUMBER, 0, 1e6, "fsync-heavy: fsyncs per write call, over it"),
	INSIGHT(min_requests, OPTION_WHOLE, 0, 1e12, "a device's requests before it is judged"),
	INSIGHT(queue_share, OPTION_NUMBER, 0, 1, "queue-saturated: the share of await queued"),
	INSIGHT(meta_share, OPTION_NUMBER, 0, 1, "metadata-heavy: the share of metadata bytes"),
	INSIGHT(wb_pause_ms, OPTION_WHOLE, 0, 1e12, "writeback-storm: a process's pauses, ms"),
	INSIGHT(wb_pause_share, OPTION_NUMBER, 0, 1, "writeback-storm: the share of its time"),
};
const unsigned options_table_count = nitems(options_table);
_Static_assert(nitems(options_table) <= OPTIONS_MAX, "OPTIONS_MAX: struct blktop's opt_from");
