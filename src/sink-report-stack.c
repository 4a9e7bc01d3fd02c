/* sink-report-stack.c: the report's latency stack (--stack's histograms side by side, its rules) and its jobs table (job rows with their members). */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "blktop.h"
#include "draw.h"
#include "fields.h"
#include "host.h"
#include "job.h"
#include "report.h"
#include "stack.h"

#define HTML_STACK_SCOPES	24	/* scopes shown: all, then devices, processes, files as met */
#define HTML_STACK_BAR		60	/* pixels of a cell's bar at its column's largest count */

/* One block of histograms side by side: a row per bucket, a cell per column (its count and a bar), then n and mean. */
static void
html_stack_block(struct html *h, const char *unit, const struct stack_col *c, unsigned n)
{
	FILE		*f = h->f;
	uint64_t	 max[STACK_COLS];
	unsigned	 i, s, first, last;
	char		 l[48];

	if (n == 0)
		return;
	if (!stack_cols_span(c, n, &first, &last))
		first = last + 1;
	fprintf(f, "<table class=\"stack\"><tr><th class=\"l\">%s</th>", unit);
	for (i = 0; i < n; i++) {
		fprintf(f, "<th>");
		html_text(f, c[i].key);
		fprintf(f, "</th>");
		for (max[i] = 1, s = first; s <= last; s++)
			if (c[i].h->b[s] > max[i])
				max[i] = c[i].h->b[s];
	}
	fprintf(f, "</tr>\n");
	for (s = first; s <= last; s++) {
		stack_hist_label(l, sizeof l, s);
		fprintf(f, "<tr><td class=\"l\">%s</td>", l);
		for (i = 0; i < n; i++)
			fprintf(f, "<td><svg class=\"bar\" xmlns=\"http://www.w3.org/2000/svg\" "
			    "width=\"%d\" height=\"10\"><rect width=\"%u\" height=\"10\" fill=\"%s\"/>"
			    "</svg> %" PRIu64 "</td>", HTML_STACK_BAR,
			    (unsigned)((double)HTML_STACK_BAR * (double)c[i].h->b[s] / (double)max[i]),
			    h->fg, c[i].h->b[s]);
		fprintf(f, "</tr>\n");
	}
	fprintf(f, "<tr><td class=\"l\">n</td>");
	for (i = 0; i < n; i++)
		fprintf(f, "<td>%" PRIu64 "</td>", c[i].h->n);
	fprintf(f, "</tr>\n<tr><td class=\"l\">mean</td>");
	for (i = 0; i < n; i++) {
		if (c[i].h->n > 0)
			fprintf(f, "<td>%.3f</td>", stack_hist_mean(c[i].h));
		else
			fprintf(f, "<td>-</td>");
	}
	fprintf(f, "</tr>\n</table>\n");
}

/*
 * The latency stack of the whole run (-J's "stack" object with --stack):
 * all devices and processes, then each device, process and file the stack
 * met (HTML_STACK_SCOPES in all), each as its histograms side by side and
 * its rules as --stack prints them.
 */
void
report_stack_html(struct html *h)
{
	const struct stack	*st = h->b->stack;
	struct stack_col	 c[STACK_COLS];
	char			 name[STACK_PATH + 64], lines[4][STACK_LINE];
	unsigned		 s, i, n, ns;
	FILE			*f = h->f;

	if (st == NULL || st->last_ts == 0)
		return;
	ns = stack_nscopes(st);
	fprintf(f, "<h2>Latency stack</h2>\n<p class=\"dim\">MLPerf Storage's "
	    "storage_latency_stack.bt histograms (blktop --stack): Q2D a request's start to its "
	    "dispatch, D2C its dispatch to its completion, VFS the read and write family calls, "
	    "fsync, the gap from a thread's last write() to its fsync() and from a file's first "
	    "write() since its last fsync; in microseconds, bpftrace's power-of-2 buckets; then the "
	    "request sizes (KiB) and the depth at dispatch. Rules: A &gt;&gt; B when mean A is at "
	    "least %.0f times mean B, each of at least %d samples.%s</p>\n", STACK_FAR,
	    STACK_MIN_SAMPLES, ns > HTML_STACK_SCOPES ? " The first scopes only: -J's stack object "
	    "has them all." : "");
	for (s = 0; s < ns && s < HTML_STACK_SCOPES; s++) {
		stack_scope_name(st, s, name, sizeof name);
		fprintf(f, "<h3>");
		html_text(f, name);
		fprintf(f, "</h3>\n");
		html_stack_block(h, "us", c, stack_cols(st, s, 0, c));
		html_stack_block(h, "KiB | depth", c, stack_cols(st, s, 1, c));
		n = stack_scope_rules(st, s, lines);
		fprintf(f, "<pre class=\"rules\">");
		for (i = 0; i < n; i++) {
			html_text(f, lines[i]);
			fputc('\n', f);
		}
		fprintf(f, "</pre>\n");
	}
}

