/* sink-batch.c: the batch view: periodic reports without a UI, as an iostat -x like table or JSON Lines. */

#include <event2/event.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "blktop.h"
#include "host.h"
#include "job.h"
#include "fields.h"
#include "field-dev.h"
#include "model-qdepth.h"
#include "stack.h"

static void	batch_text_depth(FILE *, const struct blktop *, unsigned);

/* An interval is complete: print its report; stop the loop once -n reports are out. */
static void
batch_report(struct sink *s, uint64_t ts_mono, unsigned nticks)
{
	struct blktop		*b = s->b;
	const struct batch_opts	*bo = s->opts;
	double			 ts_wall;

	ts_wall = stream_wall(b, ts_mono);
	if (bo->json)
		json_run_interval(bo, b, ts_wall, nticks);
	else if (bo->stack && b->stack != NULL) {
		/* Since the start, as bpftrace at exit: at the end, or at each of -n reports. */
		if (b->opt.count > 0 || b->exiting || b->ending)
			stack_print_text(bo->out, b, b->stack);
	} else
		batch_print_text(bo, b, ts_wall, nticks);
	fflush(bo->out);
	b->reports++;
	if (b->opt.count > 0 && b->reports >= b->opt.count && b->base != NULL)
		event_base_loopbreak(b->base);
}

/* The source has nothing more (stream_end has reported the interval still open): stop. */
static void
batch_end(struct sink *s)
{
	struct blktop	*b = s->b;

	if (b->base != NULL)
		event_base_loopbreak(b->base);
}

/* The processes that touched a file, as "12,345,+" (more than fit, or than were kept). */
static void
batch_pids(char *buf, size_t size, const struct file_entry *fe)
{
	size_t		 off = 0;
	unsigned	 k;
	int		 w;

	buf[0] = '\0';
	for (k = 0; k < fe->npids && k < PROC_FILE_PIDS; k++) {
		w = snprintf(buf + off, size - off, "%s%u", k ? "," : "", fe->pids[k]);
		if (w < 0 || (size_t)w >= size - off - 2) {
			buf[off] = '\0';
			break;
		}
		off += (size_t)w;
	}
	if (k < fe->npids || fe->pids_more)
		snprintf(buf + off, size - off, "%s+", off ? "," : "");
}

/*
 * A file's seq% and commonest size (doc/json.md, Access pattern: since first
 * seen), as the UI's files pane has them; "-" where there is none.
 */
static void
batch_text_pattern(char *buf, size_t len, const struct pattern *p)
{
	struct pat_sum	 sum;
	int64_t		 v[PAT_COMMON];
	uint64_t	 n[PAT_COMMON];
	char		 seq[8], size[16];
	unsigned	 k = pattern_common(&p->sizes, v, n);

	pattern_sum(p, &sum);
	fmt_num(seq, sizeof seq, 4, 0, sum.judged > 0,
	    sum.judged > 0 ? 100.0 * (double)sum.seq / (double)sum.judged : 0);
	fmt_num(size, sizeof size, 10, 0, k > 0, k > 0 ? (double)v[0] : 0);
	snprintf(buf, len, "%s %s", seq, size);
}

/*
 * The insights since the start (doc/insights.md), under the files: the
 * BATCH_INSIGHTS highest, one line each, and how many more there are.
 */
#define BATCH_INSIGHTS	8
static void
batch_text_insights(FILE *f, const struct blktop *b)
{
	struct insight	 in[BATCH_INSIGHTS];
	char		 fig[160], rule[200], name[4096];
	uint64_t	 more = 0;
	unsigned	 i, n;

	if ((n = insight_scan(b, in, BATCH_INSIGHTS, &more)) == 0)
		return;
	fprintf(f, "\ninsights since the start (doc/insights.md):\n");
	for (i = 0; i < n; i++) {
		const struct insight_rule *ru = in[i].rule;

		ru->text(&b->opt.insight, &in[i], fig, sizeof fig, rule, sizeof rule);
		fmt_insight_name(b->procs, &in[i], name, sizeof name);
		fprintf(f, "%-4s %-17s %s: %s\n", insight_level_name(ru->level), ru->code,
		    name, fig);
	}
	if (more > 0)
		fprintf(f, "... and %llu more (-J and --report list them all)\n",
		    (unsigned long long)more);
}

