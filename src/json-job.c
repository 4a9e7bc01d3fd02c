/* json-job.c: jobs (processes grouped by their tree) in -J, the report's JSON and -b. */
#include <stdio.h>
#include <string.h>

#include "blktop.h"
#include "fields.h"
#include "host.h"
#include "job.h"
#include "json-key.h"

/* Add a process's counters and interval histograms to f. */
void
job_figs_add(struct job_figs *f, const struct blktop *b, const struct proc_entry *pe, int whole)
{
	const struct proc_counts	*c = proc_entry_counts(b->procs, pe, whole);
	const struct proc_hist		*h[2];
	struct proc_hist		*to[2] = { &f->call, &f->req };
	const uint64_t			*from = (const uint64_t *)c;
	uint64_t			*sum = (uint64_t *)&f->c;
	unsigned			 i, k;

	_Static_assert(sizeof(struct proc_counts) % sizeof(uint64_t) == 0, "proc_counts");
	for (i = 0; i < sizeof(struct proc_counts) / sizeof(uint64_t); i++)
		sum[i] += from[i];
	f->c.vfs_lat_max -= c->vfs_lat_max;	/* a maximum, not a sum */
	if (c->vfs_lat_max > f->c.vfs_lat_max)
		f->c.vfs_lat_max = c->vfs_lat_max;
	f->c.blk_depth_max -= c->blk_depth_max;
	if (c->blk_depth_max > f->c.blk_depth_max)
		f->c.blk_depth_max = c->blk_depth_max;
	if (whole)
		return;		/* latencies are kept per interval only */
	h[0] = proc_entry_hist(b->procs, pe, 0);
	h[1] = proc_entry_hist(b->procs, pe, 1);
	for (k = 0; k < 2; k++) {
		if (h[k]->n == 0)
			continue;
		if (to[k]->n == 0 || h[k]->min < to[k]->min)
			to[k]->min = h[k]->min;
		if (h[k]->max > to[k]->max)
			to[k]->max = h[k]->max;
		to[k]->n += h[k]->n;
		for (i = 0; i < HIST_NBUCKETS; i++)
			to[k]->b[i] += h[k]->b[i];
	}
}

/* The field rows of a job's and a member's figures, in their order; the last two an interval's only. */
static const unsigned job_rows[] = {
	PROCF_CALL_READ_BYTES, PROCF_CALL_WRITE_BYTES, PROCF_DISK_READ_BYTES,
	PROCF_DISK_WRITE_BYTES, PROCF_REQ_READ_BYTES, PROCF_REQ_WRITE_BYTES, PROCF_CACHE_HIT,
	PROCF_CALL_LAT, PROCF_REQ_LAT,
};

/* ,"call_read_bytes":...: the figures by their field rows, null where the source cannot tell. */
static void
job_figs_json(FILE *f, const struct blktop *b, const struct job_figs *g, int whole)
{
	struct field_ctx	 x = { .b = b, .c = &g->c, .ent = FIELD_PROC, .whole = whole,
				     .hist = { &g->call, &g->req } };
	unsigned		 i;
	int			 first = 0;

	for (i = 0; i < sizeof job_rows / sizeof job_rows[0]; i++) {
		if (!whole || !(proc_fields[job_rows[i]].ents & FIELD_INTERVAL))
			field_json_one(f, &proc_fields[job_rows[i]], &x, &first);
	}
}

/* ,"tasks":N,...: the process tree's size and what it forgot for room; only where there is one. */
void
json_jobs_tree(FILE *f, const struct blktop *b)
{
	unsigned	 n, max;
	uint64_t	 evicted;

	if (!(b->have & HAVE_TASK) || b->procs == NULL)
		return;
	task_stats(proc_tasks(b->procs), &n, &max, &evicted);
	fprintf(f, ",\"tasks\":%u,\"max_tasks\":%u,\"tasks_evicted\":%llu", n, max,
	    (unsigned long long)evicted);
}

/*
 * ,"jobs":[...]: the top busiest jobs of the interval (or the run, whole),
 * each with its root, its members' pids, its figures summed and each
 * member's, its host in a run of several; null where the source has no
 * process tree (an older capture).
 */
