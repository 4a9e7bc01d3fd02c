/*
 * vfs-syscalls.h: the syscall hooks, one variant of them loaded: typed and
 * raw sys_enter/sys_exit (every call, the id checked first), the per-call
 * classic tracepoints, and the rename/unlink hooks that make cached paths
 * stale. Self-contained: it includes what it uses.
 */
#ifndef BLKTOP_VFS_SYSCALLS_H
#define BLKTOP_VFS_SYSCALLS_H

#include "vfs-exit.h"
#include "vfs-xfer.h"

/*
 * vfs_exit as a global function, for the exit programs that dispatch on the
 * syscall id: one of them makes both vfs_exit's records and vfs_exit_xfer's,
 * and with vfs_exit inlined its frame (the biggest), xfer_side's and
 * walk_path's passed the 512 bytes of stack a chain of calls may take on
 * 5.10 ("combined stack size of 3 calls is 672. Too large"); later kernels
 * count it otherwise and took it.
 */
__noinline int vfs_exit_global(long ret)
{
	return vfs_exit(ret, VFS_SYS_MAX);
}

#include "syscalls-arch.h"

static __always_inline int regs_enter(struct pt_regs *regs, long nr, bool btf)
{
	int sys = nr_to_sys(nr);
	__u64 a0, a1, a2, a3;

	if (sys < 0 || REGS_COMPAT(btf, regs))
		return 0;
	REGS_ARG(btf, regs, a0, a1, a2, a3);
	if (sys_is_xfer(sys))
		return xfer_enter(sys, a0, a1, a2, a3, REGS_ARG4(btf, regs));
	if (sys == VFS_SYS_MMAP)	/* prot's upper half carries the fd (the 5th argument) */
		a2 = (__u32)a2 | (__u64)(__u32)REGS_ARG4(btf, regs) << 32;
	return vfs_enter(sys, a0, a1, a2, a3);
}

/* Every syscall's exit passes here: the id check comes first. */
static __always_inline int regs_exit(struct pt_regs *regs, long ret, bool btf)
{
	int sys = nr_to_sys(REGS_ID(btf, regs));

	if (sys < 0)
		return 0;
	if (sys_is_xfer(sys))
		return vfs_exit_xfer(ret);
	return vfs_exit_global(ret);
}

/* Variant tp_btf: typed raw tracepoints on sys_enter/sys_exit. */
SEC("tp_btf/sys_enter")
int BPF_PROG(vfs_btf_enter, struct pt_regs *regs, long nr) { return regs_enter(regs, nr, true); }
SEC("tp_btf/sys_exit")
int BPF_PROG(vfs_btf_exit, struct pt_regs *regs, long ret) { return regs_exit(regs, ret, true); }

/* Variant raw_tp: untyped raw tracepoints, same dispatch. */
SEC("raw_tp/sys_enter")
int BPF_PROG(vfs_raw_enter, struct pt_regs *regs, long nr) { return regs_enter(regs, nr, false); }
SEC("raw_tp/sys_exit")
int BPF_PROG(vfs_raw_exit, struct pt_regs *regs, long ret) { return regs_exit(regs, ret, false); }

/* Variant tracepoint: one classic tracepoint per syscall and direction. */
struct sc_enter {
	__u64 ent;
	__s32 nr;
	__u32 pad;
	__u64 args[6];
};
struct sc_exit {
	__u64 ent;
	__s32 nr;
	__u32 pad;
	__s64 ret;
};

/*
 * The kernel refuses (EACCES) to attach a program that reads past the
 * tracepoint's record, which holds only the syscall's own arguments: read
 * args[i] only when i < nargs.
 */
#define TP_ARG(ctx, i, nargs)	((i) < (nargs) ? (ctx)->args[(i) < 6 ? (i) : 0] : 0)

