/*
 * vfs-cast.h: a read/write exit's two reads of kernel memory (the fd
 * array's slot, the struct file's fields) as faulting loads through
 * bpf_rdonly_cast (Linux 6.2+) instead of bpf_probe_read_kernel calls, where
 * the loader found the kfunc (file_cast). Self-contained: it includes what
 * it uses.
 *
 * The kfunc is a weak extern: where the kernel lacks it (6.1 and before)
 * libbpf leaves the call unresolved (imm 0), file_cast stays false, the
 * verifier never walks the branch (a frozen rodata value) and removes it as
 * dead code (5.17+ accepts such a call until then: add_kfunc_call). The
 * compat build (5.10-5.12) has no such call at all.
 */
#ifndef BLKTOP_VFS_CAST_H
#define BLKTOP_VFS_CAST_H

#include "vfs-defs.h"
#include "current.h"

/* Set by the loader where the kernel has bpf_rdonly_cast (src/source-live-vfs.c). */
const volatile bool file_cast = false;

#ifdef BLKTOP_COMPAT
#define FILE_CAST	0
#else
#define FILE_CAST	file_cast
extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym __weak;
#endif

/*
 * The struct file behind fd in task (typed: file_cast implies 6.2+), by
 * plain loads down to the fd array and a faulting load of its slot (the
 * slot's address cast to a struct cpumask, whose first word it reads: any
 * type with a word at offset 0 would do), or NULL.
 */
static __always_inline struct file *fd_file_cast(struct task_struct *task, int fd)
{
#ifdef BLKTOP_COMPAT
	return NULL;
#else
	const struct cpumask *slot;
	struct fdtable *fdt;

	if (fd < 0 || !task->files || !(fdt = task->files->fdt) ||
	    (unsigned int)fd >= fdt->max_fds)
		return NULL;
	slot = bpf_rdonly_cast((const void *)((__u64)fdt->fd + (__u64)fd * sizeof(void *)),
	    bpf_core_type_id_kernel(struct cpumask));
	return (struct file *)slot->bits[0];
#endif
}

/*
 * f's inode, path, flags and position by faulting loads (f not NULL), where
 * file_peek_at reads them with one probe read of their span.
 */
static __always_inline void file_cast_peek(struct file *f, struct inode **ino, struct path *p,
    __u32 *fflags, __s64 *fpos)
{
#ifndef BLKTOP_COMPAT
	const struct file *fc = bpf_rdonly_cast(f, bpf_core_type_id_kernel(struct file));

	*ino = fc->f_inode;
	p->dentry = fc->f_path.dentry;
	p->mnt = fc->f_path.mnt;
	*fflags = fc->f_flags;
	*fpos = fc->f_pos;
#endif
}

/* f's f_flags (f not NULL) by a faulting load. */
static __always_inline __u32 file_cast_flags(struct file *f)
{
#ifdef BLKTOP_COMPAT
	return 0;
#else
	return ((const struct file *)bpf_rdonly_cast(f, bpf_core_type_id_kernel(struct file)))->f_flags;
#endif
}

#endif /* BLKTOP_VFS_CAST_H */
