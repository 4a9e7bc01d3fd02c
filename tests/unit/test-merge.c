/* test-merge.c: source-merge.c: files of one run in time order, ticks, devices, clocks, the basename join. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blktop.h"
#include "check.h"
#include "../common/capture-fixture.h"

#define S	NSEC_PER_SEC
#define MS	(NSEC_PER_SEC / 1000)
#define BASE	(100 * S)

static char	 dir[] = "/tmp/test-merge-XXXXXX";

/* The path of a file name in the test's directory (a static buffer each of 8). */
static const char *
test_path(const char *name)
{
	static char	 buf[8][256];
	static unsigned	 n;
	char		*p = buf[n++ % 8];

	snprintf(p, sizeof buf[0], "%s/%s", dir, name);
	return (p);
}

/* Write text as a file of the test's directory. */
static const char *
write_text(const char *name, const char *text)
{
	const char	*path = test_path(name);
	FILE		*f;

	if ((f = fopen(path, "w")) == NULL || fputs(text, f) < 0 || fclose(f) != 0) {
		printf("FAIL: write %s\n", path);
		exit(1);
	}
	return (path);
}

/* A vfs_rw log line (no TIME: no clock) at BASE + ms, its latency as a tag. */
static void
vfs_line(char *buf, size_t size, uint64_t ms, unsigned tag)
{
	size_t	 n = strlen(buf);

	snprintf(buf + n, size - n, "%llu 10 app R %u 4096 4096 f.dat\n",
	    (unsigned long long)(BASE + ms * MS), tag);
}

/* A biosnoop log line (no TIME) at BASE + ms on disk, its latency as a tag. */
static void
bio_line(char *buf, size_t size, uint64_t ms, const char *disk, unsigned tag)
{
	size_t	 n = strlen(buf);

	snprintf(buf + n, size - n, "%llu 20 app 0 kworker %s 0 8 4096 %u\n",
	    (unsigned long long)(BASE + ms * MS), disk, tag);
}

/* What a merged run handed out: tags of records (0 for a tick) and tick times. */
struct seq {
	unsigned	 n;
	unsigned	 tag[64];
	uint64_t	 ts[64];
};

/* Read every record of a run into seq; the tag is the latency a log line carried. */
static int
read_run(struct merge *m, struct seq *q)
{
	uint64_t	 buf[CAPTURE_REC_MAX / 8 + 1];
	uint32_t	 type;
	size_t		 len;

	q->n = 0;
	while (merge_next(m, buf, sizeof buf, &len) == 1) {
		if (q->n == 64)
			return (-1);
		memcpy(&type, buf, sizeof type);
		q->ts[q->n] = rec_type_ts(buf, len);
		if (type == EV_TICK)
			q->tag[q->n] = 0;
		else if (type == EV_RW) {
			const struct ev_rw *e = (const void *)buf;

			q->tag[q->n] = (unsigned)e->lat_ns;
		} else if (type == EV_BLOCK) {
			const struct ev_block *e = (const void *)buf;

			q->tag[q->n] = (unsigned)(e->ts_done - e->ts_issue);
		} else
			q->tag[q->n] = 1;
		q->n++;
	}
	return (0);
}

/*
 * Three logs: one goes back 100 ms (a line printed late), one starts before
 * the others. Records go by their heads' times, each file's order kept, a
 * tick at every second from the earliest start and one after the last.
 */
