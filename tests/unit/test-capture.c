/* test-capture.c: unit tests of the capture format, one per class of damage. */

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
static uint64_t
test_rand(void)
{
	return (xorshift64(&test_seed));
}

/* Fill a buffer with random bytes. */
static void
test_fill(void *p, size_t len)
{
	u_char	*c = p;

	while (len-- > 0)
		*c++ = test_rand();
}

/* A header with a little of everything. */
static void
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
static void
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
static int
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
static u_char *
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
static long
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
static long
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
static long
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
static char *
test_path(const char *name)
{
	char	*p;

	xasprintf(&p, "%s/%s", test_dir, name);
	return (p);
}

/* Offsets of the chunks of a capture held in memory (by their magic). */
static size_t
test_chunks(const u_char *buf, size_t len, size_t *offs, size_t max)
{
	size_t	 i, n = 0;

	for (i = 0; i + 4 <= len && n < max; i++) {
		if (memcmp(buf + i, "\xb1kCH", 4) == 0)
			offs[n++] = i;
	}
	return (n);
}

/* Many random records, through a file and through memory, bit for bit. */
static void
test_round_trip(void)
{
	struct capture_stats	 st;
	struct rec		*recs;
	size_t			 n = 50000, i, len;
	uint64_t		 ts = 1000000000;
	char			*path = test_path("round.blkcap");
	u_char			*buf;
	long			 got;

	recs = xcalloc(n, sizeof *recs);
	for (i = 0; i < n; i++)
		test_random_record(&recs[i], &ts);
	CHECK("round trip: write", test_write(path, recs, n, 7000) == 0);
	got = test_read_file(path, recs, n, &st);
	CHECK("round trip: every record bit for bit", got == (long)n);
	CHECK("round trip: several chunks, none skipped",
	    st.chunks > 6 && st.skipped == 0 && st.tail_lost == 0);
	buf = test_slurp(path, &len);
	CHECK("round trip: from memory",
	    test_read_mem(buf, len, recs, n, NULL, NULL) == (long)n);
	free(buf);
	free(recs);
	free(path);
}

/* More devices, tasks and comms than a chunk's tables hold. */
static void
test_tables(void)
{
	struct ev_block	 b;
	struct rec	*recs;
	size_t		 n = 20000, i;
	char		*path = test_path("tables.blkcap");

	recs = xcalloc(n, sizeof *recs);
	for (i = 0; i < n; i++) {
		memset(&b, 0, sizeof b);
		b.type = EV_BLOCK;
		b.dev = DEV_MKDEV(8, i % 100);
		b.ts_done = b.ts_issue = b.ts_start = 1000 * i;
		b.pid = i % 3000;
		b.tgid = i % 1500;
		snprintf(b.comm, sizeof b.comm, "c%zu", i % 700);
		b.bytes = 4096;
		b.sector = i * 8;
		recs[i].len = sizeof b;
		memcpy(recs[i].data, &b, sizeof b);
	}
	CHECK("tables overflow: write", test_write(path, recs, n, 0) == 0);
	CHECK("tables overflow: read back",
	    test_read_file(path, recs, n, NULL) == (long)n);
	free(recs);
	free(path);
}

/* Records of types the encoder does not know round-trip as raw bytes. */
static void
test_raw(void)
{
	struct rec	 recs[3];
	uint32_t	 type;
	char		*path = test_path("raw.blkcap");

	type = EV_RW;
	recs[0].len = 200;
	test_fill(recs[0].data, recs[0].len);
	memcpy(recs[0].data, &type, 4);
	type = 0xdeadbeef;
	recs[1].len = 4;
	memcpy(recs[1].data, &type, 4);
	type = EV_OPEN;
	recs[2].len = 511;
	test_fill(recs[2].data, recs[2].len);
	memcpy(recs[2].data, &type, 4);
	CHECK("unknown record types: write", test_write(path, recs, 3, 0) == 0);
	CHECK("unknown record types: round trip raw",
	    test_read_file(path, recs, 3, NULL) == 3);
	free(path);
}

