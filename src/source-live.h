/*
 * source-live.h: the live source's parts (source-live-*.c, source-cost.c),
 * for them, main.c (--probe, --hooks, privileges) and their tests;
 * sources.h (or blktop.h) first. The live source's entry and what other
 * sources share (struct hook_plan, struct prog_cost) are in sources.h.
 */
#ifndef BLKTOP_SOURCE_LIVE_H
#define BLKTOP_SOURCE_LIVE_H

/* source-cost.c: the kernel's run time of BPF programs, and the per-CPU batches' flush. */
struct bpf_object;
void		 cost_add_object(struct bpf_object *, struct prog_cost *);
int		 cost_enable(void);
uint64_t	 cost_percpu_sum(int map_fd, uint32_t key);
int		 cost_read_error(uint64_t *nfailp);
#define BATCH_CTL_CPUS	1024	/* more possible CPUs than this: no batches */
struct cost_batch {
	int		 prog_fd;	/* the object's never-attached flush program */
	int		 ts_fd;		/* its batch_ts map */
	uint64_t	 age_ns;
	int		 ncpus;		/* 0: batches off */
};
int		 cost_batch_start(struct cost_batch *, int prog_fd, int ts_fd, uint64_t age_ns);
void		 cost_batch_flush(struct cost_batch *, int force);

/* source-diskstat.c: each whole disk's part_stat, sampled per tick (EV_DISKSTAT). */
#define DISKSTAT_HASH_BITS	10
#define DISKSTAT_HASH		(1u << DISKSTAT_HASH_BITS)
struct diskstat {
	int		 fd;		/* /proc/diskstats, 0 or -1: not sampled */
	char		*buf;
	uint64_t	 ts;		/* of the read in buf */
	int		 pending;	/* buf is read and not yet streamed */
	struct {
		uint32_t dev;
		uint8_t	 known, part;
	}		 kind[DISKSTAT_HASH];	/* whether a dev_t is a partition */
};
int		 diskstat_open(struct diskstat *);
void		 diskstat_close(struct diskstat *);
void		 diskstat_read(struct diskstat *, uint64_t ts);
void		 diskstat_emit(struct diskstat *, struct blktop *);
void		 diskstat_sample(struct diskstat *, struct blktop *, uint64_t ts);

/* source-live-plan.c: the block hooks this kernel offers, the plan chosen from them. */
struct blktop_bpf;
struct blktop_bpf *live_open(void);
void		 live_set_autoload(struct blktop_bpf *, const struct hook_plan *);
int		 live_choose(struct hook_plan *, char **errp);
void		 live_plan_text(const struct hook_plan *, char *, size_t);

/* source-live-kio.c: direct async calls named at their block requests (bpf/blk-kio.h), or why not. */
const char	*live_kio_why_not(const struct blktop *, const struct hook_plan *);
void		 live_kio_prepare(struct blktop_bpf *, const struct blktop *, uint32_t self_tgid);
void		 live_kio_probe(const struct blktop *, const struct hook_plan *, FILE *);

/* source-live-probe.c: tracepoints this kernel has, tracefs, the BPF build it takes. */
struct btf;
int		 live_probe_tp_btf(const struct btf *, const char *tp);
struct block_bits {
	unsigned	 rqf_flush_seq;	/* RQF_FLUSH_SEQ of rq_flags */
	unsigned	 bio_pinned;	/* BIO_PAGE_PINNED of bi_flags, 0 if none */
	unsigned	 rqf_io_stat;	/* RQF_IO_STAT of rq_flags */
	unsigned	 queue_flag_stats;	/* bit number of QUEUE_FLAG_STATS in queue_flags */
	unsigned	 blk_feat_io_stat;	/* BLK_FEAT_IO_STAT of queue_limits.features, 0 if none */
};
void		 live_probe_block_bits(const struct btf *, struct block_bits *);
void		 live_probe_stamps(FILE *, const struct block_bits *, int io_start);
int		 live_probe_tp_classic(const char *group, const char *name);
const char	*live_probe_tracefs(void);
void		 live_probe_mount_tracefs(int verbose);
int		 live_probe_compat(const char **why);
struct bpf_object_skeleton;
int		 live_probe_open_skeleton(struct bpf_object_skeleton *, const void *, size_t);
void		 live_probe_forget_elf(const void *, size_t);

