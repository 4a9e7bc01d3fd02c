/* sink-capture.c: the capture sink: every record to a capture file, with a flight recorder and a trigger. */

#include <sys/stat.h>
#include <sys/utsname.h>

#include <dirent.h>
#include <errno.h>
#include <event2/event.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "blktop.h"

#define RECORD_FLIGHT_BYTES	(64u << 20)	/* most memory the flight recorder takes */
#define RECORD_FLUSH_SECS	1
#define RECORD_NAME_TRIES	100

/* The capture sink's state. */
struct recorder {
	struct blktop		*b;
	struct sink		*s;		/* its own */
	struct capture_opts	 opts;		/* as the sink was added with */
	struct capture		*w;		/* NULL when not recording */
	struct capture_flight	*fl;		/* NULL when off or while recording */
	char			*path;
	char			*error;		/* what stopped the last recording */
	struct event		*flush_ev;
	double			 trigger_ms;	/* 0: no trigger */
	int			 trigger_all;	/* any device, else trigger_dev */
	uint32_t		 trigger_dev;
	int			 trigger_armed;
	char			 status[PATH_MAX + 64];
};

/* Neither recording nor a flight recorder: the stream need not hand it records. */
static void
sink_capture_idle(struct recorder *r)
{
	stream_sink_idle(r->s, r->w == NULL && r->fl == NULL);
}

/* A new flight recorder, if there is to be one. */
static void
sink_capture_flight_start(struct recorder *r)
{
	if (r->fl == NULL && r->opts.flight_secs > 0)
		r->fl = capture_flight_init((unsigned)r->opts.flight_secs, RECORD_FLIGHT_BYTES);
	sink_capture_idle(r);
}

/* Add one whole disk named in sysfs to a header's device table. */
static void
sink_capture_add_dev(struct capture_header *hdr, uint32_t dev, const char *name)
{
	unsigned	 i;

	if (dev == 0 || strlen(name) >= DEVNAME_MAX || hdr->ndevs >= 4096)
		return;
	for (i = 0; i < hdr->ndevs; i++) {
		if (hdr->devs[i].dev == dev)
			return;
	}
	hdr->devs = xreallocarray(hdr->devs, hdr->ndevs + 1, sizeof *hdr->devs);
	hdr->devs[hdr->ndevs].dev = dev;
	snprintf(hdr->devs[hdr->ndevs].name, DEVNAME_MAX, "%s", name);
	hdr->ndevs++;
}

/* Every whole disk of /sys/class/block (partitions have a "partition" file). */
static void
sink_capture_sysfs_devs(struct capture_header *hdr)
{
	DIR		*d;
	struct dirent	*de;
	char		 path[PATH_MAX], line[64];
	unsigned	 ma, mi;
	FILE		*f;

	if ((d = opendir("/sys/class/block")) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "/sys/class/block/%s/partition",
		    de->d_name);
		if (access(path, F_OK) == 0)
			continue;
		snprintf(path, sizeof path, "/sys/class/block/%s/dev", de->d_name);
		if ((f = fopen(path, "re")) == NULL)
			continue;
		if (fgets(line, sizeof line, f) != NULL &&
		    sscanf(line, "%u:%u", &ma, &mi) == 2)
			sink_capture_add_dev(hdr, DEV_MKDEV(ma, mi), de->d_name);
		fclose(f);
	}
	closedir(d);
}

/*
 * The plan for the header: the hooks, then a line "na NAME REASON" for each
 * thing the source could not tell and why (have_table), so a replay says the
 * same as the live run did.
 */
static char *
sink_capture_plan(const struct blktop *b)
{
	char		*plan, *s;
	unsigned	 i;

	plan = xstrdup(b->plan_text[0] != '\0' ? b->plan_text : "-");
	for (i = 0; i < HAVE_NBITS; i++) {
		const char *why = source_have_na(b, have_table[i].bit);

		if (why[0] == '\0')
			continue;
		xasprintf(&s, "%s\nna %s %s", plan, have_table[i].name, why);
		free(plan);
		plan = s;
	}
	return (plan);
}

