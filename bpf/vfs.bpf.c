/* vfs.bpf.c: opens and the read/write family per process, with absolute paths. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "blktop-abi.h"
#include "core-fixes.h"
#include "stop.h"

/*
 * Variants (exactly one is loaded, chosen by src/source-live-vfs.c):
 *  - tp_btf:     tp_btf/sys_enter + tp_btf/sys_exit, dispatching on the syscall id;
 *  - raw_tp:     raw_tp/sys_enter + raw_tp/sys_exit, same dispatch;
 *  - tracepoint: the per-syscall classic tracepoints syscalls/sys_{enter,exit}_*;
 *  - fentry:     fentry/fexit on vfs_read, vfs_write and fexit on do_filp_open.
 * All of them end in vfs_enter()/vfs_exit_*() below.
 */

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

char LICENSE[] SEC("license") = "GPL";

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

/* Add one to a per-CPU counter. */
static __always_inline void count(void *map, __u32 idx)
{
	__u64 *v = bpf_map_lookup_elem(map, &idx);

	/* Atomic: a preempted program's increment must not undo another's (see vfs_scratch). */
	if (v)
		__sync_fetch_and_add(v, 1);
}

/* Slot i of this CPU's scratch, if free: then the caller's. */
static __always_inline struct scratch *scratch_try(__u32 i)
{
	struct scratch *s = bpf_map_lookup_elem(&vfs_scratch, &i);

#if HAVE_ATOMIC_FETCH
	if (s && __sync_val_compare_and_swap(&s->busy, 0, 1) != 0)
		return NULL;
#endif
	if (s)
		s->slot = i;
	return s;
}

/* A free scratch slot of this CPU, now the caller's; NULL if none is free (see vfs_scratch). */
static __always_inline struct scratch *scratch_take(void)
{
	struct scratch *s = scratch_try(0);

	_Static_assert(SCRATCH_SLOTS == 2, "scratch_take tries each slot");
	return s || !HAVE_ATOMIC_FETCH ? s : scratch_try(1);
}

/* Give a slot of scratch_take back. */
static __always_inline void scratch_put(struct scratch *s)
{
#if HAVE_ATOMIC_FETCH
	*(volatile __u32 *)&s->busy = 0;
#endif
}

/* The scratch slot a global function's caller took (passed as a number: see walk_path). */
static __always_inline struct scratch *scratch_of(__u32 slot)
{
	return bpf_map_lookup_elem(&vfs_scratch, &slot);
}

/* Remember the call thread tid is entering; count a failure. */
static __always_inline void inflight_put(__u32 tid, const struct inflight *in)
{
	__u32 i = tid & (NCALLS - 1), probe;
	struct call_slot *c;

	for (probe = 0; probe < 2; probe++, i ^= 1) {
		c = bpf_map_lookup_elem(&vfs_calls, &i);
		if (!c)
			continue;
		if (c->tid == tid) {
			c->in = *in;
			return;
		}
#if HAVE_ATOMIC_FETCH	/* the compat build keeps every call in the LRU hash */
		if (c->tid == 0 && __sync_val_compare_and_swap(&c->tid, 0, tid) == 0) {
			c->in = *in;
			return;
		}
#endif
	}
	if (bpf_map_update_elem(&vfs_inflight, &tid, in, BPF_ANY))
		count(&vfs_counters, VCNT_INFLIGHT_FULL);
}

/*
 * A call slot for thread tid to fill in place (its own stale one, or a free
 * one now its), or NULL: then inflight_put, which goes to the hash. Filled
 * in place, a read's entry stores its fields once instead of building them
 * on the stack and copying them over.
 */
static __always_inline struct inflight *inflight_claim(__u32 tid)
{
	__u32 i = tid & (NCALLS - 1), probe;
	struct call_slot *c;

	if (tid == 0)
		return NULL;
	for (probe = 0; probe < 2; probe++, i ^= 1) {
		c = bpf_map_lookup_elem(&vfs_calls, &i);
		if (!c)
			continue;
		if (c->tid == tid)
			return &c->in;
#if HAVE_ATOMIC_FETCH
		if (c->tid == 0 && __sync_val_compare_and_swap(&c->tid, 0, tid) == 0)
			return &c->in;
#endif
	}
	return NULL;
}

/*
 * The call thread tid entered, where it lies: in its array slot (*cp, to
 * free with inflight_free once read), or copied out of the hash into *tmp
 * (the hash entry freed: an LRU element may be reused meanwhile); NULL if none.
 */
static __always_inline struct inflight *inflight_find(__u32 tid, struct call_slot **cp,
    struct inflight *tmp)
{
	__u32 i = tid & (NCALLS - 1), probe;
	struct call_slot *c;
	struct inflight *p;

