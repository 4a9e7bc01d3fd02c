/*
 * blk-kio.h: direct async I/O named at its block requests (issue 42,
 * decision 1). An io_uring or libaio read or write of an O_DIRECT file
 * reaches block_io_start in its submitter's context, and its request's
 * first bio leads back to the call's kiocb: blkdev's one-bio async dio
 * embeds the bio (struct blkdev_dio), its multi-bio dio and iomap's dio
 * hang off bi_private, a bio split by the queue's limits is chained to the
 * one it was split from (bio_chain_endio, bi_private). The kiocb names the
 * file (ki_filp), the offset (ki_pos: moved on only at the completion) and,
 * by its completion function, the engine. The call is kept in kio_calls by
 * its kiocb while any of its requests is in flight and sent at the last
 * one's completion: one read/write record (EV_RW, path-less, in the block
 * object's batch), its latency the first request's start to the last one's
 * completion, its bytes its requests'. The vfs object's submission and
 * completion programs return at once for such calls (vfs-async.h,
 * kio_direct). Included by blktop.bpf.c after the request table and
 * batch.h.
 *
 * bpf_rdonly_cast (6.2+) and the kernel's own symbols: only the program
 * tb_io_start_kio calls them, and the loader loads it where the kernel has
 * them (src/source-live-kio.c); everywhere else the externs stay unresolved
 * (weak) in a program never loaded. The compat build has no such program's
 * body (no compare-and-swap).
 */
#ifndef BLKTOP_BLK_KIO_H
#define BLKTOP_BLK_KIO_H

#include "pslots.h"

extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym __weak;
extern const void blkdev_bio_end_io_async __ksym __weak;
extern const void blkdev_bio_end_io __ksym __weak;
extern const void iomap_dio_bio_end_io __ksym __weak;
extern const void bio_chain_endio __ksym __weak;
extern const void aio_complete_rw __ksym __weak;
extern const void io_complete_rw __ksym __weak;
extern const void io_complete_rw_iopoll __ksym __weak;

#if defined(__TARGET_ARCH_arm64)
#define KIO_O_DIRECT	0200000
#else
#define KIO_O_DIRECT	040000
#endif

/* Set by the loader: the vfs filters the calls must pass here too (-c, --cgroup, its own pid). */
const volatile __u32 kio_self_tgid = 0;
const volatile __u64 kio_cgroup = 0;
const volatile __u32 kio_ncomms = 0;
const volatile __u64 kio_comms[FILTER_MAX_COMMS][2] = {};
/* Set once the vfs object leaves these calls to this one (its kio_direct), cleared before it stops. */
__u32 kio_on = 0;

#define NKIO		8192
#define KIO_STALE_NS	(10ULL * 1000000000)	/* a call whose last completion went unseen */

/* A direct async call, from its first request's start to its last one's completion. */
struct kio_call {
	__u64 key;		/* kiocb, 0 when free */
	__u64 ts_first;
	__s64 pending;		/* its requests started and not completed */
	__u64 started;		/* their bytes */
	__u64 done;		/* bytes completed */
	__s64 pos;
	__u64 cgroup;
	__u64 ino;
	__u32 dev, rdev;
	__u32 pid, tgid;
	__s32 error;
	__u16 sys, op, ftype, slot;
	char comm[BLKTOP_COMM_LEN];
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, NKIO);
	__type(key, __u32);
	__type(value, struct kio_call);
} kio_calls SEC(".maps");

/* A pointer as a number, by a store and a load (blktop.bpf.c's ptr_bits: a trusted pointer allows no arithmetic). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} kio_keybits SEC(".maps");

static __always_inline __u64 kio_bits(const void *p)
{
	__u32 zero = 0;
	__u64 *k = bpf_map_lookup_elem(&kio_keybits, &zero);

	if (!k)
		return 0;
	*(volatile const void **)k = p;
	return *(volatile __u64 *)k;
}

static __always_inline __u32 kio_index(__u64 key)
{
	return (__u32)(((key >> 6) * 0x9E3779B97F4A7C15ULL) >> 40) & (NKIO - 1);
}

static __always_inline __s32 kio_errno(int status)
{
	switch (status) {
	case 0: return 0;
	case 1: return -95;	/* BLK_STS_NOTSUPP */
	case 2: return -110;	/* BLK_STS_TIMEOUT */
	case 3: return -28;	/* BLK_STS_NOSPC */
	default: return -5;	/* EIO */
	}
}

