/* bench-capture.c: capture bytes per block event and decode speed. */

#include <sys/stat.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "blktop.h"
#include "../tests/common/capture-fixture.h"
#include "../tests/common/rand.h"

/* One synthetic workload. */
struct bench_load {
	const char	*name;
	int		 sequential;
	uint32_t	 bytes;		/* request size */
	uint64_t	 period;	/* mean ns between completions */
	uint64_t	 jitter;	/* +- ns of noise on each gap */
	uint64_t	 lat;		/* mean issue-to-done ns */
	uint64_t	 lat_jitter;
	uint64_t	 queue;		/* most start-to-issue ns */
	unsigned	 qd;		/* most requests in flight */
	unsigned	 npids;
};

static const struct bench_load bench_loads[] = {
	{ "random 4 KiB, QD 1-8, 2 procs", 0, 4096, 25000, 20000, 90000,
	  30000, 4000, 8, 2 },
	{ "random 4 KiB, QD 1, 1 proc", 0, 4096, 95000, 5000, 85000,
	  5000, 2000, 1, 1 },
	{ "sequential 4 KiB, QD 1, 1 proc", 1, 4096, 12000, 2000, 9000,
	  1500, 1000, 1, 1 },
	{ "sequential 128 KiB, QD 1-4, 2 procs", 1, 131072, 60000, 8000,
	  110000, 10000, 3000, 4, 2 },
};

static uint64_t	 bench_seed = 88172645463325252ULL;

/* A random number in [0, n). */
static uint64_t
bench_below(uint64_t n)
{
	return (n == 0 ? 0 : xorshift64(&bench_seed) % n);
}

