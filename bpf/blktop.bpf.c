/* blktop.bpf.c: block request lifecycle from tracepoints, one event per completed request. */

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "blktop-abi.h"
#include "core-fixes.h"

char LICENSE[] SEC("license") = "GPL";

#define MAX_REQUESTS	65536
#define MAX_DEVICES	1024
#define MAX_FILTER_DEVS	16

/* Set by the loader before load. */
const volatile __u32 filter_ndevs = 0;
const volatile __u32 filter_devs[MAX_FILTER_DEVS] = {};
const volatile __u64 wakeup_bytes = 256 * 1024;

/* The ring buffer and counters are shared with the other blktop objects. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 16 << 20);
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, CNT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

/* A request between its start and its final completion. */
struct reqinfo {
	__u64 ts_start;
	__u64 ts_issue;
	__u64 sector;
	__u64 cgroup;
	__u32 dev;
	__u32 bytes;		/* size at issue */
	__u32 done_bytes;	/* completed so far (partial completions) */
	__u32 pid;
	__u32 tgid;
	__u32 inflight;
	__u16 flags;
	__u16 counted;		/* 1 once it adds to its device's in-flight count */
	__u16 op;		/* enum blktop_op */
	__u16 pad;
	char comm[BLKTOP_COMM_LEN];
};

/* Per-device busy-time accounting, like the kernel's update_io_ticks(). */
struct devstate {
	__u64 stamp;
	__u64 busy;
	__s64 inflight;
};

/*
 * A plain hash, not an LRU: an LRU may evict a live entry and lose a request
 * silently. An entry whose completion was never seen is replaced when its
 * request (preallocated per tag, so reused soon) starts again; a full table
 * is counted as loss.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MAX_REQUESTS);
	__type(key, __u64);
	__type(value, struct reqinfo);
} requests SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MAX_DEVICES);
	__type(key, __u32);
	__type(value, struct devstate);
} devices SEC(".maps");

/* Add one to a kernel-side counter. */
static __always_inline void
count(__u32 which)
{
	__u64 *c = bpf_map_lookup_elem(&counters, &which);

	if (c)
		*c += 1;
}

/* Kernel dev_t of the whole disk a request goes to. */
static __always_inline __u32
request_dev(struct request *rq)
{
	struct gendisk *disk = core_request_disk(rq);
	__u32 major, minor;

	if (!disk)
		return 0;
	major = BPF_CORE_READ(disk, major);
	minor = BPF_CORE_READ(disk, first_minor);
	return major << 20 | minor;
}

/* Whether the -D filter lets a device through. */
static __always_inline bool
dev_wanted(__u32 dev)
{
	__u32 i;

	if (filter_ndevs == 0)
		return true;
	for (i = 0; i < MAX_FILTER_DEVS; i++) {
		if (i >= filter_ndevs)
			break;
		if (filter_devs[i] == dev)
			return true;
	}
	return false;
}

/* Portable operation code and rwbs-like flags from cmd_flags. */
static __always_inline void
request_op(struct request *rq, __u16 *op, __u16 *flags)
{
	__u64 cf = BPF_CORE_READ(rq, cmd_flags);
	__u16 f = 0;

	switch (cf & 0xff) {	/* REQ_OP_MASK since 4.10 */
	case 0: *op = BLK_OP_READ; break;
	case 1: *op = BLK_OP_WRITE; break;
	case 2: *op = BLK_OP_FLUSH; break;
	case 3: *op = BLK_OP_DISCARD; break;
	case 5: *op = BLK_OP_SECURE_ERASE; break;
	case 9: *op = BLK_OP_WRITE_ZEROES; break;
	default: *op = BLK_OP_OTHER; break;
	}
	if (bpf_core_enum_value_exists(enum req_flag_bits, __REQ_SYNC) &&
	    (cf & CORE_REQ_FLAG(__REQ_SYNC)))
		f |= BLK_F_SYNC;
	if (bpf_core_enum_value_exists(enum req_flag_bits, __REQ_META) &&
	    (cf & CORE_REQ_FLAG(__REQ_META)))
		f |= BLK_F_META;
	if (bpf_core_enum_value_exists(enum req_flag_bits, __REQ_FUA) &&
	    (cf & CORE_REQ_FLAG(__REQ_FUA)))
		f |= BLK_F_FUA;
	if (bpf_core_enum_value_exists(enum req_flag_bits, __REQ_PREFLUSH) &&
	    (cf & CORE_REQ_FLAG(__REQ_PREFLUSH)))
		f |= BLK_F_PREFLUSH;
	if (bpf_core_enum_value_exists(enum req_flag_bits, __REQ_RAHEAD) &&
	    (cf & CORE_REQ_FLAG(__REQ_RAHEAD)))
		f |= BLK_F_RAHEAD;
	*flags = f;
}

/*
 * Credit busy time up to now, as update_io_ticks() does: whoever moves the
 * stamp forward adds the elapsed time if a request was in flight.
 */