static void
test_order(void)
{
	char		 a[1024] = "", b[1024] = "", c[1024] = "";
	const char	*paths[3];
	struct merge	*m;
	struct seq	 q;
	char		*err = NULL;
	/* c1, T100, a1, b1, b2, a2, a3, T101, T102, a4, T103, b3, T104 */
	static const unsigned want_tag[] = {
		301, 0, 101, 201, 202, 102, 103, 0, 0, 104, 0, 203, 0
	};
	static const uint64_t want_tick[] = { 100, 101, 102, 103, 104 };
	unsigned	 i, k, ok = 1, ticks_ok = 1;

	vfs_line(a, sizeof a, 0, 101);
	vfs_line(a, sizeof a, 300, 102);
	vfs_line(a, sizeof a, 200, 103);	/* back in time */
	vfs_line(a, sizeof a, 2500, 104);
	bio_line(b, sizeof b, 100, "sda", 201);
	bio_line(b, sizeof b, 250, "sda", 202);
	bio_line(b, sizeof b, 3000, "sda", 203);
	/* c starts half a second before the others. */
	snprintf(c, sizeof c, "%llu 10 app R 301 4096 4096 f.dat\n",
	    (unsigned long long)(BASE - 500 * MS));
	paths[0] = write_text("a.log", a);
	paths[1] = write_text("b.log", b);
	paths[2] = write_text("c.log", c);

	m = merge_open(paths, 3, 1, &err);
	CHECK("order: three logs open", m != NULL);
	if (m == NULL) {
		printf("# %s\n", err);
		free(err);
		return;
	}
	merge_set_tick(m, S);
	CHECK("order: read", read_run(m, &q) == 0);
	CHECK("order: 8 records and 5 ticks (the files' own ticks dropped)",
	    q.n == nitems(want_tag));
	for (i = 0, k = 0; i < q.n && i < nitems(want_tag); i++) {
		if (q.tag[i] != want_tag[i]) {
			printf("# at %u: tag %u, want %u\n", i, q.tag[i], want_tag[i]);
			ok = 0;
		}
		if (q.tag[i] == 0 && (k >= nitems(want_tick) ||
		    q.ts[i] != want_tick[k++] * S))
			ticks_ok = 0;
	}
	CHECK("order: by the heads' times, a file's own order kept (its 100 ms "
	    "step back included)", ok);
	CHECK("order: ticks at 100..103 s from the earliest start, 104 s after the last",
	    ticks_ok && k == nitems(want_tick));
	CHECK("order: no file has a clock, neither has the run",
	    !merge_header(m)->has_clock && merge_header(m)->clock_offset == 0);
	CHECK("order: the run starts at the earliest file's start (99 s)",
	    merge_header(m)->created == 99 * S);
	merge_close(m, 0, 0);

	/* Ticks of half a second (-d 0.5). */
	m = merge_open(paths, 2, 1, &err);
	merge_set_tick(m, S / 2);
	read_run(m, &q);
	for (i = 0, k = 0; i < q.n; i++)
		k += q.tag[i] == 0;
	/* 100.5 101 101.5 102 102.5 (a4 at 102.5 goes after it) 103 (b3) 103.5 */
	CHECK("order: half-second ticks from 100 s to 103.5 s (7)", k == 7);
	merge_close(m, 0, 0);

	/* One file: exactly what it holds, its own ticks included. */
	{
		struct replay_file	*f;
		uint64_t		 buf1[CAPTURE_REC_MAX / 8 + 1];
		uint64_t		 buf2[CAPTURE_REC_MAX / 8 + 1];
		size_t			 l1, l2;
		int			 r1, r2, same = 1;

		m = merge_open(paths, 1, 1, &err);
		f = replay_file_open(paths[0], 1, &err);
		do {
			r1 = merge_next(m, buf1, sizeof buf1, &l1);
			r2 = replay_file_next(f, buf2, sizeof buf2, &l2);
			if (r1 != r2 || (r1 == 1 && (l1 != l2 ||
			    memcmp(buf1, buf2, l1) != 0)))
				same = 0;
		} while (r1 == 1 && r2 == 1);
		CHECK("one file: the records and ticks of the file itself", same);
		CHECK("one file: its own header",
		    merge_header(m) == replay_file_header(f) ||
		    merge_header(m)->created == replay_file_header(f)->created);
		merge_close(m, 0, 0);
		{
			uint64_t s = 0, t = 0;

			replay_file_close(f, &s, &t);
		}
	}
}

/* An EV_OPEN of path by tgid into buf; its length. */
static size_t
make_open(void *buf, uint32_t tgid, const char *path, int32_t ret, uint64_t ts)
{
	struct ev_open	*e = buf;
	size_t		 n = strlen(path);

	memset(e, 0, EV_OPEN_SIZE(n));
	e->type = EV_OPEN;
	e->ts = ts;
	e->tgid = e->pid = tgid;
	e->ret = ret;
	e->path_flags = VFS_PF_AS_PASSED;
	e->path_len = (uint16_t)n;
	snprintf(e->comm, sizeof e->comm, "app");
	memcpy(e->path, path, n + 1);
	return (EV_OPEN_SIZE(n));
}

