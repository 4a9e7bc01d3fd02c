/* blktop.c: options, the event loop, the tick timer and signals. */

#include <sys/stat.h>
#include <sys/vfs.h>
#include <errno.h>
#include <event2/event.h>
#include <getopt.h>
#include <limits.h>
#include <malloc.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "blktop.h"
#include "draw.h"
#include "fields.h"

/* The run: main()'s alone; sources and sinks get it as their b. */
static struct blktop bt;

static struct event	*blktop_tick_ev;

enum {
	OPT_PROBE = 256,
	OPT_HOOKS,
	OPT_HISTORY,
	OPT_VERSION,
	OPT_RECORD_DIR,
	OPT_FLIGHT,
	OPT_TRIGGER,
	OPT_SPEED,
	OPT_DUMP,
	OPT_FORMAT,
	OPT_LISTEN,
	OPT_HEADLESS,
	OPT_CGROUP,
	OPT_ALL_FILES,
	OPT_NO_VFS,
	OPT_THREADS,
	OPT_TOP,
	OPT_MAX_PROCS,
	OPT_MAX_FILES,
	OPT_INSIGHT,
	OPT_REPORT,
	OPT_CONFIG,
	OPT_NO_CONFIG,
	OPT_TRACE,
	OPT_TRACE_OFFSET,
	OPT_TRACE_MAX,
	OPT_MARK,
};

static const struct option blktop_longopts[] = {
	{ "batch",	no_argument,		NULL, 'b' },
	{ "pid",	required_argument,	NULL, 'p' },
	{ "comm",	required_argument,	NULL, 'c' },
	{ "cgroup",	required_argument,	NULL, OPT_CGROUP },
	{ "all-files",	no_argument,		NULL, OPT_ALL_FILES },
	{ "no-vfs",	no_argument,		NULL, OPT_NO_VFS },
	{ "threads",	no_argument,		NULL, OPT_THREADS },
	{ "top",	required_argument,	NULL, OPT_TOP },
	{ "sort",	required_argument,	NULL, 'o' },
	{ "max-procs",	required_argument,	NULL, OPT_MAX_PROCS },
	{ "max-files",	required_argument,	NULL, OPT_MAX_FILES },
	{ "insight",	required_argument,	NULL, OPT_INSIGHT },
	{ "json",	no_argument,		NULL, 'J' },
	{ "delay",	required_argument,	NULL, 'd' },
	{ "iterations",	required_argument,	NULL, 'n' },
	{ "device",	required_argument,	NULL, 'D' },
	{ "probe",	no_argument,		NULL, OPT_PROBE },
	{ "hooks",	required_argument,	NULL, OPT_HOOKS },
	{ "history",	required_argument,	NULL, OPT_HISTORY },
	{ "verbose",	no_argument,		NULL, 'v' },
	{ "theme",	required_argument,	NULL, 't' },
	{ "help",	no_argument,		NULL, 'h' },
	{ "version",	no_argument,		NULL, OPT_VERSION },
	{ "read",	required_argument,	NULL, 'r' },
	{ "write",	required_argument,	NULL, 'w' },
	{ "record-dir",	required_argument,	NULL, OPT_RECORD_DIR },
	{ "flight",	required_argument,	NULL, OPT_FLIGHT },
	{ "trigger-p99", required_argument,	NULL, OPT_TRIGGER },
	{ "speed",	required_argument,	NULL, OPT_SPEED },
	{ "dump",	no_argument,		NULL, OPT_DUMP },
	{ "format",	required_argument,	NULL, OPT_FORMAT },
	{ "listen",	required_argument,	NULL, OPT_LISTEN },
	{ "headless",	no_argument,		NULL, OPT_HEADLESS },
	{ "report",	required_argument,	NULL, OPT_REPORT },
	{ "config",	required_argument,	NULL, OPT_CONFIG },
	{ "no-config",	no_argument,		NULL, OPT_NO_CONFIG },
	{ "trace",	required_argument,	NULL, OPT_TRACE },
	{ "trace-offset", required_argument,	NULL, OPT_TRACE_OFFSET },
	{ "trace-max",	required_argument,	NULL, OPT_TRACE_MAX },
	{ "mark",	required_argument,	NULL, OPT_MARK },
	{ NULL, 0, NULL, 0 }
};