static __always_inline void
dev_update_busy(struct devstate *ds, __u64 now)
{
	__u64 old = ds->stamp;

	if (now > old && __sync_val_compare_and_swap(&ds->stamp, old, now) == old) {
		if (ds->inflight > 0)
			__sync_fetch_and_add(&ds->busy, now - old);
	}
}

/* The state of a device, created on first use. */
static __always_inline struct devstate *
dev_state(__u32 dev, __u64 now)
{
	struct devstate *ds, zero = { .stamp = now };

	ds = bpf_map_lookup_elem(&devices, &dev);
	if (ds)
		return ds;
	bpf_map_update_elem(&devices, &dev, &zero, BPF_NOEXIST);
	return bpf_map_lookup_elem(&devices, &dev);
}

/* Make a request count as in flight on its device. */
static __always_inline void
dev_start(struct reqinfo *ri, __u64 now)
{
	struct devstate *ds = dev_state(ri->dev, now);

	if (!ds)
		return;
	dev_update_busy(ds, now);
	ri->inflight = (__u32)(__sync_fetch_and_add(&ds->inflight, 1) + 1);
	ri->counted = 1;
}

/*
 * A request starting again under a key we still hold means its completion
 * was never seen (the kernel skips a program that would nest in itself):
 * take it out of its device's in-flight count so busy time stays right.
 */
static __always_inline void
drop_stale(__u64 key, __u64 now)
{
	struct reqinfo *old = bpf_map_lookup_elem(&requests, &key);
	struct devstate *ds;

	if (!old)
		return;
	if (old->counted && (ds = bpf_map_lookup_elem(&devices, &old->dev))) {
		dev_update_busy(ds, now);
		__sync_fetch_and_add(&ds->inflight, -1);
	}
	bpf_map_delete_elem(&requests, &key);
}

/* Start hook: the request begins, in the submitter's context. */
static __always_inline int
on_start(struct request *rq)
{
	__u64 key = (__u64)rq, now = bpf_ktime_get_ns(), id;
	struct reqinfo ri = {};

	drop_stale(key, now);
	ri.dev = request_dev(rq);
	if (!dev_wanted(ri.dev))
		return 0;
	ri.ts_start = now;
	/*
	 * Set the op now: an empty flush (REQ_OP_WRITE|REQ_PREFLUSH) is completed
	 * by the flush machinery without ever being issued itself.
	 */
	request_op(rq, &ri.op, &ri.flags);
	ri.sector = BPF_CORE_READ(rq, __sector);
	ri.bytes = BPF_CORE_READ(rq, __data_len);
	id = bpf_get_current_pid_tgid();
	ri.pid = (__u32)id;
	ri.tgid = id >> 32;
	ri.cgroup = bpf_get_current_cgroup_id();
	bpf_get_current_comm(ri.comm, sizeof ri.comm);
	dev_start(&ri, now);
	if (bpf_map_update_elem(&requests, &key, &ri, BPF_ANY) != 0)
		count(CNT_MAP_FULL);
	return 0;
}

/* Issue hook: the driver gets the request; it may be the first we see of it. */
static __always_inline int
on_issue(struct request *rq)
{
	__u64 key = (__u64)rq, now = bpf_ktime_get_ns(), id;
	struct reqinfo *rip, ri = {};
	__u16 op, flags;

	request_op(rq, &op, &flags);
	rip = bpf_map_lookup_elem(&requests, &key);
	if (rip) {
		/* Merges may have grown it since the start: size it now. */
		rip->ts_issue = now;
		rip->sector = BPF_CORE_READ(rq, __sector);
		rip->bytes = BPF_CORE_READ(rq, __data_len);
		rip->op = op;
		rip->flags = (rip->flags & BLK_F_REQUEUED) | flags;
		return 0;
	}
	ri.dev = request_dev(rq);
	if (!dev_wanted(ri.dev))
		return 0;
	ri.ts_start = ri.ts_issue = now;
	ri.sector = BPF_CORE_READ(rq, __sector);
	ri.bytes = BPF_CORE_READ(rq, __data_len);
	ri.op = op;
	ri.flags = flags | BLK_F_NOSTART;
	id = bpf_get_current_pid_tgid();
	ri.pid = (__u32)id;
	ri.tgid = id >> 32;
	ri.cgroup = bpf_get_current_cgroup_id();
	bpf_get_current_comm(ri.comm, sizeof ri.comm);
	dev_start(&ri, now);
	if (bpf_map_update_elem(&requests, &key, &ri, BPF_ANY) != 0)
		count(CNT_MAP_FULL);
	return 0;
}

/* Requeue hook: the request goes back to the queue and will be issued again. */
static __always_inline int
on_requeue(struct request *rq)
{
	__u64 key = (__u64)rq;
	struct reqinfo *rip = bpf_map_lookup_elem(&requests, &key);

	if (rip)
		rip->flags |= BLK_F_REQUEUED;
	return 0;
}

