/*
 * kstamps.h: the block layer's own request timestamps, read where the kernel
 * set them instead of a clock of ours (issue 42, decision 2). Included by
 * blktop.bpf.c after its field readers (RQ_READ) and counters.
 *
 *  - rq->start_time_ns: the accounting start (blk_account_io_start, or the
 *    request's allocation on older kernels), trusted only with RQF_IO_STAT
 *    in rq_flags: a preallocated request reused for an unaccounted one keeps
 *    its last stamp.
 *  - rq->io_start_time_ns: set by blk_mq_start_request while the queue is
 *    timed (QUEUE_FLAG_STATS: write-back throttling, iocost, iolatency), and
 *    zeroed when the request is allocated, so non-zero at completion means
 *    the last dispatch of this request.
 *
 * Both are CLOCK_MONOTONIC, as bpf_ktime_get_ns is. Since 6.9 the kernel
 * takes them from blk_time_get_ns(), the time cached in the submitter's plug
 * at its first read and dropped when the task sleeps: a request's stamps can
 * be earlier than the hook that would have read our clock (doc/tracing.md
 * says by how much here).
 */
#ifndef BLKTOP_KSTAMPS_H
#define BLKTOP_KSTAMPS_H

/* Set by the loader before load (live_probe_block_bits). */
const volatile bool kstamps = true;	/* use the kernel's stamps at all */
const volatile bool kstamp_check = false;	/* self-check: own clock too, compared (-vvv) */
const volatile bool issue_skip = false;	/* start hook sees every accounted request (io_start) */
const volatile __u32 rqf_io_stat = 1u << 13;	/* RQF_IO_STAT: #define before the enum (5.10, 6.1) */
const volatile __u32 queue_flag_stats = 20;	/* QUEUE_FLAG_STATS bit: #define before the enum */
const volatile __u32 blk_feat_io_stat = 0;	/* BLK_FEAT_IO_STAT of queue_limits.features, 0 if none */
const volatile __u64 kstamp_bound_ns = 0;	/* self-check: agreement asked for */

/* ri->kflags */
#define RK_ISSUED	(1u << 0)	/* an issue hook handled it */
#define RK_KSTART	(1u << 1)	/* the start hook read no clock: the kernel stamps it */

/*
 * Self-check histograms: |kernel - own| of queue time and device time per
 * request, log2 buckets of ns (bucket 0: under 2 ns), one row each.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2 * BLK_KCHK_BUCKETS);
	__type(key, __u32);
	__type(value, __u64);
} kstamp_hist SEC(".maps");

/* struct queue_limits gained features (and the io_stat bit in it) in 6.11. */
struct queue_limits___x {
	unsigned int features;
} __attribute__((preserve_access_index));

/* Whether the kernel will stamp a starting request's accounting start itself. */
static __always_inline bool
kstamp_will_start(struct request *rq, __u32 rqf, bool btf)
{
	struct queue_limits___x *lim;
	__u32 features;

	if (!kstamps || kstamp_check)
		return false;
	if (rqf & rqf_io_stat)
		return true;	/* set at allocation (5.10, 6.1) */
	/*
	 * Since RQF_IO_STAT is set after block_io_start fires (6.12 here), the
	 * queue's io_stat feature says it; a passthrough request (REQ_OP_DRV_*)
	 * may not be accounted. A wrong guess is caught at completion (CNT_KS_MISS).
	 */
	if (!blk_feat_io_stat)
		return false;
	lim = (void *)(btf ? &rq->q->limits : &BPF_CORE_READ(rq, q)->limits);
	if (!bpf_core_field_exists(lim->features))
		return false;
	features = btf ? lim->features : BPF_CORE_READ(lim, features);
	return (features & blk_feat_io_stat) &&
	    (RQ_READ(btf, rq, cmd_flags) & 0xfe) != 34;	/* REQ_OP_DRV_IN, _OUT */
}