/* Too small a buffer is refused and the record kept for the next call. */
static void
test_small_buffer(void)
{
	struct capture_reader	*r;
	struct rec		 recs[1];
	u_char			 buf[CAPTURE_REC_MAX];
	size_t			 len = 0;
	uint32_t		 type = EV_RW;
	char			*path = test_path("small.blkcap"), *err;

	recs[0].len = 300;
	test_fill(recs[0].data, 300);
	memcpy(recs[0].data, &type, 4);
	test_write(path, recs, 1, 0);
	r = capture_open(path, &err);
	CHECK("small buffer: open", r != NULL);
	if (r == NULL)
		return;
	CHECK("small buffer: refused with the size needed",
	    capture_next(r, buf, 100, &len) == -1 && len == 300);
	CHECK("small buffer: record kept",
	    capture_next(r, buf, sizeof buf, &len) == 1 && len == 300 &&
	    memcmp(buf, recs[0].data, 300) == 0);
	CHECK("small buffer: then the end",
	    capture_next(r, buf, sizeof buf, &len) == 0);
	capture_reader_close(r);
	free(path);
}

/* The header comes back as written. */
static void
test_header_fields(void)
{
	struct capture_header		 hdr;
	const struct capture_header	*h;
	struct capture_reader		*r;
	struct capture			*w;
	char				*path = test_path("hdr.blkcap"), *err;

	test_header(&hdr);
	test_write(path, NULL, 0, 0);
	r = capture_open(path, &err);
	CHECK("header: open an empty capture", r != NULL);
	if (r == NULL)
		return;
	h = capture_reader_header(r);
	CHECK("header: strings",
	    strcmp(h->version, hdr.version) == 0 &&
	    strcmp(h->host, hdr.host) == 0 &&
	    strcmp(h->kernel, hdr.kernel) == 0 &&
	    strcmp(h->plan, hdr.plan) == 0);
	CHECK("header: clock offset and creation time",
	    h->clock_offset == hdr.clock_offset && h->created == hdr.created);
	CHECK("header: a clock offset read is a known clock", h->has_clock == 1);
	CHECK("header: a host name read is a known host", h->has_host == 1);
	CHECK("header: the labels (3.1)", h->nlabels == 2 &&
	    strcmp(h->labels[0].key, "job") == 0 &&
	    strcmp(h->labels[0].value, "train-42") == 0 &&
	    strcmp(h->labels[1].key, "rank") == 0 && strcmp(h->labels[1].value, "7") == 0);
	CHECK("header: device table",
	    h->ndevs == 2 && h->devs[0].dev == DEV_MKDEV(259, 0) &&
	    strcmp(h->devs[0].name, "nvme0n1") == 0 &&
	    h->devs[1].dev == DEV_MKDEV(7, 3) &&
	    strcmp(h->devs[1].name, "loop3") == 0);
	CHECK("header: version", h->major == CAPTURE_VERSION_MAJOR &&
	    h->minor == CAPTURE_VERSION_MINOR);
	CHECK("header: interval and device filter (1.1)",
	    h->interval_ns == 2500000000ULL && h->nfilter == 2 &&
	    h->filter_devs[0] == DEV_MKDEV(7, 3) &&
	    h->filter_devs[1] == DEV_MKDEV(259, 0));
	CHECK("header: the process filter (2.1): cgroup, pids, command names",
	    h->has_procs == 1 && h->filter_cgroup == 4242 && h->nfilter_pids == 2 &&
	    h->filter_pids[0] == 17 && h->filter_pids[1] == 4194304 &&
	    h->nfilter_comms == 2 && strcmp(h->filter_comms[0], "lifecycle") == 0 &&
	    strcmp(h->filter_comms[1], "fifteen-chars-x") == 0);
	capture_reader_close(r);
	free(path);

	/* A 2.0 file (the header stops at field 10): read, no process filter known. */
	{
		u_char		*buf;
		size_t		 len, body;
		uint32_t	 crc;

		path = test_path("hdr-2.0.blkcap");
		hdr.filter_cgroup = 0;
		hdr.nfilter_pids = hdr.nfilter_comms = 0;
		r = NULL;
		if ((w = capture_create(path, &hdr, NULL)) != NULL && capture_close(w) == 0 &&
		    (buf = test_slurp(path, &len)) != NULL) {
			/* Drop the three empty fields (3 bytes of 0) and say 2.0. */
			body = (size_t)buf[12] | (size_t)buf[13] << 8 | (size_t)buf[14] << 16;
			memmove(buf + 20 + body - 3, buf + 20 + body, len - 20 - body);
			body -= 3;
			buf[8] = 2;
			buf[10] = 0;
			buf[12] = (u_char)body;
			buf[13] = (u_char)(body >> 8);
			buf[14] = (u_char)(body >> 16);
			crc = (uint32_t)crc32(0, buf + 20, (uInt)body);
			buf[16] = (u_char)crc;
			buf[17] = (u_char)(crc >> 8);
			buf[18] = (u_char)(crc >> 16);
			buf[19] = (u_char)(crc >> 24);
			r = capture_open_mem(buf, len - 3, NULL);
			CHECK("header: a 2.0 file: read, no process filter recorded",
			    r != NULL && capture_reader_header(r)->minor == 0 &&
			    capture_reader_header(r)->has_procs == 0 &&
			    capture_reader_header(r)->nfilter == 2 &&
			    capture_reader_stats(r)->header_damage == NULL);
			if (r != NULL)
				capture_reader_close(r);
			free(buf);
		} else
			CHECK("header: a 2.0 file written", 0);
		free(path);
		test_header(&hdr);
	}

	/* No interval, no filter: they come back as such. */
	path = test_path("hdr-none.blkcap");
	hdr.interval_ns = 0;
	hdr.nfilter = 0;
	hdr.filter_devs = NULL;
	r = NULL;
	if ((w = capture_create(path, &hdr, NULL)) != NULL &&
	    capture_close(w) == 0)
		r = capture_open(path, NULL);
	CHECK("header: no interval, no filter",
	    r != NULL && capture_reader_header(r)->interval_ns == 0 &&
	    capture_reader_header(r)->nfilter == 0 &&
	    capture_reader_header(r)->filter_devs == NULL);
	if (r != NULL)
		capture_reader_close(r);
	free(path);
}

