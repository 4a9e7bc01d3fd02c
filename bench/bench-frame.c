/* bench-frame.c: CPU time of one UI frame at 200x60 with 16 devices (BENCH_DEVS up to 64), 10,000 processes and 100,000 files. */

#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <event2/event.h>
#include <fcntl.h>
#include <pty.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "blktop.h"
#include "../ui/ui.h"
#include "../tests/common/rand.h"

#define BENCH_COLS	200
#define BENCH_ROWS	60
#define BENCH_DEVS	16		/* the default of $BENCH_DEVS */
#define BENCH_PROCS	10000
#define BENCH_FILES	100000
#define BENCH_TICKS	600		/* history filled before measuring */
#define BENCH_EVS	64		/* block events per device per tick */
#define BENCH_FRAMES	200		/* frames measured per pane (argv[2] to change) */

static struct blktop bt;

/* A source that never has anything: the bench feeds the stream itself. */
static const struct source_entry bench_source = { .name = "bench" };

static unsigned bench_devs = BENCH_DEVS;

static uint64_t bench_rand_state = 0x9e3779b97f4a7c15ULL;

/* Deterministic synthetic data. */
static uint64_t
bench_rand(void)
{
	return (xorshift64(&bench_rand_state));
}

/* A latency spread over a few decades around 100 us, log-uniform-ish. */
static uint64_t
bench_lat(void)
{
	return (5000 + (bench_rand() % 200000) * (1 + bench_rand() % 4) *
	    (bench_rand() % 8 == 0 ? 10 : 1));
}

/* CPU time of this process, ns. */
static uint64_t
bench_cpu(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ((uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec);
}

/* One tick of block events on every device, from some of the processes. */
static void
bench_block_tick(struct blktop *b, uint64_t now)
{
	struct ev_block	 ev;
	unsigned	 d, i, pid;

	memset(&ev, 0, sizeof ev);
	ev.type = EV_BLOCK;
	for (d = 0; d < bench_devs; d++) {
		for (i = 0; i < BENCH_EVS; i++) {
			pid = 1000 + (unsigned)(bench_rand() % BENCH_PROCS);
			ev.dev = DEV_MKDEV(259, d);
			ev.ts_start = now - 400000;
			ev.ts_issue = now - 300000;
			ev.ts_done = ev.ts_issue + bench_lat();
			ev.bytes = 4096u << (bench_rand() % 5);
			ev.op = bench_rand() % 3 == 0 ? BLK_OP_WRITE : BLK_OP_READ;
			ev.pid = ev.tgid = pid;
			ev.inflight = 1 + (uint32_t)(bench_rand() % 32);
			ev.busy_ns = now;
			snprintf(ev.comm, sizeof ev.comm, "worker-%u", pid % 977);
			stream_event(b, &ev, sizeof ev);
		}
	}
}

/* Read/write calls on n files (of BENCH_FILES), each with its full path. */
static void
bench_rw(struct blktop *b, uint64_t now, unsigned n, unsigned first)
{
	static union {
		struct ev_rw	 ev;
		char		 buf[sizeof(struct ev_rw) + 256];
	} u;
	struct ev_rw	*ev = &u.ev;
	unsigned	 i, f;
	int		 len;

	for (i = 0; i < n; i++) {
		f = first == (unsigned)-1 ? (unsigned)(bench_rand() % BENCH_FILES) :
		    first + i;
		memset(ev, 0, sizeof *ev);
		ev->type = EV_RW;
		ev->ts = now;
		ev->lat_ns = bench_lat() / 10;
		ev->asked = ev->done = 4096;
		ev->pos = -1;
		ev->pid = ev->tgid = 1000 + f % BENCH_PROCS;
		ev->op = f % 3 == 0 ? BLK_OP_WRITE : BLK_OP_READ;
		ev->ftype = VFS_FT_REG;
		snprintf(ev->comm, sizeof ev->comm, "worker-%u", ev->pid % 977);
		len = snprintf(ev->path, 200,
		    "/srv/data/project-%03u/very/long/directory/name/%05u/file-%06u.dat",
		    f % 300, f % 10000, f);
		ev->path_len = (uint16_t)len;
		proc_add_rw(b->procs, ev);
	}
}

/* Compare for qsort. */
static int
bench_cmp(const void *a, const void *b)
{
	uint64_t	 x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x < y ? -1 : x > y);
}

/*
 * Usage: bench-frame [PANE [FRAMES]]: all three panes, or one (for a profiler).
 * BENCH_FRAME_OUT=FILE keeps the terminal output (a new file) to study.
 */
