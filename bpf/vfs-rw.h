/*
 * vfs-rw.h: the exit of a read or write: its file, bytes, position and
 * latency, made in place in the batch where its path went out before. Self-
 * contained: it includes what it uses.
 */
#ifndef BLKTOP_VFS_RW_H
#define BLKTOP_VFS_RW_H

#include "vfs-emit.h"

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

#endif /* BLKTOP_VFS_RW_H */
