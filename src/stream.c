/* stream.c: the one entry point every source hands its records to, and the loop over the sinks. */

#include <math.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "blktop.h"
#include "stream.h"

/*
 * Append a sink with its options (its entry's own struct, kept by the caller
 * for the run; NULL for none): records, ticks and reports reach the sinks in
 * this order.
 */
void
stream_add_sink(struct blktop *b, const struct sink_entry *entry, const void *opts)
{
	struct sink	*s;

	if (b->nsinks == STREAM_MAX_SINKS)
		fatalx("too many sinks");
	s = &b->sinks[b->nsinks++];
	memset(s, 0, sizeof *s);
	s->entry = entry;
	s->b = b;
	s->opts = opts;
	if (entry->event != NULL)
		b->event_sinks[b->nevent_sinks++] = s;
}

/* The sinks that take records, in their order: each with an event hook, not idle. */
static void
stream_event_sinks(struct blktop *b)
{
	unsigned	 i;

	b->event_sinks_stale = 0;
	b->nevent_sinks = 0;
	for (i = 0; i < b->nsinks; i++) {
		if (b->sinks[i].entry->event != NULL && !b->sinks[i].idle)
			b->event_sinks[b->nevent_sinks++] = &b->sinks[i];
	}
}

/*
 * A sink with nothing to do with records for now (the capture sink neither
 * recording nor keeping a flight recorder) is not called for each: a call
 * that returned at once cost ~26 instructions a record (callgrind, 2 records
 * a direct async request). It takes them again at once, so that no record is
 * missed; it leaves at the next tick, never in the middle of handing a
 * record round (a write failing there stops a recording).
 */
void
stream_sink_idle(struct sink *s, int idle)
{
	if (s->idle == idle)
		return;
	s->idle = idle;
	if (idle)
		s->b->event_sinks_stale = 1;
	else
		stream_event_sinks(s->b);
}

/*
 * Start every sink in order; the first that fails stops the run. The source
 * has started: blktop's own cost is measured from here, not its start-up.
 */
int
stream_start(struct blktop *b, char **errp)
{
	unsigned	 i;

	*errp = NULL;
	for (i = 0; i < b->nsinks; i++) {
		if (b->sinks[i].entry->start != NULL &&
		    b->sinks[i].entry->start(&b->sinks[i], errp) != 0)
			return (-1);
	}
	self_reset(b);
	return (0);
}

/* Stop the sinks, last first: the views go before what they read. */
void
stream_stop(struct blktop *b)
{
	unsigned	 i;

	for (i = b->nsinks; i-- > 0;) {
		if (b->sinks[i].entry->stop != NULL)
			b->sinks[i].entry->stop(&b->sinks[i]);
	}
	b->nsinks = b->nevent_sinks = 0;
}

/* The source's time zero (again, after a rewind): the windows open at ts, counts restart. */
void
stream_begin(struct blktop *b, uint64_t ts)
{
	unsigned	 i;

	b->events = b->block_events = b->bad_records = 0;
	b->lost = b->lost_report = 0;
	memset(b->lost_kind, 0, sizeof b->lost_kind);
	memset(b->lost_kind_report, 0, sizeof b->lost_kind_report);
	b->ticks_since_report = 0;
	b->reports = 0;
	b->ending = 0;
	b->last_tick = ts;
	self_reset(b);
	for (i = 0; i < b->nsinks; i++) {
		if (b->sinks[i].entry->begin != NULL)
			b->sinks[i].entry->begin(&b->sinks[i], ts);
	}
}

/* A line for the user: to the view's hook if it registered one, else stderr. */
void
stream_notice(struct blktop *b, const char *fmt, ...)
{
	va_list	 ap;
	char	*msg;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) == -1)
		fatal("vasprintf");
	va_end(ap);
	if (b->notice != NULL)
		b->notice(b->notice_arg, msg);
	else
		log_warnx("%s", msg);
	free(msg);
}

/* Whether the -D filter keeps a device (no filter keeps all). */
static inline int
stream_dev_wanted(const struct blktop *b, uint32_t dev)
{
	unsigned	 i;

	if (b->opt.ndevs == 0)
		return (1);
	for (i = 0; i < b->opt.ndevs; i++) {
		if (b->opt.devs[i] == dev)
			return (1);
	}
	return (0);
}

