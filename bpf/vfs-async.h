/*
 * vfs-async.h: io_uring and libaio reads and writes, from submission to
 * completion (async_slots), each completion a read/write record.
 * Self-contained: it includes what it uses.
 */
#ifndef BLKTOP_VFS_ASYNC_H
#define BLKTOP_VFS_ASYNC_H

#include "vfs-rw.h"
#include "vfs-syscalls.h"	/* struct sc_enter, sc_exit */

/*
 * Async submissions between submission and completion (io_uring requests by
 * request pointer, libaio iocbs by user address and process): a
 * direct-mapped array, two slots per key, claimed by a compare-and-swap of
 * the key, as vfs_calls is (an LRU hash update, lookup and delete per
 * request, which it replaces, cost more than the record). A key whose two
 * slots are both taken goes to the LRU hash, where a submission never
 * completed ages out; an array slot holding one is taken over after
 * ASYNC_STALE_NS. The compat build (no compare-and-swap) uses the hash only.
 */
#define NASYNC		16384
#define ASYNC_STALE_NS	(60ULL * 1000000000)

struct async_key {
	__u64 key;		/* request pointer, or iocb address */
	__u64 key2;		/* 0, or the iocb's tgid */
};

struct async_sub {
	__u64 ts;
	__u64 nbytes;		/* libaio: asked, or (u64)-1 (vectored: what was done) */
	__s64 pos;		/* libaio: offset */
	__s32 fd;
	__u32 sys;
};

struct async_slot {
	struct async_key k;	/* k.key 0 when free */
	struct async_sub sub;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, NASYNC);
	__type(key, __u32);
	__type(value, struct async_slot);
} async_slots SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, struct async_key);
	__type(value, struct async_sub);
} async_spill SEC(".maps");

/*
 * Set by the loader where the block object names direct async calls at
 * their requests (bpf/blk-kio.h, issue 42): a submission of an O_DIRECT
 * file returns at once, and a completion or reap returns at once while no
 * submission is kept (async_open). async_open counts the submissions kept
 * and not taken back (one taken over stale, or aged out of the spill hash,
 * stays counted: the early return is then lost, never a call).
 */
__u32 kio_direct = 0;
__u64 async_open = 0;

static __always_inline __u32 async_index(__u64 key, __u64 key2)
{
	return (__u32)((((key >> 4) ^ key2) * 0x9E3779B97F4A7C15ULL) >> 40) & (NASYNC - 1);
}

/* Keep a submission until its completion. */
static __always_inline void async_put(__u64 key, __u64 key2, const struct async_sub *sub)
{
	struct async_key k = { .key = key, .key2 = key2 };
	__u32 i = async_index(key, key2), probe;
	struct async_slot *a;
	__u64 cur;

	if (!key)
		return;		/* 0 marks a free slot */
	for (probe = 0; probe < 2 && HAVE_ATOMIC_FETCH; probe++, i ^= 1) {
		a = bpf_map_lookup_elem(&async_slots, &i);
		if (!a)
			continue;
		cur = *(volatile __u64 *)&a->k.key;
		if (cur == key && a->k.key2 == key2) {
			a->sub = *sub;	/* submitted again, its completion unseen */
			return;
		}
#if HAVE_ATOMIC_FETCH
		if ((cur == 0 || sub->ts - a->sub.ts > ASYNC_STALE_NS) &&
		    __sync_val_compare_and_swap(&a->k.key, cur, key) == cur) {
			a->k.key2 = key2;
			a->sub = *sub;
			if (kio_direct)
				__sync_fetch_and_add(&async_open, 1);
			return;
		}
#endif
	}
	if (bpf_map_update_elem(&async_spill, &k, sub, BPF_ANY) == 0 && kio_direct)
		__sync_fetch_and_add(&async_open, 1);
}

