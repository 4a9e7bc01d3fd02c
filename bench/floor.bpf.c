/*
 * floor.bpf.c: programs that do nothing, on the hooks blktop uses. Attached
 * by bench-floor, they measure what the kernel charges for running any BPF
 * program there: the floor under blktop's own overhead. The "min" set is a
 * plain tracer of the same per-request design, written the usual way
 * (biolatency's hash): remember each request by its pointer at start (time,
 * submitter), stamp its issue, and at completion put one record in a ring
 * buffer that user space drains.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

/* Block hooks of the default plan (tp_btf:io_start). */
SEC("tp_btf/block_io_start")
int BPF_PROG(floor_io_start) { return 0; }
SEC("tp_btf/block_rq_issue")
int BPF_PROG(floor_rq_issue) { return 0; }
SEC("tp_btf/block_rq_complete")
int BPF_PROG(floor_rq_complete) { return 0; }

/* vfs, classic tracepoint variant (read only: the read-loop benchmark). */
SEC("tracepoint/syscalls/sys_enter_read")
int floor_tp_enter_read(void *ctx) { return 0; }
SEC("tracepoint/syscalls/sys_exit_read")
int floor_tp_exit_read(void *ctx) { return 0; }

/* vfs, tp_btf variant: every syscall passes these. */
SEC("tp_btf/sys_enter")
int BPF_PROG(floor_sys_enter) { return 0; }
SEC("tp_btf/sys_exit")
int BPF_PROG(floor_sys_exit) { return 0; }

/* The "min" set: biolatency's hash bookkeeping plus one ring-buffer record per request. */
struct min_req {
	__u64 ts_start;
	__u64 ts_issue;
	__u64 pid_tgid;
	char comm[16];
};

struct min_ev {
	__u64 ts_start;
	__u64 ts_issue;
	__u64 ts_done;
	__u64 sector;
	__u64 pid_tgid;
	__u32 dev;
	__u32 bytes;
	char comm[16];
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, struct request *);
	__type(value, struct min_req);
} min_reqs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 16 << 20);
} min_rb SEC(".maps");

SEC("tp_btf/block_io_start")
int BPF_PROG(min_io_start, struct request *rq)
{
	struct min_req r = { .ts_start = bpf_ktime_get_ns() };

	r.pid_tgid = bpf_get_current_pid_tgid();
	bpf_get_current_comm(r.comm, sizeof r.comm);
	bpf_map_update_elem(&min_reqs, &rq, &r, BPF_ANY);
	return 0;
}

SEC("tp_btf/block_rq_issue")
int BPF_PROG(min_rq_issue, struct request *rq)
{
	struct min_req *r = bpf_map_lookup_elem(&min_reqs, &rq);

	if (r)
		r->ts_issue = bpf_ktime_get_ns();
	return 0;
}

SEC("tp_btf/block_rq_complete")
int BPF_PROG(min_rq_complete, struct request *rq, int error, unsigned int nr_bytes)
{
	struct min_req *r = bpf_map_lookup_elem(&min_reqs, &rq);
	struct gendisk *disk = rq->q->disk;
	struct min_ev *e;

	if (!r)
		return 0;
	if ((e = bpf_ringbuf_reserve(&min_rb, sizeof *e, 0)) != NULL) {
		e->ts_start = r->ts_start;
		e->ts_issue = r->ts_issue;
		e->ts_done = bpf_ktime_get_ns();
		e->sector = rq->__sector;
		e->pid_tgid = r->pid_tgid;
		e->dev = disk ? (__u32)disk->major << 20 | (__u32)disk->first_minor : 0;
		e->bytes = nr_bytes;
		__builtin_memcpy(e->comm, r->comm, sizeof e->comm);
		bpf_ringbuf_submit(e, BPF_RB_NO_WAKEUP);
	}
	bpf_map_delete_elem(&min_reqs, &rq);
	return 0;
}

/*
 * The parts of a traced read() that no design of one record per call avoids
 * (set "vfs-parts"): the two syscall tracepoint programs, a clock read at
 * each (the call's latency), and at the exit one record of a cached read's
 * size (113 bytes) in the ring buffer.
 */
struct parts_ev {
	__u64 ts;
	__u64 lat;
	__u8 rest[97];
};
__u64 parts_enter_ts;

