/* job.h: the process tree (model-task.c) and jobs, the processes grouped by it (model-job.c, json-job.c). */
#ifndef JOB_H
#define JOB_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "blktop-abi.h"

struct blktop;
struct ev_task;
struct proc_entry;
struct proc_table;

#define TASK_MAX	32768	/* processes the tree remembers; the least recently seen go first */
#define JOB_MAX_PIDS	8	/* --job PID given at most this often */
#define JOB_MAX_DEPTH	64	/* ancestors walked up from a process */

/* model-task.c: (host, tgid) -> (parent, comm, start), bounded; ids as PROC_ID_OF's. */
struct task_table;
struct task_table *task_create(unsigned max);
size_t		 task_mem_bound(unsigned max);
void		 task_free(struct task_table *);
const struct task_table *proc_tasks(const struct proc_table *);	/* model-proc.c */
void		 task_add(struct task_table *, const struct ev_task *, int host);
int		 task_find(const struct task_table *, uint32_t tgid, uint32_t *ppid,
		     const char **comm);
void		 task_stats(const struct task_table *, unsigned *n, unsigned *max,
		     uint64_t *evicted);
int		 task_is_boundary(const char *comm);
uint32_t	 task_job_root(const struct task_table *, uint32_t tgid, const uint32_t *picked,
		     unsigned npicked);

/* model-job.c: the processes of the table grouped into jobs, at a report. */
struct job {
	uint32_t		 root;		/* the job's top process: its id (PROC_ID_OF) */
	int			 host;		/* its host in a run of several, else HOST_NONE */
	char			 comm[BLKTOP_COMM_LEN];
	unsigned		 first, n;	/* its members: jobs_of's members[first..first + n) */
	uint64_t		 bytes;		/* the order: bytes of calls and on disk */
};
struct jobs {
	struct job		*jobs;
	const struct proc_entry	**members;	/* by job, each job's by pid */
	unsigned		 njobs, nmembers;
};
int		 jobs_of(const struct blktop *, int whole, struct jobs *);
/* json-job.c: a job's or a member's figures: what the calls and the device moved, how long, the cache's share. */
struct job_figs {
	struct proc_counts	 c;
	struct proc_hist	 call, req;
};
void		 job_figs_add(struct job_figs *, const struct blktop *, const struct proc_entry *,
		     int whole);
void		 jobs_free(struct jobs *);

/* json.c: {"p50":..,"p99":..,"min":..,"max":..} of a histogram, us, or null. */
struct proc_hist;
void		 json_pcts(FILE *, const struct proc_hist *);

/* json-job.c: ,"jobs":[...] of -J and the report; -b's block. */
void		 json_jobs(FILE *, const struct blktop *, int whole, unsigned top);
void		 json_jobs_tree(FILE *, const struct blktop *);
void		 json_job_batch(FILE *, const struct blktop *, unsigned top);

#endif