/* Whether the -p, -c and --cgroup filters keep a process (none keeps all). */
static inline int
stream_proc_wanted(const struct blktop *b, uint32_t tgid, const char *comm, uint64_t cgroup)
{
	unsigned	 i;
	int		 ok;

	if (b->opt.cgroup_id != 0 && cgroup != b->opt.cgroup_id)
		return (0);
	if (b->opt.ntgids > 0) {
		for (i = 0, ok = 0; i < b->opt.ntgids && !ok; i++)
			ok = b->opt.tgids[i] == tgid;
		if (!ok)
			return (0);
	}
	if (b->opt.ncomms > 0) {
		for (i = 0, ok = 0; i < b->opt.ncomms && !ok; i++)
			ok = strncmp(b->opt.comms[i], comm, BLKTOP_COMM_LEN) == 0;
		if (!ok)
			return (0);
	}
	return (1);
}

/*
 * What the filters keep of a record (rt its entry, NULL if unknown): its
 * device for -D (a block request's, a disk sample's), its owner for -p, -c
 * and --cgroup (a record that charges one). Asked once per record here;
 * the sinks get the verdict.
 */
unsigned
stream_keep(const struct blktop *b, const struct rec_type *rt, const void *rec)
{
	const char	*comm;
	unsigned	 keep = STREAM_KEEP_ALL;
	uint32_t	 tgid, dev;
	uint64_t	 cgroup;

	if (rt == NULL)
		return (keep);
	if (b->opt.ndevs != 0 && (rt == &rec_types[EV_BLOCK] || rt == &rec_types[EV_DISKSTAT])) {
		memcpy(&dev, (const char *)rec + rt->dev_off[0], sizeof dev);
		if (!stream_dev_wanted(b, dev))
			keep &= ~STREAM_KEEP_DEV;
	}
	if (rt->charges && (b->opt.cgroup_id != 0 || b->opt.ntgids != 0 || b->opt.ncomms != 0)) {
		rec_type_owner(rt, rec, &tgid, &comm, &cgroup);
		if (!stream_proc_wanted(b, tgid, comm, cgroup))
			keep &= ~STREAM_KEEP_PROC;
	}
	return (keep);
}

/*
 * stream_keep on the per-record path: with no -D, -p, -c or --cgroup, the
 * verdict is "all" without a call (66 instructions a request, callgrind,
 * fio's libaio capture).
 */
static inline unsigned
stream_keep_fast(const struct blktop *b, const struct rec_type *rt, const void *rec)
{
	if ((b->opt.ndevs | b->opt.ntgids | b->opt.ncomms) == 0 && b->opt.cgroup_id == 0)
		return (STREAM_KEEP_ALL);
	return (stream_keep(b, rt, rec));
}

/*
 * A source's sample of a whole disk's counters: into the stream if -D keeps
 * the disk (no record of the others is ever made, the capture's included).
 */
void
stream_sample(struct blktop *b, const struct ev_diskstat *ev)
{
	if (stream_dev_wanted(b, ev->dev))
		stream_event(b, ev, sizeof *ev);
}

/*
 * Tick length and ring size from the report interval: ticks of at most a
 * second, a report spans a whole number of them, and the ring holds
 * history_secs and at least one report more than the open tick.
 */
void
stream_set_ticks(struct blktop *b, double history_secs)
{
	b->tick_ns = b->opt.interval < 1 ? (uint64_t)(b->opt.interval * 1e9) : NSEC_PER_SEC;
	b->ticks_per_report = (unsigned)llround(b->opt.interval * 1e9 / (double)b->tick_ns);
	if (b->ticks_per_report == 0)
		b->ticks_per_report = 1;
	b->nticks = (unsigned)ceil(history_secs * 1e9 / (double)b->tick_ns);
	if (b->nticks < b->ticks_per_report + 1)
		b->nticks = b->ticks_per_report + 1;
}

/*
 * Close the report of the ticks taken since the last one: every sink reads
 * it (output sinks not while seeking), then every sink starts a new interval.
 */
void
stream_report(struct blktop *b)
{
	const struct sink_entry	*e;
	unsigned		 i;

	self_sample(b);
	for (i = 0; i < b->nsinks; i++) {
		e = b->sinks[i].entry;
		if (e->report != NULL && !(e->output && b->silent))
			e->report(&b->sinks[i], b->last_tick, b->ticks_since_report);
	}
	for (i = 0; i < b->nsinks; i++) {
		if (b->sinks[i].entry->interval != NULL)
			b->sinks[i].entry->interval(&b->sinks[i]);
	}
	b->ticks_since_report = 0;
	b->lost_report = 0;
	memset(b->lost_kind_report, 0, sizeof b->lost_kind_report);
}