/* Take a submission back at its completion, freeing its entry; false if none. */
static __always_inline bool async_take(__u64 key, __u64 key2, struct async_sub *out)
{
	struct async_key k = { .key = key, .key2 = key2 };
	__u32 i = async_index(key, key2), probe;
	struct async_slot *a;
	struct async_sub *p;

	if (!key)
		return false;
	for (probe = 0; probe < 2 && HAVE_ATOMIC_FETCH; probe++, i ^= 1) {
		a = bpf_map_lookup_elem(&async_slots, &i);
		if (a && a->k.key == key && a->k.key2 == key2) {
			*out = a->sub;
			*(volatile __u64 *)&a->k.key = 0;	/* after the copy */
			if (kio_direct)
				__sync_fetch_and_add(&async_open, -1);
			return true;
		}
	}
	p = bpf_map_lookup_elem(&async_spill, &k);
	if (!p)
		return false;
	*out = *p;
	bpf_map_delete_elem(&async_spill, &k);
	if (kio_direct)
		__sync_fetch_and_add(&async_open, -1);
	return true;
}

/* The read/write record of an async completion: its submission, file and result. */
static __always_inline int async_done(const struct async_sub *sub, struct file *f, __u64 asked,
    __s64 res, __u64 now)
{
	struct inflight in = {};
	struct scratch *s = scratch_take();

	if (!s) {
		count(&counters, CNT_LOST_CALLS);
		return 0;
	}
	in.ts = sub->ts;
	in.sys = sub->sys;
	in.arg[0] = sub->fd;
	in.arg[2] = asked;
	in.arg[3] = sub->pos;
	in.file = (__u64)f;
	vfs_exit_rw(s, &in, in.sys, now, res, sys_op(in.sys));
	scratch_put(s);
	return 0;
}

/*
 * io_uring reads and writes (tp_btf, loaded beside any variant where the
 * kernel has the tracepoints): the submission's time by request, then at
 * completion a read/write record like a syscall's, its latency submission
 * to completion, its file the request's.
 */
struct uring_sub {		/* 5.10's shape */
	__u64 ts;
	__u64 file;		/* its completion names no request */
	__u32 sys;
	__s32 fd;
};

/* 5.10's shape: a submission by ring and user_data, all its completion names. */
struct uring_ud_key {
	__u64 ring;
	__u64 user_data;
};
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, struct uring_ud_key);
	__type(value, struct uring_sub);
} uring_subs_ud SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} uring_keybits SEC(".maps");

/* A request pointer as a number (see blktop.bpf.c's ctx_key). */
static __always_inline __u64 uring_key(const void *p)
{
	__u32 zero = 0;
	__u64 *k = bpf_map_lookup_elem(&uring_keybits, &zero);

	if (!k)
		return 0;
	*(volatile const void **)k = p;
	return *(volatile __u64 *)k;
}

/*
 * The read/write op of an io_uring opcode, or 0 for the others. The opcodes
 * are uapi (include/uapi/linux/io_uring.h), fixed: numbers, not relocations
 * against enum io_uring_op, which 5.10's BTF does not carry.
 */
static __always_inline __u32 uring_sys(__u8 op)
{
	if (op == 22 || op == 1 || op == 4)	/* IORING_OP_READ, _READV, _READ_FIXED */
		return VFS_SYS_URING_READ;
	if (op == 23 || op == 2 || op == 5)	/* IORING_OP_WRITE, _WRITEV, _WRITE_FIXED */
		return VFS_SYS_URING_WRITE;
	return 0;
}

/*
 * The offset an io_uring read or write asked for. Its prep (io_prep_rw:
 * kiocb.ki_pos = sqe->off) runs before the submission tracepoint, and the
 * kiocb, first member of struct io_rw, lies at the start of the request's
 * union, where `file` is (5.19 to 7.2). -1: the file's own position, which
 * the issue takes later (not known here). 5.10's tracepoint comes before the
 * prep: no offset there (uring_submit_v510).
 */
static __always_inline __s64 uring_pos(struct io_kiocb *req)
{
	/*
	 * A typed load, not a probe read (with one, the program took 262 ns
	 * a request against 199 without the offset; with the load, 223
	 * against 226: bench/run-async.py): the verifier walks io_kiocb to the
	 * union's bytes (6.0+: io_cmd_data's data[], which it lets a load
	 * read as a scalar; 5.19: struct io_rw itself).
	 */
	const struct kiocb *k = (const struct kiocb *)&req->file;

	return k->ki_pos;
}

