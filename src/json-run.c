/* json-run.c: the JSON of a whole interval (-J's line) and of a whole run (--report OUT.json): their own members, marks, phases, caps, top tables, maps. */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "blktop.h"
#include "stack.h"
#include "job.h"
#include "fields.h"
#include "json-key.h"
#include "field-dev.h"
#include "report.h"
#include "json-wear.h"

/* ,"marks":[{"ts":..,"label":..,"pid":..}]: those of the interval (or all kept). */
void
json_run_marks(FILE *f, const struct blktop *b, int interval)
{
	const struct mark	*m;
	uint64_t		 first;
	unsigned		 i, n;

	fprintf(f, ",\"marks\":[");
	n = b->phases != NULL ? phase_marks(b->phases, interval, &first) : 0;
	for (i = 0; i < n; i++) {
		m = phase_mark(b->phases, first + i);
		fprintf(f, "%s{" JK(JK_TS) "%.6f," JK(JK_LABEL), i ? "," : "", stream_wall(b, m->ts));
		json_string(f, m->label);
		fprintf(f, ",\"%s\":", proc_fields[PROCF_PID].key);	/* who wrote it */
		json_val(f, m->pid != 0, 0, m->pid);
		fputc('}', f);
	}
	fprintf(f, "],\"marks_not_listed\":%llu", (unsigned long long)(b->phases != NULL ?
	    phase_marks_unlisted(b->phases, interval) : 0));
}

/*
 * ,"phases":[...]: the phases closed in the interval (or all kept), each
 * device's figures over it; nothing at all in an interval that closed none.
 */
void
json_run_phases(FILE *f, const struct blktop *b, int interval)
{
	const struct phase	*p;
	const struct phase_dev	*d;
	struct json_lat		 lat;
	uint64_t		 first;
	unsigned		 i, k, n;

	n = b->phases != NULL ? phase_count(b->phases, interval, &first) : 0;
	if (n == 0 && interval)
		return;
	fprintf(f, "," JK(JK_PHASES) "[");
	for (i = 0; i < n; i++) {
		p = phase_get(b->phases, first + i);
		fprintf(f, "%s{" JK(JK_LABEL), i ? "," : "");
		if (p->has_label)
			json_string(f, p->label);
		else
			fprintf(f, "null");
		fprintf(f, "," JK(JK_START) "%.6f,\"end\":%.6f," JK(JK_DURATION_S) "%.6f,"
		    JK(JK_DEVICES) "[",
		    stream_wall(b, p->start), stream_wall(b, p->end),
		    (double)(p->end - p->start) / 1e9);
		for (k = 0; k < p->ndevs; k++) {
			d = &p->devs[k];
			fprintf(f, "%s{\"%s\":", k ? "," : "", dev_fields[DEVF_NAME].key);
			json_string(f, device_name(d->dev));
			fprintf(f, ",\"%s\":%llu,\"read_bytes\":%llu,\"write_bytes\":%llu",
			    dev_fields[DEVF_IOS].key, (unsigned long long)d->ios, (unsigned long long)d->bytes[OPC_READ],
			    (unsigned long long)d->bytes[OPC_WRITE]);
			json_num(f, "mb_s", !isnan(d->mb_s), 3, d->mb_s);
			json_num(f, "aqu_sz", !isnan(d->aqu), 3, d->aqu);
			lat = (struct json_lat){ .has = d->timed == 0 ? 0 : JL_BIT(JL_MEAN) |
			    JL_BIT(JL_P50) | JL_BIT(JL_P90) | JL_BIT(JL_P99) | JL_BIT(JL_MAX),
			    .v = { [JL_MEAN] = d->mean_us, [JL_P50] = d->p50_us,
			    [JL_P90] = d->p90_us, [JL_P99] = d->p99_us, [JL_MAX] = d->max_us } };
			json_await(f, &lat);
			fputc('}', f);
		}
		fprintf(f, "],\"devices_dropped\":%llu}", (unsigned long long)p->devs_dropped);
	}
	fprintf(f, "],\"phases_dropped\":%llu,\"phases_not_listed\":%llu",
	    (unsigned long long)(b->phases != NULL ? phase_dropped(b->phases) : 0),
	    (unsigned long long)(b->phases != NULL ? phase_unlisted(b->phases, interval) : 0));
}