/* -b's process table: its columns (proc_fields' rows: their titles and widths). */
static const enum proc_field batch_proc_cols[] = {
	PROCF_PID, PROCF_COMM, PROCF_HOST, PROCF_REQ_READ_BYTES, PROCF_REQ_WRITE_BYTES, PROCF_REQ_READS, PROCF_REQ_WRITES,
	PROCF_CALL_READ_BYTES, PROCF_CALL_WRITE_BYTES, PROCF_CALL_READS, PROCF_CALL_WRITES, PROCF_OPENS,
	PROCF_REQ_P50, PROCF_REQ_P99,
};

/* The process table's titles. */
static void
batch_text_proc_head(FILE *f)
{
	const struct field	*r;
	unsigned		 i;

	fputc('\n', f);
	for (i = 0; i < nitems(batch_proc_cols); i++) {
		if (batch_proc_cols[i] == PROCF_HOST && host_count() < 2)
			continue;	/* a run of several hosts only */
		r = &proc_fields[batch_proc_cols[i]];
		fprintf(f, "%s%*s", i ? " " : "", r->b.width, r->b.title);
	}
	fputc('\n', f);
}

/* One process's row of the interval. */
static void
batch_text_proc(FILE *f, const struct blktop *b, const struct proc_entry *pe)
{
	struct field_ctx	 x = { .b = b, .c = proc_entry_counts(b->procs, pe, 0),
				     .pe = pe, .ent = FIELD_PROC };
	char			 cell[64];
	unsigned		 i;

	for (i = 0; i < nitems(batch_proc_cols); i++) {
		if (batch_proc_cols[i] == PROCF_HOST && host_count() < 2)
			continue;
		field_text(&proc_fields[batch_proc_cols[i]], &x, cell, sizeof cell);
		fprintf(f, "%s%s", i ? " " : "", cell);
	}
	fputc('\n', f);
}

/* The top processes and files of the interval, under the device table. */
/*
 * The interval's bytes written and what became of them (src/wear.h), and
 * the churn over -d: one line, when it has any.
 */
static void
batch_text_wear(FILE *f, const struct blktop *b, const struct proc_counts *c)
{
	const struct wear_counts	*w = &c->wear;
	char				 life[16];

	if (!(b->have & HAVE_VFS) || w->written + w->read_back + w->never_read + w->lives == 0)
		return;
	fprintf(f, "wear: %llu written, %llu read back, %llu never read%s, %llu lifetimes "
	    "(mean %s s), %.1f creates/s, %.1f unlinks/s\n", (unsigned long long)w->written,
	    (unsigned long long)w->read_back, (unsigned long long)w->never_read,
	    w->over > 0 ? " (ranges joined: over by that much at most)" : "",
	    (unsigned long long)w->lives,
	    fmt_num(life, sizeof life, 1, 3, w->lives > 0,
	    w->lives > 0 ? (double)w->life_ns / (double)w->lives / 1e9 : 0),
	    b->opt.interval > 0 ? (double)c->creates / b->opt.interval : 0,
	    b->opt.interval > 0 ? (double)c->fops[FOP_UNLINK] / b->opt.interval : 0);
}

/* -b's files table: its columns (file_fields' rows: their titles and widths). */
static const unsigned batch_file_cols[] = {
	FILEF_OPENS, FILEF_CALL_READS, FILEF_CALL_WRITES, FILEF_CALL_READ_BYTES,
	FILEF_CALL_WRITE_BYTES, FILEF_DISK_READ_BYTES, FILEF_DISK_WRITE_BYTES, FILEF_P50,
	FILEF_P99, FILEF_SEQ, FILEF_SIZE, FILEF_PIDS, FILEF_PATH,
};