/* Print usage to f. */
static void
blktop_usage(FILE *f)
{
	fprintf(f,
"usage: blktop [-bJv] [-d SECS] [-n COUNT] [-D DEVICE]... [-t THEME] [--hooks PLAN]\n"
"              [--history SECS] [--probe] [--version]\n"
"              [-r FILE [FILE...] [--speed X] [--dump [--format csv|jsonl]]] [-w FILE]\n"
"              [--record-dir DIR] [--flight SECS] [--trigger-p99 MS[:DEVICE]]\n"
"              [--report OUT.html|OUT.json] [--listen [ADDR:]PORT] [--headless]\n"
"              [--trace OUT.json [--trace-offset SECS] [--trace-max MB]]\n"
"       blktop --mark LABEL\n"
"  -b, --batch        no UI: print one report per interval (like top -b)\n"
"  -J, --json         batch reports as JSON Lines (implies -b)\n"
"  -d, --delay SECS   report interval (default 1; fractions allowed)\n"
"  -n, --iterations N stop after N reports\n"
"  -D, --device DEV   only this device: a name (loop0, nvme0n1) or MAJ:MIN;\n"
"                     repeatable; a partition selects its disk\n"
"      --probe        print the hook plan this kernel allows and exit\n"
"      --hooks PLAN   force hooks: ATTACH[:START], ATTACH tp_btf|raw_tp,\n"
"                     START io_start|rq_insert|issue (also $BLKTOP_HOOKS)\n"
"      --history SECS seconds of history kept per device (default 600)\n"
"  -t, --theme NAME   UI colours: a theme name or a theme file's path\n"
"  -v, --verbose      libbpf's messages (twice: debug)\n"
"  -r, --read FILE    replay a capture (or import a bpftrace text log); no privileges;\n"
"                     repeated, or with more files after it (every argument that is\n"
"                     not an option), the files of one run merged in time order\n"
"      --speed X      replay speed, 0.25 to 64, or max (UI default 1, batch max)\n"
"      --dump         with -r: every event as a row on stdout\n"
"      --format F     --dump rows as csv (default) or jsonl\n"
"  -w, --write FILE   record every event to a new capture file from the start\n"
"      --record-dir D where `r` and the trigger create captures (default .)\n"
"      --flight SECS  keep the last SECS seconds for `r` (default 30, 0: off)\n"
"      --trigger-p99 MS[:DEVICE]\n"
"                     start recording when a read or write p99 over a tick passes MS\n"
"  -p, --pid PID      processes and files of this process only (repeatable)\n"
"  -c, --comm NAME    ... of processes with this command name (repeatable)\n"
"      --cgroup PATH  ... of this cgroup v2 (absolute or under /sys/fs/cgroup)\n"
"      --all-files    also pipes, sockets, ttys (default: files and block devices)\n"
"      --no-vfs       trace block requests only, no opens, reads, writes\n"
"      --threads      one row per thread instead of per process\n"
"      --top N        rows of the process and file tables (default 10, at most 10000)\n"
"  -o, --sort KEY     order of the tables: read_bytes write_bytes read_ios write_ios\n"
"                     vfs_read_bytes vfs_write_bytes vfs_reads vfs_writes opens lat\n"
"                     disk_read_bytes disk_write_bytes\n"
"      --max-procs N  processes tracked at most (default 4096; least recent evicted)\n"
"      --max-files N  files tracked at most (default 16384)\n"
"      --insight KEY=VALUE\n"
"                     an insight's threshold (min_calls, small_bytes, small_share,\n"
"                     random_share, storm_opens, storm_ratio: doc/insights.md)\n"
"      --listen [ADDR:]PORT\n"
"                     serve Prometheus metrics on http://ADDR:PORT/metrics\n"
"                     (ADDR 127.0.0.1 unless given; 9989 is blktop's port)\n"
"      --headless     no UI and no reports: with --listen, -w or --report, as a service\n"
"      --report FILE  at the end, the whole run as one HTML page (or JSON if FILE\n"
"                     ends in .json): heatmaps, charts, top processes and files;\n"
"                     with -r and no -b, replays at full speed without a UI\n"
"      --trace FILE   at the end, every request and call as a Chrome Trace Event\n"
"                     file for Perfetto (doc/trace.md); with -r and no -b, like --report\n"
"      --mark LABEL   put a mark into every running blktop (a new phase of its run)\n"
"      --trace-offset SECS\n"
"                     add SECS (may be negative) to the trace's times\n"
"      --trace-max MB the trace's bound (default 256, at most 4096): past it\n"
"                     the slowest requests and a uniform sample of the rest\n"
"      --config FILE  the UI's settings from FILE, not\n"
"                     $XDG_CONFIG_HOME/blktop/blktoprc (~/.config/blktop/blktoprc)\n"
"      --no-config    the UI's defaults, no config file read or written\n");
}