/* An EV_RW of a name by tgid (VFS_PF_BASENAME if base) into buf; its length. */
static size_t
make_rw(void *buf, uint32_t tgid, const char *name, int base, uint64_t ts)
{
	struct ev_rw	*e = buf;
	size_t		 n = strlen(name);

	memset(e, 0, EV_RW_SIZE(n));
	e->type = EV_RW;
	e->ts = ts;
	e->tgid = e->pid = tgid;
	e->op = BLK_OP_READ;
	e->asked = e->done = 4096;
	e->lat_ns = 777;
	e->pos = -1;
	e->fd = -1;
	e->path_flags = base ? VFS_PF_BASENAME : 0;
	e->path_len = (uint16_t)n;
	snprintf(e->comm, sizeof e->comm, "app");
	memcpy(e->path, name, n + 1);
	return (EV_RW_SIZE(n));
}

/* Join a read of name by tgid; the path it got, or NULL if none. */
static const char *
join(struct merge_names *t, uint32_t tgid, const char *name, int base)
{
	static uint64_t	 out[CAPTURE_REC_MAX / 8 + 1];
	uint64_t	 in[CAPTURE_REC_MAX / 8 + 1];
	struct ev_rw	*o = (struct ev_rw *)out;
	size_t		 len, olen;

	len = make_rw(in, tgid, name, base, 1);
	if (merge_names_join(t, in, len, out, sizeof out, &olen) != 1)
		return (NULL);
	if (olen != EV_RW_SIZE(o->path_len) || (o->path_flags & VFS_PF_BASENAME) ||
	    o->lat_ns != 777 || o->done != 4096 || o->tgid != tgid ||
	    strlen(o->path) != o->path_len)
		return ("(record broken)");
	return (o->path);
}

/* A path of 3000 to 3089 bytes, /NNNNNNNNNN/ then a letter's run, then /longI. */
/* Join an EV_FOP (op, fd, name with VFS_PF_BASENAME, or none) by tgid; its path, or NULL. */
static const char *
join_fop(struct merge_names *t, uint32_t tgid, uint16_t op, int32_t fd, const char *name)
{
	static uint64_t	 out[CAPTURE_REC_MAX / 8 + 1];
	uint64_t	 in[CAPTURE_REC_MAX / 8 + 1];
	struct ev_fop	*e = (struct ev_fop *)in, *o = (struct ev_fop *)out;
	size_t		 n = strlen(name), olen;

	memset(e, 0, EV_FOP_SIZE(n, 0));
	e->type = EV_FOP;
	e->tgid = e->pid = tgid;
	e->op = op;
	e->fd = fd;
	e->lat_ns = 555;
	e->path_flags = n > 0 ? VFS_PF_BASENAME : VFS_PF_NOPATH;
	e->path_len = (uint16_t)n;
	memcpy(e->path, name, n);
	if (merge_names_join(t, in, EV_FOP_SIZE(n, 0), out, sizeof out, &olen) != 1)
		return (NULL);
	if (olen != EV_FOP_SIZE(o->path_len, 0) || (o->path_flags & (VFS_PF_BASENAME |
	    VFS_PF_NOPATH)) || o->lat_ns != 555 || o->fd != fd || o->op != op ||
	    strlen(o->path) != o->path_len || o->path[o->path_len + 1] != '\0')
		return ("(record broken)");
	return (o->path);
}

