/* source-live.c: the live source: load and attach the BPF programs (the plan: source-live-plan.c), drain the ring buffer. */

#include <sys/resource.h>
#include <sys/stat.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <event2/event.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "blktop.h"
#include "source-live.h"
#include "blktop.skel.h"
#include "blktop.compat.skel.h"



/*
 * Draining. The ring buffer's fd is readable whenever it holds data, whether
 * or not the kernel woke us, so waiting on it under load returns at once and
 * the loop would drain a few records at a time, thousands of times a second
 * (measured: 3500 drains/s in the read-loop benchmark, most of blktop's CPU in
 * the per-drain syscalls). So the fd only ends idleness: once records flow,
 * a timer drains every LIVE_BUSY_USEC until a drain finds nothing, and then
 * the fd is watched again, with LIVE_DRAIN_USEC as the longest wait (the
 * kernel wakes us sparingly). Kernel loss counters are read at most every
 * LIVE_DRAIN_USEC, and before every report.
 */
#define LIVE_DRAIN_USEC	100000
#define LIVE_BUSY_USEC	10000
/*
 * A CPU's batch of records (bpf/batch.h) goes out once its first record is
 * this old: at that CPU's next record, or at the first drain after (under
 * load, every LIVE_BUSY_USEC). Its records are then that much later than
 * the other CPUs', and the model's order waits for them (model.h's lane):
 * at 100 ms, a partial batch of a CPU gone quiet came up to 130 ms late,
 * 50,000 places at 400k records/s, past the calls' and requests' rings'
 * reach at higher rates (65,536 each). At 20 ms, two busy drains.
 */
#define LIVE_BATCH_AGE_NS	(2 * LIVE_BUSY_USEC * 1000ULL)
/*
 * -vvv's self-check: a request's queue and device time from the kernel's
 * stamps and from our clock agree within this (bpf/kstamps.h, doc/tracing.md).
 */
#define LIVE_KSTAMP_BOUND_NS	(1000 * 1000)

/* The live source's state (src->data). */
struct live {
	struct blktop		*b;
	struct blktop_bpf	*skel;
	struct ring_buffer	*rb;
	struct event		*rb_ev;
	struct event		*drain_ev;
	uint64_t		 lost_seen[LOST_KINDS];
	uint64_t		 lost_next;	/* source_now() at which to read them again */
	uint64_t		 misses_blk;	/* the programs' skipped runs at the last report: */
	uint64_t		 misses_all;	/* the block object's, and every object's */
	int			 ncpus;
	int			 vfs_loaded;
	int			 kio;		/* tb_io_start_kio loaded (source-live-kio.c) */
	uint64_t		 async_calls[2];	/* io_uring/libaio records: at submission and
						   completion, at their block requests (-v) */
	struct cost_batch	 batch;		/* the block object's per-CPU batches */
	uint64_t		 batched;	/* read/write records that came in batches */
	int			 stats_fd;	/* holds BPF run-time statistics on */
	struct diskstat		 disks;		/* part_stat samples (source-diskstat.c) */
	int			 tasks_due;	/* /proc's processes to stream at the next drain */
};

/* -v's level for libbpf's messages: its print callback takes no context. */
static int	 live_verbose;

/* libbpf's messages only with -v: errors are reported as one line of ours. */
static int
live_libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (live_verbose < (level == LIBBPF_DEBUG ? 2 : 1))
		return (0);
	return (vfprintf(stderr, fmt, ap));
}


/* An io_uring or libaio call's record, counted by where it was named (-v's account at exit). */
static void
live_count_async(struct live *l, const void *rec, size_t len)
{
	const struct ev_rw	*e = rec;

	if (len >= sizeof *e && e->type == EV_RW && e->sys >= VFS_SYS_URING_READ && e->sys <= VFS_SYS_AIO_WRITE)
		l->async_calls[(e->path_flags & VFS_PF_KIO) != 0]++;
}

/*
 * The two records a request of one direct async call stands for (struct
 * ev_blk_kio, bpf/blk-kio.h's kio_one), into the stream as the block object
 * sends them each by itself: the request, then the call.
 */
