/*
 * vfs-emit.h: records out: the ring buffer and per-CPU batches, path slots, a
 * file's or a user path's record. Self-contained: it includes what it uses.
 */
#ifndef BLKTOP_VFS_EMIT_H
#define BLKTOP_VFS_EMIT_H

#include "vfs-enter.h"

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

#endif /* BLKTOP_VFS_EMIT_H */