/* Whether an fd names an O_DIRECT file. */
static __always_inline bool fd_direct(int fd)
{
	struct file *f = fd_file(fd);

	if (f && FILE_CAST)
		return file_cast_flags(f) & O_DIRECT_FLAG;	/* 6.2+: no probe read */
	return f && (BPF_CORE_READ(f, f_flags) & O_DIRECT_FLAG);
}

/* A submission, with its typed request (the shapes of 5.19 and newer). */
static __always_inline int uring_submit_req(struct io_kiocb *req)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct async_sub sub = {};

	if (!trace_uring)
		return 0;
	if (req->opcode == 35 || req->opcode == 36)	/* IORING_OP_RENAMEAT, _UNLINKAT */
		return paths_stale(0);	/* before it is done: the slots of its file go stale */
	sub.sys = uring_sys(req->opcode);
	if (!sub.sys)
		return 0;
	/*
	 * Direct I/O: named at its block requests (blk-kio.h). The request's
	 * file is assigned only at its issue: the fd's, here. A registered
	 * file (IOSQE_FIXED_FILE, REQ_F_FIXED_FILE: bit 0) keeps this path,
	 * and blk-kio.h leaves its calls alone.
	 */
	if (kio_direct && !(req->flags & 1) && fd_direct(req->cqe.fd))
		return 0;
	if (!wanted(id >> 32))
		return 0;
	sub.fd = req->cqe.fd;
	sub.pos = uring_pos(req);
	sub.ts = bpf_ktime_get_ns();
	async_put(uring_key(req), 0, &sub);
	return 0;
}

/* Linux 6.4 and newer: io_uring_submit_req(req). */
SEC("tp_btf/io_uring_submit_req")
int BPF_PROG(uring_submit, struct io_kiocb *req)
{
	return uring_submit_req(req);
}

/* Linux 5.19 to 6.3 (Debian 12's 6.1): io_uring_submit_sqe(req, force_nonblock). */
SEC("tp_btf/io_uring_submit_sqe")
int BPF_PROG(uring_submit_sqe, struct io_kiocb *req, bool force_nonblock)
{
	return uring_submit_req(req);
}

/* A completion by its request (5.19 and newer). */
static __always_inline int uring_complete_req(void *req, __s32 res)
{
	struct io_kiocb *r = req;
	struct async_sub sub;
	struct file *f = NULL;

	if (!trace_uring || (kio_direct && !*(volatile __u64 *)&async_open) ||
	    !async_take(uring_key(req), 0, &sub))
		return 0;	/* not a read or write, direct (blk-kio.h), or submitted before blktop attached */
	bpf_probe_read_kernel(&f, sizeof(f), &r->file);
	/* The length asked is not kept: what was done stands for it. */
	return async_done(&sub, f, res > 0 ? res : 0, res, bpf_ktime_get_ns());
}

/* Linux 6.2 and newer: io_uring_complete(ctx, req, cqe). */
SEC("tp_btf/io_uring_complete")
int BPF_PROG(uring_complete, struct io_ring_ctx *ring, void *req, struct io_uring_cqe *cqe)
{
	return uring_complete_req(req, cqe->res);	/* typed: a plain load */
}

/* Linux 5.19 to 6.1: io_uring_complete(ctx, req, user_data, res, cflags, extra1, extra2). */
SEC("tp_btf/io_uring_complete")
int BPF_PROG(uring_complete_v61, void *ring, void *req, __u64 user_data, int res,
    unsigned int cflags, __u64 extra1, __u64 extra2)
{
	return uring_complete_req(req, res);
}

/*
 * Linux 5.10 (to 5.18): io_uring_submit_sqe(ctx, req, opcode, user_data,
 * flags, force_nonblock, sq_thread), io_uring_complete(ctx, user_data, res,
 * cflags): the completion names no request, so the submission is kept by
 * ring and user_data, with its file (the request holds it to completion).
 */