static void
live_blk_kio(struct live *l, const void *r)
{
	const struct ev_blk_kio	*kp = r, k = *kp;
	struct ev_block		 b;
	union {
		struct ev_rw	 e;
		uint8_t		 bytes[EV_RW_SIZE(0)];
	} u;
	const void		*rec;
	size_t			 rlen;

	memset(&b, 0, sizeof b);
	b.type = EV_BLOCK;
	b.dev = k.dev;
	b.ts_start = k.ts_start;
	b.ts_issue = k.ts_issue;
	b.ts_done = k.ts_done;
	b.sector = k.sector;
	b.cgroup = k.cgroup;
	b.bytes = k.bytes;
	b.pid = k.pid;
	b.tgid = k.tgid;
	b.error = k.error;
	b.op = k.op;
	b.flags = k.flags;
	memcpy(b.comm, k.comm, sizeof b.comm);
	b.fclass = BLK_FC_DIRECT;
	stream_event(l->b, &b, sizeof b);
	if (!l->vfs_loaded)
		return;
	memset(&u, 0, sizeof u);
	u.e.type = EV_RW;
	u.e.dev = k.fsdev;
	u.e.ts = k.ts_done;
	u.e.lat_ns = k.ts_done - k.ts_start;
	u.e.cgroup = k.cgroup;
	u.e.ino = k.ino;
	u.e.asked = k.bytes;
	u.e.done = k.error ? 0 : k.bytes;
	u.e.pos = k.pos;
	u.e.pid = k.pid;
	u.e.tgid = k.tgid;
	u.e.error = k.error;
	u.e.fd = -1;
	u.e.rdev = k.rdev;
	u.e.sys = k.sys;
	u.e.op = k.op;
	u.e.ftype = k.ftype;
	u.e.path_flags = VFS_PF_CACHED | VFS_PF_DIRECT | VFS_PF_KIO;
	u.e.slot = k.slot;
	memcpy(u.e.comm, k.comm, sizeof u.e.comm);
	rlen = EV_RW_SIZE(0);
	live_count_async(l, &u, rlen);
	rec = live_paths_record(&u, &rlen);
	l->batched++;
	stream_event(l->b, rec, rlen);
}

/*
 * One record from the ring buffer: into the stream. A batch (EV_BATCH, of
 * block requests or of read/write records without their path) is unpacked
 * into its records, each taken as it would be by itself.
 */
static int
live_rb_record(void *ctx, void *data, size_t len)
{
	struct live		*l = ctx;
	const struct ev_batch	*bh = data;
	const uint8_t		*r;
	const void		*rec = data;
	size_t			 rlen;
	uint32_t		 i, type;

	if (len >= sizeof *bh && bh->type == EV_BATCH) {
		if (bh->n == 0 || bh->stride < sizeof type ||
		    len < sizeof *bh + (size_t)bh->n * bh->stride)
			return (0);	/* not from our programs */
		for (i = 0; i < bh->n; i++) {
			r = (const uint8_t *)data + sizeof *bh + (size_t)i * bh->stride;
			memcpy(&type, r, sizeof type);
			if (type == EV_BLOCK &&
			    bh->stride >= EV_BATCH_STRIDE(sizeof(struct ev_block))) {
				stream_event(l->b, r, sizeof(struct ev_block));
				continue;
			}
			if (type == EV_BLK_KIO &&
			    bh->stride >= EV_BATCH_STRIDE(sizeof(struct ev_blk_kio))) {
				live_blk_kio(l, r);
				continue;
			}
			/* The vfs object's batches, and the block object's direct async calls (bpf/blk-kio.h). */
			if (type != EV_RW || !l->vfs_loaded ||
			    bh->stride < EV_BATCH_STRIDE(EV_RW_SIZE(0)))
				continue;
			rlen = EV_RW_SIZE(0);
			live_count_async(l, r, rlen);
			rec = live_paths_record(r, &rlen);
			l->batched++;
			stream_event(l->b, rec, rlen);
		}
		return (0);
	}
	if (l->vfs_loaded) {
		live_count_async(l, data, len);
		rec = live_paths_record(data, &len);	/* a path sent once is put back */
	}
	stream_event(l->b, rec, len);
	return (0);
}

