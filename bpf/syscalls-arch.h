/*
 * syscalls-arch.h: included by vfs.bpf.c: the native syscall numbers and
 * register layout of each architecture (x86-64, arm64) that the raw
 * sys_enter/sys_exit hooks dispatch on, and their mapping to enum
 * blktop_vfs_sys.
 */
#ifndef BLKTOP_SYSCALLS_ARCH_H
#define BLKTOP_SYSCALLS_ARCH_H

/*
 * A field of the syscall's registers: tp_btf programs get a typed pointer
 * and load directly; raw_tp ones go through bpf_probe_read_kernel (~40 ns).
 * btf is a constant at every call site.
 */
#define RREAD(btf, r, f)	((btf) ? (r)->f : BPF_CORE_READ((r), f))

/* Native syscall numbers. */
#if defined(__TARGET_ARCH_x86)
#define NR_read		0
#define NR_write	1
#define NR_open		2
#define NR_pread64	17
#define NR_pwrite64	18
#define NR_readv	19
#define NR_writev	20
#define NR_creat	85
#define NR_openat	257
#define NR_preadv	295
#define NR_pwritev	296
#define NR_preadv2	327
#define NR_pwritev2	328
#define NR_openat2	437
#define NR_close	3
#define NR_mmap		9
#define NR_munmap	11
#define NR_rename	82
#define NR_mkdir	83
#define NR_rmdir	84
#define NR_unlink	87
#define NR_mknod	133
#define NR_mkdirat	258
#define NR_mknodat	259
#define NR_unlinkat	263
#define NR_renameat	264
#define NR_renameat2	316
#define NR_sendfile	40	/* the kernel's sys_sendfile64 */
#define NR_splice	275
#define NR_copy_file_range	326
#define NR_fsync	74
#define NR_fdatasync	75
#define NR_truncate	76
#define NR_ftruncate	77
#define REGS_ID(btf, r)	RREAD(btf, r, orig_ax)
/* A 32-bit task: its syscall numbers are the ia32 ones, not ours. */
#define REGS_COMPAT(btf, r)	(RREAD(btf, r, cs) == 0x23)	/* __USER32_CS */
#define REGS_ARG(btf, r, a, b, c, d)	do {					\
	a = RREAD(btf, r, di); b = RREAD(btf, r, si);				\
	c = RREAD(btf, r, dx); d = RREAD(btf, r, r10);				\
} while (0)
#define REGS_ARG4(btf, r)	RREAD(btf, r, r8)
#define REGS_SYSARG3(r)		((r)->r10)	/* the fourth argument, at the syscall's exit too */
#elif defined(__TARGET_ARCH_arm64)
#define NR_read		63
#define NR_write	64
#define NR_open		-1
#define NR_pread64	67
#define NR_pwrite64	68
#define NR_readv	65
#define NR_writev	66
#define NR_creat	-2
#define NR_openat	56
#define NR_preadv	69
#define NR_pwritev	70
#define NR_preadv2	286
#define NR_pwritev2	287
#define NR_openat2	437
#define NR_close	57
#define NR_mmap		222
#define NR_munmap	215
#define NR_rename	-3	/* arm64 has only the *at forms */
#define NR_mkdir	-4
#define NR_rmdir	-5
#define NR_unlink	-6
#define NR_mknod	-7
#define NR_mkdirat	34
#define NR_mknodat	33
#define NR_unlinkat	35
#define NR_renameat	38
#define NR_renameat2	276
#define NR_sendfile	71	/* the kernel's sys_sendfile64 */
#define NR_splice	76
#define NR_copy_file_range	285
#define NR_fsync	82
#define NR_fdatasync	83
#define NR_truncate	45
#define NR_ftruncate	46
#define REGS_ID(btf, r)	RREAD(btf, r, syscallno)
#define REGS_COMPAT(btf, r)	((RREAD(btf, r, pstate) & 0x10) != 0)	/* PSR_MODE32_BIT */
#define REGS_ARG(btf, r, a, b, c, d)	do {					\
	a = RREAD(btf, r, orig_x0); b = RREAD(btf, r, regs[1]);			\
	c = RREAD(btf, r, regs[2]); d = RREAD(btf, r, regs[3]);			\
} while (0)
#define REGS_ARG4(btf, r)	RREAD(btf, r, regs[4])
#define REGS_SYSARG3(r)		((r)->regs[3])	/* x0 alone is the return value at the exit */
#else
#error "unsupported architecture"
#endif