/* Whether the request's queue is timed: blk_mq_start_request stamps io_start_time_ns. */
static __always_inline bool
kstamp_queue_timed(struct request *rq, bool btf)
{
	unsigned long qf;

	if (!kstamps || kstamp_check)
		return false;
	qf = btf ? rq->q->queue_flags : BPF_CORE_READ(rq, q, queue_flags);
	return (qf >> (queue_flag_stats & 63)) & 1;
}

/* Add |a - b| to row of the self-check histograms. */
static __always_inline void
kstamp_hist_add(__u32 row, __u64 a, __u64 b)
{
	__u64 d = a > b ? a - b : b - a, *c;
	__u32 k = 0;

	while (d > 1 && k < BLK_KCHK_BUCKETS - 1) {
		d >>= 1;
		k++;
	}
	k += row * BLK_KCHK_BUCKETS;
	if ((c = bpf_map_lookup_elem(&kstamp_hist, &k)))
		*c += 1;
}

/*
 * At the final completion: the request's start and issue times from the
 * kernel where it stamped them. In self-check mode ri holds our own clock's,
 * compared before they are replaced. Returns BLK_F_NOLAT where the start hook
 * left the start to the kernel and the kernel did not stamp it.
 */
static __always_inline __u16
kstamp_complete(struct request *rq, struct reqinfo *ri, __u32 rqf, __u64 now, bool btf)
{
	__u64 kstart = 0, kissue = 0, oq, od, kq, kd;
	__u16 op, flags;

	if (!kstamps)
		return 0;
	/* To TS_QUANTUM_NS, as our clock's readings are (now_ns). */
	if (rqf & rqf_io_stat)
		kstart = RQ_READ(btf, rq, start_time_ns) & ~(__u64)(TS_QUANTUM_NS - 1);
	kissue = RQ_READ(btf, rq, io_start_time_ns) & ~(__u64)(TS_QUANTUM_NS - 1);
	if (kissue && !(ri->kflags & RK_ISSUED)) {
		/*
		 * Issued on a timed queue with no issue program: position it as
		 * the issue hook would have (merges may have grown it since the
		 * start). __sector has moved past the bytes completed so far.
		 */
		request_op(RQ_READ(btf, rq, cmd_flags), &op, &flags);
		ri->sector = RQ_READ(btf, rq, __sector) - (ri->done_bytes >> 9);
		ri->op = op;
		ri->flags = (ri->flags & BLK_F_REQUEUED) | flags;
	}
	if (kstamp_check && kstart && kissue && ri->ts_start && ri->ts_issue &&
	    !(ri->flags & BLK_F_NOSTART)) {	/* with no start hook, ours has no queue time */
		oq = ri->ts_issue - ri->ts_start;
		od = now - ri->ts_issue;
		kq = kissue > kstart ? kissue - kstart : 0;
		kd = now - kissue;
		kstamp_hist_add(0, kq, oq);
		kstamp_hist_add(1, kd, od);
		count(CNT_KS_CHECKED);
		if (kq + kstamp_bound_ns < oq || oq + kstamp_bound_ns < kq ||
		    kd + kstamp_bound_ns < od || od + kstamp_bound_ns < kd)
			count(CNT_KS_OFF);
	}
	if (ri->flags & BLK_F_NOSTART)
		kstart = 0;	/* first seen at issue: it starts there, as it always has */
	if (debug_counts) {
		count(kstart ? CNT_KS_START : CNT_KS_OWN_START);
		count(kissue ? CNT_KS_ISSUE : CNT_KS_OWN_ISSUE);
	}
	if (kissue)
		ri->ts_issue = kissue;
	if (ri->flags & BLK_F_NOSTART)
		ri->ts_start = ri->ts_issue;
	if (kstart) {
		ri->ts_start = kstart;
		return 0;
	}
	if (ri->kflags & RK_KSTART) {
		count(CNT_KS_MISS);
		ri->ts_start = ri->ts_issue ? ri->ts_issue : now;
		return BLK_F_NOLAT;
	}
	return 0;
}

#endif
