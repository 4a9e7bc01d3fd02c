/* main.c: a run of blktop: its options read, its source and sinks set up, the event loop, the tick timer and signals. */

#include <event2/event.h>
#include <malloc.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "blktop.h"
#include "compare.h"
#include "config-file.h"
#include "draw.h"
#include "options.h"
#include "stack.h"

/* The run: main()'s alone; sources and sinks get it as their b. */
static struct blktop bt;

static struct event	*blktop_tick_ev;

/* Exit with a line about a bad option that the core cannot check. */
static void __attribute__((noreturn)) __printflike(1, 2)
main_error(const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	options_verror("", fmt, ap);
}

/*
 * --trace-max refused here, not after the programs loaded, where its events'
 * pool would not fit in half of this machine's memory (they are held to the
 * end of the run).
 */
static void
main_check_trace_max(const struct blktop *b)
{
	long		 pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE), mb, most;
	uint64_t	 half;

	if (options_from(b, "trace-max") != OPTION_FROM_COMMAND || pages <= 0 || psize <= 0)
		return;
	half = (uint64_t)pages * (uint64_t)psize / 2;
	if (trace_pool_bytes(b->opt.trace_opts.max_bytes) <= half)
		return;
	mb = (long)(b->opt.trace_opts.max_bytes >> 20);
	for (most = mb - 1; most > 1 && trace_pool_bytes((uint64_t)most << 20) > half; most--)
		;
	options_error("--trace-max: %ld MB holds up to %llu MiB of events in memory, over "
	    "half of this machine's %llu MiB: at most %ld here", mb,
	    (unsigned long long)(trace_pool_bytes(b->opt.trace_opts.max_bytes) >> 20),
	    (unsigned long long)(half >> 19), most);
}

/*
 * The options: the table's rows read (options.c), then what only the whole
 * program can check (a theme, a listen address, memory for a trace), a
 * --mark sent, the config file read for the UI, and -D named for a live run.
 */
