/*
 * vfs-xfer.h: sendfile, splice and copy_file_range, the calls that move
 * bytes between two files: a read record of one and a write record of the
 * other. Self-contained: it includes what it uses.
 */
#ifndef BLKTOP_VFS_XFER_H
#define BLKTOP_VFS_XFER_H

#include "vfs-rw.h"

/*
 * The arguments of sendfile(out_fd, in_fd, offset, count), splice and
 * copy_file_range(fd_in, off_in, fd_out, off_out, len, ...) in one layout:
 * arg[0] the two fds (fd_in in the low half), arg[1] and arg[3] the offset
 * pointers of each side (0 if none), arg[2] the bytes asked.
 */
static __always_inline int xfer_enter(__u32 sys, __u64 a0, __u64 a1, __u64 a2, __u64 a3,
    __u64 a4)
{
	if (sys == VFS_SYS_SENDFILE)
		return vfs_enter(sys, (__u32)a1 | (__u64)(__u32)a0 << 32, a2, a3, 0);
	return vfs_enter(sys, (__u32)a0 | (__u64)(__u32)a2 << 32, a1, a4, a3);
}

/*
 * The offset one side started at: the call moved the offset it was passed
 * (a user pointer) on by what it did; -1 where it used the file's position.
 */
static __always_inline __s64 xfer_pos(__u64 uptr, long ret)
{
	__s64 pos = -1;

	if (!uptr || bpf_probe_read_user(&pos, sizeof(pos), (const void *)uptr))
		return -1;
	return ret > 0 ? pos - ret : pos;
}

/*
 * One side of the sendfile, splice or copy_file_range in the CPU's scratch
 * (vfs_exit_xfer): the read record of the file the bytes came from, or the
 * write record of the one they went to. A global function, so the verifier
 * checks the record's making once, not once per side and caller (each
 * inlined copy cost an exit program ~30,000 more instructions to verify);
 * its caller's scratch slot comes as a number (5.10: a global function
 * takes no pointer).
 */
__noinline int xfer_side(__u32 slot, __u32 write, long ret)
{
	struct scratch *s = scratch_of(slot);
	struct inflight side;

	if (!s)
		return 0;
	side = s->xfer;
	if (write) {
		side.arg[0] = s->xfer.arg[0] >> 32;
		side.arg[3] = xfer_pos(s->xfer.arg[3], ret);
	} else {
		side.arg[0] = (__u32)s->xfer.arg[0];
		side.arg[3] = xfer_pos(s->xfer.arg[1], ret);
	}
	return vfs_exit_rw(s, &side, side.sys, s->xfer_now, ret, write ? BLK_OP_WRITE : BLK_OP_READ);
}

/*
 * Exit of a sendfile, splice or copy_file_range: a read record of the file
 * the bytes came from and a write record of the one they went to, each with
 * the bytes the call returned, so each file and each direction of the
 * process counts the call and its bytes once (a file that is not traced,
 * such as sendfile's socket, has no record).
 */
static __always_inline int vfs_exit_xfer(long ret)
{
	__u64 now = bpf_ktime_get_ns();
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct scratch *s = scratch_take();

	if (!s) {
		count(&counters, CNT_LOST_CALLS);	/* both sides' records (its entry stays, stale) */
		count(&counters, CNT_LOST_CALLS);
		return 0;
	}
	/* The call goes to the scratch, not the stack: see vfs_exit_global. */
	if (inflight_take(tid, &s->xfer) && sys_is_xfer(s->xfer.sys)) {
		s->xfer_now = now;
		xfer_side(s->slot, 0, ret);
		xfer_side(s->slot, 1, ret);
	}
	scratch_put(s);
	return 0;
}

#endif
