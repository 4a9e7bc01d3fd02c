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