/* source-live-vfs.c: per-process opens and reads/writes from bpf/vfs.bpf.c. */
enum live_vfs_hook_id {		/* in order of preference */
	VFS_HOOK_TRACEPOINT,	/* needs tracefs mounted */
	VFS_HOOK_TP_BTF,
	VFS_HOOK_RAW_TP,
	VFS_HOOK_FENTRY,
	VFS_HOOK_MAX
};
struct live_vfs_opts {
	const uint32_t		*tgids;		/* -p: processes (tgid) to trace */
	unsigned		 ntgids;
	const char * const	*comms;		/* -c: command names to trace */
	unsigned		 ncomms;
	uint64_t		 cgroup;	/* --cgroup: cgroup v2 id, 0 for all */
	int			 all_files;	/* also pipes, sockets, char devices... */
	int			 no_open;	/* leave opens out */
	int			 no_rw;		/* leave reads/writes out */
	int			 no_pages;	/* leave the page-cache hooks out */
	const char		*hook;		/* variant name; NULL: $BLKTOP_VFS_HOOK, else probe */
	int			 debug;		/* libbpf messages to stderr ($BLKTOP_DEBUG too) */
	uint64_t		 wakeup_ns;	/* 0: wake the reader per record; else at most
						   once per wakeup_ns (reader drains on a timer) */
	uint64_t		 batch_age_ns;	/* a CPU's batch of records waits this long at most
						   (and a drain after it; 0: no batches) */
};
void		 live_vfs_probe(FILE *);
int		 live_vfs_load(int events_fd, int counters_fd, const struct live_vfs_opts *,
		     char **errp);
const char	*live_vfs_hook(void);
int		 live_vfs_set_kio(int on);
#define VFS_PAGES_DIRTY	0x1		/* writeback:writeback_dirty_folio: ev_page PAGE_DIRTY */
#define VFS_PAGES_FAULT	0x2		/* filemap:mm_filemap_fault: ev_page PAGE_FAULT */
#define VFS_PAGES_URING	0x4		/* io_uring:io_uring_submit_req + io_uring_complete: ev_rw */
#define VFS_PAGES_AIO	0x8		/* syscalls:*io_submit, *io_(p)getevents: ev_rw */
#define VFS_PAGES_NAMES	0x10		/* syscalls:sys_exit_rename*, unlink*: a path sent once per open file */
#define VFS_PAGES_THROTTLE 0x20		/* writeback:balance_dirty_pages: ev_throttle */
#define VFS_PAGES_TASK	0x40		/* sched:sched_process_fork + sched_process_exec: ev_task */
unsigned	 live_vfs_pages_loaded(void);
int		 live_vfs_have_munmap(void);
int		 live_vfs_hook_lookup(const char *);
const char	*live_vfs_hook_name(int);
uint64_t	 live_vfs_inflight_full(void);
void		 live_vfs_batch_flush(int);
void		 live_vfs_cost(struct prog_cost *);
void		 live_vfs_unload(void);
void		 live_vfs_halt(void);
void		 live_vfs_paths_stale(void);
struct bpf_object_skeleton *live_vfs_skeleton(void);
/* source-live-tasks.c: the processes running at start, as EV_TASK records. */
struct ev_task;
int		 live_tasks_parse(const char *line, struct ev_task *, uint64_t boot_to_mono, long hz);
unsigned	 live_tasks_scan(struct blktop *, uint64_t ts);

/* source-live-extras.c: the vfs object's extra programs (VFS_PAGES_* groups) this kernel takes. */
struct bpf_object;
struct bpf_program;
int		 live_extras_index(const struct bpf_program *);
void		 live_extras_select(struct bpf_object *, int want);
unsigned	 live_extras_planned(void);
void		 live_extras_clear(void);
void		 live_extras_probe(FILE *);
const char	*live_extras_why(unsigned);
void		 live_extras_refuse_env(void);
const char	*live_extras_refuse(const char *prog, const char *line);
/* source-live-paths.c: the path cache's user-space half. */
void		 live_paths_start(void);
int		 live_paths_on(void);
void		 live_paths_stop(void);
void		 live_paths_cost(struct prog_cost *);
const void	*live_paths_record(const void *, size_t *);

/* source-live-links.c: detach programs at once, or at exit without waiting. */
struct bpf_object_skeleton;
void		 live_links_destroy(struct bpf_object_skeleton *);
void		 live_links_leave(struct bpf_object_skeleton **, int);

#endif
