/* test-vfs.c: loads bpf/vfs.bpf.c with src/source-live-vfs.c and checks it against tests/workload/iowork. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "blktop.h"
#include "source-live.h"
#include "../unit/check.h"

#define WORK_FILE	"data.bin"
#define RBYTES		10000
#define RCALLS		7
#define WBYTES		20000
#define WCALLS		3

/* What the ring buffer said about one process and two paths. */
struct tally {
	uint32_t	 tgid;		/* only events of this tgid are tallied */
	const char	*path;		/* the work file */
	const char	*missing;	/* the failed open */
	uint64_t	 events, other_tgid, bad_comm;
	uint64_t	 opens, opens_direct, open_badlat;
	uint64_t	 failed, failed_flags_ok;
	uint64_t	 reads, read_bytes, read_asked;
	uint64_t	 preads, pread_bytes;
	uint64_t	 writes, write_bytes, write_asked;
	uint64_t	 zero_lat, bad_size, basename_only;
	uint64_t	 reused, path_missed;	/* records sent without their path; not put back */
	const char	*comm;		/* expected comm when -c, else NULL */
};

static int	 events_fd = -1, counters_fd = -1;
static char	 workdir[256];
static const char *iowork = "tests/workload/iowork";

/* Ring buffer callback: check the record and count it. */
static int
tally_event(void *ctx, void *data, size_t size)
{
	struct tally		*t = ctx;
	const struct ev_open	*o;
	const struct ev_rw	*w;
	uint32_t		 type = *(const uint32_t *)data;

	/* As blktop takes them: a path sent once is put back (src/source-live-paths.c). */
	if (type == EV_RW && size >= sizeof(*w) &&
	    (((const struct ev_rw *)data)->path_flags & VFS_PF_CACHED))
		t->reused++;
	data = (void *)live_paths_record(data, &size);
	o = data;
	w = data;
	if (type == EV_RW && (w->slot != 0 || (w->path_flags & VFS_PF_CACHED)))
		t->bad_size++;	/* never in the stream */
	if (type == EV_RW && (w->path_flags & VFS_PF_NOPATH) && w->ftype == VFS_FT_REG)
		t->path_missed++;

	if (type == EV_OPEN) {
		if (size < sizeof(*o) || size < EV_OPEN_SIZE(o->path_len) ||
		    o->path[o->path_len] != '\0') {
			t->bad_size++;
			return 0;
		}
		if (o->path_len > 0 && o->path[0] != '/')
			t->basename_only++;
		if (o->tgid != t->tgid) {
			t->other_tgid++;
			return 0;
		}
		t->events++;
		if (t->comm != NULL && strcmp(o->comm, t->comm) != 0)
			t->bad_comm++;
		if (strcmp(o->path, t->path) == 0 && o->ret >= 0) {
			t->opens++;
			if (o->flags & O_DIRECT)
				t->opens_direct++;
			if (o->lat_ns == 0 || o->lat_ns > 10 * NSEC_PER_SEC)
				t->open_badlat++;
		}
		if (strcmp(o->path, t->missing) == 0) {
			t->failed++;
			if (o->ret == -ENOENT && (o->path_flags & VFS_PF_AS_PASSED) &&
			    o->ftype == VFS_FT_NONE)
				t->failed_flags_ok++;
		}
	} else if (type == EV_RW) {
		if (size < sizeof(*w) || size < EV_RW_SIZE(w->path_len) ||
		    w->path[w->path_len] != '\0') {
			t->bad_size++;
			return 0;
		}
		if (w->path_len > 0 && w->path[0] != '/')
			t->basename_only++;
		if (w->tgid != t->tgid) {
			t->other_tgid++;
			return 0;
		}
		t->events++;
		if (t->comm != NULL && strcmp(w->comm, t->comm) != 0)
			t->bad_comm++;
		if (strcmp(w->path, t->path) != 0)
			return 0;
		if (w->lat_ns == 0)
			t->zero_lat++;
		if (w->op == BLK_OP_WRITE && w->sys == VFS_SYS_WRITE) {
			t->writes++;
			t->write_bytes += w->done;
			t->write_asked += w->asked;
		} else if (w->op == BLK_OP_READ && w->sys == VFS_SYS_READ) {
			t->reads++;
			t->read_bytes += w->done;
			t->read_asked += w->asked;
		} else if (w->op == BLK_OP_READ && w->sys == VFS_SYS_PREAD64) {
			t->preads++;
			t->pread_bytes += w->done;
		}
	}
	return 0;
}