/* The header of a new capture: who, where, how, the clock and the devices. */
static void
sink_capture_header(struct blktop *b, struct capture_header *hdr, uint64_t created)
{
	struct utsname	 u;
	unsigned	 i;

	memset(hdr, 0, sizeof *hdr);
	if (uname(&u) != 0)
		memset(&u, 0, sizeof u);
	hdr->version = xstrdup(PACKAGE_VERSION);
	hdr->host = xstrdup(b->opt.capture_opts.hostname != NULL ?
	    b->opt.capture_opts.hostname : u.nodename);
	hdr->nlabels = b->opt.capture_opts.nlabels;
	memcpy(hdr->labels, b->opt.capture_opts.labels, sizeof hdr->labels);
	hdr->kernel = xstrdup(u.release);
	hdr->plan = sink_capture_plan(b);
	/* The interval and the filter: replay restores them. */
	hdr->interval_ns = (uint64_t)(b->opt.interval * 1e9 + 0.5);
	if (b->opt.ndevs != 0) {
		hdr->filter_devs = xcalloc(b->opt.ndevs, sizeof *hdr->filter_devs);
		for (i = 0; i < b->opt.ndevs; i++)
			hdr->filter_devs[i] = b->opt.devs[i];
		hdr->nfilter = b->opt.ndevs;
	}
	/* The process filter: the model took only these processes' records. */
	hdr->filter_cgroup = b->opt.cgroup_id;
	for (i = 0; i < b->opt.ntgids && i < FILTER_MAX_PIDS; i++)
		hdr->filter_pids[hdr->nfilter_pids++] = b->opt.tgids[i];
	for (i = 0; i < b->opt.ncomms && i < FILTER_MAX_COMMS; i++)
		snprintf(hdr->filter_comms[hdr->nfilter_comms++], BLKTOP_COMM_LEN, "%s",
		    b->opt.comms[i]);
	hdr->clock_offset = b->mono_to_wall;
	hdr->created = created;
	for (i = 0; i < b->win.ndevs; i++)
		sink_capture_add_dev(hdr, b->win.devs[i]->dev,
		    device_name(b->win.devs[i]->dev));
	if (b->opt.replay_path == NULL)
		sink_capture_sysfs_devs(hdr);
}

/* The default file name: blktop-HOST-YYYYmmdd-HHMMSS.blkcap, -N added if taken. */
static char *
sink_capture_default_name(const char *dir, int n)
{
	struct utsname	 u;
	struct tm	 tm;
	time_t		 t = time(NULL);
	char		 when[32], host[65], *path, *s;

	localtime_r(&t, &tm);
	strftime(when, sizeof when, "%Y%m%d-%H%M%S", &tm);
	snprintf(host, sizeof host, "%s", uname(&u) == 0 ? u.nodename : "host");
	for (s = host; *s != '\0'; s++) {
		if (*s == '/')
			*s = '_';
	}
	if (n == 0)
		xasprintf(&path, "%s/blktop-%s-%s.blkcap", dir, host, when);
	else
		xasprintf(&path, "%s/blktop-%s-%s-%d.blkcap", dir, host, when, n);
	return (path);
}

/* Start writing to path (NULL: a default name); on error *msg says why. */
static int
sink_capture_start(struct recorder *r, const char *path, uint64_t created, const char *why,
    char **msg)
{
	struct blktop		*b = r->b;
	struct capture_header	 hdr;
	const char		*dir = r->opts.record_dir != NULL ? r->opts.record_dir : ".";
	char			*err = NULL, *name;
	int			 n;

	sink_capture_header(b, &hdr, created);
	for (n = 0; n < RECORD_NAME_TRIES; n++) {
		name = path != NULL ? xstrdup(path) : sink_capture_default_name(dir, n);
		free(err);
		err = NULL;
		if (r->fl != NULL)
			r->w = capture_create_from_flight(name, &hdr, r->fl, &err);
		else
			r->w = capture_create(name, &hdr, &err);
		if (r->w != NULL || path != NULL || strstr(err, strerror(EEXIST)) == NULL)
			break;
		free(name);
	}
	capture_header_free(&hdr);
	if (r->w == NULL) {
		xasprintf(msg, "cannot record: %s", err);
		free(err);
		if (n < RECORD_NAME_TRIES)
			free(name);
		return (-1);
	}
	free(err);
	if (r->fl != NULL) {
		capture_flight_free(r->fl);
		r->fl = NULL;
	}
	free(r->path);
	r->path = name;
	free(r->error);
	r->error = NULL;
	/* For what marks the run's time line (--trace). */
	b->rec_start.n++;
	b->rec_start.ts = b->last_tick;
	b->rec_start.why = why;
	xasprintf(msg, "recording to %s", name);
	sink_capture_idle(r);
	return (0);
}