SEC("tracepoint/syscalls/sys_enter_read")
int parts_tp_enter_read(void *ctx)
{
	parts_enter_ts = bpf_ktime_get_ns();
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_read")
int parts_tp_exit_read(void *ctx)
{
	__u64 now = bpf_ktime_get_ns();
	struct parts_ev *e = bpf_ringbuf_reserve(&min_rb, sizeof *e, 0);

	if (e) {
		e->ts = now;
		e->lat = now - parts_enter_ts;
		bpf_ringbuf_submit(e, BPF_RB_NO_WAKEUP);
	}
	return 0;
}

/* The same without the record (set "vfs-clock"): what batching records can at best leave. */
SEC("tracepoint/syscalls/sys_exit_read")
int clock_tp_exit_read(void *ctx)
{
	__u64 now = bpf_ktime_get_ns();

	parts_enter_ts = now - parts_enter_ts;
	return 0;
}

/*
 * The floor of an async call traced with one record and one latency each
 * (set "async-min": the "min" block set plus these, on io_uring): at
 * submission a clock read kept by request in a hash; at completion the
 * hash's entry taken back and deleted, and one record of a path-less
 * read's size (113 bytes) in the ring buffer. Nothing else: no filter, no
 * file, no owner.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, __u64);
} min_subs SEC(".maps");

SEC("tp_btf/io_uring_submit_req")
int BPF_PROG(min_uring_submit, struct io_kiocb *req)
{
	__u64 key = (__u64)ctx[0], ts = bpf_ktime_get_ns();

	bpf_map_update_elem(&min_subs, &key, &ts, BPF_ANY);
	return 0;
}

SEC("tp_btf/io_uring_complete")
int BPF_PROG(min_uring_complete, struct io_ring_ctx *ring, void *req, struct io_uring_cqe *cqe)
{
	__u64 key = (__u64)ctx[1], *ts = bpf_map_lookup_elem(&min_subs, &key);
	struct parts_ev *e;

	if (!ts)
		return 0;
	if ((e = bpf_ringbuf_reserve(&min_rb, sizeof *e, 0)) != NULL) {
		e->ts = bpf_ktime_get_ns();
		e->lat = e->ts - *ts;
		bpf_ringbuf_submit(e, BPF_RB_NO_WAKEUP);
	}
	bpf_map_delete_elem(&min_subs, &key);
	return 0;
}

/*
 * The floor of an async call aggregated in the kernel (set "async-agg": the
 * "min" block set, min_uring_submit and this, on io_uring): exact counts, bytes and a
 * latency histogram per call with no record per call, as the issue's
 * "aggregated per process and file per interval" would keep them. At
 * submission a clock read kept by request in a hash; at completion the
 * entry taken back and deleted, and a per-CPU counter of calls, bytes and
 * a log2 latency bucket added to. No filter, no file, no owner: a design
 * that also names the file and process costs more.
 */
struct agg_cnt {
	__u64 calls;
	__u64 bytes;
	__u64 lat[32];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct agg_cnt);
} agg_cnt SEC(".maps");

SEC("tp_btf/io_uring_complete")
int BPF_PROG(agg_uring_complete, struct io_ring_ctx *ring, void *req, struct io_uring_cqe *cqe)
{
	__u64 key = (__u64)ctx[1], *ts = bpf_map_lookup_elem(&min_subs, &key), lat;
	__u32 zero = 0;
	struct agg_cnt *c;
	int b;

	if (!ts)
		return 0;
	lat = bpf_ktime_get_ns() - *ts;
	bpf_map_delete_elem(&min_subs, &key);
	if (!(c = bpf_map_lookup_elem(&agg_cnt, &zero)))
		return 0;
	c->calls++;
	c->bytes += cqe->res > 0 ? cqe->res : 0;
	b = (lat > 0xffffffffULL) << 5;
	lat >>= b;
	if (lat > 0xffff) { b += 16; lat >>= 16; }
	if (lat > 0xff) { b += 8; lat >>= 8; }
	if (lat > 0xf) { b += 4; lat >>= 4; }
	if (lat > 0x3) { b += 2; lat >>= 2; }
	b += lat > 1;
	c->lat[b & 31]++;
	return 0;
}