static void
batch_text_tables(FILE *f, const struct batch_opts *bo, const struct blktop *b)
{
	const struct proc_entry	**pe;
	const struct file_entry	**fe;
	const struct proc_counts *c;
	const struct proc_hist	*h;
	char			 path[4096], pids[24], disk[32];
	char			 p50[16], p99[16], pat[24];
	unsigned		 n, i, top = bo->top < PROC_TOP_MAX ? bo->top : PROC_TOP_MAX;

	if (b->procs == NULL)
		return;
	pe = xcalloc(top, sizeof *pe);
	fe = xcalloc(top, sizeof *fe);
	n = top_procs(b->procs, (enum proc_key)bo->sort_key, 0, pe, top);
	if (n > 0)
		batch_text_proc_head(f);
	for (i = 0; i < n; i++)
		batch_text_proc(f, b, pe[i]);
	json_job_batch(f, b, top);
	c = proc_sum(b->procs);
	if (c->opens + c->open_fails + c->vfs_calls[0] + c->vfs_calls[1] > 0 ||
	    (b->have & HAVE_LIFE))
		fprintf(f, "\ncalls: %llu opens (%llu failed, %llu created), %llu reads, %llu writes, "
		    "%llu closes, %llu mmaps, %llu unlinks, %llu renames, %llu mkdirs, %llu rmdirs\n",
		    (unsigned long long)c->opens, (unsigned long long)c->open_fails,
		    (unsigned long long)c->creates, (unsigned long long)c->vfs_calls[0],
		    (unsigned long long)c->vfs_calls[1], (unsigned long long)c->fops[FOP_CLOSE],
		    (unsigned long long)c->fops[FOP_MMAP], (unsigned long long)c->fops[FOP_UNLINK],
		    (unsigned long long)c->fops[FOP_RENAME], (unsigned long long)c->fops[FOP_MKDIR],
		    (unsigned long long)c->fops[FOP_RMDIR]);
	batch_text_wear(f, b, c);
	n = top_files(b->procs, (enum proc_key)bo->sort_key, 0, fe, top);
	if (n > 0) {
		fputc('\n', f);
		file_field_b_head(f, batch_file_cols, nitems(batch_file_cols));
	}
	for (i = 0; i < n; i++) {
		c = proc_file_counts(b->procs, fe[i], 0);
		fmt_file_name(b->procs, fe[i], path, sizeof path);
		name_text(path, sizeof path, path, sizeof path);
		batch_pids(pids, sizeof pids, fe[i]);
		if (b->have & HAVE_FILES)
			snprintf(disk, sizeof disk, "%10llu %10llu",
			    (unsigned long long)c->disk_bytes[0],
			    (unsigned long long)c->disk_bytes[1]);
		else
			snprintf(disk, sizeof disk, "%10s %10s", "-", "-");
		h = proc_file_hist(b->procs, fe[i], 0);
		batch_text_pattern(pat, sizeof pat, &fe[i]->pat);
		fprintf(f, "%6llu %8llu %8llu %10llu %10llu %s %s %s %s  %-23s %s\n",
		    (unsigned long long)c->opens, (unsigned long long)c->vfs_calls[0],
		    (unsigned long long)c->vfs_calls[1],
		    (unsigned long long)c->vfs_bytes[0], (unsigned long long)c->vfs_bytes[1], disk,
		    fmt_num(p50, sizeof p50, 9, 1, h->n != 0, proc_hist_pct(h, 50) / 1e3),
		    fmt_num(p99, sizeof p99, 9, 1, h->n != 0, proc_hist_pct(h, 99) / 1e3),
		    pat, pids, path);
	}
	free(pe);
	free(fe);
}

