/* replay.c: the replay source: a capture file or an imported text log handed to the stream. */

#include <errno.h>
#include <event2/event.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "blktop.h"

/* Records fed per loop turn when running as fast as possible. */
#define REPLAY_BATCH		65536
/* Pacing timer period. */
#define REPLAY_PACE_USEC	20000

static struct {
	struct blktop		*b;
	struct capture_reader	*cap;		/* one of these two is open */
	struct import		*imp;
	const struct capture_header *hdr;
	uint64_t		 rec[CAPTURE_REC_MAX / 8 + 1];	/* the pending record */
	size_t			 len;
	int			 have;		/* rec holds a record not yet fed */
	int			 eof;
	uint64_t		 start_ts;	/* stream time the windows opened at */
	uint64_t		 pos;		/* stream time the replay has reached */
	double			 speed;		/* 0: as fast as possible */
	int			 paused;
	uint64_t		 anchor_wall;	/* replay_now() when pacing last (re)started */
	uint64_t		 anchor_ts;	/* stream time then */
	struct event		*ev;
	struct replay_status	 status;
	uint64_t		 fed;		/* records handed to the stream */
	uint64_t		 skipped, skipped_bytes, tail_lost;
} replay;

/* CLOCK_MONOTONIC in ns, for pacing. */
static uint64_t
replay_now(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec);
}

/* The stream time a record happened at; 0 if it carries none. */
static uint64_t
replay_rec_ts(const void *rec, size_t len)
{
	uint32_t	 type;
	uint64_t	 ts;

	memcpy(&type, rec, sizeof type);
	switch (type) {
	case EV_BLOCK:
		if (len < sizeof(struct ev_block))
			return (0);
		return (((const struct ev_block *)rec)->ts_done);
	case EV_TICK:
	case EV_LOST:
	case EV_OPEN:
	case EV_RW:
		if (len < 16)
			return (0);
		memcpy(&ts, (const char *)rec + 8, sizeof ts);
		return (ts);
	default:
		return (0);
	}
}

/* Open the file: a capture, else a text log import.c knows. */
static int
replay_open(const char *path, char **errp)
{
	char	*err = NULL, *ierr = NULL;

	if ((replay.cap = capture_open(path, &err)) != NULL) {
		replay.hdr = capture_reader_header(replay.cap);
		return (0);
	}
	if (err != NULL && strstr(err, "not a blktop capture file") != NULL) {
		if ((replay.imp = import_open(path, &ierr)) != NULL) {
			free(err);
			replay.hdr = import_header(replay.imp);
			return (0);
		}
		if (ierr != NULL) {
			free(err);
			*errp = ierr;
			return (-1);
		}
		free(err);
		xasprintf(&err, "%s: not a blktop capture file nor a text log "
		    "blktop can import", path);
	}
	*errp = err;
	return (-1);
}

/* Close the file, keeping what the capture reader met. */
static void
replay_close(void)
{
	const struct capture_stats	*st;

	if (replay.cap != NULL) {
		st = capture_reader_stats(replay.cap);
		replay.skipped += st->skipped;
		replay.skipped_bytes += st->skipped_bytes;
		replay.tail_lost += st->tail_lost;
		capture_reader_close(replay.cap);
	}
	if (replay.imp != NULL)
		import_close(replay.imp);
	replay.cap = NULL;
	replay.imp = NULL;
	replay.hdr = NULL;
	replay.have = 0;
	replay.eof = 0;
}

/* Read the next record into rec; 0 at the end. */
static int
replay_read(void)
{
	int	 r;

	if (replay.eof)
		return (0);
	for (;;) {
		if (replay.cap != NULL)
			r = capture_next(replay.cap, replay.rec, sizeof replay.rec,
			    &replay.len);
		else
			r = import_next(replay.imp, replay.rec, sizeof replay.rec,
			    &replay.len);
		if (r == 1) {
			replay.have = 1;
			return (1);
		}
		if (r == 0)
			break;
		/* -1: a record longer than any the format holds; skip it. */
	}
	replay.have = 0;
	replay.eof = 1;
	return (0);
}