SEC("tp_btf/io_uring_submit_sqe")
int BPF_PROG(uring_submit_v510, void *ring, void *req, __u8 opcode, __u64 user_data,
    __u32 flags, bool force_nonblock, bool sq_thread)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct uring_ud_key key = {};
	struct uring_sub sub = {};
	struct io_kiocb *r = req;

	if (!trace_uring)
		return 0;
	if (opcode == 35 || opcode == 36)	/* IORING_OP_RENAMEAT, _UNLINKAT (5.11+) */
		return paths_stale(0);
	if (!wanted(id >> 32) || !(sub.sys = uring_sys(opcode)))
		return 0;
	sub.fd = -1;
	bpf_probe_read_kernel(&sub.file, sizeof(sub.file), &r->file);
	sub.ts = bpf_ktime_get_ns();
	key.ring = uring_key(ring);
	key.user_data = user_data;
	bpf_map_update_elem(&uring_subs_ud, &key, &sub, BPF_ANY);
	return 0;
}

SEC("tp_btf/io_uring_complete")
int BPF_PROG(uring_complete_v510, void *ring, __u64 user_data, int res, unsigned int cflags)
{
	struct uring_ud_key key = {};
	struct async_sub as = { .pos = -1 };
	struct uring_sub *sub;
	__u64 f;

	if (!trace_uring)
		return 0;
	key.ring = uring_key(ring);
	key.user_data = user_data;
	sub = bpf_map_lookup_elem(&uring_subs_ud, &key);
	if (!sub)
		return 0;
	as.ts = sub->ts;
	as.sys = sub->sys;
	as.fd = sub->fd;
	f = sub->file;
	bpf_map_delete_elem(&uring_subs_ud, &key);
	return async_done(&as, (struct file *)f, res > 0 ? res : 0, res, bpf_ktime_get_ns());
}

/*
 * libaio (classic syscall tracepoints, loaded beside any variant where the
 * kernel has them): io_submit's iocbs are read from user memory at entry and
 * kept by (process, iocb address); io_getevents/io_pgetevents' events, read
 * at exit, find them again: a read/write record per reaped iocb, its latency
 * from submission to the reap, its file the fd's at the reap.
 */
#define MAX_AIO		64	/* iocbs read per io_submit, events per reap */

struct aio_ctx {
	const struct iocb *const *iocbpp;	/* io_submit */
	const struct io_event *events;		/* io_getevents */
	__u64 now;
	__u32 tgid;
	__u32 n;
};

/*
 * The compat build has no bpf_loop (a callback, core-fixes.h): its aio
 * programs do nothing and the loader leaves them out (bpf_loop: 5.17).
 */
#if HAVE_CALLBACKS
static long aio_submit_one(__u32 i, struct aio_ctx *c)
{
	struct async_sub sub = {};
	const struct iocb *cbp = NULL;
	struct {
		__u16 op;	/* aio_lio_opcode, */
		__s16 prio;
		__u32 fd;	/* aio_fildes */
	} h;
	struct {
		__u64 nbytes;	/* aio_nbytes, */
		__s64 off;	/* aio_offset */
	} io;

	if (i >= c->n)
		return 1;
	/*
	 * Its opcode and fd first (8 bytes at 16, not the 64-byte iocb): a
	 * direct call's iocb is read no further.
	 */
	if (bpf_probe_read_user(&cbp, sizeof(cbp), &c->iocbpp[i & (MAX_AIO - 1)]) || !cbp ||
	    bpf_probe_read_user(&h, sizeof(h), (const char *)cbp + offsetof(struct iocb, aio_lio_opcode)))
		return 0;
	switch (h.op) {
	case 0: case 7:	sub.sys = VFS_SYS_AIO_READ; break;	/* IOCB_CMD_PREAD, PREADV */
	case 1: case 8:	sub.sys = VFS_SYS_AIO_WRITE; break;	/* IOCB_CMD_PWRITE, PWRITEV */
	default:	return 0;
	}
	if (kio_direct && fd_direct(h.fd))
		return 0;	/* direct I/O: named at its block requests (blk-kio.h) */
	if (bpf_probe_read_user(&io, sizeof(io), (const char *)cbp + offsetof(struct iocb, aio_nbytes)))
		return 0;
	if (!c->now)
		c->now = bpf_ktime_get_ns();	/* the call's first iocb kept */
	sub.ts = c->now;
	sub.fd = h.fd;
	/* The vectored ones hold an iovec count there: what was done stands for it. */
	sub.nbytes = h.op <= 1 ? io.nbytes : (__u64)-1;
	sub.pos = io.off;
	async_put((__u64)cbp, c->tgid, &sub);
	return 0;
}

