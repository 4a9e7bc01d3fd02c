/*
 * vfs-path.h: from an fd to its struct file, the file's type and identity,
 * and its path walked through dentries and mounts into the scratch buffer
 * (bounded loops, the verifier's way), as static inline helpers of the one
 * program object.
 */
#ifndef BLKTOP_VFS_PATH_H
#define BLKTOP_VFS_PATH_H

#include "vfs-calls.h"
#include "vfs-cast.h"

/* The struct file behind fd in the current task (task: task_current()), or NULL. */
static __always_inline struct file *fd_file_of(struct task_struct *task, int fd)
{
	struct fdtable *fdt;
	struct file **fds, *f = NULL;
	unsigned int max_fds;

	if (FILE_CAST)
		return fd_file_cast(task, fd);
	if (fd < 0)
		return NULL;
	if (HAVE_TASK_BTF) {
		/* 5.11+: a typed task, plain loads down to the fd array. */
		if (!task->files || !(fdt = task->files->fdt))
			return NULL;
		max_fds = fdt->max_fds;
		fds = (struct file **)fdt->fd;
	} else {
		task = (struct task_struct *)bpf_get_current_task();
		if (!(fdt = BPF_CORE_READ(task, files, fdt)))
			return NULL;
		max_fds = BPF_CORE_READ(fdt, max_fds);
		fds = BPF_CORE_READ(fdt, fd);
	}
	if ((unsigned int)fd >= max_fds)
		return NULL;
	bpf_probe_read_kernel(&f, sizeof(f), &fds[fd]);
	return f;
}

/* The struct file behind fd in the current task, or NULL. */
static __always_inline struct file *fd_file(int fd)
{
	return fd_file_of(task_current(), fd);
}

/* File type from i_mode. */
static __always_inline __u16 mode_ftype(__u32 mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG:	return VFS_FT_REG;
	case S_IFBLK:	return VFS_FT_BLK;
	case S_IFCHR:	return VFS_FT_CHR;
	case S_IFIFO:	return VFS_FT_FIFO;
	case S_IFSOCK:	return VFS_FT_SOCK;
	case S_IFDIR:	return VFS_FT_DIR;
	case S_IFLNK:	return VFS_FT_LNK;
	}
	return VFS_FT_OTHER;
}

/*
 * Each bpf_probe_read_kernel costs ~40 ns here (bpf_stats, 6.18 in a VM),
 * more than anything else on the read/write path: fields that sit close
 * together are fetched with one read of the bytes that span them, with
 * offsets and sizes from CO-RE, and picked out of the copy. A span longer
 * than SPAN_MAX (another kernel's layout) falls back to one read per field.
 */
/* Field f of a T whose bytes from lo on were copied to buf (2 * SPAN_MAX long). */
#define SPAN_GET(buf, lo, T, f)							\
	(*(typeof(((T *)0)->f) *)((buf) + ((FOFF(T, f) - (lo)) & (SPAN_MAX - 1))))

/* Copy bytes [lo, hi) of obj to buf with one probe read; false if too long or unreadable. */
static __always_inline bool span_read(__u8 *buf, const void *obj, __u32 lo, __u32 hi)
{
	if (hi <= lo || hi - lo > SPAN_MAX)
		return false;
	return bpf_probe_read_kernel(buf, hi - lo, (const char *)obj + lo) == 0;
}

/* What the exits report of an open file. */
struct finfo {
	struct path path;
	struct inode *inode;
	__u64 ino;
	__u32 dev, rdev, nlink;
	__u32 flags;		/* f_flags: O_DIRECT and the rest */
	__u16 ftype;
};

