/* blktop-abi.h: event records shared by the BPF programs, the loader and the capture format. */
#ifndef BLKTOP_ABI_H
#define BLKTOP_ABI_H

/*
 * Fixed-width, 64-bit fields first, no implicit padding: these structs are the
 * ring buffer ABI and, re-encoded, the capture format. Every record starts
 * with a u32 type so the consumer can dispatch before trusting the size.
 */

#define BLKTOP_COMM_LEN		16

/* Filters both sides size their tables by: user space may ask at most these. */
#define FILTER_MAX_DEVS		16	/* -D devices the block programs filter on */
#define FILTER_MAX_COMMS	8	/* -c names the vfs programs filter on */
#define VFS_MAX_TGIDS		1024	/* -p processes in the vfs programs' table */

enum blktop_ev_type {
	EV_BLOCK = 1,		/* one block request, emitted at its final completion */
	EV_OPEN = 2,		/* reserved: open/openat/openat2 (per-process issue) */
	EV_RW = 3,		/* reserved: read/write family (per-process issue) */
	EV_PAGE = 4,		/* a page-cache page dirtied, or a file mapping faulted */
	EV_FOP = 5,		/* a file's lifecycle: mknod, unlink, rename, mkdir, rmdir, close, mmap, munmap */
	EV_BATCH = 6,		/* from the kernel only: path-less read/write records, together */
	EV_THROTTLE = 7,	/* a task that dirties pages paused by the kernel (balance_dirty_pages) */
	EV_BLK_KIO = 8,		/* from the kernel only, in a block batch: a request and its direct async call */
	EV_TASK = 9,		/* a process made (fork of a new thread group) or exec'd, or found running at start */
	EV_TICK = 16,		/* user space only: end of one window tick */
	EV_LOST = 17,		/* user space only: events the kernel could not reserve */
	EV_MARK = 18,		/* user space only: a mark (blktop --mark LABEL) */
	EV_DISKSTAT = 19,	/* user space only: one device's part_stat (/proc/diskstats), per tick */
	EV_MAX = 20,		/* user space: the size of the record-type table (src/rec-type.c) */
};

/* Portable operation codes (the kernel's REQ_OP_* numbers differ by version). */
enum blktop_op {
	BLK_OP_READ = 0,
	BLK_OP_WRITE = 1,
	BLK_OP_FLUSH = 2,
	BLK_OP_DISCARD = 3,
	BLK_OP_SECURE_ERASE = 4,
	BLK_OP_WRITE_ZEROES = 5,
	BLK_OP_OTHER = 6,
};

/* Portable request flags, as in the rwbs text of the block tracepoints. */
#define BLK_F_SYNC	(1u << 0)	/* S */
#define BLK_F_META	(1u << 1)	/* M */
#define BLK_F_FUA	(1u << 2)	/* F after the op */
#define BLK_F_PREFLUSH	(1u << 3)	/* F before the op */
#define BLK_F_RAHEAD	(1u << 4)	/* A */
#define BLK_F_NOSTART	(1u << 8)	/* no start hook saw it: ts_start == ts_issue */
#define BLK_F_REQUEUED	(1u << 9)	/* requeued at least once */
#define BLK_F_NOLAT	(1u << 10)	/* no latency known (imported issue-only log): not in latency stats */
#define BLK_F_UNSEEN	(1u << 11)	/* completion never seen; sent when the request was reused (with NOLAT) */
/*
 * The kernel side kept no device state for it: busy_ns and inflight are 0;
 * busy time, in-flight and queue time come from EV_DISKSTAT samples, the
 * depth it found from the requests' own times (src/model-depth.c). Records
 * without it (older captures) carry the kernel-side count and busy time.
 */
#define BLK_F_NODEVSTAT	(1u << 12)

/*
 * Block request times (ts_*, busy_ns) are multiples of TS_QUANTUM_NS: the
 * clock read itself costs about 70 ns, finer digits are noise.
 */
#define TS_QUANTUM_NS		32