/*
 * What the programs cost so far, and the runs the kernel skipped because a
 * program would have nested in itself (an interrupt completing a request
 * while the same program runs): each of those is a request event that never
 * happened, so it counts as lost.
 */
static void
live_prog_cost(struct live *l, struct prog_cost *st)
{
	memset(st, 0, sizeof *st);
	if (l->skel != NULL)
		cost_add_object(l->skel->obj, st);
	if (l->vfs_loaded)
		live_vfs_cost(st);
	st->batched += l->batched;
}

/* The cost control: run time is known only with statistics on. */
static int
live_cost(struct source *src, struct prog_cost *st)
{
	struct live	*l = src->data;

	if (l == NULL || l->stats_fd < 0)
		return (-1);
	live_prog_cost(l, st);
	return (0);
}

/* The sum over CPUs of one kernel-side counter. */
static uint64_t
live_counter(struct live *l, uint32_t key)
{
	return (cost_percpu_sum(bpf_map__fd(l->skel->maps.counters), key));
}

/*
 * Where the requests' times came from (-vv), and with check (-vvv) how far
 * the kernel's stamps and our clock differ: per log2 bucket of ns, the
 * requests whose queue time (q) and device time (d) differ by that much.
 */
static void
live_kstamp_report(struct live *l, int check)
{
	char		 line[2][512];
	size_t		 off[2] = { 0, 0 };
	uint64_t	 n;
	uint32_t	 row, k;
	int		 fd = bpf_map__fd(l->skel->maps.kstamp_hist);

	log_warnx("request stamps: start from the kernel %llu, from our clock %llu; "
	    "issue from the kernel %llu, from our clock or never issued %llu; "
	    "start left to the kernel and not stamped %llu",
	    (unsigned long long)live_counter(l, CNT_KS_START),
	    (unsigned long long)live_counter(l, CNT_KS_OWN_START),
	    (unsigned long long)live_counter(l, CNT_KS_ISSUE),
	    (unsigned long long)live_counter(l, CNT_KS_OWN_ISSUE),
	    (unsigned long long)live_counter(l, CNT_KS_MISS));
	if (!check)
		return;
	for (row = 0; row < 2; row++) {
		line[row][0] = '\0';
		for (k = 0; k < BLK_KCHK_BUCKETS; k++) {
			n = cost_percpu_sum(fd, row * BLK_KCHK_BUCKETS + k);
			if (n != 0 && off[row] < sizeof line[row] - 32)
				off[row] += snprintf(line[row] + off[row], sizeof line[row] - off[row],
				    " <%llu:%llu", 2ULL << k, (unsigned long long)n);
		}
	}
	log_warnx("stamp check: %llu requests timed both ways, %llu differ by more than "
	    "%llu ns; |kernel - own| in ns q%s d%s",
	    (unsigned long long)live_counter(l, CNT_KS_CHECKED),
	    (unsigned long long)live_counter(l, CNT_KS_OFF),
	    (unsigned long long)LIVE_KSTAMP_BOUND_NS, line[0], line[1]);
}

/*
 * Events lost in the kernel since the last call, summed over CPUs, by unit:
 * block requests whose record the ring buffer refused or the request table
 * had no room for, or one of whose programs the kernel skipped (a block
 * program's run skipped as nested on its CPU: a completion in interrupt
 * context over the same program in a task leaves its request uncounted);
 * read/write calls refused or not tracked; other records, and the other
 * objects' skipped runs (of no known unit). Into lost[]. The skipped runs
 * are read with progs only (before a report): one bpf() call a program,
 * some 50, where the counters are three (ten times a second, 4% of
 * blktop's CPU under fio's 270k requests/s, perf).
 */