/* A tick closed: the sinks took its record; now they act on it, and a report may be due. */
static void
stream_tick(struct blktop *b, uint64_t ts)
{
	unsigned	 i;

	b->last_tick = ts;
	if (b->event_sinks_stale)
		stream_event_sinks(b);
	for (i = 0; i < b->nsinks; i++) {
		if (b->sinks[i].entry->tick != NULL)
			b->sinks[i].entry->tick(&b->sinks[i], ts);
	}
	if (++b->ticks_since_report >= b->ticks_per_report || b->exiting)
		stream_report(b);
}

/* The running sink of that name, or NULL. */
static struct sink *
stream_sink(struct blktop *b, const char *name)
{
	unsigned	 i;

	for (i = 0; i < b->nsinks; i++) {
		if (strcmp(b->sinks[i].entry->name, name) == 0)
			return (&b->sinks[i]);
	}
	return (NULL);
}

/* Ask sink name to act (the view's keys): its control's result; -1 and no *msg if it does not run. */
int
stream_sink_control(struct blktop *b, const char *name, enum sink_ctl what, char **msg)
{
	struct sink	*s = stream_sink(b, name);

	*msg = NULL;
	if (s == NULL || s->entry->control == NULL)
		return (-1);
	return (s->entry->control(s, what, msg));
}

/* Sink name's short state for the header, or NULL if it has none or does not run. */
const char *
stream_sink_status(struct blktop *b, const char *name)
{
	struct sink	*s = stream_sink(b, name);

	return (s != NULL && s->entry->status != NULL ? s->entry->status(s) : NULL);
}

/* The source has nothing more: the interval still open is reported (if a sink wants it), then every sink ends. */
void
stream_end(struct blktop *b)
{
	unsigned	 i;
	int		 want = 0;

	for (i = 0; i < b->nsinks; i++)
		want |= b->sinks[i].entry->report_at_end;
	b->ending = 1;
	if (want && b->ticks_since_report > 0 && !b->silent)
		stream_report(b);
	for (i = 0; i < b->nsinks; i++) {
		if (b->sinks[i].entry->end != NULL)
			b->sinks[i].entry->end(&b->sinks[i]);
	}
}

/*
 * Validate one record and hand it to every sink with its rec_types entry.
 * Records come from the kernel or a file: the size is checked against the
 * type before anything is read, here once for every sink. Returns -1 for a
 * bad record.
 */
int
stream_event(struct blktop *b, const void *rec, size_t len)
{
	const struct rec_type	*rt;
	uint32_t		 type;
	unsigned		 i, keep;

	if (len < sizeof type) {
		b->bad_records++;
		return (-1);
	}
	memcpy(&type, rec, sizeof type);
	/* Block requests, most records, take the short way. */
	if (type == EV_BLOCK && len >= sizeof(struct ev_block)) {
		b->events++;
		b->block_events++;
		keep = stream_keep_fast(b, &rec_types[EV_BLOCK], rec);
		for (i = 0; i < b->nevent_sinks; i++)
			b->event_sinks[i]->entry->event(b->event_sinks[i], &rec_types[EV_BLOCK],
			    rec, len, keep);
		return (0);
	}
	rt = rec_type_of(type);
	if (rt != NULL && len < rt->min_len) {
		b->bad_records++;
		return (-1);
	}
	if (rt != NULL && len < rt->full_len) {
		/* An older blktop's record of a type that grew: the new fields 0, "not known". */
		static union {
			struct ev_page	 page;
		} grown;

		if (rt->full_len > sizeof grown) {
			b->bad_records++;
			return (-1);
		}
		memset(&grown, 0, rt->full_len);
		memcpy(&grown, rec, len);
		rec = &grown;
		len = rt->full_len;
	}
	if (rt != NULL && rt->event)
		b->events++;	/* not a block request: those took the short way */
	if (type == EV_LOST) {
		const struct ev_lost *ev = rec;
		uint32_t kind = ev->kind < LOST_KINDS ? ev->kind : LOST_RECORDS;

		b->lost += ev->count;
		b->lost_report += ev->count;
		b->lost_kind[kind] += ev->count;
		b->lost_kind_report[kind] += ev->count;
	}
	/* The capture, first, gets exactly what the model gets, and the verdict. */
	keep = stream_keep_fast(b, rt, rec);
	for (i = 0; i < b->nevent_sinks; i++)
		b->event_sinks[i]->entry->event(b->event_sinks[i], rt, rec, len, keep);
	if (type == EV_TICK)
		stream_tick(b, ((const struct ev_tick *)rec)->ts);
	return (0);
}
