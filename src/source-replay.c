/* source-replay.c: the replay source: captures and imported text logs of one run, paced, with pause, step and seek. */

#include <event2/event.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "blktop.h"
#include "host.h"
#include "options.h"

/* Records fed per loop turn when running as fast as possible. */
#define REPLAY_BATCH		65536
/* Pacing timer period. */
#define REPLAY_PACE_USEC	20000

/* The replay source's state. */
struct replay {
	struct source		*src;
	struct blktop		*b;
	struct merge		*run;		/* the files, merged in time order */
	uint64_t		 rec[CAPTURE_REC_MAX / 8 + 1];	/* the pending record */
	size_t			 len;
	int			 rec_host;	/* its host (host.h) */
	int			 have;		/* rec holds a record not yet fed */
	int			 eof;
	uint64_t		 start_ts;	/* stream time the windows opened at */
	uint64_t		 pos;		/* stream time the replay has reached */
	double			 speed;		/* 0: as fast as possible */
	int			 paused;
	int			 at_end;
	uint64_t		 anchor_wall;	/* source_now() when pacing last (re)started */
	uint64_t		 anchor_ts;	/* stream time then */
	struct event		*ev;
	uint64_t		 fed;		/* records handed to the stream */
	int			 own_procs;	/* b's process filter is the recording's */
	char			 comms[FILTER_MAX_COMMS][BLKTOP_COMM_LEN];	/* its -c */
};

/* Whether arg is host:name of a device of a run of several hosts. */
static int
replay_host_dev_is(uint32_t dev, const char *name, const char *arg)
{
	const char	*h = host_count() > 1 ? host_name(host_of_dev(dev)) : NULL;
	size_t		 n;

	if (h == NULL || strncmp(arg, h, n = strlen(h)) != 0 || arg[n] != ':')
		return (0);
	return (strcmp(arg + n + 1, name) == 0);
}

/* Name a device from a recording's table, host:name in a run of several hosts, MAJ:MIN, or (no header) this host's sysfs. */
int
replay_header_device(const struct capture_header *hdr, const char *arg,
    uint32_t *dev, char **errp)
{
	const char	*h;
	unsigned	 i, ma, mi;
	char		 c, *s;

	*errp = NULL;
	if (strncmp(arg, "/dev/", 5) == 0)
		arg += 5;
	if (hdr != NULL) {
		for (i = 0; i < hdr->ndevs; i++) {
			if (strcmp(hdr->devs[i].name, arg) == 0 ||
			    replay_host_dev_is(hdr->devs[i].dev, hdr->devs[i].name, arg)) {
				*dev = hdr->devs[i].dev;
				return (0);
			}
		}
	}
	if (sscanf(arg, "%u:%u%c", &ma, &mi, &c) == 2 && ma < 4096 &&
	    mi < (1u << 20)) {
		*dev = DEV_MKDEV(ma, mi);
		return (0);
	}
	if (hdr == NULL)
		return (device_parse(arg, dev, errp));
	xasprintf(errp, "unknown device '%s' (the recording names:", arg);
	for (i = 0; i < hdr->ndevs && i < 32; i++) {
		h = host_count() > 1 ? host_name(host_of_dev(hdr->devs[i].dev)) : NULL;
		xasprintf(&s, "%s %s%s%s", *errp, h != NULL ? h : "", h != NULL ? ":" : "",
		    hdr->devs[i].name);
		free(*errp);
		*errp = s;
	}
	xasprintf(&s, "%s%s)", *errp, hdr->ndevs == 0 ? " none" :
	    hdr->ndevs > 32 ? " ..." : "");
	free(*errp);
	*errp = s;
	return (-1);
}

/* Name a device as the recording does. */
static int
replay_device(struct source *src, const char *arg, uint32_t *dev, char **errp)
{
	struct replay	*r = src->data;

	return (replay_header_device(r->run != NULL ? merge_header(r->run) : NULL,
	    arg, dev, errp));
}