/*
 * The parts of a traced read() plus naming its file (set "vfs-file"): what
 * "vfs-parts" costs, and at the exit the struct file behind the fd (the
 * task's fd table by typed loads, one probe read of the fd array's slot) and
 * one probe read of its inode pointer, both put into the record: the least
 * that tells one file from another (a cache keyed by them gives the path).
 * blktop's read path does this and more (one read of the file's inode, path
 * and flags together, its path slot, the process's owner).
 */
struct file_ev {
	__u64 ts;
	__u64 lat;
	__u64 file;
	__u64 inode;
	__u8 rest[81];
};
__u64 file_enter_fd;

SEC("tracepoint/syscalls/sys_enter_read")
int file_tp_enter_read(struct trace_event_raw_sys_enter *ctx)
{
	parts_enter_ts = bpf_ktime_get_ns();
	file_enter_fd = ctx->args[0];
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_read")
int file_tp_exit_read(void *ctx)
{
	__u64 now = bpf_ktime_get_ns();
	struct task_struct *task = bpf_get_current_task_btf();
	struct fdtable *fdt;
	struct file *f = NULL;
	struct inode *inode = NULL;
	struct file_ev *e;
	unsigned int fd = file_enter_fd;

	if (!task->files || !(fdt = task->files->fdt) || fd >= fdt->max_fds)
		return 0;
	bpf_probe_read_kernel(&f, sizeof f, &fdt->fd[fd]);
	if (!f)
		return 0;
	bpf_probe_read_kernel(&inode, sizeof inode, &f->f_inode);
	if ((e = bpf_ringbuf_reserve(&min_rb, sizeof *e, 0)) != NULL) {
		e->ts = now;
		e->lat = now - parts_enter_ts;
		e->file = (__u64)f;
		e->inode = (__u64)inode;
		bpf_ringbuf_submit(e, BPF_RB_NO_WAKEUP);
	}
	return 0;
}

/*
 * One record per async request (issue 28's "the block record can carry the
 * call's file and offset"): for direct I/O the submitting task runs
 * block_io_start right after the submission, so the call's identity can
 * travel to its request without a table keyed by request and without a
 * completion program. The block part is the "min" set's, its record 32
 * bytes longer (the call's file, offset, start and a flag), its hash a
 * separate one (blk_reqs) so that "min" itself stays as measured before.
 * bpf_rdonly_cast (6.2+) and the kernel's own symbols are used freely: a
 * floor, not a portable design.
 *
 * Sets:
 *   async-blk    the block part; at io_uring_submit_req the call's file,
 *                offset (typed ki_pos), length, op, pid and a clock read in
 *                a per-CPU slot; block_io_start in the same task takes it
 *                (first request of the call, or a continuation).
 *                No io_uring_complete program.
 *   async-blk-c  async-blk, and io_uring_complete attached with the early
 *                exit an exact design needs for calls that reach no block
 *                request: the per-CPU slot compared, and the direct-mapped
 *                array where a submission spills an untaken slot probed.
 *   kio          no async program at all: block_io_start finds the kiocb
 *                through its bio (blkdev's async dio embeds the bio; blkdev's
 *                multi-bio dio and iomap's dio hang off bi_private) and reads
 *                its file, ki_pos and, by ki_complete, the engine (libaio's
 *                user iocb address from the aio_kiocb around it).
 *   aio-blk      kio, and at io_submit's entry (sys_enter_io_submit) a clock
 *                read and the pid in the per-CPU slot, no user memory read;
 *                block_io_start takes the clock as the call's start.
 */
extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym;
extern const void blkdev_bio_end_io_async __ksym;
extern const void blkdev_bio_end_io __ksym;
extern const void iomap_dio_bio_end_io __ksym;
extern const void aio_complete_rw __ksym;
extern const void io_complete_rw __ksym;

#include <bpf/bpf_core_read.h>

#define CALL_FIRST	1	/* the first request of its call */
#define CALL_CONT	2	/* a later request of the same call */
#define CALL_URING	4
#define CALL_AIO	8

struct blk_req {
	__u64 ts_start;
	__u64 ts_issue;
	__u64 pid_tgid;
	__u64 file;
	__s64 pos;
	__u64 call_ts;
	__u64 user;		/* libaio: the user iocb */
	__u32 flags;
	__u32 len;
	char comm[16];
};

struct blk_ev {
	__u64 ts_start;
	__u64 ts_issue;
	__u64 ts_done;
	__u64 sector;
	__u64 pid_tgid;
	__u64 file;
	__s64 pos;
	__u64 call_ts;
	__u64 user;
	__u32 dev;
	__u32 bytes;
	__u32 flags;
	__u32 len;
	char comm[16];
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, struct request *);
	__type(value, struct blk_req);
} blk_reqs SEC(".maps");