/* The interval's marks, and the phases it closed, one line each. */
static void
batch_text_phases(FILE *f, const struct blktop *b)
{
	const struct mark	*m;
	const struct phase	*p;
	const struct phase_dev	*d;
	uint64_t		 first, gone;
	unsigned		 i, k, n;
	char			 v[5][24];

	if (b->phases == NULL)
		return;
	n = phase_marks(b->phases, 1, &first);
	if ((gone = phase_marks_unlisted(b->phases, 1)) > 0)
		fprintf(f, "marks: %llu more in this interval not listed (the last %u kept)\n",
		    (unsigned long long)gone, MARK_RING);
	for (i = 0; i < n; i++) {
		m = phase_mark(b->phases, first + i);
		fprintf(f, "mark %.6f ", stream_wall(b, m->ts));
		name_json(f, m->label, MARK_LABEL_MAX);
		fprintf(f, " (pid %u)\n", m->pid);
	}
	n = phase_count(b->phases, 1, &first);
	if ((gone = phase_unlisted(b->phases, 1)) > 0)
		fprintf(f, "phases: %llu more closed in this interval not listed (the last %u kept)\n",
		    (unsigned long long)gone, PHASE_MAX);
	for (i = 0; i < n; i++) {
		p = phase_get(b->phases, first + i);
		fprintf(f, "phase ");
		name_json(f, p->has_label ? p->label : "(before the first mark)", MARK_LABEL_MAX);
		fprintf(f, " %.3f s%s\n", (double)(p->end - p->start) / 1e9,
		    p->ndevs == 0 ? ": no requests" : "");
		for (k = 0; k < p->ndevs; k++) {
			d = &p->devs[k];
			fprintf(f, "  %-12s %9llu ios %s MB/s  aqu-sz %s  await us p50 %s p99 %s max %s\n",
			    device_text(d->dev), (unsigned long long)d->ios,
			    fmt_num(v[0], sizeof v[0], 8, 2, !isnan(d->mb_s), d->mb_s),
			    fmt_num(v[1], sizeof v[1], 6, 2, !isnan(d->aqu), d->aqu),
			    fmt_num(v[2], sizeof v[2], 8, 1, d->timed != 0, d->p50_us),
			    fmt_num(v[3], sizeof v[3], 8, 1, d->timed != 0, d->p99_us),
			    fmt_num(v[4], sizeof v[4], 8, 1, d->timed != 0, d->max_us));
		}
	}
}

/*
 * -b's device table: its columns (dev_fields' rows: their titles and
 * widths): r/s w/s MB/s, await, p50/p99, aqu-sz, %util, and seq%: of its
 * requests since first seen, those sequential (the request pattern:
 * doc/json.md, Access pattern).
 */
static const struct dev_colref batch_dev_cols[] = {
	{ DEVF_NAME, 0 }, { DEVF_IOPS, OPC_READ }, { DEVF_IOPS, OPC_WRITE },
	{ DEVF_BYTES_S, OPC_READ }, { DEVF_BYTES_S, OPC_WRITE }, { DEVF_AWAIT, OPC_READ },
	{ DEVF_AWAIT, OPC_WRITE }, { DEVF_P50, OPC_READ }, { DEVF_P99, OPC_READ },
	{ DEVF_P50, OPC_WRITE }, { DEVF_P99, OPC_WRITE }, { DEVF_IOPS, OPC_OTHER },
	{ DEVF_QD_AVG, 0 }, { DEVF_QD_MAX, 0 }, { DEVF_UTIL, 0 }, { DEVF_SEQ, 0 },
};

/* The interval's report: its header line, a row per wanted device, then the tables under it. */
void
batch_print_text(const struct batch_opts *bo, const struct blktop *b, double ts_wall,
    unsigned nticks)
{
	static struct dev_ctx	 x;	/* large: keep it off the stack */
	FILE			*f = bo->out;
	struct sum		 s;
	const struct devwin	*dw;
	char			 when[32], cut[1024], cell[64];
	time_t			 t = (time_t)ts_wall;
	struct tm		 tm;
	unsigned		 i, k, na;

	localtime_r(&t, &tm);
	strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm);
	if (b->lost_unknown != NULL)
		fprintf(f, "%s  lost ? (%s)", when, b->lost_unknown);
	else
		fprintf(f, "%s  lost %llu", when, (unsigned long long)b->lost_report);
	if (b->lost_unknown == NULL && b->lost_report != 0)
		fprintf(f, " (%llu requests, %llu calls, %llu other)",
		    (unsigned long long)b->lost_kind_report[LOST_REQUESTS],
		    (unsigned long long)b->lost_kind_report[LOST_CALLS],
		    (unsigned long long)b->lost_kind_report[LOST_RECORDS]);
	if (fmt_dropped(b, 1, cut, sizeof cut) > 0)
		fprintf(f, "  %s", cut);
	/* What the source cannot tell (its columns "-"); -J and --probe say why. */
	for (i = 0, na = 0; i < HAVE_NBITS; i++) {
		if (source_have_na(b, have_table[i].bit)[0] != '\0')
			fprintf(f, "%s %s", na++ == 0 ? "  n/a:" : "", have_table[i].name);
	}
	if (b->self.valid) {
		fprintf(f, "  self: cpu %.1f%%, %.0f events/s", b->self.cpu_pct,
		    b->self.events_per_s);
		if (b->self.have_bpf && b->self.events != 0)
			fprintf(f, ", bpf %.2f%% (%.0f ns/event)", b->self.bpf_pct,
			    (double)b->self.bpf_ns / (double)b->self.events);
	}
	fprintf(f, "\n");
	dev_field_b_head(f, batch_dev_cols, nitems(batch_dev_cols));
	for (i = 0; i < b->win.ndevs; i++) {
		dw = b->win.devs[i];
		windows_sum(&b->win, dw, 1, nticks, &s);
		dev_ctx_init(&x, dw->dev, &s, dw);
		for (k = 0; k < nitems(batch_dev_cols); k++) {
			dev_field_b(&x, &batch_dev_cols[k], cell, sizeof cell);
			fprintf(f, "%s%s", k ? " " : "", cell);
		}
		fputc('\n', f);
	}
	batch_text_depth(f, b, nticks);
	batch_text_phases(f, b);
	batch_text_tables(f, bo, b);
	batch_text_insights(f, b);
	fputc('\n', f);
}