/* One table's member of "dropped" (opening the object if *first), if it evicted any. */
static void
json_run_evicted(FILE *f, unsigned *first, const char *table, unsigned max,
    uint64_t interval, uint64_t total)
{
	if (total == 0)
		return;
	fprintf(f, "%s\"%s\":{" JK(JK_MAX) "%u,\"evicted\":%llu,\"evicted_total\":%llu}",
	    *first ? ",\"dropped\":{" : ",", table, max, (unsigned long long)interval,
	    (unsigned long long)total);
	*first = 0;
}

/*
 * ,"dropped": what a cap cut, so that no count is short without saying so;
 * left out until one has. "devices": requests of devices past the device
 * cap, the devices named (an interval's, -J: also its own requests and those
 * of devices past the names kept); an interval's "processes", "files":
 * entries evicted from a full table (max entries) in it and since the start,
 * their rows gone (its totals in "tables" keep them); a run's (the report)
 * "report_devices": devices past the report's own cap of rep_max, rep_n of
 * them, their rep_requests not charted.
 */
void
json_run_dropped(FILE *f, const struct blktop *b, int interval, unsigned rep_max,
    unsigned rep_n, uint64_t rep_requests)
{
	const struct windows	*w = &b->win;
	struct proc_stats	 st;
	unsigned		 i, first = 1;

	if (w->dropped > 0) {
		fprintf(f, ",\"dropped\":{" JK(JK_DEVICES) "{" JK(JK_MAX) "%u," JK(JK_COUNT) "%u",
		    w->max_devs, w->ndrop);
		if (interval)
			fprintf(f, ",\"requests\":%llu", (unsigned long long)w->dropped_interval);
		fprintf(f, ",\"requests_total\":%llu,\"names\":[", (unsigned long long)w->dropped);
		for (i = 0; i < w->ndrop; i++) {
			if (i > 0)
				fputc(',', f);
			json_string(f, device_name(w->drop[i].dev));
		}
		fputc(']', f);
		if (interval)
			fprintf(f, ",\"others_requests_total\":%llu",
			    (unsigned long long)w->drop[WINDOWS_DROP_MAX].requests);
		fputc('}', f);
		first = 0;
	}
	if (interval && b->procs != NULL) {
		proc_stats(b->procs, &st);
		json_run_evicted(f, &first, JK_PROCESSES, st.max_procs, st.procs_evicted_interval,
		    st.procs_evicted);
		json_run_evicted(f, &first, JK_FILES, st.max_files, st.files_evicted_interval,
		    st.files_evicted);
	}
	if (rep_n > 0) {
		fprintf(f, "%s\"report_devices\":{" JK(JK_MAX) "%u," JK(JK_COUNT) "%u,"
		    "\"requests\":%llu}",
		    first ? ",\"dropped\":{" : ",", rep_max, rep_n,
		    (unsigned long long)rep_requests);
		first = 0;
	}
	if (!first)
		fputc('}', f);
}

/*
 * ,"processes":[...],"files":[...]: the top n of each by the sort key, of
 * the interval (-J) or of the whole run (whole: the report).
 */
void
json_run_top(FILE *f, const struct blktop *b, int key, int whole, unsigned n)
{
	const struct proc_entry	**pe = xcalloc(n, sizeof *pe);
	const struct file_entry	**fe = xcalloc(n, sizeof *fe);
	unsigned		 i, k;

	k = top_procs(b->procs, (enum proc_key)key, whole, pe, n);
	fprintf(f, "," JK(JK_PROCESSES) "[");
	for (i = 0; i < k; i++) {
		if (i > 0)
			fputc(',', f);
		json_proc(f, b, pe[i], whole);
	}
	k = top_files(b->procs, (enum proc_key)key, whole, fe, n);
	fprintf(f, "]," JK(JK_FILES) "[");
	for (i = 0; i < k; i++) {
		if (i > 0)
			fputc(',', f);
		json_file(f, b, fe[i], whole);
	}
	fputc(']', f);
	json_jobs(f, b, whole, n);
	free(pe);
	free(fe);
}