int
main(int argc, char **argv)
{
	struct blktop	*b = &bt;
	struct ui_state	*ui;
	struct winsize	 ws = { .ws_row = BENCH_ROWS, .ws_col = BENCH_COLS };
	uint64_t	*t, *tc;
	static const char *names[] = { "devices", "processes", "files", "overview" };
	struct rusage	 ru;
	uint64_t	 now = NSEC_PER_SEC, t0;
	char		 buf[4096], *err;
	int		 master, slave, out, pane, status;
	unsigned	 i, f, nframes = BENCH_FRAMES;
	int		 only = -1;
	pid_t		 drain;
	FILE		*res;

	if (argc > 1) {
		for (only = 0; only < 4 && strcmp(argv[1], names[only]) != 0; only++)
			;
		if (only == 4)
			fatalx("usage: bench-frame [devices|processes|files|overview [FRAMES]]");
	}
	if (argc > 2 && (nframes = (unsigned)atoi(argv[2])) < 1)
		nframes = 1;
	if (getenv("BENCH_DEVS") != NULL &&
	    ((bench_devs = (unsigned)atoi(getenv("BENCH_DEVS"))) < 1 ||
	    bench_devs > WINDOWS_MAX_DEVS))
		fatalx("BENCH_DEVS: 1 to %d", WINDOWS_MAX_DEVS);
	t = xcalloc(nframes, sizeof *t);
	tc = xcalloc(nframes, sizeof *tc);

	/* A pty of 200x60; a child reads the terminal output and throws it away. */
	if (openpty(&master, &slave, NULL, NULL, &ws) != 0)
		fatal("openpty");
	if ((drain = fork()) == -1)
		fatal("fork");
	if (drain == 0) {
		const char	*save = getenv("BENCH_FRAME_OUT");
		int		 fd = -1;
		ssize_t		 n;

		close(slave);
		if (save != NULL && (fd = open(save,
		    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600)) == -1)
			fatal("%s", save);
		while ((n = read(master, buf, sizeof buf)) > 0) {
			if (fd != -1 && write(fd, buf, (size_t)n) != n)
				fatal("%s", save);
		}
		_exit(0);
	}
	close(master);
	if ((out = dup(STDOUT_FILENO)) == -1 || (res = fdopen(out, "w")) == NULL)
		fatal("dup");
	dup2(slave, STDIN_FILENO);
	dup2(slave, STDOUT_FILENO);
	setenv("TERM", "xterm-256color", 1);
	setenv("LANG", "C.UTF-8", 1);
	unsetenv("NO_COLOR");

	b->opt.interval = 1;
	b->tick_ns = NSEC_PER_SEC;
	b->ticks_per_report = 1;
	b->nticks = BENCH_TICKS;
	b->src = source_create(b, &bench_source);
	snprintf(b->plan_text, sizeof b->plan_text, "bench");
	if ((b->base = event_base_new()) == NULL)
		fatalx("event_base_new");
	stream_add_sink(b, &sink_model, NULL);
	b->opt.ui_opts.capture = &b->opt.capture_opts;
	stream_add_sink(b, &sink_ui, &b->opt.ui_opts);
	stream_begin(b, now);
	b->procs = proc_create(BENCH_PROCS, BENCH_FILES, 0);

	/* History: every device has BENCH_TICKS full ticks. */
	for (i = 0; i < BENCH_TICKS; i++) {
		now += NSEC_PER_SEC;
		bench_block_tick(b, now);
		windows_tick(&b->win, now);
	}
	/* Every process and every file known, most active in the interval. */
	bench_rw(b, now, BENCH_FILES, 0);
	for (i = 0; i < BENCH_PROCS; i++) {
		struct ev_block ev;

		memset(&ev, 0, sizeof ev);
		ev.type = EV_BLOCK;
		ev.dev = DEV_MKDEV(259, i % bench_devs);
		ev.ts_start = ev.ts_issue = now;
		ev.ts_done = now + bench_lat();
		ev.bytes = 4096;
		ev.pid = ev.tgid = 1000 + i;
		snprintf(ev.comm, sizeof ev.comm, "worker-%u", ev.pid % 977);
		proc_add_block(b->procs, &ev);
	}

	if (stream_start(b, &err) != 0)
		fatalx("%s", err);
	ui = b->sinks[1].data;	/* the UI sink's state: after the model's */

	fprintf(res, "bench-frame: %dx%d, %d devices (%d ticks of history), "
	    "%d processes, %d files, median of %d frames per pane\n",
	    BENCH_COLS, BENCH_ROWS, bench_devs, BENCH_TICKS, BENCH_PROCS,
	    BENCH_FILES, nframes);
	for (pane = 0; pane < 4; pane++) {
		if (only != -1 && pane != only)
			continue;
		/* devices: a heatmap each (as before the overview); overview: a line each. */
		ui_pane_dev_view(ui, pane == 3 ? 1 : 2);
		for (f = 0; f < nframes; f++) {
			/* One tick of new data: every column moves. */
			now += NSEC_PER_SEC;
			bench_block_tick(b, now);
			bench_rw(b, now, 5000, (unsigned)-1);
			t0 = bench_cpu();
			now += 1;
			{
				struct ev_tick tick = { .type = EV_TICK, .ts = now };

				stream_event(b, &tick, sizeof tick);	/* the UI sink collects */
			}
			tc[f] = bench_cpu() - t0;
			t0 = bench_cpu();
			ui_frame(ui, pane == 3 ? 0 : pane);
			t[f] = bench_cpu() - t0;
		}
		qsort(t, nframes, sizeof *t, bench_cmp);
		qsort(tc, nframes, sizeof *tc, bench_cmp);
		fprintf(res, "  %-10s frame: median %.3f ms, p90 %.3f ms, max %.3f ms CPU;"
		    " tick+collect: median %.3f ms CPU\n", names[pane],
		    (double)t[nframes / 2] / 1e6,
		    (double)t[nframes * 9 / 10] / 1e6,
		    (double)t[nframes - 1] / 1e6,
		    (double)tc[nframes / 2] / 1e6);
	}
	if (getrusage(RUSAGE_SELF, &ru) == 0)
		fprintf(res, "  peak RSS %ld kB\n", ru.ru_maxrss);
	stream_stop(b);
	source_free(b->src);
	proc_free(b->procs);
	windows_free(&b->win);
	event_base_free(b->base);
	close(slave);
	close(STDIN_FILENO);
	close(STDOUT_FILENO);
	kill(drain, SIGTERM);
	waitpid(drain, &status, 0);
	fclose(res);
	free(t);
	free(tc);
	return (0);
}
