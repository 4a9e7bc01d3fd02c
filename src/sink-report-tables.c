/* sink-report-tables.c: the report's HTML tables of processes, files, access pattern and the files' timeline. */

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "blktop.h"
#include "fields.h"
#include "model.h"
#include "pattern.h"
#include "insight.h"
#include "report.h"

/* The report's process table: its columns (proc_fields' rows: their .html titles). */
static const enum proc_field html_proc_cols[] = {
	PROCF_PID, PROCF_COMM, PROCF_REQ_READS, PROCF_REQ_WRITES, PROCF_REQ_READ_BYTES,
	PROCF_REQ_WRITE_BYTES, PROCF_CALL_READS, PROCF_CALL_WRITES, PROCF_CALL_READ_BYTES,
	PROCF_CALL_WRITE_BYTES, PROCF_DISK_READ_BYTES, PROCF_DISK_WRITE_BYTES, PROCF_OPENS,
};

/* One field of a process as a cell: bytes as "1.2 MB", text escaped. */
static void
html_proc_cell(FILE *f, const struct field *r, const struct field_ctx *x)
{
	char	 buf[BLKTOP_COMM_LEN > 16 ? BLKTOP_COMM_LEN : 16];
	int	 known;

	if (r->unit == FIELD_TEXT) {
		fmt_comm(buf, x->pe->comm);
		fprintf(f, "<td class=\"l\">");
		html_text(f, buf);
		fprintf(f, "</td>");
	} else if (r->unit == FIELD_ID)
		fprintf(f, "<td>%u</td>", (unsigned)field_value(r, x, &known));
	else if (r->bytes)
		fprintf(f, "<td>%sB</td>", html_trim(draw_fmt_bytes(buf, 16, field_count(r, x))));
	else
		fprintf(f, "<td>%llu</td>", (unsigned long long)field_count(r, x));
}

/* The processes of the whole run, by the sort key. */
void
report_tables_procs(struct html *h)
{
	const struct blktop	*b = h->b;
	const struct proc_entry	*pe[REPORT_TOP];
	const struct field	*r;
	struct field_ctx	 x = { .b = b, .ent = FIELD_PROC, .whole = 1 };
	FILE			*f = h->f;
	unsigned		 n, i, k;

	n = top_procs(b->procs, (enum proc_key)h->r->opts.sort_key, 1, pe, REPORT_TOP);
	fprintf(f, "<h2>Top processes</h2>\n<p class=\"dim\">The whole run, by %s. Block: "
	    "requests submitted; calls: read and write family calls; disk: bytes the device "
	    "moved on its behalf (page cache fills, writeback of what it dirtied, direct "
	    "I/O).</p>\n<table><tr>", field_key_name(h->r->opts.sort_key));
	for (k = 0; k < nitems(html_proc_cols); k++) {
		r = &proc_fields[html_proc_cols[k]];
		fprintf(f, "<th%s>%s</th>", r->unit == FIELD_TEXT ? " class=\"l\"" : "",
		    r->html);
	}
	fprintf(f, "</tr>\n");
	for (i = 0; i < n; i++) {
		x.pe = pe[i];
		x.c = proc_entry_counts(b->procs, pe[i], 1);
		fprintf(f, "<tr>");
		for (k = 0; k < nitems(html_proc_cols); k++)
			html_proc_cell(f, &proc_fields[html_proc_cols[k]], &x);
		fprintf(f, "</tr>\n");
	}
	fprintf(f, "</table>\n");
}

/* The report's files table: its columns after the path (file_fields' rows: their titles; their proc rows: the values). */
static const enum file_field_id html_file_cols[] = {
	FILEF_CALL_READS, FILEF_CALL_WRITES, FILEF_CALL_READ_BYTES, FILEF_CALL_WRITE_BYTES,
	FILEF_DISK_READ_BYTES, FILEF_DISK_WRITE_BYTES, FILEF_OPENS,
};