static void
live_read_lost(struct live *l, uint64_t *lost, int progs)
{
	struct prog_cost	 blk, vfs;
	uint64_t		 total[LOST_KINDS];
	unsigned		 k;

	if (progs) {
		memset(&blk, 0, sizeof blk);
		memset(&vfs, 0, sizeof vfs);
		if (l->skel != NULL)
			cost_add_object(l->skel->obj, &blk);
		if (l->vfs_loaded)
			live_vfs_cost(&vfs);
		l->misses_blk = blk.misses;
		l->misses_all = blk.misses + vfs.misses;
	}
	total[LOST_REQUESTS] = live_counter(l, CNT_LOST_REQS) + live_counter(l, CNT_MAP_FULL) +
	    l->misses_blk;
	total[LOST_CALLS] = live_counter(l, CNT_LOST_CALLS);
	total[LOST_RECORDS] = live_counter(l, CNT_LOST);
	total[LOST_RECORDS] += l->misses_all - l->misses_blk;
	if (l->vfs_loaded)
		total[LOST_CALLS] += live_vfs_inflight_full();
	if (l->b->lost_unknown == NULL && cost_read_error(NULL) != 0) {
		/* Not 0: unknown, null in -J, and said once (privs_bpf_probe). */
		l->b->lost_unknown = "the kernel's counters are unreadable";
		log_warnx("kernel counters: unreadable (bpf(): %s): lost events unknown, "
		    "reported as null", strerror(cost_read_error(NULL)));
	}
	for (k = 0; k < LOST_KINDS; k++) {
		lost[k] = total[k] > l->lost_seen[k] ? total[k] - l->lost_seen[k] : 0;
		l->lost_seen[k] += lost[k];
	}
}

/*
 * BLKTOP_RINGBUF_KB: the ring buffer's size in KiB (a power of two, 16 to
 * 1048576), for tests that must fill it; else the object's 16 MiB.
 */
static void
live_ring_size(struct blktop_bpf *skel)
{
	const char	*s = getenv("BLKTOP_RINGBUF_KB");
	char		*end;
	unsigned long	 kb;

	if (s == NULL || *s == '\0')
		return;
	kb = strtoul(s, &end, 10);
	if (*end != '\0' || kb < 16 || kb > 1048576 || (kb & (kb - 1)) != 0) {
		log_warnx("BLKTOP_RINGBUF_KB=%s is not a power of two from 16 to 1048576: "
		    "16 MiB", s);
		return;
	}
	bpf_map__set_max_entries(skel->maps.events, (uint32_t)(kb * 1024));
}

/* Drain; read the loss counters when they are due. Returns the records drained. */
static int
live_drain_some(struct live *l)
{
	struct ev_lost	 lost = { .type = EV_LOST };
	uint64_t	 n_lost[LOST_KINDS];
	int		 n, forced = l->lost_next == 0;
	unsigned	 k;

	diskstat_emit(&l->disks, l->b);	/* the first tick's baseline, once */
	if (l->tasks_due) {		/* the tree's processes older than blktop, once */
		l->tasks_due = 0;
		live_tasks_scan(l->b, source_now());
	}
	cost_batch_flush(&l->batch, forced);	/* before a report: every batch */
	if (l->vfs_loaded)
		live_vfs_batch_flush(forced);
	n = ring_buffer__consume(l->rb);
	if ((lost.ts = source_now()) >= l->lost_next) {
		l->lost_next = lost.ts + LIVE_DRAIN_USEC * 1000ULL;
		live_read_lost(l, n_lost, forced);
		for (k = 0; k < LOST_KINDS; k++) {
			if ((lost.count = n_lost[k]) == 0)
				continue;
			lost.kind = k;
			stream_event(l->b, &lost, sizeof lost);
		}
	}
	return (n);
}

/* Before a report: everything pending, then the kernel's loss count. */
static void
live_drain(struct source *src)
{
	struct live	*l = src->data;

	l->lost_next = 0;
	live_drain_some(l);
	diskstat_sample(&l->disks, l->b, source_now());
}

/*
 * The ring buffer's fd turned readable (idle until now), or the drain timer
 * fired: drain, then poll on the timer while records flow, else wait on the fd.
 */