/*
 * "self": what blktop cost over the report: CPU % of one CPU, records a
 * second, lost, and its BPF programs' run time (null when not known: a
 * replay, or a kernel without statistics). Last in the object, so that a
 * replay's report is the live one with "self" taken away.
 */
static void
json_run_self(FILE *f, const struct blktop *b)
{
	const struct self_cost	*sc = &b->self;
	int			 bpf = sc->valid && sc->have_bpf;

	if (b->lost_unknown != NULL)	/* the kernel's counters unreadable: unknown */
		fprintf(f, ",\"self\":{\"lost\":null,\"lost_unknown\":\"%s\"", b->lost_unknown);
	else
		fprintf(f, ",\"self\":{\"lost\":%llu", (unsigned long long)b->lost_report);
	json_num(f, "cpu_pct", sc->valid, 2, sc->cpu_pct);
	json_num(f, "events_per_s", sc->valid, 1, sc->events_per_s);
	json_num(f, "bpf_pct", bpf, 3, sc->bpf_pct);
	json_num(f, "bpf_ns", bpf, 0, (double)sc->bpf_ns);
	json_num(f, "bpf_runs", bpf, 0, (double)sc->bpf_runs);
	json_num(f, "bpf_ns_per_run", bpf && sc->bpf_runs != 0, 1,
	    sc->bpf_runs != 0 ? (double)sc->bpf_ns / (double)sc->bpf_runs : 0);
	json_num(f, "bpf_ns_per_event", bpf && sc->events != 0, 1,
	    sc->events != 0 ? (double)sc->bpf_ns / (double)sc->events : 0);
	json_num(f, "paths_reused", bpf, 0, (double)sc->paths_reused);
	json_num(f, "paths_missed", bpf, 0, (double)sc->paths_missed);
	json_num(f, "records_batched", bpf, 0, (double)sc->batched);
	fprintf(f, "}");
}

/*
 * "unavailable": what the source cannot tell, by have_table name, and why
 * (the kernel lacks a hook, the recording was made without it); the fields
 * that stand on it are null. Left out when the source tells everything.
 */
static void
json_run_unavailable(FILE *f, const struct blktop *b)
{
	unsigned	 i, first = 1;

	for (i = 0; i < HAVE_NBITS; i++) {
		const char *why = source_have_na(b, have_table[i].bit);

		if (why[0] == '\0')
			continue;
		fprintf(f, "%s", first ? ",\"unavailable\":{" : ",");
		json_string(f, have_table[i].name);
		fputc(':', f);
		json_string(f, why);
		first = 0;
	}
	if (!first)
		fputc('}', f);
}

/* The interval's top processes and files (json.c), and the tables' sizes and counts. */
static void
json_run_tables(FILE *f, const struct batch_opts *bo, const struct blktop *b)
{
	struct proc_stats	 st;
	unsigned		 top = bo->top < PROC_TOP_MAX ? bo->top : PROC_TOP_MAX;
	uint64_t		 early, late;

	if (b->procs == NULL)
		return;
	json_run_top(f, b, bo->sort_key, 0, top);
	proc_stats(b->procs, &st);
	fprintf(f, ",\"tables\":{" JK(JK_PROCS) "%u,\"max_procs\":%u," JK(JK_FILES) "%u,"
	    "\"max_files\":%u,\"procs_evicted\":%llu,\"files_evicted\":%llu,"
	    "\"pattern_pairs\":%u,\"pattern_pairs_evicted\":%llu,\"pattern_early\":%llu,"
	    "\"pattern_gone\":%llu,\"offset_maps_reused\":%llu",
	    st.procs, st.max_procs, st.files, st.max_files,
	    (unsigned long long)st.procs_evicted, (unsigned long long)st.files_evicted,
	    st.pairs, (unsigned long long)st.pairs_evicted,
	    (unsigned long long)st.pattern_early, (unsigned long long)st.pattern_gone,
	    (unsigned long long)st.maps_reused);
	reqpat_stats(b->reqpat, &early, &late);
	fprintf(f, ",\"pattern_late\":%llu,\"requests_judged_early\":%llu,"
	    "\"requests_judged_late\":%llu", (unsigned long long)st.pattern_late,
	    (unsigned long long)early, (unsigned long long)late);
	json_jobs_tree(f, b);
	/* Every process's calls of the interval, not only the top rows'. */
	json_sum(f, b, proc_sum(b->procs));
	fputc('}', f);
	json_insights(f, b);
}

