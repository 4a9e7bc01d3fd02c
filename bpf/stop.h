/*
 * stop.h: the flag that ends every program's work when blktop quits.
 *
 * Releasing a tracepoint's link takes an RCU grace period each, one after the
 * other (source-live-links.c): without the flag, a stopped blktop's programs
 * went on for 2-3 s, writing into a ring buffer no one reads, costing the
 * workload and whatever benchmark started next. User space sets prog_stop
 * (in .bss, which the skeleton maps) before it lets go of the links, and every
 * program returns at its first instruction from then on.
 *
 * Included by each object right after bpf_tracing.h. Every BPF_PROG program
 * checks the flag first (BPF_PROG is libbpf's, with STOP_CHECK() in its outer
 * function), so a program added later cannot forget it; a program that takes
 * its context as it comes (a "tracepoint/..." one) starts with STOP_CHECK().
 * The check is one load of a map value and a branch: 2 instructions.
 */
#ifndef BLKTOP_STOP_H
#define BLKTOP_STOP_H

__u32 prog_stop = 0;	/* set by user space when it quits; never cleared */

#define STOP_CHECK()	do { if (prog_stop) return 0; } while (0)

#undef BPF_PROG
#define BPF_PROG(name, args...)						\
name(unsigned long long *ctx);						\
static __always_inline typeof(name(0))					\
____##name(unsigned long long *ctx, ##args);				\
typeof(name(0)) name(unsigned long long *ctx)				\
{									\
	STOP_CHECK();							\
	_Pragma("GCC diagnostic push")					\
	_Pragma("GCC diagnostic ignored \"-Wint-conversion\"")		\
	return ____##name(___bpf_ctx_cast(args));			\
	_Pragma("GCC diagnostic pop")					\
}									\
static __always_inline typeof(name(0))					\
____##name(unsigned long long *ctx, ##args)

#endif
