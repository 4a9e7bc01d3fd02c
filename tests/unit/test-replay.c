/* test-replay.c: the replay source's controls the UI calls (step, seek, rewind, status), through its table. */

#include <event2/event.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blktop.h"
#include "options.h"
#include "stream.h"
#include "check.h"
#include "../common/capture-fixture.h"

struct blktop bt;

#define T0	(1000 * NSEC_PER_SEC)	/* stream time the fake recording begins */
#define NTICK	10
#define PER	100			/* requests per tick */
#define OFFSET	((int64_t)1700000000 * (int64_t)NSEC_PER_SEC)

/* Set: the next capture records the process filter -c lifecycle -p 42 --cgroup 7. */
static int make_procs;

/* A capture of NTICK one-second ticks of PER requests each on 7:3. */
static void
make_capture(const char *path, uint64_t interval_ns, uint32_t filter)
{
	struct capture_header	 hdr;
	struct capture_dev	 dev = { DEV_MKDEV(7, 3), "loop3" };
	struct capture		*w;
	struct ev_block		 e;
	struct ev_tick		 t = { .type = EV_TICK };
	char			*err;
	unsigned		 i, j;

	fixture_capture_header(&hdr, "tp_btf:io_start -d 3", &dev, 1, interval_ns,
	    T0, OFFSET);
	if (filter != 0) {
		hdr.nfilter = 1;
		hdr.filter_devs = &filter;
	}
	if (make_procs) {
		hdr.filter_cgroup = 7;
		hdr.nfilter_pids = 1;
		hdr.filter_pids[0] = 42;
		hdr.nfilter_comms = 1;
		strcpy(hdr.filter_comms[0], "lifecycle");
	}
	unlink(path);
	if ((w = capture_create(path, &hdr, &err)) == NULL) {
		printf("FAIL: create %s: %s\n", path, err);
		exit(1);
	}
	for (i = 0; i < NTICK; i++) {
		for (j = 0; j < PER; j++) {
			memset(&e, 0, sizeof e);
			e.type = EV_BLOCK;
			e.dev = DEV_MKDEV(7, 3);
			e.ts_done = T0 + i * NSEC_PER_SEC + (j + 1) * 1000000;
			e.ts_issue = e.ts_done - 100000;
			e.ts_start = e.ts_issue - 1000;
			e.bytes = 4096;
			e.op = j % 2;
			e.sector = j * 8;
			e.inflight = 1;
			capture_add(w, &e, sizeof e);
		}
		t.ts = T0 + (i + 1) * NSEC_PER_SEC;
		capture_add(w, &t, sizeof t);
	}
	CHECK("capture written", capture_close(w) == 0);
}

/* A replay of path at one report a second, as -r FILE -d 1 sets it up. */
static void
replay_setup(struct blktop *b2, const char *path)
{
	struct options	 o;

	options_defaults(&o, b2);	/* -d 1, unless the recording says */
	b2->opt.replay_path = path;
	b2->tick_ns = NSEC_PER_SEC;
	b2->ticks_per_report = 1;
	b2->nticks = 60;
	b2->opt.speed = 1;
	b2->base = event_base_new();
}

/*
 * A 1.1 header's interval and -D filter come back as fields; with none (a 1.0
 * file) they come from the plan, "-d 1".
 */
static void
check_header_fields(const char *path, uint64_t interval_ns, uint32_t filter,
    double want_interval, const char *what)
{
	struct blktop	 b2 = { 0 };
	struct source	*src;
	char		*err;

	make_capture(path, interval_ns, filter);
	replay_setup(&b2, path);
	src = source_create(&b2, &source_replay);
	CHECK(what, source_replay.start(src, &err) == 0 &&
	    b2.opt.interval == want_interval &&
	    b2.opt.ndevs == (filter != 0) && (filter == 0 || b2.opt.devs[0] == filter));
	source_replay.stop(src);
	source_free(src);
	stream_stop(&b2);
	windows_free(&b2.win);
	event_base_free(b2.base);
}

/* The stream's verdict on a block request of process 42, cgroup 7, named comm. */
static int
keeps_owner(const struct blktop *b, const char *comm)
{
	struct ev_block	 ev = { .type = EV_BLOCK, .tgid = 42, .cgroup = 7 };

	strncpy(ev.comm, comm, sizeof ev.comm - 1);
	return ((stream_keep(b, &rec_types[EV_BLOCK], &ev) & STREAM_KEEP_PROC) != 0);
}

/*
 * A 2.1 header's process filter: restored when none is given (the live
 * tables took only those processes), left alone when one is, gone at stop.
 */