#if HAVE_ATOMIC_FETCH
/* The kiocb a direct I/O request's first bio was made for, as a number; 0 if none. */
static __always_inline __u64 kio_of(struct request *rq)
{
	struct bio *bio = rq->bio;
	__u64 end, b;

	if (!bio)
		return 0;
	end = (__u64)bio->bi_end_io;
	if (end == (__u64)&bio_chain_endio) {
		/* A front split off by the queue's limits: the bio it was split from. */
		bio = bpf_rdonly_cast(bio->bi_private, bpf_core_type_id_kernel(struct bio));
		if (!bio)
			return 0;
		end = (__u64)bio->bi_end_io;
	}
	if (end == (__u64)&blkdev_bio_end_io_async) {
		/* blkdev's one-bio async dio: the bio sits inside its struct blkdev_dio. */
		b = kio_bits(bio) - bpf_core_field_offset(struct blkdev_dio, bio);
		struct blkdev_dio *d = bpf_rdonly_cast((void *)b,
		    bpf_core_type_id_kernel(struct blkdev_dio));
		return kio_bits(d->iocb);
	}
	if (end == (__u64)&blkdev_bio_end_io) {
		struct blkdev_dio *d = bpf_rdonly_cast(bio->bi_private,
		    bpf_core_type_id_kernel(struct blkdev_dio));
		return kio_bits(d->iocb);
	}
	if (end == (__u64)&iomap_dio_bio_end_io) {
		struct iomap_dio *d = bpf_rdonly_cast(bio->bi_private,
		    bpf_core_type_id_kernel(struct iomap_dio));
		return kio_bits(d->iocb);
	}
	return 0;
}

/* Whether a call's owner passes the vfs object's filters (its wanted()). */
static __always_inline bool kio_wanted(const struct kio_call *k)
{
	__u64 c[2];

	if (k->tgid == kio_self_tgid || (kio_cgroup && k->cgroup != kio_cgroup))
		return false;
	if (!kio_ncomms)
		return true;
	__builtin_memcpy(c, k->comm, sizeof c);
	for (__u32 i = 0; i < FILTER_MAX_COMMS; i++) {
		if (i >= kio_ncomms)
			break;
		if (c[0] == kio_comms[i][0] && c[1] == kio_comms[i][1])
			return true;
	}
	return false;
}

/*
 * The engine of a direct call's kiocb, by its completion function: the
 * read/write op of its record, or 0 (a synchronous O_DIRECT call: its
 * system call's record).
 */
static __always_inline __u16 kio_engine(const struct kiocb *k, __u16 op)
{
	__u64 done = (__u64)k->ki_complete;

	if (done == (__u64)&aio_complete_rw)
		return op == BLK_OP_WRITE ? VFS_SYS_AIO_WRITE : VFS_SYS_AIO_READ;
	if (done == (__u64)&io_complete_rw || done == (__u64)&io_complete_rw_iopoll) {
		/*
		 * The kiocb is the first member of the request (struct io_kiocb:
		 * its io_rw in the union at its start). A registered file
		 * (REQ_F_FIXED_FILE, bit 0) is not resolved at the submission:
		 * vfs-async.h keeps such calls.
		 */
		const struct io_kiocb *r = bpf_rdonly_cast(k, bpf_core_type_id_kernel(struct io_kiocb));

		if (r->flags & 1)
			return 0;
		return op == BLK_OP_WRITE ? VFS_SYS_URING_WRITE : VFS_SYS_URING_READ;
	}
	return 0;
}

/* A call's first request: its file, offset and owner into c; false if not an O_DIRECT file's or not wanted. */
static __always_inline bool kio_fill(struct kio_call *c, const struct kiocb *k,
    const struct reqinfo *ri)
{
	struct file *f = k->ki_filp;
	struct task_struct *t;
	struct inode *ino;
	__u16 mode;

	if (!f || !(f->f_flags & KIO_O_DIRECT))
		return false;
	ino = f->f_inode;
	if (!ino)
		return false;
	mode = ino->i_mode & 0170000;
	c->ftype = mode == 0100000 ? VFS_FT_REG : mode == 0060000 ? VFS_FT_BLK : VFS_FT_OTHER;
	c->ino = ino->i_ino;
	c->dev = ino->i_sb->s_dev;
	c->rdev = c->ftype == VFS_FT_BLK ? ino->i_rdev : 0;
	c->slot = pslot_of((const struct file *)kio_bits(f)) + 1;
	c->pos = k->ki_pos;
	c->op = ri->op;
	c->pid = ri->pid;
	c->tgid = ri->tgid;
	c->cgroup = ri->cgroup;
	__builtin_memcpy(c->comm, ri->comm, sizeof c->comm);
	/*
	 * An io_uring call the kernel could not issue without blocking is
	 * issued again by an io-wq worker of the process ("iou-wrk-PID"): the
	 * call is the process's, named as its completion in the process's
	 * task would be.
	 */
	t = bpf_get_current_task_btf();
	if (t->flags & 0x10)	/* PF_IO_WORKER */
		__builtin_memcpy(c->comm, t->group_leader->comm, sizeof c->comm);
	return kio_wanted(c);
}

