/*
 * capture-test.h: for the capture format's unit tests (test-capture.c,
 * test-capture-damage.c): random records, writing them and reading them back.
 */
#ifndef BLKTOP_TEST_CAPTURE_H
#define BLKTOP_TEST_CAPTURE_H

#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "blktop.h"
#include "capture.h"
#include "check.h"
#include "../common/rand.h"

/* One record as written, for comparing with what the reader returns. */
struct rec {
	size_t		 len;
	u_char		 data[512];
};

static uint64_t	 test_seed = 0x9e3779b97f4a7c15ULL;
static int	 test_quiet;	/* damage expected: do not report mismatches */
static char	 test_dir[] = "/tmp/test-capture.XXXXXX";

/* A fast deterministic random number. */
static inline uint64_t
test_rand(void)
{
	return (xorshift64(&test_seed));
}

/* Fill a buffer with random bytes. */
static inline void
test_fill(void *p, size_t len)
{
	u_char	*c = p;

	while (len-- > 0)
		*c++ = test_rand();
}

/* A header with a little of everything. */
static inline void
test_header(struct capture_header *hdr)
{
	static struct capture_dev devs[2] = {
		{ DEV_MKDEV(259, 0), "nvme0n1" },
		{ DEV_MKDEV(7, 3), "loop3" },
	};
	static uint32_t filter[2] = { DEV_MKDEV(7, 3), DEV_MKDEV(259, 0) };

	memset(hdr, 0, sizeof *hdr);
	hdr->version = (char *)"0.1-test";
	hdr->host = (char *)"testhost";
	hdr->kernel = (char *)"6.1.0-test";
	hdr->plan = (char *)"block=tp:block_io_start,block_rq_issue,block_io_done";
	hdr->clock_offset = -1234567890123LL;
	hdr->created = 1700000000123456789ULL;
	hdr->ndevs = 2;
	hdr->devs = devs;
	hdr->interval_ns = 2500000000ULL;
	hdr->nfilter = 2;
	hdr->filter_devs = filter;
	hdr->filter_cgroup = 4242;
	hdr->nfilter_pids = 2;
	hdr->filter_pids[0] = 17;
	hdr->filter_pids[1] = 4194304;
	hdr->nfilter_comms = 2;
	strcpy(hdr->filter_comms[0], "lifecycle");
	strcpy(hdr->filter_comms[1], "fifteen-chars-x");
	hdr->nlabels = 2;
	strcpy(hdr->labels[0].key, "job");
	strcpy(hdr->labels[0].value, "train-42");
	strcpy(hdr->labels[1].key, "rank");
	strcpy(hdr->labels[1].value, "7");
}

/* Set: random block records name no file and carry device state (a file that can pass for 1.x). */
static int test_no_files;

/* One random record: mostly blocks, some ticks, losses and foreign types. */
static inline void
test_random_record(struct rec *r, uint64_t *ts)
{
	struct ev_block	 b;
	struct ev_tick	 t;
	struct ev_lost	 l;
	uint32_t	 type;
	unsigned	 k = test_rand() % 100;

	*ts += test_rand() % 200000;
	if (k < 80) {
		test_fill(&b, sizeof b);
		b.type = EV_BLOCK;
		if (test_rand() % 2) {
			/* Plausible values, to hit the "same as before" paths. */
			b.dev = DEV_MKDEV(8, 16 * (test_rand() % 3));
			b.ts_done = *ts;
			b.ts_issue = b.ts_done - test_rand() % 1000000;
			b.ts_start = b.ts_issue - test_rand() % 10000;
			b.bytes = 4096 << (test_rand() % 3);
			b.pid = 100 + test_rand() % 4;
			b.tgid = b.pid - test_rand() % 2;
			memset(b.comm, 0, sizeof b.comm);
			snprintf(b.comm, sizeof b.comm, "proc%u", b.pid);
			b.error = 0;
			b.op = test_rand() % 2;
			b.flags = test_rand() % 2;
			b.cgroup = 1;
			/* Runs on one file, changes, all classes. */
			b.fclass = test_rand() % 8 < 5 ? BLK_FC_FILE : test_rand() % BLK_FC_MAX;
			b.fsdev = b.fclass == BLK_FC_FILE ? DEV_MKDEV(7, test_rand() % 4 == 0) : 0;
			b.ino = b.fclass == BLK_FC_FILE ? 12 + test_rand() % 3 * 1000000 : 0;
			b.pad2 = 0;
			if (test_rand() % 3 == 0 && !test_no_files) {
				/* 3.0: no kernel-side device state, neither field stored. */
				b.flags |= BLK_F_NODEVSTAT;
				b.inflight = 0;
				b.busy_ns = 0;
			}
		}
		if (test_no_files) {
			b.fclass = b.pad2 = 0;
			b.fsdev = 0;
			b.ino = 0;
		}
		if (test_rand() % 4 == 0)
			b.bytes = test_rand() % 100000;	/* not a multiple of 512 */
		if (test_rand() % 8 == 0)
			b.op = test_rand();		/* past the 3-bit code */
		r->len = sizeof b;
		memcpy(r->data, &b, sizeof b);
	} else if (k < 88) {
		t.type = EV_TICK;
		t.pad = (test_rand() % 10 == 0) ? (uint32_t)test_rand() : 0;
		t.ts = (test_rand() % 10 == 0) ? test_rand() : *ts;
		r->len = sizeof t;
		memcpy(r->data, &t, sizeof t);
	} else if (k < 94) {
		l.type = EV_LOST;
		l.kind = (test_rand() % 10 == 0) ? (uint32_t)test_rand() : 0;
		l.ts = *ts;
		l.count = test_rand() >> (test_rand() % 64);
		r->len = sizeof l;
		memcpy(r->data, &l, sizeof l);
	} else {
		/* A type the encoder does not know (or a known one, wrong size). */
		r->len = 4 + test_rand() % (sizeof r->data - 4);
		test_fill(r->data, r->len);
		type = (k < 97) ? EV_OPEN : (uint32_t)test_rand();
		if (k == 99)
			type = EV_BLOCK;
		memcpy(r->data, &type, sizeof type);
	}
}