/* The files of the whole run, by the sort key. */
void
report_tables_files(struct html *h)
{
	const struct blktop	*b = h->b;
	const struct file_entry	*fe[REPORT_TOP];
	struct field_ctx	 x = { .b = b, .ent = FIELD_FILE, .whole = 1 };
	FILE			*f = h->f;
	char			 path[4096];
	unsigned		 n, i, k;

	n = top_files(b->procs, (enum proc_key)h->r->opts.sort_key, 1, fe, REPORT_TOP);
	fprintf(f, "<h2>Top files</h2>\n<table><tr><th class=\"l\">%s</th>",
	    file_field_html(FILEF_PATH));
	for (k = 0; k < nitems(html_file_cols); k++)
		fprintf(f, "<th>%s</th>", file_field_html(html_file_cols[k]));
	fprintf(f, "</tr>\n");
	for (i = 0; i < n; i++) {
		x.fe = fe[i];
		x.c = proc_file_counts(b->procs, fe[i], 1);
		fmt_file_name(b->procs, fe[i], path, sizeof path);
		fprintf(f, "<tr><td class=\"l path\">");
		html_text(f, path);
		fprintf(f, "</td>");
		for (k = 0; k < nitems(html_file_cols); k++)
			html_proc_cell(f, &proc_fields[file_fields[html_file_cols[k]].proc], &x);
		fprintf(f, "</tr>\n");
	}
	fprintf(f, "</table>\n");
}

/* Sum a file's size bins into the run's (top_each_file). */
static void
html_sum_hist(void *ctx, const struct file_entry *fe)
{
	uint64_t	*sum = ctx;
	unsigned	 d, i;

	for (d = 0; d < 2; d++)
		for (i = 0; i < PAT_BINS; i++)
			sum[d * PAT_BINS + i] += fe->pat.side[d].hist[i];
}

/*
 * Two cells: a file's bytes touched ("~" before them when gaps were joined:
 * an upper bound) and its reads' bytes over them ("2.00x"); "-" without a
 * read with an offset.
 */
static void
html_touched(FILE *f, const struct pat_touched *t)
{
	char b[32];

	if (t->bytes == 0) {
		fprintf(f, "<td>-</td><td>-</td>");
		return;
	}
	fprintf(f, "<td>%s%s</td><td>%.2fx</td>", t->over > 0 ? "~" : "",
	    html_trim(draw_fmt_bytes(b, sizeof b, t->bytes)), (double)t->read / (double)t->bytes);
}

/* "v (n), v (n)": the commonest values of t, sizes as bytes, strides (forward gaps) as numbers. */
static void
html_common(FILE *f, const struct pat_vals *t, int sizes)
{
	int64_t		 v[PAT_COMMON];
	uint64_t	 n[PAT_COMMON];
	unsigned	 i, k = pattern_common(t, v, n);
	char		 x[16];

	if (k == 0)
		fprintf(f, "-");
	for (i = 0; i < k; i++) {
		if (sizes)
			fprintf(f, "%s%sB&nbsp;(%llu)", i ? ", " : "",
			    html_trim(draw_fmt_bytes(x, sizeof x, (uint64_t)v[i])),
			    (unsigned long long)n[i]);
		else
			fprintf(f, "%s%lld&nbsp;(%llu)", i ? ", " : "", (long long)v[i],
			    (unsigned long long)n[i]);
	}
}

/*
 * Darshan's job summary, from the kernel: the access sizes of every file's
 * calls (its POSIX access size histogram), the access pattern and common
 * sizes of the busiest files, and the insights with their rules.
 */
