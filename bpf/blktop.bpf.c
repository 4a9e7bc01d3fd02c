/* blktop.bpf.c: block request lifecycle from tracepoints, one event per completed request. */

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "blktop-abi.h"
#include "core-fixes.h"
#include "stop.h"

char LICENSE[] SEC("license") = "GPL";

#define NSLOTS		16384	/* direct-mapped request table, two probes per request */
#define MAX_OVERFLOW	16384	/* requests whose two slots were both taken */

/* Set by the loader before load. */
const volatile __u32 filter_ndevs = 0;
const volatile __u32 filter_devs[FILTER_MAX_DEVS] = {};
const volatile __u64 wakeup_bytes = 256 * 1024;
const volatile bool debug_counts = false;	/* CNT_DBG_* (blktop -vv) */
/*
 * RQF_FLUSH_SEQ of rq->rq_flags: a request inside the flush machinery
 * (block/blk-flush.c). The loader reads it from the kernel's BTF
 * (probe_rqf_flush_seq): CO-RE cannot, the enum that numbers it is anonymous
 * on 6.12. Before the enum (5.10, 6.1) it is a #define, 1 << 4.
 */
const volatile __u32 rqf_flush_seq = 1u << 4;
/*
 * BIO_PAGE_PINNED of bio->bi_flags (6.5+; probe_bio_pinned), 0 if the
 * kernel has none: a bio of pinned user pages is direct I/O, known without
 * the cold load of its first page's struct page.
 */
const volatile __u32 bio_pinned = 0;

#include "shared-maps.h"
#include "current.h"

/* A request between its start and its final completion. */
struct reqinfo {
	__u64 ts_start;
	__u64 ts_issue;
	__u64 sector;
	__u64 cgroup;
	__u32 dev;
	__u32 done_bytes;	/* completed so far (partial completions) */
	__u32 pid;
	__u32 tgid;
	__u16 flags;
	__u16 op;		/* enum blktop_op */
	__u8 kflags;		/* RK_* (kstamps.h) */
	__u8 pad0;
	__u16 pad1;
	__u32 bytes;		/* size when last seen started or issued */
	char comm[BLKTOP_COMM_LEN];
	__u64 ino;		/* the file whose pages it carries (BLK_FC_FILE) */
	__u32 fsdev;
	__u16 fclass;		/* enum blktop_fclass */
	__u16 pad2;
};

/*
 * Requests live in a direct-mapped array indexed by a hash of the request
 * pointer (an array element costs a few ns; a hash update and delete cost
 * hundreds). A slot is claimed by a compare-and-swap of its key; a request
 * whose two slots are both taken goes to the overflow hash. A full overflow
 * table is counted as loss. An entry whose completion was never seen is
 * replaced when its request (preallocated per tag, so reused soon) starts again.
 * The compat build (core-fixes.h: no compare-and-swap) keeps every request in
 * the hash, as biolatency does.
 */
struct slot {
	__u64 key;		/* request pointer, 0 when free */
	struct reqinfo ri;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, NSLOTS);
	__type(key, __u32);
	__type(value, struct slot);
} slots SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MAX_OVERFLOW);
	__type(key, __u64);
	__type(value, struct reqinfo);
} overflow SEC(".maps");

/*
 * No per-device state: busy time, in-flight and queue time come from the
 * kernel's own part_stat (/proc/diskstats), sampled per tick in user space
 * (src/source-diskstat.c), and the depth each request found from the
 * requests' own times (src/model-depth.c). The in-flight count and busy
 * stamp this file kept were atomics on a line every CPU wrote at every start
 * and end.
 */

/* Add one to a kernel-side counter. */
static __always_inline void
count(__u32 which)
{
	__u64 *c = bpf_map_lookup_elem(&counters, &which);

	if (c)
		__sync_fetch_and_add(c, 1);	/* the vfs object's preemptible programs share it */
}

