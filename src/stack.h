/* stack.h: --stack, the latency stack (MLPerf Storage's storage_latency_stack.bt's histograms and rules) from blktop's records. */
#ifndef BLKTOP_STACK_H
#define BLKTOP_STACK_H

/*
 * bpftrace's hist(): slot 0 below 0 (never used here), slot 1 the value 0,
 * slot 2 the value 1, slot k + 2 values in [2^k, 2^(k+1)).
 */
#define STACK_LOG2		66
/* lhist(v, 0, 8000, 10): slot 0 below 0, slots 1..800 each 10 wide, slot 801 from 8000 up. */
#define STACK_LBA_MAX		8000
#define STACK_LBA_STEP		10
#define STACK_LBA_SLOTS		(STACK_LBA_MAX / STACK_LBA_STEP + 2)
#define STACK_DEVS		64	/* devices with a stack of their own; more go to "all" only */
#define STACK_PROCS		256	/* processes with a stack of their own; more counted */
#define STACK_LAG_NS		1000000000ULL	/* a tick's sweep takes what started this much before it */
#define STACK_FAR		4.0	/* "A >> B": mean A at least this many times mean B */
#define STACK_MIN_SAMPLES	10	/* a rule is judged on at least this many samples of each side */

/* One power-of-2 histogram of whole units (us, KiB, requests), and the exact sum of the ns it came from. */
struct stack_hist {
	uint64_t	 b[STACK_LOG2];
	uint64_t	 n;
	double		 sum;		/* of the values in the hist's unit, before rounding down */
};

enum stack_dir { STACK_READ = 0, STACK_WRITE = 1, STACK_NDIRS = 2 };

/* The block layer's figures of one device, or of all ("all": dev 0). */
struct stack_dev {
	uint32_t	 dev;
	struct stack_hist q2d[STACK_NDIRS];	/* us: start (insert) to dispatch */
	struct stack_hist d2c[STACK_NDIRS];	/* us: dispatch to completion */
	struct stack_hist bs[STACK_NDIRS];	/* KiB: request size at dispatch */
	struct stack_hist qd[STACK_NDIRS];	/* requests of its direction in flight at dispatch, itself included */
	uint64_t	 lba[STACK_NDIRS][STACK_LBA_SLOTS];	/* GiB of the first sector, 10 GiB wide */
	uint64_t	 lba_n[STACK_NDIRS];
};

/* The call figures of one process, or of all kept ("all": tgid 0); of its host in a run of several. */
struct stack_proc {
	uint32_t	 tgid;
	int		 host;		/* host.h's; HOST_NONE in a run of one */
	char		 comm[BLKTOP_COMM_LEN];
	struct stack_hist vfs[STACK_NDIRS];	/* us: read and write family calls, entry to exit */
	struct stack_hist fsync;		/* us: fsync() (not fdatasync), entry to exit */
	struct stack_hist wgap;			/* us: a thread's last write() exit to its next fsync() entry */
	struct stack_hist dirty;		/* us: a file's first write() exit after its last fsync to the next fsync() entry */
	struct stack_hist q2d, d2c;		/* us: its block requests, both directions */
};

/* The fsync figures of one file (its host, filesystem and inode; the path its first fsync named). */
#define STACK_FILES		256	/* files with a stack of their own; more counted */
#define STACK_PATH		256	/* bytes of a file's path kept, NUL included */
struct stack_file {
	uint64_t	 ino;
	uint32_t	 fsdev;
	int		 host;		/* host.h's; HOST_NONE in a run of one */
	char		 path[STACK_PATH];
	struct stack_hist fsync, wgap, dirty;	/* as stack_proc's, of this file's fsyncs */
};

/* A block request waiting for its sweep (the depth at dispatch), or a write or fsync for the gap sweep. */
struct stack_req {
	uint64_t	 issue, done;
	uint32_t	 dev;
	uint8_t		 dir;
	uint8_t		 counted;	/* its depth is in the histograms */
	uint8_t		 di;		/* its device's place in struct stack's devs, STACK_NODEV if none */
};
#define STACK_NODEV	0xff
struct stack_call {
	uint64_t	 ts;		/* write: exit; fsync: entry */
	uint64_t	 ino;
	uint32_t	 fsdev, tid, tgid;
	int		 host;
	uint8_t		 fsync;
};

