/*
 * test-capture-damage.c: unit tests of the capture format, one per class of
 * damage, and of writing one safely (refusals, a full disk, the flight
 * recorder).
 */

#include "capture-test.h"

/* A file cut at every offset replays every whole chunk and never crashes. */
static void
test_truncation(void)
{
	struct capture_stats	 st = { 0 };
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
	if (test_setup() != 0)
		return (1);
	test_truncation();
	test_flips();
	test_refusals();
	test_create();
	test_enospc();
	test_flight();
	return (test_teardown());
}
