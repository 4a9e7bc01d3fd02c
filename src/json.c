/* json.c: the one JSON writer of the rows -J and --report OUT.json share: processes, files, marks, phases, insights, and the helpers every writer uses (a device's object: json-dev.c) (doc/blktop.schema.json). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blktop.h"
#include "fields.h"
#include "json-key.h"
#include "insight.h"

/*
 * The operation classes' keys, OPC_* order: a device's objects (json-dev.c)
 * and the read/write halves of an access pattern (PAT_READ, PAT_WRITE).
 */
const char *const dev_op_keys[OPC_MAX] = { "read", "write", "other" };

/* A name as a JSON string: valid UTF-8, invalid bytes escaped reversibly (name_json). */
void
json_string(FILE *f, const char *s)
{
	name_json(f, s, strlen(s));
}

/* v with prec decimals, or null when nothing is behind it. */
void
json_val(FILE *f, int known, int prec, double v)
{
	if (known)
		fprintf(f, "%.*f", prec, v);
	else
		fprintf(f, "null");
}

/* ,"name": and its value, or null. */
void
json_num(FILE *f, const char *name, int known, int prec, double v)
{
	fprintf(f, ",\"%s\":", name);
	json_val(f, known, prec, v);
}

/*
 * {"mean":..,"p50":..,...,"avg":..}: the members of l->has, one decimal, in
 * enum json_lat_member's order; null with none. The one writer of a
 * latency summary: a device's (json_dev_lat), a process's (json_pcts), a
 * phase's device's (json-run.c).
 */
void
json_lat(FILE *f, const struct json_lat *l)
{
	static const char *const key[JL_N] = {
		[JL_MEAN] = JK_MEAN, [JL_P50] = "p50", [JL_P90] = "p90", [JL_P99] = "p99",
		[JL_P999] = "p999", [JL_MIN] = JK_MIN, [JL_MAX] = JK_MAX, [JL_AVG] = JK_AVG,
	};
	unsigned	 m;
	int		 first = 1;

	if (l->has == 0) {
		fprintf(f, "null");
		return;
	}
	for (m = 0; m < JL_N; m++) {
		if (!(l->has & JL_BIT(m)))
			continue;
		fprintf(f, "%s\"%s\":%.1f", first ? "{" : ",", key[m], l->v[m]);
		first = 0;
	}
	fputc('}', f);
}

/* ,"await_us": and a summary of start-to-done times (a depth bucket's, a phase's device's). */
void
json_await(FILE *f, const struct json_lat *l)
{
	fprintf(f, ",\"await_us\":");
	json_lat(f, l);
}

/* {"p50":..,"p99":..,"min":..,"max":..} in microseconds, or null with no sample. */
void
json_pcts(FILE *f, const struct proc_hist *h)
{
	struct json_lat	 l = { 0 };

	if (h->n != 0)
		l = (struct json_lat){ .has = JL_BIT(JL_P50) | JL_BIT(JL_P99) | JL_BIT(JL_MIN) |
		    JL_BIT(JL_MAX), .v = { [JL_P50] = proc_hist_pct(h, 50) / 1e3,
		    [JL_P99] = proc_hist_pct(h, 99) / 1e3, [JL_MIN] = (double)h->min / 1e3,
		    [JL_MAX] = (double)h->max / 1e3 } };
	json_lat(f, &l);
}

/* "req_lat_us": a process's requests' device times in the interval. */
void
json_field_req_lat(FILE *f, const struct field_ctx *x)
{
	json_pcts(f, x->hist[1] != NULL ? x->hist[1] : proc_entry_hist(x->b->procs, x->pe, 1));
}

/* "call_lat_us": a process's or file's (or a group's) calls' times in the interval. */
void
json_field_call_lat(FILE *f, const struct field_ctx *x)
{
	if (x->hist[0] != NULL)
		json_pcts(f, x->hist[0]);
	else
		json_pcts(f, x->pe != NULL ? proc_entry_hist(x->b->procs, x->pe, 0) :
		    proc_file_hist(x->b->procs, x->fe, 0));
}