/* Fill *fi from f (not NULL) in three probe reads: file, inode, superblock. */
static __always_inline void file_info(struct scratch *s, struct file *f, struct finfo *fi)
{
	__u32 lo = MIN2(SPAN_LO(struct file, f_inode, f_path), FOFF(struct file, f_flags));
	__u32 hi = MAX2(SPAN_HI(struct file, f_inode, f_path), FEND(struct file, f_flags));
	struct inode *ino;
	struct super_block *sb;
	__u32 mode;

	if (span_read(s->span, f, lo, hi)) {
		ino = SPAN_GET(s->span, lo, struct file, f_inode);
		fi->path = SPAN_GET(s->span, lo, struct file, f_path);
		fi->flags = SPAN_GET(s->span, lo, struct file, f_flags);
	} else {
		ino = BPF_CORE_READ(f, f_inode);
		BPF_CORE_READ_INTO(&fi->path, f, f_path);
		fi->flags = BPF_CORE_READ(f, f_flags);
	}
	lo = MIN2(MIN2(SPAN_LO(struct inode, i_mode, i_sb), SPAN_LO(struct inode, i_ino, __i_nlink)),
	    FOFF(struct inode, i_rdev));
	hi = MAX2(MAX2(SPAN_HI(struct inode, i_mode, i_sb), SPAN_HI(struct inode, i_ino, __i_nlink)),
	    FEND(struct inode, i_rdev));
	if (span_read(s->span, ino, lo, hi)) {
		mode = SPAN_GET(s->span, lo, struct inode, i_mode);
		sb = SPAN_GET(s->span, lo, struct inode, i_sb);
		fi->ino = SPAN_GET(s->span, lo, struct inode, i_ino);
		fi->nlink = SPAN_GET(s->span, lo, struct inode, __i_nlink);
		fi->rdev = SPAN_GET(s->span, lo, struct inode, i_rdev);
	} else {
		mode = BPF_CORE_READ(ino, i_mode);
		sb = BPF_CORE_READ(ino, i_sb);
		fi->ino = BPF_CORE_READ(ino, i_ino);
		fi->nlink = BPF_CORE_READ(ino, __i_nlink);
		fi->rdev = BPF_CORE_READ(ino, i_rdev);
	}
	fi->dev = BPF_CORE_READ(sb, s_dev);
	fi->ftype = mode_ftype(mode);
	fi->inode = ino;
}

/*
 * At a read/write's entry or exit: f's inode and flags into *in and its
 * position into *fpos (one probe read into span, which has room for
 * 2 * SPAN_MAX bytes: the position sits within 128 bytes of the rest from
 * 5.10 to 6.18; -1 where it does not), and its type, from
 * its path slot when the slot holds f and that inode (then in->hit names the
 * slot), else from the inode (one more).
 */
static __always_inline __u16 file_peek_at(__u8 *span, __s64 *fpos, struct file *f,
    struct inflight *in)
{
	__u32 lo = MIN2(SPAN_LO(struct file, f_inode, f_path), FOFF(struct file, f_flags));
	__u32 hi = MAX2(SPAN_HI(struct file, f_inode, f_path), FEND(struct file, f_flags));
	__u32 plo = MIN2(lo, FOFF(struct file, f_pos)), phi = MAX2(hi, FEND(struct file, f_pos));
	struct inode *ino;
	struct path p;
	struct pslot *ps;
	__u32 i, seq;

	in->hit = 0;
	*fpos = -1;
	if (!f)
		return VFS_FT_NONE;
	if (FILE_CAST) {
		file_cast_peek(f, &ino, &p, &in->fflags, fpos);
	} else if (span_read(span, f, plo, phi)) {
		ino = SPAN_GET(span, plo, struct file, f_inode);
		p = SPAN_GET(span, plo, struct file, f_path);
		in->fflags = SPAN_GET(span, plo, struct file, f_flags);
		*fpos = SPAN_GET(span, plo, struct file, f_pos);
	} else if (span_read(span, f, lo, hi)) {
		ino = SPAN_GET(span, lo, struct file, f_inode);
		p = SPAN_GET(span, lo, struct file, f_path);
		in->fflags = SPAN_GET(span, lo, struct file, f_flags);
	} else {
		ino = BPF_CORE_READ(f, f_inode);
		BPF_CORE_READ_INTO(&p, f, f_path);
		in->fflags = BPF_CORE_READ(f, f_flags);
	}
	if (path_cache) {
		i = pslot_of(f);
		ps = bpf_map_lookup_elem(&vfs_pslots, &i);
		if (ps) {
			seq = *(volatile __u32 *)&ps->seq;
			if (!(seq & 1) && ps->file == (__u64)f && ps->inode == (__u64)ino &&
			    ps->dentry == (__u64)p.dentry && ps->mnt == (__u64)p.mnt &&
			    ps->epoch == path_epoch) {
				in->hit = i + 1;
				in->seq = seq;
				return ps->ftype;
			}
		}
	}
	return mode_ftype(BPF_CORE_READ(ino, i_mode));
}