static void
live_rb_cb(__unused int fd, __unused short what, void *arg)
{
	struct live	*l = arg;
	struct timeval	 busy = { 0, LIVE_BUSY_USEC }, idle = { 0, LIVE_DRAIN_USEC };

	if (live_drain_some(l) > 0) {
		event_del(l->rb_ev);
		event_add(l->drain_ev, &busy);
	} else {
		event_add(l->rb_ev, NULL);
		event_add(l->drain_ev, &idle);
	}
}

/* Add +name to the plan (captures keep it: their replay's have comes from it). */
static void
live_plan_add(struct blktop *b, const char *name)
{
	size_t n = strlen(b->plan_text);

	snprintf(b->plan_text + n, sizeof b->plan_text - n, "+%s", name);
}

/*
 * Per-process open/read/write tracing, sharing the ring buffer and counters.
 * Block tracing goes on without it, with a warning, where it cannot load.
 */
static void
live_start_vfs(struct live *l)
{
	struct blktop	*b = l->b;
	static const struct {
		unsigned	 page;	/* VFS_PAGES_* */
		unsigned	 have;	/* HAVE_* */
		const char	*name;	/* in the plan */
	} groups[] = {
		{ VFS_PAGES_DIRTY, HAVE_DIRTY, "dirty" }, { VFS_PAGES_FAULT, HAVE_FAULT, "fault" },
		{ VFS_PAGES_AIO, HAVE_AIO, "aio" }, { VFS_PAGES_URING, HAVE_URING, "uring" },
		{ VFS_PAGES_THROTTLE, HAVE_THROTTLE, "throttle" },
		{ VFS_PAGES_TASK, HAVE_TASK, "task" },
	};
	struct live_vfs_opts	 vo;
	unsigned		 pages, i;
	char			*err;

	memset(&vo, 0, sizeof vo);
	vo.tgids = b->opt.tgids;
	vo.ntgids = b->opt.ntgids;
	vo.comms = b->opt.comms;
	vo.ncomms = b->opt.ncomms;
	vo.cgroup = b->opt.cgroup_id;
	vo.all_files = b->opt.all_files;
	vo.debug = b->opt.verbose > 0;
	vo.wakeup_ns = LIVE_DRAIN_USEC * 1000ULL;	/* the drain timer reads the rest */
	vo.batch_age_ns = LIVE_BATCH_AGE_NS;
	live_probe_mount_tracefs(b->opt.verbose);
	if (live_vfs_load(bpf_map__fd(l->skel->maps.events),
	    bpf_map__fd(l->skel->maps.counters), &vo, &err) != 0) {
		log_warnx("per-process file I/O is not traced: %s", err);
		for (i = 0; i < HAVE_NBITS; i++) {
			if (have_table[i].bit != HAVE_FILES)
				source_have_set_na(b, have_table[i].bit, "%.150s", err);
		}
		free(err);
		snprintf(b->vfs_plan, sizeof b->vfs_plan, "none");
		return;
	}
	l->vfs_loaded = 1;
	snprintf(b->vfs_plan, sizeof b->vfs_plan, "%s", live_vfs_hook());
	live_plan_add(b, live_vfs_hook());
	b->have |= HAVE_VFS;
	if (!vo.no_open) {
		b->have |= HAVE_LIFE | HAVE_FSYNC | HAVE_TRUNCATE;
		live_plan_add(b, "life");
		live_plan_add(b, "fsync");	/* an older blktop's captures lack it: fsyncs null */
		live_plan_add(b, "truncate");	/* the same: truncates null */
		if (live_vfs_have_munmap())
			b->have |= HAVE_MUNMAP;
		else {
			/* Lifecycle records of a recording without munmaps say so. */
			live_plan_add(b, "nomunmap");
			source_have_set_na(b, HAVE_MUNMAP, "needs the bpf_find_vma helper (Linux 5.17)");
		}
	}
	pages = live_vfs_pages_loaded();
	for (i = 0; i < nitems(groups); i++) {
		if (pages & groups[i].page) {
			b->have |= groups[i].have;
			live_plan_add(b, groups[i].name);
		} else if (groups[i].have != 0)
			source_have_set_na(b, groups[i].have, "%s", live_extras_why(groups[i].page));
	}
	{
		char list[1024];

		if (source_have_na_list(b, list, sizeof list) > 0)
			log_warnx("not traced on this kernel: %s", list);
	}
}

