/* model-job.c: the processes of the table grouped into jobs by the process tree, when a view asks. */
#include <stdlib.h>
#include <string.h>

#include "blktop.h"
#include "job.h"
#include "model.h"

/* A process and its job, to sort. */
struct job_pair {
	uint32_t		 root;
	const struct proc_entry	*pe;
};

/* By job, then by process id. */
static int
job_pair_cmp(const void *a, const void *b)
{
	const struct job_pair	*x = a, *y = b;

	if (x->root != y->root)
		return (x->root < y->root ? -1 : 1);
	return (x->pe->id < y->pe->id ? -1 : x->pe->id > y->pe->id);
}

/* Busiest job first (bytes of calls and on disk), then by root. */
static int
job_cmp(const void *a, const void *b)
{
	const struct job	*x = a, *y = b;

	if (x->bytes != y->bytes)
		return (x->bytes > y->bytes ? -1 : 1);
	return (x->root < y->root ? -1 : x->root > y->root);
}

/* What top_each hands: the pairs being collected. */
struct job_collect {
	const struct blktop	*b;
	const struct task_table	*tasks;
	struct job_pair		*pairs;
	unsigned		 n, max;
	int			 whole;
};

/* One process: its job, if it did anything in the interval (or the run, whole). */
static void
job_collect_one(void *ctx, const struct proc_entry *pe)
{
	struct job_collect	*c = ctx;
	uint32_t		 root;

	if (c->n == c->max || (!c->whole && pe->epoch != c->b->procs->epoch))
		return;
	root = task_job_root(c->tasks, PROC_ID_OF(pe->tgid, pe->host), c->b->opt.job_pids,
	    c->b->opt.njob_pids);
	if (root == 0)
		return;		/* in none of the --job trees */
	c->pairs[c->n].root = root;
	c->pairs[c->n].pe = pe;
	c->n++;
}

/*
 * The jobs of the processes in the table, busiest first, each with its
 * members by pid: of the interval's active processes, or of the whole run
 * (whole). In a run of several hosts a job is its host's, its members all
 * of that host. Allocates (at a report, not per event). Returns the jobs.
 */
int
jobs_of(const struct blktop *b, int whole, struct jobs *out)
{
	struct job_collect	 c = { .b = b, .whole = whole };
	struct proc_stats	 st;
	unsigned		 i, j;

	memset(out, 0, sizeof *out);
	if (b->procs == NULL)
		return (0);
	proc_stats(b->procs, &st);
	c.tasks = proc_tasks(b->procs);
	c.max = st.procs;
	c.pairs = xcalloc(c.max + 1, sizeof *c.pairs);
	top_each(b->procs, job_collect_one, &c);
	qsort(c.pairs, c.n, sizeof *c.pairs, job_pair_cmp);
	out->jobs = xcalloc(c.n + 1, sizeof *out->jobs);
	out->members = xcalloc(c.n + 1, sizeof *out->members);
	for (i = 0; i < c.n; i = j) {
		struct job		*jb = &out->jobs[out->njobs++];
		uint32_t		 ppid;
		const char		*comm;

		jb->root = c.pairs[i].root;
		jb->host = c.pairs[i].pe->host;	/* a root's host is its members' */
		jb->first = i;
		for (j = i; j < c.n && c.pairs[j].root == jb->root; j++) {
			const struct proc_counts *pc = proc_entry_counts(b->procs, c.pairs[j].pe, whole);

			out->members[j] = c.pairs[j].pe;
			jb->bytes += pc->vfs_bytes[0] + pc->vfs_bytes[1] + pc->disk_bytes[0] +
			    pc->disk_bytes[1] + pc->blk_bytes[0] + pc->blk_bytes[1];
		}
		jb->n = j - i;
		if (task_find(c.tasks, jb->root, &ppid, &comm))
			memcpy(jb->comm, comm, sizeof jb->comm);
		else if (PROC_ID_OF(out->members[i]->tgid, jb->host) == jb->root)
			memcpy(jb->comm, out->members[i]->comm, sizeof jb->comm);
		else
			strcpy(jb->comm, "?");
	}
	out->nmembers = c.n;
	free(c.pairs);
	qsort(out->jobs, out->njobs, sizeof *out->jobs, job_cmp);
	return ((int)out->njobs);
}

/* Free what jobs_of allocated. */
void
jobs_free(struct jobs *j)
{
	free(j->jobs);
	free(j->members);
	memset(j, 0, sizeof *j);
}