/* file_peek_at with the span copied to s->span and the position put in s->fpos. */
static __always_inline __u16 file_peek(struct scratch *s, struct file *f, struct inflight *in)
{
	return file_peek_at(s->span, &s->fpos, f, in);
}

/* A mount's root dentry, parent mount and mountpoint, in one probe read where they sit close. */
static __always_inline void mount_read(struct scratch *s, struct mount *mnt,
    struct dentry **root, struct mount **parent, struct dentry **mountpoint)
{
	__u32 lo = MIN2(SPAN_LO(struct mount, mnt_parent, mnt_mountpoint),
	    FOFF(struct mount, mnt.mnt_root));
	__u32 hi = MAX2(SPAN_HI(struct mount, mnt_parent, mnt_mountpoint),
	    FEND(struct mount, mnt.mnt_root));

	if (span_read(s->span, mnt, lo, hi)) {
		*root = SPAN_GET(s->span, lo, struct mount, mnt.mnt_root);
		*parent = SPAN_GET(s->span, lo, struct mount, mnt_parent);
		*mountpoint = SPAN_GET(s->span, lo, struct mount, mnt_mountpoint);
	} else {
		*root = BPF_CORE_READ(mnt, mnt.mnt_root);
		*parent = BPF_CORE_READ(mnt, mnt_parent);
		*mountpoint = BPF_CORE_READ(mnt, mnt_mountpoint);
	}
}

/*
 * Write the path of (dentry, vfsmnt) at buf[off], relative to the current
 * task's root, crossing mount points. At most VFS_PATH_MAX - 1 bytes, no NUL:
 * a longer or deeper path loses its leading part. A global function, so the
 * verifier checks it once, not once per caller. Its caller's scratch slot
 * comes as a number: before Linux 5.12 a global function takes no pointer but its
 * context ("Arg#0 type PTR in walk_path() is not supported yet" on 5.10).
 * Returns the new offset in the low 16 bits, VFS_PF_* flags above.
 */