/*
 * At a request's start (tb_io_start_kio, after req_owner): the call of a
 * direct async request taken, or joined by a later request of it (a split
 * call). ri->kio names its entry.
 */
static __always_inline void kio_start(struct request *rq, struct reqinfo *ri, __u64 now)
{
	__u32 i, probe;
	struct kio_call *c;
	struct kiocb *k;
	__u64 kb, cur;
	__u16 sys;

	if (!kio_on || (ri->op != BLK_OP_READ && ri->op != BLK_OP_WRITE) || !(kb = kio_of(rq)))
		return;
	k = bpf_rdonly_cast((void *)kb, bpf_core_type_id_kernel(struct kiocb));
	if (!(sys = kio_engine(k, ri->op)))
		return;
	i = kio_index(kb);
	for (probe = 0; probe < 2; probe++, i ^= 1) {
		c = bpf_map_lookup_elem(&kio_calls, &i);
		if (!c)
			continue;
		cur = *(volatile __u64 *)&c->key;
		if (cur == kb) {
			__sync_fetch_and_add(&c->pending, 1);
			__sync_fetch_and_add(&c->started, ri->bytes);
			ri->kio = i + 1;
			return;
		}
		if ((cur == 0 || now - c->ts_first > KIO_STALE_NS) &&
		    __sync_val_compare_and_swap(&c->key, cur, kb) == cur) {
			if (!kio_fill(c, k, ri)) {
				*(volatile __u64 *)&c->key = 0;
				return;
			}
			c->sys = sys;
			c->ts_first = now;
			c->pending = 1;
			c->started = ri->bytes;
			c->done = 0;
			c->error = 0;
			ri->kio = i + 1;
			return;
		}
	}
	count(CNT_LOST_CALLS);	/* both entries taken: the call goes uncounted */
}

/*
 * A request of a call ended (completed, merged into another, or its
 * completion unseen): at the last one, the call's record, then its entry
 * freed.
 */
static __always_inline void kio_end(struct reqinfo *ri, __u64 now, __u32 bytes, int status)
{
	union {
		struct ev_rw e;
		__u8 b[BATCH_STRIDE];
	} u = {};
	struct ev_rw *e = &u.e;
	__u32 i = ri->kio - 1;
	struct kio_call *c = bpf_map_lookup_elem(&kio_calls, &i);

	ri->kio = 0;
	if (!c || !c->key)
		return;
	if (status)
		c->error = kio_errno(status);
	__sync_fetch_and_add(&c->done, bytes);
	if (__sync_fetch_and_add(&c->pending, -1) != 1)
		return;
	e->type = EV_RW;
	e->dev = c->dev;
	e->ts = now;
	e->lat_ns = now - c->ts_first;
	e->cgroup = c->cgroup;
	e->ino = c->ino;
	e->asked = c->started;
	e->error = c->error;
	e->done = c->error ? 0 : c->done;
	e->pos = c->pos;
	e->pid = c->pid;
	e->tgid = c->tgid;
	e->fd = -1;
	e->rdev = c->rdev;
	e->sys = c->sys;
	e->op = c->op;
	e->ftype = c->ftype;
	e->path_flags = VFS_PF_CACHED | VFS_PF_DIRECT | VFS_PF_KIO;
	e->slot = c->slot;
	__builtin_memcpy(e->comm, c->comm, sizeof e->comm);
	*(volatile __u64 *)&c->key = 0;	/* after every read of c */
	if (!batch_add(u.b, now) &&
	    bpf_ringbuf_output(&events, e, EV_RW_SIZE(0), ring_wake(now, wakeup_bytes, 0)))
		count(CNT_LOST_CALLS);
}
#else
static __always_inline void kio_start(struct request *rq, struct reqinfo *ri, __u64 now) {}
static __always_inline void kio_end(struct reqinfo *ri, __u64 now, __u32 bytes, int status) {}
#endif

#endif