struct ev_block {
	__u32 type;		/* EV_BLOCK */
	__u32 dev;		/* kernel dev_t of the whole disk: major << 20 | minor */
	__u64 ts_start;		/* CLOCK_MONOTONIC ns: request started (accounting start) */
	__u64 ts_issue;		/* issued to the driver (last issue if requeued) */
	__u64 ts_done;		/* final completion */
	__u64 sector;
	__u64 cgroup;		/* cgroup v2 id of the submitter */
	__u64 busy_ns;		/* device's cumulative busy time at ts_done; 0 with BLK_F_NODEVSTAT */
	__u32 bytes;		/* total bytes of the request */
	__u32 pid;		/* submitter thread id */
	__u32 tgid;		/* submitter process id */
	__s32 error;		/* negative errno, 0 on success */
	__u16 op;		/* enum blktop_op */
	__u16 flags;		/* BLK_F_* */
	__u32 inflight;		/* requests in flight on the device when this one started, itself
				 * included; 0 with BLK_F_NODEVSTAT (computed in user space) */
	char comm[BLKTOP_COMM_LEN];
	__u64 ino;		/* BLK_FC_FILE: inode number of the file whose pages it carries */
	__u32 fsdev;		/* BLK_FC_FILE: kernel dev_t of that file's filesystem */
	__u16 fclass;		/* enum blktop_fclass: whose pages the request carries */
	__u16 pad2;
};

/*
 * Whose pages a block request carries, from its first bio's first page. A
 * request merged from bios of two files is charged to the first one's.
 */
enum blktop_fclass {
	BLK_FC_NONE = 0,	/* no data pages (flush, discard), or not known (old capture, log) */
	BLK_FC_FILE = 1,	/* a file's page cache: read misses, readahead, mmap faults, writeback */
	BLK_FC_META = 2,	/* the block device's own cache: filesystem metadata, journal, buffered raw device I/O */
	BLK_FC_DIRECT = 3,	/* pages of no page cache: direct I/O (also io_uring, libaio), swap */
	BLK_FC_MAX = 4,
};

/*
 * One whole disk's own accounting (part_stat, as /proc/diskstats prints it),
 * read by the live source at the start and at every tick close, before the
 * EV_TICK. Cumulative since boot: the model takes deltas, as iostat does.
 */
struct ev_diskstat {
	__u32 type;		/* EV_DISKSTAT */
	__u32 dev;		/* kernel dev_t of the whole disk */
	__u64 ts;		/* CLOCK_MONOTONIC ns of the read */
	__u64 ios;		/* completed requests: reads + writes + discards + flushes */
	__u64 io_ticks_ms;	/* time with requests in flight (field 10, %util) */
	__u64 queue_ms;		/* time_in_queue (field 11: the requests' summed await, aqu-sz) */
	__u32 in_flight;	/* requests in flight at the read (field 9) */
	__u32 pad;
};

/* End of one tick of the rolling windows: written into the stream by the live source. */
struct ev_tick {
	__u32 type;		/* EV_TICK */
	__u32 pad;
	__u64 ts;		/* CLOCK_MONOTONIC ns at which the tick closed */
};

/*
 * Events the kernel failed to hand over since the previous EV_LOST, in the
 * units a user reconciles: block requests (ios + lost requests is what
 * /proc/diskstats counts), read/write calls, other records. Captures before
 * the kinds, and imported logs, have kind 0.
 */
enum blktop_lost_kind { LOST_RECORDS = 0, LOST_REQUESTS = 1, LOST_CALLS = 2, LOST_KINDS = 3 };
struct ev_lost {
	__u32 type;		/* EV_LOST */
	__u32 kind;		/* enum blktop_lost_kind: the unit of count */
	__u64 ts;
	__u64 count;
};

/*
 * A mark a user put into a live run (blktop --mark LABEL, or a datagram to
 * its socket: src/mark.c): it ends one phase of the run and starts the next.
 * The record is the header, label_len bytes of label and a NUL.
 */
#define MARK_LABEL_MAX		128	/* label bytes including the NUL */
struct ev_mark {
	__u32 type;		/* EV_MARK */
	__u32 pid;		/* the sender's process id, 0 if not known */
	__u64 ts;		/* CLOCK_MONOTONIC ns at which blktop took it */
	__u32 uid;		/* the sender's user id */
	__u16 label_len;	/* bytes in label, NUL excluded; < MARK_LABEL_MAX */
	__u16 pad;
	char label[];		/* label_len bytes, then a NUL */
};
#define EV_MARK_SIZE(len)	(sizeof(struct ev_mark) + (len) + 1)