/* Exit with a one-line message about a bad command line. */
static void __attribute__((noreturn)) __printflike(1, 2)
blktop_usage_error(const char *fmt, ...)
{
	va_list	 ap;

	fprintf(stderr, "%s: ", log_prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (blktop --help for usage)\n");
	exit(2);
}

/* The id of a cgroup v2 directory (its inode number), absolute or under /sys/fs/cgroup. */
static uint64_t
blktop_parse_cgroup(const char *arg)
{
	char		 path[PATH_MAX];
	struct stat	 st;
	struct statfs	 sf;

	if (*arg == '/' && strncmp(arg, "/sys/fs/cgroup", 14) == 0)
		snprintf(path, sizeof path, "%s", arg);
	else
		snprintf(path, sizeof path, "/sys/fs/cgroup/%s", arg + (*arg == '/'));
	if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
		blktop_usage_error("--cgroup: '%s' is not a cgroup directory (%s)", arg, path);
	if (statfs(path, &sf) != 0 || sf.f_type != 0x63677270)	/* CGROUP2_SUPER_MAGIC */
		blktop_usage_error("--cgroup: '%s' is not on a cgroup v2 file system", path);
	return ((uint64_t)st.st_ino);
}

/* Parse a number of seconds from min to max. */
static double
blktop_parse_secs(const char *opt, const char *s, double min, double max)
{
	char	*end;
	double	 v;

	errno = 0;
	v = strtod(s, &end);
	if (errno != 0 || end == s || *end != '\0' || !isfinite(v) || v < min || v > max)
		blktop_usage_error("%s: '%s' is not a number of seconds from %g to %g",
		    opt, s, min, max);
	return (v);
}

/* --insight KEY=VALUE: one threshold of the insights (KEY with or without "insight."). */
static void
blktop_insight_opt(struct blktop *b, const char *arg)
{
	char		 key[64];
	const char	*eq = strchr(arg, '=');
	char		*err = NULL;
	int		 n, rc;

	if (eq == NULL || eq == arg)
		blktop_usage_error("--insight '%s': not KEY=VALUE", arg);
	n = snprintf(key, sizeof key, "%s%.*s", strncmp(arg, "insight.", 8) == 0 ? "" :
	    "insight.", (int)(eq - arg), arg);
	if (n < 0 || (size_t)n >= sizeof key || (rc = config_insight(b, key, eq + 1, 1, &err)) == 0)
		blktop_usage_error("--insight: no threshold '%.*s' (doc/insights.md lists them)",
		    (int)(eq - arg), arg);
	if (rc < 0)
		blktop_usage_error("--insight %.*s: %s", (int)(eq - arg), arg, err);
}

/* Parse a whole number from min to max. */
static long
blktop_parse_long(const char *opt, const char *s, long min, long max)
{
	char	*end;
	long	 v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v < min || v > max)
		blktop_usage_error("%s: '%s' is not a whole number from %ld to %ld",
		    opt, s, min, max);
	return (v);
}

/*
 * --trace-max MB, 1 to TRACE_MAX_MB, in bytes: refused here, not after the
 * programs loaded, where its events' pool would not fit in half of this
 * machine's memory (they are held to the end of the run).
 */
static uint64_t
blktop_parse_trace_max(const char *s)
{
	long		 mb = blktop_parse_long("--trace-max", s, 1, TRACE_MAX_MB), most;
	long		 pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
	uint64_t	 half;

	if (pages <= 0 || psize <= 0)
		return ((uint64_t)mb << 20);
	half = (uint64_t)pages * (uint64_t)psize / 2;
	if (trace_pool_bytes((uint64_t)mb << 20) <= half)
		return ((uint64_t)mb << 20);
	for (most = mb - 1; most > 1 && trace_pool_bytes((uint64_t)most << 20) > half; most--)
		;
	blktop_usage_error("--trace-max: %ld MB holds up to %llu MiB of events in memory, over "
	    "half of this machine's %llu MiB: at most %ld here", mb,
	    (unsigned long long)(trace_pool_bytes((uint64_t)mb << 20) >> 20),
	    (unsigned long long)(half >> 19), most);
	return (0);
}