/*
 * The depths the interval's requests found, one line per device and depth
 * bucket (fio's: 1, 2-3, 4-7, ...): how many found it at their start and at
 * their dispatch, and the total latency (start to done, us) of
 * those that found it at their start, mean, p50, p99, with their share of
 * the bytes. Only devices whose depths come from the requests' times.
 */
static void
batch_text_depth(FILE *f, const struct blktop *b, unsigned nticks)
{
	const struct devwin	*dw;
	const struct qd_acc	*a;
	const struct qd_lat	*l;
	struct sum		 s;
	uint64_t		 n, bytes;
	char			 v[5][16], qd[24];
	unsigned		 i, k, o, head = 0;

	for (i = 0; i < b->win.ndevs; i++) {
		dw = b->win.devs[i];
		if ((a = depth_acc(dw, 0)) == NULL)
			continue;
		windows_sum(&b->win, dw, 1, nticks, &s);
		if (!(s.flags & TICK_QD))
			continue;
		for (bytes = 0, k = 0; k < QD_NBUCKETS; k++)
			bytes += a->lat[k] != NULL ? a->lat[k]->bytes : 0;
		for (k = 0; k < QD_NBUCKETS; k++) {
			for (n = 0, o = 0; o < OPC_MAX; o++)
				n += s.op[o].qd[k];
			l = a->lat[k] != NULL && a->lat[k]->n != 0 ? a->lat[k] : NULL;
			if (n == 0 && a->disp[k] == 0 && l == NULL)
				continue;
			/* After a blank line, its own title: not the device table's rows. */
			if (!head++)
				fprintf(f, "\n%-12s %7s %9s %9s %8s %8s %8s %6s\n", "Depth_of", "qd",
				    "at_start", "at_disp", "await_us", "p50_us", "p99_us", "MB%");
			if (k == QD_NBUCKETS - 1)
				snprintf(qd, sizeof qd, "%llu+", 1ULL << k);
			else if (k == 0)
				snprintf(qd, sizeof qd, "1");
			else
				snprintf(qd, sizeof qd, "%llu-%llu", 1ULL << k, (2ULL << k) - 1);
			fprintf(f, "%-12s %7s %9llu %9llu %s %s %s %s\n", device_text(dw->dev), qd,
			    (unsigned long long)n, (unsigned long long)a->disp[k],
			    fmt_num(v[0], sizeof v[0], 8, 1, l != NULL,
			    l ? (double)l->sum / (double)l->n / 1e3 : 0),
			    fmt_num(v[1], sizeof v[1], 8, 1, l != NULL, l ? hist_percentile(l->hist,
			    l->n, 50, l->min, l->max) / 1e3 : 0),
			    fmt_num(v[2], sizeof v[2], 8, 1, l != NULL, l ? hist_percentile(l->hist,
			    l->n, 99, l->min, l->max) / 1e3 : 0),
			    fmt_num(v[3], sizeof v[3], 6, 1, l != NULL && bytes != 0,
			    l && bytes ? 100.0 * (double)l->bytes / (double)bytes : 0));
		}
	}
}

const struct sink_entry sink_batch = {
	.name = "batch",
	.output = 1,
	.report = batch_report,
	.end = batch_end,
	.report_at_end = 1,
};
