/* shared-maps.h: the maps every blktop BPF object shares; the loader reuses the first object's fds. */
#ifndef BLKTOP_SHARED_MAPS_H
#define BLKTOP_SHARED_MAPS_H

/* All events, block and vfs, in one ring: one consumer, one order. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 16 << 20);
} events SEC(".maps");

/* enum blktop_counter, per CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, CNT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

/*
 * Waking the consumer queues an irq_work: a self-IPI, which in a VM is a write
 * to the APIC's MSR that exits to the hypervisor. Under fio's io_uring job it
 * was 58% of tb_rq_complete's samples (perf, 6.18 VM: every batch sent past
 * the backlog threshold woke a consumer that was already draining on its
 * 10 ms timer). So whether to wake is asked at most once per RING_WAKE_GAP_NS
 * (that timer's period, LIVE_BUSY_USEC), and the answer is yes past bytes of
 * backlog, or every_ns (if not 0) after the last wakeup; the consumer drains
 * on a timer while records flow and waits on the ring only when idle, with a
 * timeout (src/source-live.c). Asking reads the ring's positions, lines every
 * producer writes: asked on every send once the gap had passed, it was 2.7%
 * of uring_complete's samples.
 */
#define RING_WAKE_GAP_NS	(10 * 1000 * 1000)
__u64 ring_last_ask = 0;
__u64 ring_last_wake = 0;

static __always_inline __u64 ring_wake(__u64 now, __u64 bytes, __u64 every_ns)
{
	if (now - *(volatile __u64 *)&ring_last_ask < RING_WAKE_GAP_NS)
		return BPF_RB_NO_WAKEUP;
	ring_last_ask = now;
	if ((every_ns && now - ring_last_wake >= every_ns) ||
	    bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >= bytes) {
		ring_last_wake = now;
		return BPF_RB_FORCE_WAKEUP;
	}
	return BPF_RB_NO_WAKEUP;
}

#endif