/* "disk_lat_us": the device times of a file's pages' requests in the interval. */
void
json_field_disk_lat(FILE *f, const struct field_ctx *x)
{
	json_pcts(f, proc_file_hist(x->b->procs, x->fe, 1));
}

/* ,"name":[[value,count],...]: the commonest values of t, most frequent first. */
static void
json_common(FILE *f, const char *name, const struct pat_vals *t)
{
	int64_t		 v[PAT_COMMON];
	uint64_t	 c[PAT_COMMON];
	unsigned	 i, n = pattern_common(t, v, c);

	fprintf(f, ",\"%s\":[", name);
	for (i = 0; i < n; i++)
		fprintf(f, "%s[%lld,%llu]", i ? "," : "", (long long)v[i], (unsigned long long)c[i]);
	fputc(']', f);
}

/*
 * The access pattern of a process or file since it was first seen, in
 * Darshan's vocabulary (src/pattern.h): null without call records. consec
 * and seq are null for a direction whose accesses all came without an
 * offset (io_uring's, an imported log's that has none).
 */
void
json_field_pattern(FILE *f, const struct field_ctx *x)
{
	const struct blktop	*b = x->b;
	const struct pattern	*p = x->pe != NULL ? &x->pe->pat : &x->fe->pat;
	const char *const	*dir = dev_op_keys;	/* PAT_READ, PAT_WRITE: "read", "write" */
	int			 known = (b->have & HAVE_VFS) != 0;
	unsigned		 d, i;

	for (d = 0; d < 2; d++) {
		const struct pat_side	*s = &p->side[d];
		int			 off = known && (s->accesses == 0 || s->accesses > s->no_offset);

		fprintf(f, ",\"%s_size_hist\":", dir[d]);
		if (!known)
			fprintf(f, "null");
		else
			for (i = 0; i < PAT_BINS; i++)
				fprintf(f, "%c%llu", i ? ',' : '[', (unsigned long long)s->hist[i]);
		if (known)
			fputc(']', f);
		fprintf(f, ",\"consec_%ss\":", dir[d]);
		json_val(f, off, 0, (double)s->consec);
		fprintf(f, ",\"seq_%ss\":", dir[d]);
		json_val(f, off, 0, (double)s->seq);
		fprintf(f, ",\"no_offset_%ss\":", dir[d]);
		json_val(f, known, 0, (double)s->no_offset);
	}
	if (known) {
		json_common(f, "common_sizes", &p->sizes);
		json_common(f, "common_strides", &p->strides);
	} else
		fprintf(f, ",\"common_sizes\":null,\"common_strides\":null");
	json_num(f, "rw_switches", known, 0, (double)p->switches);
	/* When its calls began and ended, Unix time (one call's: from its entry to its exit). */
	json_num(f, "first_access", known && p->first_ns != 0, 6,
	    stream_wall(b, p->first_ns));
	json_num(f, "last_access", known && p->last_ns != 0, 6,
	    stream_wall(b, p->last_ns));
	/* An imported log's calls carry no open flags: O_DIRECT not known. */
	known = (b->have & (HAVE_VFS | HAVE_FILES)) == (HAVE_VFS | HAVE_FILES);
	json_num(f, "direct_calls", known, 0, (double)p->direct);
	json_num(f, "misaligned", known, 0, (double)p->misaligned);
}

/*
 * ,"request_pattern": the requests of a device or file since first seen,
 * judged at the request level (src/pattern.h, struct req_pattern); null
 * without one (r NULL: a device without its windows).
 */
void
json_req_pattern(FILE *f, const struct req_pattern *r, const struct req_extra *x)
{
	const char *const	*dir = dev_op_keys;	/* PAT_READ, PAT_WRITE: "read", "write" */
	unsigned		 d, i;

	fprintf(f, ",\"request_pattern\":");
	if (r == NULL || r->n[0] + r->n[1] == 0) {
		fprintf(f, "null");
		return;
	}
	for (d = 0; d < 2; d++) {
		fprintf(f, "%c\"%ss\":%llu,\"%s_size_hist\":", d ? ',' : '{', dir[d],
		    (unsigned long long)r->n[d], dir[d]);
		for (i = 0; i < PAT_BINS; i++)
			fprintf(f, "%c%llu", i ? ',' : '[', (unsigned long long)r->hist[d][i]);
		fprintf(f, "],\"consec_%ss\":%llu,\"seq_%ss\":%llu", dir[d],
		    (unsigned long long)r->consec[d], dir[d], (unsigned long long)r->seq[d]);
	}
	if (x != NULL) {	/* a device's */
		json_common(f, "common_sizes", &x->sizes);
		json_common(f, "common_strides", &x->strides);
		fprintf(f, ",\"rw_switches\":%llu", (unsigned long long)x->switches);
	}
	fputc('}', f);
}