/* Build a small capture of a few chunks in memory. */
static u_char *
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
static u_char *
test_small_from(const struct rec *recs, size_t n, const char *name, size_t *lenp)
{
	char	*path = test_path(name);
	u_char	*buf;

	test_write(path, recs, n, 0);
	buf = test_slurp(path, lenp);
	free(path);
	return (buf);
}

/*
 * A 1.0 file knows no interval or filter: the reader leaves them empty and
 * ignores what a 1.0 header might hold after the plan; a 1.1 header whose
 * fields are cut short is damaged.
 */
static void
test_header_1_0(void)
{
	const struct capture_header	*h;
	struct capture_reader		*r;
	struct capture_stats		 st;
	struct rec			 recs[10];
	u_char				*buf, *copy, rec[CAPTURE_REC_MAX];
	size_t				 len, hlen, n = 0;
	uint32_t			 l32;
	uLong				 crc = crc32(0, NULL, 0);
	char				*err = NULL;
	long				 got;
	int				 nofile = 1;

	/* The fixture, written by blktop 0.1 as 1.0 (-d 1 -D 7:6 in its plan). */
	r = capture_open(TEST_FIXTURES "/small.blkcap", &err);
	CHECK("1.0 fixture: opens", r != NULL);
	if (r == NULL) {
		printf("# %s\n", err);
		free(err);
		return;
	}
	h = capture_reader_header(r);
	CHECK("1.0 fixture: version 1.0, no interval, no filter",
	    h->major == 1 && h->minor == 0 && h->interval_ns == 0 &&
	    h->nfilter == 0 && h->filter_devs == NULL);
	CHECK("1.0 fixture: plan as recorded",
	    strcmp(h->plan, "tp_btf:io_start -d 1 -D 7:6") == 0);
	while (capture_next(r, rec, sizeof rec, &len) == 1) {
		/* Block records as the 1.0 reader knew them: 96 bytes, no file. */
		memcpy(&l32, rec, sizeof l32);
		if (l32 == EV_BLOCK && len == sizeof(struct ev_block)) {
			const struct ev_block *b = (const struct ev_block *)rec;

			if (b->fclass != 0 || b->fsdev != 0 || b->ino != 0 || b->pad2 != 0)
				nofile = 0;
			len = offsetof(struct ev_block, ino);
		}
		l32 = len;
		crc = crc32(crc, (u_char *)&l32, sizeof l32);
		crc = crc32(crc, rec, len);
		n++;
	}
	st = *capture_reader_stats(r);
	/* Count and CRC of the records as the 1.0 reader (capture.c) read them. */
	CHECK("1.0 fixture: the same records",
	    n == 15009 && crc == 0xde687cc2 && st.chunks == 9 &&
	    st.skipped == 0 && st.tail_lost == 0);
	CHECK("1.0 fixture: block records name no file", nofile);
	capture_reader_close(r);

	/* A 1.1 file relabelled 1.0: the appended fields are not read. */
	test_no_files = 1;
	buf = test_small_capture(recs, 10, 0, &len, "relabel.blkcap");
	test_no_files = 0;
	buf[8] = 1;
	buf[10] = 0;
	r = capture_open_mem(buf, len, NULL);
	CHECK("1.0: fields after the plan ignored",
	    r != NULL && capture_reader_header(r)->interval_ns == 0 &&
	    capture_reader_header(r)->nfilter == 0 &&
	    test_read(r, recs, 10, NULL) == 10);
	if (r != NULL)
		capture_reader_close(r);

	/*
	 * A 1.1 header one byte short (the last filter device cut): the 2.1
	 * and 3.1 fields after it, which a 1.1 reader does not read, go too.
	 */
	buf[10] = 1;
	{
		struct capture_header	 ph;
		u_char			*b1, *b2;
		size_t			 with, without;

		test_header(&ph);
		with = capture_header_build(&ph, &b1);
		ph.filter_cgroup = 0;
		ph.nfilter_pids = ph.nfilter_comms = 0;
		ph.nlabels = 0;	/* and 3.1's labels after them */
		without = capture_header_build(&ph, &b2);
		hlen = capture_get32(buf + 12) - (uint32_t)(with - without + 3 + 1) - 1;
		free(b1);
		free(b2);
	}
	copy = xmalloc(len);
	memcpy(copy, buf, len);
	capture_put32(copy + 12, hlen);
	capture_put32(copy + 16, crc32(0, copy + 20, hlen));
	memset(&st, 0, sizeof st);
	got = test_read_mem(copy, len, recs, 10, &st, NULL);
	CHECK("1.1: cut fields are a damaged header: passed over, every record replays",
	    got == 10 && st.header_damage != NULL &&
	    strstr(st.header_damage, "damaged header") != NULL && st.skipped == 1);
	free(copy);
	free(buf);
}

