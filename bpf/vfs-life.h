/*
 * vfs-life.h: the exit of a lifecycle call (EV_FOP: close, mmap, munmap, and the
 * calls by name: unlink, rename, mkdir, rmdir, mknod, truncate).
 * Self-contained: it includes what it uses.
 */
#ifndef BLKTOP_VFS_LIFE_H
#define BLKTOP_VFS_LIFE_H

#include "vfs-emit.h"

/*
 * Exit of a lifecycle call (EV_FOP): close, mmap, munmap, fsync and ftruncate name their file
 * like a read does (its path walked; the file is still there at close's exit:
 * its last reference goes only on the way back to user space); the by-name
 * calls send the path(s) as passed, joined to the cwd or dirfd.
 */
static __always_inline int vfs_exit_life(struct scratch *s, struct inflight *in, __u64 now,
    long ret)
{
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
	CALL_RECORD(s, e, EV_FOP, now, in, id);
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
	case VFS_SYS_FSYNC:
	case VFS_SYS_FDATASYNC:
		e->op = FOP_FSYNC;
		e->flags = in->sys == VFS_SYS_FDATASYNC;
		e->fd = (__s32)in->arg[0];
		f = (struct file *)in->file;	/* peeked at entry, as close's */
		break;
	case VFS_SYS_FTRUNCATE:
		e->op = FOP_TRUNCATE;
		e->len = in->arg[1];
		e->fd = (__s32)in->arg[0];
		f = (struct file *)in->file;	/* peeked at entry, as fsync's */
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
		case VFS_SYS_TRUNCATE:
			e->op = FOP_TRUNCATE;
			e->len = next;
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
		/* Close, fsync and munmap peeked at entry, and filtered there. */
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

#endif