/*
 * VFS events (bpf/vfs.bpf.c). Each carries its file's path inline: a record is
 * the fixed header, path_len path bytes and a NUL, so its size varies; use
 * EV_OPEN_SIZE/EV_RW_SIZE and check path_len against the record size. A path
 * is absolute (relative to the process's root), resolved from the struct file
 * the kernel returned, never a basename; a failed open carries the string as
 * passed, joined to the cwd or dirfd path if relative (VFS_PF_AS_PASSED).
 * Inline paths keep every record self-contained: a capture started at any
 * moment, or a lost record, never leaves events pointing at unknown paths.
 */
#define VFS_PATH_MAX		4096	/* path bytes including the NUL */

/* Portable system call ids (syscall numbers differ by architecture). */
enum blktop_vfs_sys {
	VFS_SYS_OPEN = 0,
	VFS_SYS_CREAT = 1,
	VFS_SYS_OPENAT = 2,
	VFS_SYS_OPENAT2 = 3,
	VFS_SYS_READ = 4,
	VFS_SYS_WRITE = 5,
	VFS_SYS_PREAD64 = 6,
	VFS_SYS_PWRITE64 = 7,
	VFS_SYS_READV = 8,
	VFS_SYS_WRITEV = 9,
	VFS_SYS_PREADV = 10,
	VFS_SYS_PWRITEV = 11,
	VFS_SYS_PREADV2 = 12,
	VFS_SYS_PWRITEV2 = 13,
	VFS_SYS_VFS_READ = 14,		/* fentry variant: vfs_read() */
	VFS_SYS_VFS_WRITE = 15,		/* fentry variant: vfs_write() */
	VFS_SYS_FILP_OPEN = 16,		/* fentry variant: do_filp_open() */
	VFS_SYS_URING_READ = 17,	/* io_uring read, readv, read_fixed: submission to completion */
	VFS_SYS_URING_WRITE = 18,	/* io_uring write, writev, write_fixed */
	VFS_SYS_AIO_READ = 19,		/* libaio pread/preadv: io_submit to the io_getevents that reaped it */
	VFS_SYS_AIO_WRITE = 20,		/* libaio pwrite/pwritev */
	VFS_SYS_CLOSE = 21,		/* the rest: struct ev_fop */
	VFS_SYS_UNLINK = 22,
	VFS_SYS_UNLINKAT = 23,		/* with AT_REMOVEDIR: FOP_RMDIR */
	VFS_SYS_RENAME = 24,
	VFS_SYS_RENAMEAT = 25,
	VFS_SYS_RENAMEAT2 = 26,
	VFS_SYS_MKDIR = 27,
	VFS_SYS_MKDIRAT = 28,
	VFS_SYS_RMDIR = 29,
	VFS_SYS_MKNOD = 30,
	VFS_SYS_MKNODAT = 31,
	VFS_SYS_MMAP = 32,
	VFS_SYS_MUNMAP = 33,
	/*
	 * Calls that move bytes from one file to another in the kernel: two
	 * ev_rw records per call, both with the bytes the call returned, a
	 * BLK_OP_READ of the file bytes came from and a BLK_OP_WRITE of the
	 * file they went to (each where that file is traced).
	 */
	VFS_SYS_SENDFILE = 34,		/* sendfile(out_fd, in_fd, ...): the read of in_fd, the write of out_fd */
	VFS_SYS_SPLICE = 35,		/* splice(fd_in, .., fd_out, ..): one side is a pipe */
	VFS_SYS_COPY_FILE_RANGE = 36,	/* copy_file_range(fd_in, .., fd_out, ..) */
	VFS_SYS_FSYNC = 37,		/* struct ev_fop, FOP_FSYNC */
	VFS_SYS_FDATASYNC = 38,
	VFS_SYS_TRUNCATE = 39,		/* struct ev_fop, FOP_TRUNCATE: by name */
	VFS_SYS_FTRUNCATE = 40,		/* FOP_TRUNCATE: of the fd's file */
	VFS_SYS_MAX = 41,
};

/* File types, from the inode's i_mode. */
enum blktop_vfs_ftype {
	VFS_FT_OTHER = 0,		/* anon inodes, unknown */
	VFS_FT_REG = 1,
	VFS_FT_BLK = 2,
	VFS_FT_CHR = 3,
	VFS_FT_FIFO = 4,
	VFS_FT_SOCK = 5,
	VFS_FT_DIR = 6,
	VFS_FT_LNK = 7,
	VFS_FT_NONE = 8,		/* no file: failed open, or fd closed meanwhile */
};