/*
 * 2.0: block records name their file, a run on one file costs no byte more
 * than the same records without one; a FILE tag in a 1.x file is damage.
 */
static void
test_file_tag(void)
{
	struct capture_stats	 st;
	struct rec		 recs[200];
	struct ev_block		 b;
	size_t			 i, len, len0;
	u_char			*buf;
	long			 got;

	for (i = 0; i < 200; i++) {
		memset(&b, 0, sizeof b);
		b.type = EV_BLOCK;
		b.dev = DEV_MKDEV(7, 0);
		b.ts_done = 1000000 + i * 50000;
		b.ts_issue = b.ts_start = b.ts_done - 20000;
		b.sector = i * 8;
		b.bytes = 4096;
		b.pid = b.tgid = 42;
		strcpy(b.comm, "cat");
		b.fclass = BLK_FC_FILE;
		b.fsdev = DEV_MKDEV(7, 0);
		b.ino = i < 100 ? 12 : 5000000000ULL;	/* two files, one change */
		recs[i].len = sizeof b;
		memcpy(recs[i].data, &b, sizeof b);
	}
	buf = test_small_from(recs, 200, "file.blkcap", &len);
	got = test_read_mem(buf, len, recs, 200, &st, NULL);
	CHECK("file tag: records round-trip with their file", got == 200);
	buf[8] = 1;
	got = test_read_mem(buf, len, NULL, 0, &st, NULL);
	CHECK("file tag: in a 1.x file, damage (chunk skipped)",
	    got == 0 && st.skipped == 1);
	free(buf);
	for (i = 0; i < 200; i++) {
		memcpy(&b, recs[i].data, sizeof b);
		b.fclass = 0;
		b.fsdev = 0;
		b.ino = 0;
		memcpy(recs[i].data, &b, sizeof b);
	}
	buf = test_small_from(recs, 200, "nofile.blkcap", &len0);
	free(buf);
	printf("# 200 records: %zu bytes with their files, %zu without\n", len, len0);
	CHECK("file tag: two file changes cost at most 16 bytes each", len <= len0 + 32);
}

