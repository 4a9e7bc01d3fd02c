/* test-capture.c: unit tests of the capture format: what is written reads back, headers old and new. */

#include "capture-test.h"

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

int
main(void)
{
	if (test_setup() != 0)
		return (1);
	test_round_trip();
	test_tables();
	test_raw();
	test_small_buffer();
	test_header_fields();
	test_header_1_0();
	test_file_tag();
	return (test_teardown());
}