	*cp = NULL;
	if (tid == 0)
		return NULL;	/* the idle task: and 0 marks a free slot */
	for (probe = 0; probe < 2; probe++, i ^= 1) {
		c = bpf_map_lookup_elem(&vfs_calls, &i);
		if (c && c->tid == tid) {
			*cp = c;
			return &c->in;
		}
	}
	p = bpf_map_lookup_elem(&vfs_inflight, &tid);
	if (!p)
		return NULL;
	*tmp = *p;
	bpf_map_delete_elem(&vfs_inflight, &tid);
	return tmp;
}

/* Free the array slot inflight_find found a call in (none: it was freed there). */
static __always_inline void inflight_free(struct call_slot *c)
{
	if (c)
		*(volatile __u32 *)&c->tid = 0;	/* after every read of c->in */
}

/* Take the call thread tid entered into *out, freeing its entry; false if none. */
static __always_inline bool inflight_take(__u32 tid, struct inflight *out)
{
	__u32 i = tid & (NCALLS - 1), probe;
	struct call_slot *c;
	struct inflight *p;

	if (tid == 0)
		return false;	/* the idle task: and 0 marks a free slot */
	for (probe = 0; probe < 2; probe++, i ^= 1) {
		c = bpf_map_lookup_elem(&vfs_calls, &i);
		if (c && c->tid == tid) {
			*out = c->in;
			*(volatile __u32 *)&c->tid = 0;	/* after the copy */
			return true;
		}
	}
	p = bpf_map_lookup_elem(&vfs_inflight, &tid);
	if (!p)
		return false;
	*out = *p;
	bpf_map_delete_elem(&vfs_inflight, &tid);
	return true;
}

/* Whether the current task (t: task_current(), tgid its) passes the -p/-c/--cgroup filters. */
static __always_inline bool wanted_of(struct task_struct *t, __u32 tgid)
{
	if (tgid == self_tgid)
		return false;
	if (filter_tgid && !bpf_map_lookup_elem(&vfs_tgids, &tgid))
		return false;
	if (filter_cgroup && bpf_get_current_cgroup_id() != filter_cgroup)
		return false;
	if (ncomms) {
		__u64 c[2] = {};

		/* A typed task's comm is two plain loads; the helper costs ~30 ns more per call. */
		if (HAVE_TASK_BTF)
			__builtin_memcpy(c, t->comm, sizeof(c));
		else
			bpf_get_current_comm(c, sizeof(c));
		for (__u32 i = 0; i < FILTER_MAX_COMMS; i++) {
			if (i >= ncomms)
				break;
			if (c[0] == comms[i][0] && c[1] == comms[i][1])
				return true;
		}
		return false;
	}
	return true;
}

/* Whether the current task, of tgid, passes the -p/-c/--cgroup filters. */
static __always_inline bool wanted(__u32 tgid)
{
	return wanted_of(task_current(), tgid);
}

#include "vfs-path.h"

/*
 * Sum the iov_len of a user iovec array (at syscall exit it is resident),
 * its first MAX_IOV entries. A global function: verified once on its own,
 * where inlined each of the loop's exits carried its own state through the
 * rest of a readv's exit program (0.83 s of the verifier's time a program on
 * 6.18, with the call's id a constant); it takes scalars only (5.10).
 */
__noinline __u64 iov_sum_global(__u64 iov, __u64 cnt)
{
	const struct iovec *v = (const struct iovec *)iov;
	__u64 sum = 0;

	for (int i = 0; i < MAX_IOV; i++) {
		__u64 len = 0;

		if (i >= cnt)
			break;
		bpf_probe_read_user(&len, sizeof(len), &v[i].iov_len);
		sum += len;
	}
	return sum;
}

static __always_inline __u64 iov_sum(const struct iovec *iov, __u64 cnt, __u16 *pflags)
{
	if (cnt > MAX_IOV)
		*pflags |= VFS_PF_ASKED_PARTIAL;
	return iov_sum_global((__u64)iov, cnt);
}

static __always_inline bool sys_is_rw(__u32 sys)
{
	return sys >= VFS_SYS_READ && sys <= VFS_SYS_PWRITEV2;
}

/* The calls that move bytes between two files: a read record and a write record each. */
static __always_inline bool sys_is_xfer(__u32 sys)
{
	return sys == VFS_SYS_SENDFILE || sys == VFS_SYS_SPLICE || sys == VFS_SYS_COPY_FILE_RANGE;
}