/* Close the file; nonzero if writing it failed at any point. */
static int
sink_capture_stop(struct recorder *r)
{
	int	 rv;

	if (r->w == NULL)
		return (0);
	rv = capture_close(r->w);
	r->w = NULL;
	sink_capture_flight_start(r);
	return (rv);
}

/* A write failed (disk full...): stop, keep the file (it replays), say so. */
static void
sink_capture_failed(struct recorder *r)
{
	free(r->error);
	xasprintf(&r->error, "recording stopped: %s",
	    capture_error(r->w) != NULL ? capture_error(r->w) : "write error");
	sink_capture_stop(r);
	r->b->status = 1;		/* events not recorded: the run did not do its job */
	stream_notice(r->b, "%s", r->error);
}

/* Once a second: what is buffered goes to the file. */
static void
sink_capture_flush_cb(__unused int fd, __unused short what, void *arg)
{
	struct recorder	*r = arg;

	if (r->w != NULL && capture_flush(r->w) != 0)
		sink_capture_failed(r);
}

/* Parse --trigger-p99 MS[:DEVICE]; exits on a bad one. */
static void
sink_capture_parse_trigger(struct recorder *r)
{
	struct blktop	*b = r->b;
	char		*s = xstrdup(r->opts.trigger), *colon, *end, *err;
	double		 ms;

	if ((colon = strchr(s, ':')) != NULL)
		*colon++ = '\0';
	errno = 0;
	ms = strtod(s, &end);
	if (errno != 0 || end == s || *end != '\0' || !(ms > 0) || ms > 1e7) {
		fprintf(stderr, "%s: --trigger-p99: '%s' is not MS[:DEVICE] with "
		    "MS a number of milliseconds\n", log_prog, r->opts.trigger);
		exit(2);
	}
	r->trigger_ms = ms;
	r->trigger_all = colon == NULL;
	if (colon != NULL) {
		if (source_device(b->src, colon, &r->trigger_dev, &err) != 0) {
			fprintf(stderr, "%s: --trigger-p99: %s\n", log_prog, err);
			exit(2);
		}
	}
	r->trigger_armed = 1;
	free(s);
}

/*
 * Set up recording once the source runs and the windows are open: the flush
 * timer, the flight recorder, the trigger, and -w (which records from here).
 */
static int
sink_capture_init(struct sink *s, char **errp)
{
	struct blktop	*b = s->b;
	struct recorder	*r;
	struct timeval	 tv = { RECORD_FLUSH_SECS, 0 };
	char		*msg;

	r = s->data = xcalloc(1, sizeof *r);
	r->b = b;
	r->s = s;
	r->opts = *(const struct capture_opts *)s->opts;
	if (r->opts.trigger != NULL)
		sink_capture_parse_trigger(r);
	if (r->opts.record_path != NULL) {
		if (sink_capture_start(r, r->opts.record_path,
		    (uint64_t)((int64_t)b->win.tick_start + b->mono_to_wall), "-w", &msg) != 0) {
			*errp = msg;
			return (-1);
		}
		free(msg);
	} else
		sink_capture_flight_start(r);
	if (b->base != NULL) {
		r->flush_ev = event_new(b->base, -1, EV_PERSIST, sink_capture_flush_cb, r);
		event_add(r->flush_ev, &tv);
	}
	return (0);
}

/* Every record the windows take: into the file, or the flight recorder. */
static void
sink_capture_event(struct sink *s, const struct rec_type *rt __unused, const void *rec,
    size_t len, unsigned keep __unused)
{
	struct recorder	*r = s->data;

	if (r->w != NULL) {
		if (capture_add(r->w, rec, len) != 0)
			sink_capture_failed(r);
	} else if (r->fl != NULL)
		capture_flight_add(r->fl, rec, len);
}