/*
 * Field reads: tp_btf programs may dereference the typed request directly
 * (plain loads); raw_tp programs must go through bpf_probe_read_kernel. The
 * btf flag is a constant at every call site, so one branch is compiled away.
 */
#define RQ_READ(btf, rq, field) ((btf) ? (rq)->field : BPF_CORE_READ(rq, field))

/* Kernel dev_t of the whole disk a request goes to. */
static __always_inline __u32
request_dev(struct request *rq, bool btf)
{
	struct gendisk *disk = core_request_disk(rq, btf);

	if (!disk)
		return 0;
	if (btf)
		return (__u32)disk->major << 20 | (__u32)disk->first_minor;
	return (__u32)BPF_CORE_READ(disk, major) << 20 |
	    (__u32)BPF_CORE_READ(disk, first_minor);
}

/* Whether the -D filter lets a device through. */
static __always_inline bool
dev_wanted(__u32 dev)
{
	__u32 i;

	if (filter_ndevs == 0)
		return true;
	for (i = 0; i < FILTER_MAX_DEVS; i++) {
		if (i >= filter_ndevs)
			break;
		if (filter_devs[i] == dev)
			return true;
	}
	return false;
}

/* Portable operation code and rwbs-like flags from cmd_flags. */
static __always_inline void
request_op(__u64 cf, __u16 *op, __u16 *flags)
{
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

/* The two slots a request pointer may live in. */
static __always_inline __u32
slot_index(__u64 key)
{
	return (__u32)(((key >> 6) * 0x9E3779B97F4A7C15ULL) >> 40) & (NSLOTS - 1);
}

/* The tracked state of a request, or NULL; *sp is its slot, NULL in the overflow hash. */
static __always_inline struct reqinfo *
req_find(__u64 key, struct slot **sp)
{
	__u32 i = slot_index(key);
	struct slot *s;

	*sp = NULL;
	if (!key)
		return NULL;	/* 0 marks a free slot */
	if (!HAVE_ATOMIC_FETCH)
		return bpf_map_lookup_elem(&overflow, &key);	/* slots are claimed by CAS */
	s = bpf_map_lookup_elem(&slots, &i);
	if (s && s->key == key)
		return &(*sp = s)->ri;
	i ^= 1;
	s = bpf_map_lookup_elem(&slots, &i);
	if (s && s->key == key)
		return &(*sp = s)->ri;
	*sp = NULL;
	return bpf_map_lookup_elem(&overflow, &key);
}

#define BATCH_WAKE(now)	ring_wake(now, wakeup_bytes, 0)
#define BATCH_STRIDE	BLK_BATCH_STRIDE	/* requests, and blk-kio.h's calls */
#define BATCH_LOST	CNT_LOST_REQS
#include "batch.h"
#include "blk-kio.h"

/*
 * Hand a finished request to user space: status is the kernel's blk_status_t,
 * bytes the request's total. It goes in this CPU's batch (batch.h), or by
 * itself where batches are off or busy. The batches are what keeps the block
 * completions cheap beside the vfs object's records: with libaio's records
 * and the requests each reserved in the one ring, from both CPUs, a
 * completion cost 1410 ns of BPF, and 285 without the records (bench/run-ab.sh
 * OBJ=aio, issue 28).
 */
static __always_inline void
block_send(const struct reqinfo *ri, __u64 now, __u32 bytes, int status, __u16 flags)
{
	union {
		struct ev_block e;
		__u8 b[BATCH_STRIDE];
	} u = {};
	struct ev_block *ev = &u.e;

	ev->type = EV_BLOCK;
	ev->dev = ri->dev;
	ev->ts_start = ri->ts_start;
	ev->ts_issue = ri->ts_issue ? ri->ts_issue : ri->ts_start;
	ev->ts_done = now;
	ev->sector = ri->sector;
	ev->cgroup = ri->cgroup;
	ev->busy_ns = 0;	/* BLK_F_NODEVSTAT: none kept */
	ev->bytes = bytes;
	ev->pid = ri->pid;
	ev->tgid = ri->tgid;
	switch (status) {
	case 0: ev->error = 0; break;
	case 1: ev->error = -95; break;		/* BLK_STS_NOTSUPP: EOPNOTSUPP */
	case 2: ev->error = -110; break;	/* BLK_STS_TIMEOUT: ETIMEDOUT */
	case 3: ev->error = -28; break;		/* BLK_STS_NOSPC: ENOSPC */
	default: ev->error = -5; break;		/* EIO */
	}
	ev->op = ri->op;
	ev->flags = ri->flags | flags | BLK_F_NODEVSTAT;
	ev->inflight = 0;
	__builtin_memcpy(ev->comm, ri->comm, sizeof ev->comm);
	ev->ino = ri->ino;
	ev->fsdev = ri->fsdev;
	ev->fclass = ri->fclass;
	ev->pad2 = 0;
	if (!batch_add(u.b, now) &&
	    bpf_ringbuf_output(&events, ev, sizeof(*ev), ring_wake(now, wakeup_bytes, 0))) {
		count(CNT_LOST_REQS);
		return;
	}
	count(CNT_BLOCK_SENT);
}

/*
 * The time now, to TS_QUANTUM_NS: reading the clock takes about 70 ns here,
 * so the nanoseconds below that say nothing about the I/O; they were noise
 * that no compression shrinks, most of a capture's bytes per request.
 */
static __always_inline __u64
now_ns(void)
{
	return bpf_ktime_get_ns() & ~(__u64)(TS_QUANTUM_NS - 1);
}

/*
 * A request starts again while its previous run is still tracked. Requests
 * are preallocated per tag, so the previous run has ended; its completion
 * was never seen: the kernel called the completion tracepoint (ftrace
 * records it) but did not run this program, now and then under load (see
 * doc/performance.md, known limits). Send it now, without latency: counts, bytes and
 * sizes stay exact. A requeued request re-inserted by the rq_insert start
 * hook has not ended: it just starts over.
 */
static __always_inline void
req_unseen(struct reqinfo *ri, __u64 now)
{
	if (!now)
		now = now_ns();	/* a start hook that left the clock to the kernel */
	if (ri->flags & BLK_F_REQUEUED)
		return;
	count(CNT_STALE);
	block_send(ri, now, ri->bytes, 0, BLK_F_NOLAT | BLK_F_UNSEEN);
}

/*
 * Fresh state for a starting request: a free slot, its own stale slot, or
 * the overflow hash. A stale entry is sent first (req_unseen).
 */
static __always_inline struct reqinfo *
req_new(__u64 key, __u64 now, struct slot **sp)
{
	struct reqinfo zero = {}, *ri;
	__u32 i = slot_index(key), probe;
	struct slot *s;

	*sp = NULL;
	if (!key)
		return NULL;	/* 0 marks a free slot */
	for (probe = 0; probe < 2 && HAVE_ATOMIC_FETCH; probe++, i ^= 1) {
		s = bpf_map_lookup_elem(&slots, &i);
		if (!s)
			continue;
		if (s->key == key) {
			req_unseen(&s->ri, now);
			__builtin_memset(&s->ri, 0, sizeof s->ri);
			return &(*sp = s)->ri;
		}
#if HAVE_ATOMIC_FETCH
		if (s->key == 0 && __sync_val_compare_and_swap(&s->key, 0, key) == 0) {
			__builtin_memset(&s->ri, 0, sizeof s->ri);
			return &(*sp = s)->ri;
		}
#endif
	}
	ri = bpf_map_lookup_elem(&overflow, &key);
	if (ri) {
		req_unseen(ri, now);
		__builtin_memset(ri, 0, sizeof *ri);
		return ri;
	}
	if (bpf_map_update_elem(&overflow, &key, &zero, BPF_NOEXIST) != 0) {
		count(CNT_MAP_FULL);
		return NULL;
	}
	return bpf_map_lookup_elem(&overflow, &key);
}

/* Forget a request: free its slot, or delete it from the overflow hash. */
static __always_inline void
req_free(__u64 key, struct slot *s)
{
	if (!s) {
		bpf_map_delete_elem(&overflow, &key);
		return;
	}
	*(volatile __u64 *)&s->key = 0;	/* after every read of s->ri above */
}

/*
 * Who is asking: the submitter, in process context at the start hook. now is
 * 0 where the hook read no clock (the kernel stamps the request): the cgroup
 * cache, which ages its entries by the clock, is passed by (three loads, where
 * the clock costs ~85 ns; a tracing program may not read the coarse clock).
 */
static __always_inline void
req_owner(struct reqinfo *ri, __u64 now)
{
	__u64 id = bpf_get_current_pid_tgid();

	ri->pid = (__u32)id;
	ri->tgid = id >> 32;
	task_owner(now ? cg_cache_cpu() : NULL, &ri->cgroup, ri->comm, now);
}

/*
 * The request pointer as a number, the table key. A tp_btf argument is a
 * trusted pointer on which the verifier allows no arithmetic (hashing); a
 * program loaded with CAP_PERFMON may store a pointer in map memory, and what
 * it reads back is a number. That costs a store and a load; the
 * bpf_probe_read_kernel it replaces cost ~45 ns per hook (bpf_stats, 6.18).
 * A raw_tp argument is a number already.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} keybits SEC(".maps");

static __always_inline __u64
ctx_key(unsigned long long *ctx, bool btf)
{
	__u32 zero = 0;
	__u64 *k;

	if (!btf)
		return ctx[0];
	if (!(k = bpf_map_lookup_elem(&keybits, &zero)))
		return 0;
	*(volatile __u64 *)k = ctx[0];
	return *(volatile __u64 *)k;
}

/* A kernel pointer as a number (low tag bits readable), by the same store and load. */
static __always_inline __u64
ptr_bits(const void *p)
{
	__u32 zero = 0;
	__u64 *k;

	if (!(k = bpf_map_lookup_elem(&keybits, &zero)))
		return 0;
	*(volatile const void **)k = p;
	return *(volatile __u64 *)k;
}

/*
 * Whose pages a request carries: its first bio's first page, that page's
 * mapping and the mapping's inode. A page of no mapping, or of an anonymous
 * one (low bits set), is not in a page cache: direct I/O or swap. The block
 * device's own inode holds filesystem metadata and the journal. Plain loads
 * on tp_btf (a few ns each); the raw_tp fallback pays a probe read per link.
 */
static __always_inline void
req_file(struct request *rq, struct reqinfo *ri, bool btf)
{
	struct address_space *m;
	struct inode *host;
	struct page *pg;
	__u16 mode;

	ri->fclass = BLK_FC_NONE;
	if (btf) {
		struct bio *bio = rq->bio;

		if (!bio || !bio->bi_iter.bi_size || !bio->bi_io_vec)
			return;
		if (bio_pinned && (bio->bi_flags & bio_pinned)) {
			ri->fclass = BLK_FC_DIRECT;
			return;
		}
		pg = bio->bi_io_vec->bv_page;
		m = pg ? pg->mapping : NULL;
	} else {
		struct bio *bio = BPF_CORE_READ(rq, bio);

		if (!bio || !BPF_CORE_READ(bio, bi_iter.bi_size))
			return;
		if (bio_pinned && (BPF_CORE_READ(bio, bi_flags) & bio_pinned)) {
			ri->fclass = BLK_FC_DIRECT;
			return;
		}
		pg = BPF_CORE_READ(bio, bi_io_vec, bv_page);
		m = pg ? BPF_CORE_READ(pg, mapping) : NULL;
	}
	if (!m || (ptr_bits(m) & 3)) {
		ri->fclass = BLK_FC_DIRECT;
		return;
	}
	if (btf) {
		host = m->host;
		if (!host)
			return;
		mode = host->i_mode;
		ri->ino = host->i_ino;
		ri->fsdev = host->i_sb->s_dev;
	} else {
		host = BPF_CORE_READ(m, host);
		if (!host)
			return;
		mode = BPF_CORE_READ(host, i_mode);
		ri->ino = BPF_CORE_READ(host, i_ino);
		ri->fsdev = BPF_CORE_READ(host, i_sb, s_dev);
	}
	if ((mode & 0170000) == 0060000) {	/* S_IFBLK */
		ri->fclass = BLK_FC_META;
		ri->ino = 0;
		ri->fsdev = 0;
		return;
	}
	ri->fclass = BLK_FC_FILE;
}

#include "kstamps.h"

/*
 * Start hook: the request begins, in the submitter's context. It reads no
 * clock where the kernel will stamp the start (kstamps.h).
 */
static __always_inline int
on_start(struct request *rq, __u64 key, bool btf)
{
	bool kstart = kstamp_will_start(rq, RQ_READ(btf, rq, rq_flags), btf);
	__u64 now = kstart ? 0 : now_ns();
	__u32 dev = request_dev(rq, btf);
	struct reqinfo *ri;
	struct slot *s;

	if (!dev_wanted(dev) || !(ri = req_new(key, now, &s)))
		return 0;
	if (debug_counts)
		count(CNT_DBG_START);
	ri->dev = dev;
	ri->ts_start = now;
	ri->kflags = kstart ? RK_KSTART : 0;
	/*
	 * Set the op now: an empty flush (REQ_OP_WRITE|REQ_PREFLUSH) is completed
	 * by the flush machinery without ever being issued itself.
	 */
	request_op(RQ_READ(btf, rq, cmd_flags), &ri->op, &ri->flags);
	ri->sector = RQ_READ(btf, rq, __sector);
	ri->bytes = RQ_READ(btf, rq, __data_len);
	req_owner(ri, now);
	req_file(rq, ri, btf);
	return 0;
}

/*
 * Issue hook: the driver gets the request; it may be the first we see of it.
 * On a timed queue the kernel stamps the issue: no clock is read, and where
 * the start hook sees every accounted request (issue_skip) an accounted one
 * needs nothing here at all; the completion positions it (kstamp_complete).
 */
static __always_inline int
on_issue(struct request *rq, __u64 key, bool btf)
{
	bool timed = kstamp_queue_timed(rq, btf);
	__u64 now;
	struct slot *s;
	struct reqinfo *ri;
	__u16 op, flags;
	__u32 dev;

	if (timed && issue_skip && (RQ_READ(btf, rq, rq_flags) & rqf_io_stat))
		return 0;
	now = timed ? 0 : now_ns();
	ri = req_find(key, &s);
	request_op(RQ_READ(btf, rq, cmd_flags), &op, &flags);
	if (ri && (ri->kflags & RK_ISSUED) && !(ri->flags & BLK_F_REQUEUED) &&
	    (ri->flags & BLK_F_NOSTART)) {
		/*
		 * Issued again, never requeued, with no start hook: the request
		 * ended unseen and is reused. Send it, and take this as a new one.
		 */
		req_unseen(ri, now);
		req_free(key, s);
		ri = NULL;
	}
	if (ri) {
		/* Merges may have grown it since the start: position it now. */
		ri->ts_issue = now;	/* 0 on a timed queue: the kernel's, at completion */
		ri->kflags |= RK_ISSUED;
		ri->sector = RQ_READ(btf, rq, __sector);
		ri->bytes = RQ_READ(btf, rq, __data_len);
		ri->op = op;
		ri->flags = (ri->flags & BLK_F_REQUEUED) | flags;
		return 0;
	}
	dev = request_dev(rq, btf);
	if (!dev_wanted(dev))
		return 0;
	if (!now)
		now = now_ns();	/* first seen here: its start, unless the kernel stamped one */
	if (!(ri = req_new(key, now, &s)))
		return 0;
	if (debug_counts)
		count(CNT_DBG_ISSUE_NEW);
	ri->dev = dev;
	ri->ts_start = ri->ts_issue = now;
	ri->kflags = RK_ISSUED;
	ri->sector = RQ_READ(btf, rq, __sector);
	ri->bytes = RQ_READ(btf, rq, __data_len);
	ri->op = op;
	ri->flags = flags | BLK_F_NOSTART;
	req_owner(ri, now);
	req_file(rq, ri, btf);
	return 0;
}

/* Requeue hook: the request goes back to the queue and will be issued again. */
static __always_inline int
on_requeue(__u64 key)
{
	struct slot *s;
	struct reqinfo *ri = req_find(key, &s);

	if (ri)
		ri->flags |= BLK_F_REQUEUED;
	return 0;
}

/* Merge hook: rq was merged into another request and will be freed unissued. */
static __always_inline int
on_merge(__u64 key)
{
	struct slot *s;
	struct reqinfo *ri = req_find(key, &s);

	if (!ri)
		return 0;
	req_free(key, s);
	return 0;
}

/*
 * The final completion of an empty flush that no hook saw start: a write of
 * no data with REQ_PREFLUSH (blkdev_issue_flush, an fsync). The flush
 * machinery holds it while the queue's flush request (REQ_OP_FLUSH, a request
 * of its own, issued and completed) runs, then ends it, and the kernel counts
 * it as a write (blk_account_io_done, op_stat_group). Before block_io_start
 * (5.10, 6.1) no tracepoint sees such a request before this completion: not
 * block_rq_insert (blk_insert_flush is called instead), not block_rq_issue
 * (it never goes to the driver). Sent from here, with no owner ("[unknown]")
 * and no latency: the submitter is not the task completing it, and its start
 * is not known. blk_insert_flush cleared its REQ_PREFLUSH; the record says
 * PREFLUSH as a start hook's would.
 */
static __always_inline int
on_empty_flush_done(struct request *rq, __u64 now, int status, bool btf)
{
	struct reqinfo ri = {};
	__u32 dev = request_dev(rq, btf);

	if (!dev_wanted(dev))
		return 0;
	ri.dev = dev;
	ri.ts_start = now;
	request_op(RQ_READ(btf, rq, cmd_flags), &ri.op, &ri.flags);
	ri.flags |= BLK_F_PREFLUSH | BLK_F_NOSTART;
	ri.sector = RQ_READ(btf, rq, __sector);
	block_send(&ri, now, 0, status, BLK_F_NOLAT);
	return 0;
}

/* Completion hook: emit the request once the kernel accounts it; kio: its direct async calls too. */
static __always_inline int
on_complete(struct request *rq, __u64 key, int status, unsigned int nr_bytes, bool btf, bool kio)
{
	__u64 now = now_ns();
	struct slot *s;
	struct reqinfo *ri = req_find(key, &s);
	__u32 data_len = RQ_READ(btf, rq, __data_len);
	__u32 rqf = RQ_READ(btf, rq, rq_flags);
	bool flush_seq = rqf & rqf_flush_seq;
	__u16 nolat;

	if (!ri) {
		if (!flush_seq && nr_bytes == 0 && data_len == 0 &&
		    (RQ_READ(btf, rq, cmd_flags) & 0xff) == 1)	/* REQ_OP_WRITE */
			return on_empty_flush_done(rq, now, status, btf);
		/* Started before we attached, or its start and issue were both missed. */
		if (dev_wanted(request_dev(rq, btf)))
			count(CNT_ORPHAN_DONE);
		return 0;
	}
	if (nr_bytes < data_len) {
		ri->done_bytes += nr_bytes;	/* partial completion */
		if (debug_counts)
			count(CNT_DBG_PARTIAL);
		return 0;
	}
	if (flush_seq && ri->op != BLK_OP_FLUSH) {
		/*
		 * The data of a write in a flush sequence (REQ_PREFLUSH, or REQ_FUA
		 * on a device without FUA) is done; a post-flush may follow. The
		 * kernel counts the request when the sequence ends: it clears
		 * RQF_FLUSH_SEQ (blk_flush_restore_request) and completes it again,
		 * with no bytes left, which is the completion sent. (The queue's
		 * own flush request, REQ_OP_FLUSH, also carries RQF_FLUSH_SEQ: the
		 * kernel counts it as a flush when it ends, blk_account_io_flush.)
		 */
		ri->done_bytes += nr_bytes;
		if (debug_counts)
			count(CNT_DBG_PARTIAL);
		return 0;
	}
	if (debug_counts)
		count(CNT_DBG_COMPLETE);
	nolat = kstamp_complete(rq, ri, rqf, now, btf);
	if (!kio || !kio_one(rq, ri, now, status, nr_bytes, nolat)) {
		block_send(ri, now, ri->done_bytes + nr_bytes, status, nolat);
		if (kio)
			kio_complete(rq, ri, now, status);
	}
	req_free(key, s);
	return 0;
}

/* tp_btf variant: typed arguments, plain loads checked against kernel BTF. */
SEC("tp_btf/block_io_start")
int BPF_PROG(tb_io_start, struct request *rq) { return on_start(rq, ctx_key(ctx, true), true); }
SEC("tp_btf/block_rq_insert")
int BPF_PROG(tb_rq_insert, struct request *rq) { return on_start(rq, ctx_key(ctx, true), true); }
SEC("tp_btf/block_rq_issue")
int BPF_PROG(tb_rq_issue, struct request *rq) { return on_issue(rq, ctx_key(ctx, true), true); }
SEC("tp_btf/block_rq_requeue")
int BPF_PROG(tb_rq_requeue, struct request *rq) { return on_requeue(ctx_key(ctx, true)); }
SEC("tp_btf/block_rq_merge")
int BPF_PROG(tb_rq_merge, struct request *rq) { return on_merge(ctx_key(ctx, true)); }
SEC("tp_btf/block_rq_complete")
int BPF_PROG(tb_rq_complete, struct request *rq, int error, unsigned int nr_bytes)
{ return on_complete(rq, ctx_key(ctx, true), error, nr_bytes, true, false); }
SEC("tp_btf/block_rq_complete")
int BPF_PROG(tb_rq_complete_kio, struct request *rq, int error, unsigned int nr_bytes)
{ return on_complete(rq, ctx_key(ctx, true), error, nr_bytes, true, true); }

/* raw_tp variant: untyped arguments, for kernels without tp_btf (before 5.5). */
SEC("raw_tp/block_io_start")
int BPF_PROG(rt_io_start, struct request *rq) { return on_start(rq, ctx_key(ctx, false), false); }
SEC("raw_tp/block_rq_insert")
int BPF_PROG(rt_rq_insert, struct request *rq) { return on_start(rq, ctx_key(ctx, false), false); }
SEC("raw_tp/block_rq_issue")
int BPF_PROG(rt_rq_issue, struct request *rq) { return on_issue(rq, ctx_key(ctx, false), false); }
SEC("raw_tp/block_rq_requeue")
int BPF_PROG(rt_rq_requeue, struct request *rq) { return on_requeue(ctx_key(ctx, false)); }
SEC("raw_tp/block_rq_merge")
int BPF_PROG(rt_rq_merge, struct request *rq) { return on_merge(ctx_key(ctx, false)); }
SEC("raw_tp/block_rq_complete")
int BPF_PROG(rt_rq_complete, struct request *rq, int error, unsigned int nr_bytes)
{ return on_complete(rq, ctx_key(ctx, false), error, nr_bytes, false, false); }

/*
 * Run by user space on one CPU (BPF_F_TEST_RUN_ON_CPU) to send that CPU's
 * batch of requests when they have waited long enough and no completion came
 * to send them (src/source-cost.c cost_batch_flush). Never attached.
 */
SEC("raw_tp")
int blk_batch_flush(void *ctx)
{
	batch_drain(bpf_ktime_get_ns());
	return 0;
}