void
json_jobs(FILE *f, const struct blktop *b, int whole, unsigned top)
{
	struct jobs		 js;
	struct job_figs		 g;
	struct field_ctx	 mx;
	unsigned		 i, m;
	int			 first;

	if (!(b->have & HAVE_TASK)) {
		fprintf(f, ",\"jobs\":null");
		return;
	}
	jobs_of(b, whole, &js);
	fprintf(f, ",\"jobs\":[");
	for (i = 0; i < js.njobs && i < top; i++) {
		const struct job *jb = &js.jobs[i];

		fprintf(f, "%s{\"root\":%u,\"%s\":", i ? "," : "", PROC_ID_PID(jb->root),
		    proc_fields[PROCF_COMM].key);
		name_json(f, jb->comm, BLKTOP_COMM_LEN);
		json_host(f, jb->host);		/* in a run of several hosts, as its members' */
		fprintf(f, "," JK(JK_PIDS) "[");
		for (m = 0; m < jb->n; m++)
			fprintf(f, "%s%u", m ? "," : "", PROC_ID_PID(js.members[jb->first + m]->id));
		fputc(']', f);
		memset(&g, 0, sizeof g);
		for (m = 0; m < jb->n; m++)
			job_figs_add(&g, b, js.members[jb->first + m], whole);
		job_figs_json(f, b, &g, whole);
		fprintf(f, ",\"members\":[");
		for (m = 0; m < jb->n; m++) {
			const struct proc_entry *pe = js.members[jb->first + m];

			mx = (struct field_ctx){ .b = b, .pe = pe, .ent = FIELD_PROC };
			first = 1;
			if (m > 0)
				fputc(',', f);
			field_json_one(f, &proc_fields[PROCF_PID], &mx, &first);
			field_json_one(f, &proc_fields[PROCF_COMM], &mx, &first);
			memset(&g, 0, sizeof g);
			job_figs_add(&g, b, pe, whole);
			job_figs_json(f, b, &g, whole);
			fputc('}', f);
		}
		fprintf(f, "]}");
	}
	fputc(']', f);
	jobs_free(&js);
}

/* -b: the top busiest jobs of the interval, a line each: root, (host,) members, bytes, latencies. */
void
json_job_batch(FILE *f, const struct blktop *b, unsigned top)
{
	struct jobs	 js;
	struct job_figs	 g;
	unsigned	 i, m;
	char		 comm[BLKTOP_COMM_LEN * 4 + 1], host[64];
	int		 hosts = host_count() > 1;	/* a HOST column, as the processes' */

	if (!(b->have & HAVE_TASK) || jobs_of(b, 0, &js) == 0) {
		if (b->have & HAVE_TASK)
			jobs_free(&js);
		return;
	}
	fprintf(f, "\n%8s %-16s ", "JOB", "COMM");
	if (hosts)
		fprintf(f, "%-12s ", "HOST");
	fprintf(f, "%5s %10s %10s %10s %10s %8s %8s %5s\n", "PROCS", "vfs_rd_B", "vfs_wr_B", "disk_rd_B", "disk_wr_B", "cp99_us", "rp99_us", "hit%");
	for (i = 0; i < js.njobs && i < top; i++) {
		const struct job	*jb = &js.jobs[i];
		double			 hit;

		memset(&g, 0, sizeof g);
		for (m = 0; m < jb->n; m++)
			job_figs_add(&g, b, js.members[jb->first + m], 0);
		hit = proc_cache_hit_pct(b->have, &g.c);
		fmt_comm(comm, jb->comm);
		fprintf(f, "%8u %-16s ", PROC_ID_PID(jb->root), comm);
		if (hosts)
			fprintf(f, "%-12s ", fmt_host(host, sizeof host, jb->host));
		fprintf(f, "%5u %10llu %10llu %10llu %10llu ", jb->n,
		    (unsigned long long)g.c.vfs_bytes[0], (unsigned long long)g.c.vfs_bytes[1],
		    (unsigned long long)g.c.disk_bytes[0], (unsigned long long)g.c.disk_bytes[1]);
		if (g.call.n)
			fprintf(f, "%8.0f ", proc_hist_pct(&g.call, 99) / 1e3);
		else
			fprintf(f, "%8s ", "-");
		if (g.req.n)
			fprintf(f, "%8.0f ", proc_hist_pct(&g.req, 99) / 1e3);
		else
			fprintf(f, "%8s ", "-");
		if (hit >= 0)
			fprintf(f, "%5.1f\n", hit);
		else
			fprintf(f, "%5s\n", "-");
	}
	jobs_free(&js);
}