/* One JSON object per interval, on one line. */
void
json_run_interval(const struct batch_opts *bo, const struct blktop *b, double ts_wall,
    unsigned nticks)
{
	FILE			*f = bo->out;
	const struct devwin	*dw;
	struct sum		 s;
	static struct dev_ctx	 x;	/* large: keep it off the stack */
	double			 secs = 0;
	unsigned		 i, first = 1;

	for (i = 0; i < b->win.ndevs && secs == 0; i++) {
		windows_sum(&b->win, b->win.devs[i], 1, nticks, &s);
		secs = (double)s.dur_ns / 1e9;
	}
	if (secs == 0)
		secs = (double)nticks * (double)b->tick_ns / 1e9;
	if (b->lost_unknown != NULL)	/* the kernel's counters unreadable: unknown */
		fprintf(f, "{" JK(JK_TS) "%.6f," JK(JK_INTERVAL_S) "%.6f,\"lost\":null,\"lost_requests\":null,"
		    "\"lost_calls\":null,\"lost_other\":null," JK(JK_DEVICES) "[", ts_wall, secs);
	else
		fprintf(f, "{" JK(JK_TS) "%.6f," JK(JK_INTERVAL_S) "%.6f,\"lost\":%llu,\"lost_requests\":%llu,"
		    "\"lost_calls\":%llu,\"lost_other\":%llu," JK(JK_DEVICES) "[",
		    ts_wall, secs, (unsigned long long)b->lost_report,
		    (unsigned long long)b->lost_kind_report[LOST_REQUESTS],
		    (unsigned long long)b->lost_kind_report[LOST_CALLS],
		    (unsigned long long)b->lost_kind_report[LOST_RECORDS]);
	for (i = 0; i < b->win.ndevs; i++) {
		dw = b->win.devs[i];
		windows_sum(&b->win, dw, 1, nticks, &s);
		if (!first)
			fputc(',', f);
		dev_ctx_init(&x, dw->dev, &s, dw);
		json_dev_write(f, &x);
		fputc('}', f);
		first = 0;
	}
	fprintf(f, "]");
	json_run_marks(f, b, 1);
	json_run_phases(f, b, 1);
	json_run_tables(f, bo, b);
	json_run_unavailable(f, b);
	json_run_dropped(f, b, 1, 0, 0, 0);
	json_run_self(f, b);
	if (b->stack != NULL && bo->stack)
		stack_json(f, b, b->stack);
	fprintf(f, "}\n");
}

/* How many of a device's columns hold enough timed requests to judge a p99 by. */
static unsigned
json_run_judged_cols(const struct report *r, const struct report_dev *rd)
{
	unsigned	 i, n = 0;

	for (i = 0; i < r->ncols; i++)
		n += rd->cols[i].timed >= REPORT_ANOMALY_MIN;
	return (n);
}

