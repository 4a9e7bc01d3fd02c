/* blktop.c: options, the event loop, the tick timer and signals. */

#include <errno.h>
#include <event2/event.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "blktop.h"

struct blktop bt;

static struct event	*blktop_tick_ev;

enum {
	OPT_PROBE = 256,
	OPT_HOOKS,
	OPT_HISTORY,
	OPT_VERSION,
};

static const struct option blktop_longopts[] = {
	{ "batch",	no_argument,		NULL, 'b' },
	{ "json",	no_argument,		NULL, 'J' },
	{ "delay",	required_argument,	NULL, 'd' },
	{ "iterations",	required_argument,	NULL, 'n' },
	{ "device",	required_argument,	NULL, 'D' },
	{ "probe",	no_argument,		NULL, OPT_PROBE },
	{ "hooks",	required_argument,	NULL, OPT_HOOKS },
	{ "history",	required_argument,	NULL, OPT_HISTORY },
	{ "verbose",	no_argument,		NULL, 'v' },
	{ "help",	no_argument,		NULL, 'h' },
	{ "version",	no_argument,		NULL, OPT_VERSION },
	{ NULL, 0, NULL, 0 }
};

/* Print usage to f. */
static void
blktop_usage(FILE *f)
{
	fprintf(f,
"usage: blktop [-bJv] [-d SECS] [-n COUNT] [-D DEVICE]... [--hooks PLAN]\n"
"              [--history SECS] [--probe] [--version]\n"
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
"  -v, --verbose      libbpf's messages (twice: debug)\n");
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

/* Parse a positive number of seconds no larger than max. */
static double
blktop_parse_secs(const char *opt, const char *s, double max)
{
	char	*end;
	double	 v;

	errno = 0;
	v = strtod(s, &end);
	if (errno != 0 || end == s || *end != '\0' || !isfinite(v) || v < 0.01 || v > max)
		blktop_usage_error("%s: '%s' is not a number of seconds from 0.01 to %g",
		    opt, s, max);
	return (v);
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

/* Close one tick: drain the source first so the tick holds all it can. */
static void
blktop_tick(struct blktop *b)
{
	struct ev_tick	 tick = { .type = EV_TICK };

	b->src->drain(b);
	tick.ts = live_now();
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
	if (b->ticks_since_report > 0 || b->win.tick_start < live_now())
		blktop_tick(b);
	event_base_loopbreak(b->base);
}

/* The offset from CLOCK_MONOTONIC to the wall clock, in ns. */
static int64_t
blktop_mono_to_wall(void)
{
	struct timespec	 rt;

	clock_gettime(CLOCK_REALTIME, &rt);
	return ((int64_t)rt.tv_sec * (int64_t)NSEC_PER_SEC + rt.tv_nsec -
	    (int64_t)live_now());
}

int
main(int argc, char **argv)
{
	struct blktop	*b = &bt;
	struct event	*sigs[3];
	static const int signos[3] = { SIGINT, SIGTERM, SIGHUP };
	struct timeval	 tv;
	double		 history = 600;
	char		*err;
	int		 ch, probe = 0, i;
	unsigned	 d;

	b->interval = 1;
	b->out = stdout;
	b->hooks = getenv("BLKTOP_HOOKS");
	if (b->hooks != NULL && *b->hooks == '\0')
		b->hooks = NULL;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":bJd:n:D:vh", blktop_longopts, NULL)) != -1) {
		switch (ch) {
		case 'b':
			b->batch = 1;
			break;
		case 'J':
			b->batch = b->json = 1;
			break;
		case 'd':
			b->interval = blktop_parse_secs("-d", optarg, 3600);
			break;
		case 'n':
			b->count = blktop_parse_long("-n", optarg, 1, LONG_MAX);
			break;
		case 'D':
			if (b->ndevs == FILTER_MAX_DEVS)
				blktop_usage_error("-D: at most %d devices", FILTER_MAX_DEVS);
			if (device_parse(optarg, &b->devs[b->ndevs], &err) != 0) {
				fprintf(stderr, "%s: -D: %s\n", log_prog, err);
				exit(2);
			}
			for (d = 0; d < b->ndevs && b->devs[d] != b->devs[b->ndevs]; d++)
				;
			if (d == b->ndevs)
				b->ndevs++;
			break;
		case OPT_PROBE:
			probe = 1;
			break;
		case OPT_HOOKS:
			b->hooks = optarg;
			break;
		case OPT_HISTORY:
			history = blktop_parse_secs("--history", optarg, 86400);
			break;
		case 'v':
			b->verbose++;
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
	if (optind != argc)
		blktop_usage_error("unexpected argument '%s'", argv[optind]);
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
		live_print_probe(stdout);
		exit(0);
	}
	if (!b->batch)
		blktop_usage_error("the terminal UI is not part of this build yet: use -b or -J");

	/* Ticks of at most a second; a report spans a whole number of them. */
	b->tick_ns = b->interval < 1 ? (uint64_t)(b->interval * 1e9) : NSEC_PER_SEC;
	b->ticks_per_report = (unsigned)llround(b->interval * 1e9 / (double)b->tick_ns);
	if (b->ticks_per_report == 0)
		b->ticks_per_report = 1;
	b->nticks = (unsigned)ceil(history * 1e9 / (double)b->tick_ns);
	if (b->nticks < b->ticks_per_report + 1)
		b->nticks = b->ticks_per_report + 1;

	if ((b->base = event_base_new()) == NULL)
		fatalx("cannot create the event loop");
	b->src = &source_live;
	if (b->src->start(b, &err) != 0)
		fatalx("%s", err);
	b->mono_to_wall = blktop_mono_to_wall();
	windows_init(&b->win, b->nticks, live_now());
	for (d = 0; d < b->ndevs; d++)
		windows_find(&b->win, b->devs[d]);

	for (i = 0; i < 3; i++) {
		sigs[i] = evsignal_new(b->base, signos[i], blktop_signal_cb, b);
		evsignal_add(sigs[i], NULL);
	}
	signal(SIGPIPE, SIG_IGN);
	blktop_tick_ev = event_new(b->base, -1, EV_PERSIST, blktop_tick_cb, b);
	tv.tv_sec = (time_t)(b->tick_ns / NSEC_PER_SEC);
	tv.tv_usec = (suseconds_t)(b->tick_ns % NSEC_PER_SEC / 1000);
	event_add(blktop_tick_ev, &tv);

	event_base_dispatch(b->base);

	event_free(blktop_tick_ev);
	for (i = 0; i < 3; i++)
		event_free(sigs[i]);
	b->src->stop(b);
	windows_free(&b->win);
	event_base_free(b->base);
	if (b->lost > 0)
		log_warnx("%llu events lost in the kernel (ring buffer full)",
		    (unsigned long long)b->lost);
	return (0);
}
