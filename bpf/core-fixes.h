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

#endif