__noinline int walk_path(__u32 slot, __u32 off, __u64 dentry_p, __u64 vfsmnt_p)
{
	struct scratch *s = scratch_of(slot);
	struct dentry *dentry = (struct dentry *)dentry_p;
	struct vfsmount *vfsmnt = (struct vfsmount *)vfsmnt_p;
	struct mount *mnt = container_of(vfsmnt, struct mount, mnt);
	struct dentry *mnt_root, *root_dentry, *mountpoint;
	struct mount *up;
	struct vfsmount *root_mnt;
	struct path root;
	__u32 i, n;
	bool done = false;

	if (!s)
		return 0;
	if (HAVE_TASK_BTF) {
		struct task_struct *task = bpf_get_current_task_btf();

		root_dentry = task->fs->root.dentry;
		root_mnt = task->fs->root.mnt;
	} else {
		struct task_struct *task = (struct task_struct *)bpf_get_current_task();

		BPF_CORE_READ_INTO(&root, task, fs, root);
		root_dentry = root.dentry;
		root_mnt = root.mnt;
	}
	mount_read(s, mnt, &mnt_root, &up, &mountpoint);
	off &= BUF_MASK;
	s->n = s->total = s->skip = s->pflags = 0;
	for (i = 0; i < MAX_DEPTH; i++) {
		struct dentry *parent;
		struct qstr q;
		__u32 len, lo, hi;

		if (dentry == root_dentry && vfsmnt == root_mnt) {
			done = true;
			break;
		}
		if (dentry == mnt_root) {
			if (up == mnt || !up) {
				/* Global root, or an internal/detached mount. */
				if (dentry != root_dentry)
					s->pflags |= VFS_PF_UNREACHABLE;
				done = true;
				break;
			}
			dentry = mountpoint;
			mnt = up;
			vfsmnt = &up->mnt;
			mount_read(s, mnt, &mnt_root, &up, &mountpoint);
			continue;
		}
		lo = SPAN_LO(struct dentry, d_parent, d_name);
		hi = SPAN_HI(struct dentry, d_parent, d_name);
		if (span_read(s->span, dentry, lo, hi)) {
			parent = SPAN_GET(s->span, lo, struct dentry, d_parent);
			q = SPAN_GET(s->span, lo, struct dentry, d_name);
		} else {
			parent = BPF_CORE_READ(dentry, d_parent);
			BPF_CORE_READ_INTO(&q, dentry, d_name);
		}
		if (parent == dentry || !parent) {
			/*
			 * A dentry of its own (alloc_file_pseudo: eventfd,
			 * memfd, pipes; a disconnected one): its name, if it
			 * has one, is the path's only component.
			 */
			char c = '/';

			len = q.len & NAME_MASK;
			if (len > 0)
				bpf_probe_read_kernel(&c, 1, q.name);
			if (c != '/') {
				n = s->n & (MAX_DEPTH - 1);
				s->name[n] = q.name;
				s->len[n] = len;
				s->total += len + 1;
				s->n++;
			}
			s->pflags |= VFS_PF_UNREACHABLE;
			done = true;
			break;
		}
		len = q.len & NAME_MASK;
		n = s->n & (MAX_DEPTH - 1);
		s->name[n] = q.name;
		s->len[n] = len;
		s->total += len + 1;
		s->n++;
		dentry = parent;
	}
	if (!done)
		s->pflags |= VFS_PF_TRUNC;
	n = s->n;
	if (n == 0) {
		s->buf[MASKED(off, BUF_MASK)] = '/';
		return (off + 1) | s->pflags << 16;
	}
	/* Too long: drop components from the root side, keep the leaf side. */
	for (i = 0; i < MAX_DEPTH; i++) {
		if (s->total < VFS_PATH_MAX || s->skip >= s->n)
			break;
		s->total -= s->len[(s->n - 1 - s->skip) & (MAX_DEPTH - 1)] + 1;
		s->skip++;
		s->pflags |= VFS_PF_TRUNC;
	}
	for (i = 0; i < MAX_DEPTH; i++) {
		__u32 k, len;

		if (s->skip + i >= s->n)
			break;
		k = (s->n - 1 - s->skip - i) & (MAX_DEPTH - 1);
		len = s->len[k] & NAME_MASK;
		s->buf[MASKED(off, BUF_MASK)] = '/';
		off = (off + 1) & BUF_MASK;
		bpf_probe_read_kernel(&s->buf[off], len, s->name[k]);
		off = (off + len) & BUF_MASK;
	}
	return off | s->pflags << 16;
}

/* walk_path's result split into the offset and the flags. */
static __always_inline __u32 walk_split(int r, __u16 *pflags)
{
	*pflags |= (__u32)r >> 16;
	return r & 0xffff;
}

/* Path of an open file (fi from file_info, NULL if none) into buf[base..]; returns its length. */
static __always_inline __u32 file_path(struct scratch *s, __u32 base, const struct finfo *fi,
    __u16 *pflags)
{
	__u32 off;

	if (!fi) {
		*pflags |= VFS_PF_NOPATH;
		return 0;
	}
	off = walk_split(walk_path(s->slot, base, (__u64)fi->path.dentry, (__u64)fi->path.mnt),
	    pflags);
	if ((fi->ftype == VFS_FT_FIFO || fi->ftype == VFS_FT_SOCK || fi->ftype == VFS_FT_OTHER) &&
	    (*pflags & VFS_PF_UNREACHABLE)) {
		/*
		 * A pseudo file: its dentry's own name ("[eventfd]"; a pipe's is
		 * empty) goes out as the path; user space makes pipe:[ino],
		 * socket:[ino], anon_inode:[eventfd] of it.
		 */
		*pflags |= VFS_PF_PSEUDO;
		return off - base;
	}
	if (fi->nlink == 0 && fi->ftype == VFS_FT_REG)
		*pflags |= VFS_PF_DELETED;
	return off - base;
}

#endif /* BLKTOP_VFS_PATH_H */