/* Path flags. */
#define VFS_PF_TRUNC		(1u << 0)	/* too deep/long: leading part cut (failed open: tail) */
#define VFS_PF_AS_PASSED	(1u << 1)	/* the string as passed, not resolved */
#define VFS_PF_DELETED		(1u << 2)	/* file unlinked (i_nlink == 0) */
#define VFS_PF_UNREACHABLE	(1u << 3)	/* outside the process's root, or internal mount */
#define VFS_PF_NOPATH		(1u << 4)	/* no path: pipe, socket, fd gone (path_len 0) */
#define VFS_PF_FD_CHANGED	(1u << 5)	/* no longer set (was: fd pointed elsewhere at exit) */
#define VFS_PF_ASKED_PARTIAL	(1u << 6)	/* ev_rw: iovec longer than the kernel side sums */
#define VFS_PF_DIRECT		(1u << 7)	/* ev_rw: file open with O_DIRECT: bytes done went to or from the device */
#define VFS_PF_CACHED		(1u << 8)	/* ev_rw, ev_fop from the kernel only: no path, user space has it in slot - 1 */
#define VFS_PF_CREATED		(1u << 9)	/* ev_open: this open created the file (FMODE_CREATED) */
#define VFS_PF_PSEUDO		(1u << 10)	/* path is the name of a pseudo file's dentry ("[eventfd]"): anon inode, pipe, socket */
#define VFS_PF_BASENAME		(1u << 11)	/* imported: the log has only the file's last component */
#define VFS_PF_KIO		(1u << 12)	/* ev_rw: a direct io_uring/libaio call named at its block requests
						 * (bpf/blk-kio.h): latency first request start to last completion */

/* Path slots (bpf/vfs.bpf.c vfs_pslots, src/source-live-paths.c): a power of two. */
#define VFS_PSLOTS		16384
#define VFS_PSLOT_PATH		256	/* user space keeps paths shorter than this; longer ones are always sent */

/* One open/creat/openat/openat2, emitted at syscall exit. */
struct ev_open {
	__u32 type;		/* EV_OPEN */
	__u32 flags;		/* O_* flags as passed */
	__u64 ts;		/* CLOCK_MONOTONIC ns at syscall exit */
	__u64 lat_ns;		/* syscall entry to exit */
	__u64 cgroup;		/* cgroup v2 id of the caller */
	__u64 ino;		/* inode number of the opened file, 0 if failed */
	__u32 dev;		/* kernel dev_t of the file's filesystem, 0 if failed */
	__u32 pid;		/* thread id */
	__u32 tgid;		/* process id */
	__s32 ret;		/* fd, or negative errno */
	__u32 mode;		/* creation mode as passed */
	__u16 sys;		/* enum blktop_vfs_sys */
	__u16 ftype;		/* enum blktop_vfs_ftype of the opened file */
	__u16 path_flags;	/* VFS_PF_* */
	__u16 path_len;		/* bytes in path, NUL excluded; < VFS_PATH_MAX */
	__u16 slot;		/* from the kernel: 1 + the path slot this open fills, else 0; 0 in the stream */
	__u16 pad;
	char comm[BLKTOP_COMM_LEN];
	char path[];		/* path_len bytes, then a NUL */
};
#define EV_OPEN_SIZE(len)	(sizeof(struct ev_open) + (len) + 1)