/* A file cut at every offset replays every whole chunk and never crashes. */
static void
test_truncation(void)
{
	struct capture_stats	 st;
	struct rec		 recs[40];
	size_t			 len, cut, offs[16], nch, hdrlen, i, whole;
	u_char			*buf, *copy;
	char			*err;
	long			 got;
	int			 ok = 1, errs_ok = 1;

	buf = test_small_capture(recs, 40, 10, &len, "trunc.blkcap");
	nch = test_chunks(buf, len, offs, 16);
	CHECK("truncation: four chunks", nch == 4);
	hdrlen = offs[0];
	for (cut = 0; cut <= len; cut++) {
		/* A copy of exactly cut bytes, so ASan sees any overread. */
		copy = xmalloc(cut == 0 ? 1 : cut);
		memcpy(copy, buf, cut);
		err = NULL;
		got = test_read_mem(copy, cut, recs, 40, &st, &err);
		if (cut < hdrlen) {
			if (got != -2 || err == NULL)
				errs_ok = 0;
			else if (cut == 0 && strcmp(err, "empty file") != 0)
				errs_ok = 0;
			else if (cut > 0 && strcmp(err, "truncated header") != 0)
				errs_ok = 0;
		} else {
			for (whole = 0, i = 0; i < nch; i++) {
				if ((i + 1 < nch ? offs[i + 1] : len) <= cut)
					whole++;
			}
			if (got != (long)(whole * 10) ||
			    st.chunks != whole || st.skipped != 0 ||
			    st.tail_lost != cut - (whole == 0 ? hdrlen :
			    (whole < nch ? offs[whole] : len)))
				ok = 0;
		}
		free(err);
		free(copy);
	}
	CHECK("truncation: header cut gives empty file / truncated header",
	    errs_ok);
	CHECK("truncation: every offset replays the whole chunks, counts the tail",
	    ok);
	free(buf);
}

/* A flipped byte skips its chunk by CRC; the chunks after it still replay. */
static void
test_flips(void)
{
	struct capture_stats	 st;
	struct rec		 recs[40], rest[40];
	size_t			 len, offs[16], nch, at, i;
	u_char			*buf, *copy;
	long			 got;
	int			 ok = 1;

	buf = test_small_capture(recs, 40, 10, &len, "flip.blkcap");
	nch = test_chunks(buf, len, offs, 16);
	/* Expected: chunk 1 (records 10..19) gone. */
	memcpy(rest, recs, 10 * sizeof *recs);
	memcpy(rest + 10, recs + 20, 20 * sizeof *recs);

	copy = xmalloc(len);
	for (at = offs[1]; at < offs[2]; at++) {
		memcpy(copy, buf, len);
		copy[at] ^= 1 << (at % 8);
		got = test_read_mem(copy, len, rest, 30, &st, NULL);
		if (got != 30 || st.skipped != 1 || st.chunks != nch - 1 ||
		    st.skipped_bytes != offs[2] - offs[1] || st.tail_lost != 0) {
			printf("# flip at %zu (chunk at %zu): got %ld "
			    "skipped %ju\n", at, offs[1], got,
			    (uintmax_t)st.skipped);
			ok = 0;
		}
	}
	CHECK("flipped byte: every byte of a chunk, it alone is skipped", ok);

	/* The last chunk damaged: skipped too, not "lost at the end". */
	memcpy(copy, buf, len);
	copy[len - 3] ^= 0x40;
	got = test_read_mem(copy, len, recs, 30, &st, NULL);
	CHECK("flipped byte: last chunk skipped",
	    got == 30 && st.skipped == 1 && st.tail_lost == 0);

	/* Garbage spliced between chunks 1 and 2, with a fake chunk magic. */
	free(copy);
	copy = xmalloc(len + 1000);
	memcpy(copy, buf, offs[2]);
	for (i = 0; i < 1000; i++)
		copy[offs[2] + i] = test_rand();
	memcpy(copy + offs[2] + 100, "\xb1kCH", 4);
	memcpy(copy + offs[2] + 1000, buf + offs[2], len - offs[2]);
	got = test_read_mem(copy, len + 1000, recs, 40, &st, NULL);
	CHECK("garbage between chunks: skipped, everything replays",
	    got == 40 && st.skipped == 1 && st.skipped_bytes == 1000);

	/* Many random flips over the whole file never crash. */
	test_quiet = 1;
	for (i = 0; i < 2000; i++) {
		memcpy(copy, buf, len);
		copy[test_rand() % len] ^= 1 << (test_rand() % 8);
		copy[offs[0] + test_rand() % (len - offs[0])] = test_rand();
		test_read_mem(copy, len, recs, 40, &st, NULL);
	}
	test_quiet = 0;
	CHECK("random damage: no crash", 1);
	free(copy);
	free(buf);
}

