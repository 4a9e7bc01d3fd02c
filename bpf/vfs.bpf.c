/* vfs.bpf.c: opens and the read/write family per process, with absolute paths. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "blktop-abi.h"
#include "core-fixes.h"

/*
 * Variants (exactly one is loaded, chosen by src/vfs.c):
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
const volatile bool trace_uring = false;	/* the uring_* programs are loaded */
const volatile bool trace_aio = false;		/* the aio_* programs are loaded */
const volatile bool path_cache = true;		/* send a path once per open file (vfs_pslots) */

#define WAKEUP_BYTES	(1 << 20)	/* with wakeup_ns: wake anyway past this backlog */
__u64 last_wakeup = 0;

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
};
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct scratch);
} vfs_scratch SEC(".maps");

/*
 * Paths already sent, by open file (struct file), so that a read or write
 * walks its path once, not per call: a direct-mapped table indexed by a hash
 * of the struct file. A record whose path user space has is sent without it,
 * flagged VFS_PF_CACHED and naming its slot (ev_rw.slot); user space keeps
 * the path each full record of a slot carried (src/vfs.c) and puts it back,
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

static __always_inline __u32 pslot_of(const struct file *f)
{
	__u64 h = (__u64)f;

	return (__u32)((h >> 8) ^ (h >> 22)) & (VFS_PSLOTS - 1);
}

/* Add one to a per-CPU counter. */
static __always_inline void count(void *map, __u32 idx)
{
	__u64 *v = bpf_map_lookup_elem(map, &idx);

	if (v)
		(*v)++;
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

/* Whether the current task passes the -p/-c/--cgroup filters. */
static __always_inline bool wanted(__u32 tgid)
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
			__builtin_memcpy(c, bpf_get_current_task_btf()->comm, sizeof(c));
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

#include "vfs-path.h"

/* Sum the iov_len of a user iovec array (at syscall exit it is resident). */
static __always_inline __u64 iov_sum(const struct iovec *iov, __u64 cnt, __u16 *pflags)
{
	__u64 sum = 0;

	if (cnt > MAX_IOV)
		*pflags |= VFS_PF_ASKED_PARTIAL;
	for (int i = 0; i < MAX_IOV; i++) {
		__u64 len = 0;

		if (i >= cnt)
			break;
		bpf_probe_read_user(&len, sizeof(len), &iov[i].iov_len);
		sum += len;
	}
	return sum;
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
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id;
	struct inflight in = {};
	struct file *f = NULL;
	__u32 zero = 0;
	struct scratch *s;

	if (!wanted(id >> 32))
		return 0;
	/*
	 * A read or write's file is looked up at its exit (rw_file), where the
	 * call has just walked the same fd table and struct file: here they are
	 * cold, after the entry's page-table switch, and cost 60-70 ns (bench
	 * notes in README).
	 */
	if (sys == VFS_SYS_CLOSE || sys == VFS_SYS_MUNMAP) {
		__u16 ft;

		if (!(s = bpf_map_lookup_elem(&vfs_scratch, &zero)))
			return 0;
		f = sys == VFS_SYS_CLOSE ? fd_file((int)a0) : vma_file(a0);
		if (!f)
			return 0;	/* a bad fd is an error of nothing; an anonymous mapping, no file's */
		ft = file_peek(s, f, &in);
		if (!include_all && ft != VFS_FT_REG && ft != VFS_FT_BLK)
			return 0;
	} else if (sys == VFS_SYS_MMAP && (a3 & MAP_ANONYMOUS))
		return 0;
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
 * wakeup_ns, or when the backlog passes WAKEUP_BYTES; the consumer must then
 * also drain on a timer, else a last record can wait for the next wakeup.
 */
static __always_inline __u64 wake_flags(__u64 now)
{
	if (!wakeup_ns)
		return 0;
	if (now - last_wakeup >= wakeup_ns ||
	    bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >= WAKEUP_BYTES) {
		last_wakeup = now;
		return BPF_RB_FORCE_WAKEUP;
	}
	return BPF_RB_NO_WAKEUP;
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

/* The start of a call's record: type, times, who made the call. */
#define CALL_RECORD(e, t, now, in, id) do {					\
	__builtin_memset((e), 0, sizeof(*(e)));					\
	(e)->type = (t);							\
	(e)->ts = (now);							\
	(e)->lat_ns = (now) - (in)->ts;						\
	task_owner(&(e)->cgroup, (e)->comm, (now));					\
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
			off = walk_split(walk_path(off, (__u64)d, (__u64)m), pflags);
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
static __always_inline int vfs_exit_open(struct inflight *in, __u64 now, long ret,
    struct file *opened)
{
	__u32 zero = 0;
	struct scratch *s = bpf_map_lookup_elem(&vfs_scratch, &zero);
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
	CALL_RECORD(e, EV_OPEN, now, in, id);
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
 * Exit of a read/write call: file, bytes, latency; emit a record of op
 * (BLK_OP_READ or BLK_OP_WRITE). A sendfile, splice or copy_file_range comes
 * here twice, once per file (vfs_exit_xfer).
 */
static __always_inline int vfs_exit_rw(struct inflight *in, __u64 now, long ret, __u16 op)
{
	__u32 zero = 0;
	struct scratch *s = bpf_map_lookup_elem(&vfs_scratch, &zero);
	struct ev_rw *e;
	struct file *f;
	struct finfo fi = {};
	__u64 id = bpf_get_current_pid_tgid();
	__u16 pflags = 0;
	__u32 len, base = sizeof(struct ev_rw);
	__u32 epoch = *(volatile __u32 *)&path_epoch;	/* before the walk: a rename meanwhile wins */

	if (!s || ((sys_is_rw(in->sys) || sys_is_xfer(in->sys)) && !rw_file(s, in)) ||
	    (sys_is_async(in->sys) && !async_file(s, in)))
		return 0;	/* rw_file: the file of a system call (see below) */
	e = (struct ev_rw *)s->buf;
	CALL_RECORD(e, EV_RW, now, in, id);
	e->sys = in->sys;
	e->op = op;
	e->pos = -1;
	if (ret < 0) {
		e->error = ret;
		e->done = 0;
	} else {
		e->done = (__u64)ret;
	}

	switch (in->sys) {
	case VFS_SYS_READV:
	case VFS_SYS_WRITEV:
		e->asked = iov_sum((const struct iovec *)in->arg[1], in->arg[2], &pflags);
		break;
	case VFS_SYS_PREADV:
	case VFS_SYS_PWRITEV:
	case VFS_SYS_PREADV2:
	case VFS_SYS_PWRITEV2:
		e->asked = iov_sum((const struct iovec *)in->arg[1], in->arg[2], &pflags);
		e->pos = in->arg[3];
		break;
	case VFS_SYS_PREAD64:
	case VFS_SYS_PWRITE64:
	case VFS_SYS_AIO_READ:
	case VFS_SYS_AIO_WRITE:
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

	/*
	 * The file: for a system call, the one its fd names at the exit. The
	 * call held a reference to the file it used, whose last fput, if
	 * another thread closed the fd meanwhile, runs only on the way back to
	 * user space, after this hook; but the fd may then name another file,
	 * opened meanwhile by another thread, or none (a known limit, README).
	 * For the other paths, the file found at entry.
	 */
	f = (struct file *)in->file;
	e->fd = in->sys == VFS_SYS_VFS_READ || in->sys == VFS_SYS_VFS_WRITE ? -1 : (int)in->arg[0];
	e->ftype = VFS_FT_NONE;
	if (in->hit && pslot_take(in, e)) {
		if (in->fflags & O_DIRECT_FLAG)
			pflags |= VFS_PF_DIRECT;
		e->path_len = 0;
		e->path_flags = pflags | VFS_PF_CACHED;
		s->buf[base] = '\0';
		if (!batch_add(s->buf, now))
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

/*
 * Exit of a lifecycle call (EV_FOP): close, mmap and munmap name their file
 * like a read does (its path walked; the file is still there at close's exit:
 * its last reference goes only on the way back to user space); the by-name
 * calls send the path(s) as passed, joined to the cwd or dirfd.
 */
static __always_inline int vfs_exit_life(struct inflight *in, __u64 now, long ret)
{
	__u32 zero = 0;
	struct scratch *s = bpf_map_lookup_elem(&vfs_scratch, &zero);
	struct ev_fop *e;
	struct file *f = NULL;
	__u64 id = bpf_get_current_pid_tgid();
	__u16 pflags = 0, pflags2 = 0;
	__u32 len = 0, len2 = 0, base = sizeof(struct ev_fop), off2;
	const char *up = NULL, *up2 = NULL;
	int dfd = AT_FDCWD, dfd2 = AT_FDCWD;
	bool at;
	__u64 next;
	struct finfo fi;
	__u32 rdev;

	if (!s)
		return 0;
	e = (struct ev_fop *)s->buf;
	CALL_RECORD(e, EV_FOP, now, in, id);
	e->error = ret < 0 && ret >= -4095 ? (__s32)ret : 0;
	e->fd = -1;
	e->sys = in->sys;
	e->ftype = VFS_FT_NONE;

	switch (in->sys) {
	case VFS_SYS_CLOSE:
		e->op = FOP_CLOSE;
		e->fd = (__s32)in->arg[0];
		f = (struct file *)in->file;
		break;
	case VFS_SYS_MMAP:
		e->op = FOP_MMAP;
		e->len = in->arg[1];
		e->mode = (__u32)in->arg[2];
		e->flags = (__u32)in->arg[3];
		e->fd = (__s32)(in->arg[2] >> 32);
		if (e->error == 0) {
			e->addr = (__u64)ret;
			f = fd_file(e->fd);
		}
		break;
	case VFS_SYS_MUNMAP:
		e->op = FOP_MUNMAP;
		e->addr = in->arg[0];
		e->len = in->arg[1];
		f = (struct file *)in->file;
		break;
	default:
		/*
		 * By name: the *at forms take a dirfd first, then the
		 * plain form's arguments (renameat: a second dirfd between
		 * the names).
		 */
		at = in->sys == VFS_SYS_UNLINKAT || in->sys == VFS_SYS_MKDIRAT ||
		    in->sys == VFS_SYS_MKNODAT || in->sys == VFS_SYS_RENAMEAT ||
		    in->sys == VFS_SYS_RENAMEAT2;
		if (at)
			dfd = (int)in->arg[0];
		up = (const char *)(at ? in->arg[1] : in->arg[0]);
		next = at ? in->arg[2] : in->arg[1];
		switch (in->sys) {
		case VFS_SYS_UNLINK:
			e->op = FOP_UNLINK;
			break;
		case VFS_SYS_UNLINKAT:
			e->flags = (__u32)next;
			e->op = (e->flags & AT_REMOVEDIR) ? FOP_RMDIR : FOP_UNLINK;
			break;
		case VFS_SYS_RMDIR:
			e->op = FOP_RMDIR;
			break;
		case VFS_SYS_MKDIR:
		case VFS_SYS_MKDIRAT:
			e->op = FOP_MKDIR;
			e->mode = (__u32)next;
			break;
		case VFS_SYS_MKNOD:
		case VFS_SYS_MKNODAT:
			e->op = FOP_MKNOD;
			e->mode = (__u32)next;
			break;
		case VFS_SYS_RENAME:
			e->op = FOP_RENAME;
			up2 = (const char *)next;
			break;
		case VFS_SYS_RENAMEAT:
		case VFS_SYS_RENAMEAT2:
			e->op = FOP_RENAME;
			dfd2 = (int)in->arg[2];
			up2 = (const char *)in->arg[3];
			break;
		default:
			return 0;
		}
		break;
	}

	if (f && in->sys == VFS_SYS_MMAP) {
		/* Close and munmap peeked at entry, and filtered there. */
		__u16 ft = file_peek(s, f, in);

		if (!include_all && ft != VFS_FT_REG && ft != VFS_FT_BLK)
			return 0;
	}
	if (f && in->hit && pslot_get(in, &e->ino, &e->dev, &e->ftype, &rdev)) {
		/* Its path went out already (its open, a read): user space puts it back. */
		e->slot = in->hit;
		e->path_flags = VFS_PF_CACHED;
		s->buf[base] = '\0';
		s->buf[base + 1] = '\0';
		emit(s, base + 2, now);
		return 0;
	}
	if (f)
		len = file_record(s, base, f, &fi, &e->ftype, &e->ino, &e->dev, &pflags);
	else if (up) {
		pflags |= VFS_PF_AS_PASSED;
		len = upath_at(s, base, dfd, up, &pflags) - base;
	} else
		pflags |= VFS_PF_NOPATH;
	if (len >= VFS_PATH_MAX - 1) {
		pflags |= VFS_PF_TRUNC;
		len = VFS_PATH_MAX - 2;
	}
	len &= PATH_MASK;
	s->buf[MASKED(base + len, BUF_MASK)] = '\0';
	off2 = base + len + 1;
	if (up2) {
		/* The new name: what room the old one left (both fit one record). */
		len2 = upath_at(s, off2, dfd2, up2, &pflags2) - off2;
		if (len + len2 >= VFS_PATH_MAX - 2) {
			pflags |= VFS_PF_TRUNC;
			len2 = len < VFS_PATH_MAX - 2 ? VFS_PATH_MAX - 2 - len - 1 : 0;
		}
	}
	len2 &= PATH_MASK;
	s->buf[MASKED(off2 + len2, BUF_MASK)] = '\0';
	e->path_len = len;
	e->path2_len = len2;
	e->path_flags = pflags | (pflags2 & (VFS_PF_TRUNC | VFS_PF_UNREACHABLE));
	emit(s, base + len + len2 + 2, now);
	return 0;
}

/* Syscall exit: finish the call this thread started, if any. */
static __always_inline int vfs_exit(long ret)
{
	__u64 now = bpf_ktime_get_ns();
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct inflight in;

	if (!inflight_take(tid, &in))
		return 0;
	if (sys_is_rw(in.sys))
		return vfs_exit_rw(&in, now, ret, sys_op(in.sys));
	if (sys_is_xfer(in.sys))
		return 0;	/* a stale entry: vfs_exit_xfer ends those calls */
	if (in.sys >= VFS_SYS_CLOSE)
		return vfs_exit_life(&in, now, ret);
	return vfs_exit_open(&in, now, ret, NULL);
}

/*
 * The arguments of sendfile(out_fd, in_fd, offset, count), splice and
 * copy_file_range(fd_in, off_in, fd_out, off_out, len, ...) in one layout:
 * arg[0] the two fds (fd_in in the low half), arg[1] and arg[3] the offset
 * pointers of each side (0 if none), arg[2] the bytes asked.
 */
static __always_inline int xfer_enter(__u32 sys, __u64 a0, __u64 a1, __u64 a2, __u64 a3,
    __u64 a4)
{
	if (sys == VFS_SYS_SENDFILE)
		return vfs_enter(sys, (__u32)a1 | (__u64)(__u32)a0 << 32, a2, a3, 0);
	return vfs_enter(sys, (__u32)a0 | (__u64)(__u32)a2 << 32, a1, a4, a3);
}

/*
 * The offset one side started at: the call moved the offset it was passed
 * (a user pointer) on by what it did; -1 where it used the file's position.
 */
static __always_inline __s64 xfer_pos(__u64 uptr, long ret)
{
	__s64 pos = -1;

	if (!uptr || bpf_probe_read_user(&pos, sizeof(pos), (const void *)uptr))
		return -1;
	return ret > 0 ? pos - ret : pos;
}

/*
 * One side of the sendfile, splice or copy_file_range in the CPU's scratch
 * (vfs_exit_xfer): the read record of the file the bytes came from, or the
 * write record of the one they went to. A global function, so the verifier
 * checks the record's making once, not once per side and caller (each
 * inlined copy cost an exit program ~30,000 more instructions to verify);
 * it finds its scratch itself (5.10: a global function takes no pointer).
 */
__noinline int xfer_side(__u32 write, long ret)
{
	__u32 zero = 0;
	struct scratch *s = bpf_map_lookup_elem(&vfs_scratch, &zero);
	struct inflight side;

	if (!s)
		return 0;
	side = s->xfer;
	if (write) {
		side.arg[0] = s->xfer.arg[0] >> 32;
		side.arg[3] = xfer_pos(s->xfer.arg[3], ret);
	} else {
		side.arg[0] = (__u32)s->xfer.arg[0];
		side.arg[3] = xfer_pos(s->xfer.arg[1], ret);
	}
	return vfs_exit_rw(&side, s->xfer_now, ret, write ? BLK_OP_WRITE : BLK_OP_READ);
}

/*
 * Exit of a sendfile, splice or copy_file_range: a read record of the file
 * the bytes came from and a write record of the one they went to, each with
 * the bytes the call returned, so each file and each direction of the
 * process counts the call and its bytes once (a file that is not traced,
 * such as sendfile's socket, has no record).
 */
static __always_inline int vfs_exit_xfer(long ret)
{
	__u64 now = bpf_ktime_get_ns();
	__u32 tid = (__u32)bpf_get_current_pid_tgid(), zero = 0;
	struct scratch *s = bpf_map_lookup_elem(&vfs_scratch, &zero);

	/* The call goes to the scratch, not the stack: see vfs_exit_global. */
	if (!s || !inflight_take(tid, &s->xfer) || !sys_is_xfer(s->xfer.sys))
		return 0;
	s->xfer_now = now;
	xfer_side(0, ret);
	return xfer_side(1, ret);
}

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
	return vfs_exit(ret);
}

#include "syscalls-arch.h"

static __always_inline int regs_enter(struct pt_regs *regs, long nr, bool btf)
{
	int sys = nr_to_sys(nr);
	__u64 a0, a1, a2, a3;

	if (sys < 0 || REGS_COMPAT(btf, regs))
		return 0;
	REGS_ARG(btf, regs, a0, a1, a2, a3);
	if (sys_is_xfer(sys))
		return xfer_enter(sys, a0, a1, a2, a3, REGS_ARG4(btf, regs));
	if (sys == VFS_SYS_MMAP)	/* prot's upper half carries the fd (the 5th argument) */
		a2 = (__u32)a2 | (__u64)(__u32)REGS_ARG4(btf, regs) << 32;
	return vfs_enter(sys, a0, a1, a2, a3);
}

/* Every syscall's exit passes here: the id check comes first. */
static __always_inline int regs_exit(struct pt_regs *regs, long ret, bool btf)
{
	int sys = nr_to_sys(REGS_ID(btf, regs));

	if (sys < 0)
		return 0;
	if (sys_is_xfer(sys))
		return vfs_exit_xfer(ret);
	return vfs_exit_global(ret);
}

/* Variant tp_btf: typed raw tracepoints on sys_enter/sys_exit. */
SEC("tp_btf/sys_enter")
int BPF_PROG(vfs_btf_enter, struct pt_regs *regs, long nr) { return regs_enter(regs, nr, true); }
SEC("tp_btf/sys_exit")
int BPF_PROG(vfs_btf_exit, struct pt_regs *regs, long ret) { return regs_exit(regs, ret, true); }

/* Variant raw_tp: untyped raw tracepoints, same dispatch. */
SEC("raw_tp/sys_enter")
int BPF_PROG(vfs_raw_enter, struct pt_regs *regs, long nr) { return regs_enter(regs, nr, false); }
SEC("raw_tp/sys_exit")
int BPF_PROG(vfs_raw_exit, struct pt_regs *regs, long ret) { return regs_exit(regs, ret, false); }

/* Variant tracepoint: one classic tracepoint per syscall and direction. */
struct sc_enter {
	__u64 ent;
	__s32 nr;
	__u32 pad;
	__u64 args[6];
};
struct sc_exit {
	__u64 ent;
	__s32 nr;
	__u32 pad;
	__s64 ret;
};

/*
 * The kernel refuses (EACCES) to attach a program that reads past the
 * tracepoint's record, which holds only the syscall's own arguments: read
 * args[i] only when i < nargs.
 */
#define TP_ARG(ctx, i, nargs)	((i) < (nargs) ? (ctx)->args[(i) < 6 ? (i) : 0] : 0)

#define TP_PAIR(name, sys, group, nargs)					\
SEC("tracepoint/syscalls/sys_enter_" #name)					\
int vfs_tp_enter_##name(struct sc_enter *ctx)					\
{										\
	if (!group)								\
		return 0;							\
	return vfs_enter(sys, TP_ARG(ctx, 0, nargs), TP_ARG(ctx, 1, nargs),	\
	    TP_ARG(ctx, 2, nargs), TP_ARG(ctx, 3, nargs));			\
}										\
SEC("tracepoint/syscalls/sys_exit_" #name)					\
int vfs_tp_exit_##name(struct sc_exit *ctx)					\
{										\
	if (!group)								\
		return 0;							\
	return vfs_exit(ctx->ret);						\
}

TP_PAIR(open, VFS_SYS_OPEN, trace_open, 3)
TP_PAIR(creat, VFS_SYS_CREAT, trace_open, 2)
TP_PAIR(openat, VFS_SYS_OPENAT, trace_open, 4)
TP_PAIR(openat2, VFS_SYS_OPENAT2, trace_open, 4)
TP_PAIR(read, VFS_SYS_READ, trace_rw, 3)
TP_PAIR(write, VFS_SYS_WRITE, trace_rw, 3)
TP_PAIR(pread64, VFS_SYS_PREAD64, trace_rw, 4)
TP_PAIR(pwrite64, VFS_SYS_PWRITE64, trace_rw, 4)
TP_PAIR(readv, VFS_SYS_READV, trace_rw, 3)
TP_PAIR(writev, VFS_SYS_WRITEV, trace_rw, 3)
TP_PAIR(preadv, VFS_SYS_PREADV, trace_rw, 5)
TP_PAIR(pwritev, VFS_SYS_PWRITEV, trace_rw, 5)
TP_PAIR(preadv2, VFS_SYS_PREADV2, trace_rw, 6)
TP_PAIR(pwritev2, VFS_SYS_PWRITEV2, trace_rw, 6)
TP_PAIR(close, VFS_SYS_CLOSE, trace_life, 1)
TP_PAIR(munmap, VFS_SYS_MUNMAP, trace_life, 2)
TP_PAIR(unlink, VFS_SYS_UNLINK, trace_life, 1)
TP_PAIR(unlinkat, VFS_SYS_UNLINKAT, trace_life, 3)
TP_PAIR(rmdir, VFS_SYS_RMDIR, trace_life, 1)
TP_PAIR(mkdir, VFS_SYS_MKDIR, trace_life, 2)
TP_PAIR(mkdirat, VFS_SYS_MKDIRAT, trace_life, 3)
TP_PAIR(mknod, VFS_SYS_MKNOD, trace_life, 3)
TP_PAIR(mknodat, VFS_SYS_MKNODAT, trace_life, 4)
TP_PAIR(rename, VFS_SYS_RENAME, trace_life, 2)
TP_PAIR(renameat, VFS_SYS_RENAMEAT, trace_life, 4)
TP_PAIR(renameat2, VFS_SYS_RENAMEAT2, trace_life, 5)

/* sendfile, splice, copy_file_range: xfer_enter, vfs_exit_xfer. */
#define TP_XFER(name, sys, nargs)						\
SEC("tracepoint/syscalls/sys_enter_" #name)					\
int vfs_tp_enter_##name(struct sc_enter *ctx)					\
{										\
	if (!trace_rw)								\
		return 0;							\
	return xfer_enter(sys, TP_ARG(ctx, 0, nargs), TP_ARG(ctx, 1, nargs),	\
	    TP_ARG(ctx, 2, nargs), TP_ARG(ctx, 3, nargs), TP_ARG(ctx, 4, nargs));\
}										\
SEC("tracepoint/syscalls/sys_exit_" #name)					\
int vfs_tp_exit_##name(struct sc_exit *ctx)					\
{										\
	if (!trace_rw)								\
		return 0;							\
	return vfs_exit_xfer(ctx->ret);						\
}

TP_XFER(sendfile64, VFS_SYS_SENDFILE, 4)	/* 64-bit sendfile is the kernel's sendfile64 */
TP_XFER(splice, VFS_SYS_SPLICE, 6)
TP_XFER(copy_file_range, VFS_SYS_COPY_FILE_RANGE, 6)

SEC("tracepoint/syscalls/sys_enter_mmap")
int vfs_tp_enter_mmap(struct sc_enter *ctx)
{
	if (!trace_life)
		return 0;
	return vfs_enter(VFS_SYS_MMAP, ctx->args[0], ctx->args[1],
	    (__u32)ctx->args[2] | (__u64)(__u32)ctx->args[4] << 32, ctx->args[3]);
}
SEC("tracepoint/syscalls/sys_exit_mmap")
int vfs_tp_exit_mmap(struct sc_exit *ctx)
{
	if (!trace_life)
		return 0;
	return vfs_exit(ctx->ret);
}

/*
 * A rename or an unlink may change the path of any open file (a directory's
 * rename, of every file below it) or make it deleted: every path is sent
 * again (loaded beside any variant, each where the kernel has its
 * tracepoint; the path slots are used only where renameat2 and unlinkat
 * have theirs, src/vfs.c). io_uring's renames and unlinks: uring_submit.
 */
static __always_inline int paths_stale(long ret)
{
	if (ret == 0)
		__sync_fetch_and_add(&path_epoch, 1);
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_rename")
int names_rename(struct sc_exit *ctx) { return paths_stale(ctx->ret); }
SEC("tracepoint/syscalls/sys_exit_renameat")
int names_renameat(struct sc_exit *ctx) { return paths_stale(ctx->ret); }
SEC("tracepoint/syscalls/sys_exit_renameat2")
int names_renameat2(struct sc_exit *ctx) { return paths_stale(ctx->ret); }
SEC("tracepoint/syscalls/sys_exit_unlink")
int names_unlink(struct sc_exit *ctx) { return paths_stale(ctx->ret); }
SEC("tracepoint/syscalls/sys_exit_unlinkat")
int names_unlinkat(struct sc_exit *ctx) { return paths_stale(ctx->ret); }

/*
 * Variant fentry: vfs_read/vfs_write see the file directly (also reads done by
 * the kernel on behalf of a task, e.g. exec); do_filp_open sees opens but not
 * the fd, so ret is 0 or -errno there.
 */
/*
 * Argument i of a fentry/fexit program as a plain number. The typed pointer
 * allows no arithmetic, and pslot_of hashes it ("R1 pointer arithmetic with
 * >>= operator prohibited"); the other variants' files are numbers already.
 */
static __always_inline struct file *fentry_file_arg(unsigned long long *ctx, __u32 i)
{
	__u64 v = 0;

	bpf_probe_read_kernel(&v, sizeof(v), &ctx[i & 7]);
	return (struct file *)v;
}

static __always_inline int fentry_rw_enter(__u32 sys, struct file *f, size_t n)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id;
	struct inflight in = {};
	__u32 zero = 0;
	struct scratch *s;
	__u16 ft;

	if (!trace_rw || !wanted(id >> 32) || !(s = bpf_map_lookup_elem(&vfs_scratch, &zero)))
		return 0;
	ft = file_peek(s, f, &in);
	if (!include_all && ft != VFS_FT_REG && ft != VFS_FT_BLK)
		return 0;
	in.sys = sys;
	in.arg[0] = -1;
	in.arg[2] = n;
	in.file = (__u64)f;
	in.ts = bpf_ktime_get_ns();
	inflight_put(tid, &in);
	return 0;
}

SEC("fentry/vfs_read")
int BPF_PROG(vfs_fentry_read, struct file *f, char *buf, size_t n, loff_t *pos)
{
	return fentry_rw_enter(VFS_SYS_VFS_READ, fentry_file_arg(ctx, 0), n);
}

SEC("fexit/vfs_read")
int BPF_PROG(vfs_fexit_read, struct file *f, char *buf, size_t n, loff_t *pos, ssize_t ret)
{
	return vfs_exit(ret);
}

SEC("fentry/vfs_write")
int BPF_PROG(vfs_fentry_write, struct file *f, const char *buf, size_t n, loff_t *pos)
{
	return fentry_rw_enter(VFS_SYS_VFS_WRITE, fentry_file_arg(ctx, 0), n);
}

SEC("fexit/vfs_write")
int BPF_PROG(vfs_fexit_write, struct file *f, const char *buf, size_t n, loff_t *pos,
    ssize_t ret)
{
	return vfs_exit(ret);
}

SEC("fexit/do_filp_open")
int BPF_PROG(vfs_fexit_filp_open, int dfd, struct filename *name, const struct open_flags *op,
    struct file *ret)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct inflight in = {};
	long r = 0;

	if (!trace_open || !wanted(id >> 32))
		return 0;
	ret = fentry_file_arg(ctx, 3);
	in.sys = VFS_SYS_FILP_OPEN;
	in.arg[1] = BPF_CORE_READ(op, open_flag);
	in.arg[2] = BPF_CORE_READ(op, mode);
	in.ts = bpf_ktime_get_ns();	/* no entry hook: latency not measured */
	if ((unsigned long)ret >= (unsigned long)-4095) {
		r = (long)ret;
		ret = NULL;
	}
	return vfs_exit_open(&in, in.ts, r, ret);
}

/*
 * Page-cache events (struct ev_page), loaded beside any variant where the
 * kernel has the typed tracepoints (src/vfs.c probes each). A page dirtied
 * or a mapping faulted is charged to the task it happens in: the writer of a
 * write(), the task storing through or touching a shared mapping.
 */
static __always_inline int page_event(struct address_space *m, __u16 kind, __u32 bytes)
{
	__u64 id = bpf_get_current_pid_tgid(), now;
	struct inode *host;
	struct ev_page *ev;
	__u16 mode;

	if (!trace_pages || !m || !wanted(id >> 32))
		return 0;
	host = m->host;
	if (!host)
		return 0;
	mode = host->i_mode;
	if ((mode & S_IFMT) == S_IFBLK)
		return 0;	/* the block device's cache: metadata, charged nowhere */
	now = bpf_ktime_get_ns();
	batch_drain(now);
	ev = bpf_ringbuf_reserve(&events, sizeof(*ev), 0);
	if (!ev) {
		count(&counters, CNT_LOST);
		return 0;
	}
	ev->type = EV_PAGE;
	ev->dev = host->i_sb->s_dev;
	ev->ts = now;
	ev->ino = host->i_ino;
	ev->bytes = bytes;
	ev->pid = (__u32)id;
	ev->tgid = id >> 32;
	ev->kind = kind;
	ev->pad = 0;
	task_owner(&ev->cgroup, ev->comm, now);
	bpf_ringbuf_submit(ev, wake_flags(ev->ts));
	return 0;
}

/* Bytes of a folio: a page, or 2^order pages for a large folio (order in the second page's flags). */
static __always_inline __u32 folio_bytes(struct folio *folio)
{
	unsigned long fl = 0, fl1 = 0;

	bpf_probe_read_kernel(&fl, sizeof(fl), folio);	/* page flags: the first word in every layout */
	if (!(fl & (1UL << bpf_core_enum_value(enum pageflags, PG_head))))
		return 4096;
	bpf_probe_read_kernel(&fl1, sizeof(fl1), &folio->_flags_1);
	return 4096u << (fl1 & 0x1f);
}

SEC("tp_btf/writeback_dirty_folio")
int BPF_PROG(page_dirty, struct folio *folio, struct address_space *mapping)
{
	return page_event(mapping, PAGE_DIRTY, folio_bytes(folio));
}

/* Before folios (5.10 to 5.17): writeback_dirty_page, one page. */
SEC("tp_btf/writeback_dirty_page")
int BPF_PROG(page_dirty_page, struct page *page, struct address_space *mapping)
{
	return page_event(mapping, PAGE_DIRTY, 4096);
}

SEC("tp_btf/mm_filemap_fault")
int BPF_PROG(page_fault, struct address_space *mapping, unsigned long index)
{
	return page_event(mapping, PAGE_FAULT, 4096);
}

/*
 * Async submissions between submission and completion (io_uring requests by
 * request pointer, libaio iocbs by user address and process): a
 * direct-mapped array, two slots per key, claimed by a compare-and-swap of
 * the key, as vfs_calls is (an LRU hash update, lookup and delete per
 * request, which it replaces, cost more than the record). A key whose two
 * slots are both taken goes to the LRU hash, where a submission never
 * completed ages out; an array slot holding one is taken over after
 * ASYNC_STALE_NS. The compat build (no compare-and-swap) uses the hash only.
 */
#define NASYNC		16384
#define ASYNC_STALE_NS	(60ULL * 1000000000)

struct async_key {
	__u64 key;		/* request pointer, or iocb address */
	__u64 key2;		/* 0, or the iocb's tgid */
};

struct async_sub {
	__u64 ts;
	__u64 nbytes;		/* libaio: asked, or (u64)-1 (vectored: what was done) */
	__s64 pos;		/* libaio: offset */
	__s32 fd;
	__u32 sys;
};

struct async_slot {
	struct async_key k;	/* k.key 0 when free */
	struct async_sub sub;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, NASYNC);
	__type(key, __u32);
	__type(value, struct async_slot);
} async_slots SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, struct async_key);
	__type(value, struct async_sub);
} async_spill SEC(".maps");

static __always_inline __u32 async_index(__u64 key, __u64 key2)
{
	return (__u32)((((key >> 4) ^ key2) * 0x9E3779B97F4A7C15ULL) >> 40) & (NASYNC - 1);
}

/* Keep a submission until its completion. */
static __always_inline void async_put(__u64 key, __u64 key2, const struct async_sub *sub)
{
	struct async_key k = { .key = key, .key2 = key2 };
	__u32 i = async_index(key, key2), probe;
	struct async_slot *a;
	__u64 cur;

	if (!key)
		return;		/* 0 marks a free slot */
	for (probe = 0; probe < 2 && HAVE_ATOMIC_FETCH; probe++, i ^= 1) {
		a = bpf_map_lookup_elem(&async_slots, &i);
		if (!a)
			continue;
		cur = *(volatile __u64 *)&a->k.key;
		if (cur == key && a->k.key2 == key2) {
			a->sub = *sub;	/* submitted again, its completion unseen */
			return;
		}
#if HAVE_ATOMIC_FETCH
		if ((cur == 0 || sub->ts - a->sub.ts > ASYNC_STALE_NS) &&
		    __sync_val_compare_and_swap(&a->k.key, cur, key) == cur) {
			a->k.key2 = key2;
			a->sub = *sub;
			return;
		}
#endif
	}
	bpf_map_update_elem(&async_spill, &k, sub, BPF_ANY);
}

/* Take a submission back at its completion, freeing its entry; false if none. */
static __always_inline bool async_take(__u64 key, __u64 key2, struct async_sub *out)
{
	struct async_key k = { .key = key, .key2 = key2 };
	__u32 i = async_index(key, key2), probe;
	struct async_slot *a;
	struct async_sub *p;

	if (!key)
		return false;
	for (probe = 0; probe < 2 && HAVE_ATOMIC_FETCH; probe++, i ^= 1) {
		a = bpf_map_lookup_elem(&async_slots, &i);
		if (a && a->k.key == key && a->k.key2 == key2) {
			*out = a->sub;
			*(volatile __u64 *)&a->k.key = 0;	/* after the copy */
			return true;
		}
	}
	p = bpf_map_lookup_elem(&async_spill, &k);
	if (!p)
		return false;
	*out = *p;
	bpf_map_delete_elem(&async_spill, &k);
	return true;
}

/* The read/write record of an async completion: its submission, file and result. */
static __always_inline int async_done(const struct async_sub *sub, struct file *f, __u64 asked,
    __s64 res, __u64 now)
{
	struct inflight in = {};

	in.ts = sub->ts;
	in.sys = sub->sys;
	in.arg[0] = sub->fd;
	in.arg[2] = asked;
	in.arg[3] = sub->pos;
	in.file = (__u64)f;
	return vfs_exit_rw(&in, now, res, sys_op(in.sys));
}

/*
 * io_uring reads and writes (tp_btf, loaded beside any variant where the
 * kernel has the tracepoints): the submission's time by request, then at
 * completion a read/write record like a syscall's, its latency submission
 * to completion, its file the request's.
 */
struct uring_sub {		/* 5.10's shape */
	__u64 ts;
	__u64 file;		/* its completion names no request */
	__u32 sys;
	__s32 fd;
};

/* 5.10's shape: a submission by ring and user_data, all its completion names. */
struct uring_ud_key {
	__u64 ring;
	__u64 user_data;
};
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, struct uring_ud_key);
	__type(value, struct uring_sub);
} uring_subs_ud SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} uring_keybits SEC(".maps");

/* A request pointer as a number (see blktop.bpf.c's ctx_key). */
static __always_inline __u64 uring_key(const void *p)
{
	__u32 zero = 0;
	__u64 *k = bpf_map_lookup_elem(&uring_keybits, &zero);

	if (!k)
		return 0;
	*(volatile const void **)k = p;
	return *(volatile __u64 *)k;
}

/*
 * The read/write op of an io_uring opcode, or 0 for the others. The opcodes
 * are uapi (include/uapi/linux/io_uring.h), fixed: numbers, not relocations
 * against enum io_uring_op, which 5.10's BTF does not carry.
 */
static __always_inline __u32 uring_sys(__u8 op)
{
	if (op == 22 || op == 1 || op == 4)	/* IORING_OP_READ, _READV, _READ_FIXED */
		return VFS_SYS_URING_READ;
	if (op == 23 || op == 2 || op == 5)	/* IORING_OP_WRITE, _WRITEV, _WRITE_FIXED */
		return VFS_SYS_URING_WRITE;
	return 0;
}

/* A submission, with its typed request (the shapes of 5.19 and newer). */
static __always_inline int uring_submit_req(struct io_kiocb *req)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct async_sub sub = {};

	if (!trace_uring)
		return 0;
	if (req->opcode == 35 || req->opcode == 36)	/* IORING_OP_RENAMEAT, _UNLINKAT */
		return paths_stale(0);	/* before it is done: the slots of its file go stale */
	if (!wanted(id >> 32))
		return 0;
	sub.sys = uring_sys(req->opcode);
	if (!sub.sys)
		return 0;
	sub.fd = req->cqe.fd;
	sub.pos = -1;
	sub.ts = bpf_ktime_get_ns();
	async_put(uring_key(req), 0, &sub);
	return 0;
}

/* Linux 6.4 and newer: io_uring_submit_req(req). */
SEC("tp_btf/io_uring_submit_req")
int BPF_PROG(uring_submit, struct io_kiocb *req)
{
	return uring_submit_req(req);
}

/* Linux 5.19 to 6.3 (Debian 12's 6.1): io_uring_submit_sqe(req, force_nonblock). */
SEC("tp_btf/io_uring_submit_sqe")
int BPF_PROG(uring_submit_sqe, struct io_kiocb *req, bool force_nonblock)
{
	return uring_submit_req(req);
}

/* A completion by its request (5.19 and newer). */
static __always_inline int uring_complete_req(void *req, __s32 res)
{
	struct io_kiocb *r = req;
	struct async_sub sub;
	struct file *f = NULL;

	if (!trace_uring || !async_take(uring_key(req), 0, &sub))
		return 0;	/* not a read or write, or submitted before blktop attached */
	bpf_probe_read_kernel(&f, sizeof(f), &r->file);
	/* The length asked is not kept: what was done stands for it. */
	return async_done(&sub, f, res > 0 ? res : 0, res, bpf_ktime_get_ns());
}

/* Linux 6.2 and newer: io_uring_complete(ctx, req, cqe). */
SEC("tp_btf/io_uring_complete")
int BPF_PROG(uring_complete, struct io_ring_ctx *ring, void *req, struct io_uring_cqe *cqe)
{
	return uring_complete_req(req, cqe->res);	/* typed: a plain load */
}

/* Linux 5.19 to 6.1: io_uring_complete(ctx, req, user_data, res, cflags, extra1, extra2). */
SEC("tp_btf/io_uring_complete")
int BPF_PROG(uring_complete_v61, void *ring, void *req, __u64 user_data, int res,
    unsigned int cflags, __u64 extra1, __u64 extra2)
{
	return uring_complete_req(req, res);
}

/*
 * Linux 5.10 (to 5.18): io_uring_submit_sqe(ctx, req, opcode, user_data,
 * flags, force_nonblock, sq_thread), io_uring_complete(ctx, user_data, res,
 * cflags): the completion names no request, so the submission is kept by
 * ring and user_data, with its file (the request holds it to completion).
 */
SEC("tp_btf/io_uring_submit_sqe")
int BPF_PROG(uring_submit_v510, void *ring, void *req, __u8 opcode, __u64 user_data,
    __u32 flags, bool force_nonblock, bool sq_thread)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct uring_ud_key key = {};
	struct uring_sub sub = {};
	struct io_kiocb *r = req;

	if (!trace_uring)
		return 0;
	if (opcode == 35 || opcode == 36)	/* IORING_OP_RENAMEAT, _UNLINKAT (5.11+) */
		return paths_stale(0);
	if (!wanted(id >> 32) || !(sub.sys = uring_sys(opcode)))
		return 0;
	sub.fd = -1;
	bpf_probe_read_kernel(&sub.file, sizeof(sub.file), &r->file);
	sub.ts = bpf_ktime_get_ns();
	key.ring = uring_key(ring);
	key.user_data = user_data;
	bpf_map_update_elem(&uring_subs_ud, &key, &sub, BPF_ANY);
	return 0;
}

SEC("tp_btf/io_uring_complete")
int BPF_PROG(uring_complete_v510, void *ring, __u64 user_data, int res, unsigned int cflags)
{
	struct uring_ud_key key = {};
	struct async_sub as = { .pos = -1 };
	struct uring_sub *sub;
	__u64 f;

	if (!trace_uring)
		return 0;
	key.ring = uring_key(ring);
	key.user_data = user_data;
	sub = bpf_map_lookup_elem(&uring_subs_ud, &key);
	if (!sub)
		return 0;
	as.ts = sub->ts;
	as.sys = sub->sys;
	as.fd = sub->fd;
	f = sub->file;
	bpf_map_delete_elem(&uring_subs_ud, &key);
	return async_done(&as, (struct file *)f, res > 0 ? res : 0, res, bpf_ktime_get_ns());
}

/*
 * libaio (classic syscall tracepoints, loaded beside any variant where the
 * kernel has them): io_submit's iocbs are read from user memory at entry and
 * kept by (process, iocb address); io_getevents/io_pgetevents' events, read
 * at exit, find them again: a read/write record per reaped iocb, its latency
 * from submission to the reap, its file the fd's at the reap.
 */
#define MAX_AIO		64	/* iocbs read per io_submit, events per reap */

struct aio_ctx {
	const struct iocb *const *iocbpp;	/* io_submit */
	const struct io_event *events;		/* io_getevents */
	__u64 now;
	__u32 tgid;
	__u32 n;
};

/*
 * The compat build has no bpf_loop (a callback, core-fixes.h): its aio
 * programs do nothing and the loader leaves them out (bpf_loop: 5.17).
 */
#if HAVE_CALLBACKS
static long aio_submit_one(__u32 i, struct aio_ctx *c)
{
	struct async_sub sub = {};
	const struct iocb *cbp = NULL;
	struct iocb cb;

	if (i >= c->n)
		return 1;
	if (bpf_probe_read_user(&cbp, sizeof(cbp), &c->iocbpp[i & (MAX_AIO - 1)]) || !cbp ||
	    bpf_probe_read_user(&cb, sizeof(cb), cbp))
		return 0;
	switch (cb.aio_lio_opcode) {
	case 0: case 7:	sub.sys = VFS_SYS_AIO_READ; break;	/* IOCB_CMD_PREAD, PREADV */
	case 1: case 8:	sub.sys = VFS_SYS_AIO_WRITE; break;	/* IOCB_CMD_PWRITE, PWRITEV */
	default:	return 0;
	}
	sub.ts = c->now;
	sub.fd = cb.aio_fildes;
	/* The vectored ones hold an iovec count there: what was done stands for it. */
	sub.nbytes = cb.aio_lio_opcode <= 1 ? cb.aio_nbytes : (__u64)-1;
	sub.pos = cb.aio_offset;
	async_put((__u64)cbp, c->tgid, &sub);
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_io_submit")
int aio_submit(struct sc_enter *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct aio_ctx c = {};

	if (!trace_aio || !wanted(id >> 32))
		return 0;
	c.iocbpp = (const struct iocb *const *)ctx->args[2];
	c.n = (long)ctx->args[1] > MAX_AIO ? MAX_AIO : (__u32)ctx->args[1];
	c.tgid = id >> 32;
	c.now = bpf_ktime_get_ns();
	bpf_loop(MAX_AIO, aio_submit_one, &c, 0);
	return 0;
}
#else
SEC("tracepoint/syscalls/sys_enter_io_submit")
int aio_submit(struct sc_enter *ctx) { return 0; }
#endif

#if HAVE_CALLBACKS
static long aio_reap_one(__u32 i, struct aio_ctx *c)
{
	struct async_sub sub;
	struct io_event ev;

	if (i >= c->n)
		return 1;
	if (bpf_probe_read_user(&ev, sizeof(ev), &c->events[i & (MAX_AIO - 1)]) ||
	    !async_take(ev.obj, c->tgid, &sub))
		return 0;	/* not a read or write, or submitted before blktop attached */
	async_done(&sub, fd_file(sub.fd),
	    sub.nbytes != (__u64)-1 ? sub.nbytes : ev.res > 0 ? ev.res : 0, ev.res, c->now);
	return 0;
}

static __always_inline int aio_reap_exit(struct sc_exit *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct pt_regs *regs;
	struct aio_ctx c = {};

	if (!trace_aio || ctx->ret <= 0 || !wanted(id >> 32))
		return 0;
	/*
	 * The events array, the call's fourth argument, from the registers
	 * the task entered with (bpf_task_pt_regs, 5.15: every kernel with
	 * bpf_loop has it), not kept from an entry program: that program and
	 * its table cost 100-310 ns of a libaio request (issue 28).
	 */
	regs = (struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());
	if (!regs || REGS_COMPAT(true, regs))
		return 0;
	c.events = (const struct io_event *)REGS_SYSARG3(regs);
	c.n = ctx->ret > MAX_AIO ? MAX_AIO : (__u32)ctx->ret;
	c.tgid = id >> 32;
	c.now = bpf_ktime_get_ns();
	bpf_loop(MAX_AIO, aio_reap_one, &c, 0);
	return 0;
}
#else
static __always_inline int aio_reap_exit(struct sc_exit *ctx) { return 0; }
#endif

SEC("tracepoint/syscalls/sys_exit_io_getevents")
int aio_getevents_exit(struct sc_exit *ctx) { return aio_reap_exit(ctx); }
SEC("tracepoint/syscalls/sys_exit_io_pgetevents")
int aio_pgetevents_exit(struct sc_exit *ctx) { return aio_reap_exit(ctx); }

/*
 * Run by user space on one CPU (BPF_F_TEST_RUN_ON_CPU: an interrupt there)
 * to send that CPU's batch when its records have waited long enough and no
 * call came to send them (src/vfs.c vfs_batch_flush). Never attached.
 */
SEC("raw_tp")
int vfs_batch_flush(void *ctx)
{
	batch_drain(bpf_ktime_get_ns());
	return 0;
}