/* One read/write family call, emitted at syscall exit. */
struct ev_rw {
	__u32 type;		/* EV_RW */
	__u32 dev;		/* kernel dev_t of the file's filesystem */
	__u64 ts;		/* CLOCK_MONOTONIC ns at syscall exit */
	__u64 lat_ns;		/* syscall entry to exit */
	__u64 cgroup;
	__u64 ino;
	__u64 asked;		/* bytes asked: count, or the sum of iov_len */
	__u64 done;		/* bytes transferred, 0 on error */
	__s64 pos;		/* offset passed to the p* calls (sendfile, splice, copy_file_range: this
				 * side's offset if a pointer was passed); read, write, readv,
				 * writev: the file position the call started at (for one that
				 * moved 0 bytes, the position at its exit); -1 if not known
				 * (such a call failed, or a capture older than this field) */
	__u32 pid;
	__u32 tgid;
	__s32 error;		/* negative errno, 0 on success */
	__s32 fd;
	__u32 rdev;		/* block devices: the device's kernel dev_t; else 0 */
	__u16 sys;		/* enum blktop_vfs_sys */
	__u16 op;		/* BLK_OP_READ or BLK_OP_WRITE */
	__u16 ftype;		/* enum blktop_vfs_ftype */
	__u16 path_flags;	/* VFS_PF_* */
	__u16 path_len;		/* bytes in path, NUL excluded; < VFS_PATH_MAX */
	__u16 slot;		/* from the kernel: 1 + its path slot (VFS_PF_CACHED), else 0; 0 in the stream */
	char comm[BLKTOP_COMM_LEN];
	char path[];		/* path_len bytes, then a NUL */
};
#define EV_RW_SIZE(len)		(sizeof(struct ev_rw) + (len) + 1)

/*
 * Records of one kind and size handed over n at a time in one ring-buffer
 * record (bpf/batch.h): the vfs object's reads and writes sent without their
 * path (EV_RW, VFS_PF_CACHED, EV_RW_SIZE(0) bytes). n records, one every
 * stride bytes (the record's size rounded up to 8). The block object's
 * requests were batched too, for no gain measured (doc/performance.md, known limits). user space (src/source-live.c) unpacks a batch: no sink
 * ever sees EV_BATCH.
 */
#define BATCH_BYTES		1920
struct ev_batch {
	__u32 type;		/* EV_BATCH */
	__u16 n;		/* records, 1..BATCH_BYTES / stride */
	__u16 stride;
};
#define EV_BATCH_STRIDE(size)	(((size) + 7) & ~7UL)
/* The block object's batches: its requests (EV_BLOCK) and its direct async calls (EV_RW, no path). */
#define BLK_BATCH_STRIDE	(EV_BATCH_STRIDE(sizeof(struct ev_block)) > EV_BATCH_STRIDE(EV_RW_SIZE(0)) ? \
				 EV_BATCH_STRIDE(sizeof(struct ev_block)) : EV_BATCH_STRIDE(EV_RW_SIZE(0)))

/*
 * A block request and the direct async call that is all of it (one bio,
 * the dio's bytes the request's, bpf/blk-kio.h): one record in the block
 * object's batch for the two it stands for, which user space
 * (src/source-live.c) makes of it: its EV_BLOCK (fclass BLK_FC_DIRECT, no
 * ino, busy_ns, inflight; BLK_F_NODEVSTAT in flags) and its EV_RW (path-less,
 * VFS_PF_CACHED | VFS_PF_DIRECT | VFS_PF_KIO, the request's owner, ts
 * ts_done, latency from ts_start, asked the request's bytes, done the same or
 * 0 on error, fd -1). Both records, each of its own, cost a second batch
 * place, its clearing and copy in the completion program.
 */
struct ev_blk_kio {
	__u32 type;		/* EV_BLK_KIO */
	__u32 dev;		/* the request's: kernel dev_t of the whole disk */
	__u64 ts_start;
	__u64 ts_issue;
	__u64 ts_done;
	__u64 sector;
	__u64 cgroup;
	__u64 ino;		/* the call's file */
	__s64 pos;		/* the call's offset */
	__u32 fsdev;		/* the call's file's filesystem (ev_rw's dev) */
	__u32 rdev;		/* ev_rw's rdev */
	__u32 bytes;		/* the request's and the call's */
	__u32 pid;
	__u32 tgid;
	__s32 error;
	__u16 op;
	__u16 flags;		/* the request's BLK_F_* */
	__u16 sys;		/* the call's enum blktop_vfs_sys */
	__u16 slot;		/* 1 + the call's file's path slot */
	char comm[BLKTOP_COMM_LEN];
	__u16 ftype;		/* the call's enum blktop_vfs_ftype */
	__u16 pad[3];
};
_Static_assert(EV_BATCH_STRIDE(sizeof(struct ev_blk_kio)) <= BLK_BATCH_STRIDE,
    "ev_blk_kio fits the block object's batch stride");

/*
 * A page-cache event of a file (bpf/vfs.bpf.c, tp_btf only): a page dirtied
 * (writeback:writeback_dirty_folio, in the context of the task that dirtied
 * it: write(), a store through a shared mapping) or a fault served by a file
 * mapping (filemap:mm_filemap_fault, in the faulting task).
 */