/* Files that are not captures are refused with a clear message. */
static void
test_refusals(void)
{
	struct capture_reader	*r;
	struct capture_stats	 st;
	struct rec		 recs[10];
	u_char			 junk[4096], *buf;
	size_t			 len, i;
	char			*err = NULL, *path;
	long			 got;
	int			 ok = 1;

	for (i = 0; i < sizeof junk; i++)
		junk[i] = test_rand();
	got = test_read_mem(junk, sizeof junk, NULL, 0, NULL, &err);
	CHECK("garbage: not a capture file",
	    got == -2 && strcmp(err, "not a blktop capture file") == 0);
	free(err);
	err = NULL;
	got = test_read_mem(junk, 0, NULL, 0, NULL, &err);
	CHECK("empty: empty file", got == -2 && strcmp(err, "empty file") == 0);
	free(err);

	path = test_path("empty.blkcap");
	close(open(path, O_CREAT|O_WRONLY, 0600));
	err = NULL;
	CHECK("empty file on disk: refused with its name",
	    capture_open(path, &err) == NULL && err != NULL &&
	    strstr(err, "empty file") != NULL && strstr(err, path) != NULL);
	free(err);
	free(path);

	buf = test_small_capture(recs, 10, 0, &len, "version.blkcap");
	buf[8] = 4;
	buf[10] = 0;
	err = NULL;
	got = test_read_mem(buf, len, NULL, 0, NULL, &err);
	CHECK("unknown version: refused",
	    got == -2 && strstr(err, "unsupported capture format version 4.0") != NULL &&
	    strstr(err, "reads 1.x to 3.x") != NULL);
	free(err);
	buf[8] = 0;
	err = NULL;
	got = test_read_mem(buf, len, NULL, 0, NULL, &err);
	CHECK("version 0.0: refused", got == -2 && err != NULL &&
	    strstr(err, "unsupported capture format version 0.0") != NULL);
	free(err);
	buf[8] = CAPTURE_VERSION_MAJOR;
	buf[10] = 7;	/* a later minor version is read */
	CHECK("later minor version: read",
	    test_read_mem(buf, len, recs, 10, NULL, NULL) == 10);
	/*
	 * A flipped bit anywhere in the header (magic, length, CRC, body) costs
	 * the header, not the records: the chunks after it replay, the header
	 * counts as one skipped region, and nothing it said is kept.
	 */
	for (i = 0; i < 26; i++) {
		if (i >= 8 && i < 12)	/* the version: a flip there is another format */
			continue;
		buf[i] ^= 0x04;
		memset(&st, 0, sizeof st);
		if ((r = capture_open_mem(buf, len, NULL)) == NULL)
			ok = 0;
		else {
			ok = test_read(r, recs, 10, &st) == 10 && st.skipped == 1 &&
			    st.header_damage != NULL &&
			    strcmp(capture_reader_header(r)->plan, "unknown (header damaged)") == 0 &&
			    capture_reader_header(r)->ndevs == 0;
			capture_reader_close(r);
		}
		buf[i] ^= 0x04;
		if (!ok)
			break;
	}
	CHECK("damaged header: a flipped bit in magic, length, CRC or body; every record replays",
	    i == 26);
	free(buf);
}