/* The p99 read or write latency over the last tick above the trigger, in ms; 0 if not. */
static double
sink_capture_trigger_check(struct recorder *r, uint32_t *devp, const char **opp)
{
	struct blktop		*b = r->b;
	struct sum		 s;
	const struct devwin	*dw;
	unsigned		 i, o;
	double			 p99;

	for (i = 0; i < b->win.ndevs; i++) {
		dw = b->win.devs[i];
		if (!r->trigger_all && dw->dev != r->trigger_dev)
			continue;
		windows_sum(&b->win, dw, 1, 1, &s);
		for (o = OPC_READ; o <= OPC_WRITE; o++) {
			p99 = hist_percentile(s.op[o].lat, s.op[o].timed, 99,
			    s.op[o].lat_min, s.op[o].lat_max) / 1e6;
			if (p99 > r->trigger_ms) {
				*devp = dw->dev;
				*opp = o == OPC_READ ? "read" : "write";
				return (p99);
			}
		}
	}
	return (0);
}

/* A tick closed: seal the flight recorder's chunk, and see whether the trigger fires. */
static void
sink_capture_tick(struct sink *s, uint64_t ts)
{
	struct recorder	*r = s->data;
	struct blktop	*b = s->b;
	uint32_t	 dev;
	const char	*op;
	double		 p99;
	char		*msg;

	if (r->fl != NULL)
		capture_flight_tick(r->fl, ts);
	if (r->trigger_ms == 0)
		return;
	p99 = sink_capture_trigger_check(r, &dev, &op);
	if (p99 == 0 || r->w != NULL) {
		if (p99 == 0 && r->w == NULL)
			r->trigger_armed = 1;
		return;
	}
	if (!r->trigger_armed)
		return;
	r->trigger_armed = 0;
	if (sink_capture_start(r, NULL, (uint64_t)((int64_t)ts + b->mono_to_wall), "trigger",
	    &msg) != 0) {
		free(r->error);
		r->error = msg;
		stream_notice(b, "trigger: %s", msg);
		return;
	}
	stream_notice(b, "trigger: %s %s p99 %.3g ms > %g ms: %s",
	    device_name(dev), op, p99, r->trigger_ms, msg);
	free(msg);
}

/*
 * The `r` key (SINK_CTL_TOGGLE): start recording (with the flight recorder's
 * last seconds) or stop. *msg is a line for the status bar; -1 if recording
 * could not start.
 */
static int
sink_capture_control(struct sink *s, enum sink_ctl what __unused, char **msg)
{
	struct blktop	*b = s->b;
	struct recorder	*r = s->data;
	uint64_t	 recs, chunks, bytes;
	int		 failed;

	if (r == NULL) {
		xasprintf(msg, "recording is not available");
		return (-1);
	}
	if (r->w == NULL)
		return (sink_capture_start(r, NULL, (uint64_t)((int64_t)b->win.tick_start +
		    b->mono_to_wall), "r", msg));
	capture_writer_stats(r->w, &recs, &chunks, &bytes);
	failed = sink_capture_stop(r);
	if (failed)
		xasprintf(msg, "recording stopped with an error: %s", r->path);
	else
		xasprintf(msg, "recorded %" PRIu64 " events to %s", recs, r->path);
	return (0);
}

/* For the header: "FILE 12.3M" while recording, the error that stopped it, or NULL. */
static const char *
sink_capture_status(struct sink *s)
{
	struct recorder	*r = s->data;
	uint64_t	 recs, chunks, bytes;

	if (r == NULL)
		return (NULL);
	if (r->w != NULL) {
		capture_writer_stats(r->w, &recs, &chunks, &bytes);
		snprintf(r->status, sizeof r->status, "%s %.1fM", r->path,
		    (double)bytes / 1048576.0);
		return (r->status);
	}
	return (r->error);
}

/* At exit: flush and close the file (SIGINT, SIGTERM, SIGHUP end the loop first). */
static void
sink_capture_free(struct sink *s)
{
	struct recorder	*r = s->data;

	if (r == NULL)
		return;
	if (r->flush_ev != NULL)
		event_free(r->flush_ev);
	if (r->w != NULL && sink_capture_stop(r) != 0) {
		log_warnx("recording to %s failed", r->path);
		s->b->status = 1;
	}
	if (r->fl != NULL)
		capture_flight_free(r->fl);
	free(r->path);
	free(r->error);
	free(r);
	s->data = NULL;
}

const struct sink_entry sink_capture = {
	.name = "capture",
	.start = sink_capture_init,
	.event = sink_capture_event,
	.tick = sink_capture_tick,
	.stop = sink_capture_free,
	.control = sink_capture_control,
	.status = sink_capture_status,
};