/*
 * The file mapped at addr in the current task (the first mapping of a munmap
 * range), or NULL: bpf_find_vma (5.17+; a CO-RE constant, so older kernels
 * never see the call and their munmaps are not sent).
 */
#if HAVE_CALLBACKS
static long vma_file_cb(struct task_struct *task, struct vm_area_struct *vma, void *data)
{
	/* A probe read: a plain scalar, not a typed pointer (pslot_of hashes it). */
	bpf_probe_read_kernel(data, sizeof(struct file *), &vma->vm_file);
	return 0;
}
#endif

static __always_inline struct file *vma_file(__u64 addr)
{
	struct file *f = NULL;

	if (!HAVE_CALLBACKS || !HAVE_TASK_BTF ||
	    !bpf_core_enum_value_exists(enum bpf_func_id, BPF_FUNC_find_vma))
		return NULL;
#if HAVE_CALLBACKS
	if (bpf_find_vma(bpf_get_current_task_btf(), addr, vma_file_cb, &f, 0) != 0)
		return NULL;
#endif
	return f;
}

static __always_inline bool sys_is_write(__u32 sys)
{
	return sys == VFS_SYS_WRITE || sys == VFS_SYS_PWRITE64 || sys == VFS_SYS_WRITEV ||
	    sys == VFS_SYS_PWRITEV || sys == VFS_SYS_PWRITEV2 || sys == VFS_SYS_VFS_WRITE ||
	    sys == VFS_SYS_URING_WRITE || sys == VFS_SYS_AIO_WRITE;
}

/* The record op of a one-file read/write call. */
static __always_inline __u16 sys_op(__u32 sys)
{
	return sys_is_write(sys) ? BLK_OP_WRITE : BLK_OP_READ;
}

/* Syscall entry: filter, then remember the arguments and the time. */
static __always_inline int vfs_enter(__u32 sys, __u64 a0, __u64 a1, __u64 a2, __u64 a3)
{
	struct task_struct *task = task_current();
	__u64 id = task_pid_tgid_of(task);
	__u32 tid = (__u32)id;
	struct inflight in = {}, *p;
	struct file *f = NULL;
	struct scratch *s;

	if (!wanted_of(task, id >> 32))
		return 0;
	/*
	 * A read or write's file is looked up at its exit (rw_file), where the
	 * call has just walked the same fd table and struct file: here they are
	 * cold, after the entry's page-table switch, and cost 60-70 ns (bench
	 * notes in doc/performance.md).
	 */
	if (sys == VFS_SYS_CLOSE || sys == VFS_SYS_MUNMAP || sys == VFS_SYS_FSYNC ||
	    sys == VFS_SYS_FDATASYNC) {
		__u16 ft;

		f = sys == VFS_SYS_MUNMAP ? vma_file(a0) : fd_file((int)a0);
		if (!f)
			return 0;	/* a bad fd is an error of nothing; an anonymous mapping, no file's */
		if (!(s = scratch_take())) {
			count(&counters, CNT_LOST);	/* the call's record, never made */
			return 0;
		}
		ft = file_peek(s, f, &in);
		scratch_put(s);
		if (!include_all && ft != VFS_FT_REG && ft != VFS_FT_BLK)
			return 0;
	} else if (sys == VFS_SYS_MMAP && (a3 & MAP_ANONYMOUS)) {
		return 0;
	} else if ((p = inflight_claim(tid)) != NULL) {
		p->sys = sys;
		p->arg[0] = a0;
		p->arg[1] = a1;
		p->arg[2] = a2;
		p->arg[3] = a3;
		p->file = 0;
		p->fflags = 0;
		p->hit = 0;
		p->seq = 0;
		p->ts = bpf_ktime_get_ns();
		return 0;
	}
	in.sys = sys;
	in.arg[0] = a0;
	in.arg[1] = a1;
	in.arg[2] = a2;
	in.arg[3] = a3;
	in.file = (__u64)f;
	in.ts = bpf_ktime_get_ns();
	inflight_put(tid, &in);
	return 0;
}

/*
 * Waking the consumer costs more than the rest of the event (measured ~1.2 us
 * per record on 6.18 in a VM). With wakeup_ns set, wake it at most once per
 * wakeup_ns, or when the backlog passes WAKEUP_BYTES, and never twice within
 * RING_WAKE_GAP_NS (shared-maps.h); the consumer must then also drain on a
 * timer, else a last record can wait for the next wakeup.
 */
static __always_inline __u64 wake_flags(__u64 now)
{
	return wakeup_ns ? ring_wake(now, WAKEUP_BYTES, wakeup_ns) : 0;
}