/* Parse a replay speed from REPLAY_SPEED_MIN to REPLAY_SPEED_MAX. */
static double
blktop_parse_speed(const char *s)
{
	char	*end;
	double	 v;

	errno = 0;
	v = strtod(s, &end);
	if (end > s && (*end == 'x' || *end == 'X') && end[1] == '\0')
		end++;
	if (errno != 0 || end == s || *end != '\0' || !isfinite(v) ||
	    v < REPLAY_SPEED_MIN || v > REPLAY_SPEED_MAX)
		blktop_usage_error("--speed: '%s' is not a speed from %g to %g or max",
		    s, REPLAY_SPEED_MIN, REPLAY_SPEED_MAX);
	return (v);
}

/* One more file for -r (a run of at most MERGE_MAX_FILES). */
static void
blktop_add_replay(struct blktop *b, const char *path)
{
	if (b->nreplay_files == MERGE_MAX_FILES)
		blktop_usage_error("-r: at most %d files in one replay", MERGE_MAX_FILES);
	b->replay_files[b->nreplay_files++] = path;
}

/* The replay's name in reports: its file, or its files joined by commas. */
static void
blktop_replay_name(struct blktop *b)
{
	char		*name, *s;
	unsigned	 i;

	if (b->nreplay_files == 0)
		return;
	name = xstrdup(b->replay_files[0]);
	for (i = 1; i < b->nreplay_files; i++) {
		xasprintf(&s, "%s, %s", name, b->replay_files[i]);
		free(name);
		name = s;
	}
	b->replay_path = name;	/* for the whole run */
}

/*
 * libevent's own messages: through the notice hook (the UI's status line,
 * else stderr), never written over the screen, and at most one a minute.
 */
static void
blktop_event_log(int severity, const char *msg)
{
	static uint64_t	 last, skipped;
	uint64_t	 now;

	if (severity < EVENT_LOG_WARN)
		return;
	now = source_now();
	if (last != 0 && now - last < 60 * NSEC_PER_SEC) {
		skipped++;
		return;
	}
	if (skipped != 0)
		stream_notice(&bt, "libevent: %s (%llu more in the last minute)", msg,
		    (unsigned long long)skipped);
	else
		stream_notice(&bt, "libevent: %s", msg);
	last = now;
	skipped = 0;
}

/* Close one tick: drain the source first so the tick holds all it can. */
static void
blktop_tick(struct blktop *b)
{
	struct ev_tick	 tick = { .type = EV_TICK };

	b->src->entry->drain(b->src);
	tick.ts = source_now();
	stream_event(b, &tick, sizeof tick);
}

/* The tick timer. */
static void
blktop_tick_cb(__unused int fd, __unused short what, void *arg)
{
	blktop_tick(arg);
}

/* SIGINT, SIGTERM, SIGHUP: report what is pending and leave the loop. */
static void
blktop_signal_cb(__unused int sig, __unused short what, void *arg)
{
	struct blktop	*b = arg;

	if (b->exiting)
		return;
	b->exiting = 1;
	if (!b->src->entry->own_ticks &&
	    (b->ticks_since_report > 0 || b->win.tick_start < source_now()))
		blktop_tick(b);
	event_base_loopbreak(b->base);
}

/* Drop privileges (privs_drop) or end the run with its one line. */
static void
blktop_drop(struct blktop *b)
{
	char		*err;
	const char	*why;

	if (privs_drop(&b->uid, &err) != 0)
		fatalx("%s", err);
	(void)privs_kept(&why);
	if (b->verbose && why != NULL)
		log_warnx("privileges: %s", why);
}

/*
 * A replay needs no privilege and reads files the user named: started
 * through sudo, it becomes that user before it opens one, so that root never
 * reads for the user (nor quotes in an error) what the user may not. 1 if it
 * did; else the drop comes after the start (root from a root shell reads
 * what root may, then keeps no capability).
 */
static int
blktop_drop_early(struct blktop *b)
{
	uid_t	 su;

	if (b->replay_path == NULL || privs_sudo_uid(&su) != 0)
		return (0);
	blktop_drop(b);
	return (1);
}

/*
 * --dump: the replay's files through the stream to the dump sink alone, as
 * fast as they are read; the exit status. Nothing else of a run is set up:
 * no model, view, capture, endpoint or signal handler (Ctrl-C and a closed
 * pipe end it as they always did).
 */
