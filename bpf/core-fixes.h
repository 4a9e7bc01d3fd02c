/*
 * core-fixes.h: the one home of CO-RE shadows for kernel layout changes the
 * BPF programs must survive, each naming the kernel change it follows (as
 * libbpf-tools' core_fixes.bpf.h does). The programs use these helpers and
 * write no fix of their own.
 */
#ifndef BLKTOP_CORE_FIXES_H
#define BLKTOP_CORE_FIXES_H

#include <bpf/bpf_core_read.h>

/*
 * Linux 5.17 (commit f3fa33acca9f, "block: remove the ->rq_disk field in
 * struct request") moved the disk to rq->q->disk. Older kernels only have
 * rq->rq_disk.
 */
struct request___x {
	struct gendisk *rq_disk;
} __attribute__((preserve_access_index));

/*
 * The gendisk of a request on any kernel. btf (a constant at each call
 * site): the pointer is typed (tp_btf), plain loads; else probe reads.
 */
static __always_inline struct gendisk *
core_request_disk(struct request *rq, bool btf)
{
	struct request___x *old = (void *)rq;

	if (bpf_core_field_exists(old->rq_disk))
		return btf ? old->rq_disk : BPF_CORE_READ(old, rq_disk);
	return btf ? rq->q->disk : BPF_CORE_READ(rq, q, disk);
}

/*
 * Request flag bit numbers move between kernels (enum req_flag_bits gained
 * and lost members over 4.x-6.x): read them from the running kernel's BTF.
 */
#define CORE_REQ_FLAG(name) (1ULL << bpf_core_enum_value(enum req_flag_bits, name))

/*
 * Each object is built twice (Makefile.am): for Linux 5.13 and newer, and
 * with BLKTOP_COMPAT for 5.10 to 5.12. Two instruction families are refused
 * by those older kernels wherever they stand in a program, even on a path
 * the verifier would never take (resolve_pseudo_ldimm64() scans every
 * instruction before verification), so they are compiled out, not branched
 * around:
 *  - atomic fetch-and-add and compare-and-swap: Linux 5.12 ("bpf: Add
 *    BPF_FETCH field / create atomic_fetch_add instruction" and "bpf: Add
 *    instructions for atomic_[cmp]xchg"); 5.10 says "BPF_STX uses reserved
 *    fields". A plain atomic add whose result is unused (BPF_XADD) works everywhere.
 *  - a callback's address (BPF_PSEUDO_FUNC), as bpf_loop and bpf_find_vma
 *    take: Linux 5.13 ("bpf: Add bpf_for_each_map_elem() helper"); 5.10
 *    says "unrecognized bpf_ld_imm64 insn".
 * The loader probes both (live_probe_compat in src/source-live-probe.c) and loads the compat
 * build where either is missing. The two builds keep the same maps, programs
 * and global variables, so one skeleton drives both (a build-time check).
 */
#ifdef BLKTOP_COMPAT
#define HAVE_ATOMIC_FETCH	0
#define HAVE_CALLBACKS		0
#else
#define HAVE_ATOMIC_FETCH	1
#define HAVE_CALLBACKS		1
#endif

/*
 * x & mask, computed on the register the access then uses. Clang drops a
 * mask it can prove redundant from earlier masks and constant offsets, or
 * merges two comparisons into one range check on a copy; the verifiers of
 * 5.10 and 6.1 cannot follow either ("R2 max value is outside of the allowed
 * memory range", "R3 min value is negative"). The barrier hides x's range
 * from clang, so the mask stays where the verifier needs it.
 */
#define MASKED(x, mask) ({ __typeof__(x) __masked = (x); barrier_var(__masked); __masked & (mask); })

#endif