#define BATCH_WAKE(now)	wake_flags(now)
#define BATCH_STRIDE	EV_BATCH_STRIDE(EV_RW_SIZE(0))	/* path-less reads and writes */
#include "batch.h"

/* Hand a finished record of size bytes to the ring buffer; count a loss. True if sent. */
static __always_inline bool emit(struct scratch *s, __u32 size, __u64 now)
{
	if (size > sizeof(struct ev_rw) + VFS_PATH_MAX)
		return false;
	batch_drain(now);
	if (bpf_ringbuf_output(&events, s->buf, size, wake_flags(now))) {
		/* Loss in the units a user reconciles: calls apart from other records. */
		count(&counters, *(__u32 *)s->buf == EV_RW ? CNT_LOST_CALLS : CNT_LOST);
		return false;
	}
	return true;
}

/*
 * The call's path slot, found at entry (in->hit), still holds its file: copy
 * the file's identity into *e and name the slot; false if another file took
 * the slot meanwhile.
 */
static __always_inline bool pslot_get(const struct inflight *in, __u64 *ino, __u32 *dev,
    __u16 *ftype, __u32 *rdev)
{
	__u32 i = in->hit - 1;
	struct pslot *ps = bpf_map_lookup_elem(&vfs_pslots, &i);

	if (!ps || *(volatile __u32 *)&ps->seq != in->seq)
		return false;
	*ino = ps->ino;
	*dev = ps->dev;
	*ftype = ps->ftype;
	*rdev = *ftype == VFS_FT_BLK ? ps->rdev : 0;
	return *(volatile __u32 *)&ps->seq == in->seq;
}

static __always_inline bool pslot_take(const struct inflight *in, struct ev_rw *e)
{
	if (!pslot_get(in, &e->ino, &e->dev, &e->ftype, &e->rdev))
		return false;
	e->slot = in->hit;
	return true;
}

/* The slot (1 + index) a full record of f with this path fills, or 0 if it fills none. */
static __always_inline __u16 pslot_for(const struct file *f, __u32 len, __u16 pflags)
{
	if (!path_cache || !f || len >= VFS_PSLOT_PATH ||
	    (pflags & (VFS_PF_NOPATH | VFS_PF_AS_PASSED)))
		return 0;
	return pslot_of(f) + 1;
}

/* The path of f went out in a full record: its slot says so from now on. */
static __always_inline void pslot_fill(const struct file *f, const struct finfo *fi, __u32 epoch)
{
	__u32 i = pslot_of(f);
	struct pslot *ps = bpf_map_lookup_elem(&vfs_pslots, &i);

	if (!ps)
		return;
	/* Two writers of one slot (two CPUs, each a first call of a file) may mix
	 * their fields: the seq of each then ends odd or moved on twice, and the
	 * readers' checks against file, inode and f_path at entry catch a mix. */
	__sync_fetch_and_add(&ps->seq, 1);
	ps->file = (__u64)f;
	ps->inode = (__u64)fi->inode;
	ps->dentry = (__u64)fi->path.dentry;
	ps->mnt = (__u64)fi->path.mnt;
	ps->ino = fi->ino;
	ps->dev = fi->dev;
	ps->rdev = fi->rdev;
	ps->ftype = fi->ftype;
	ps->epoch = epoch;
	__sync_fetch_and_add(&ps->seq, 1);
}

/* An open file's type, identity and path (at buf[base..]) for a record; the path's length. */
static __always_inline __u32 file_record(struct scratch *s, __u32 base, struct file *f,
    struct finfo *fi, __u16 *ftype, __u64 *ino, __u32 *dev, __u16 *pflags)
{
	file_info(s, f, fi);
	*ftype = fi->ftype;
	*ino = fi->ino;
	*dev = fi->dev;
	return file_path(s, base, fi, pflags);
}

/* The start of a call's record in scratch s: type, times, who made the call. */
#define CALL_RECORD(s, e, t, now, in, id) do {					\
	__builtin_memset((e), 0, sizeof(*(e)));					\
	(e)->type = (t);							\
	(e)->ts = (now);							\
	(e)->lat_ns = (now) - (in)->ts;						\
	task_owner(&s->cg, &(e)->cgroup, (e)->comm, (now));					\
	(e)->pid = (__u32)(id);							\
	(e)->tgid = (id) >> 32;							\
} while (0)

/*
 * A path as passed to a system call, joined to the cwd's or dirfd's path if
 * relative, written at buf[off..]; returns the offset after it (no NUL).
 */