/* Native syscall number to enum blktop_vfs_sys, -1 if not ours. */
static __always_inline int nr_to_sys(long nr)
{
	switch (nr) {
	case NR_read:		return trace_rw ? VFS_SYS_READ : -1;
	case NR_write:		return trace_rw ? VFS_SYS_WRITE : -1;
	case NR_pread64:	return trace_rw ? VFS_SYS_PREAD64 : -1;
	case NR_pwrite64:	return trace_rw ? VFS_SYS_PWRITE64 : -1;
	case NR_readv:		return trace_rw ? VFS_SYS_READV : -1;
	case NR_writev:		return trace_rw ? VFS_SYS_WRITEV : -1;
	case NR_preadv:		return trace_rw ? VFS_SYS_PREADV : -1;
	case NR_pwritev:	return trace_rw ? VFS_SYS_PWRITEV : -1;
	case NR_preadv2:	return trace_rw ? VFS_SYS_PREADV2 : -1;
	case NR_pwritev2:	return trace_rw ? VFS_SYS_PWRITEV2 : -1;
	case NR_sendfile:	return trace_rw ? VFS_SYS_SENDFILE : -1;
	case NR_splice:		return trace_rw ? VFS_SYS_SPLICE : -1;
	case NR_copy_file_range: return trace_rw ? VFS_SYS_COPY_FILE_RANGE : -1;
	case NR_open:		return trace_open ? VFS_SYS_OPEN : -1;
	case NR_creat:		return trace_open ? VFS_SYS_CREAT : -1;
	case NR_openat:		return trace_open ? VFS_SYS_OPENAT : -1;
	case NR_openat2:	return trace_open ? VFS_SYS_OPENAT2 : -1;
	case NR_close:		return trace_life ? VFS_SYS_CLOSE : -1;
	case NR_mmap:		return trace_life ? VFS_SYS_MMAP : -1;
	case NR_munmap:		return trace_life ? VFS_SYS_MUNMAP : -1;
	case NR_rename:		return trace_life ? VFS_SYS_RENAME : -1;
	case NR_mkdir:		return trace_life ? VFS_SYS_MKDIR : -1;
	case NR_rmdir:		return trace_life ? VFS_SYS_RMDIR : -1;
	case NR_unlink:		return trace_life ? VFS_SYS_UNLINK : -1;
	case NR_mknod:		return trace_life ? VFS_SYS_MKNOD : -1;
	case NR_mkdirat:	return trace_life ? VFS_SYS_MKDIRAT : -1;
	case NR_mknodat:	return trace_life ? VFS_SYS_MKNODAT : -1;
	case NR_unlinkat:	return trace_life ? VFS_SYS_UNLINKAT : -1;
	case NR_renameat:	return trace_life ? VFS_SYS_RENAMEAT : -1;
	case NR_renameat2:	return trace_life ? VFS_SYS_RENAMEAT2 : -1;
	case NR_fsync:		return trace_life ? VFS_SYS_FSYNC : -1;
	case NR_fdatasync:	return trace_life ? VFS_SYS_FDATASYNC : -1;
	case NR_truncate:	return trace_life ? VFS_SYS_TRUNCATE : -1;
	case NR_ftruncate:	return trace_life ? VFS_SYS_FTRUNCATE : -1;
	}
	return -1;
}

/* preadv/pwritev take the offset split in two longs (pos_l, pos_h): 64-bit uses pos_l. */

/* sys_enter/sys_exit of every syscall: dispatch on its number, ours only. */

#endif /* BLKTOP_SYSCALLS_ARCH_H */