/* The call a task just submitted, for its block request to take. */
struct blk_call {
	__u64 req;		/* io_kiocb (a number), 0 if none */
	__u64 file;
	__s64 pos;
	__u64 ts;
	__u32 pid;
	__u32 len;
	__u32 op;
	__u32 taken;		/* requests that took it */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct blk_call);
} blk_slot SEC(".maps");

/* Calls whose block request did not take them (cached, punted): for the completion. */
#define NBLK_SPILL 16384
struct blk_spill {
	__u64 key;
	struct blk_call c;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, NBLK_SPILL);
	__type(key, __u32);
	__type(value, struct blk_spill);
} blk_spills SEC(".maps");

/* What went where (read by nobody but bpftool map dump: the design's hit rate). */
__u64 blk_hit, blk_miss, blk_miss_pid, blk_cont, blk_spilled, blk_cdone, kio_uring, kio_aio, kio_none;

static __always_inline __u32 blk_spill_index(__u64 key)
{
	return (__u32)(((key >> 4) * 0x9E3779B97F4A7C15ULL) >> 40) & (NBLK_SPILL - 1);
}

SEC("tp_btf/io_uring_submit_req")
int BPF_PROG(blk_uring_submit, struct io_kiocb *req)
{
	const struct io_rw *rw = (const struct io_rw *)&req->file;
	__u8 op = req->opcode;
	__u32 zero = 0, i;
	struct blk_call *c;
	struct blk_spill *sp;

	if (op != 22 && op != 1 && op != 4 && op != 23 && op != 2 && op != 5)
		return 0;	/* not a read or write */
	if (!(c = bpf_map_lookup_elem(&blk_slot, &zero)))
		return 0;
	if (c->req && !c->taken) {
		/* The previous call reached no block request here: its completion finds it. */
		i = blk_spill_index(c->req);
		if ((sp = bpf_map_lookup_elem(&blk_spills, &i)) != NULL) {
			sp->c = *c;
			sp->key = c->req;
			blk_spilled++;
		}
	}
	/* req->file is not assigned yet here (io_assign_file, at the issue): blk_io_start reads it. */
	*(volatile const void **)&c->req = req;
	c->pos = rw->kiocb.ki_pos;
	c->len = rw->len;
	c->op = op;
	c->pid = (__u32)bpf_get_current_pid_tgid();
	c->taken = 0;
	c->ts = bpf_ktime_get_ns();
	return 0;
}

/* The block part: min_io_start's, plus what the call left in the per-CPU slot. */
SEC("tp_btf/block_io_start")
int BPF_PROG(blk_io_start, struct request *rq)
{
	struct blk_req r = { .ts_start = bpf_ktime_get_ns() };
	__u32 zero = 0;
	struct blk_call *c;

	r.pid_tgid = bpf_get_current_pid_tgid();
	bpf_get_current_comm(r.comm, sizeof r.comm);
	if ((c = bpf_map_lookup_elem(&blk_slot, &zero)) != NULL && c->req &&
	    c->pid == (__u32)r.pid_tgid) {
		bpf_probe_read_kernel(&r.file, sizeof r.file, &((struct io_kiocb *)c->req)->file);
		r.pos = c->pos;
		r.call_ts = c->ts;
		r.len = c->len;
		r.flags = CALL_URING | (c->taken ? CALL_CONT : CALL_FIRST);
		if (c->taken++)
			blk_cont++;
		else
			blk_hit++;
	} else if (c && c->req) {
		blk_miss_pid++;	/* another task's call: punted, or migrated between the two */
	} else {
		blk_miss++;
	}
	bpf_map_update_elem(&blk_reqs, &rq, &r, BPF_ANY);
	return 0;
}