#define TP_PAIR(name, sys, group, nargs)					\
SEC("tracepoint/syscalls/sys_enter_" #name)					\
int vfs_tp_enter_##name(struct sc_enter *ctx)					\
{										\
	STOP_CHECK();								\
	if (!group)								\
		return 0;							\
	return vfs_enter(sys, TP_ARG(ctx, 0, nargs), TP_ARG(ctx, 1, nargs),	\
	    TP_ARG(ctx, 2, nargs), TP_ARG(ctx, 3, nargs));			\
}										\
SEC("tracepoint/syscalls/sys_exit_" #name)					\
int vfs_tp_exit_##name(struct sc_exit *ctx)					\
{										\
	STOP_CHECK();								\
	if (!group)								\
		return 0;							\
	return vfs_exit(ctx->ret, sys);					\
}

TP_PAIR(open, VFS_SYS_OPEN, trace_open, 3)
TP_PAIR(creat, VFS_SYS_CREAT, trace_open, 2)
TP_PAIR(openat, VFS_SYS_OPENAT, trace_open, 4)
TP_PAIR(openat2, VFS_SYS_OPENAT2, trace_open, 4)
TP_PAIR(read, VFS_SYS_READ, trace_rw, 3)
TP_PAIR(write, VFS_SYS_WRITE, trace_rw, 3)
TP_PAIR(pread64, VFS_SYS_PREAD64, trace_rw, 4)
TP_PAIR(pwrite64, VFS_SYS_PWRITE64, trace_rw, 4)
TP_PAIR(readv, VFS_SYS_READV, trace_rw, 3)
TP_PAIR(writev, VFS_SYS_WRITEV, trace_rw, 3)
TP_PAIR(preadv, VFS_SYS_PREADV, trace_rw, 5)
TP_PAIR(pwritev, VFS_SYS_PWRITEV, trace_rw, 5)
TP_PAIR(preadv2, VFS_SYS_PREADV2, trace_rw, 6)
TP_PAIR(pwritev2, VFS_SYS_PWRITEV2, trace_rw, 6)
TP_PAIR(close, VFS_SYS_CLOSE, trace_life, 1)
TP_PAIR(fsync, VFS_SYS_FSYNC, trace_life, 1)
TP_PAIR(fdatasync, VFS_SYS_FDATASYNC, trace_life, 1)
TP_PAIR(truncate, VFS_SYS_TRUNCATE, trace_life, 2)
TP_PAIR(ftruncate, VFS_SYS_FTRUNCATE, trace_life, 2)
TP_PAIR(munmap, VFS_SYS_MUNMAP, trace_life, 2)
TP_PAIR(unlink, VFS_SYS_UNLINK, trace_life, 1)
TP_PAIR(unlinkat, VFS_SYS_UNLINKAT, trace_life, 3)
TP_PAIR(rmdir, VFS_SYS_RMDIR, trace_life, 1)
TP_PAIR(mkdir, VFS_SYS_MKDIR, trace_life, 2)
TP_PAIR(mkdirat, VFS_SYS_MKDIRAT, trace_life, 3)
TP_PAIR(mknod, VFS_SYS_MKNOD, trace_life, 3)
TP_PAIR(mknodat, VFS_SYS_MKNODAT, trace_life, 4)
TP_PAIR(rename, VFS_SYS_RENAME, trace_life, 2)
TP_PAIR(renameat, VFS_SYS_RENAMEAT, trace_life, 4)
TP_PAIR(renameat2, VFS_SYS_RENAMEAT2, trace_life, 5)

/* sendfile, splice, copy_file_range: xfer_enter, vfs_exit_xfer. */
#define TP_XFER(name, sys, nargs)						\
SEC("tracepoint/syscalls/sys_enter_" #name)					\
int vfs_tp_enter_##name(struct sc_enter *ctx)					\
{										\
	STOP_CHECK();								\
	if (!trace_rw)								\
		return 0;							\
	return xfer_enter(sys, TP_ARG(ctx, 0, nargs), TP_ARG(ctx, 1, nargs),	\
	    TP_ARG(ctx, 2, nargs), TP_ARG(ctx, 3, nargs), TP_ARG(ctx, 4, nargs));\
}										\
SEC("tracepoint/syscalls/sys_exit_" #name)					\
int vfs_tp_exit_##name(struct sc_exit *ctx)					\
{										\
	STOP_CHECK();								\
	if (!trace_rw)								\
		return 0;							\
	return vfs_exit_xfer(ctx->ret);						\
}

TP_XFER(sendfile64, VFS_SYS_SENDFILE, 4)	/* 64-bit sendfile is the kernel's sendfile64 */
TP_XFER(splice, VFS_SYS_SPLICE, 6)
TP_XFER(copy_file_range, VFS_SYS_COPY_FILE_RANGE, 6)

SEC("tracepoint/syscalls/sys_enter_mmap")
int vfs_tp_enter_mmap(struct sc_enter *ctx)
{
	STOP_CHECK();
	if (!trace_life)
		return 0;
	return vfs_enter(VFS_SYS_MMAP, ctx->args[0], ctx->args[1],
	    (__u32)ctx->args[2] | (__u64)(__u32)ctx->args[4] << 32, ctx->args[3]);
}
SEC("tracepoint/syscalls/sys_exit_mmap")
int vfs_tp_exit_mmap(struct sc_exit *ctx)
{
	STOP_CHECK();
	if (!trace_life)
		return 0;
	return vfs_exit(ctx->ret, VFS_SYS_MMAP);
}

/*
 * A rename or an unlink may change the path of any open file (a directory's
 * rename, of every file below it) or make it deleted: every path is sent
 * again (loaded beside any variant, each where the kernel has its
 * tracepoint; the path slots are used only where renameat2 and unlinkat
 * have theirs, src/source-live-extras.c). io_uring's renames and unlinks: uring_submit.
 */
static __always_inline int paths_stale(long ret)
{
	if (ret == 0)
		__sync_fetch_and_add(&path_epoch, 1);
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_rename")
int names_rename(struct sc_exit *ctx) { STOP_CHECK(); return paths_stale(ctx->ret); }
SEC("tracepoint/syscalls/sys_exit_renameat")
int names_renameat(struct sc_exit *ctx) { STOP_CHECK(); return paths_stale(ctx->ret); }
SEC("tracepoint/syscalls/sys_exit_renameat2")
int names_renameat2(struct sc_exit *ctx) { STOP_CHECK(); return paths_stale(ctx->ret); }
SEC("tracepoint/syscalls/sys_exit_unlink")
int names_unlink(struct sc_exit *ctx) { STOP_CHECK(); return paths_stale(ctx->ret); }
SEC("tracepoint/syscalls/sys_exit_unlinkat")
int names_unlinkat(struct sc_exit *ctx) { STOP_CHECK(); return paths_stale(ctx->ret); }

#endif