/*
 * A file's bytes touched (the union of the ranges its reads with an offset
 * covered), re-read (read again: those reads' bytes less the union) and
 * touched_over (src/pattern.h: bytes of gaps joined at the cap, 0 when
 * exact); null if none of its reads had an offset and some had none.
 */
static void
json_touched(FILE *f, const struct blktop *b, const struct file_entry *fe)
{
	const struct pat_touched	*t = &fe->touched;
	int				 known = (b->have & HAVE_VFS) != 0 &&
					     (t->read > 0 || fe->pat.side[PAT_READ].no_offset == 0);

	json_num(f, "bytes_touched", known, 0, (double)t->bytes);
	json_num(f, "bytes_reread", known, 0, (double)pattern_reread(t));
	json_num(f, "bytes_touched_over", known, 0, (double)t->over);
}

/*
 * The calls of every process of the interval (whole: of the run), not only
 * the top rows': the "tables" object's counts.
 */
void
json_sum(FILE *f, const struct blktop *b, const struct proc_counts *c)
{
	struct field_ctx	 x = { .b = b, .c = c, .ent = FIELD_SUM };
	int			 first = 0;

	field_json(f, &x, PROCF_OPENS, PROCF_JSON_END, &first);
}

/*
 * One process: the block requests it submitted ("req_"), its read/write
 * calls ("call_"), the device bytes its files moved ("disk_"). An interval's
 * row has latencies; a whole run's (whole) has none: they are kept per
 * interval only.
 */
void
json_proc(FILE *f, const struct blktop *b, const struct proc_entry *pe, int whole)
{
	struct field_ctx	 x = { .b = b, .c = proc_entry_counts(b->procs, pe, whole),
				     .pe = pe, .ent = FIELD_PROC, .whole = whole };
	int			 first = 1;

	field_json(f, &x, 0, PROCF_JSON_END, &first);
	fputc('}', f);
}

/*
 * ,"offset_map":{...}: calls or requests by column and band, reads then
 * writes (a file's map, struct pat_map, with its time axis and the calls
 * without an offset; a device's in the report, struct report_col's).
 */
void
json_offset_map(FILE *f, const struct json_map *m)
{
	unsigned	 d, c, k;

	fprintf(f, ",\"offset_map\":{");
	if (m->timed)
		fprintf(f, JK(JK_START) "%.6f,\"column_s\":%.6f," JK(JK_COLUMNS) "%u,", m->start,
		    m->column_s, m->ncols);
	fprintf(f, "\"band_bytes\":%llu,\"bands\":%u", (unsigned long long)m->band_bytes,
	    m->nbands);
	if (m->timed)
		fprintf(f, ",\"no_offset\":%u", m->nooff);
	fprintf(f, ",\"reads\":[");
	for (d = 0; d < 2; d++) {
		for (c = 0; c < m->ncols; c++) {
			fprintf(f, "%s[", c ? "," : "");
			for (k = 0; k < m->nbands; k++)
				fprintf(f, "%s%u", k ? "," : "",
				    m->v[d * m->dir_stride + c * m->col_stride + k]);
			fputc(']', f);
		}
		fprintf(f, d == 0 ? "],\"writes\":[" : "]}");
	}
}