/*
 * Attach the programs last to first: completion before issue before start,
 * so that every request whose start is seen also has its completion seen,
 * even with I/O running while blktop starts. (In file order, a request
 * started between the start and the completion attach was counted started
 * and never completed: a request missing from the totals.)
 */
static int
live_attach(struct blktop_bpf *skel)
{
	const struct bpf_object_skeleton	*s = skel->skeleton;
	struct bpf_program			*p;
	int					 i, err;

	for (i = s->prog_cnt - 1; i >= 0; i--) {
		p = *s->progs[i].prog;
		if (!bpf_program__autoload(p) || p == skel->progs.blk_batch_flush)
			continue;	/* the flush program is run, never attached */
		*s->progs[i].link = bpf_program__attach(p);
		if (*s->progs[i].link == NULL) {
			err = -errno;
			return (err != 0 ? err : -EINVAL);
		}
	}
	return (0);
}

/* Probe, load and attach the BPF programs and hook the ring buffer into the loop. */
static int
live_start(struct source *src, char **errp)
{
	struct blktop	*b = src->b;
	struct live	*l;
	struct timeval	 tv = { 0, LIVE_DRAIN_USEC };
	struct block_bits bits;
	struct btf	*vmlinux;
	const void	*elf;
	const char	*why;
	unsigned	 i;
	size_t		 sz;
	int		 err;

	*errp = NULL;
	l = src->data = xcalloc(1, sizeof *l);
	l->b = b;
	l->stats_fd = -1;
	live_verbose = b->opt.verbose;
	/*
	 * The windows open before the programs load, so that no record (the
	 * first ones come while loading goes on) is older than the first tick:
	 * a replay starts its windows at the same instant.
	 */
	b->mono_to_wall = capture_clock_offset();
	b->wall_known = 1;
	stream_begin(b, source_now());
	if (diskstat_open(&l->disks) == 0)
		diskstat_read(&l->disks, source_now());	/* streamed at the first drain */
	libbpf_set_print(live_libbpf_print);
	if (live_check_privileges(errp) != 0)
		return (-1);
	privs_keep_bpf();	/* counters and batch flushes: bpf() after the drop */
	if (b->opt.hooks != NULL && live_parse_hooks(b->opt.hooks, &b->plan, errp) != 0)
		return (-1);
	if (b->opt.hooks == NULL)
		b->plan.attach = ATTACH_MAX, b->plan.start = START_MAX;
	if (live_choose(&b->plan, errp) != 0)
		return (-1);
	live_plan_text(&b->plan, b->plan_text, sizeof b->plan_text);
	b->have = HAVE_FILES;

	if ((l->ncpus = libbpf_num_possible_cpus()) <= 0) {
		xasprintf(errp, "cannot count the CPUs");
		return (-1);
	}
	if ((l->skel = live_open()) == NULL) {
		xasprintf(errp, "cannot open the BPF object: %s", strerror(errno));
		return (-1);
	}
	l->skel->rodata->debug_counts = b->opt.verbose >= 2;
	l->skel->rodata->batch_age_ns = LIVE_BATCH_AGE_NS;
	if ((vmlinux = btf__load_vmlinux_btf()) != NULL) {
		live_probe_block_bits(vmlinux, &bits);
		l->skel->rodata->rqf_flush_seq = bits.rqf_flush_seq;
		l->skel->rodata->bio_pinned = bits.bio_pinned;
		l->skel->rodata->rqf_io_stat = bits.rqf_io_stat;
		l->skel->rodata->queue_flag_stats = bits.queue_flag_stats;
		l->skel->rodata->blk_feat_io_stat = bits.blk_feat_io_stat;
		btf__free(vmlinux);
	}
	/* The kernel's request stamps (bpf/kstamps.h); -vvv times requests both ways. */
	l->skel->rodata->kstamp_check = b->opt.verbose >= 3;
	l->skel->rodata->kstamp_bound_ns = LIVE_KSTAMP_BOUND_NS;
	l->skel->rodata->issue_skip = b->plan.start == START_IO_START;
	l->skel->rodata->filter_ndevs = b->opt.ndevs;
	for (i = 0; i < b->opt.ndevs; i++)
		l->skel->rodata->filter_devs[i] = b->opt.devs[i];
	live_set_autoload(l->skel, &b->plan);
	if ((why = live_kio_why_not(b, &b->plan)) == NULL) {
		live_kio_prepare(l->skel, b, (uint32_t)getpid());
		l->kio = 1;
	} else if (b->opt.verbose)
		log_warnx("direct async calls at submission and completion: %s", why);
	live_ring_size(l->skel);
	/* What blktop costs the kernel, for "self"; without it, unknown. */
	l->stats_fd = cost_enable();
	if ((err = blktop_bpf__load(l->skel)) != 0) {
		xasprintf(errp, "cannot load the BPF programs (%s): %s; -v shows the "
		    "verifier's log", b->plan_text, strerror(-err));
		return (-1);
	}
	/* Loaded: the object's ELF bytes are read no more, their pages go. */
	elf = blktop_bpf__elf_bytes(&sz);
	live_probe_forget_elf(elf, sz);
	elf = blktop_compat__elf_bytes(&sz);
	live_probe_forget_elf(elf, sz);
	/* vfs loads first: it takes seconds, and nothing drains the ring meanwhile. */
	if (!b->opt.no_vfs)
		live_start_vfs(l);
	/* Direct async calls are the block object's once the vfs object leaves them (blk-kio.h). */
	if (l->kio && l->vfs_loaded && (b->have & HAVE_URING) && (b->have & HAVE_AIO) &&
	    l->skel->bss != NULL && live_vfs_set_kio(1) == 0)
		l->skel->bss->kio_on = 1;
	if ((err = live_attach(l->skel)) != 0) {
		xasprintf(errp, "cannot attach the BPF programs (%s): %s",
		    b->plan_text, strerror(-err));
		return (-1);
	}
	l->tasks_due = (b->have & HAVE_TASK) != 0;
	if (l->skel->bss != NULL && cost_batch_start(&l->batch,
	    bpf_program__fd(l->skel->progs.blk_batch_flush),
	    bpf_map__fd(l->skel->maps.batch_ts), LIVE_BATCH_AGE_NS))
		l->skel->bss->batch_on = 1;
	l->rb = ring_buffer__new(bpf_map__fd(l->skel->maps.events),
	    live_rb_record, l, NULL);
	if (l->rb == NULL) {
		xasprintf(errp, "cannot set up the ring buffer: %s", strerror(errno));
		return (-1);
	}
	l->rb_ev = event_new(b->base, ring_buffer__epoll_fd(l->rb), EV_READ, live_rb_cb, l);
	l->drain_ev = evtimer_new(b->base, live_rb_cb, l);
	event_add(l->rb_ev, NULL);
	event_add(l->drain_ev, &tv);
	return (0);
}