/* Monotonic time in ns. */
static uint64_t
bench_now(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((uint64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec);
}

/*
 * Make n block events of a workload, with an EV_TICK every 100 ms of stream
 * time as the live source writes them. Returns the number of records.
 */
static size_t
bench_make(const struct bench_load *ld, struct ev_block *blk,
    struct ev_tick *tick, size_t n, unsigned char *kind)
{
	static const char	*comms[] = { "fio", "postgres" };
	uint64_t		 ts = 3600 * NSEC_PER_SEC, busy = 1000000000;
	uint64_t		 next_tick = ts + 100000000, gap, sector = 4096;
	size_t			 i, nrec = 0, nt = 0;
	unsigned		 p;
	struct ev_block		*b;

	for (i = 0; i < n; i++) {
		gap = ld->period - ld->jitter + bench_below(2 * ld->jitter);
		if (bench_below(1000) == 0)
			gap += bench_below(5000000);	/* an idle moment */
		ts += gap;
		while (ts >= next_tick) {
			tick[nt].type = EV_TICK;
			tick[nt].pad = 0;
			tick[nt].ts = next_tick;
			nt++;
			kind[nrec++] = 1;
			next_tick += 100000000;
		}
		b = &blk[i];
		memset(b, 0, sizeof *b);
		b->type = EV_BLOCK;
		b->dev = DEV_MKDEV(259, 0);
		b->ts_done = ts;
		b->ts_issue = ts - (ld->lat - ld->lat_jitter +
		    bench_below(2 * ld->lat_jitter));
		b->ts_start = b->ts_issue - 300 - bench_below(ld->queue);
		b->inflight = 1 + bench_below(ld->qd);
		/* Busy all the time but in idle moments. */
		busy += gap < 2 * ld->period ? gap : ld->lat;
		b->busy_ns = busy;
		b->bytes = ld->bytes;
		if (ld->sequential) {
			b->sector = sector;
			sector += ld->bytes / 512;
		} else
			b->sector = bench_below((1ULL << 30) / 4096) * 8;
		p = ld->npids > 1 ? bench_below(ld->npids) : 0;
		b->pid = 4000 + p * 17;
		b->tgid = 4000 + p * 17;
		memcpy(b->comm, comms[p % 2], strlen(comms[p % 2]));
		b->cgroup = 7242;
		if (ld->sequential)
			b->op = BLK_OP_READ;
		else {
			b->op = bench_below(10) < 7 ? BLK_OP_READ :
			    BLK_OP_WRITE;
			b->flags = b->op == BLK_OP_WRITE ? BLK_F_SYNC : 0;
		}
		kind[nrec++] = 0;
	}
	return (nrec);
}

/* Run one workload: write a capture, measure its size, decode it back. */
static void
bench_run(const struct bench_load *ld, size_t n, const char *dir)
{
	struct capture_header	 hdr;
	struct capture		*w;
	struct capture_reader	*r;
	struct ev_block		*blk;
	struct ev_tick		*tick;
	struct stat		 sb;
	unsigned char		*kind, rec[CAPTURE_REC_MAX];
	size_t			 nrec, i, ib = 0, it = 0, len, got = 0;
	uint64_t		 t0, t1, t2, t3, hdr_bytes, records, chunks, bytes;
	char			*path, *err = NULL;
	void			*mem;
	FILE			*f;
	int			 pass;

	blk = xcalloc(n, sizeof *blk);
	tick = xcalloc(n, sizeof *tick);
	kind = xcalloc(2 * n, 1);
	nrec = bench_make(ld, blk, tick, n, kind);

	fixture_capture_header(&hdr, "block=tp", NULL, 0, 0, 0, 0);
	xasprintf(&path, "%s/bench-%d.blkcap", dir, (int)getpid());
	unlink(path);
	if ((w = capture_create(path, &hdr, &err)) == NULL)
		fatalx("%s", err);
	capture_writer_stats(w, &records, &chunks, &hdr_bytes);
	t0 = bench_now();
	for (i = 0; i < nrec; i++) {
		if (kind[i] == 0)
			capture_add(w, &blk[ib++], sizeof *blk);
		else
			capture_add(w, &tick[it++], sizeof *tick);
		/* The caller's one-second flush timer, in stream time. */
		if (kind[i] == 1 && it % 10 == 0)
			capture_flush(w);
	}
	capture_writer_stats(w, &records, &chunks, &bytes);
	if (capture_close(w) != 0)
		fatalx("capture_close failed");
	t1 = bench_now();
	if (stat(path, &sb) != 0)
		fatal("stat %s", path);

	/* Decode from memory, best of three passes. */
	mem = xmalloc(sb.st_size);
	if ((f = fopen(path, "r")) == NULL ||
	    fread(mem, 1, sb.st_size, f) != (size_t)sb.st_size)
		fatal("read %s", path);
	fclose(f);
	t3 = UINT64_MAX;
	for (pass = 0; pass < 3; pass++) {
		if ((r = capture_open_mem(mem, sb.st_size, &err)) == NULL)
			fatalx("%s", err);
		got = 0;
		t2 = bench_now();
		while (capture_next(r, rec, sizeof rec, &len) == 1)
			got++;
		t2 = bench_now() - t2;
		if (t2 < t3)
			t3 = t2;
		capture_reader_close(r);
	}
	if (got != nrec)
		fatalx("decoded %zu records of %zu", got, nrec);

	printf("%-38s %8zu blk %6zu tick %4ju chunks  %6.2f B/blk event "
	    "(%.2f without header)  encode %5.0f ns/rec  decode %5.2f M rec/s\n",
	    ld->name, n, it, (uintmax_t)chunks,
	    (double)sb.st_size / n, (double)(sb.st_size - hdr_bytes) / n,
	    (double)(t1 - t0) / nrec, nrec / (t3 / 1e9) / 1e6);
	unlink(path);
	free(path);
	free(mem);
	free(kind);
	free(tick);
	free(blk);
}

int
main(int argc, char **argv)
{
	size_t		 n = 1000000, i;
	const char	*dir = "/tmp";
	int		 ch;

	while ((ch = getopt(argc, argv, "d:n:")) != -1) {
		switch (ch) {
		case 'd':
			dir = optarg;
			break;
		case 'n':
			n = strtoull(optarg, NULL, 10);
			break;
		default:
			fprintf(stderr, "usage: bench-capture [-d dir] "
			    "[-n events]\n");
			return (1);
		}
	}
	if (n == 0)
		n = 1;
	for (i = 0; i < nitems(bench_loads); i++)
		bench_run(&bench_loads[i], n, dir);
	return (0);
}
