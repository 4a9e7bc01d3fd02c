/* sink-model.c: the model sink: records into the rolling windows and the process and file tables. */

#include "blktop.h"
#include "host.h"
#include "model-qdepth.h"
#include "stack.h"
#include "window-find.h"

/* The windows open at ts, with one for every device the filter names. */
static void
model_begin(struct sink *s, uint64_t ts)
{
	struct blktop	*b = s->b;
	unsigned	 d;

	windows_free(&b->win);
	windows_init(&b->win, b->nticks, ts);
	windows_limit(&b->win, b->opt.max_devs, b->ticks_per_report + 1, 0);
	for (d = 0; d < b->opt.ndevs; d++)
		windows_find(&b->win, b->opt.devs[d]);
	if (b->phases == NULL)
		b->phases = phase_create(ts);
	else
		phase_reset(b->phases, ts);
	if (b->procs != NULL)
		model_pattern_begin(b->procs, ts);
	if (b->reqpat == NULL)
		b->reqpat = reqpat_create();
	else
		reqpat_reset(b->reqpat);
	/* A rewind (a replay's seek back) starts the stack again: its sweeps only go forward. */
	if (b->stack != NULL && b->stack->last_ts != 0) {
		stack_free(b->stack);
		b->stack = stack_create();
	}
}

/* A file record (open, read/write, page, file operation) into the process tables, if the filters keep it. */
static void
model_proc_record(struct blktop *b, const struct rec_type *rt, const void *rec, size_t len,
    unsigned keep)
{
	if (b->procs != NULL && (keep & STREAM_KEEP_PROC) &&
	    proc_add_typed(b->procs, rt, rec, len) < 0)
		b->bad_records++;
}

/* A block request: into the windows and the tables, if the filters keep it. */
static void
model_block(struct sink *s, const void *rec, unsigned keep)
{
	struct blktop		*b = s->b;
	const struct ev_block	*ev = rec;
	uint32_t		 file = UINT32_MAX;	/* MODEL_NIL: none */
	uint64_t		 fhash = 0;

	if (!(keep & STREAM_KEEP_DEV))
		return;
	windows_add_block(&b->win, ev);
	if (b->phases != NULL)
		phase_add_block(b->phases, ev);
	if (b->procs != NULL && (keep & STREAM_KEEP_PROC)) {
		proc_add_block(b->procs, ev);
		file = proc_block_file_last(b->procs, &fhash);
	}
	reqpat_add(b, ev, file, fhash);
}

/* A tick: the windows move on; the calls old enough are judged for their access pattern. */
static void
model_tick(struct blktop *b, uint64_t ts)
{
	windows_tick(&b->win, ts);
	if (b->stack != NULL && ts > STACK_LAG_NS)
		stack_cut(b->stack, ts - STACK_LAG_NS);
	if (ts > MODEL_PATTERN_DELAY_NS)
		reqpat_flush(b, ts - MODEL_PATTERN_DELAY_NS);
	if (b->procs != NULL && ts > MODEL_PATTERN_DELAY_NS)
		model_pattern_flush(b->procs, ts - MODEL_PATTERN_DELAY_NS);
	if (b->procs != NULL && ts > DEPTH_LAG_NS)
		pdepth_cut(b->procs, ts - DEPTH_LAG_NS, 1);
}

/*
 * Before the sinks report, at a tick: every call made before it is judged.
 * The live source drained its CPUs' batches for the tick (blktop_tick), so
 * none made earlier is still to come; a replay has the same ticks, and so
 * the same reports.
 */
static void
model_report(struct sink *s, uint64_t ts, unsigned nticks __unused)
{
	reqpat_flush(s->b, ts);
	if (s->b->procs != NULL)
		model_pattern_flush(s->b->procs, ts);
	/* The run's last report: the phase after the last mark ends with it, every depth is final. */
	if (s->b->exiting || s->b->ending)
		depth_flush(&s->b->win);
	if (s->b->procs != NULL)		/* the interval's depths: final at the end, else so far */
		pdepth_cut(s->b->procs, s->b->exiting || s->b->ending ? UINT64_MAX : ts,
		    s->b->exiting || s->b->ending);
	if ((s->b->exiting || s->b->ending) && s->b->stack != NULL)
		stack_cut(s->b->stack, UINT64_MAX);
	if ((s->b->exiting || s->b->ending) && s->b->phases != NULL)
		phase_end(s->b->phases, ts);
}

/* The source has nothing more (after the last report): nothing waits, for what reports at the end (--report). */
static void
model_end(struct sink *s)
{
	reqpat_flush(s->b, UINT64_MAX);
	depth_flush(&s->b->win);
	depth_fold(&s->b->win);	/* the depths' run totals take the last ones */
	if (s->b->stack != NULL)
		stack_cut(s->b->stack, UINT64_MAX);
	if (s->b->procs != NULL) {
		model_pattern_flush(s->b->procs, UINT64_MAX);
		pdepth_cut(s->b->procs, UINT64_MAX, 1);
	}
	if (s->b->phases != NULL)
		phase_end(s->b->phases, s->b->last_tick);
}

/* One record the stream took, with its entry: into the windows and tables, if the filters keep it. */
static void
model_event(struct sink *s, const struct rec_type *rt, const void *rec, size_t len,
    unsigned keep)
{
	struct blktop	*b = s->b;

	if (b->procs != NULL)	/* in a run of several hosts, a process is its host's */
		proc_set_host(b->procs, host_count() > 1 ? host_current() : HOST_NONE);
	if (b->stack != NULL)
		stack_add(b->stack, rt, rec, len, keep);
	if (rt == &rec_types[EV_BLOCK])
		model_block(s, rec, keep);
	else if (rt == &rec_types[EV_RW])	/* the other record of most requests, before the rare ones */
		model_proc_record(b, rt, rec, len, keep);
	else if (rt == &rec_types[EV_TICK])
		model_tick(b, ((const struct ev_tick *)rec)->ts);
	else if (rt == &rec_types[EV_MARK] && b->phases != NULL && rt->valid(rec, len))
		phase_add_mark(b->phases, rec);
	else if (rt == &rec_types[EV_DISKSTAT] && rt->valid(rec, len) &&
	    (keep & STREAM_KEEP_DEV))
		depth_add_diskstat(&b->win, rec);
	else if (rt == &rec_types[EV_TASK] && b->procs != NULL) {
		/* The tree whatever the filters: a job's members are found through it. */
		if (proc_add_typed(b->procs, rt, rec, len) < 0)
			b->bad_records++;
	} else if (rt != NULL && rt->charges)
		model_proc_record(b, rt, rec, len, keep);
}

/* A report was read: the process and file tables, and what was dropped, start a new interval. */
static void
model_interval(struct sink *s)
{
	windows_interval(&s->b->win);
	if (s->b->phases != NULL)
		phase_interval(s->b->phases);
	if (s->b->procs != NULL)
		proc_interval(s->b->procs);
}

const struct sink_entry sink_model = {
	.name = "model",
	.begin = model_begin,
	.event = model_event,
	.report = model_report,
	.end = model_end,
	.interval = model_interval,
};
