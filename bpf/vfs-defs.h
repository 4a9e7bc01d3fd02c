/*
 * vfs-defs.h: the vfs object's settings (const volatile, set before load),
 * maps, call table, scratch slots and path slots; the constants of the kernel
 * it reads. Self-contained: it includes what it uses.
 */
#ifndef BLKTOP_VFS_DEFS_H
#define BLKTOP_VFS_DEFS_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "blktop-abi.h"
#include "core-fixes.h"
#include "stop.h"

#define MAX_DEPTH	64	/* dentries and mount crossings walked per path */
#define MAX_IOV		64	/* iovec entries summed for readv/writev */
#define SPAN_MAX	128	/* longest span_read */
#define FOFF(T, f)	((__u32)bpf_core_field_offset(T, f))
#define FEND(T, f)	(FOFF(T, f) + (__u32)bpf_core_field_size(T, f))
#define MIN2(a, b)	((a) < (b) ? (a) : (b))
#define MAX2(a, b)	((a) > (b) ? (a) : (b))
/* The bytes of T spanning fields a and b: [SPAN_LO, SPAN_HI). */
#define SPAN_LO(T, a, b)	MIN2(FOFF(T, a), FOFF(T, b))
#define SPAN_HI(T, a, b)	MAX2(FEND(T, a), FEND(T, b))
#define NAME_MASK	255	/* a component is at most NAME_MAX bytes */
#define PATH_MASK	(VFS_PATH_MAX - 1)

#define AT_FDCWD	-100
#define O_WRONLY	01
#define O_CREAT		0100
#define O_TRUNC		01000
#define AT_REMOVEDIR	0x200
#define MAP_ANONYMOUS	0x20
#define FMODE_CREATED	0x100000	/* include/linux/fs.h, unchanged from 4.19 to 6.18 */
#if defined(__TARGET_ARCH_arm64)
#define O_DIRECT_FLAG	0200000		/* arch/arm64/include/uapi/asm/fcntl.h */
#else
#define O_DIRECT_FLAG	040000		/* asm-generic/fcntl.h */
#endif

#define S_IFMT		00170000
#define S_IFSOCK	0140000
#define S_IFLNK		0120000
#define S_IFREG		0100000
#define S_IFBLK		0060000
#define S_IFDIR		0040000
#define S_IFCHR		0020000
#define S_IFIFO		0010000

/* Options, set by the loader before load. */
const volatile bool trace_open = true;
const volatile bool trace_rw = true;
const volatile bool trace_life = true;		/* closes, mmaps, unlinks, renames, mkdirs... (EV_FOP) */
const volatile bool include_all = false;	/* all file types, not only regular and block */
const volatile bool filter_tgid = false;	/* only the tgids in vfs_tgids */
const volatile __u32 ncomms = 0;		/* only these comms when > 0 */
const volatile __u64 comms[FILTER_MAX_COMMS][2] = {};	/* the 16 bytes of each comm, NUL-padded */
const volatile __u64 filter_cgroup = 0;		/* only this cgroup v2 id when != 0 */
const volatile __u32 self_tgid = 0;		/* never trace blktop itself */
const volatile __u64 wakeup_ns = 0;		/* 0: wake the consumer for every record */
const volatile bool trace_pages = false;	/* the page_* programs are loaded */
const volatile bool trace_throttle = false;	/* page_throttle is loaded */
const volatile bool trace_uring = false;	/* the uring_* programs are loaded */
const volatile bool trace_aio = false;		/* the aio_* programs are loaded */
const volatile bool path_cache = true;		/* send a path once per open file (vfs_pslots) */

#define WAKEUP_BYTES	(1 << 20)	/* with wakeup_ns: wake anyway past this backlog */

#include "shared-maps.h"
#include "current.h"

/* Private counters, read by vfs_stats(). */
enum { VCNT_INFLIGHT_FULL, VCNT_MAX };
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, VCNT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} vfs_counters SEC(".maps");

/* The tgids of -p. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, VFS_MAX_TGIDS);
	__type(key, __u32);
	__type(value, __u8);
} vfs_tgids SEC(".maps");

/* A call between entry and exit, by thread id. */
struct inflight {
	__u64 ts;
	__u64 arg[4];
	__u64 file;		/* struct file * at entry (read/write family) */
	__u32 fflags;		/* its f_flags (file_peek) */
	__u32 hit;		/* 1 + its path slot when file_peek found it there, else 0 */
	__u32 seq;		/* that slot's sequence number then */
	__u32 sys;
};

/*
 * Calls in progress, by thread id: a direct-mapped array, two slots per thread
 * id, claimed by a compare-and-swap of the id (an array element costs a few
 * ns; the LRU hash update and delete it replaces cost ~200 ns per call). A
 * thread whose two slots are both taken uses the LRU hash, where an entry whose
 * exit is never seen (blktop attached or detached mid-call) ages out; a stale
 * array entry is overwritten by its thread's next call.
 */
