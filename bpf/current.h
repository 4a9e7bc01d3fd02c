/* current.h: who the current task is, shared by every blktop BPF object. */
#ifndef BLKTOP_CURRENT_H
#define BLKTOP_CURRENT_H

/*
 * Whether bpf_get_current_task_btf() exists (5.11+): a typed task whose
 * fields are plain loads, where the helpers or probe reads cost 20-40 ns
 * each. A CO-RE constant, so the branch not taken is never verified.
 */
#define HAVE_TASK_BTF	bpf_core_enum_value_exists(enum bpf_func_id, BPF_FUNC_get_current_task_btf)

/*
 * The last cgroup id looked up on this CPU, by css_set. Following a task's
 * css_set to its cgroup and kernfs node touches three cold cache lines on
 * every call (18-20 ns of a read()'s exit program here, bench notes in
 * doc/performance.md); a task calling again finds its css_set here. A css_set freed and
 * its memory reused for another cgroup's could match a stale entry, so an
 * entry is trusted for CG_CACHE_NS only: a css_set is freed an RCU grace
 * period after its last task left, and a task of the reused one must then
 * run here within that time of the entry's lookup.
 */
#define CG_CACHE_NS	(1000 * 1000)
struct cg_cache {
	__u64 css;		/* struct css_set * */
	__u64 id;
	__u64 ts;		/* when looked up */
};
/*
 * The CPU's cache, for programs that run with preemption off (block
 * submissions, page dirtying and faults). A preemptible
 * program (the vfs object's calls: see vfs_scratch) keeps its own in the
 * scratch slot or the record batch it holds: a shared entry could be read
 * half-written.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cg_cache);
} cg_cache SEC(".maps");

static __always_inline struct cg_cache *cg_cache_cpu(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&cg_cache, &zero);
}

/*
 * The current task, typed, where the kernel has bpf_get_current_task_btf;
 * NULL elsewhere, where the *_of functions below do not use it. A program
 * that looks at its task more than once takes it once: each helper call
 * costs a few ns, more with the return thunks of this VM's mitigations.
 */
static __always_inline struct task_struct *task_current(void)
{
	return HAVE_TASK_BTF ? bpf_get_current_task_btf() : NULL;
}

/* What bpf_get_current_pid_tgid() returns, from t = task_current() (plain loads where typed). */
static __always_inline __u64 task_pid_tgid_of(struct task_struct *t)
{
	if (HAVE_TASK_BTF)
		return (__u64)t->tgid << 32 | (__u32)t->pid;
	return bpf_get_current_pid_tgid();
}

/* task_owner of t = task_current(). */
static __always_inline void
task_owner_of(struct task_struct *t, struct cg_cache *cc, __u64 *cgroup,
    char comm[BLKTOP_COMM_LEN], __u64 now)
{
	if (HAVE_TASK_BTF) {
		struct css_set *cs = t->cgroups;

		if (cc && cc->css == (__u64)cs && now - cc->ts < CG_CACHE_NS) {
			*cgroup = cc->id;
		} else {
			*cgroup = cs->dfl_cgrp->kn->id;
			if (cc) {
				cc->css = (__u64)cs;
				cc->id = *cgroup;
				cc->ts = now;
			}
		}
		__builtin_memcpy(comm, t->comm, BLKTOP_COMM_LEN);
		return;
	}
	*cgroup = bpf_get_current_cgroup_id();
	bpf_get_current_comm(comm, BLKTOP_COMM_LEN);
}

/* The current task's cgroup v2 id and comm; cc the cache (or NULL), now the caller's clock reading. */
static __always_inline void
task_owner(struct cg_cache *cc, __u64 *cgroup, char comm[BLKTOP_COMM_LEN], __u64 now)
{
	task_owner_of(task_current(), cc, cgroup, comm, now);
}

#endif