/* Closes and mmaps by fd, mmaps and munmaps by basename; a close ends its fd's name. */
static void
test_join_fop(void)
{
	struct merge_names	*t = merge_names_create();
	uint64_t		 rec[CAPTURE_REC_MAX / 8 + 1];
	const char		*p;

	merge_names_open(t, rec, make_open(rec, 7, "lc/a/file0.dat", 3, 1));
	merge_names_open(t, rec, make_open(rec, 7, "lc/b/file1.dat", 4, 2));
	merge_names_open(t, rec, make_open(rec, 8, "other/x", 3, 3));
	p = join_fop(t, 7, FOP_MMAP, 4, "");
	CHECK("join fop: an mmap of fd 4 takes the path of the open that returned it",
	    p != NULL && strcmp(p, "lc/b/file1.dat") == 0);
	p = join_fop(t, 7, FOP_MUNMAP, -1, "file0.dat");
	CHECK("join fop: a munmap named file0.dat takes its process's open of it",
	    p != NULL && strcmp(p, "lc/a/file0.dat") == 0);
	p = join_fop(t, 8, FOP_CLOSE, 3, "");
	CHECK("join fop: a close of fd 3 takes its own process's open (not another's fd 3)",
	    p != NULL && strcmp(p, "other/x") == 0);
	CHECK("join fop: the fd's name ends with its close", join_fop(t, 8, FOP_CLOSE, 3, "") == NULL);
	merge_names_open(t, rec, make_open(rec, 8, "other/y", 3, 4));
	p = join_fop(t, 8, FOP_CLOSE, 3, "");
	CHECK("join fop: the fd number reused by a later open names that file",
	    p != NULL && strcmp(p, "other/y") == 0);
	CHECK("join fop: an unlink is not joined", join_fop(t, 7, FOP_UNLINK, -1, "file0.dat") == NULL);
	CHECK("join fop: a close of an fd never opened in the logs is left as it is",
	    join_fop(t, 7, FOP_CLOSE, 9, "") == NULL);
	merge_names_free(t);
}

static void
long_path(char *buf, unsigned i)
{
	char	 name[32];
	size_t	 n = 3000 + i % 90, k;

	k = (size_t)snprintf(name, sizeof name, "/long%u", i);
	memset(buf, 'a' + i % 26, n);
	buf[n] = '\0';
	snprintf(buf, 12, "/%010u", i);
	buf[11] = '/';
	memcpy(buf + n - k, name, k);
}

/* The basename join on hand-made records: who, which open, what is forgotten. */
static void
test_join(void)
{
	struct merge_names	*t = merge_names_create();
	uint64_t		 rec[CAPTURE_REC_MAX / 8 + 1];
	const char		*p;
	char			 name[64];
	unsigned		 i, ok;
	size_t			 len;

	CHECK("join: nothing opened, nothing joined", join(t, 7, "a.npy", 1) == NULL);
	len = make_open(rec, 7, "/data/x/a.npy", 3, 1);
	merge_names_open(t, rec, len);
	p = join(t, 7, "a.npy", 1);
	CHECK("join: a basename read gets the full path its process opened",
	    p != NULL && strcmp(p, "/data/x/a.npy") == 0);
	CHECK("join: another process's read of that basename is not joined",
	    join(t, 8, "a.npy", 1) == NULL);
	CHECK("join: a read with a whole path (no VFS_PF_BASENAME) is left alone",
	    join(t, 7, "a.npy", 0) == NULL);
	CHECK("join: another basename is not joined", join(t, 7, "b.npy", 1) == NULL);
	len = make_open(rec, 7, "/other/a.npy", 4, 2);
	merge_names_open(t, rec, len);
	p = join(t, 7, "a.npy", 1);
	CHECK("join: the latest open of that basename wins",
	    p != NULL && strcmp(p, "/other/a.npy") == 0);
	len = make_open(rec, 7, "/fail/c.npy", -2, 3);
	merge_names_open(t, rec, len);
	CHECK("join: a failed open is not remembered", join(t, 7, "c.npy", 1) == NULL);
	len = make_open(rec, 7, "rel.txt", 5, 4);
	merge_names_open(t, rec, len);
	p = join(t, 7, "rel.txt", 1);
	CHECK("join: a relative open without a slash joins as itself",
	    p != NULL && strcmp(p, "rel.txt") == 0);
	CHECK("join: 3 joins counted", merge_names_joined(t) == 3);

	/* Bounded: the oldest opens give way. */
	len = make_open(rec, 9, "/old/z", 3, 5);
	merge_names_open(t, rec, len);
	for (i = 0; i < MERGE_NAMES_MAX; i++) {
		snprintf(name, sizeof name, "/many/f%u", i);
		len = make_open(rec, 10, name, 3, 6);
		merge_names_open(t, rec, len);
	}
	CHECK("join: after MERGE_NAMES_MAX more opens, the oldest is forgotten",
	    join(t, 9, "z", 1) == NULL);
	for (i = 0, ok = 1; i < MERGE_NAMES_MAX; i += 97) {
		snprintf(name, sizeof name, "f%u", i);
		p = join(t, 10, name, 1);
		if (p == NULL || strncmp(p, "/many/", 6) != 0 || strcmp(p + 6, name) != 0)
			ok = 0;
	}
	CHECK("join: the newest MERGE_NAMES_MAX are all found", ok);
	/* Three rounds over the table: chains stay whole as slots are reused. */
	for (i = 0; i < 3 * MERGE_NAMES_MAX; i++) {
		snprintf(name, sizeof name, "/round%u/g%u", i / 100, i % 100);
		len = make_open(rec, 11, name, 3, 7);
		merge_names_open(t, rec, len);
	}
	for (i = 0, ok = 1; i < 100; i++) {
		snprintf(name, sizeof name, "g%u", i);
		p = join(t, 11, name, 1);
		snprintf(name, sizeof name, "/round%u/g%u", (3 * MERGE_NAMES_MAX - 1) / 100 -
		    (i > (3 * MERGE_NAMES_MAX - 1) % 100), i);
		if (p == NULL || strcmp(p, name) != 0)
			ok = 0;
	}
	CHECK("join: after slots are reused, each basename finds its latest open", ok);

	/*
	 * Long paths: 1 MiB of them holds about 300 of 3 KiB; five rounds
	 * round the pool, each path found whole until its bytes are taken.
	 */
	{
		static char	 big[VFS_PATH_MAX];
		unsigned	 found = 0, gone = 0, whole = 1;

		for (i = 0; i < 1500; i++) {
			long_path(big, i);
			len = make_open(rec, 12, big, 3, 8);
			merge_names_open(t, rec, len);
		}
		for (i = 0; i < 1500; i++) {
			snprintf(name, sizeof name, "long%u", i);
			p = join(t, 12, name, 1);
			if (p == NULL) {
				gone++;
				continue;
			}
			found++;
			long_path(big, i);
			if (strcmp(p, big) != 0)
				whole = 0;
		}
		printf("# long paths: %u found, %u gone\n", found, gone);
		CHECK("join: 3 KiB paths round the 1 MiB pool: the newest ~340 found, "
		    "the rest gone", found > 300 && found < 360 && found + gone == 1500);
		CHECK("join: every path found is whole (none overwritten)", whole);
		CHECK("join: the newest long path is found",
		    join(t, 12, "long1499", 1) != NULL);
		CHECK("join: the oldest long path is gone", join(t, 12, "long0", 1) == NULL);
		CHECK("join: the short opens before them gave way to the pool",
		    join(t, 11, "g0", 1) == NULL);
	}
	merge_names_free(t);
}