/* A job's or a member's cells: bytes (exact in the title), the cache hit share. */
static void
html_job_cells(FILE *f, const struct blktop *b, const struct job_figs *g)
{
	const uint64_t	 v[6] = { g->c.vfs_bytes[0], g->c.vfs_bytes[1], g->c.disk_bytes[0],
	    g->c.disk_bytes[1], g->c.blk_bytes[0], g->c.blk_bytes[1] };
	double		 hit = proc_cache_hit_pct(b->have, &g->c);
	char		 x[16];
	unsigned	 i;

	for (i = 0; i < 6; i++) {
		if (i < 2 && !(b->have & HAVE_VFS))
			fprintf(f, "<td>-</td>");
		else
			fprintf(f, "<td title=\"%" PRIu64 "\">%sB</td>", v[i],
			    html_trim(draw_fmt_bytes(x, sizeof x, v[i])));
	}
	if (hit >= 0)
		fprintf(f, "<td>%.1f%%</td></tr>\n", hit);
	else
		fprintf(f, "<td>-</td></tr>\n");
}

/*
 * The busiest jobs of the run (the report's JSON "jobs"): a row each, its
 * root, name (host:name in a run of several hosts), members and figures
 * summed, then a row per member.
 */
void
report_stack_jobs(struct html *h)
{
	const struct blktop	*b = h->b;
	struct jobs		 js;
	struct job_figs		 g;
	FILE			*f = h->f;
	char			 comm[BLKTOP_COMM_LEN * 4 + 1], host[64];
	unsigned		 i, m;

	if (!(b->have & HAVE_TASK))
		return;
	if (jobs_of(b, 1, &js) == 0) {
		jobs_free(&js);
		return;
	}
	fprintf(f, "<h2>Jobs</h2>\n<p class=\"dim\">Processes grouped by their tree (the ancestor "
	    "below the login shell or the service manager, or --job): each job's row, its figures "
	    "summed over its members, then a row per member. Calls: read and write family calls; "
	    "disk: the bytes the device moved on its behalf; requests: the block requests it "
	    "submitted; hit: the share of the bytes read by calls that the page cache served."
	    "</p>\n<table class=\"jobs\"><tr><th>job</th><th class=\"l\">command</th><th>pid</th>"
	    "<th>call read</th><th>call write</th><th>disk read</th><th>disk write</th>"
	    "<th>req read</th><th>req write</th><th>hit</th></tr>\n");
	for (i = 0; i < js.njobs && i < REPORT_TOP; i++) {
		const struct job *jb = &js.jobs[i];

		memset(&g, 0, sizeof g);
		for (m = 0; m < jb->n; m++)
			job_figs_add(&g, b, js.members[jb->first + m], 1);
		fmt_comm(comm, jb->comm);
		fprintf(f, "<tr class=\"job\"><td>%u</td><td class=\"l\">", PROC_ID_PID(jb->root));
		if (jb->host != HOST_NONE) {	/* a run of several hosts: the job is its host's */
			html_text(f, fmt_host(host, sizeof host, jb->host));
			fputc(':', f);
		}
		html_text(f, comm);
		fprintf(f, "</td><td>%u processes</td>", jb->n);
		html_job_cells(f, b, &g);
		for (m = 0; m < jb->n; m++) {
			const struct proc_entry *pe = js.members[jb->first + m];

			memset(&g, 0, sizeof g);
			job_figs_add(&g, b, pe, 1);
			fmt_comm(comm, pe->comm);
			fprintf(f, "<tr class=\"member\"><td></td><td class=\"l\">&nbsp;&nbsp;");
			html_text(f, comm);
			fprintf(f, "</td><td>%u</td>", PROC_ID_PID(pe->id));
			html_job_cells(f, b, &g);
		}
	}
	fprintf(f, "</table>\n");
	jobs_free(&js);
}
