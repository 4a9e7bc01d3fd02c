/*
 * floor.bpf.c: programs that do nothing, on the hooks blktop uses. Attached
 * by bench-floor, they measure what the kernel charges for running any BPF
 * program there: the floor under blktop's own overhead.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

/* Block hooks of the default plan (tp_btf:io_start). */
SEC("tp_btf/block_io_start")
int BPF_PROG(floor_io_start) { return 0; }
SEC("tp_btf/block_rq_issue")
int BPF_PROG(floor_rq_issue) { return 0; }
SEC("tp_btf/block_rq_complete")
int BPF_PROG(floor_rq_complete) { return 0; }

/* vfs, classic tracepoint variant (read only: the read-loop benchmark). */
SEC("tracepoint/syscalls/sys_enter_read")
int floor_tp_enter_read(void *ctx) { return 0; }
SEC("tracepoint/syscalls/sys_exit_read")
int floor_tp_exit_read(void *ctx) { return 0; }

/* vfs, tp_btf variant: every syscall passes these. */
SEC("tp_btf/sys_enter")
int BPF_PROG(floor_sys_enter) { return 0; }
SEC("tp_btf/sys_exit")
int BPF_PROG(floor_sys_exit) { return 0; }