/* The -c the next captures record (NULL: no process filter). */
static const char *write_comm;

/* Write a capture starting at start with a device table and a clock; its path. */
static const char *
write_capture(const char *name, uint64_t start, int64_t clock,
    const struct capture_dev *devs, unsigned ndevs, void **recs, size_t *lens,
    unsigned n)
{
	const char		*path = test_path(name);
	struct capture_header	 hdr;
	struct capture		*w;
	char			*err = NULL;
	unsigned		 i;

	fixture_capture_header(&hdr, "tp_btf:io_start+tracepoint", devs, ndevs, S,
	    start, clock);
	if (write_comm != NULL) {
		hdr.nfilter_comms = 1;
		snprintf(hdr.filter_comms[0], BLKTOP_COMM_LEN, "%s", write_comm);
	}
	if ((w = capture_create(path, &hdr, &err)) == NULL) {
		printf("FAIL: %s\n", err);
		exit(1);
	}
	for (i = 0; i < n; i++)
		capture_add(w, recs[i], lens[i]);
	if (capture_close(w) != 0) {
		printf("FAIL: close %s\n", path);
		exit(1);
	}
	return (path);
}

/* An EV_BLOCK on dev at ts, its latency as a tag, into buf; its length. */
static size_t
make_block(void *buf, uint32_t dev, uint64_t ts, unsigned tag)
{
	struct ev_block	*e = buf;

	memset(e, 0, sizeof *e);
	e->type = EV_BLOCK;
	e->dev = dev;
	e->ts_start = e->ts_issue = ts - tag;
	e->ts_done = ts;
	e->bytes = 4096;
	e->tgid = e->pid = 20;
	snprintf(e->comm, sizeof e->comm, "app");
	return (sizeof *e);
}

/*
 * Two captures and a log: the open in one, the basename read in the other;
 * a name two files share is one device, a number two names share is split;
 * the first known clock is the run's, and the log without one takes it.
 */