static __always_inline __u32 upath_at(struct scratch *s, __u32 off, int dfd, const char *upath,
    __u16 *pflags)
{
	__u32 base = off;
	char c = 0;
	long n;

	bpf_probe_read_user(&c, 1, upath);
	if (c != '/') {
		struct dentry *d;
		struct vfsmount *m;

		if (dfd == AT_FDCWD) {
			struct task_struct *t = (struct task_struct *)bpf_get_current_task();

			d = BPF_CORE_READ(t, fs, pwd.dentry);
			m = BPF_CORE_READ(t, fs, pwd.mnt);
		} else {
			struct file *df = fd_file(dfd);

			d = BPF_CORE_READ(df, f_path.dentry);
			m = BPF_CORE_READ(df, f_path.mnt);
		}
		if (d && m) {
			off = walk_split(walk_path(s->slot, off, (__u64)d, (__u64)m), pflags);
			if (off > base + 1) {
				s->buf[MASKED(off, BUF_MASK)] = '/';
				off++;
			}
		}
	}
	n = bpf_probe_read_user_str(&s->buf[MASKED(off, BUF_MASK)], VFS_PATH_MAX, upath);
	if (n > 0)
		off += n - 1;	/* n counts the NUL */
	return off;
}

/* Exit of an open: resolve the new fd (or the failed string) and emit. */
static __always_inline int vfs_exit_open(struct scratch *s, struct inflight *in, __u64 now,
    long ret, struct file *opened)
{
	struct ev_open *e;
	struct file *f = opened;
	struct finfo fi = {};
	__u32 epoch = *(volatile __u32 *)&path_epoch;	/* before the walk: a rename meanwhile wins */
	__u64 id = bpf_get_current_pid_tgid();
	__u16 pflags = 0;
	__u32 len = 0, base = sizeof(struct ev_open);
	const char *upath = NULL;

	if (!s)
		return 0;
	e = (struct ev_open *)s->buf;
	CALL_RECORD(s, e, EV_OPEN, now, in, id);
	e->ret = ret;
	e->sys = in->sys;

	switch (in->sys) {
	case VFS_SYS_OPEN:
		upath = (const char *)in->arg[0];
		e->flags = in->arg[1];
		e->mode = in->arg[2];
		break;
	case VFS_SYS_CREAT:
		upath = (const char *)in->arg[0];
		e->flags = O_CREAT | O_WRONLY | O_TRUNC;
		e->mode = in->arg[1];
		break;
	case VFS_SYS_OPENAT:
		upath = (const char *)in->arg[1];
		e->flags = in->arg[2];
		e->mode = in->arg[3];
		break;
	case VFS_SYS_OPENAT2: {
		struct open_how how = {};

		upath = (const char *)in->arg[1];
		bpf_probe_read_user(&how, sizeof(how), (void *)in->arg[2]);
		e->flags = how.flags;
		e->mode = how.mode;
		break;
	}
	case VFS_SYS_FILP_OPEN:
		e->flags = in->arg[1];
		e->mode = in->arg[2];
		break;
	}

	if (!f && ret >= 0 && in->sys != VFS_SYS_FILP_OPEN)
		f = fd_file(ret);
	if (f) {
		len = file_record(s, base, f, &fi, &e->ftype, &e->ino, &e->dev, &pflags);
		if (e->flags & O_CREAT) {
			unsigned int fm = BPF_CORE_READ(f, f_mode);

			if (fm & FMODE_CREATED)
				pflags |= VFS_PF_CREATED;
		}
	} else if (upath) {
		/* Failed: the string as passed, joined to the cwd/dirfd path if relative. */
		int dfd = (in->sys == VFS_SYS_OPENAT || in->sys == VFS_SYS_OPENAT2) ?
		    (int)in->arg[0] : AT_FDCWD;

		e->ftype = VFS_FT_NONE;
		pflags |= VFS_PF_AS_PASSED;
		len = upath_at(s, base, dfd, upath, &pflags) - base;
		if (len >= VFS_PATH_MAX - 1) {
			pflags |= VFS_PF_TRUNC;
			len = VFS_PATH_MAX - 1;
		}
	} else {
		e->ftype = VFS_FT_NONE;
		pflags |= VFS_PF_NOPATH;
	}
	len &= PATH_MASK;
	s->buf[MASKED(base + len, BUF_MASK)] = '\0';
	e->path_len = len;
	e->path_flags = pflags;
	/* The new file's path, sent here: its reads, close and maps need not walk it. */
	if (ret >= 0)
		e->slot = pslot_for(f, len, pflags);
	if (emit(s, base + len + 1, now) && e->slot)
		pslot_fill(f, &fi, epoch);
	return 0;
}

/*
 * The file a read/write system call's fd names, peeked at as the entry of a
 * close is (its path slot, type and flags into *in); false if the call is
 * not traced: no such fd, or not a regular file or block device without
 * --all-files.
 */