enum blktop_page_kind {
	PAGE_DIRTY = 0,
	PAGE_FAULT = 1,
};

struct ev_page {
	__u32 type;		/* EV_PAGE */
	__u32 dev;		/* kernel dev_t of the file's filesystem */
	__u64 ts;		/* CLOCK_MONOTONIC ns */
	__u64 cgroup;
	__u64 ino;
	__u32 bytes;		/* PAGE_DIRTY: the folio's size; PAGE_FAULT: one page */
	__u32 pid;
	__u32 tgid;
	__u16 kind;		/* enum blktop_page_kind */
	__u16 pad;
	char comm[BLKTOP_COMM_LEN];
	__u64 index1;		/* PAGE_FAULT: the faulted page's index in the file, plus 1; 0: not
				 * known (a page dirtied, or a capture older than this field, whose
				 * records end before it: EV_PAGE_OLD_SIZE) */
};
#define EV_PAGE_OLD_SIZE	offsetof(struct ev_page, index1)

/*
 * A task paused for dirtying pages faster than writeback cleans them (bpf/
 * vfs-pages.h, writeback:balance_dirty_pages, in that task, just before it
 * sleeps): the kernel's own throttling of a dirtier, emitted only for a
 * pause (pause_ms > 0), not for the calls that let it go on.
 */
struct ev_throttle {
	__u32 type;		/* EV_THROTTLE */
	__u32 pid;
	__u64 ts;		/* CLOCK_MONOTONIC ns */
	__u64 cgroup;
	__u32 tgid;
	__u32 pause_ms;		/* the sleep it is about to take, ms (the tracepoint's unit) */
	__u64 dirty;		/* pages dirty in the system, and the limit it is throttled toward */
	__u64 limit;
	char comm[BLKTOP_COMM_LEN];
};

/*
 * The process tree (bpf/vfs-task.h: sched_process_fork of a new thread group,
 * sched_process_exec; src/source-live-tasks.c: the processes running when
 * blktop started, read once from /proc): a process, its parent and its name.
 */
enum blktop_task_kind {
	TASK_FORK = 0,		/* a new process (not a thread): comm is its parent's */
	TASK_EXEC = 1,		/* it exec'd: comm is the new program's */
	TASK_FOUND = 2,		/* running when blktop started (/proc); start is its start time */
};
struct ev_task {
	__u32 type;		/* EV_TASK */
	__u32 tgid;		/* the process */
	__u64 ts;		/* CLOCK_MONOTONIC ns: when seen */
	__u64 start;		/* CLOCK_MONOTONIC ns: when it began (fork: ts; found: from /proc, may be before boot's monotonic 0: 0) */
	__u32 ppid;		/* its parent's tgid (real_parent), 0 if none */
	__u32 kind;		/* enum blktop_task_kind */
	char comm[BLKTOP_COMM_LEN];
};

/*
 * A file's lifecycle (bpf/vfs.bpf.c, emitted at syscall exit; imports of
 * openat/close/mmap/create-delete logs). Opens that created their file are
 * EV_OPEN records with VFS_PF_CREATED, not these.
 */
enum blktop_fop {
	FOP_MKNOD = 0,		/* mknod/mknodat: a create that is not an open */
	FOP_UNLINK = 1,
	FOP_RENAME = 2,		/* path: the old name; path2: the new one */
	FOP_MKDIR = 3,
	FOP_RMDIR = 4,
	FOP_CLOSE = 5,
	FOP_MMAP = 6,		/* of a file (anonymous mappings are not sent) */
	FOP_MUNMAP = 7,		/* of a file mapping: the file of the first mapping in the range */
	FOP_FSYNC = 8,		/* fsync, fdatasync (flags 1): of the fd's file */
	FOP_TRUNCATE = 9,	/* truncate (by name), ftruncate (of the fd's file): len the length asked */
	FOP_MAX = 10,
};

/*
 * Record: the header, path_len bytes and a NUL, then path2_len bytes and a
 * NUL (rename's new name; empty otherwise). By-name calls (unlink, rename,
 * mkdir, rmdir, mknod) carry the string as passed joined to the cwd or dirfd
 * path if relative (VFS_PF_AS_PASSED) and no inode; close, mmap and munmap
 * carry the file's resolved path, dev and ino, like EV_RW.
 */
