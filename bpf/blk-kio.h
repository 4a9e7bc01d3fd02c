/*
 * blk-kio.h: direct async I/O named at its block requests (issue 42,
 * decision 1). An io_uring or libaio read or write of an O_DIRECT file is
 * built into bios that lead back to the call's kiocb: blkdev's one-bio
 * async dio embeds the bio (struct blkdev_dio), its multi-bio dio and
 * iomap's dio hang off bi_private, a bio split off by the queue's limits is
 * chained to the one it was split from (bio_chain_endio, bi_private). At a
 * request's completion (block_rq_complete runs before its bios end, so the
 * dio and its kiocb are whole) the kiocb names the file (ki_filp), the
 * offset (ki_pos: moved on only by the dio's completion) and, by its
 * completion function, the engine; the dio's size is the call's bytes. A
 * call whose bytes are its request's is sent then: one read/write record
 * (EV_RW, path-less, in the block object's batch), its owner the request's
 * (the submitter at its start), its latency the request's start to its
 * completion. A call of several requests (split, or a multi-bio dio) is
 * gathered by kiocb in kio_calls and sent when its last bytes complete,
 * its latency from its earliest request's start. Nothing is done at the
 * start. The vfs object's submission and completion programs return at once
 * for such calls (vfs-async.h, kio_direct). Included by blktop.bpf.c after
 * the request table and batch.h.
 *
 * bpf_rdonly_cast (6.2+) and the kernel's own symbols: only the program
 * tb_rq_complete_kio calls them, and the loader loads it where the kernel
 * has them (src/source-live-kio.c); everywhere else the externs stay
 * unresolved (weak) in a program never loaded. The compat build has no
 * such program's body (no compare-and-swap).
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

/*
 * A direct async call of several requests (split by the queue's limits, or
 * a multi-bio dio) while some of its bytes are still to complete.
 */
struct kio_call {
	__u64 key;		/* kiocb, 0 when free */
	__u64 ts_first;		/* the earliest start of its requests completed */
	__u64 done;		/* bytes completed */
	__s32 error;
	__u32 pad;
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
/*
 * The kiocb a direct I/O bio was made for, as a number, and the bytes of its
 * whole call (the dio's size: set before its bios go out, final at their
 * completion but for a dio whose plug was flushed before it was all built);
 * 0 if the bio is no direct I/O of a kiocb.
 */
static __always_inline __u64 kio_of(struct bio *bio, __u64 *size)
{
	__u64 end, b;

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
		*size = d->size;
		return kio_bits(d->iocb);
	}
	if (end == (__u64)&blkdev_bio_end_io) {
		struct blkdev_dio *d = bpf_rdonly_cast(bio->bi_private,
		    bpf_core_type_id_kernel(struct blkdev_dio));
		*size = d->size;
		return kio_bits(d->iocb);
	}
	if (end == (__u64)&iomap_dio_bio_end_io) {
		struct iomap_dio *d = bpf_rdonly_cast(bio->bi_private,
		    bpf_core_type_id_kernel(struct iomap_dio));
		*size = d->size;
		return kio_bits(d->iocb);
	}
	return 0;
}

/* Whether a call's owner passes the vfs object's filters (its wanted()). */
static __always_inline bool kio_owner_wanted(__u32 tgid, __u64 cgroup, const char *comm)
{
	__u64 c[2];

	if (tgid == kio_self_tgid || (kio_cgroup && cgroup != kio_cgroup))
		return false;
	if (!kio_ncomms)
		return true;
	__builtin_memcpy(c, comm, sizeof c);
	for (__u32 i = 0; i < FILTER_MAX_COMMS; i++) {
		if (i >= kio_ncomms)
			break;
		if (c[0] == kio_comms[i][0] && c[1] == kio_comms[i][1])
			return true;
	}
	return false;
}