void
report_tables_pattern(struct html *h)
{
	const struct blktop	*b = h->b;
	const struct file_entry	*fe[REPORT_TOP];
	uint64_t		 sum[2 * PAT_BINS] = { 0 }, max = 1;
	struct pat_sum		 ps;
	FILE			*f = h->f;
	char			 path[4096], rc[8], wc[8];
	unsigned		 n, i, d, bar;

	if (!(b->have & HAVE_VFS))
		return;
	top_each_file(b->procs, html_sum_hist, sum);
	for (i = 0; i < 2 * PAT_BINS; i++)
		if (sum[i] > max)
			max = sum[i];
	html_colour(h->r, THEME_READ, "#5fafd7", rc);
	html_colour(h->r, THEME_WRITE, "#ffaf5f", wc);
	fprintf(f, "<h2>Access sizes</h2>\n<p class=\"dim\">Read and write calls of every "
	    "file by the bytes each moved, in Darshan's bins (a bin holds its upper edge), "
	    "whoever made them: the process's own calls, libaio and io_uring, sendfile, "
	    "splice and copy_file_range.</p>\n<table class=\"sizes\"><tr><th class=\"l\">"
	    "size</th><th>reads</th><th>writes</th><th class=\"l\"></th></tr>\n");
	for (i = 0; i < PAT_BINS; i++) {
		fprintf(f, "<tr><td class=\"l\">%s</td><td>%llu</td><td>%llu</td><td class=\"l\">",
		    pattern_bin_name(i), (unsigned long long)sum[i],
		    (unsigned long long)sum[PAT_BINS + i]);
		/* Reads over writes, one bar each, to the largest bin's length. */
		fprintf(f, "<svg class=\"bar\" xmlns=\"http://www.w3.org/2000/svg\" width=\"300\" "
		    "height=\"12\">");
		for (d = 0; d < 2; d++) {
			bar = (unsigned)(300.0 * (double)sum[d * PAT_BINS + i] / (double)max);
			fprintf(f, "<rect y=\"%u\" width=\"%u\" height=\"6\" fill=\"%s\"/>", d * 6,
			    bar, d ? wc : rc);
		}
		fprintf(f, "</svg></td></tr>\n");
	}
	fprintf(f, "</table>\n");

	n = top_files(b->procs, (enum proc_key)h->r->opts.sort_key, 1, fe, REPORT_TOP);
	fprintf(f, "<h2>Access pattern</h2>\n<p class=\"dim\">The busiest files: of their "
	    "calls with an offset, judged against the previous call of the same process, open and "
	    "direction (doc/json.md, Access pattern), those that were sequential (started "
	    "at or after its end) and consecutive (right at it); the commonest sizes and "
	    "strides; the bytes its reads touched (the union of their ranges) and how many "
	    "times over they read them; the processes that used the file.</p>\n<table><tr>"
	    "<th class=\"l\">file</th><th>calls</th><th>sequential</th><th>consecutive</th>"
	    "<th>switches</th><th>touched</th><th>read over touched</th>"
	    "<th class=\"l\">common sizes</th><th class=\"l\">common strides</th><th>procs"
	    "</th></tr>\n");
	for (i = 0; i < n; i++) {
		const struct pattern *p = &fe[i]->pat;

		pattern_sum(p, &ps);
		fmt_file_name(b->procs, fe[i], path, sizeof path);
		fprintf(f, "<tr><td class=\"l path\">");
		html_text(f, path);
		fprintf(f, "</td><td>%llu</td>", (unsigned long long)(p->side[0].accesses +
		    p->side[1].accesses));
		if (ps.judged > 0)
			fprintf(f, "<td>%.0f%%</td><td>%.0f%%</td>", 100.0 * (double)ps.seq /
			    (double)ps.judged, 100.0 * (double)ps.consec / (double)ps.judged);
		else
			fprintf(f, "<td>-</td><td>-</td>");
		fprintf(f, "<td>%llu</td>", (unsigned long long)p->switches);
		html_touched(f, &fe[i]->touched);
		fprintf(f, "<td class=\"l\">");
		html_common(f, &p->sizes, 1);
		fprintf(f, "</td><td class=\"l\">");
		html_common(f, &p->strides, 0);
		fprintf(f, "</td><td>%u%s</td></tr>\n", fe[i]->npids, fe[i]->pids_more ? "+" : "");
	}
	fprintf(f, "</table>\n");
}