/* Start iowork -w; returns its pid, fills the pipe ends. */
static pid_t
work_start(int *to, FILE **from)
{
	int	 in[2], out[2];
	pid_t	 pid;
	char	 line[256];
	char	 r[32], rc[32], w[32], wc[32];

	if (pipe(in) != 0 || pipe(out) != 0)
		fatal("pipe");
	snprintf(r, sizeof(r), "%d", RBYTES);
	snprintf(rc, sizeof(rc), "%d", RCALLS);
	snprintf(w, sizeof(w), "%d", WBYTES);
	snprintf(wc, sizeof(wc), "%d", WCALLS);
	if ((pid = fork()) < 0)
		fatal("fork");
	if (pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[1]);
		close(out[0]);
		execl(iowork, "iowork", "-w", workdir, WORK_FILE, r, rc, w, wc, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	*to = in[1];
	*from = fdopen(out[0], "r");
	if (fgets(line, sizeof(line), *from) == NULL)
		fatalx("iowork did not start (%s)", iowork);
	return pid;
}

/* Let iowork run, wait for it; returns its exit status. */
static int
work_finish(pid_t pid, int to, FILE *from)
{
	char	 line[1024];
	int	 status;

	if (write(to, "go\n", 3) != 3)
		fatal("write");
	if (fgets(line, sizeof(line), from) != NULL)
		printf("# iowork: %s", line);
	close(to);
	fclose(from);
	if (waitpid(pid, &status, 0) != pid)
		fatal("waitpid");
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* Drain everything the kernel has produced. */
static void
drain(struct ring_buffer *rb)
{
	while (ring_buffer__poll(rb, 50) > 0)
		;
}

/* Sum of the shared lost counter over CPUs. */
static uint64_t
lost(void)
{
	int		 n = libbpf_num_possible_cpus(), i;
	uint64_t	 vals[1024] = { 0 }, sum = 0;
	uint32_t	 key = CNT_LOST;

	if (n > 1024 || bpf_map_lookup_elem(counters_fd, &key, vals) != 0)
		return 0;
	for (i = 0; i < n; i++)
		sum += vals[i];
	return sum;
}

/* One run of iowork under a variant and filter; checks the tally. */
static void
run_case(const char *hook, const char *what, int use_pid, const char *comm, int expect)
{
	struct live_vfs_opts	 o = { 0 };
	struct tally		 t = { 0 };
	struct ring_buffer	*rb;
	const char		*comms[1] = { comm };
	char			*err;
	char			 path[512], missing[512], name[256];
	uint32_t		 tgid;
	FILE			*from;
	int			 to, rc;
	pid_t			 pid;

	snprintf(path, sizeof(path), "%s/%s", workdir, WORK_FILE);
	snprintf(missing, sizeof(missing), "%s/iowork-missing/none", workdir);
	pid = work_start(&to, &from);
	tgid = pid;
	t.tgid = tgid;
	t.path = path;
	t.missing = missing;
	if (use_pid) {
		o.tgids = &tgid;
		o.ntgids = 1;
	}
	if (comm != NULL) {
		o.comms = comms;
		o.ncomms = 1;
		if (expect)
			t.comm = comm;
	}
	o.hook = hook;
	rb = ring_buffer__new(events_fd, tally_event, &t, NULL);
	drain(rb);
	memset(&t.events, 0, sizeof(t) - offsetof(struct tally, events));
	t.comm = (comm != NULL && expect) ? comm : NULL;
	if (live_vfs_load(events_fd, counters_fd, &o, &err) != 0) {
		snprintf(name, sizeof(name), "%s %s: live_vfs_load: %s", hook, what, err);
		free(err);
		CHECK(name, 0);
		work_finish(pid, to, from);
		ring_buffer__free(rb);
		return;
	}
	snprintf(name, sizeof(name), "%s %s: live_vfs_hook() names the variant", hook, what);
	CHECK(name, strcmp(live_vfs_hook(), hook) == 0);
	rc = work_finish(pid, to, from);
	drain(rb);
	live_vfs_unload();
	ring_buffer__free(rb);

#define C(text, cond) do {						\
	snprintf(name, sizeof(name), "%s %s: %s", hook, what, text);	\
	CHECK(name, cond);						\
} while (0)
	C("iowork exit 0", rc == 0);
	C("records well formed", t.bad_size == 0);
	C("no basename-only paths", t.basename_only == 0);
	if (!expect) {
		C("filtered out: no events", t.events == 0);
		return;
	}
	if (use_pid)
		C("-p: no other process's events", t.other_tgid == 0);
	if (comm != NULL)
		C("-c: every event has the comm", t.bad_comm == 0);
	printf("# %s %s: opens %ju (direct %ju) failed %ju reads %ju/%ju B writes %ju/%ju B "
	    "preads %ju/%ju B lost %ju\n", hook, what, t.opens, t.opens_direct, t.failed,
	    t.reads, t.read_bytes, t.writes, t.write_bytes, t.preads, t.pread_bytes, lost());
	C("2 opens of the absolute path", t.opens == 2);
	C("one of them O_DIRECT", t.opens_direct == 1);
	C("open latency sane", t.open_badlat == 0);
	C("1 failed open, absolute, -ENOENT, as passed", t.failed == 1 && t.failed_flags_ok == 1);
	C("write() calls", t.writes == WCALLS);
	C("write() bytes done", t.write_bytes == WBYTES);
	C("write() bytes asked", t.write_asked == WBYTES);
	C("read() calls", t.reads == RCALLS);
	C("read() bytes done", t.read_bytes == RBYTES);
	C("read() bytes asked", t.read_asked == RBYTES);
	C("O_DIRECT pread64 call and bytes", t.preads == 1 && t.pread_bytes == 4096);
	C("latencies measured", t.zero_lat == 0);
	/* iowork's reads and writes on one open file: its path went once, then came back. */
	C("paths sent once per open file, put back", t.reused >= RCALLS && t.path_missed == 0);
#undef C
}

/* calls/s of a loop of 4 KiB read()s (or getppid()s) for ms milliseconds, in a child on cpu. */
static double
bench_child(const char *file, int ms, int getppid_loop, struct ring_buffer *rb)
{
	int	 pfd[2], status;
	double	 rate = 0;
	pid_t	 pid;

	if (pipe(pfd) != 0)
		fatal("pipe");
	if ((pid = fork()) == 0) {
		cpu_set_t	 set;
		struct timespec	 t0, t1;
		char		 buf[4096];
		unsigned long	 n = 0;
		int		 fd = open(file, O_RDONLY);
		double		 el;

		CPU_ZERO(&set);
		CPU_SET(1, &set);
		sched_setaffinity(0, sizeof(set), &set);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		for (;;) {
			for (int i = 0; i < 1024; i++, n++) {
				if (getppid_loop)
					(void)getppid();
				else if (read(fd, buf, sizeof(buf)) != sizeof(buf))
					lseek(fd, 0, SEEK_SET);
			}
			clock_gettime(CLOCK_MONOTONIC, &t1);
			el = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
			if (el * 1000 >= ms)
				break;
		}
		rate = n / el;
		if (write(pfd[1], &rate, sizeof(rate)) != sizeof(rate))
			_exit(1);
		_exit(0);
	}
	close(pfd[1]);
	while (waitpid(pid, &status, WNOHANG) == 0) {
		if (rb != NULL)
			ring_buffer__poll(rb, 20);
		else
			usleep(20000);
	}
	if (read(pfd[0], &rate, sizeof(rate)) != sizeof(rate))
		rate = 0;
	close(pfd[0]);
	if (rb != NULL)
		drain(rb);
	return rate;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int
count_event(void *ctx, void *data, size_t size)
{
	(void)data;
	(void)size;
	(*(uint64_t *)ctx)++;
	return 0;
}

/* Interleaved rounds: no programs, then each available variant; prints medians. */
static void
bench(int rounds, int ms)
{
	static const char *const cfgs[] = { "none", "tp_btf", "raw_tp", "tracepoint",
	    "tp_btf", "raw_tp", "tracepoint" };	/* the last three with wakeup_ns */
	double			 rate[2][7][64];
	uint64_t		 lostn[7] = { 0 }, l0;
	char			 file[300], buf[1 << 16];
	struct ring_buffer	*rb;
	uint64_t		 nev = 0;
	unsigned		 c, mode;
	int			 r, fd;
	cpu_set_t		 set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
	if (rounds > 64)
		rounds = 64;
	snprintf(file, sizeof(file), "%s/bench.dat", workdir);
	if ((fd = open(file, O_RDWR | O_CREAT | O_TRUNC, 0600)) < 0)
		fatal("%s", file);
	memset(buf, 'b', sizeof(buf));
	for (r = 0; r < 16; r++)
		if (write(fd, buf, sizeof(buf)) != sizeof(buf))
			fatal("write");
	close(fd);
	rb = ring_buffer__new(events_fd, count_event, &nev, NULL);
	for (r = 0; r < rounds; r++) {
		for (mode = 0; mode < 2; mode++) {
			for (c = 0; c < nitems(cfgs); c++) {
				struct live_vfs_opts o = { 0 };
				char *err;

				if (c > 0) {
					o.hook = cfgs[c];
					if (c >= 4)
						o.wakeup_ns = o.batch_age_ns = 10 * 1000 * 1000;
					if (live_vfs_load(events_fd, counters_fd, &o, &err) != 0) {
						free(err);
						rate[mode][c][r] = 0;
						continue;
					}
				}
				l0 = lost();
				rate[mode][c][r] = bench_child(file, ms, mode, c > 0 ? rb : NULL);
				lostn[c] += lost() - l0;
				if (c > 0)
					live_vfs_unload();
			}
		}
	}
	for (mode = 0; mode < 2; mode++) {
		printf("# bench: %s, %d interleaved rounds of %d ms, medians:\n",
		    mode ? "getppid() loop (untraced syscall)" : "4 KiB read() loop, cached file",
		    rounds, ms);
		for (c = 0; c < nitems(cfgs); c++) {
			double med, base;

			qsort(rate[mode][c], rounds, sizeof(double), cmp_double);
			med = rate[mode][c][rounds / 2];
			qsort(rate[mode][0], rounds, sizeof(double), cmp_double);
			base = rate[mode][0][rounds / 2];
			printf("#   %-10s %-14s %10.0f calls/s  %6.1f%%  %6.0f ns/call added\n",
			    cfgs[c], c >= 4 ? "wakeup 10 ms" : c > 0 ? "wake per event" : "", med,
			    base > 0 ? 100.0 * med / base : 0,
			    med > 0 && base > 0 ? 1e9 / med - 1e9 / base : 0);
		}
	}
	printf("# bench: %ju events consumed, %ju lost:", nev, lost());
	for (c = 1; c < nitems(cfgs); c++)
		printf(" %s%s %ju", cfgs[c], c >= 4 ? "/10ms" : "", lostn[c]);
	printf("\n");
	ring_buffer__free(rb);
}

int
main(int argc, char **argv)
{
	static const char *const hooks[] = { "tp_btf", "raw_tp", "tracepoint" };
	const char	*e;
	unsigned	 i;
	int		 bench_rounds = 0, bench_ms = 1000;

	if ((e = getenv("IOWORK")) != NULL)
		iowork = e;
	if (argc > 1 && strcmp(argv[1], "--bench") == 0) {
		bench_rounds = argc > 2 ? atoi(argv[2]) : 7;
		bench_ms = argc > 3 ? atoi(argv[3]) : 1000;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (geteuid() != 0) {
		printf("SKIP: test-vfs needs root\n");
		return 77;
	}
	if (access("/sys/kernel/tracing/events/syscalls", F_OK) != 0 &&
	    access("/sys/kernel/debug/tracing/events/syscalls", F_OK) != 0)
		mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL);	/* for 'tracepoint' */
	snprintf(workdir, sizeof(workdir), "/var/tmp/blktop-vfs.XXXXXX");
	if (mkdtemp(workdir) == NULL)
		fatal("mkdtemp");
	events_fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "events", 0, 0, 16 << 20, NULL);
	counters_fd = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "counters", sizeof(uint32_t),
	    sizeof(uint64_t), CNT_MAX, NULL);
	if (events_fd < 0 || counters_fd < 0) {
		printf("SKIP: cannot create BPF maps: %s\n", strerror(errno));
		return 77;
	}
	live_vfs_probe(stdout);
	if (bench_rounds > 0) {
		bench(bench_rounds, bench_ms);
		goto out;
	}
	for (i = 0; i < nitems(hooks); i++) {
		run_case(hooks[i], "-p", 1, NULL, 1);
		run_case(hooks[i], "-c iowork", 0, "iowork", 1);
		run_case(hooks[i], "-c nomatch", 0, "nomatch", 0);
	}
	/* Forcing an unavailable or unknown variant is a clear error. */
	{
		struct live_vfs_opts	 o = { 0 };
		char			*err;

		o.hook = "fentry";
		live_vfs_load(events_fd, counters_fd, &o, &err);
		printf("# forced fentry: %s\n", err ? err : "(loaded)");
		CHECK("forced fentry: one-line error or loaded",
		    err == NULL || strchr(err, '\n') == NULL);
		if (err == NULL)
			live_vfs_unload();
		o.hook = "bogus";
		free(err);
		live_vfs_load(events_fd, counters_fd, &o, &err);
		CHECK("unknown hook refused", err != NULL && strstr(err, "unknown hook") != NULL);
		free(err);
	}
out:
	{
		char cmd[300];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", workdir);
		if (system(cmd) != 0)
			log_warnx("cannot remove %s", workdir);
	}
	CHECK_EXIT();
}