/*
 * Requests in the kernel's request table (in flight, or never completed),
 * for -vv at exit: a slot's first 8 bytes are its key, 0 when free.
 */
static uint64_t
live_tracked(struct live *l)
{
	int		 sfd = bpf_map__fd(l->skel->maps.slots);
	int		 ofd = bpf_map__fd(l->skel->maps.overflow);
	size_t		 vsz = bpf_map__value_size(l->skel->maps.slots);
	uint64_t	 n = 0, okey, *next, *prev = NULL;
	uint32_t	 i, nslots = bpf_map__max_entries(l->skel->maps.slots);
	unsigned char	*val = xcalloc(1, vsz);
	uint64_t	 key0;

	for (i = 0; i < nslots; i++) {
		if (bpf_map_lookup_elem(sfd, &i, val) == 0) {
			memcpy(&key0, val, sizeof key0);
			n += key0 != 0;
		}
	}
	free(val);
	next = &okey;
	while (bpf_map_get_next_key(ofd, prev, next) == 0) {
		n++;
		prev = next;
	}
	return (n);
}

/*
 * The run is over: every program returns at its first instruction from now
 * on (bpf/stop.h), where releasing their links one by one takes seconds.
 */
static void
live_halt(struct source *src)
{
	struct live	*l = src->data;

	if (l == NULL)
		return;
	if (l->skel != NULL && l->skel->bss != NULL)
		l->skel->bss->prog_stop = 1;
	if (l->vfs_loaded)
		live_vfs_halt();
}