static void
check_proc_filter(const char *path)
{
	struct blktop	 b2 = { 0 };
	struct options	 o;
	struct source	*src;
	char		*err;
	int		 ok;

	make_procs = 1;
	make_capture(path, NSEC_PER_SEC, 0);
	make_procs = 0;
	replay_setup(&b2, path);
	src = source_create(&b2, &source_replay);
	ok = source_replay.start(src, &err) == 0;
	CHECK("2.1 header: the recording's -c, -p and --cgroup restored",
	    ok && b2.opt.ncomms == 1 && strcmp(b2.opt.comms[0], "lifecycle") == 0 &&
	    b2.opt.ntgids == 1 && b2.opt.tgids[0] == 42 && b2.opt.cgroup_id == 7 &&
	    keeps_owner(&b2, "lifecycle") && !keeps_owner(&b2, "python3"));
	source_replay.stop(src);
	CHECK("2.1 header: the restored filter goes with the replay",
	    b2.opt.ncomms == 0 && b2.opt.ntgids == 0 && b2.opt.cgroup_id == 0);
	source_free(src);
	stream_stop(&b2);
	windows_free(&b2.win);

	/* One given: the user's, the recording's not mixed in. */
	o.b = &b2;
	CHECK("-c other", options_set(&o, options_find("comm"), "other", OPTION_FROM_COMMAND,
	    &err) == 0);
	src = source_create(&b2, &source_replay);
	ok = source_replay.start(src, &err) == 0;
	CHECK("2.1 header: a -c given replaces the recording's process filter",
	    ok && b2.opt.ncomms == 1 && strcmp(b2.opt.comms[0], "other") == 0 &&
	    b2.opt.ntgids == 0 && b2.opt.cgroup_id == 0);
	source_replay.stop(src);
	source_free(src);
	stream_stop(&b2);
	windows_free(&b2.win);
	event_base_free(b2.base);
}

/* Lines in a buffer. */
static unsigned
lines(const char *buf, size_t len)
{
	unsigned	 n = 0;
	size_t		 i;

	for (i = 0; i < len; i++)
		n += buf[i] == '\n';
	return (n);
}

int
main(void)
{
	struct blktop			*b = &bt;
	struct source_status		 st;
	struct source			*src;
	const struct source_entry	*e = &source_replay;
	char				 path[] = "/tmp/test-replay-XXXXXX";
	char				*err, *out = NULL;
	size_t				 outlen = 0;
	int				 fd;

	if ((fd = mkstemp(path)) == -1)
		return (1);
	close(fd);
	check_header_fields(path, 2 * NSEC_PER_SEC, DEV_MKDEV(7, 3), 2,
	    "1.1 header: interval 2 s and the -D filter restored");
	check_header_fields(path, 250000000, 0, 0.25,
	    "1.1 header: interval 0.25 s, no filter");
	check_header_fields(path, 0, 0, 3, "1.0 header: interval from the plan, -d 3");
	check_proc_filter(path);
	make_capture(path, NSEC_PER_SEC, 0);

	replay_setup(b, path);
	b->nticks = 600;
	b->opt.capture_opts.flight_secs = 0;
	b->opt.batch_opts.json = 1;
	b->opt.batch_opts.out = open_memstream(&out, &outlen);
	stream_add_sink(b, &sink_model, NULL);
	stream_add_sink(b, &sink_batch, &b->opt.batch_opts);
	b->src = src = source_create(b, e);
	CHECK("replay starts", e->start(src, &err) == 0);
	CHECK("clock from the header", b->mono_to_wall == OFFSET);
	CHECK("windows open when the recording began", b->win.tick_start == T0);
	CHECK("device names from the header", strcmp(device_name(DEV_MKDEV(7, 3)), "loop3") == 0);

	e->pause(src);
	e->status(src, &st);
	CHECK("paused", st.paused && st.pos_ns == T0);
	e->step(src);
	CHECK("step: one tick", b->win.nclosed == 1 && b->events == PER);
	fflush(b->opt.batch_opts.out);
	CHECK("step: its report is printed", lines(out, outlen) == 1);
	e->status(src, &st);
	CHECK("status: wall clock of the position", st.wall_ns == (int64_t)(T0 + NSEC_PER_SEC) + OFFSET);
	e->seek(src, 3);
	CHECK("seek +3 s: four ticks", b->win.nclosed == 4 && b->events == 4 * PER);
	fflush(b->opt.batch_opts.out);
	CHECK("seek: silent, no report printed", lines(out, outlen) == 1 && !b->silent);
	e->seek(src, -2);
	CHECK("seek -2 s: rewound to two ticks", b->win.nclosed == 2 && b->events == 2 * PER);
	CHECK("seek -2 s: the windows start again", b->win.devs[0]->dev == DEV_MKDEV(7, 3));
	e->seek(src, 1e9);
	e->status(src, &st);
	CHECK("end: every tick", b->win.nclosed == NTICK && b->events == NTICK * PER && st.at_end);
	e->seek_start(src);
	e->status(src, &st);
	CHECK("start: nothing fed", b->win.nclosed == 0 && b->events == 0 && !st.at_end);
	e->seek(src, -10);
	CHECK("seek before the start stays at the start", b->win.nclosed == 0);
	e->set_speed(src, 100);
	e->status(src, &st);
	CHECK("speed clamped to 64", st.speed == REPLAY_SPEED_MAX);
	e->set_speed(src, 0.01);
	e->status(src, &st);
	CHECK("speed clamped to 0.25", st.speed == REPLAY_SPEED_MIN);
	e->pause(src);
	e->status(src, &st);
	CHECK("resumed", !st.paused);

	e->stop(src);
	source_free(src);
	stream_stop(b);
	fclose(b->opt.batch_opts.out);
	free(out);
	windows_free(&b->win);
	event_base_free(b->base);
	unlink(path);
	CHECK_EXIT();
}