struct ev_fop {
	__u32 type;		/* EV_FOP */
	__u32 dev;		/* kernel dev_t of the file's filesystem, 0 if not known */
	__u64 ts;		/* CLOCK_MONOTONIC ns at syscall exit */
	__u64 lat_ns;		/* syscall entry to exit; 0 if not known */
	__u64 cgroup;
	__u64 ino;		/* 0 if not known */
	__u64 addr;		/* FOP_MMAP: the address returned; FOP_MUNMAP: as passed */
	__u64 len;		/* FOP_MMAP, FOP_MUNMAP: bytes as passed; FOP_TRUNCATE: the length asked */
	__u32 pid;
	__u32 tgid;
	__s32 error;		/* negative errno, 0 on success */
	__s32 fd;		/* FOP_CLOSE, FOP_MMAP, FOP_FSYNC, ftruncate's FOP_TRUNCATE: the fd; else -1 */
	__u32 mode;		/* FOP_MKDIR, FOP_MKNOD: mode as passed; FOP_MMAP: prot */
	__u32 flags;		/* FOP_MMAP: MAP_* flags; FOP_RENAME: renameat2 flags; FOP_UNLINK/RMDIR: unlinkat flags; FOP_FSYNC: 1 fdatasync */
	__u16 op;		/* enum blktop_fop */
	__u16 sys;		/* enum blktop_vfs_sys */
	__u16 ftype;		/* enum blktop_vfs_ftype; VFS_FT_NONE when by name */
	__u16 path_flags;	/* VFS_PF_* of path */
	__u16 path_len;		/* bytes in path, NUL excluded; < VFS_PATH_MAX */
	__u16 path2_len;	/* bytes in path2, NUL excluded; < VFS_PATH_MAX */
	__u16 slot;		/* from the kernel: 1 + its path slot (VFS_PF_CACHED: close, munmap, mmap, fsync), else 0; 0 in the stream */
	__u16 pad;
	char comm[BLKTOP_COMM_LEN];
	char path[];		/* path, NUL, path2, NUL */
};
#define EV_FOP_SIZE(len, len2)	(sizeof(struct ev_fop) + (len) + (len2) + 2)

/* Buckets (log2 of ns) per row of the stamp self-check histograms (kstamp_hist). */
#define BLK_KCHK_BUCKETS	32

/* Counters the BPF side keeps in a per-CPU array, indexed by these. */
enum blktop_counter {
	CNT_LOST = 0,		/* ring buffer full, or no scratch slot free (vfs_scratch):
				 * a record other than the two below */
	CNT_MAP_FULL = 1,	/* request table full: request not tracked */
	CNT_ORPHAN_DONE = 2,	/* completion of a request never seen started/issued */
	CNT_BLOCK_SENT = 3,	/* block events handed to the ring buffer (a cross-check) */
	CNT_DBG_START = 4,	/* with debug_counts: requests started */
	CNT_DBG_ISSUE_NEW = 5,	/* ... first seen at issue */
	CNT_DBG_PARTIAL = 6,	/* ... partial completions, and data done in a flush sequence */
	CNT_DBG_COMPLETE = 7,	/* ... final completions of tracked requests */
	CNT_STALE = 8,		/* completions never seen, sent when the request was reused */
	CNT_LOST_REQS = 9,	/* ring buffer full: a block request's record (EV_BLOCK) */
	CNT_LOST_CALLS = 10,	/* ... a read/write call's record (EV_RW), either cause */
	CNT_KS_START = 11,	/* with debug_counts: start time from the kernel (rq->start_time_ns) */
	CNT_KS_OWN_START = 12,	/* ... from our clock at the start or issue hook */
	CNT_KS_ISSUE = 13,	/* ... issue time from the kernel (rq->io_start_time_ns) */
	CNT_KS_OWN_ISSUE = 14,	/* ... from our clock at the issue hook, or never issued */
	CNT_KS_MISS = 15,	/* start left to the kernel, not stamped: sent without latency */
	CNT_KS_CHECKED = 16,	/* self-check (-vvv): requests timed both ways */
	CNT_KS_OFF = 17,	/* ... whose queue or device time differ by more than the bound */
	CNT_MAX = 18,
};

#endif