struct stack {
	struct stack_dev	 all;
	struct stack_dev	*devs[STACK_DEVS];
	unsigned		 ndevs;
	uint64_t		 devs_dropped;	/* requests of devices past STACK_DEVS (in "all" only) */
	struct stack_proc	 procs_all;
	struct stack_proc	*procs;		/* STACK_PROCS */
	unsigned		 nprocs;
	unsigned		 proc_last;	/* the last process found: calls come in runs of one process */
	uint64_t		 procs_dropped;	/* calls of processes past STACK_PROCS (in "all" only) */
	struct stack_file	*sfiles;	/* STACK_FILES */
	unsigned		 nsfiles;
	uint64_t		 files_dropped;	/* fsyncs of files past STACK_FILES (in "all" only) */
	struct stack_req	*reqs;		/* waiting for the depth sweep */
	size_t			 nreqs, capreqs;
	struct stack_call	*calls;		/* waiting for the gap sweep */
	size_t			 ncalls, capcalls;
	uint64_t		 cut;		/* swept up to here */
	uint64_t		 late;		/* requests and calls that came after their sweep */
	uint64_t		 over;		/* ... that found no room (STACK_WAIT_MAX): no depth, no gap */
	/* the gap sweep's state, small open-addressed tables */
	struct stack_last {
		uint64_t	 key;		/* tid, or fsdev << 40 ^ ino; 0: free */
		uint64_t	 ts;
	}			*tids, *files;
	uint64_t		 first_ts, last_ts;
	int			 host;		/* of the record being added (a run of several hosts) */
};
#define STACK_WAIT_MAX		(1u << 21)	/* requests or calls waiting for their sweep, at most */
#define STACK_LAST_SLOTS	8192		/* threads and files the gap sweep follows (power of two) */

/* model-stack.c */
struct stack	*stack_create(void);
void		 stack_free(struct stack *);
void		 stack_add(struct stack *, const struct rec_type *, const void *, size_t,
		     unsigned keep);
void		 stack_cut(struct stack *, uint64_t cut);
uint64_t	 stack_hist_slot_lo(unsigned slot);
double		 stack_hist_mean(const struct stack_hist *);

/* stack-out.c */
/* The four rules of a scope; a figure it does not have is NULL (its rules -1). */
struct stack_verdict {
	double		 q2d, d2c, vfs, fsync, wgap;
	uint64_t	 nq2d, nd2c, nvfs, nfsync, nwgap;
	int		 dev, sched, fs, app;
};
#define STACK_LINE	384	/* a verdict line, NUL included */
void		 stack_hist_label(char *, size_t, unsigned slot);
int		 stack_far(double a, uint64_t na, double b, uint64_t nb);
void		 stack_judge(struct stack_verdict *, const struct stack_hist *q2d,
		     const struct stack_hist *d2c, int pairs, const struct stack_proc *);
unsigned	 stack_verdict_lines(const char *scope, const struct stack_verdict *, int blk,
		     int calls, char lines[][STACK_LINE]);
void		 stack_file_line(char *, size_t, const struct stack_file *);
void		 stack_proc_name(char *, size_t, const struct stack_proc *);
void		 stack_file_name(char *, size_t, const struct stack_file *);

/* stack-scope.c: a scope's histograms as named columns (the UI's screen, the report's section). */
#define STACK_COLS	9
struct stack_col {
	const char		*name;	/* the UI's column */
	const char		*key;	/* -J's member in the scope's object */
	const struct stack_hist	*h;
};
unsigned	 stack_nscopes(const struct stack *);
unsigned	 stack_cols(const struct stack *, unsigned scope, int sizes, struct stack_col *);
void		 stack_scope_name(const struct stack *, unsigned scope, char *, size_t);
unsigned	 stack_scope_rules(const struct stack *, unsigned scope, char lines[][STACK_LINE]);
int		 stack_cols_span(const struct stack_col *, unsigned n, unsigned *first,
		     unsigned *last);

void		 stack_print_text(FILE *, const struct blktop *, const struct stack *);
void		 stack_json(FILE *, const struct blktop *, const struct stack *);

#endif