/* Read the next record into rec; 0 at the end. */
static int
replay_read(struct replay *r)
{
	if (!r->eof && r->run != NULL &&
	    merge_next(r->run, r->rec, sizeof r->rec, &r->len) == 1) {
		r->rec_host = merge_last_host(r->run);
		r->have = 1;
		return (1);
	}
	r->have = 0;
	r->eof = 1;
	return (0);
}

/* Hand the pending record, of stream time ts (rec_type_ts's), to the stream and read the next. */
static void
replay_feed(struct replay *r, uint64_t ts)
{
	uint64_t	 buf[sizeof r->rec / 8];
	size_t		 len = r->len;
	int		 host = r->rec_host;

	memcpy(buf, r->rec, len);
	/* The files' last record: its report is the run's last (what ends with the run, ends there). */
	if (!replay_read(r))
		r->b->ending = 1;
	if (ts > r->pos)
		r->pos = ts;
	r->fed++;
	host_set_current(host);
	stream_event(r->b, buf, len);
}

/* Whether a report count (-n) has been reached. */
static int
replay_done_count(const struct blktop *b)
{
	return (b->opt.count > 0 && b->reports >= b->opt.count);
}

/*
 * Feed every record up to stream time target (all of them for UINT64_MAX),
 * at most max records; stop after a tick if until_tick. Returns records fed.
 */
static uint64_t
replay_run(struct replay *r, uint64_t target, uint64_t max, int until_tick)
{
	uint64_t	 n = 0, ts;
	uint32_t	 type;

	while (r->have && n < max && !replay_done_count(r->b)) {
		ts = rec_type_ts(r->rec, r->len);
		if (ts != 0 && ts > target && !until_tick)
			break;
		memcpy(&type, r->rec, sizeof type);
		replay_feed(r, ts);
		n++;
		if (until_tick && type == EV_TICK)
			break;
	}
	return (n);
}

/* Feed silently (seeking: no output) up to stream time target. */
static void
replay_run_silent(struct replay *r, uint64_t target)
{
	int	 silent = r->b->silent;

	r->b->silent = 1;
	replay_run(r, target, UINT64_MAX, 0);
	r->b->silent = silent;
}

/* Pacing: the stream time the replay should have reached now. */
static uint64_t
replay_target(struct replay *r)
{
	double	 d;

	if (r->paused)
		return (r->pos);
	if (r->speed == 0)
		return (UINT64_MAX);
	d = (double)(source_now() - r->anchor_wall) * r->speed;
	return (r->anchor_ts + (uint64_t)d);
}

/* Restart pacing from the current position. */
static void
replay_anchor(struct replay *r)
{
	r->anchor_wall = source_now();
	r->anchor_ts = r->pos;
}

/* The end of the file: the sinks decide what it means (batch stops, the UI stays). */
static void
replay_at_end(struct replay *r)
{
	if (r->at_end)
		return;
	r->at_end = 1;
	stream_end(r->b);
}

/* Schedule the feeding event. */
static void
replay_schedule(struct replay *r)
{
	struct timeval	 tv = { 0, REPLAY_PACE_USEC };

	if (r->ev == NULL || r->paused || !r->have)
		return;
	/*
	 * As fast as possible is a timer of 0, not event_active: an event made
	 * active from its own callback runs again before the loop polls, and
	 * signals (Ctrl-C, SIGTERM) would wait for the end of the file.
	 */
	if (r->speed == 0)
		tv.tv_usec = 0;
	event_add(r->ev, &tv);
}

/* The feeding event: as fast as possible or paced by the clock. */
static void
replay_cb(__unused int fd, __unused short what, void *arg)
{
	struct replay	*r = arg;
	struct timeval	 tv = { 0, REPLAY_PACE_USEC };

	if (r->paused)
		return;
	if (r->speed == 0) {
		replay_run(r, UINT64_MAX, REPLAY_BATCH, 0);
		if (replay_done_count(r->b))
			event_base_loopbreak(r->b->base);
		else if (r->have)
			replay_schedule(r);
	} else {
		replay_run(r, replay_target(r), REPLAY_BATCH * 16, 0);
		if (replay_done_count(r->b))
			event_base_loopbreak(r->b->base);
		if (r->have)
			event_add(r->ev, &tv);
	}
	if (!r->have)
		replay_at_end(r);
}