/* The writer never overwrites, never follows a link, and creates 0600. */
static void
test_create(void)
{
	struct capture_header	 hdr;
	struct capture		*w;
	struct stat		 sb;
	char			*path = test_path("excl.blkcap");
	char			*link = test_path("link.blkcap");
	char			*target = test_path("target");
	char			*err = NULL;
	mode_t			 old;

	test_header(&hdr);
	old = umask(0);
	w = capture_create(path, &hdr, &err);
	umask(old);
	CHECK("create: new file", w != NULL);
	if (w != NULL)
		capture_close(w);
	CHECK("create: mode 0600",
	    stat(path, &sb) == 0 && (sb.st_mode & 07777) == 0600);
	err = NULL;
	w = capture_create(path, &hdr, &err);
	CHECK("create: existing file refused (O_EXCL)",
	    w == NULL && err != NULL && strstr(err, "File exists") != NULL);
	free(err);

	symlink(target, link);
	err = NULL;
	w = capture_create(link, &hdr, &err);
	CHECK("create: symlink not followed",
	    w == NULL && access(target, F_OK) != 0);
	free(err);
	free(path);
	free(link);
	free(target);
}

/* Write a short string to a file of /proc; -1 if it cannot. */
static int
write_proc(const char *path, const char *what)
{
	int	fd, ok;

	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) == -1)
		return (-1);
	ok = write(fd, what, strlen(what)) == (ssize_t)strlen(what);
	close(fd);
	return (ok ? 0 : -1);
}

/*
 * For a user: a user and a mount namespace of its own, where it is root and
 * may mount a tmpfs (make check runs as a normal user). Root stays as it is.
 */
static void
enospc_namespace(void)
{
	char	map[64];
	uid_t	uid = getuid();
	gid_t	gid = getgid();

	if (geteuid() == 0 || unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0)
		return;
	snprintf(map, sizeof map, "0 %u 1", (unsigned)uid);
	write_proc("/proc/self/uid_map", map);
	write_proc("/proc/self/setgroups", "deny");
	snprintf(map, sizeof map, "0 %u 1", (unsigned)gid);
	write_proc("/proc/self/gid_map", map);
	mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL);
}

/* A full disk fails the writer; what it wrote still replays. */
static void
test_enospc_run(void)
{
	struct capture_header	 hdr;
	struct capture_stats	 st;
	struct capture		*w;
	struct rec		*recs;
	size_t			 n = 20000, i, added = 0;
	uint64_t		 ts = 1;
	char			*mnt = test_path("tmpfs"), *path, *err = NULL;
	long			 got;
	int			 failed = 0;

	recs = xcalloc(n, sizeof *recs);
	for (i = 0; i < n; i++)
		test_random_record(&recs[i], &ts);
	mkdir(mnt, 0700);
	if (mount("none", mnt, "tmpfs", 0, "size=64k") != 0) {
		printf("SKIP: ENOSPC: mount tmpfs: %s\n", strerror(errno));
		free(mnt);
		free(recs);
		return;
	}
	xasprintf(&path, "%s/full.blkcap", mnt);
	test_header(&hdr);
	w = capture_create(path, &hdr, &err);
	CHECK("ENOSPC: create", w != NULL);
	if (w != NULL) {
		for (i = 0; i < n; i++) {
			if (capture_add(w, recs[i].data, recs[i].len) != 0) {
				failed = 1;
				break;
			}
			added++;
			if (i % 500 == 499 && capture_flush(w) != 0) {
				failed = 1;
				break;
			}
		}
		CHECK("ENOSPC: writer enters the failed state", failed &&
		    capture_error(w) != NULL &&
		    strstr(capture_error(w), "No space") != NULL);
		if (capture_error(w) != NULL)
			printf("# %s\n", capture_error(w));
		CHECK("ENOSPC: later adds refused",
		    capture_add(w, recs[0].data, recs[0].len) == -1);
		CHECK("ENOSPC: close reports the failure", capture_close(w) == -1);
		got = test_read_file(path, recs, added, &st);
		printf("# ENOSPC: added %zu, replayed %ld, chunks %ju, "
		    "tail lost %ju\n", added, got, (uintmax_t)st.chunks,
		    (uintmax_t)st.tail_lost);
		CHECK("ENOSPC: the file replays its whole chunks",
		    got > 0 && st.chunks > 0 && st.skipped == 0);
	}
	if (umount(mnt) != 0)
		printf("# umount %s: %s\n", mnt, strerror(errno));
	rmdir(mnt);
	free(path);
	free(mnt);
	free(recs);
}

