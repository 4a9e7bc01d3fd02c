/* ui-pane-job.c: the processes pane grouped by job (key J): the rows folded by the process tree, a job opened to its members. */

#include <stdio.h>
#include <string.h>

#include "blktop.h"
#include "fields.h"
#include "host.h"
#include "job.h"
#include "ui.h"
#include "ui-proc.h"

/* Sum two sets of counters (a cgroup's or a job's rows), the latency figures the larger. */
void
ui_proc_row_fold(struct ui_proc_row *g, const struct ui_proc_row *r)
{
	const uint64_t	*a = (const uint64_t *)&r->c;
	uint64_t	*s = (uint64_t *)&g->c;
	size_t		 i;

	for (i = 0; i < sizeof r->c / sizeof(uint64_t); i++)
		s[i] += a[i];
	g->c.vfs_lat_max = g->c.vfs_lat_max > r->c.vfs_lat_max ? g->c.vfs_lat_max :
	    r->c.vfs_lat_max;
	if (r->blk_p50 > g->blk_p50)
		g->blk_p50 = r->blk_p50;
	if (r->blk_p99 > g->blk_p99)
		g->blk_p99 = r->blk_p99;
	if (r->vfs_p99 > g->vfs_p99)
		g->vfs_p99 = r->vfs_p99;
	g->tgid++;
}

/*
 * Grouped by job (model-job.c's rule, or --job): the process rows folded
 * into one per job, PID its root, COMMAND the root's name and "+N" the
 * other members shown; processes outside every --job tree left out. In a
 * run of several hosts a job is its host's (its id the root's with the
 * host's bits, HOST its host's). With a job open, its members' rows only.
 * The number of rows left.
 */
unsigned
ui_pane_job_group(struct ui_proc_row *rows, unsigned nrows, uint32_t open, const struct blktop *b)
{
	const struct task_table	*t = proc_tasks(b->procs);
	struct ui_proc_row	*g;
	unsigned		 n = 0, i, j;
	uint32_t		 ppid;
	const char		*comm;
	char			 name[BLKTOP_COMM_LEN];

	for (i = 0; i < nrows; i++) {
		uint32_t root = task_job_root(t, PROC_ID_OF(rows[i].tgid, (int)rows[i].host1 - 1),
		    b->opt.job_pids, b->opt.njob_pids);

		if (root == 0)
			continue;
		if (open != 0) {		/* one job opened: its members, a row each */
			if (root == open)
				rows[n++] = rows[i];
			continue;
		}
		for (j = 0; j < n && rows[j].id != root; j++)
			;
		if (j == n) {
			g = &rows[n++];
			if (j != i)
				*g = rows[i];
			g->tgid = 1;
			g->id = root;
			if (task_find(t, root, &ppid, &comm))
				snprintf(g->comm, sizeof g->comm, "%s", comm);
		} else
			ui_proc_row_fold(&rows[j], &rows[i]);
	}
	for (j = 0; j < n && open == 0; j++) {	/* the jobs: their shares, "+N" */
		g = &rows[j];
		g->hit = proc_cache_hit_pct(b->have, &g->c);
		if (g->tgid > 1) {	/* "+N": the others, the name cut to make room */
			size_t	 k = (size_t)snprintf(name, sizeof name, "+%u", g->tgid - 1);
			size_t	 at = strlen(g->comm);

			if (at + k > sizeof g->comm - 1)
				at = sizeof g->comm - 1 - k;
			memcpy(g->comm + at, name, k + 1);
		}
	}
	return (n);
}

/*
 * The job keys of the processes pane: J groups by job or back, Enter on a
 * job's row (sel_id, 0 none) opens it, Esc closes it. 1 if the key was one
 * of them.
 */
int
ui_pane_job_key(struct ui_state *u, struct ui_proc_jobs *j, enum ui_action a, uint32_t sel_id,
    int *by_cgroup)
{
	if (a == UI_BACK && j->open != 0) {
		j->open = 0;
		ui_status(u, "processes grouped by job; from the next interval");
		return (1);
	}
	if (a == UI_GROUP_JOB) {
		j->by_job = !j->by_job;
		j->open = 0;
		*by_cgroup = 0;
		ui_status(u, !(u->b->have & HAVE_TASK) ? "no process tree here (unavailable: "
		    "task), one row per process" : j->by_job ? "processes grouped by job "
		    "(J: one row per process); from the next interval" : "one row per process "
		    "(J: by job); from the next interval");
		return (1);
	}
	if (a == UI_ENTER && j->by_job && j->open == 0) {
		/* A job's row opens to its members (Esc: back to the jobs). */
		if (sel_id != 0) {
			int	 h = (int)(sel_id >> PROC_ID_HOST_SHIFT) - 1;	/* HOST_NONE: one host */
			char	 host[64];

			j->open = sel_id;
			ui_status(u, "job %s%s%u: its processes (Esc: the jobs); from the next "
			    "interval", h != HOST_NONE ? fmt_host(host, sizeof host, h) : "",
			    h != HOST_NONE ? ":" : "", PROC_ID_PID(sel_id));
		}
		return (1);
	}
	return (0);
}