/* The value after "-d " or "-D " in a recorded plan, or NULL. */
static const char *
replay_plan_arg(const char *plan, const char *opt)
{
	const char	*p;

	if (plan == NULL)
		return (NULL);
	for (p = plan; (p = strstr(p, opt)) != NULL; p++) {
		if (p == plan || p[-1] == ' ')
			return (p + strlen(opt));
	}
	return (NULL);
}

/* The -D filter as given, or with none the recording's own. */
static int
replay_filter(struct replay *r, char **errp)
{
	struct blktop			*b = r->b;
	const struct capture_header	*hdr;
	const char			*p;
	unsigned			 ma, mi, i;
	int				 n;

	hdr = merge_header(r->run);
	if (options_resolve_devs(b, r->src, errp) != 0)
		return (-1);
	/* No -D now: the recording's own filter. */
	if (!options_wins(b, options_find("device"), OPTION_FROM_CAPTURE))
		return (0);
	if (hdr->interval_ns != 0) {
		for (i = 0; i < hdr->nfilter && b->opt.ndevs < FILTER_MAX_DEVS; i++)
			b->opt.devs[b->opt.ndevs++] = hdr->filter_devs[i];
		return (0);
	}
	/* A 1.0 capture keeps it in the plan, "-D 7:3,7:4". */
	if ((p = replay_plan_arg(hdr->plan, "-D ")) == NULL)
		return (0);
	while (b->opt.ndevs < FILTER_MAX_DEVS && sscanf(p, "%u:%u%n", &ma, &mi, &n) == 2) {
		b->opt.devs[b->opt.ndevs++] = DEV_MKDEV(ma, mi);
		p += n;
		if (*p != ',')
			break;
		p++;
	}
	return (0);
}

/*
 * The -p, -c and --cgroup filter as given, or with none the recording's
 * own: the live model took only those processes' records (the capture holds
 * every block request, for the devices' windows), and the replay's must
 * take the same to reproduce its figures.
 */
static void
replay_procs(struct replay *r)
{
	static const char *const	 filter[] = { "pid", "comm", "cgroup", NULL };
	struct blktop			*b = r->b;
	const struct capture_header	*hdr = merge_header(r->run);
	unsigned			 i;

	if (!hdr->has_procs || !options_wins_all(b, filter, OPTION_FROM_CAPTURE))
		return;
	b->opt.cgroup_id = hdr->filter_cgroup;
	for (i = 0; i < hdr->nfilter_pids && i < FILTER_MAX_PIDS; i++)
		b->opt.tgids[b->opt.ntgids++] = hdr->filter_pids[i];
	for (i = 0; i < hdr->nfilter_comms && i < FILTER_MAX_COMMS; i++) {
		memcpy(r->comms[i], hdr->filter_comms[i], BLKTOP_COMM_LEN);
		b->opt.comms[b->opt.ncomms++] = r->comms[i];
	}
	r->own_procs = 1;
}

/* Back at the start of the file: the stream begins again, nothing fed. */
static void
replay_reset(struct replay *r)
{
	stream_begin(r->b, r->start_ts);
	r->fed = 0;
	r->pos = r->start_ts;
	r->at_end = 0;
}

/* Ticks and report length from -d, or from the interval the recording used. */
static void
replay_interval(struct replay *r)
{
	struct blktop			*b = r->b;
	const struct capture_header	*hdr;
	const char			*p;
	double				 history, d;
	char				*end;

	history = (double)b->nticks * (double)b->tick_ns / 1e9;
	hdr = merge_header(r->run);
	d = 0;
	if (hdr->interval_ns != 0)
		d = (double)hdr->interval_ns / 1e9;
	else if ((p = replay_plan_arg(hdr->plan, "-d ")) != NULL) {
		/* A 1.0 capture keeps it in the plan. */
		d = strtod(p, &end);
		if (end == p)
			d = 0;
	}
	options_offer(b, "delay", d, OPTION_FROM_CAPTURE);
	stream_set_ticks(b, history);
	merge_set_tick(r->run, b->tick_ns);
}