/* A file's offset map, or null when it has none (no call with an offset, or the map went to a busier file: model-pattern.c). */
static void
json_file_map(FILE *f, const struct blktop *b, const struct pat_map *m)
{
	struct json_map	 jm;

	if (m == NULL) {
		fprintf(f, ",\"offset_map\":null");
		return;
	}
	jm = (struct json_map){ .v = &m->n[0][0][0], .dir_stride = PAT_MAP_COLS * PAT_MAP_BANDS,
	    .col_stride = PAT_MAP_BANDS, .ncols = PAT_MAP_COLS, .nbands = PAT_MAP_BANDS,
	    .band_bytes = 1ULL << m->oshift, .timed = 1, .start = stream_wall(b, m->t0),
	    .column_s = (double)(1ULL << m->tshift) / 1e9, .nooff = m->nooff };
	json_offset_map(f, &jm);
}

/* One file: its calls, the device requests that carried its pages, its lifecycle (whole: as json_proc). */
void
json_file(FILE *f, const struct blktop *b, const struct file_entry *fe, int whole)
{
	struct field_ctx	 x = { .b = b, .c = proc_file_counts(b->procs, fe, whole),
				     .fe = fe, .ent = FIELD_FILE, .whole = whole };
	char			 path[4096];
	unsigned		 k;
	int			 first = 0;

	model_file_path(b->procs, fe, path, sizeof path);
	fprintf(f, "{\"%s\":", file_field_key(FILEF_PATH));
	json_string(f, path);
	fprintf(f, ",\"%s\":[", file_field_key(FILEF_PIDS));
	for (k = 0; k < fe->npids && k < PROC_FILE_PIDS; k++)
		fprintf(f, "%s%u", k ? "," : "", fe->pids[k]);
	fputc(']', f);
	field_json(f, &x, PROCF_HOST, PROCF_HOST + 1, &first);	/* in a run of several hosts */
	field_json(f, &x, PROCF_OPENS, PROCF_JSON_END, &first);
	json_touched(f, b, fe);
	json_req_pattern(f, &fe->rpat, NULL);
	fprintf(f, "," JK(JK_PROCS) "%u,\"procs_more\":%s", fe->npids,
	    fe->pids_more ? "true" : "false");
	if (whole)
		json_file_map(f, b, model_file_map(b->procs, fe));
	fputc('}', f);
}

/*
 * ,"insights":[...] (doc/insights.md): every rule over the whole tables,
 * highest level first, INSIGHT_MAX at most, and "insights_more" the number
 * past those. Without call records only the device rules judge.
 */
void
json_insights(FILE *f, const struct blktop *b)
{
	struct insight	 in[INSIGHT_MAX];
	char		 fig[160], rule[200], path[4096];
	uint64_t	 more = 0;
	unsigned	 i, n;

	n = insight_scan(b, in, INSIGHT_MAX, &more);
	fprintf(f, "," JK(JK_INSIGHTS) "[");
	for (i = 0; i < n; i++) {
		const struct insight_rule *r = in[i].rule;

		r->text(&b->opt.insight, &in[i], fig, sizeof fig, rule, sizeof rule);
		fprintf(f, "%s{" JK(JK_CODE) "\"%s\",\"level\":\"%s\",\"subject\":\"%s\"," JK(JK_NAME),
		    i ? "," : "", r->code, insight_level_name(r->level),
		    r->subject == INSIGHT_FILE ? "file" : r->subject == INSIGHT_PROC ? "process" :
		    "device");
		if (in[i].dev != NULL) {
			json_string(f, device_name(in[i].dev->dev));
			fprintf(f, ",\"%s\":null", proc_fields[PROCF_PID].key);
		} else if (in[i].file != NULL) {
			fmt_file_name(b->procs, in[i].file, path, sizeof path);
			json_string(f, path);
			fprintf(f, ",\"%s\":null", proc_fields[PROCF_PID].key);
		} else {
			name_json(f, in[i].proc->comm, BLKTOP_COMM_LEN);
			fprintf(f, ",\"%s\":%u", proc_fields[PROCF_PID].key, in[i].proc->id);
		}
		fprintf(f, "," JK(JK_FIGURE) "%.4f,\"calls\":%llu,\"measured\":", in[i].figure,
		    (unsigned long long)in[i].n);
		json_string(f, fig);
		fprintf(f, "," JK(JK_RULE));
		json_string(f, rule);
		fprintf(f, ",\"advice\":");
		json_string(f, r->advice);
		fputc('}', f);
	}
	fprintf(f, "],\"insights_more\":%llu", (unsigned long long)more);
}