static __always_inline bool kio_wanted(const struct ev_rw *e)
{
	return kio_owner_wanted(e->tgid, e->cgroup, e->comm);
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

/* Before 6.13 (io_uring_task's task): the request's own task. */
struct io_kiocb___task {
	struct task_struct *task;
} __attribute__((preserve_access_index));

/*
 * The task that submitted an io_uring request: its ring's task, also where
 * the kernel issued it again from an io-wq worker ("iou-wrk-PID", a thread
 * of the same process, whose comm no -c names).
 */
static __always_inline struct task_struct *kio_uring_task(const struct kiocb *k)
{
	const struct io_kiocb *r = bpf_rdonly_cast(k, bpf_core_type_id_kernel(struct io_kiocb));

	if (bpf_core_field_exists(((struct io_kiocb___task *)r)->task))
		return ((struct io_kiocb___task *)r)->task;
	return r->tctx ? r->tctx->task : NULL;
}

/*
 * The record of a call whose last bytes completed: its file, offset and
 * owner (the submitter at its first request's start; an io_uring call's
 * ring task), latency from ts_first; false if its file is not O_DIRECT or
 * its owner not wanted.
 */
static __always_inline bool kio_fill(struct ev_rw *e, const struct kiocb *k,
    const struct reqinfo *ri, __u16 sys, __u64 now, __u64 ts_first)
{
	struct file *f = k->ki_filp;
	struct inode *ino;
	__u16 mode;

	if (!f || !(f->f_flags & KIO_O_DIRECT) || !(ino = f->f_inode))
		return false;
	mode = ino->i_mode & 0170000;
	e->ftype = mode == 0100000 ? VFS_FT_REG : mode == 0060000 ? VFS_FT_BLK : VFS_FT_OTHER;
	e->ino = ino->i_ino;
	e->dev = ino->i_sb->s_dev;
	e->rdev = e->ftype == VFS_FT_BLK ? ino->i_rdev : 0;
	e->slot = pslot_of((const struct file *)kio_bits(f)) + 1;
	e->pos = k->ki_pos;	/* moved on only by the dio's completion, after this */
	e->type = EV_RW;
	e->ts = now;
	e->lat_ns = now - ts_first;
	e->cgroup = ri->cgroup;
	e->pid = ri->pid;
	e->tgid = ri->tgid;
	e->fd = -1;
	e->sys = sys;
	e->op = ri->op;
	e->path_flags = VFS_PF_CACHED | VFS_PF_DIRECT | VFS_PF_KIO;
	__builtin_memcpy(e->comm, ri->comm, sizeof e->comm);
	/* "iou-wrk-": the comm the kernel gives an io-wq worker (io_uring/io-wq.c). */
	if ((sys == VFS_SYS_URING_READ || sys == VFS_SYS_URING_WRITE) &&
	    *(const __u64 *)ri->comm == *(const __u64 *)"iou-wrk-") {
		struct task_struct *t = kio_uring_task(k);

		if (t) {
			e->pid = t->pid;
			e->tgid = t->tgid;
			__builtin_memcpy(e->comm, t->comm, sizeof e->comm);
		}
	}
	return kio_wanted(e);
}

/*
 * Of a call of several requests, this request's bytes: false until its
 * last bytes complete; then its first start and error in *ts_first, *err.
 */
static __always_inline bool kio_gather(__u64 kb, __u64 size, __u32 bytes, __s32 err,
    const struct reqinfo *ri, __u64 *ts_first, __s32 *errp)
{
	__u32 i = kio_index(kb), probe;
	struct kio_call *c;
	__u64 cur, done;

	for (probe = 0; probe < 2; probe++, i ^= 1) {
		c = bpf_map_lookup_elem(&kio_calls, &i);
		if (!c)
			continue;
		cur = *(volatile __u64 *)&c->key;
		if (cur != kb) {
			if ((cur != 0 && ri->ts_start - c->ts_first < KIO_STALE_NS) ||
			    __sync_val_compare_and_swap(&c->key, cur, kb) != cur)
				continue;
			c->ts_first = ri->ts_start;
			c->error = 0;
			c->done = 0;
		}
		if (ri->ts_start < c->ts_first)
			c->ts_first = ri->ts_start;
		if (err)
			c->error = err;
		done = __sync_fetch_and_add(&c->done, bytes) + bytes;
		if (done < size)
			return false;
		*ts_first = c->ts_first;
		*errp = c->error;
		*(volatile __u64 *)&c->key = 0;	/* after every read of c */
		return true;
	}
	count(CNT_LOST_CALLS);	/* both entries taken: the call goes uncounted */
	return false;
}

#define KIO_MAX_BIOS	4	/* bios of one request looked at: calls merged into it */

/*
 * A request of direct async I/O completed (tb_rq_complete_kio, before its
 * entry is freed): the call of each of its bios, sent where its last bytes
 * are these. A bio's call is its request's alone where the dio's size is
 * the bio's bytes (a dio not split); else its bytes are gathered by kiocb.
 */
static __always_inline void kio_complete(struct request *rq, const struct reqinfo *ri,
    __u64 now, int status)
{
	union {
		struct ev_rw e;
		__u8 b[BATCH_STRIDE];
	} u;
	struct bio *bio;
	struct kiocb *k;
	__u64 kb, size, ts_first;
	__u32 bytes, n;
	__s32 err = kio_errno(status), cerr;
	__u16 sys;

	if (!kio_on || (ri->op != BLK_OP_READ && ri->op != BLK_OP_WRITE))
		return;
	bio = rq->bio;
	for (n = 0; n < KIO_MAX_BIOS && bio; n++, bio = bio->bi_next) {
		size = 0;
		if (!(kb = kio_of(bio, &size)))
			continue;
		k = bpf_rdonly_cast((void *)kb, bpf_core_type_id_kernel(struct kiocb));
		if (!(sys = kio_engine(k, ri->op)))
			continue;
		bytes = bio->bi_iter.bi_size;
		ts_first = ri->ts_start;
		cerr = err;
		if (size > bytes && !kio_gather(kb, size, bytes, err, ri, &ts_first, &cerr))
			continue;
		__builtin_memset(&u, 0, sizeof u);
		if (!kio_fill(&u.e, k, ri, sys, now, ts_first))
			continue;
		u.e.error = cerr;
		u.e.asked = size > bytes ? size : bytes;
		u.e.done = cerr ? 0 : u.e.asked;
		if (!batch_add(u.b, now) &&
		    bpf_ringbuf_output(&events, &u.e, EV_RW_SIZE(0), ring_wake(now, wakeup_bytes, 0)))
			count(CNT_LOST_CALLS);
	}
}

/*
 * A request that is all of one direct async call: one bio, its dio's bytes
 * the bio's, all completed now (no partial completion before), its pages
 * pinned user memory (BLK_FC_DIRECT: no file of the page cache to name),
 * its call's owner the request's (not an io-wq worker's). Sent as one
 * record for the two (struct ev_blk_kio) written in place in this CPU's
 * batch; false where it is not such a request, or the batch is busy: then
 * block_send and kio_complete send them as before.
 */
static __always_inline bool kio_one(struct request *rq, const struct reqinfo *ri,
    __u64 now, int status, __u32 nr_bytes, __u16 flags)
{
	struct ev_blk_kio *e;
	struct batch *b;
	struct bio *bio;
	struct kiocb *k;
	struct file *f;
	struct inode *ino;
	__u64 kb, size = 0, *ts;
	__u16 sys, mode, ftype;
	__s32 err;

	if (!kio_on || ri->done_bytes || ri->fclass != BLK_FC_DIRECT ||
	    (ri->op != BLK_OP_READ && ri->op != BLK_OP_WRITE))
		return false;
	bio = rq->bio;
	if (!bio || bio->bi_next || bio->bi_iter.bi_size != nr_bytes ||
	    !(kb = kio_of(bio, &size)) || size > nr_bytes)
		return false;
	k = bpf_rdonly_cast((void *)kb, bpf_core_type_id_kernel(struct kiocb));
	if (!(sys = kio_engine(k, ri->op)))
		return false;
	if ((sys == VFS_SYS_URING_READ || sys == VFS_SYS_URING_WRITE) &&
	    *(const __u64 *)ri->comm == *(const __u64 *)"iou-wrk-")
		return false;	/* kio_fill names the ring's task */
	f = k->ki_filp;
	if (!f || !(f->f_flags & KIO_O_DIRECT) || !(ino = f->f_inode) ||
	    !kio_owner_wanted(ri->tgid, ri->cgroup, ri->comm))
		return false;
	if (!(e = (struct ev_blk_kio *)batch_begin(&b, &ts, now)))
		return false;
	mode = ino->i_mode & 0170000;
	ftype = mode == 0100000 ? VFS_FT_REG : mode == 0060000 ? VFS_FT_BLK : VFS_FT_OTHER;
	err = kio_errno(status);
	e->type = EV_BLK_KIO;
	e->dev = ri->dev;
	e->ts_start = ri->ts_start;
	e->ts_issue = ri->ts_issue ? ri->ts_issue : ri->ts_start;
	e->ts_done = now;
	e->sector = ri->sector;
	e->cgroup = ri->cgroup;
	e->ino = ino->i_ino;
	e->pos = k->ki_pos;	/* moved on only by the dio's completion, after this */
	e->fsdev = ino->i_sb->s_dev;
	e->rdev = ftype == VFS_FT_BLK ? ino->i_rdev : 0;
	e->bytes = nr_bytes;
	e->pid = ri->pid;
	e->tgid = ri->tgid;
	e->error = err;
	e->op = ri->op;
	e->flags = ri->flags | flags | BLK_F_NODEVSTAT;
	e->sys = sys;
	e->slot = pslot_of((const struct file *)kio_bits(f)) + 1;
	__builtin_memcpy(e->comm, ri->comm, sizeof e->comm);
	e->ftype = ftype;
	e->pad[0] = e->pad[1] = e->pad[2] = 0;
	_Static_assert(sizeof(*e) == BATCH_STRIDE, "every byte of the batch place written");
	batch_commit(b, ts, now);
	count(CNT_BLOCK_SENT);
	return true;
}
#else
static __always_inline void kio_complete(struct request *rq, const struct reqinfo *ri,
    __u64 now, int status) {}
static __always_inline bool kio_one(struct request *rq, const struct reqinfo *ri,
    __u64 now, int status, __u32 nr_bytes, __u16 flags) { return false; }
#endif

#endif