/*
 * What the recording's records can tell: files on block records since 2.0
 * (never in an imported log: its block lines name no file), the hooks its
 * plan names (tp_btf:io_start+tracepoint+dirty+fault).
 */
static unsigned
replay_have(const struct capture_header *hdr, size_t n)
{
	unsigned	 have = hdr->major >= 2 && strncmp(hdr->plan, "import:", 7) != 0 ?
			    HAVE_FILES : 0;
	const char	*p = hdr->plan, *end = hdr->plan + n;
	size_t		 k;
	int		 nomunmap = 0, fsync = 0, truncate = 0;

	while (p < end && (p = memchr(p, '+', end - p)) != NULL) {
		p++;
		k = strcspn(p, "+, \n");	/* ',': a plan of files merged, recorded again */
		if (k == 5 && strncmp(p, "dirty", 5) == 0)
			have |= HAVE_DIRTY;
		else if (k == 5 && strncmp(p, "fault", 5) == 0)
			have |= HAVE_FAULT;
		else if (k == 5 && strncmp(p, "uring", 5) == 0)
			have |= HAVE_URING;
		else if (k == 3 && strncmp(p, "aio", 3) == 0)
			have |= HAVE_AIO;
		else if (k == 4 && strncmp(p, "life", 4) == 0)
			have |= HAVE_LIFE;
		else if (k == 8 && strncmp(p, "nomunmap", 8) == 0)
			nomunmap = 1;
		else if (k == 5 && strncmp(p, "fsync", 5) == 0)
			fsync = 1;
		else if (k == 8 && strncmp(p, "truncate", 8) == 0)
			truncate = 1;
		else if (k == 8 && strncmp(p, "throttle", 8) == 0)
			have |= HAVE_THROTTLE;
		else if (k == 4 && strncmp(p, "task", 4) == 0)
			have |= HAVE_TASK;
		else if (k > 0)
			have |= HAVE_VFS;
	}
	/* Lifecycle records hold munmaps unless the kernel could not trace them. */
	if ((have & HAVE_LIFE) && !nomunmap)
		have |= HAVE_MUNMAP;
	if ((have & HAVE_LIFE) && fsync)
		have |= HAVE_FSYNC;
	if ((have & HAVE_LIFE) && truncate)
		have |= HAVE_TRUNCATE;
	return (have);
}

/*
 * Why the recording could not tell what it lacks: the "\nna NAME REASON"
 * lines a capture's plan ends with (sink-capture.c), as the live run said
 * them; an imported log's lack is its format's.
 */
static void
replay_na(struct blktop *b, const char *plan)
{
	const char	*p = plan, *name, *why;
	size_t		 n, k;
	unsigned	 i;

	if (strncmp(plan, "import:", 7) == 0) {
		for (i = 0; i < HAVE_NBITS; i++)
			source_have_set_na(b, have_table[i].bit, "not in the imported log");
		return;
	}
	while ((p = strstr(p, "\nna ")) != NULL) {
		name = p + 4;
		k = strcspn(name, " \n");
		why = name + k + (name[k] == ' ');
		n = strcspn(why, "\n");
		for (i = 0; i < HAVE_NBITS; i++) {
			if (strlen(have_table[i].name) == k &&
			    strncmp(have_table[i].name, name, k) == 0)
				source_have_set_na(b, have_table[i].bit, "%.*s", (int)(n < 150 ? n : 150), why);
		}
		p = why + n;
	}
}

/* The files of the replay: -r FILE... as given, or replay_path alone. */
const char *const *
replay_paths(const struct blktop *b, unsigned *np)
{
	if (b->opt.nreplay_files == 0) {
		*np = 1;
		return (&b->opt.replay_path);
	}
	*np = b->opt.nreplay_files;
	return (b->opt.replay_files);
}

/*
 * What a capture lacks because an older blktop recorded it, where its plan
 * says nothing of why: a feature added later than the records it needs.
 */
