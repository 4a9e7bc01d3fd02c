/*
 * batch.h: records of one fixed size kept per CPU and handed to the ring
 * buffer together (struct ev_batch, blktop-abi.h): one reservation for up to
 * BATCH_BYTES / stride records, where a reservation is the costliest part of
 * a small record here (doc/performance.md, known limits). Included by an object after
 * shared-maps.h, with BATCH_WAKE(now) defined (the ring-buffer flags of a
 * send), BATCH_STRIDE (its records' size, rounded up to 8) and, if not
 * CNT_LOST_CALLS, BATCH_LOST (the counter of their loss). Each object has its
 * own batch and its own flush program: the block object's requests, the vfs
 * object's path-less reads and writes.
 *
 * A CPU's batch goes out when full, when its first record is older than
 * batch_age_ns, before any other record of that CPU (batch_drain: order is
 * kept per CPU), and when user space finds it waiting (it reads batch_ts,
 * the first record's time or 0, and runs the object's never-attached flush
 * program on that CPU, BPF_F_TEST_RUN_ON_CPU: an interrupt there). busy is
 * taken by a compare-and-swap, so a program nesting on the CPU, or the flush,
 * leaves a batch being filled alone: that record then goes out by itself.
 * The compat build (core-fixes.h: no compare-and-swap) sends no batches.
 */
#ifndef BLKTOP_BATCH_H
#define BLKTOP_BATCH_H

#define BATCH_MASK	2047	/* >= BATCH_BYTES, a power of two less one */

struct batch {
	__u32 busy;
	__u32 pad;
	struct cg_cache cg;	/* current.h's, for a program holding busy (the vfs object's reads) */
	struct ev_batch hdr;
	__u8 recs[BATCH_BYTES + 128];	/* slack: the verifier's bound on a send's size is looser */
};
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct batch);
} batches SEC(".maps");
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} batch_ts SEC(".maps");
__u32 batch_on = 0;		/* set by user space once it can flush a CPU's batch */
const volatile __u64 batch_age_ns = 0;	/* 0: no batches */

#ifndef BATCH_LOST
#define BATCH_LOST	CNT_LOST_CALLS	/* the counter of its records' loss: reads and writes */
#endif

/* Send the batch (busy is ours); count its records lost if the ring is full. */
static __always_inline void batch_send(struct batch *b, __u64 *ts, __u64 now)
{
	__u32 n = b->hdr.n, key = BATCH_LOST;
	__u64 size = (__u64)n * b->hdr.stride, *lost;

	if (n >= 1 && size >= 8 && size <= BATCH_BYTES) {
		b->hdr.type = EV_BATCH;
		/* The mask, not the bounds above, is what 6.1's and 6.12's
		 * verifiers follow to the call (core-fixes.h, MASKED). */
		_Static_assert(sizeof(((struct batch *)0)->recs) >= BATCH_MASK + 1, "recs slack");
		if (bpf_ringbuf_output(&events, &b->hdr, sizeof(b->hdr) + MASKED(size, BATCH_MASK),
		    BATCH_WAKE(now)) && (lost = bpf_map_lookup_elem(&counters, &key)))
			__sync_fetch_and_add(lost, n);
	}
	b->hdr.n = 0;
	*ts = 0;
}

/* Before a record of this CPU goes out by itself: the CPU's batch first, in order. */
static __always_inline void batch_drain(__u64 now)
{
	__u32 zero = 0;
	struct batch *b;
	__u64 *ts;

	if (!HAVE_ATOMIC_FETCH || !batch_on || !(ts = bpf_map_lookup_elem(&batch_ts, &zero)) ||
	    !*ts || !(b = bpf_map_lookup_elem(&batches, &zero)))
		return;
#if HAVE_ATOMIC_FETCH
	if (__sync_val_compare_and_swap(&b->busy, 0, 1) != 0)
		return;
#endif
	batch_send(b, ts, now);
	*(volatile __u32 *)&b->busy = 0;
}

/*
 * A place for one record of BATCH_STRIDE bytes in this CPU's batch, to be
 * written there (no copy through a scratch buffer: the copy and the scratch
 * record's clearing were 12% of a cached read()'s exit program, perf by
 * line), then batch_commit(*bp, *tsp, now); NULL if the record must go out
 * by itself (batches off or busy). The caller must write every byte of the
 * BATCH_STRIDE it is given, and call nothing between that nests (none of
 * its helpers runs a program).
 */
static __always_inline __u8 *batch_begin(struct batch **bp, __u64 **tsp, __u64 now)
{
	__u32 zero = 0, n, off;
	struct batch *b;
	__u64 *ts;

	if (!HAVE_ATOMIC_FETCH || !batch_on || !batch_age_ns ||
	    !(ts = bpf_map_lookup_elem(&batch_ts, &zero)) ||
	    !(b = bpf_map_lookup_elem(&batches, &zero)))
		return NULL;
#if HAVE_ATOMIC_FETCH
	if (__sync_val_compare_and_swap(&b->busy, 0, 1) != 0)
		return NULL;
#endif
	n = b->hdr.n;
	if (n >= BATCH_BYTES / BATCH_STRIDE) {
		batch_send(b, ts, now);
		n = 0;
	}
	off = n * BATCH_STRIDE;
	if (off > BATCH_BYTES - BATCH_STRIDE) {
		*(volatile __u32 *)&b->busy = 0;
		return NULL;
	}
	*bp = b;
	*tsp = ts;
	return &b->recs[off];
}

/* The record batch_begin gave a place to is written: count it, send the batch if full or old. */
static __always_inline void batch_commit(struct batch *b, __u64 *ts, __u64 now)
{
	__u32 n = b->hdr.n;

	if (n == 0)
		*ts = now;
	b->hdr.stride = BATCH_STRIDE;
	b->hdr.n = ++n;
	if (n >= BATCH_BYTES / BATCH_STRIDE || now - *ts >= batch_age_ns)
		batch_send(b, ts, now);
	*(volatile __u32 *)&b->busy = 0;
}

/* The record batch_begin gave a place to will not be sent. */
static __always_inline void batch_abandon(struct batch *b)
{
	*(volatile __u32 *)&b->busy = 0;
}

/*
 * Add a record of BATCH_STRIDE bytes (a multiple of 8; the bytes past the
 * record's own size are ignored) to this CPU's batch, sending the batch when
 * full or old; false if the record must go out by itself.
 */
static __always_inline bool batch_add(const void *rec, __u64 now)
{
	__u32 zero = 0, n;
	struct batch *b;
	__u64 *ts;

	if (!HAVE_ATOMIC_FETCH || !batch_on || !batch_age_ns ||
	    !(ts = bpf_map_lookup_elem(&batch_ts, &zero)) ||
	    !(b = bpf_map_lookup_elem(&batches, &zero)))
		return false;
#if HAVE_ATOMIC_FETCH
	if (__sync_val_compare_and_swap(&b->busy, 0, 1) != 0)
		return false;
#endif
	n = b->hdr.n;
	if (n >= BATCH_BYTES / BATCH_STRIDE) {
		batch_send(b, ts, now);
		n = 0;
	}
	if (n == 0)
		*ts = now;
	b->hdr.stride = BATCH_STRIDE;
	__builtin_memcpy(&b->recs[n * BATCH_STRIDE], rec, BATCH_STRIDE);
	b->hdr.n = ++n;
	if (n >= BATCH_BYTES / BATCH_STRIDE || now - *ts >= batch_age_ns)
		batch_send(b, ts, now);
	*(volatile __u32 *)&b->busy = 0;
	return true;
}

#endif