/*
 * Hand the pending record to the stream and read the next. The last tick of
 * a file closes the interval the live run closed when it was stopped, so it
 * is fed as the live run fed it: while exiting.
 */
static void
replay_feed(struct blktop *b)
{
	uint64_t	 buf[sizeof replay.rec / 8];
	size_t		 len = replay.len;
	uint64_t	 ts;
	uint32_t	 type;

	memcpy(buf, replay.rec, len);
	replay_read();
	memcpy(&type, buf, sizeof type);
	if ((ts = replay_rec_ts(buf, len)) > replay.pos)
		replay.pos = ts;
	if (type == EV_TICK && replay.eof && b->batch)
		b->exiting = 1;
	replay.fed++;
	stream_event(b, buf, len);
}

/* Whether a report count (-n) has been reached. */
static int
replay_done_count(const struct blktop *b)
{
	return (b->count > 0 && b->reports >= b->count);
}

/*
 * Feed every record up to stream time target (all of them for UINT64_MAX),
 * at most max records; stop after a tick if until_tick. Returns records fed.
 */
static uint64_t
replay_run(struct blktop *b, uint64_t target, uint64_t max, int until_tick)
{
	uint64_t	 n = 0, ts;
	uint32_t	 type;

	while (replay.have && n < max && !replay_done_count(b)) {
		ts = replay_rec_ts(replay.rec, replay.len);
		if (ts != 0 && ts > target && !until_tick)
			break;
		memcpy(&type, replay.rec, sizeof type);
		replay_feed(b);
		n++;
		if (until_tick && type == EV_TICK)
			break;
	}
	return (n);
}

/* Pacing: the stream time the replay should have reached now. */
static uint64_t
replay_target(void)
{
	double	 d;

	if (replay.paused)
		return (replay.pos);
	if (replay.speed == 0)
		return (UINT64_MAX);
	d = (double)(replay_now() - replay.anchor_wall) * replay.speed;
	return (replay.anchor_ts + (uint64_t)d);
}

/* Restart pacing from the current position. */
static void
replay_anchor(void)
{
	replay.anchor_wall = replay_now();
	replay.anchor_ts = replay.pos;
}

/* What the end of the file means: batch stops, the UI stays on the last frame. */
static void
replay_at_end(struct blktop *b)
{
	if (replay.status.at_end)
		return;
	replay.status.at_end = 1;
	if (b->batch)
		event_base_loopbreak(b->base);
	else
		ui_status("end of the recording (g: from the start)");
}

/* The feeding event: as fast as possible or paced by the clock. */
static void
replay_cb(__unused int fd, __unused short what, void *arg)
{
	struct blktop	*b = arg;
	struct timeval	 tv = { 0, REPLAY_PACE_USEC };

	if (replay.paused)
		return;
	if (replay.speed == 0) {
		replay_run(b, UINT64_MAX, REPLAY_BATCH, 0);
		if (replay_done_count(b))
			event_base_loopbreak(b->base);
		else if (replay.have)
			event_active(replay.ev, EV_TIMEOUT, 1);
	} else {
		replay_run(b, replay_target(), REPLAY_BATCH * 16, 0);
		if (replay_done_count(b))
			event_base_loopbreak(b->base);
		if (replay.have)
			event_add(replay.ev, &tv);
	}
	if (!replay.have)
		replay_at_end(b);
}