/* Write records to path; flush after every "every" records (0 = never). */
static inline int
test_write(const char *path, const struct rec *recs, size_t n, size_t every)
{
	struct capture_header	 hdr;
	struct capture		*w;
	char			*err = NULL;
	size_t			 i;

	test_header(&hdr);
	if ((w = capture_create(path, &hdr, &err)) == NULL) {
		printf("# %s\n", err);
		free(err);
		return (-1);
	}
	for (i = 0; i < n; i++) {
		if (capture_add(w, recs[i].data, recs[i].len) != 0)
			return (-1);
		if (every != 0 && (i + 1) % every == 0)
			capture_flush(w);
	}
	return (capture_close(w));
}

/* Read a whole file into memory. */
static inline u_char *
test_slurp(const char *path, size_t *lenp)
{
	struct stat	 sb;
	u_char		*buf;
	int		 fd;

	if ((fd = open(path, O_RDONLY)) == -1 || fstat(fd, &sb) != 0)
		return (NULL);
	buf = xmalloc(sb.st_size + 1);
	if (read(fd, buf, sb.st_size) != sb.st_size)
		sb.st_size = 0;
	close(fd);
	*lenp = sb.st_size;
	return (buf);
}

/*
 * Read a capture and compare it with the records written: the records read
 * must be exactly recs[0..n) in order. Returns n, or -1 on a mismatch.
 */
static inline long
test_read(struct capture_reader *r, const struct rec *recs, size_t max,
    struct capture_stats *st)
{
	u_char	 buf[CAPTURE_REC_MAX];
	size_t	 len, n = 0;
	int	 ret;

	while ((ret = capture_next(r, buf, sizeof buf, &len)) == 1) {
		if (n >= max || len != recs[n].len ||
		    memcmp(buf, recs[n].data, len) != 0) {
			if (!test_quiet)
				printf("# record %zu differs\n", n);
			return (-1);
		}
		n++;
	}
	if (ret != 0)
		return (-1);
	if (st != NULL)
		*st = *capture_reader_stats(r);
	return (n);
}

/* Open a capture file and compare it with what was written. */
static inline long
test_read_file(const char *path, const struct rec *recs, size_t n,
    struct capture_stats *st)
{
	struct capture_reader	*r;
	char			*err = NULL;
	long			 got;

	if ((r = capture_open(path, &err)) == NULL) {
		printf("# %s\n", err);
		free(err);
		return (-1);
	}
	got = test_read(r, recs, n, st);
	capture_reader_close(r);
	return (got);
}

/* Open a capture in memory and compare it; -2 if it does not open. */
static inline long
test_read_mem(const u_char *buf, size_t len, const struct rec *recs,
    size_t n, struct capture_stats *st, char **errp)
{
	struct capture_reader	*r;
	long			 got;

	if ((r = capture_open_mem(buf, len, errp)) == NULL)
		return (-2);
	got = test_read(r, recs, n, st);
	capture_reader_close(r);
	return (got);
}

/* A path in the test directory. */
static inline char *
test_path(const char *name)
{
	char	*p;

	xasprintf(&p, "%s/%s", test_dir, name);
	return (p);
}

/* Offsets of the chunks of a capture held in memory (by their magic). */
static inline size_t
test_chunks(const u_char *buf, size_t len, size_t *offs, size_t max)
{
	size_t	 i, n = 0;

	for (i = 0; i + 4 <= len && n < max; i++) {
		if (memcmp(buf + i, "\xb1kCH", 4) == 0)
			offs[n++] = i;
	}
	return (n);
}

/* Build a small capture of a few chunks in memory. */
static inline u_char *
test_small_capture(struct rec *recs, size_t n, size_t every, size_t *lenp,
    const char *name)
{
	uint64_t	 ts = 5000000000ULL;
	size_t		 i;
	char		*path = test_path(name);
	u_char		*buf;

	for (i = 0; i < n; i++)
		test_random_record(&recs[i], &ts);
	test_write(path, recs, n, every);
	buf = test_slurp(path, lenp);
	free(path);
	return (buf);
}

/* Write recs to a file of that name and read it back into memory. */
static inline u_char *
test_small_from(const struct rec *recs, size_t n, const char *name, size_t *lenp)
{
	char	*path = test_path(name);
	u_char	*buf;

	test_write(path, recs, n, 0);
	buf = test_slurp(path, lenp);
	free(path);
	return (buf);
}


/* The tests' folder, made once before the first test. */
static inline int
test_setup(void)
{
	if (mkdtemp(test_dir) == NULL) {
		perror("mkdtemp");
		return (-1);
	}
	return (0);
}

/* The folder goes if every check passed (kept to look into otherwise); the exit status. */
static inline int
test_teardown(void)
{
	if (check_failed == 0) {
		char	*cmd;

		xasprintf(&cmd, "rm -rf '%s'", test_dir);
		if (system(cmd) != 0)
			printf("# could not remove %s\n", test_dir);
		free(cmd);
	}
	CHECK_EXIT();
}

#endif /* BLKTOP_TEST_CAPTURE_H */