#define NCALLS		4096
struct call_slot {
	__u32 tid;		/* 0 when free */
	__u32 pad;
	struct inflight in;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, NCALLS);
	__type(key, __u32);
	__type(value, struct call_slot);
} vfs_calls SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct inflight);
} vfs_inflight SEC(".maps");

/* Per-CPU scratch: the event under construction, path included, plus slack for the verifier. */
#define BUF_MASK	(2 * VFS_PATH_MAX - 1)	/* offsets in buf: header + path < 2 * VFS_PATH_MAX */
#define SCRATCH_SIZE	(3 * VFS_PATH_MAX + 512)
struct scratch {
	__u8 buf[SCRATCH_SIZE];
	const unsigned char *name[MAX_DEPTH];
	__u32 len[MAX_DEPTH];
	/*
	 * Loop state of walk_path kept in map memory, not registers: the
	 * verifier then sees the same state at each loop head whichever branch
	 * ran (mount crossing or component) and prunes, instead of exploring
	 * 2^depth paths.
	 */
	__u32 n, total, skip, pflags;
	__u8 span[2 * SPAN_MAX];	/* span_read's copy; the mask in SPAN_GET keeps loads inside */
	struct inflight xfer;		/* vfs_exit_xfer's call, for xfer_side */
	__u64 xfer_now;
	__s64 fpos;			/* file_peek's: the file's position then, -1 if not read */
	struct cg_cache cg;		/* this slot's (current.h) */
	__u32 busy;			/* scratch_take's: 1 while a program makes a record here */
	__u32 slot;			/* this slot's key, for the global functions */
};

/*
 * A CPU's scratch is SCRATCH_SLOTS slots, each taken for the making of one
 * record by a compare-and-swap of its busy word (scratch_take) and given back
 * after (scratch_put). A program is not always alone on its CPU: where the
 * kernel runs it preemptible (migration disabled only: syscall tracepoints
 * that may fault, fentry/fexit, on a PREEMPT_LAZY or full-preemption kernel
 * such as sid's 7.2) another program on the same CPU would otherwise write
 * over the first one's half-made record: there 14 of 30 runs of a workload
 * with known lifecycle counts came out wrong, some over by one, which no
 * counted loss explains (sid 7.2.13 under QEMU, a CPU hog and a syscall
 * loop beside it; trixie's 6.12, voluntary preemption: 0 of 30; with the
 * slots: none over, every shortfall within the program runs the kernel said
 * it skipped). A second slot also serves a program that interrupts another.
 * Every slot taken (programs stopped mid-record on one CPU): the record is
 * counted lost. The compat
 * build (no compare-and-swap; 5.10 runs these programs with preemption off)
 * has one slot, always its.
 */
#define SCRATCH_SLOTS	2
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SCRATCH_SLOTS);
	__type(key, __u32);
	__type(value, struct scratch);
} vfs_scratch SEC(".maps");

/*
 * Paths already sent, by open file (struct file), so that a read or write
 * walks its path once, not per call: a direct-mapped table indexed by a hash
 * of the struct file. A record whose path user space has is sent without it,
 * flagged VFS_PF_CACHED and naming its slot (ev_rw.slot); user space keeps
 * the path each full record of a slot carried (src/source-live-paths.c) and puts it back,
 * so every sink sees whole records.
 *  - A slot is filled only after its full record is in the ring buffer, so
 *    a record sent from it is behind that one in the ring.
 *  - A record sent from a slot carries the slot's dev and ino: user space
 *    takes the path only if its own slot holds the same file, else it asks
 *    for every path again by moving path_epoch on (slots of another epoch
 *    are not used).
 *  - A slot is checked at entry against the struct file, its inode and its
 *    f_path (a freed struct file reused for another file, or for another
 *    name of the same inode: a hard link, a bind mount, differs there), and
 *    again at exit by its sequence number, odd while a writer fills it (a
 *    seqlock: the reader takes the slot only if it was even and unchanged
 *    before and after its copy).
 */
struct pslot {
	__u32 seq;		/* odd while written */
	__u32 epoch;		/* path_epoch when the path was sent */
	__u64 file;		/* struct file * */
	__u64 inode;		/* its f_inode */
	__u64 dentry;		/* its f_path */
	__u64 mnt;
	__u64 ino;
	__u32 dev, rdev;
	__u16 ftype, pad[3];
};
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, VFS_PSLOTS);
	__type(key, __u32);
	__type(value, struct pslot);
} vfs_pslots SEC(".maps");
__u32 path_epoch = 1;		/* user space moves it on to have every path sent again */

#include "pslots.h"

#endif /* BLKTOP_VFS_DEFS_H */