/* The iocbs after the first (bpf_loop's index from 0). */
static long aio_submit_next(__u32 i, struct aio_ctx *c)
{
	return aio_submit_one(i + 1, c);
}

SEC("tracepoint/syscalls/sys_enter_io_submit")
int aio_submit(struct sc_enter *ctx)
{
	__u64 id;
	struct aio_ctx c = {};

	STOP_CHECK();
	id = bpf_get_current_pid_tgid();
	if (!trace_aio || !wanted(id >> 32))
		return 0;
	c.iocbpp = (const struct iocb *const *)ctx->args[2];
	c.n = (long)ctx->args[1] > MAX_AIO ? MAX_AIO : (__u32)ctx->args[1];
	c.tgid = id >> 32;
	/*
	 * The clock is read at the first iocb kept (aio_submit_one): none for
	 * a call of direct I/O's alone: 143 -> 118 ns a request (bpf_stats,
	 * fio libaio 4 KiB random reads, O_DIRECT, QD 32, 2 jobs). The first
	 * iocb is read here, the rest in a loop: fio submits one at a time.
	 */
	if (aio_submit_one(0, &c) == 0 && c.n > 1)
		bpf_loop(MAX_AIO - 1, aio_submit_next, &c, 0);
	return 0;
}
#else
SEC("tracepoint/syscalls/sys_enter_io_submit")
int aio_submit(struct sc_enter *ctx) { return 0; }
#endif

#if HAVE_CALLBACKS
static long aio_reap_one(__u32 i, struct aio_ctx *c)
{
	struct async_sub sub;
	struct io_event ev;

	if (i >= c->n)
		return 1;
	if (bpf_probe_read_user(&ev, sizeof(ev), &c->events[i & (MAX_AIO - 1)]) ||
	    !async_take(ev.obj, c->tgid, &sub))
		return 0;	/* not a read or write, or submitted before blktop attached */
	async_done(&sub, fd_file(sub.fd),
	    sub.nbytes != (__u64)-1 ? sub.nbytes : ev.res > 0 ? ev.res : 0, ev.res, c->now);
	return 0;
}

static __always_inline int aio_reap_exit(struct sc_exit *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct pt_regs *regs;
	struct aio_ctx c = {};

	if (!trace_aio || ctx->ret <= 0 || (kio_direct && !*(volatile __u64 *)&async_open) ||
	    !wanted(id >> 32))
		return 0;
	/*
	 * The events array, the call's fourth argument, from the registers
	 * the task entered with (bpf_task_pt_regs, 5.15: every kernel with
	 * bpf_loop has it), not kept from an entry program: that program and
	 * its table cost 100-310 ns of a libaio request (issue 28).
	 */
	regs = (struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());
	if (!regs || REGS_COMPAT(true, regs))
		return 0;
	c.events = (const struct io_event *)REGS_SYSARG3(regs);
	c.n = ctx->ret > MAX_AIO ? MAX_AIO : (__u32)ctx->ret;
	c.tgid = id >> 32;
	c.now = bpf_ktime_get_ns();
	bpf_loop(MAX_AIO, aio_reap_one, &c, 0);
	return 0;
}
#else
static __always_inline int aio_reap_exit(struct sc_exit *ctx) { return 0; }
#endif

SEC("tracepoint/syscalls/sys_exit_io_getevents")
int aio_getevents_exit(struct sc_exit *ctx) { STOP_CHECK(); return aio_reap_exit(ctx); }
SEC("tracepoint/syscalls/sys_exit_io_pgetevents")
int aio_pgetevents_exit(struct sc_exit *ctx) { STOP_CHECK(); return aio_reap_exit(ctx); }

#endif