static void
test_files(void)
{
	static const struct capture_dev devs1[] = { { DEV_MKDEV(7, 6), "loop6" } };
	static const struct capture_dev devs2[] = {
		{ DEV_MKDEV(7, 6), "sdz" }, { DEV_MKDEV(8, 0), "loop6" }
	};
	uint64_t		 r1[2][CAPTURE_REC_MAX / 8 + 1], r2[3][CAPTURE_REC_MAX / 8 + 1];
	uint64_t		 buf[CAPTURE_REC_MAX / 8 + 1];
	void			*p1[2] = { r1[0], r1[1] }, *p2[3] = { r2[0], r2[1], r2[2] };
	size_t			 l1[2], l2[3], len;
	const char		*paths[3];
	const struct capture_header *hdr;
	struct merge		*m;
	char			*err = NULL, log[256] = "";
	uint32_t		 sdz = 0, type;
	unsigned		 i, joined = 0, loop6 = 0, onsdz = 0, other = 0;
	int64_t			 clock1 = 1600000000LL * (int64_t)S;

	l1[0] = make_open(r1[0], 7, "/data/x/a.npy", 3, BASE + 100 * MS);
	l1[1] = make_block(r1[1], DEV_MKDEV(7, 6), BASE + 150 * MS, 11);
	l2[0] = make_rw(r2[0], 7, "a.npy", 1, BASE + 200 * MS);
	l2[1] = make_block(r2[1], DEV_MKDEV(7, 6), BASE + 250 * MS, 22);
	l2[2] = make_block(r2[2], DEV_MKDEV(8, 0), BASE + 300 * MS, 33);
	paths[0] = write_capture("one.blkcap", BASE, clock1, devs1, 1, p1, l1, 2);
	/* Five seconds off: the first clock is kept. */
	paths[1] = write_capture("two.blkcap", BASE, clock1 + 5 * (int64_t)S, devs2, 2,
	    p2, l2, 3);
	bio_line(log, sizeof log, 400, "loop6", 44);
	paths[2] = write_text("noclock.log", log);

	m = merge_open(paths, 3, 1, &err);
	CHECK("files: two captures and a log open", m != NULL);
	if (m == NULL) {
		printf("# %s\n", err);
		free(err);
		return;
	}
	hdr = merge_header(m);
	CHECK("files: each capture knows its clock, the log not",
	    merge_file_header(m, 0)->has_clock && merge_file_header(m, 1)->has_clock &&
	    !merge_file_header(m, 2)->has_clock);
	CHECK("files: the run's clock is the first capture's (the other is 5 s off)",
	    hdr->has_clock && hdr->clock_offset == clock1);
	for (i = 0; i < hdr->ndevs; i++) {
		if (strcmp(hdr->devs[i].name, "sdz") == 0)
			sdz = hdr->devs[i].dev;
	}
	CHECK("files: 2 devices, loop6 once (as 7:6), sdz renumbered off 7:6",
	    hdr->ndevs == 2 && strcmp(hdr->devs[0].name, "loop6") == 0 &&
	    hdr->devs[0].dev == DEV_MKDEV(7, 6) && DEV_MAJOR(sdz) == MERGE_MAJOR);
	merge_set_tick(m, S);
	while (merge_next(m, buf, sizeof buf, &len) == 1) {
		memcpy(&type, buf, sizeof type);
		if (type == EV_RW) {
			const struct ev_rw *e = (const void *)buf;

			joined = strcmp(e->path, "/data/x/a.npy") == 0 &&
			    !(e->path_flags & VFS_PF_BASENAME);
		} else if (type == EV_BLOCK) {
			const struct ev_block *e = (const void *)buf;
			unsigned tag = (unsigned)(e->ts_done - e->ts_issue);

			if (e->dev == DEV_MKDEV(7, 6) && (tag == 11 || tag == 33 ||
			    tag == 44))
				loop6++;
			else if (e->dev == sdz && tag == 22)
				onsdz++;
			else
				other++;
		}
	}
	CHECK("files: the basename read of the second capture has the first's open path",
	    joined);
	CHECK("files: loop6's requests of all three files on 7:6 (log: 4095:x before)",
	    loop6 == 3);
	CHECK("files: sdz's request on its new number", onsdz == 1 && other == 0);
	CHECK("files: a log among them: no process filter for the run",
	    !hdr->has_procs && merge_file_header(m, 0)->has_procs);
	merge_close(m, 0, 0);

	/* The process filter: the run's only if every file recorded the same. */
	{
		const char	*pp[2];

		write_comm = "lifecycle";
		pp[0] = write_capture("c1.blkcap", BASE, clock1, devs1, 1, p1, l1, 2);
		pp[1] = write_capture("c2.blkcap", BASE, clock1, devs1, 1, p1, l1, 2);
		write_comm = NULL;
		m = merge_open(pp, 2, 1, &err);
		CHECK("files: two captures of -c lifecycle: the run's filter",
		    m != NULL && merge_header(m)->has_procs &&
		    merge_header(m)->nfilter_comms == 1 &&
		    strcmp(merge_header(m)->filter_comms[0], "lifecycle") == 0);
		merge_close(m, 0, 0);
		pp[1] = test_path("one.blkcap");
		m = merge_open(pp, 2, 1, &err);
		CHECK("files: -c lifecycle and none: no filter for the run",
		    m != NULL && !merge_header(m)->has_procs &&
		    merge_header(m)->nfilter_comms == 0);
		merge_close(m, 0, 0);
	}

	/* The log alone has no clock; first in the list, it still gets the capture's. */
	paths[0] = test_path("noclock.log");
	paths[1] = test_path("one.blkcap");
	m = merge_open(paths, 2, 1, &err);
	CHECK("files: a log without a clock takes the capture's, whatever the order",
	    m != NULL && merge_header(m)->clock_offset == clock1);
	merge_close(m, 0, 0);

	/*
	 * Times near 2^64: two captures starting 0.8 s into the last whole
	 * second of the clock: the tick a second after their start does not fit
	 * in 64 bits. The run ends, its records all there, no tick wrapped.
	 */
	{
		uint64_t	 h1[CAPTURE_REC_MAX / 8 + 1], h2[CAPTURE_REC_MAX / 8 + 1];
		void		*ph1[1] = { h1 }, *ph2[1] = { h2 };
		size_t		 lh1[1], lh2[1];
		struct seq	 q;
		unsigned	 recs = 0, wrapped = 0;
		uint64_t	 x = 18446744072800000000ULL;

		lh1[0] = make_block(h1, DEV_MKDEV(7, 6), x + MS, 55);
		lh2[0] = make_block(h2, DEV_MKDEV(7, 6), x + 900 * MS, 66);
		paths[0] = write_capture("high1.blkcap", x, 0, devs1, 1, ph1, lh1, 1);
		paths[1] = write_capture("high2.blkcap", x, 0, devs1, 1, ph2, lh2, 1);
		m = merge_open(paths, 2, 1, &err);
		CHECK("2^64: two captures near it open", m != NULL);
		if (m != NULL) {
			merge_set_tick(m, S);
			CHECK("2^64: the run ends", read_run(m, &q) == 0);
			for (i = 0; i < q.n; i++) {
				recs += q.tag[i] != 0;
				wrapped += q.tag[i] == 0 && q.ts[i] < x;
			}
			CHECK("2^64: both records, no tick wrapped past 0 (no tick fits)",
			    recs == 2 && wrapped == 0);
			merge_close(m, 0, 0);
		}
	}

	/* A file that does not open fails the run, named. */
	paths[1] = test_path("missing.blkcap");
	err = NULL;
	m = merge_open(paths, 2, 1, &err);
	CHECK("files: a missing file fails the run with its name",
	    m == NULL && err != NULL && strstr(err, "missing.blkcap: ") != NULL &&
	    strchr(err, '\n') == NULL);
	free(err);
	err = NULL;
	m = merge_open(paths, MERGE_MAX_FILES + 1, 1, &err);
	CHECK("files: more than MERGE_MAX_FILES refused", m == NULL && err != NULL);
	free(err);
}

int
main(void)
{
	if (mkdtemp(dir) == NULL)
		return (1);
	test_order();
	test_join();
	test_join_fop();
	test_files();
	{
		char	 cmd[64];

		snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
		if (system(cmd) != 0)
			printf("# could not remove %s\n", dir);
	}
	CHECK_EXIT();
}