/* Merge hook: rq was merged into another request and will be freed unissued. */
static __always_inline int
on_merge(struct request *rq)
{
	__u64 key = (__u64)rq, now = bpf_ktime_get_ns();
	struct reqinfo *rip = bpf_map_lookup_elem(&requests, &key);
	struct devstate *ds;

	if (!rip)
		return 0;
	if (rip->counted && (ds = bpf_map_lookup_elem(&devices, &rip->dev))) {
		dev_update_busy(ds, now);
		__sync_fetch_and_add(&ds->inflight, -1);
	}
	bpf_map_delete_elem(&requests, &key);
	return 0;
}

/* Completion hook: emit the request once all its bytes are done. */
static __always_inline int
on_complete(struct request *rq, int status, unsigned int nr_bytes)
{
	__u64 key = (__u64)rq, now = bpf_ktime_get_ns();
	struct reqinfo *rip = bpf_map_lookup_elem(&requests, &key);
	struct devstate *ds = NULL;
	struct ev_block *ev;

	if (!rip) {
		/* Started before we attached, or its start and issue were both missed. */
		if (dev_wanted(request_dev(rq)))
			count(CNT_ORPHAN_DONE);
		return 0;
	}
	if (nr_bytes < BPF_CORE_READ(rq, __data_len)) {
		rip->done_bytes += nr_bytes;	/* partial completion */
		return 0;
	}
	if (rip->counted && (ds = bpf_map_lookup_elem(&devices, &rip->dev)))
		dev_update_busy(ds, now);

	ev = bpf_ringbuf_reserve(&events, sizeof *ev, 0);
	if (ev) {
		ev->type = EV_BLOCK;
		ev->dev = rip->dev;
		ev->ts_start = rip->ts_start;
		ev->ts_issue = rip->ts_issue ? rip->ts_issue : rip->ts_start;
		ev->ts_done = now;
		ev->sector = rip->sector;
		ev->cgroup = rip->cgroup;
		ev->busy_ns = ds ? ds->busy : 0;
		ev->bytes = rip->done_bytes + nr_bytes;
		ev->pid = rip->pid;
		ev->tgid = rip->tgid;
		switch (status) {
		case 0: ev->error = 0; break;
		case 1: ev->error = -95; break;		/* BLK_STS_NOTSUPP: EOPNOTSUPP */
		case 2: ev->error = -110; break;	/* BLK_STS_TIMEOUT: ETIMEDOUT */
		case 3: ev->error = -28; break;		/* BLK_STS_NOSPC: ENOSPC */
		default: ev->error = -5; break;		/* EIO */
		}
		ev->op = rip->op;
		ev->flags = rip->flags;
		ev->inflight = rip->inflight;
		__builtin_memcpy(ev->comm, rip->comm, sizeof ev->comm);
		if (bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >= wakeup_bytes)
			bpf_ringbuf_submit(ev, BPF_RB_FORCE_WAKEUP);
		else
			bpf_ringbuf_submit(ev, BPF_RB_NO_WAKEUP);
	} else {
		count(CNT_LOST);
	}
	if (ds)
		__sync_fetch_and_add(&ds->inflight, -1);
	bpf_map_delete_elem(&requests, &key);
	return 0;
}

/* tp_btf variant: typed arguments, checked by the verifier against kernel BTF. */
SEC("tp_btf/block_io_start")
int BPF_PROG(tb_io_start, struct request *rq) { return on_start(rq); }
SEC("tp_btf/block_rq_insert")
int BPF_PROG(tb_rq_insert, struct request *rq) { return on_start(rq); }
SEC("tp_btf/block_rq_issue")
int BPF_PROG(tb_rq_issue, struct request *rq) { return on_issue(rq); }
SEC("tp_btf/block_rq_requeue")
int BPF_PROG(tb_rq_requeue, struct request *rq) { return on_requeue(rq); }
SEC("tp_btf/block_rq_merge")
int BPF_PROG(tb_rq_merge, struct request *rq) { return on_merge(rq); }
SEC("tp_btf/block_rq_complete")
int BPF_PROG(tb_rq_complete, struct request *rq, int error, unsigned int nr_bytes)
{ return on_complete(rq, error, nr_bytes); }

/* raw_tp variant: untyped arguments, for kernels without tp_btf (before 5.5). */
SEC("raw_tp/block_io_start")
int BPF_PROG(rt_io_start, struct request *rq) { return on_start(rq); }
SEC("raw_tp/block_rq_insert")
int BPF_PROG(rt_rq_insert, struct request *rq) { return on_start(rq); }
SEC("raw_tp/block_rq_issue")
int BPF_PROG(rt_rq_issue, struct request *rq) { return on_issue(rq); }
SEC("raw_tp/block_rq_requeue")
int BPF_PROG(rt_rq_requeue, struct request *rq) { return on_requeue(rq); }
SEC("raw_tp/block_rq_merge")
int BPF_PROG(rt_rq_merge, struct request *rq) { return on_merge(rq); }
SEC("raw_tp/block_rq_complete")
int BPF_PROG(rt_rq_complete, struct request *rq, int error, unsigned int nr_bytes)
{ return on_complete(rq, error, nr_bytes); }
