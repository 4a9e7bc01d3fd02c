/*
 * vfs-enter.h: system call entry: the call's id classes and arguments kept for
 * its exit. Self-contained: it includes what it uses.
 */
#ifndef BLKTOP_VFS_ENTER_H
#define BLKTOP_VFS_ENTER_H

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
	    sys == VFS_SYS_FDATASYNC || sys == VFS_SYS_FTRUNCATE) {
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

#endif /* BLKTOP_VFS_ENTER_H */