/* Schedule the feeding event. */
static void
replay_schedule(void)
{
	struct timeval	 tv = { 0, REPLAY_PACE_USEC };

	if (replay.ev == NULL || replay.paused || !replay.have)
		return;
	if (replay.speed == 0)
		event_active(replay.ev, EV_TIMEOUT, 1);
	else
		event_add(replay.ev, &tv);
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

/* Name a device from the capture's table, MAJ:MIN, or this host's sysfs. */
int
replay_device(const char *arg, uint32_t *dev, char **errp)
{
	const struct capture_header	*hdr = replay.hdr;
	unsigned			 i, ma, mi;
	char				 c;

	*errp = NULL;
	if (strncmp(arg, "/dev/", 5) == 0)
		arg += 5;
	if (hdr != NULL) {
		for (i = 0; i < hdr->ndevs; i++) {
			if (strcmp(hdr->devs[i].name, arg) == 0) {
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
		char	*s;

		xasprintf(&s, "%s %s", *errp, hdr->devs[i].name);
		free(*errp);
		*errp = s;
	}
	{
		char	*s;

		xasprintf(&s, "%s%s)", *errp, hdr->ndevs == 0 ? " none" :
		    hdr->ndevs > 32 ? " ..." : "");
		free(*errp);
		*errp = s;
	}
	return (-1);
}

/* Resolve the -D arguments: through the recording's names when replaying. */
int
replay_resolve_devs(struct blktop *b, char **errp)
{
	unsigned	 i, d;

	b->ndevs = 0;
	for (i = 0; i < b->ndev_args; i++) {
		if (replay_device(b->dev_args[i], &b->devs[b->ndevs], errp) != 0)
			return (-1);
		for (d = 0; d < b->ndevs && b->devs[d] != b->devs[b->ndevs]; d++)
			;
		if (d == b->ndevs)
			b->ndevs++;
	}
	return (0);
}

/* Windows for the devices a filter names, as the live run made them at start. */
static void
replay_filter_windows(struct blktop *b)
{
	const char	*p;
	unsigned	 d, ma, mi;
	int		 n;

	for (d = 0; d < b->ndevs; d++)
		windows_find(&b->win, b->devs[d]);
	if (b->ndev_args != 0 || b->ndevs != 0)
		return;
	/* No -D now: the recording's own filter, "-D 7:3,7:4" (it holds nothing else). */
	if ((p = replay_plan_arg(replay.hdr->plan, "-D ")) == NULL)
		return;
	while (b->ndevs < FILTER_MAX_DEVS && sscanf(p, "%u:%u%n", &ma, &mi, &n) == 2) {
		b->devs[b->ndevs++] = DEV_MKDEV(ma, mi);
		windows_find(&b->win, DEV_MKDEV(ma, mi));
		p += n;
		if (*p != ',')
			break;
		p++;
	}
}

/* Open windows and counters at the start of the file. */
static void
replay_reset(struct blktop *b)
{
	windows_free(&b->win);
	windows_init(&b->win, b->nticks, replay.start_ts);
	replay_filter_windows(b);
	b->events = b->bad_records = b->lost = b->lost_report = 0;
	b->ticks_since_report = 0;
	b->reports = 0;
	replay.fed = 0;
	replay.pos = replay.start_ts;
	replay.status.at_end = 0;
}

/* Ticks and report length from -d, or from the interval the recording used. */
static void
replay_interval(struct blktop *b)
{
	const char	*p;
	double		 history, d;
	char		*end;

	history = (double)b->nticks * (double)b->tick_ns / 1e9;
	if (!b->interval_set &&
	    (p = replay_plan_arg(replay.hdr->plan, "-d ")) != NULL) {
		d = strtod(p, &end);
		if (end != p && isfinite(d) && d >= 0.01 && d <= 3600)
			b->interval = d;
	}
	stream_set_ticks(b, history);
}

/* Open the file, set names, clocks and windows from its header, start feeding. */
static int
replay_start(struct blktop *b, char **errp)
{
	const struct capture_header	*hdr;
	uint64_t			 first;
	unsigned			 i;
	size_t				 n;

	*errp = NULL;
	replay.b = b;
	if (replay_open(b->replay_path, errp) != 0)
		return (-1);
	hdr = replay.hdr;
	for (i = 0; i < hdr->ndevs; i++)
		device_set_name(hdr->devs[i].dev, hdr->devs[i].name);
	if (replay_resolve_devs(b, errp) != 0)
		return (-1);
	b->mono_to_wall = hdr->clock_offset;
	n = strcspn(hdr->plan, " ");
	snprintf(b->plan_text, sizeof b->plan_text, "%.*s", (int)(n < 40 ? n : 40),
	    hdr->plan);
	replay_interval(b);

	/* The windows open when the recording began, or at the first record (flight data). */
	replay.start_ts = (uint64_t)((int64_t)hdr->created - hdr->clock_offset);
	if (replay_read() && (first = replay_rec_ts(replay.rec, replay.len)) != 0 &&
	    first < replay.start_ts)
		replay.start_ts = first;
	replay_reset(b);

	if (b->speed < 0)
		replay.speed = b->batch ? 0 : 1;
	else
		replay.speed = b->speed;
	replay_anchor();
	if (b->base != NULL) {
		replay.ev = event_new(b->base, -1, 0, replay_cb, b);
		replay_schedule();
		if (!replay.have)
			event_active(replay.ev, EV_TIMEOUT, 1);
	}
	return (0);
}

/* Nothing waits in a file between ticks: ticks come from the file itself. */
static void
replay_drain(__unused struct blktop *b)
{
}

/* Close the file; say what was skipped or lost, if anything. */
static void
replay_stop(__unused struct blktop *b)
{
	if (replay.ev != NULL)
		event_free(replay.ev);
	replay.ev = NULL;
	replay_close();
	if (replay.skipped != 0 || replay.tail_lost != 0)
		log_warnx("replayed %" PRIu64 " events; skipped %" PRIu64
		    " damaged chunks; lost %" PRIu64 " bytes at the end",
		    replay.fed, replay.skipped, replay.tail_lost);
}

/* Reopen the file and feed it silently up to stream time target. */
static void
replay_rewind(struct blktop *b, uint64_t target)
{
	char	*err;
	int	 batch = b->batch;

	replay_close();
	replay.skipped = replay.skipped_bytes = replay.tail_lost = 0;
	if (replay_open(b->replay_path, &err) != 0) {
		ui_status("cannot reopen: %s", err);
		free(err);
		replay.eof = 1;
		return;
	}
	replay_read();
	replay_reset(b);
	b->batch = 0;
	replay_run(b, target, UINT64_MAX, 0);
	b->batch = batch;
}

/* Pause or resume the replay (space in the UI). */
void
replay_pause(void)
{
	replay.paused = !replay.paused;
	if (!replay.paused) {
		replay_anchor();
		replay_schedule();
	}
}

/* Advance by one tick and stay paused. */
void
replay_step(void)
{
	if (replay.b == NULL)
		return;
	replay.paused = 1;
	replay_run(replay.b, UINT64_MAX, UINT64_MAX, 1);
	if (!replay.have)
		replay_at_end(replay.b);
	ui_redraw();
}

/* Move the position by delta seconds: forwards by feeding, backwards by rewinding. */
void
replay_seek(double delta)
{
	struct blktop	*b = replay.b;
	uint64_t	 target;
	int64_t		 d = (int64_t)(delta * 1e9);
	int		 batch;

	if (b == NULL)
		return;
	if (d < 0 && (uint64_t)-d > replay.pos - replay.start_ts)
		target = replay.start_ts;
	else
		target = replay.pos + (uint64_t)d;
	if (target < replay.pos)
		replay_rewind(b, target);
	else {
		batch = b->batch;
		b->batch = 0;
		replay_run(b, target, UINT64_MAX, 0);
		b->batch = batch;
	}
	if (target > replay.pos && replay.have)
		replay.pos = target;
	replay_anchor();
	if (!replay.have)
		replay_at_end(b);
	else
		replay_schedule();
	ui_redraw();
}

/* Back to the beginning of the recording. */
void
replay_seek_start(void)
{
	if (replay.b == NULL)
		return;
	replay_rewind(replay.b, replay.start_ts);
	replay_anchor();
	replay_schedule();
	ui_redraw();
}

/* To the end of the recording. */
void
replay_seek_end(void)
{
	replay_seek(1e9);
}

/* Change the pacing speed (0: as fast as possible). */
void
replay_set_speed(double speed)
{
	if (speed != 0 && speed < REPLAY_SPEED_MIN)
		speed = REPLAY_SPEED_MIN;
	if (speed > REPLAY_SPEED_MAX)
		speed = REPLAY_SPEED_MAX;
	replay_anchor();
	replay.speed = speed;
	if (replay.ev != NULL) {
		event_del(replay.ev);
		replay_schedule();
	}
}

/* Where the replay is, for the UI header. */
const struct replay_status *
replay_status(void)
{
	replay.status.pos_ns = replay.pos;
	replay.status.wall_ns = (int64_t)replay.pos +
	    (replay.hdr != NULL ? replay.hdr->clock_offset : 0);
	replay.status.speed = replay.speed;
	replay.status.paused = replay.paused;
	return (&replay.status);
}

/* Print a string as a CSV field or a JSON string. */
static void
replay_dump_str(FILE *f, const char *s, size_t max, int json)
{
	size_t	 i;

	fputc('"', f);
	for (i = 0; i < max && s[i] != '\0'; i++) {
		unsigned char c = (unsigned char)s[i];

		if (json && (c == '"' || c == '\\'))
			fprintf(f, "\\%c", c);
		else if (json && (c < 0x20 || c == 0x7f))
			fprintf(f, "\\u%04x", c);
		else if (!json && c == '"')
			fputs("\"\"", f);
		else if (!json && (c < 0x20 || c == 0x7f))
			fputc('?', f);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* One dump row, fields in the order of replay_dump_cols. */
static const char *replay_dump_cols[] = {
	"type", "ts", "ts_ns", "dev", "device", "op", "flags", "bytes",
	"sector", "lat_ns", "queue_ns", "pid", "tgid", "comm", "error",
	"inflight", "cgroup", "count", "path"
};
struct replay_row {
	const char	*type;
	uint64_t	 ts, dev, op, flags, bytes, sector, lat, queue, pid, tgid;
	int64_t		 error;
	uint64_t	 inflight, cgroup, count;
	const char	*comm;		/* BLKTOP_COMM_LEN bytes, or NULL */
	const char	*path;		/* NUL-terminated, or NULL */
	size_t		 pathlen;
};

/* Print one row as CSV or a JSON object. */
static void
replay_dump_row(FILE *f, const struct replay_row *r, int64_t offset, int json)
{
	int64_t		 wall = (int64_t)r->ts + offset;
	const char	*sep = json ? "," : ",";
	unsigned	 i = 0;

#define COL(fmt, ...) do {						\
	if (json)							\
		fprintf(f, "%s\"%s\":" fmt, i ? sep : "{",		\
		    replay_dump_cols[i], __VA_ARGS__);			\
	else								\
		fprintf(f, "%s" fmt, i ? sep : "", __VA_ARGS__);	\
	i++;								\
} while (0)
	COL("\"%s\"", r->type);
	COL("%s%" PRId64 ".%09" PRId64, wall < 0 ? "-" : "",
	    (wall < 0 ? -wall : wall) / (int64_t)NSEC_PER_SEC,
	    (wall < 0 ? -wall : wall) % (int64_t)NSEC_PER_SEC);
	COL("%" PRIu64, r->ts);
	COL("\"%u:%u\"", DEV_MAJOR(r->dev), DEV_MINOR(r->dev));
	COL("%s", "");
	replay_dump_str(f, r->dev != 0 ? device_name((uint32_t)r->dev) : "",
	    DEVNAME_MAX, json);
	COL("%" PRIu64, r->op);
	COL("%" PRIu64, r->flags);
	COL("%" PRIu64, r->bytes);
	COL("%" PRIu64, r->sector);
	COL("%" PRIu64, r->lat);
	COL("%" PRIu64, r->queue);
	COL("%" PRIu64, r->pid);
	COL("%" PRIu64, r->tgid);
	COL("%s", "");
	replay_dump_str(f, r->comm != NULL ? r->comm : "", BLKTOP_COMM_LEN, json);
	COL("%" PRId64, r->error);
	COL("%" PRIu64, r->inflight);
	COL("%" PRIu64, r->cgroup);
	COL("%" PRIu64, r->count);
	COL("%s", "");
	replay_dump_str(f, r->path != NULL ? r->path : "", r->pathlen, json);
#undef COL
	fputs(json ? "}\n" : "\n", f);
}

/* Turn one record into a dump row; 0 if it is not to be printed. */
static int
replay_dump_fill(struct blktop *b, const void *rec, size_t len,
    struct replay_row *r)
{
	uint32_t	 type;

	memset(r, 0, sizeof *r);
	memcpy(&type, rec, sizeof type);
	switch (type) {
	case EV_BLOCK: {
		const struct ev_block *e = rec;

		if (len < sizeof *e || !stream_dev_wanted(b, e->dev))
			return (0);
		r->type = "block";
		r->ts = e->ts_done;
		r->dev = e->dev;
		r->op = e->op;
		r->flags = e->flags;
		r->bytes = e->bytes;
		r->sector = e->sector;
		if (!(e->flags & BLK_F_NOLAT)) {
			r->lat = e->ts_done > e->ts_issue ? e->ts_done - e->ts_issue : 0;
			r->queue = e->ts_issue > e->ts_start ? e->ts_issue - e->ts_start : 0;
		}
		r->pid = e->pid;
		r->tgid = e->tgid;
		r->comm = e->comm;
		r->error = e->error;
		r->inflight = e->inflight;
		r->cgroup = e->cgroup;
		return (1);
	}
	case EV_TICK:
		if (len < sizeof(struct ev_tick))
			return (0);
		r->type = "tick";
		r->ts = ((const struct ev_tick *)rec)->ts;
		return (1);
	case EV_LOST:
		if (len < sizeof(struct ev_lost))
			return (0);
		r->type = "lost";
		r->ts = ((const struct ev_lost *)rec)->ts;
		r->count = ((const struct ev_lost *)rec)->count;
		return (1);
	case EV_OPEN: {
		const struct ev_open *e = rec;

		if (len < sizeof *e || EV_OPEN_SIZE(e->path_len) > len)
			return (0);
		r->type = "open";
		r->ts = e->ts;
		r->dev = e->dev;
		r->flags = e->flags;
		r->lat = e->lat_ns;
		r->pid = e->pid;
		r->tgid = e->tgid;
		r->comm = e->comm;
		r->error = e->ret < 0 ? e->ret : 0;
		r->cgroup = e->cgroup;
		r->path = e->path;
		r->pathlen = e->path_len;
		return (1);
	}
	case EV_RW: {
		const struct ev_rw *e = rec;

		if (len < sizeof *e || EV_RW_SIZE(e->path_len) > len)
			return (0);
		r->type = "rw";
		r->ts = e->ts;
		r->dev = e->dev;
		r->op = e->op;
		r->bytes = e->done;
		r->lat = e->lat_ns;
		r->pid = e->pid;
		r->tgid = e->tgid;
		r->comm = e->comm;
		r->error = e->error;
		r->cgroup = e->cgroup;
		r->path = e->path;
		r->pathlen = e->path_len;
		return (1);
	}
	default:
		r->type = "other";
		return (1);
	}
}

/* --dump: every record as a CSV row or a JSON line on stdout; the exit status. */
int
replay_dump(struct blktop *b)
{
	struct replay_row	 row;
	char			*err;
	unsigned		 i;
	int			 json = b->dump == REPLAY_DUMP_JSONL;
	uint64_t		 rows = 0;

	if (replay_open(b->replay_path, &err) != 0) {
		log_warnx("%s", err);
		free(err);
		return (1);
	}
	for (i = 0; i < replay.hdr->ndevs; i++)
		device_set_name(replay.hdr->devs[i].dev, replay.hdr->devs[i].name);
	if (replay_resolve_devs(b, &err) != 0) {
		log_warnx("%s", err);
		free(err);
		replay_close();
		return (1);
	}
	if (!json) {
		for (i = 0; i < nitems(replay_dump_cols); i++)
			printf("%s%s", i ? "," : "", replay_dump_cols[i]);
		putchar('\n');
	}
	while (replay_read()) {
		replay.fed++;
		if (replay_dump_fill(b, replay.rec, replay.len, &row)) {
			replay_dump_row(stdout, &row, replay.hdr->clock_offset, json);
			rows++;
		}
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		log_warnx("stdout: %s", strerror(errno));
		replay_close();
		return (1);
	}
	replay_close();
	if (replay.skipped != 0 || replay.tail_lost != 0)
		log_warnx("replayed %" PRIu64 " events; skipped %" PRIu64
		    " damaged chunks; lost %" PRIu64 " bytes at the end",
		    replay.fed, replay.skipped, replay.tail_lost);
	return (0);
}

const struct source source_replay = {
	.name = "replay",
	.start = replay_start,
	.drain = replay_drain,
	.stop = replay_stop,
};