/* Detach everything; with -v, say what the kernel side counted. */
static void
live_stop(struct source *src)
{
	struct blktop			*b = src->b;
	struct live			*l = src->data;
	struct prog_cost		 pc;
	struct bpf_object_skeleton	*skels[2];
	uint64_t			 nfail;
	int				 nskels = 0;

	if (l == NULL)
		return;
	live_halt(src);
	live_prog_cost(l, &pc);
	if (b->opt.verbose && l->skel != NULL)
		live_counter(l, CNT_LOST);	/* a refused read shows below, not as 0 */
	if (b->opt.verbose && l->skel != NULL && cost_read_error(&nfail) != 0)
		log_warnx("kernel counters: unreadable (%llu bpf() reads failed, the last: %s): "
		    "lost, block events sent... unknown, received %llu",
		    (unsigned long long)nfail, strerror(cost_read_error(NULL)),
		    (unsigned long long)b->block_events);
	else if (b->opt.verbose && l->skel != NULL)
		log_warnx("kernel counters: lost %llu, request table full %llu, "
		    "completions of untracked requests %llu, block events sent %llu, "
		    "received %llu, program runs skipped %llu, "
		    "completions never seen (sent at reuse, no latency) %llu",
		    (unsigned long long)live_counter(l, CNT_LOST),
		    (unsigned long long)live_counter(l, CNT_MAP_FULL),
		    (unsigned long long)live_counter(l, CNT_ORPHAN_DONE),
		    (unsigned long long)live_counter(l, CNT_BLOCK_SENT),
		    (unsigned long long)b->block_events,
		    (unsigned long long)pc.misses,
		    (unsigned long long)live_counter(l, CNT_STALE));
	if (b->opt.verbose && l->vfs_loaded)
		log_warnx("io_uring/libaio calls: %llu named at submission and completion, "
		    "%llu at their block requests",
		    (unsigned long long)l->async_calls[0], (unsigned long long)l->async_calls[1]);
	if (b->opt.verbose >= 2 && l->skel != NULL)
		log_warnx("debug counters: started %llu, first seen at issue %llu, "
		    "partial completions (data of flushed writes included) %llu, final completions %llu, "
		    "still in the table %llu",
		    (unsigned long long)live_counter(l, CNT_DBG_START),
		    (unsigned long long)live_counter(l, CNT_DBG_ISSUE_NEW),
		    (unsigned long long)live_counter(l, CNT_DBG_PARTIAL),
		    (unsigned long long)live_counter(l, CNT_DBG_COMPLETE),
		    (unsigned long long)live_tracked(l));
	if (b->opt.verbose >= 2 && l->skel != NULL)
		live_kstamp_report(l, b->opt.verbose >= 3);
	if (l->rb_ev != NULL)
		event_free(l->rb_ev);
	if (l->drain_ev != NULL)
		event_free(l->drain_ev);
	ring_buffer__free(l->rb);
	/* The run ends: the programs are released after blktop is gone (source-live-links.c). */
	if (l->vfs_loaded)
		skels[nskels++] = live_vfs_skeleton();
	if (l->skel != NULL)
		skels[nskels++] = l->skel->skeleton;
	live_links_leave(skels, nskels);
	if (l->vfs_loaded)
		live_vfs_unload();
	blktop_bpf__destroy(l->skel);
	if (l->stats_fd >= 0)
		close(l->stats_fd);
	diskstat_close(&l->disks);
	free(l);
	src->data = NULL;
}

const struct source_entry source_live = {
	.name = "live",
	.lost_where = " (-v says where)",
	.start = live_start,
	.drain = live_drain,
	.halt = live_halt,
	.stop = live_stop,
	.cost = live_cost,
};
