/* trace.h: --trace, the pool of kept events (sink-trace.c) and its JSON (sink-trace-json.c); blktop.h first. */
#ifndef BLKTOP_TRACE_H
#define BLKTOP_TRACE_H

/*
 * Each kept event is one fixed entry; its output is estimated as it is kept
 * (TRACE_COST_* plus its path) so that the file stays under --trace-max.
 * Past the bound the slowest requests are kept (a quarter of the bytes) and
 * a uniform sample of everything else: each event draws a random key, and
 * the events with the lowest keys stay, whatever order they came in.
 */
#define TRACE_PATHS		(1u << 17)	/* distinct paths named, at most */
#define TRACE_LABELS		(TRACE_PATHS / 8)	/* of them mark labels, at most (and 1/8 of the arena) */
#define TRACE_INODES		(1u << 18)	/* (dev, ino) -> path slots */
#define TRACE_THREADS		(1u << 16)	/* threads named, at most: slots of the table */
#define TRACE_DEVS		256		/* devices with tracks of their own */
#define TRACE_PROCS		4096		/* processes counted per tick: slots */
#define TRACE_PROC_COUNTERS	16		/* processes with counters per tick */
#define TRACE_DEV_PID		4194304u	/* pid_max's ceiling: device tracks above it */
/* Bytes of output, at most (measured: 835, 206, 329, 115 on average), paths apart. */
#define TRACE_COST_REQ		900		/* a request's three b/e pairs and its args */
#define TRACE_COST_CALL		220		/* an X slice with its args */
#define TRACE_COST_ASYNC	340		/* an async call's b/e pair */
#define TRACE_COST_INSTANT	160
#define TRACE_COST_DEVCNT	200		/* a device's counters of one tick */
#define TRACE_COST_PROCCNT	280		/* a process's counters of one tick */
#define TRACE_COST_THREAD	200		/* a thread's names */
#define TRACE_FRAME		(8192 + TRACE_DEVS * 256)	/* the head, the devices' names */
#define TRACE_MIN_COST		TRACE_COST_INSTANT

enum trace_kind { TR_REQ, TR_CALL, TR_ASYNC, TR_OPEN, TR_FOP, TR_LOST, TR_DEVCNT,
	TR_PROCCNT, TR_MARK, TR_REC, TR_KINDS };
#define TRACE_COST_MARK		420		/* a mark's instant and its phase's slice */

struct trace_ev {
	uint64_t	 ts;		/* stream ns: start (counters: the tick's end) */
	uint64_t	 dur;		/* ns */
	uint64_t	 mid;		/* requests: issued; counters: the tick's length */
	int64_t		 off;		/* requests: sector; calls: file offset, -1 unknown */
	uint64_t	 bytes;		/* done; counters: read bytes */
	uint64_t	 asked;		/* counters: write bytes */
	uint64_t	 seq;		/* requests and async calls: their id; counters: ios */
	uint64_t	 extra;		/* device counters: wait_sum; process: fill bytes */
	uint32_t	 pid, tgid;
	uint32_t	 dev;		/* requests: the disk; calls: the file system */
	uint32_t	 path;		/* path id + 1; 0: none */
	uint32_t	 prio;		/* the sampling key */
	uint32_t	 cost;		/* estimated bytes of output */
	int32_t		 error;
	uint16_t	 kind;		/* enum trace_kind */
	uint16_t	 op;		/* BLK_OP_*; FOP_*; devcnt: p99 device time's bucket */
	uint16_t	 sys;		/* enum blktop_vfs_sys */
	uint16_t	 fl;		/* requests: fclass; lost: kind */
	uint32_t	 p99_us;	/* device counters: p99 device time, us; async: done */
	uint32_t	 pad;
};

struct trace_thread {
	uint32_t	 tid, tgid;	/* tid 0: free */
	char		 comm[BLKTOP_COMM_LEN];
};