static void
main_options(struct options *o, struct blktop *b, int argc, char **argv)
{
	struct theme	 t;
	char		*err;
	uid_t		 su;
	gid_t		 sg;

	options_defaults(o, b);
	options_parse(o, argc, argv);
	if (o->mark_label != NULL)
		exit(mark_send(o->mark_label));
	/* A bad theme is a command-line error, before any loading. */
	if (o->theme != NULL && theme_option(&t, o->theme, &err) != 0)
		main_error("-t: %s", err);
	if (o->listen != NULL && metrics_parse_listen(o->listen, b->opt.metrics_opts.listen_addr,
	    sizeof b->opt.metrics_opts.listen_addr, &b->opt.metrics_opts.listen_port, &err) != 0)
		options_error("%s", err);
	main_check_trace_max(b);
	options_check(o);
	/* A SUDO_UID that is no user's stops the run now, before anything loads. */
	if (privs_sudo_ids(&su, &sg, &err) == -1) {
		fprintf(stderr, "%s: %s\n", log_prog, err);
		exit(1);
	}
	/* The UI's settings; reports (-b, -J, --headless) stay as the command line says. */
	if (options_use_config(o) && config_load(b, o->config_path, &sink_ui, &err) != 0)
		main_error("%s", err);
	options_finish(o);
	if (b->opt.replay_path == NULL && options_resolve_devs(b, NULL, &err) != 0)
		main_error("-D: %s", err);
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

/*
 * Close one tick: drain the source first so the tick holds all it can. Its
 * time is the drain's start: what was made before it has come (the drain
 * sends every CPU's batch first), so the calls and requests judged up to it
 * at a report (sink-model.c) are all there. Taken after the drain, records
 * made while it ran came after the report, judged out of order: 11-26 calls
 * of 300,000-400,000 a run of tests/integration/straggle.sh in the debug
 * build, whose drains are slow.
 */
static void
blktop_tick(struct blktop *b)
{
	struct ev_tick	 tick = { .type = EV_TICK };

	tick.ts = source_now();
	b->src->entry->drain(b->src);
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
	if (b->opt.verbose && why != NULL)
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

	if (b->opt.replay_path == NULL || privs_sudo_uid(&su) != 0)
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

	b->opt.speed = 0;
	stream_set_ticks(b, 0);
	if ((b->base = event_base_new()) == NULL)
		fatalx("cannot create the event loop");
	b->src = source_create(b, &source_replay);
	stream_add_sink(b, &sink_dump, &b->opt.dump_opts);
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
	static const int signos[3] = { SIGINT, SIGTERM, SIGHUP };
	struct blktop	*b = &bt;
	struct options	 o;
	struct event	*sigs[3];
	struct timeval	 tv;
	char		*err, **cmp_b;
	int		 i, dropped, cmp_nb;

	argc = compare_split(argc, argv, &cmp_b, &cmp_nb);
	main_options(&o, b, argc, argv);
	if (o.compare)
		compare_main(b, cmp_b, cmp_nb, o.compare_ui ? ui_compare : compare_write,
		    o.compare_ui);	/* returns in each capture's child */
	if (b->opt.dump_opts.format != 0)
		exit(blktop_dump(b));
	if (b->opt.hooks != NULL) {
		struct hook_plan plan;

		if (live_parse_hooks(b->opt.hooks, &plan, &err) != 0) {
			fprintf(stderr, "%s: %s\n", log_prog, err);
			exit(2);
		}
	}
	if (o.probe) {
		if (live_check_privileges(&err) != 0)
			fatalx("%s", err);
		live_print_probe(&bt, stdout);
		exit(0);
	}
	stream_set_ticks(b, o.history);

	event_set_log_callback(blktop_event_log);
	if ((b->base = event_base_new()) == NULL)
		fatalx("cannot create the event loop");
	/*
	 * The port first: a port taken fails the run in well under a second,
	 * not after the programs loaded; bound while still root, any port.
	 */
	if (b->opt.metrics_opts.listen_port != 0 &&
	    (b->opt.metrics_opts.listen_fd = metrics_http_bind(b->opt.metrics_opts.listen_addr,
	    b->opt.metrics_opts.listen_port, &err)) == -1)
		fatalx("%s", err);
	/* Tables of a fixed bound, reserved once: the per-event path never allocates. */
	b->procs = proc_create(b->opt.max_procs, b->opt.max_files, b->opt.by_thread);
	/* The latency stack: --stack's output, the UI's stack screen, the HTML report's section. */
	if (b->opt.batch_opts.stack || (!o.headless && !b->opt.batch) ||
	    b->opt.report_opts.path != NULL)
		b->stack = stack_create();
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
	b->src = source_create(b, b->opt.replay_path != NULL ? &source_replay :
	    &source_live);
	/*
	 * The stream's sinks, in order, each with its options: the capture gets
	 * what the model gets, the view reads the model.
	 */
	stream_add_sink(b, &sink_capture, &b->opt.capture_opts);
	stream_add_sink(b, &sink_model, NULL);
	if (!o.headless && b->opt.batch)
		stream_add_sink(b, &sink_batch, &b->opt.batch_opts);
	else if (!o.headless)
		stream_add_sink(b, &sink_ui, &b->opt.ui_opts);
	if (b->opt.metrics_opts.listen_port != 0)
		stream_add_sink(b, &sink_metrics, &b->opt.metrics_opts);
	if (b->opt.report_opts.path != NULL)
		stream_add_sink(b, &sink_report, &b->opt.report_opts);
	if (b->opt.trace_opts.path != NULL)
		stream_add_sink(b, &sink_trace, &b->opt.trace_opts);
	dropped = blktop_drop_early(b);
	if (b->src->entry->start(b->src, &err) != 0)
		fatalx("%s", err);
	/* Attached: from here on, the user who ran sudo and no capabilities. */
	if (!dropped)
		blktop_drop(b);
	if (b->opt.replay_path == NULL)
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
	stack_free(b->stack);
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
