/* ui-proc.h: the processes pane's rows, shared by ui-pane-proc.c and its job grouping, ui-pane-job.c. */
#ifndef BLKTOP_UI_PROC_H
#define BLKTOP_UI_PROC_H

/* One process (or, grouped, one cgroup or job) as it was over the last display interval. */
struct ui_proc_row {
	uint32_t		 id;		/* pid, or grouped: the row's index + 1 (a job: its root) */
	uint32_t		 tgid;		/* grouped: processes in the cgroup or job */
	uint64_t		 cgroup;
	char			 comm[BLKTOP_COMM_LEN];
	struct proc_counts	 c;
	uint64_t		 blk_p50;
	uint64_t		 blk_p99;
	uint64_t		 vfs_p99;
	double			 hit;		/* cache hit %, -1 if not known */
	uint64_t		 host1;		/* its host (host.h) + 1, 0: none (one host, a group) */
};

/* The pane's job grouping (key J). */
struct ui_proc_jobs {
	int		 by_job;	/* rows are jobs: PID the job's root */
	uint32_t	 open;		/* the job (root) opened by Enter, 0 none */
};

/* ui-pane-job.c */
void		 ui_proc_row_fold(struct ui_proc_row *, const struct ui_proc_row *);
unsigned	 ui_pane_job_group(struct ui_proc_row *, unsigned nrows, uint32_t open,
		     const struct blktop *);
int		 ui_pane_job_key(struct ui_state *, struct ui_proc_jobs *, enum ui_action,
		     uint32_t sel_id, int *by_cgroup);

#endif