struct trace_proc {			/* one process in the open tick */
	uint32_t	 tgid;		/* 0: free */
	uint64_t	 rd, wr, fill;	/* fill: read bytes from the device (cache fills, O_DIRECT reads) */
};

struct trace_inode {
	uint64_t	 ino;		/* 0: free */
	uint32_t	 dev;
	uint32_t	 path : 24;	/* TRACE_PATHS fit */
	uint32_t	 host1 : 8;	/* its host + 1, 0: none (a run of one host); HOST_MAX fit */
};
/*
 * In a run of several hosts a process and thread of host h are tracks of
 * their own, its pid and tid with h + 1 above PROC_ID_HOST_SHIFT (as the
 * model's process ids; the devices' and hosts' pids stay below).
 */
#define TRACE_ID_PID(id)	PROC_ID_PID(id)

struct trace {
	struct trace_opts	 opts;
	struct blktop		*b;
	FILE			*f;
	uint64_t		 budget;	/* bytes of events, the file's bound less its frame */
	/* The pool: */
	struct trace_ev		*ev;
	uint32_t		 cap, fresh;	/* entries; from fresh up never used */
	uint32_t		*freel;		/* entries given back */
	uint32_t		 nfree;
	uint32_t		*slow;		/* a min-heap of requests by duration */
	uint32_t		 nslow;
	uint64_t		 slow_bytes;
	uint32_t		*fix;		/* counters and losses: always kept, in a quarter */
	uint32_t		 nfix;
	uint64_t		 fix_bytes;
	uint32_t		*samp;		/* a max-heap of the rest by key */
	uint32_t		 nsamp;
	uint64_t		 samp_bytes;
	uint64_t		 rng;
	uint64_t		 seen[TR_KINDS], dropped[TR_KINDS];
	uint64_t		 seq;
	/* Names: */
	char			*arena;		/* NUL-terminated paths */
	size_t			 arena_used, arena_cap;
	uint32_t		*path_off;	/* path id -> arena offset */
	uint32_t		*path_slot;	/* hash of the path -> id + 1 */
	uint32_t		 npaths;
	uint64_t		 paths_unnamed;	/* events whose path did not fit */
	uint32_t		 nlabels;	/* of the names, mark labels */
	size_t			 label_bytes;	/* their bytes in the arena */
	uint64_t		 labels_unnamed;	/* marks whose label was refused a name */
	struct trace_inode	*inodes;	/* (dev, ino) -> path */
	struct trace_thread	*threads;
	uint32_t		 nthreads;
	uint64_t		 name_bytes;	/* the threads' names, in the budget */
	uint64_t		 threads_unnamed;
	uint32_t		 devs[TRACE_DEVS];
	unsigned		 ndevs;
	uint64_t		 devs_dropped;	/* requests of devices past TRACE_DEVS */
	struct trace_proc	 procs[TRACE_PROCS];
	unsigned		 nprocs;
	uint32_t		 shown[TRACE_PROC_COUNTERS];	/* with counters last tick */
	unsigned		 nshown;
	uint64_t		 tick_start;
	uint64_t		 run_start;	/* the windows opened: the first phase's start */
	unsigned		 rec_seen;	/* blktop.rec_start.n taken */
	int			 written;
	int			 host;		/* of the record being added: HOST_NONE in a run of one */
	uint32_t		 hbits;		/* its (host + 1) << PROC_ID_HOST_SHIFT, 0 for none */
};

int		 trace_dev_find(const struct trace *, uint32_t dev);
/* trace-keep.c */
struct trace_ev	*trace_new(struct trace *, enum trace_kind, uint32_t *ep);
void		 trace_keep(struct trace *, uint32_t e);
void		 trace_json(FILE *, struct trace *, const struct blktop *, uint64_t dropped);

/* A path by its id + 1; NULL for 0. */
static inline const char *
trace_path_str(const struct trace *t, uint32_t id)
{
	return (id == 0 ? NULL : t->arena + t->path_off[id - 1]);
}

#endif
