/* current.h: who the current task is, shared by every blktop BPF object. */
#ifndef BLKTOP_CURRENT_H
#define BLKTOP_CURRENT_H

/*
 * Whether bpf_get_current_task_btf() exists (5.11+): a typed task whose
 * fields are plain loads, where the helpers or probe reads cost 20-40 ns
 * each. A CO-RE constant, so the branch not taken is never verified.
 */
#define HAVE_TASK_BTF	bpf_core_enum_value_exists(enum bpf_func_id, BPF_FUNC_get_current_task_btf)

/* The current task's cgroup v2 id and comm. */
static __always_inline void
task_owner(__u64 *cgroup, char comm[BLKTOP_COMM_LEN])
{
	if (HAVE_TASK_BTF) {
		struct task_struct *t = bpf_get_current_task_btf();

		*cgroup = t->cgroups->dfl_cgrp->kn->id;
		__builtin_memcpy(comm, t->comm, BLKTOP_COMM_LEN);
		return;
	}
	*cgroup = bpf_get_current_cgroup_id();
	bpf_get_current_comm(comm, BLKTOP_COMM_LEN);
}

#endif