static __always_inline bool rw_file(struct scratch *s, struct inflight *in)
{
	struct file *f = fd_file((int)in->arg[0]);
	__u16 ft = file_peek(s, f, in);

	if (!include_all && ft != VFS_FT_REG && ft != VFS_FT_BLK)
		return false;
	if (ft != VFS_FT_REG && ft != VFS_FT_BLK)
		s->fpos = -1;	/* a pipe's or socket's f_pos (0) is no offset, even at a 0-byte read */
	in->file = (__u64)f;
	return true;
}

/* The io_uring and libaio reads and writes: their file is found by the caller. */
static __always_inline bool sys_is_async(__u32 sys)
{
	return sys >= VFS_SYS_URING_READ && sys <= VFS_SYS_AIO_WRITE;
}

/*
 * The file of an async completion (in->file, found by the caller), peeked at
 * like a system call's: its path slot, so that a file's path is walked and
 * sent once, not per request, and its records go out in the per-CPU batches
 * (a walk and a record of their own per request were 1.2 us of a libaio
 * request's 4.4, issue 28); false if not traced.
 */
static __always_inline bool async_file(struct scratch *s, struct inflight *in)
{
	__u16 ft = file_peek(s, (struct file *)in->file, in);

	return include_all || ft == VFS_FT_REG || ft == VFS_FT_BLK;
}

/*
 * What the call itself gives a read/write record: times, owner (cg: the
 * owner cache the caller holds), bytes and offset (fpos: the file's position
 * file_peek found), fd. The file's fields (dev, ino, rdev, ftype, the
 * path's) are the caller's; e need not be cleared first, every other field
 * is written.
 */
static __always_inline void rw_fill(struct ev_rw *e, struct task_struct *task,
    struct cg_cache *cg, __s64 fpos, const struct inflight *in, __u32 sys, __u64 now, long ret,
    __u16 op, __u64 id, __u16 *pflags)
{
	e->type = EV_RW;
	e->ts = now;
	e->lat_ns = now - in->ts;
	task_owner_of(task, cg, &e->cgroup, e->comm, now);
	e->pid = (__u32)id;
	e->tgid = id >> 32;
	e->sys = sys;
	e->op = op;
	e->pos = -1;
	e->error = ret < 0 ? ret : 0;
	e->done = ret < 0 ? 0 : (__u64)ret;
	/*
	 * read, write, readv, writev: where the call started, the position
	 * rw_file found after it less the bytes done (an O_APPEND write's too);
	 * a call that moved nothing (a read at end of file) started at that
	 * position itself, an offset Darshan judges too. Another thread's call
	 * on the same open file between this one's end and its exit hook would
	 * move it (a known limit).
	 */
	if (ret >= 0 && fpos >= ret && (sys == VFS_SYS_READ || sys == VFS_SYS_WRITE ||
	    sys == VFS_SYS_READV || sys == VFS_SYS_WRITEV))
		e->pos = fpos - ret;

	switch (sys) {
	case VFS_SYS_READV:
	case VFS_SYS_WRITEV:
		e->asked = iov_sum((const struct iovec *)in->arg[1], in->arg[2], pflags);
		break;
	case VFS_SYS_PREADV:
	case VFS_SYS_PWRITEV:
	case VFS_SYS_PREADV2:
	case VFS_SYS_PWRITEV2:
		e->asked = iov_sum((const struct iovec *)in->arg[1], in->arg[2], pflags);
		e->pos = in->arg[3];
		break;
	case VFS_SYS_PREAD64:
	case VFS_SYS_PWRITE64:
	case VFS_SYS_AIO_READ:
	case VFS_SYS_AIO_WRITE:
	case VFS_SYS_URING_READ:	/* uring_pos: -1 before 5.19 */
	case VFS_SYS_URING_WRITE:
	case VFS_SYS_SENDFILE:		/* vfs_exit_xfer: this side's fd, offset */
	case VFS_SYS_SPLICE:
	case VFS_SYS_COPY_FILE_RANGE:
		e->asked = in->arg[2];
		e->pos = in->arg[3];
		break;
	default:
		e->asked = in->arg[2];
		break;
	}
	e->fd = sys == VFS_SYS_VFS_READ || sys == VFS_SYS_VFS_WRITE ? -1 : (int)in->arg[0];
}

/*
 * A read/write record made in place in this CPU's batch, its path sent
 * before: flagged cached (and direct), its empty path's NUL written, the
 * batch committed.
 */
