/*
 * vfs-open.h: the exit of an open: the new fd's file, or the path that failed.
 * Self-contained: it includes what it uses.
 */
#ifndef BLKTOP_VFS_OPEN_H
#define BLKTOP_VFS_OPEN_H

#include "vfs-emit.h"

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

#endif /* BLKTOP_VFS_OPEN_H */