static const struct {
	unsigned	 bit;		/* the feature (HAVE_*) */
	unsigned	 needs;		/* the records it comes with, recorded */
	const char	*why;
} replay_older_table[] = {
	{ HAVE_FSYNC, HAVE_LIFE, "recorded by a blktop that did not trace fsync yet" },
	{ HAVE_TRUNCATE, HAVE_LIFE, "recorded by a blktop that did not trace truncate yet" },
	{ HAVE_THROTTLE, HAVE_VFS, "recorded by a blktop that did not trace the dirtiers' pauses yet" },
	/* As live --no-vfs: no tree without calls. */
	{ HAVE_TASK, HAVE_VFS, "recorded by a blktop that did not trace the process tree" },
};

static void
replay_older(struct blktop *b)
{
	unsigned i;

	for (i = 0; i < nitems(replay_older_table); i++) {
		if ((b->have & replay_older_table[i].needs) && !(b->have & replay_older_table[i].bit) &&
		    source_have_na(b, replay_older_table[i].bit)[0] == '\0')
			source_have_set_na(b, replay_older_table[i].bit, "%s", replay_older_table[i].why);
	}
}

/*
 * The run's plan: the recording's hooks (its files', comma-separated),
 * whole, so that the run recorded again (-w) replays with what this one
 * has; cut only after a whole hook name where it is longer than the buffer.
 */
static void
replay_plan_text(struct blktop *b, const char *plan)
{
	size_t	 n = strcspn(plan, " \n");

	if (n >= sizeof b->plan_text) {
		n = sizeof b->plan_text - 1;
		while (n > 0 && plan[n] != '+' && plan[n] != ',')
			n--;
	}
	memcpy(b->plan_text, plan, n);
	b->plan_text[n] = '\0';
}

/* Open the files, set names, clocks and windows from their header, start feeding. */
static int
replay_start(struct source *src, char **errp)
{
	struct blktop			*b = src->b;
	struct replay			*r;
	const struct capture_header	*hdr, *fh;
	const char *const		*paths;
	uint64_t			 first;
	unsigned			 i, npaths;

	*errp = NULL;
	r = src->data = xcalloc(1, sizeof *r);
	r->src = src;
	r->b = b;
	paths = replay_paths(b, &npaths);
	if ((r->run = merge_open(paths, npaths, 0, errp)) == NULL)
		return (-1);
	hdr = merge_header(r->run);
	for (i = 0; i < hdr->ndevs; i++) {
		device_set_name(hdr->devs[i].dev, hdr->devs[i].name);
		if (host_count() > 1 && host_of_dev(hdr->devs[i].dev) != HOST_NONE)
			device_set_host_text(hdr->devs[i].dev,
			    host_name(host_of_dev(hdr->devs[i].dev)));
	}
	if (replay_filter(r, errp) != 0)
		return (-1);
	replay_procs(r);
	b->mono_to_wall = hdr->clock_offset;
	b->wall_known = hdr->has_clock;
	replay_plan_text(b, hdr->plan);
	b->have = 0;
	for (i = 0; i < merge_nfiles(r->run); i++) {
		fh = merge_file_header(r->run, i);
		b->have |= replay_have(fh, strcspn(fh->plan, " \n"));
		replay_na(b, fh->plan);
	}
	replay_older(b);
	replay_interval(r);

	/*
	 * The windows open when the recording began, or at the first record
	 * (flight data). Wrapping in uint64_t: a log's times near 2^64 ns give
	 * an offset that int64_t arithmetic would overflow.
	 */
	r->start_ts = hdr->created - (uint64_t)hdr->clock_offset;
	if (replay_read(r) && (first = rec_type_ts(r->rec, r->len)) != 0 &&
	    (first < r->start_ts || hdr->created == 0))
		r->start_ts = first;
	replay_reset(r);

	if (b->opt.speed < 0)
		r->speed = b->opt.batch ? 0 : 1;
	else
		r->speed = b->opt.speed;
	replay_anchor(r);
	if (b->base != NULL) {
		r->ev = event_new(b->base, -1, 0, replay_cb, r);
		replay_schedule(r);
		if (!r->have)
			event_active(r->ev, EV_TIMEOUT, 1);
	}
	return (0);
}

/* Nothing waits in a file between ticks: ticks come from the file itself (or the merge). */
static void
replay_drain(__unused struct source *src)
{
}