SEC("tp_btf/block_rq_issue")
int BPF_PROG(blk_rq_issue, struct request *rq)
{
	struct blk_req *r = bpf_map_lookup_elem(&blk_reqs, &rq);

	if (r)
		r->ts_issue = bpf_ktime_get_ns();
	return 0;
}

SEC("tp_btf/block_rq_complete")
int BPF_PROG(blk_rq_complete, struct request *rq, int error, unsigned int nr_bytes)
{
	struct blk_req *r = bpf_map_lookup_elem(&blk_reqs, &rq);
	struct gendisk *disk = rq->q->disk;
	struct blk_ev *e;

	if (!r)
		return 0;
	if ((e = bpf_ringbuf_reserve(&min_rb, sizeof *e, 0)) != NULL) {
		e->ts_start = r->ts_start;
		e->ts_issue = r->ts_issue;
		e->ts_done = bpf_ktime_get_ns();
		e->sector = rq->__sector;
		e->pid_tgid = r->pid_tgid;
		e->file = r->file;
		e->pos = r->pos;
		e->call_ts = r->call_ts;
		e->user = r->user;
		e->dev = disk ? (__u32)disk->major << 20 | (__u32)disk->first_minor : 0;
		e->bytes = nr_bytes;
		e->flags = r->flags;
		e->len = r->len;
		__builtin_memcpy(e->comm, r->comm, sizeof e->comm);
		bpf_ringbuf_submit(e, BPF_RB_NO_WAKEUP);
	}
	bpf_map_delete_elem(&blk_reqs, &rq);
	return 0;
}

/*
 * async-blk-c: the completion program an exact design keeps for calls that
 * reach no block request. Every direct call exits early: not the per-CPU
 * slot's untaken call, not in the spill array.
 */
SEC("tp_btf/io_uring_complete")
int BPF_PROG(blk_uring_complete, struct io_ring_ctx *ring, void *req, struct io_uring_cqe *cqe)
{
	__u64 key = (__u64)ctx[1];
	__u32 zero = 0, i = blk_spill_index(key);
	struct blk_call *c = bpf_map_lookup_elem(&blk_slot, &zero), call;
	struct blk_spill *sp;
	struct parts_ev *e;

	if (c && c->req == key && !c->taken) {
		call = *c;
		c->req = 0;
	} else if ((sp = bpf_map_lookup_elem(&blk_spills, &i)) != NULL && sp->key == key) {
		call = sp->c;
		sp->key = 0;
	} else {
		return 0;	/* a call its block request carried */
	}
	blk_cdone++;
	if ((e = bpf_ringbuf_reserve(&min_rb, sizeof *e, 0)) != NULL) {
		e->ts = bpf_ktime_get_ns();
		e->lat = e->ts - call.ts;
		bpf_ringbuf_submit(e, BPF_RB_NO_WAKEUP);
	}
	return 0;
}

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} keybits2 SEC(".maps");

/* The kiocb a direct I/O request's first bio was made for, as a number; 0 if not known. */
static __always_inline __u64 kio_of(struct request *rq)
{
	struct bio *bio = rq->bio;
	__u64 end, b;
	__u32 zero = 0;
	__u64 *k;

	if (!bio || !(k = bpf_map_lookup_elem(&keybits2, &zero)))
		return 0;
	end = (__u64)bio->bi_end_io;
	if (end == (__u64)&blkdev_bio_end_io_async) {
		/* blkdev's one-bio async dio: the bio is inside its struct blkdev_dio. */
		*(volatile const void **)k = bio;
		b = *(volatile __u64 *)k - bpf_core_field_offset(struct blkdev_dio, bio);
		struct blkdev_dio *d = bpf_rdonly_cast((void *)b, bpf_core_type_id_kernel(struct blkdev_dio));
		*(volatile const void **)k = d->iocb;
	} else if (end == (__u64)&blkdev_bio_end_io) {
		struct blkdev_dio *d = bpf_rdonly_cast(bio->bi_private, bpf_core_type_id_kernel(struct blkdev_dio));
		*(volatile const void **)k = d->iocb;
	} else if (end == (__u64)&iomap_dio_bio_end_io) {
		struct iomap_dio *d = bpf_rdonly_cast(bio->bi_private, bpf_core_type_id_kernel(struct iomap_dio));
		*(volatile const void **)k = d->iocb;
	} else {
		return 0;
	}
	return *(volatile __u64 *)k;
}