/* test_enospc_run in a child, in a namespace of its own where it needs one. */
static void
test_enospc(void)
{
	pid_t	pid;
	int	st = 0;

	fflush(stdout);
	if ((pid = fork()) == -1) {
		CHECK("ENOSPC: fork", 0);
		return;
	}
	if (pid == 0) {
		enospc_namespace();
		test_enospc_run();
		fflush(stdout);
		_exit(check_failed ? 1 : 0);
	}
	/* Its checks printed their lines; a failure or a crash fails this test too. */
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		printf("# ENOSPC: the child failed (status 0x%x)\n", st);
		check_failed++;
	}
}

/* The flight recorder keeps the last seconds and starts a file with them. */
static void
test_flight(void)
{
	struct capture_header	 hdr;
	struct capture_flight	*fl;
	struct capture_stats	 st;
	struct capture		*w;
	struct rec		*recs;
	struct ev_block		*b;
	size_t			 n = 60 * 100, i, first, bytes;
	unsigned		 chunks;
	uint64_t		 ts = 0, sec = NSEC_PER_SEC;
	char			*path = test_path("flight.blkcap"), *err;
	long			 got;

	recs = xcalloc(n + 100, sizeof *recs);
	fl = capture_flight_init(30, 1 << 20);
	/* 60 s of 100 events per second, ticking each second. */
	for (i = 0; i < n; i++) {
		b = (struct ev_block *)recs[i].data;
		memset(b, 0, sizeof *b);
		b->type = EV_BLOCK;
		b->dev = DEV_MKDEV(8, 0);
		b->ts_done = (i / 100 + 1) * sec + (i % 100) * (sec / 100);
		b->ts_issue = b->ts_start = b->ts_done - test_rand() % 100000;
		b->sector = test_rand() % (1 << 21);
		b->bytes = 4096;
		b->pid = 1 + i % 3;
		strcpy(b->comm, "fio");
		recs[i].len = sizeof *b;
		capture_flight_add(fl, b, sizeof *b);
		if (i % 100 == 99)
			capture_flight_tick(fl, (i / 100 + 2) * sec);
	}
	capture_flight_usage(fl, &bytes, &chunks);
	printf("# flight: %u chunks, %zu bytes\n", chunks, bytes);
	CHECK("flight: about 30 s kept", chunks >= 30 && chunks <= 32);

	test_header(&hdr);
	w = capture_create_from_flight(path, &hdr, fl, &err);
	CHECK("flight: file created", w != NULL);
	if (w == NULL)
		return;
	for (i = n; i < n + 100; i++) {
		test_random_record(&recs[i], &ts);
		capture_add(w, recs[i].data, recs[i].len);
	}
	capture_close(w);
	first = n - (size_t)chunks * 100;
	got = test_read_file(path, recs + first, n + 100 - first, &st);
	CHECK("flight: file holds the kept seconds, then the new events",
	    got == (long)(n + 100 - first));

	/* A byte cap smaller than 30 s of chunks. */
	capture_flight_free(fl);
	fl = capture_flight_init(30, 8192);
	for (i = 0; i < n; i++) {
		capture_flight_add(fl, recs[i].data, recs[i].len);
		if (i % 100 == 99)
			capture_flight_tick(fl, (i / 100 + 2) * sec);
	}
	capture_flight_usage(fl, &bytes, &chunks);
	CHECK("flight: byte cap holds", bytes <= 8192 && chunks > 0);
	capture_flight_free(fl);
	free(recs);
	free(path);
}

int
main(void)
{
	if (mkdtemp(test_dir) == NULL) {
		perror("mkdtemp");
		return (1);
	}
	test_round_trip();
	test_tables();
	test_raw();
	test_small_buffer();
	test_header_fields();
	test_header_1_0();
	test_file_tag();
	test_truncation();
	test_flips();
	test_refusals();
	test_create();
	test_enospc();
	test_flight();
	if (check_failed == 0) {
		char	*cmd;

		xasprintf(&cmd, "rm -rf '%s'", test_dir);
		if (system(cmd) != 0)
			printf("# could not remove %s\n", test_dir);
		free(cmd);
	}
	CHECK_EXIT();
}
