/* vfs.bpf.c: opens and the read/write family per process, with absolute paths. */

/*
 * Variants (exactly one is loaded, chosen by src/source-live-vfs.c):
 *  - tp_btf:     tp_btf/sys_enter + tp_btf/sys_exit, dispatching on the syscall id;
 *  - raw_tp:     raw_tp/sys_enter + raw_tp/sys_exit, same dispatch;
 *  - tracepoint: the per-syscall classic tracepoints syscalls/sys_{enter,exit}_*;
 *  - fentry:     fentry/fexit on vfs_read, vfs_write and fexit on do_filp_open.
 * All of them end in vfs_enter() (vfs-enter.h) and vfs_exit() (vfs-exit.h).
 * Each vfs-*.h is self-contained: it includes what it uses, in the order
 * below (vfs-defs.h, vfs-calls.h, vfs-path.h, vfs-enter.h, vfs-emit.h,
 * then the exits, then the programs).
 */

#include "vfs-syscalls.h"
#include "vfs-fentry.h"
#include "vfs-pages.h"
#include "vfs-async.h"

char LICENSE[] SEC("license") = "GPL";

/*
 * Run by user space on one CPU (BPF_F_TEST_RUN_ON_CPU: an interrupt there)
 * to send that CPU's batch when its records have waited long enough and no
 * call came to send them (src/source-live-vfs.c live_vfs_batch_flush). Never attached.
 */
SEC("raw_tp")
int vfs_batch_flush(void *ctx)
{
	batch_drain(bpf_ktime_get_ns());
	return 0;
}