static __always_inline bool rw_commit_cached(struct batch *b, __u64 *ts, __u8 *p,
    const struct inflight *in, __u16 pflags, __u64 now)
{
	struct ev_rw *e = (struct ev_rw *)p;

	if (in->fflags & O_DIRECT_FLAG)
		pflags |= VFS_PF_DIRECT;
	e->path_len = 0;
	e->path_flags = pflags | VFS_PF_CACHED;
	*(__u64 *)(p + sizeof(struct ev_rw)) = 0;	/* the path's NUL, and the stride's tail */
	batch_commit(b, ts, now);
	return true;
}

/*
 * A read/write record whose file's path went out before (the path slot the
 * entry found, in->hit), written straight into this CPU's batch; false if it
 * could not be (batches off or busy, or another file took the slot
 * meanwhile): the caller then makes it in scratch.
 */
static __always_inline bool rw_cached(struct scratch *s, struct inflight *in, __u32 sys,
    __u64 now, long ret, __u16 op, __u64 id)
{
	_Static_assert(BATCH_STRIDE >= sizeof(struct ev_rw) + 8, "the path's NUL and the stride's tail");
	struct batch *b;
	struct ev_rw *e;
	__u16 pflags = 0;
	__u64 *ts;
	__u8 *p = batch_begin(&b, &ts, now);

	if (!p)
		return false;
	e = (struct ev_rw *)p;
	rw_fill(e, task_current(), &s->cg, s->fpos, in, sys, now, ret, op, id, &pflags);
	if (!pslot_take(in, e)) {
		batch_abandon(b);
		return false;
	}
	return rw_commit_cached(b, ts, p, in, pflags, now);
}

/*
 * The exit of a read/write system call whose file's path went out before,
 * made in this CPU's batch with no scratch slot taken (its compare-and-swap
 * and lookup were ~5% of a cached read()'s exit program): the struct file's
 * span is copied into the record's own place in the batch, read, then
 * written over by the record; the owner cache is the batch's. True if the
 * call is done with (its record made, or its file not traced); false if the
 * caller must make it the long way (vfs_exit_rw: a file's first call,
 * batches off or busy, another file in the slot).
 */
static __always_inline bool rw_fast(struct task_struct *task, struct inflight *in, __u32 sys,
    __u64 now, long ret, __u64 id)
{
	struct batch *b;
	struct ev_rw *e;
	struct file *f;
	__u16 ft, pflags = 0;
	__s64 fpos;
	__u64 *ts;
	__u8 *p;

	if (!path_cache || !(p = batch_begin(&b, &ts, now)))
		return false;
	f = fd_file_of(task, (int)in->arg[0]);
	ft = file_peek_at(p, &fpos, f, in);
	if (ft != VFS_FT_REG && ft != VFS_FT_BLK) {
		batch_abandon(b);
		return !include_all;	/* rw_file's "not traced"; with --all-files, the long way */
	}
	e = (struct ev_rw *)p;
	if (!in->hit || (rw_fill(e, task, &b->cg, fpos, in, sys, now, ret, sys_op(sys), id, &pflags),
	    !pslot_take(in, e))) {
		batch_abandon(b);
		return false;
	}
	return rw_commit_cached(b, ts, p, in, pflags, now);
}

/*
 * Exit of a read/write call: file, bytes, latency; emit a record of op
 * (BLK_OP_READ or BLK_OP_WRITE). A sendfile, splice or copy_file_range comes
 * here twice, once per file (vfs_exit_xfer).
 */