static int
blktop_dump(struct blktop *b)
{
	char	*err;
	int	 dropped;

	b->speed = 0;
	stream_set_ticks(b, 0);
	if ((b->base = event_base_new()) == NULL)
		fatalx("cannot create the event loop");
	b->src = source_create(b, &source_replay);
	stream_add_sink(b, &sink_dump, &b->dump_opts);
	dropped = blktop_drop_early(b);
	if (b->src->entry->start(b->src, &err) != 0)
		fatalx("%s", err);
	if (!dropped)
		blktop_drop(b);
	if (stream_start(b, &err) != 0)
		fatalx("%s", err);
	event_base_dispatch(b->base);
	stream_stop(b);
	b->src->entry->stop(b->src);
	source_free(b->src);
	event_base_free(b->base);
	return (b->status);
}

int
main(int argc, char **argv)
{
	struct blktop	*b = &bt;
	struct event	*sigs[3];
	static const int signos[3] = { SIGINT, SIGTERM, SIGHUP };
	struct timeval	 tv;
	double		 history = -1;
	char		*err;
	const char	*env;
	const char	*config_path = NULL, *theme = NULL, *mark_label = NULL;
	int		 ch, probe = 0, no_config = 0, headless = 0, i, nopts = 0, dropped;
	int		 sort_key = PROC_KEY_LAT;
	unsigned	 d;

	b->interval = 1;
	b->metrics_opts.listen_fd = -1;
	b->batch_opts.top = 10;
	b->batch_opts.out = stdout;
	b->capture_opts.flight_secs = -1;
	b->insight = insight_defaults;
	b->speed = -1;
	b->hooks = getenv("BLKTOP_HOOKS");
	if (b->hooks != NULL && *b->hooks == '\0')
		b->hooks = NULL;
	/* A lower device cap, for tests of what the cap cuts. */
	if ((env = getenv("BLKTOP_MAX_DEVS")) != NULL && *env != '\0')
		b->max_devs = (unsigned)blktop_parse_long("$BLKTOP_MAX_DEVS", env, 1,
		    WINDOWS_MAX_DEVS);
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":bJd:n:D:t:vhr:w:p:c:o:", blktop_longopts, NULL)) != -1) {
		nopts++;
		switch (ch) {
		case 'b':
			b->batch = 1;
			break;
		case 'p':
			if (b->ntgids == FILTER_MAX_PIDS)
				blktop_usage_error("-p: at most %d processes", FILTER_MAX_PIDS);
			b->tgids[b->ntgids++] = (uint32_t)blktop_parse_long("-p", optarg,
			    1, 4194304);
			break;
		case 'c':
			if (b->ncomms == FILTER_MAX_COMMS)
				blktop_usage_error("-c: at most %d names", FILTER_MAX_COMMS);
			if (*optarg == '\0' || strlen(optarg) >= BLKTOP_COMM_LEN)
				blktop_usage_error("-c: '%s' is not a command name (1 to %d "
				    "characters)", optarg, BLKTOP_COMM_LEN - 1);
			b->comms[b->ncomms++] = optarg;
			break;
		case OPT_CGROUP:
			b->cgroup_path = optarg;
			b->cgroup_id = blktop_parse_cgroup(optarg);
			break;
		case OPT_ALL_FILES:
			b->all_files = 1;
			break;
		case OPT_NO_VFS:
			b->no_vfs = 1;
			break;
		case OPT_THREADS:
			b->by_thread = 1;
			break;
		case OPT_TOP:
			/* Refused past what one top call returns: no row is cut unsaid. */
			b->batch_opts.top = (unsigned)blktop_parse_long("--top", optarg, 1,
			    PROC_TOP_MAX);
			break;
		case 'o':
			if ((sort_key = field_key_parse(optarg)) < 0)
				blktop_usage_error("-o: unknown sort key '%s' (read_bytes, "
				    "write_bytes, read_ios, write_ios, vfs_read_bytes, "
				    "vfs_write_bytes, vfs_reads, vfs_writes, opens, lat, "
				    "disk_read_bytes, disk_write_bytes)", optarg);
			break;
		case OPT_MAX_PROCS:
			b->max_procs = (unsigned)blktop_parse_long("--max-procs", optarg,
			    16, PROC_MAX_ENTRIES);
			break;
		case OPT_MAX_FILES:
			b->max_files = (unsigned)blktop_parse_long("--max-files", optarg,
			    16, PROC_MAX_ENTRIES);
			break;
		case OPT_INSIGHT:
			blktop_insight_opt(b, optarg);
			break;
		case 'J':
			b->batch = b->batch_opts.json = 1;
			break;
		case 'd':
			b->interval = blktop_parse_secs("-d", optarg, 0.01, 3600);
			b->interval_set = 1;
			break;
		case 'n':
			b->count = blktop_parse_long("-n", optarg, 1, LONG_MAX);
			break;
		case 'D':
			/* Resolved below: a replay names devices from its file. */
			if (b->ndev_args == FILTER_MAX_DEVS)
				blktop_usage_error("-D: at most %d devices", FILTER_MAX_DEVS);
			b->dev_args[b->ndev_args++] = optarg;
			break;
		case 'r':
			blktop_add_replay(b, optarg);
			break;
		case 'w':
			b->capture_opts.record_path = optarg;
			break;
		case OPT_RECORD_DIR:
			b->capture_opts.record_dir = optarg;
			break;
		case OPT_FLIGHT:
			b->capture_opts.flight_secs = (int)blktop_parse_long("--flight",
			    optarg, 0, 3600);
			break;
		case OPT_TRIGGER:
			b->capture_opts.trigger = optarg;
			break;
		case OPT_SPEED:
			if (strcmp(optarg, "max") == 0)
				b->speed = 0;
			else
				b->speed = blktop_parse_speed(optarg);
			break;
		case OPT_DUMP:
			if (b->dump_opts.format == 0)
				b->dump_opts.format = REPLAY_DUMP_CSV;
			break;
		case OPT_FORMAT:
			if (strcmp(optarg, "csv") == 0)
				b->dump_opts.format = REPLAY_DUMP_CSV;
			else if (strcmp(optarg, "jsonl") == 0)
				b->dump_opts.format = REPLAY_DUMP_JSONL;
			else
				blktop_usage_error("--format: '%s' is not csv or jsonl", optarg);
			break;
		case OPT_LISTEN:
			if (metrics_parse_listen(optarg, b->metrics_opts.listen_addr,
			    sizeof b->metrics_opts.listen_addr, &b->metrics_opts.listen_port,
			    &err) != 0)
				blktop_usage_error("%s", err);
			break;
		case OPT_HEADLESS:
			headless = 1;
			break;
		case OPT_REPORT:
			if (*optarg == '\0')
				blktop_usage_error("--report needs a file name");
			b->report_opts.path = optarg;
			break;
		case OPT_MARK:
			mark_label = optarg;
			break;
		case OPT_TRACE:
			if (*optarg == '\0')
				blktop_usage_error("--trace needs a file name");
			b->trace_opts.path = optarg;
			break;
		case OPT_TRACE_OFFSET:
			b->trace_opts.offset_ns = (int64_t)llround(1e9 *
			    blktop_parse_secs("--trace-offset", optarg, -86400, 86400));
			break;
		case OPT_TRACE_MAX:
			b->trace_opts.max_bytes = blktop_parse_trace_max(optarg);
			break;
		case OPT_CONFIG:
			config_path = optarg;
			no_config = 0;
			break;
		case OPT_NO_CONFIG:
			no_config = 1;
			config_path = NULL;
			break;
		case OPT_PROBE:
			probe = 1;
			break;
		case OPT_HOOKS:
			b->hooks = optarg;
			break;
		case OPT_HISTORY:
			history = blktop_parse_secs("--history", optarg, 0.01, 86400);
			break;
		case 'v':
			b->verbose++;
			break;
		case 't':
			{
				struct theme	 t;

				/* A bad theme is a command-line error, before any loading. */
				if (theme_option(&t, optarg, &err) != 0) {
					fprintf(stderr, "%s: -t: %s\n", log_prog, err);
					exit(2);
				}
			}
			theme = optarg;
			break;
		case 'h':
			blktop_usage(stdout);
			exit(0);
		case OPT_VERSION:
			printf("blktop %s\n", PACKAGE_VERSION);
			exit(0);
		case ':':
			blktop_usage_error("%s needs an argument", argv[optind - 1]);
		default:
			blktop_usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	/* --mark: a client of the running instances, nothing else. */
	if (mark_label != NULL) {
		if (nopts != 1 || optind != argc)
			blktop_usage_error("--mark LABEL takes no other option or argument");
		exit(mark_send(mark_label));
	}
	/* With -r, the arguments that are not options are more files of the run. */
	if (optind != argc && b->nreplay_files == 0)
		blktop_usage_error("unexpected argument '%s'", argv[optind]);
	for (; optind < argc; optind++)
		blktop_add_replay(b, argv[optind]);
	blktop_replay_name(b);
	if (b->dump_opts.format != 0 && b->replay_path == NULL)
		blktop_usage_error("--dump and --format need -r FILE");
	if (b->dump_opts.format != 0 && b->report_opts.path != NULL)
		blktop_usage_error("--dump prints rows, --report a summary: one or the other");
	if (b->speed >= 0 && b->replay_path == NULL)
		blktop_usage_error("--speed needs -r FILE");
	if (b->trace_opts.path == NULL && (b->trace_opts.offset_ns != 0 ||
	    b->trace_opts.max_bytes != 0))
		blktop_usage_error("--trace-offset and --trace-max need --trace FILE");
	if (b->trace_opts.path != NULL && b->dump_opts.format != 0)
		blktop_usage_error("--dump prints rows, --trace writes a file: one or the other");
	if (b->trace_opts.max_bytes == 0)
		b->trace_opts.max_bytes = (uint64_t)TRACE_MAX_DEFAULT_MB << 20;
	/* A replay for a report or trace alone needs no screen and no pacing. */
	if ((b->report_opts.path != NULL || b->trace_opts.path != NULL) &&
	    b->replay_path != NULL && !b->batch) {
		headless = 1;
		if (b->speed < 0)
			b->speed = 0;
	}
	if (headless && b->metrics_opts.listen_port == 0 &&
	    b->capture_opts.record_path == NULL && b->report_opts.path == NULL &&
	    b->trace_opts.path == NULL)
		blktop_usage_error("--headless needs --listen, -w, --report or --trace: it would do "
		    "nothing");
	if (headless && b->batch)
		blktop_usage_error("--headless prints no reports: not with -b or -J");
	if (config_path != NULL && (headless || b->batch))
		blktop_usage_error("--config is the UI's: not with -b, -J or --headless");
	/* A SUDO_UID that is no user's stops the run now, before anything loads. */
	{
		uid_t	 su;
		gid_t	 sg;

		if (privs_sudo_ids(&su, &sg, &err) == -1) {
			fprintf(stderr, "%s: %s\n", log_prog, err);
			exit(1);
		}
	}
	/* -t colours the view and a report; without it, the config file's theme does. */
	b->ui_opts.theme = b->report_opts.theme = theme;
	/* The UI's settings; reports (-b, -J, --headless) stay as the command line says. */
	if (!no_config && !headless && !b->batch && b->dump_opts.format == 0 && !probe &&
	    config_load(b, config_path, &sink_ui, &err) != 0) {
		fprintf(stderr, "%s: %s\n", log_prog, err);
		exit(2);
	}
	/* The sinks' options, the command line and the config file read. */
	b->batch_opts.sort_key = b->report_opts.sort_key = sort_key;
	/* Batch mode has no `r`: a flight recorder only serves a trigger there. */
	if (b->capture_opts.flight_secs < 0)
		b->capture_opts.flight_secs = b->batch && b->capture_opts.trigger == NULL ?
		    0 : CAPTURE_FLIGHT_DEFAULT;
	b->report_opts.announce = b->verbose || headless;
	b->report_opts.ends_run = headless && b->metrics_opts.listen_port == 0;
	b->trace_opts.announce = b->report_opts.announce;
	b->trace_opts.ends_run = b->report_opts.ends_run;
	b->ui_opts.capture = &b->capture_opts;
	if (b->replay_path == NULL) {
		for (d = 0; d < b->ndev_args; d++) {
			if (device_parse(b->dev_args[d], &b->devs[b->ndevs], &err) != 0) {
				fprintf(stderr, "%s: -D: %s\n", log_prog, err);
				exit(2);
			}
			for (i = 0; i < (int)b->ndevs && b->devs[i] != b->devs[b->ndevs]; i++)
				;
			if (i == (int)b->ndevs)
				b->ndevs++;
		}
	}
	if (b->dump_opts.format != 0)
		exit(blktop_dump(b));
	if (b->hooks != NULL) {
		struct hook_plan plan;

		if (live_parse_hooks(b->hooks, &plan, &err) != 0) {
			fprintf(stderr, "%s: %s\n", log_prog, err);
			exit(2);
		}
	}
	if (probe) {
		if (live_check_privileges(&err) != 0)
			fatalx("%s", err);
		live_print_probe(&bt, stdout);
		exit(0);
	}
	/*
	 * Only the UI shows history: reports (-b, -J, --headless) keep the
	 * ticks of one report, unless --history says otherwise.
	 */
	if (history < 0)
		history = b->batch || headless ? 0 : 600;
	stream_set_ticks(b, history);

	event_set_log_callback(blktop_event_log);
	if ((b->base = event_base_new()) == NULL)
		fatalx("cannot create the event loop");
	/*
	 * The port first: a port taken fails the run in well under a second,
	 * not after the programs loaded; bound while still root, any port.
	 */
	if (b->metrics_opts.listen_port != 0 &&
	    (b->metrics_opts.listen_fd = metrics_http_bind(b->metrics_opts.listen_addr,
	    b->metrics_opts.listen_port, &err)) == -1)
		fatalx("%s", err);
	/* Tables of a fixed bound, reserved once: the per-event path never allocates. */
	b->procs = proc_create(b->max_procs ? b->max_procs : PROC_DEF_PROCS,
	    b->max_files ? b->max_files : PROC_DEF_FILES, b->by_thread);
	/*
	 * Signals first: loading the programs takes seconds, and a SIGINT in
	 * that time must still end the run (a background job of a script has
	 * SIGINT ignored until a handler is set).
	 */
	for (i = 0; i < 3; i++) {
		sigs[i] = evsignal_new(b->base, signos[i], blktop_signal_cb, b);
		evsignal_add(sigs[i], NULL);
	}
	signal(SIGPIPE, SIG_IGN);
	b->src = source_create(b, b->replay_path != NULL ? &source_replay :
	    &source_live);
	/*
	 * The stream's sinks, in order, each with its options: the capture gets
	 * what the model gets, the view reads the model.
	 */
	stream_add_sink(b, &sink_capture, &b->capture_opts);
	stream_add_sink(b, &sink_model, NULL);
	if (!headless && b->batch)
		stream_add_sink(b, &sink_batch, &b->batch_opts);
	else if (!headless)
		stream_add_sink(b, &sink_ui, &b->ui_opts);
	if (b->metrics_opts.listen_port != 0)
		stream_add_sink(b, &sink_metrics, &b->metrics_opts);
	if (b->report_opts.path != NULL)
		stream_add_sink(b, &sink_report, &b->report_opts);
	if (b->trace_opts.path != NULL)
		stream_add_sink(b, &sink_trace, &b->trace_opts);
	dropped = blktop_drop_early(b);
	if (b->src->entry->start(b->src, &err) != 0)
		fatalx("%s", err);
	/* Attached: from here on, the user who ran sudo and no capabilities. */
	if (!dropped)
		blktop_drop(b);
	if (b->replay_path == NULL)
		mark_listen(b);
	if (stream_start(b, &err) != 0)
		fatalx("%s", err);
	/*
	 * Loading parsed the kernel's BTF several times (5.5 MB each here), freed
	 * since but resident in the holes it left in the heap: give them back.
	 */
	malloc_trim(0);

	blktop_tick_ev = event_new(b->base, -1, EV_PERSIST, blktop_tick_cb, b);
	tv.tv_sec = (time_t)(b->tick_ns / NSEC_PER_SEC);
	tv.tv_usec = (suseconds_t)(b->tick_ns % NSEC_PER_SEC / 1000);
	if (!b->src->entry->own_ticks)	/* a replay's ticks come from its file */
		event_add(blktop_tick_ev, &tv);

	event_base_dispatch(b->base);
	/* The last report is out: the kernel's programs stop now, not when their links go. */
	if (b->src->entry->halt != NULL)
		b->src->entry->halt(b->src);
	stream_stop(b);
	mark_close();

	event_free(blktop_tick_ev);
	for (i = 0; i < 3; i++)
		event_free(sigs[i]);
	b->src->entry->stop(b->src);
	windows_free(&b->win);
	if (b->procs != NULL)
		proc_free(b->procs);
	phase_free(b->phases);
	reqpat_free(b->reqpat);
	event_base_free(b->base);
	if (b->lost > 0)
		log_warnx("%llu events lost in the kernel%s: %llu block requests, %llu "
		    "read/write calls, %llu other records", (unsigned long long)b->lost,
		    b->src->entry->lost_where,
		    (unsigned long long)b->lost_kind[LOST_REQUESTS],
		    (unsigned long long)b->lost_kind[LOST_CALLS],
		    (unsigned long long)b->lost_kind[LOST_RECORDS]);
	source_free(b->src);
	return (b->status);
}