/* The insights of the run: every device's, and with calls traced every file's and process's. */
void
report_tables_insights(struct html *h)
{
	const struct blktop	*b = h->b;
	struct insight		 in[INSIGHT_MAX];
	FILE			*f = h->f;
	char			 path[4096], fig[160], rule[200];
	uint64_t		 more;
	unsigned		 n, i;

	n = insight_scan(b, in, INSIGHT_MAX, &more);
	fprintf(f, "<h2>Insights</h2>\n<p class=\"dim\">What the rules of doc/insights.md "
	    "found over every device, file and process of the run, highest level first; each with "
	    "what it measured and the rule it applied.</p>\n");
	if (n == 0) {
		fprintf(f, "<p class=\"insights-none\">No rule fired.</p>\n");
		return;
	}
	fprintf(f, "<table class=\"insights\"><tr><th class=\"l\">level</th><th class=\"l\">"
	    "code</th><th class=\"l\">subject</th><th class=\"l\">measured</th>"
	    "<th class=\"l\">rule</th><th class=\"l\">recommendation</th></tr>\n");
	for (i = 0; i < n; i++) {
		const struct insight_rule *ru = in[i].rule;

		ru->text(&b->opt.insight, &in[i], fig, sizeof fig, rule, sizeof rule);
		fprintf(f, "<tr class=\"insight\"><td class=\"l\">%s</td><td class=\"l\">%s</td>"
		    "<td class=\"l path\">", insight_level_name(ru->level), ru->code);
		fmt_insight_name(b->procs, &in[i], path, sizeof path);
		html_text(f, path);
		fprintf(f, "</td><td class=\"l\">");
		html_text(f, fig);
		fprintf(f, "</td><td class=\"l\">");
		html_text(f, rule);
		fprintf(f, "</td><td class=\"l\">");
		html_text(f, ru->advice);
		fprintf(f, "</td></tr>\n");
	}
	if (more > 0)
		fprintf(f, "<tr><td class=\"l\" colspan=\"6\">and %llu more</td></tr>\n",
		    (unsigned long long)more);
	fprintf(f, "</table>\n");
}

/* Order timeline files by bytes, most first. */
static int
html_cmp_files(const void *a, const void *b)
{
	const struct report_file *x = *(const struct report_file *const *)a;
	const struct report_file *y = *(const struct report_file *const *)b;

	return (x->total < y->total ? 1 : x->total > y->total ? -1 : 0);
}

/* When the busiest files were read (upper half of a lane) and written (lower half). */
void
report_tables_timeline(struct html *h)
{
	const struct report	*r = h->r;
	const struct report_file *fl[REPORT_FILES];
	FILE			*f = h->f;
	uint64_t		 max = 0, v;
	char			 rc[8], wc[8];
	unsigned		 i, k, j, n = r->nfiles < REPORT_TOP ? r->nfiles : REPORT_TOP;
	unsigned		 lh = HTML_LANE_H;

	for (i = 0; i < r->nfiles; i++)
		fl[i] = &r->files[i];
	qsort(fl, r->nfiles, sizeof *fl, html_cmp_files);
	for (i = 0; i < n; i++)
		for (k = 0; k < 2 * r->ncols; k++)
			if (fl[i]->rw[k] > max)
				max = fl[i]->rw[k];
	html_colour(r, THEME_READ, "#5fafd7", rc);
	html_colour(r, THEME_WRITE, "#ffaf5f", wc);
	fprintf(f, "<h2>When the busiest files were read and written</h2>\n<p class=\"dim\">"
	    "Each lane a file, sampled every report interval from its %d busiest files; "
	    "<span class=\"k\" style=\"background:%s\"></span>read (upper half) "
	    "<span class=\"k\" style=\"background:%s\"></span>written (lower half): bytes by "
	    "calls, or by the disk where that is more; opacity on a log scale.</p>\n",
	    REPORT_TOP, rc, wc);
	if (n == 0) {
		fprintf(f, "<p>No file activity was seen.</p>\n");
		return;
	}
	fprintf(f, "<table>\n");
	for (i = 0; i < n; i++) {
		fprintf(f, "<tr><td class=\"l path\">");
		html_text(f, fl[i]->path);
		fprintf(f, "</td><td class=\"l\"><svg class=\"lane\" xmlns=\"http://www.w3.org/2000/svg\" "
		    "width=\"%u\" height=\"%u\"><rect width=\"%u\" height=\"%u\" fill=\"none\" "
		    "stroke=\"%s\"/>", h->pw, lh, h->pw, lh, h->grid);
		for (j = 0; j < r->ncols; j++) {
			for (k = 0; k < 2; k++) {
				if ((v = fl[i]->rw[2 * j + k]) == 0)
					continue;
				fprintf(f, "<rect x=\"%u\" y=\"%u\" width=\"%u\" height=\"%u\" "
				    "fill=\"%s\" fill-opacity=\"%.2f\"/>", j * h->cw, k * lh / 2,
				    h->cw, lh / 2, k ? wc : rc,
				    0.2 + 0.8 * draw_heat_level(v, max) / (THEME_LEVELS - 1));
			}
		}
		fprintf(f, "</svg></td></tr>\n");
	}
	fprintf(f, "</table>\n");
}