static __always_inline int vfs_exit_rw(struct scratch *s, struct inflight *in, __u32 sys,
    __u64 now, long ret, __u16 op)
{
	struct ev_rw *e;
	struct file *f;
	struct finfo fi = {};
	__u64 id = bpf_get_current_pid_tgid();
	__u16 pflags = 0;
	__u32 len, base = sizeof(struct ev_rw);
	__u32 epoch = *(volatile __u32 *)&path_epoch;	/* before the walk: a rename meanwhile wins */

	if (!s || ((sys_is_rw(sys) || sys_is_xfer(sys)) && !rw_file(s, in)) ||
	    (sys_is_async(sys) && !async_file(s, in)))
		return 0;	/* rw_file: the file of a system call (see below) */
	if (in->hit && rw_cached(s, in, sys, now, ret, op, id))
		return 0;
	e = (struct ev_rw *)s->buf;
	__builtin_memset(e, 0, sizeof(*e));
	rw_fill(e, task_current(), &s->cg, s->fpos, in, sys, now, ret, op, id, &pflags);

	/*
	 * The file: for a system call, the one its fd names at the exit. The
	 * call held a reference to the file it used, whose last fput, if
	 * another thread closed the fd meanwhile, runs only on the way back to
	 * user space, after this hook; but the fd may then name another file,
	 * opened meanwhile by another thread, or none (a known limit, doc/performance.md).
	 * For the other paths, the file found at entry.
	 */
	f = (struct file *)in->file;
	e->ftype = VFS_FT_NONE;
	if (in->hit && pslot_take(in, e)) {
		if (in->fflags & O_DIRECT_FLAG)
			pflags |= VFS_PF_DIRECT;
		e->path_len = 0;
		e->path_flags = pflags | VFS_PF_CACHED;
		s->buf[base] = '\0';
		emit(s, base + 1, now);
		return 0;
	}
	if (f) {
		file_info(s, f, &fi);
		e->ftype = fi.ftype;
		e->ino = fi.ino;
		e->dev = fi.dev;
		if (e->ftype == VFS_FT_BLK)
			e->rdev = fi.rdev;
		if (fi.flags & O_DIRECT_FLAG)
			pflags |= VFS_PF_DIRECT;
	}
	if (!include_all && e->ftype != VFS_FT_REG && e->ftype != VFS_FT_BLK)
		return 0;
	len = file_path(s, base, f ? &fi : NULL, &pflags) & PATH_MASK;
	s->buf[MASKED(base + len, BUF_MASK)] = '\0';
	e->path_len = len;
	e->path_flags = pflags;
	e->slot = pslot_for(f, len, pflags);
	if (emit(s, base + len + 1, now) && e->slot)
		pslot_fill(f, &fi, epoch);
	return 0;
}

#include "vfs-life.h"

/*
 * Syscall exit: finish the call this thread started, if any. want: the
 * system call whose exit this is, a compile-time constant, so that each exit
 * program is compiled and verified with its own branch only (an open's exit
 * without the read/write paths, a read's without the lifecycle ones: the
 * verifier's time at start, 0.23-0.36 s a program on 6.18, was mostly the
 * branches a program could never take); VFS_SYS_MAX: any call, dispatched
 * on the id the entry kept (the programs on every syscall's exit). A call
 * whose id is not want is a stale entry (its exit was never seen): dropped.
 */
static __always_inline int vfs_exit(long ret, __u32 want)
{
	__u64 now = bpf_ktime_get_ns();
	struct task_struct *task = task_current();
	__u64 id = task_pid_tgid_of(task);
	struct inflight tmp, *in;
	struct call_slot *c;
	struct scratch *s;
	__u32 sys;

	if (!(in = inflight_find((__u32)id, &c, &tmp)))
		return 0;
	sys = want == VFS_SYS_MAX ? in->sys : want;
	if (sys_is_xfer(sys) || (want != VFS_SYS_MAX && in->sys != want)) {
		inflight_free(c);
		return 0;	/* xfer: a stale entry: vfs_exit_xfer ends those calls */
	}
	if (sys_is_rw(sys) && rw_fast(task, in, sys, now, ret, id)) {
		inflight_free(c);
		return 0;
	}
	if (!(s = scratch_take())) {
		count(&counters, sys_is_rw(sys) ? CNT_LOST_CALLS : CNT_LOST);
		inflight_free(c);
		return 0;
	}
	if (sys_is_rw(sys))
		vfs_exit_rw(s, in, sys, now, ret, sys_op(sys));
	else if (sys >= VFS_SYS_CLOSE)
		vfs_exit_life(s, in, now, ret);
	else
		vfs_exit_open(s, in, now, ret, NULL);
	scratch_put(s);
	inflight_free(c);
	return 0;
}

#include "vfs-xfer.h"

/*
 * vfs_exit as a global function, for the exit programs that dispatch on the
 * syscall id: one of them makes both vfs_exit's records and vfs_exit_xfer's,
 * and with vfs_exit inlined its frame (the biggest), xfer_side's and
 * walk_path's passed the 512 bytes of stack a chain of calls may take on
 * 5.10 ("combined stack size of 3 calls is 672. Too large"); later kernels
 * count it otherwise and took it.
 */
__noinline int vfs_exit_global(long ret)
{
	return vfs_exit(ret, VFS_SYS_MAX);
}

#include "vfs-syscalls.h"

#include "vfs-fentry.h"

#include "vfs-pages.h"

#include "vfs-async.h"

/*
 * Run by user space on one CPU (BPF_F_TEST_RUN_ON_CPU: an interrupt there)
 * to send that CPU's batch when its records have waited long enough and no
 * call came to send them (src/source-live-vfs.c live_vfs_batch_flush). Never attached.
 */
SEC("raw_tp")
int vfs_batch_flush(void *ctx)
{
	batch_drain(bpf_ktime_get_ns());
	return 0;
}
