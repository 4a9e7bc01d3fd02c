/*
 * vfs-exit.h: a system call's exit, dispatched to the open, read/write and
 * lifecycle exits. Self-contained: it includes what it uses.
 */
#ifndef BLKTOP_VFS_EXIT_H
#define BLKTOP_VFS_EXIT_H

#include "vfs-open.h"
#include "vfs-rw.h"
#include "vfs-life.h"

/*
 * Syscall exit: finish the call this thread started, if any. want: the
 * system call whose exit this is, a compile-time constant, so that each exit
 * program is compiled and verified with its own branch only (an open's exit
 * without the read/write paths, a read's without the lifecycle ones: the
 * verifier's time at start, 0.23-0.36 s a program on 6.18, was mostly the
 * branches a program could never take); VFS_SYS_MAX: any call, dispatched
 * on the id the entry kept (the programs on every syscall's exit). A call
 * whose id is not want is a stale entry (its exit was never seen): dropped.
 */
static __always_inline int vfs_exit(long ret, __u32 want)
{
	__u64 now = bpf_ktime_get_ns();
	struct task_struct *task = task_current();
	__u64 id = task_pid_tgid_of(task);
	struct inflight tmp, *in;
	struct call_slot *c;
	struct scratch *s;
	__u32 sys;

	if (!(in = inflight_find((__u32)id, &c, &tmp)))
		return 0;
	sys = want == VFS_SYS_MAX ? in->sys : want;
	if (sys_is_xfer(sys) || (want != VFS_SYS_MAX && in->sys != want)) {
		inflight_free(c);
		return 0;	/* xfer: a stale entry: vfs_exit_xfer ends those calls */
	}
	if (sys_is_rw(sys) && rw_fast(task, in, sys, now, ret, id)) {
		inflight_free(c);
		return 0;
	}
	if (!(s = scratch_take())) {
		count(&counters, sys_is_rw(sys) ? CNT_LOST_CALLS : CNT_LOST);
		inflight_free(c);
		return 0;
	}
	if (sys_is_rw(sys))
		vfs_exit_rw(s, in, sys, now, ret, sys_op(sys));
	else if (sys >= VFS_SYS_CLOSE)
		vfs_exit_life(s, in, now, ret);
	else
		vfs_exit_open(s, in, now, ret, NULL);
	scratch_put(s);
	inflight_free(c);
	return 0;
}

#endif /* BLKTOP_VFS_EXIT_H */
