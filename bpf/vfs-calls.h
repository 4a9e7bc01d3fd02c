/*
 * vfs-calls.h: per-CPU counters, scratch slots, the table of calls in flight,
 * and the process filter. Self-contained: it includes what it uses.
 */
#ifndef BLKTOP_VFS_CALLS_H
#define BLKTOP_VFS_CALLS_H

#include "vfs-defs.h"

/* Add one to a per-CPU counter. */
static __always_inline void count(void *map, __u32 idx)
{
	__u64 *v = bpf_map_lookup_elem(map, &idx);

	/* Atomic: a preempted program's increment must not undo another's (see vfs_scratch). */
	if (v)
		__sync_fetch_and_add(v, 1);
}

/* Slot i of this CPU's scratch, if free: then the caller's. */
static __always_inline struct scratch *scratch_try(__u32 i)
{
	struct scratch *s = bpf_map_lookup_elem(&vfs_scratch, &i);

#if HAVE_ATOMIC_FETCH
	if (s && __sync_val_compare_and_swap(&s->busy, 0, 1) != 0)
		return NULL;
#endif
	if (s)
		s->slot = i;
	return s;
}

/* A free scratch slot of this CPU, now the caller's; NULL if none is free (see vfs_scratch). */
static __always_inline struct scratch *scratch_take(void)
{
	struct scratch *s = scratch_try(0);

	_Static_assert(SCRATCH_SLOTS == 2, "scratch_take tries each slot");
	return s || !HAVE_ATOMIC_FETCH ? s : scratch_try(1);
}

/* Give a slot of scratch_take back. */
static __always_inline void scratch_put(struct scratch *s)
{
#if HAVE_ATOMIC_FETCH
	*(volatile __u32 *)&s->busy = 0;
#endif
}

/* The scratch slot a global function's caller took (passed as a number: see walk_path). */
static __always_inline struct scratch *scratch_of(__u32 slot)
{
	return bpf_map_lookup_elem(&vfs_scratch, &slot);
}

/* Remember the call thread tid is entering; count a failure. */
static __always_inline void inflight_put(__u32 tid, const struct inflight *in)
{
	__u32 i = tid & (NCALLS - 1), probe;
	struct call_slot *c;

	for (probe = 0; probe < 2; probe++, i ^= 1) {
		c = bpf_map_lookup_elem(&vfs_calls, &i);
		if (!c)
			continue;
		if (c->tid == tid) {
			c->in = *in;
			return;
		}
#if HAVE_ATOMIC_FETCH	/* the compat build keeps every call in the LRU hash */
		if (c->tid == 0 && __sync_val_compare_and_swap(&c->tid, 0, tid) == 0) {
			c->in = *in;
			return;
		}
#endif
	}
	if (bpf_map_update_elem(&vfs_inflight, &tid, in, BPF_ANY))
		count(&vfs_counters, VCNT_INFLIGHT_FULL);
}

/*
 * A call slot for thread tid to fill in place (its own stale one, or a free
 * one now its), or NULL: then inflight_put, which goes to the hash. Filled
 * in place, a read's entry stores its fields once instead of building them
 * on the stack and copying them over.
 */
static __always_inline struct inflight *inflight_claim(__u32 tid)
{
	__u32 i = tid & (NCALLS - 1), probe;
	struct call_slot *c;

	if (tid == 0)
		return NULL;
	for (probe = 0; probe < 2; probe++, i ^= 1) {
		c = bpf_map_lookup_elem(&vfs_calls, &i);
		if (!c)
			continue;
		if (c->tid == tid)
			return &c->in;
#if HAVE_ATOMIC_FETCH
		if (c->tid == 0 && __sync_val_compare_and_swap(&c->tid, 0, tid) == 0)
			return &c->in;
#endif
	}
	return NULL;
}

/*
 * The call thread tid entered, where it lies: in its array slot (*cp, to
 * free with inflight_free once read), or copied out of the hash into *tmp
 * (the hash entry freed: an LRU element may be reused meanwhile); NULL if none.
 */
static __always_inline struct inflight *inflight_find(__u32 tid, struct call_slot **cp,
    struct inflight *tmp)
{
	__u32 i = tid & (NCALLS - 1), probe;
	struct call_slot *c;
	struct inflight *p;

	*cp = NULL;
	if (tid == 0)
		return NULL;	/* the idle task: and 0 marks a free slot */
	for (probe = 0; probe < 2; probe++, i ^= 1) {
		c = bpf_map_lookup_elem(&vfs_calls, &i);
		if (c && c->tid == tid) {
			*cp = c;
			return &c->in;
		}
	}
	p = bpf_map_lookup_elem(&vfs_inflight, &tid);
	if (!p)
		return NULL;
	*tmp = *p;
	bpf_map_delete_elem(&vfs_inflight, &tid);
	return tmp;
}

/* Free the array slot inflight_find found a call in (none: it was freed there). */
static __always_inline void inflight_free(struct call_slot *c)
{
	if (c)
		*(volatile __u32 *)&c->tid = 0;	/* after every read of c->in */
}

/* Take the call thread tid entered into *out, freeing its entry; false if none. */
static __always_inline bool inflight_take(__u32 tid, struct inflight *out)
{
	__u32 i = tid & (NCALLS - 1), probe;
	struct call_slot *c;
	struct inflight *p;

	if (tid == 0)
		return false;	/* the idle task: and 0 marks a free slot */
	for (probe = 0; probe < 2; probe++, i ^= 1) {
		c = bpf_map_lookup_elem(&vfs_calls, &i);
		if (c && c->tid == tid) {
			*out = c->in;
			*(volatile __u32 *)&c->tid = 0;	/* after the copy */
			return true;
		}
	}
	p = bpf_map_lookup_elem(&vfs_inflight, &tid);
	if (!p)
		return false;
	*out = *p;
	bpf_map_delete_elem(&vfs_inflight, &tid);
	return true;
}

/* Whether the current task (t: task_current(), tgid its) passes the -p/-c/--cgroup filters. */
static __always_inline bool wanted_of(struct task_struct *t, __u32 tgid)
{
	if (tgid == self_tgid)
		return false;
	if (filter_tgid && !bpf_map_lookup_elem(&vfs_tgids, &tgid))
		return false;
	if (filter_cgroup && bpf_get_current_cgroup_id() != filter_cgroup)
		return false;
	if (ncomms) {
		__u64 c[2] = {};

		/* A typed task's comm is two plain loads; the helper costs ~30 ns more per call. */
		if (HAVE_TASK_BTF)
			__builtin_memcpy(c, t->comm, sizeof(c));
		else
			bpf_get_current_comm(c, sizeof(c));
		for (__u32 i = 0; i < FILTER_MAX_COMMS; i++) {
			if (i >= ncomms)
				break;
			if (c[0] == comms[i][0] && c[1] == comms[i][1])
				return true;
		}
		return false;
	}
	return true;
}

/* Whether the current task, of tgid, passes the -p/-c/--cgroup filters. */
static __always_inline bool wanted(__u32 tgid)
{
	return wanted_of(task_current(), tgid);
}

#endif /* BLKTOP_VFS_CALLS_H */