/* Close the files; say what was skipped or lost, if anything. */
static void
replay_stop(struct source *src)
{
	struct replay	*r = src->data;

	if (r == NULL)
		return;
	if (r->ev != NULL)
		event_free(r->ev);
	merge_close(r->run, 1, r->fed);
	if (r->own_procs) {		/* b->opt.comms point into r */
		r->b->opt.ncomms = r->b->opt.ntgids = 0;
		r->b->opt.cgroup_id = 0;
	}
	free(r);
	src->data = NULL;
}

/* Reopen the files and feed them silently up to stream time target. */
static void
replay_rewind(struct replay *r, uint64_t target)
{
	const char *const	*paths;
	unsigned		 npaths;
	char			*err;

	merge_close(r->run, 0, 0);
	r->eof = 0;
	paths = replay_paths(r->b, &npaths);
	if ((r->run = merge_open(paths, npaths, 1, &err)) == NULL) {
		stream_notice(r->b, "cannot reopen: %s", err);
		free(err);
		r->have = 0;
		r->eof = 1;
		return;
	}
	merge_set_tick(r->run, r->b->tick_ns);
	replay_read(r);
	replay_reset(r);
	replay_run_silent(r, target);
}

/* Pause or resume the replay. */
static void
replay_pause(struct source *src)
{
	struct replay	*r = src->data;

	r->paused = !r->paused;
	if (!r->paused) {
		replay_anchor(r);
		replay_schedule(r);
	}
}

/* Advance by one tick and stay paused. */
static void
replay_step(struct source *src)
{
	struct replay	*r = src->data;

	r->paused = 1;
	replay_run(r, UINT64_MAX, UINT64_MAX, 1);
	if (!r->have)
		replay_at_end(r);
}

/* Move the position by delta seconds: forwards by feeding, backwards by rewinding. */
static void
replay_seek(struct source *src, double delta)
{
	struct replay	*r = src->data;
	uint64_t	 target;
	int64_t		 d = (int64_t)(delta * 1e9);

	if (d < 0 && (uint64_t)-d > r->pos - r->start_ts)
		target = r->start_ts;
	else
		target = r->pos + (uint64_t)d;
	if (target < r->pos)
		replay_rewind(r, target);
	else
		replay_run_silent(r, target);
	if (target > r->pos && r->have)
		r->pos = target;
	replay_anchor(r);
	if (!r->have)
		replay_at_end(r);
	else
		replay_schedule(r);
}

/* Back to the beginning of the recording. */
static void
replay_seek_start(struct source *src)
{
	struct replay	*r = src->data;

	replay_rewind(r, r->start_ts);
	replay_anchor(r);
	replay_schedule(r);
}

/* Change the pacing speed (0: as fast as possible), within the limits. */
static void
replay_set_speed(struct source *src, double speed)
{
	struct replay	*r = src->data;

	if (speed != 0 && speed < REPLAY_SPEED_MIN)
		speed = REPLAY_SPEED_MIN;
	if (speed > REPLAY_SPEED_MAX)
		speed = REPLAY_SPEED_MAX;
	replay_anchor(r);
	r->speed = speed;
	if (r->ev != NULL) {
		event_del(r->ev);
		replay_schedule(r);
	}
}

/* Where the replay is, for the UI header. */
static void
replay_status(struct source *src, struct source_status *st)
{
	struct replay	*r = src->data;

	st->pos_ns = r->pos;
	st->wall_ns = (int64_t)r->pos + (r->run != NULL ?
	    merge_header(r->run)->clock_offset : 0);
	st->speed = r->speed;
	st->paused = r->paused;
	st->at_end = r->at_end;
}

const struct source_entry source_replay = {
	.name = "replay",
	.own_ticks = 1,
	.lost_where = " while recording",
	.start = replay_start,
	.drain = replay_drain,
	.stop = replay_stop,
	.device = replay_device,
	.pause = replay_pause,
	.step = replay_step,
	.seek = replay_seek,
	.seek_start = replay_seek_start,
	.set_speed = replay_set_speed,
	.status = replay_status,
};