/* One device's whole run: json-dev.c's object, and the report's own members. */
static void
json_run_dev(FILE *f, const struct blktop *b, const struct report *r,
    const struct report_dev *rd)
{
	struct report_span	 sp[64];
	static struct dev_ctx	 x;	/* large: keep it off the stack */
	struct json_map		 jm;
	uint64_t		 med;
	unsigned		 i, ns;

	dev_ctx_init(&x, rd->dev, &rd->tot, windows_get(&b->win, rd->dev));
	x.qd_max = rd->qd_peak;
	x.qd_max_at = stream_wall(b, rd->qd_peak_ts);
	x.run = 1;
	json_dev_write(f, &x);
	/* No column with enough timed requests: no median to judge by. */
	med = report_col_median_p99(r, rd);
	json_num(f, "median_column_p99_us", json_run_judged_cols(r, rd) > 0, 1,
	    (double)med / 1e3);
	fprintf(f, ",\"anomalies\":[");
	ns = report_col_anomalies(r, rd, sp, nitems(sp));
	for (i = 0; i < ns && i < nitems(sp); i++)
		fprintf(f, "%s{" JK(JK_START) "%.3f,\"end\":%.3f,\"p99_us\":%.1f}", i ? "," : "",
		    stream_wall(b, r->col_start[sp[i].first]),
		    stream_wall(b, r->col_end[sp[i].last]), (double)sp[i].p99 / 1e3);
	fprintf(f, "],\"anomalies_total\":%u", ns);
	/* The offset map's numbers: per column, reads and writes by band. */
	_Static_assert(sizeof(struct report_col) % sizeof(uint32_t) == 0, "report_col");
	jm = (struct json_map){ .v = r->ncols > 0 ? &rd->cols[0].band[0][0] : NULL,
	    .dir_stride = MAP_BANDS, .col_stride = sizeof rd->cols[0] / sizeof(uint32_t),
	    .ncols = r->ncols, .nbands = MAP_BANDS, .band_bytes = (uint64_t)512 << rd->map_shift };
	json_offset_map(f, &jm);
	fputc('}', f);
}

/* The whole run as one JSON object (the HTML page's summary, for scripts). */
void
json_run_report(FILE *f, const struct blktop *b, const struct report *r)
{
	unsigned	 i;

	fprintf(f, "{\"source\":");
	json_string(f, b->opt.replay_path != NULL ? b->opt.replay_path : "live");
	fprintf(f, ",\"plan\":");
	json_string(f, b->plan_text);
	fprintf(f, "," JK(JK_START) "%.3f,\"end\":%.3f," JK(JK_DURATION_S) "%.3f,"
	    "\"ticks\":%llu,"
	    JK(JK_COLUMNS) "%u,\"ticks_per_column\":%u,\"events\":%llu,\"lost\":%llu,"
	    "\"anomaly_rule\":\"a column with at least %d timed requests whose p99 is over "
	    "%.0fx the median column p99 of the device; adjacent ones form one span\","
	    JK(JK_DEVICES) "[", stream_wall(b, r->first_ts), stream_wall(b, r->last_ts),
	    (double)(r->last_ts - r->first_ts) / 1e9, (unsigned long long)r->ticks,
	    r->ncols, r->ticks_per_col, (unsigned long long)b->events,
	    (unsigned long long)b->lost, REPORT_ANOMALY_MIN, REPORT_ANOMALY_X);
	for (i = 0; i < r->ndevs; i++) {
		if (i > 0)
			fputc(',', f);
		json_run_dev(f, b, r, r->devs[i]);
	}
	fprintf(f, "]");
	report_hosts_json(f, r);
	json_run_marks(f, b, 0);
	json_run_phases(f, b, 0);
	json_run_dropped(f, b, 0, REPORT_DEVS_MAX, r->ndropped, r->dropped_requests);
	if (b->procs != NULL) {
		fprintf(f, ",\"sort\":\"%s\"", field_key_name(r->opts.sort_key));
		json_run_top(f, b, r->opts.sort_key, 1, REPORT_TOP);
		json_insights(f, b);
		json_wear_run(f, b, (double)(r->last_ts - r->first_ts) / 1e9);
	}
	if (b->stack != NULL && b->opt.batch_opts.stack)
		stack_json(f, b, b->stack);
	fprintf(f, "}\n");
}