static __always_inline void kio_fill(struct request *rq, struct blk_req *r)
{
	__u64 kb = kio_of(rq), done;
	struct kiocb *kio;

	if (!kb) {
		kio_none++;
		return;
	}
	kio = bpf_rdonly_cast((void *)kb, bpf_core_type_id_kernel(struct kiocb));
	r->file = (__u64)kio->ki_filp;
	r->pos = kio->ki_pos;
	done = (__u64)kio->ki_complete;
	if (done == (__u64)&aio_complete_rw) {
		struct aio_kiocb *a = bpf_rdonly_cast((void *)kb, bpf_core_type_id_kernel(struct aio_kiocb));

		r->user = a->ki_res.obj;
		r->flags = CALL_AIO | CALL_FIRST;
		kio_aio++;
	} else if (done == (__u64)&io_complete_rw) {
		r->flags = CALL_URING | CALL_FIRST;
		kio_uring++;
	} else {
		kio_none++;
	}
}

SEC("tp_btf/block_io_start")
int BPF_PROG(kio_io_start, struct request *rq)
{
	struct blk_req r = { .ts_start = bpf_ktime_get_ns() };

	r.pid_tgid = bpf_get_current_pid_tgid();
	bpf_get_current_comm(r.comm, sizeof r.comm);
	kio_fill(rq, &r);
	bpf_map_update_elem(&blk_reqs, &rq, &r, BPF_ANY);
	return 0;
}

/* aio-blk: io_submit's entry leaves its clock and pid, no user memory read. */
SEC("tracepoint/syscalls/sys_enter_io_submit")
int blk_aio_submit(void *ctx)
{
	__u32 zero = 0;
	struct blk_call *c = bpf_map_lookup_elem(&blk_slot, &zero);

	if (c) {
		c->pid = (__u32)bpf_get_current_pid_tgid();
		c->ts = bpf_ktime_get_ns();
		c->req = 1;
	}
	return 0;
}

SEC("tp_btf/block_io_start")
int BPF_PROG(aio_io_start, struct request *rq)
{
	struct blk_req r = { .ts_start = bpf_ktime_get_ns() };
	__u32 zero = 0;
	struct blk_call *c;

	r.pid_tgid = bpf_get_current_pid_tgid();
	bpf_get_current_comm(r.comm, sizeof r.comm);
	kio_fill(rq, &r);
	if ((c = bpf_map_lookup_elem(&blk_slot, &zero)) != NULL && c->req &&
	    c->pid == (__u32)r.pid_tgid) {
		r.call_ts = c->ts;
		blk_hit++;
	} else {
		blk_miss++;
	}
	bpf_map_update_elem(&blk_reqs, &rq, &r, BPF_ANY);
	return 0;
}

/*
 * Decomposition (set "hooks-empty": the min set and empty programs on the
 * async hooks; set "async-blk-nc": async-blk with no clock read at the
 * submission, the call's start taken as its request's).
 */
SEC("tp_btf/io_uring_submit_req")
int BPF_PROG(floor_uring_submit) { return 0; }
SEC("tp_btf/io_uring_complete")
int BPF_PROG(floor_uring_complete) { return 0; }
SEC("tracepoint/syscalls/sys_enter_io_submit")
int floor_aio_submit(void *ctx) { return 0; }

SEC("tp_btf/io_uring_submit_req")
int BPF_PROG(blk_uring_submit_nc, struct io_kiocb *req)
{
	const struct io_rw *rw = (const struct io_rw *)&req->file;
	__u8 op = req->opcode;
	__u32 zero = 0;
	struct blk_call *c;

	if (op != 22 && op != 1 && op != 4 && op != 23 && op != 2 && op != 5)
		return 0;
	if (!(c = bpf_map_lookup_elem(&blk_slot, &zero)))
		return 0;
	*(volatile const void **)&c->req = req;
	c->pos = rw->kiocb.ki_pos;
	c->len = rw->len;
	c->op = op;
	c->pid = (__u32)bpf_get_current_pid_tgid();
	c->taken = 0;
	return 0;
}
