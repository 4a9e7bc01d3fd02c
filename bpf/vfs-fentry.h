/*
 * vfs-fentry.h: the fentry/fexit variant of the read/write and open hooks
 * (vfs_read, vfs_write, do_filp_open), where the kernel allows them.
 * Self-contained: it includes what it uses.
 */
#ifndef BLKTOP_VFS_FENTRY_H
#define BLKTOP_VFS_FENTRY_H

#include "vfs-exit.h"

/*
 * Variant fentry: vfs_read/vfs_write see the file directly (also reads done by
 * the kernel on behalf of a task, e.g. exec); do_filp_open sees opens but not
 * the fd, so ret is 0 or -errno there.
 */
/*
 * Argument i of a fentry/fexit program as a plain number. The typed pointer
 * allows no arithmetic, and pslot_of hashes it ("R1 pointer arithmetic with
 * >>= operator prohibited"); the other variants' files are numbers already.
 */
static __always_inline struct file *fentry_file_arg(unsigned long long *ctx, __u32 i)
{
	__u64 v = 0;

	bpf_probe_read_kernel(&v, sizeof(v), &ctx[i & 7]);
	return (struct file *)v;
}

static __always_inline int fentry_rw_enter(__u32 sys, struct file *f, size_t n)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id;
	struct inflight in = {};
	struct scratch *s;
	__u16 ft;

	if (!trace_rw || !wanted(id >> 32))
		return 0;
	if (!(s = scratch_take())) {
		count(&counters, CNT_LOST_CALLS);	/* the call's record, never made */
		return 0;
	}
	ft = file_peek(s, f, &in);
	scratch_put(s);
	if (!include_all && ft != VFS_FT_REG && ft != VFS_FT_BLK)
		return 0;
	in.sys = sys;
	in.arg[0] = -1;
	in.arg[2] = n;
	in.file = (__u64)f;
	in.ts = bpf_ktime_get_ns();
	inflight_put(tid, &in);
	return 0;
}

SEC("fentry/vfs_read")
int BPF_PROG(vfs_fentry_read, struct file *f, char *buf, size_t n, loff_t *pos)
{
	return fentry_rw_enter(VFS_SYS_VFS_READ, fentry_file_arg(ctx, 0), n);
}

SEC("fexit/vfs_read")
int BPF_PROG(vfs_fexit_read, struct file *f, char *buf, size_t n, loff_t *pos, ssize_t ret)
{
	return vfs_exit(ret, VFS_SYS_MAX);
}

SEC("fentry/vfs_write")
int BPF_PROG(vfs_fentry_write, struct file *f, const char *buf, size_t n, loff_t *pos)
{
	return fentry_rw_enter(VFS_SYS_VFS_WRITE, fentry_file_arg(ctx, 0), n);
}

SEC("fexit/vfs_write")
int BPF_PROG(vfs_fexit_write, struct file *f, const char *buf, size_t n, loff_t *pos,
    ssize_t ret)
{
	return vfs_exit(ret, VFS_SYS_MAX);
}

SEC("fexit/do_filp_open")
int BPF_PROG(vfs_fexit_filp_open, int dfd, struct filename *name, const struct open_flags *op,
    struct file *ret)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct inflight in = {};
	struct scratch *s;
	long r = 0;

	if (!trace_open || !wanted(id >> 32))
		return 0;
	ret = fentry_file_arg(ctx, 3);
	in.sys = VFS_SYS_FILP_OPEN;
	in.arg[1] = BPF_CORE_READ(op, open_flag);
	in.arg[2] = BPF_CORE_READ(op, mode);
	in.ts = bpf_ktime_get_ns();	/* no entry hook: latency not measured */
	if ((unsigned long)ret >= (unsigned long)-4095) {
		r = (long)ret;
		ret = NULL;
	}
	if (!(s = scratch_take())) {
		count(&counters, CNT_LOST);
		return 0;
	}
	vfs_exit_open(s, &in, in.ts, r, ret);
	scratch_put(s);
	return 0;
}

#endif
