/* test-import.c: import.c on the fixtures of every format and on bad logs: times near 2^64, lines with NULs or over the cap, garbage. */

#include <sys/time.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "blktop.h"
#include "check.h"

#define HDR	"TIMESTAMP TIME PID COMM DONEPID DONECOMM DISK T SECTOR BYTES LAT(ns)\n"
#define REST	" 1 python 0 kworker sdb 0 8 4096 50000"

static char	 path[] = "/tmp/test-import-XXXXXX";

/* Write len bytes of text as the log. */
static void
write_log(const char *text, size_t len)
{
	FILE	*f;

	if ((f = fopen(path, "w")) == NULL || fwrite(text, 1, len, f) != len ||
	    fclose(f) != 0) {
		printf("FAIL: write %s\n", path);
		exit(1);
	}
}

/*
 * Import the log: the records and ticks import_next gives, at most max
 * (the rest counted as overflow); -1 if import_open refused it (*errp).
 */
static int
import_all(unsigned *blocks, unsigned *ticks, uint64_t *last_tick, int *ordered,
    char **errp)
{
	struct import	*im;
	uint64_t	 buf[1024];
	struct ev_tick	*t = (struct ev_tick *)buf;
	size_t		 len;
	unsigned	 n = 0;

	*blocks = *ticks = 0;
	*last_tick = 0;
	*ordered = 1;
	if ((im = import_open(path, errp)) == NULL)
		return (-1);
	while (n++ < 1000 && import_next(im, buf, sizeof buf, &len) == 1) {
		if (t->type == EV_TICK) {
			if (*ticks > 0 && t->ts <= *last_tick)
				*ordered = 0;
			*last_tick = t->ts;
			(*ticks)++;
		} else
			(*blocks)++;
	}
	import_close(im);
	return (n > 1000 ? -2 : 0);
}


/* What a log imported into: its records (the first GOT_MAX), ticks, counts and clock. */
#define GOT_MAX		32
union got_rec {
	struct ev_open		 open;
	struct ev_fop		 fop;
	struct ev_rw		 rw;
	struct ev_lost		 lost;
	uint64_t		 raw[(sizeof(struct ev_fop) + 256) / 8];
};
struct got {
	unsigned		 n;		/* records, ticks left out */
	unsigned		 ticks;
	union got_rec		 rec[GOT_MAX];
	size_t			 len[GOT_MAX];
	struct import_counts	 counts;
	int64_t			 clock_offset;
	int			 has_clock;
};

/* Copy a fixture to path, its mtime set to mtime (0: now). */
static void
copy_fixture(const char *name, time_t mtime)
{
	char		 src[512], buf[65536];
	FILE		*f;
	size_t		 n;
	struct timeval	 tv[2];

	snprintf(src, sizeof src, "%s/%s", TEST_FIXTURES, name);
	if ((f = fopen(src, "r")) == NULL) {
		printf("FAIL: open %s\n", src);
		exit(1);
	}
	n = fread(buf, 1, sizeof buf, f);
	fclose(f);
	write_log(buf, n);
	if (mtime != 0) {
		tv[0].tv_sec = tv[1].tv_sec = mtime;
		tv[0].tv_usec = tv[1].tv_usec = 0;
		utimes(path, tv);
	}
}

/* Import the log at path into g; -1 if import_open refused it (*errp). */
static int
import_got(struct got *g, char **errp)
{
	struct import	*im;
	uint64_t	 buf[1024];
	size_t		 len;
	unsigned	 guard = 0;
	uint32_t	 type;

	memset(g, 0, sizeof *g);
	if ((im = import_open(path, errp)) == NULL)
		return (-1);
	g->counts = *import_counts(im);
	g->clock_offset = import_header(im)->clock_offset;
	g->has_clock = import_header(im)->has_clock;
	while (guard++ < 10000 && import_next(im, buf, sizeof buf, &len) == 1) {
		memcpy(&type, buf, sizeof type);
		if (type == EV_TICK)
			g->ticks++;
		else if (g->n < GOT_MAX) {
			memcpy(&g->rec[g->n], buf, len < sizeof g->rec[0] ? len :
			    sizeof g->rec[0]);
			g->len[g->n++] = len;
		} else
			g->n++;
	}
	import_close(im);
	return (0);
}

/* Record i of g as an open, a fop, a lost record. */
#define OPEN(g, i)	(&(g)->rec[i].open)
#define FOP(g, i)	(&(g)->rec[i].fop)
#define LOST(g, i)	(&(g)->rec[i].lost)

/* Whether record i is an EV_FOP of op with this path, flags and length. */
static int
is_fop(const struct got *g, unsigned i, uint16_t op, const char *p, uint16_t pf)
{
	const struct ev_fop *e = FOP(g, i);

	return (i < g->n && e->type == EV_FOP && e->op == op &&
	    strcmp(e->path, p) == 0 && e->path_len == strlen(p) &&
	    e->path_flags == pf && e->path2_len == 0 &&
	    g->len[i] == EV_FOP_SIZE(strlen(p), 0));
}

/* The openat fixture: opens, failed ones, blanks in names, bpftrace's lines. */
static void
test_openat(void)
{
	struct got	 g;
	char		*err = NULL, *log;
	unsigned	 i, ok = 0, failed = 0;

	copy_fixture("import-openat.txt", 0);
	CHECK("openat: imported", import_got(&g, &err) == 0);
	/* 7 opens and the EV_LOST of "Lost 3 events", after the open before it. */
	CHECK("openat: 8 records, 2 ticks", g.n == 8 && g.ticks == 2);
	for (i = 0; i < g.n && i < GOT_MAX; i++) {
		if (OPEN(&g, i)->type != EV_OPEN)
			continue;
		if (OPEN(&g, i)->ret >= 0)
			ok++;
		else
			failed++;
	}
	CHECK("openat: 4 opens, 3 failed", ok == 4 && failed == 3);
	CHECK("openat: counts: 7 imported, 1 malformed (line 9), 5 skipped, 1 note, 3 lost",
	    g.counts.records == 7 && g.counts.malformed == 1 &&
	    g.counts.first_malformed == 9 && g.counts.skipped == 5 &&
	    g.counts.notes == 1 && g.counts.lost == 3);
	CHECK("openat: the first: fd 3, the path as passed, openat, no comm",
	    OPEN(&g, 0)->type == EV_OPEN && OPEN(&g, 0)->ret == 3 &&
	    strcmp(OPEN(&g, 0)->path, "/data/train/data.npy") == 0 &&
	    OPEN(&g, 0)->path_flags == VFS_PF_AS_PASSED &&
	    OPEN(&g, 0)->sys == VFS_SYS_OPENAT && OPEN(&g, 0)->ftype == VFS_FT_OTHER &&
	    OPEN(&g, 0)->ts == 5000000000000ULL && OPEN(&g, 0)->lat_ns == 12000 &&
	    OPEN(&g, 0)->pid == 4242 && OPEN(&g, 0)->tgid == 4242 &&
	    OPEN(&g, 0)->comm[0] == '\0' && OPEN(&g, 0)->ino == 0 &&
	    g.len[0] == EV_OPEN_SIZE(strlen("/data/train/data.npy")));
	CHECK("openat: fd -2: failed, ENOENT, no file, no basename printed",
	    OPEN(&g, 1)->ret == -2 && OPEN(&g, 1)->ftype == VFS_FT_NONE &&
	    strcmp(OPEN(&g, 1)->path, "/data/missing.npy") == 0);
	CHECK("openat: a name and a path with blanks: cut where the path ends in the name",
	    strcmp(OPEN(&g, 2)->path, "/home/u/my file.txt") == 0);
	CHECK("openat: a failed path with blanks, no name: whole",
	    OPEN(&g, 3)->ret == -2 && strcmp(OPEN(&g, 3)->path, "/tmp/no such dir/x") == 0);
	CHECK("openat: a latency past 2^31 printed negative by %d: 3000000000",
	    OPEN(&g, 4)->lat_ns == 3000000000ULL && OPEN(&g, 4)->pid == 4243);
	CHECK("openat: a failed open with its name printed: EACCES, the path",
	    OPEN(&g, 5)->ret == -13 && strcmp(OPEN(&g, 5)->path, "/root/secret") == 0);
	CHECK("openat: Lost 3 events: EV_LOST of 3 at the last record's time",
	    LOST(&g, 6)->type == EV_LOST && LOST(&g, 6)->count == 3 &&
	    LOST(&g, 6)->ts == 5000500000000ULL);
	CHECK("openat: a relative path", strcmp(OPEN(&g, 7)->path, "../rel.txt") == 0 &&
	    OPEN(&g, 7)->ret == 6);
	CHECK("openat: no clock (no TIME column)", g.has_clock == 0);

	/* The script's header has no newline: the first record is stuck to it. */
	log = "Attaching 2 probes...\nTIMESTAMP PID FD LAT(ns) FILENAME FULLPATH"
	    "5000000000000 1 3 100 a /a\n5000000000001 1 4 100 b /b\n";
	write_log(log, strlen(log));
	CHECK("openat: a record stuck to the header: both imported",
	    import_got(&g, &err) == 0 && g.n == 2 && strcmp(OPEN(&g, 0)->path, "/a") == 0 &&
	    OPEN(&g, 0)->ret == 3 && g.counts.skipped == 1);
}

/* The mmap fixture: both blocks, interleaved, hex and decimal addresses. */
static void
test_mmap(void)
{
	struct got	 g;
	char		*err = NULL;

	copy_fixture("import-mmap.txt", 0);
	CHECK("mmap: imported", import_got(&g, &err) == 0);
	CHECK("mmap: 10 records (4 mmap, 6 munmap), 2 ticks", g.n == 10 && g.ticks == 2);
	CHECK("mmap: counts: 10, 1 malformed (line 15), 11 skipped (1 anonymous map)",
	    g.counts.records == 10 && g.counts.malformed == 1 &&
	    g.counts.first_malformed == 15 && g.counts.skipped == 11 &&
	    g.counts.notes == 1 && g.counts.lost == 0);
	CHECK("mmap: the anonymous map is skipped; a file's: fd 3, address, a basename",
	    is_fop(&g, 0, FOP_MMAP, "weights.bin", VFS_PF_BASENAME) &&
	    FOP(&g, 0)->fd == 3 && FOP(&g, 0)->addr == 0x7f0000002000ULL &&
	    FOP(&g, 0)->len == 0 && FOP(&g, 0)->sys == VFS_SYS_MMAP &&
	    FOP(&g, 0)->lat_ns == 2000 && FOP(&g, 0)->ts == 6000100000000ULL);
	CHECK("mmap: a path with a '/' and a blank: not a basename",
	    is_fop(&g, 1, FOP_MMAP, "/data/my map.dat", 0) && FOP(&g, 1)->fd == 4);
	CHECK("munmap: named after the mmap of its pid and address",
	    is_fop(&g, 2, FOP_MUNMAP, "weights.bin", VFS_PF_BASENAME) &&
	    FOP(&g, 2)->addr == 0x7f0000002000ULL && FOP(&g, 2)->len == 4096 &&
	    FOP(&g, 2)->fd == -1 && FOP(&g, 2)->sys == VFS_SYS_MUNMAP);
	CHECK("munmap: another pid's address: no path",
	    is_fop(&g, 3, FOP_MUNMAP, "", VFS_PF_NOPATH) && FOP(&g, 3)->pid == 501);
	CHECK("munmap: the same address in its own pid: named",
	    is_fop(&g, 4, FOP_MUNMAP, "/data/my map.dat", 0) && FOP(&g, 4)->len == 8192);
	CHECK("mmap: a failed call: -EACCES, no address",
	    is_fop(&g, 5, FOP_MMAP, "bad.bin", VFS_PF_BASENAME) &&
	    FOP(&g, 5)->error == -13 && FOP(&g, 5)->addr == 0);
	CHECK("munmap: of the anonymous map: no path",
	    is_fop(&g, 6, FOP_MUNMAP, "", VFS_PF_NOPATH) && FOP(&g, 6)->len == 8192);
	CHECK("munmap: a decimal address after a munmap(): marker",
	    is_fop(&g, 7, FOP_MUNMAP, "", VFS_PF_NOPATH) &&
	    FOP(&g, 7)->addr == 140000000000ULL);
	CHECK("mmap: a decimal address after a mmap(): marker",
	    is_fop(&g, 8, FOP_MMAP, "dec.bin", VFS_PF_BASENAME) &&
	    FOP(&g, 8)->addr == 140000004096ULL && FOP(&g, 8)->fd == 7);
	CHECK("munmap: a decimal address named after its mmap",
	    is_fop(&g, 9, FOP_MUNMAP, "dec.bin", VFS_PF_BASENAME));
}

/* The create/delete fixture. */
static void
test_createdel(void)
{
	struct got	 g;
	char		*err = NULL;

	copy_fixture("import-createdel.txt", 0);
	CHECK("createdel: imported", import_got(&g, &err) == 0);
	CHECK("createdel: 6 records, 1 tick", g.n == 6 && g.ticks == 1);
	CHECK("createdel: counts: 6, 1 malformed (line 9), 4 skipped, 1 note (ERROR)",
	    g.counts.records == 6 && g.counts.malformed == 1 &&
	    g.counts.first_malformed == 9 && g.counts.skipped == 4 &&
	    g.counts.notes == 1);
	CHECK("createdel: mkdir: mode 493 (decimal), the path as passed, no inode",
	    is_fop(&g, 0, FOP_MKDIR, "out", VFS_PF_AS_PASSED) &&
	    FOP(&g, 0)->mode == 0755 && FOP(&g, 0)->sys == VFS_SYS_MKDIR &&
	    FOP(&g, 0)->ftype == VFS_FT_NONE && FOP(&g, 0)->ino == 0 &&
	    FOP(&g, 0)->lat_ns == 10000 && FOP(&g, 0)->fd == -1);
	CHECK("createdel: mkdir: mode 0700 (a leading 0: octal), a path with a blank",
	    is_fop(&g, 1, FOP_MKDIR, "out/run 1", VFS_PF_AS_PASSED) &&
	    FOP(&g, 1)->mode == 0700);
	CHECK("createdel: unlink: the full path, blanks in the directory",
	    is_fop(&g, 2, FOP_UNLINK, "out/run 1/ckpt.pt", VFS_PF_AS_PASSED) &&
	    FOP(&g, 2)->sys == VFS_SYS_UNLINK);
	CHECK("createdel: unlink: blanks in the name and the path",
	    is_fop(&g, 3, FOP_UNLINK, "/tmp/a b.txt", VFS_PF_AS_PASSED));
	CHECK("createdel: rmdir",
	    is_fop(&g, 4, FOP_RMDIR, "out/run 1", VFS_PF_AS_PASSED) &&
	    FOP(&g, 4)->sys == VFS_SYS_RMDIR && FOP(&g, 4)->lat_ns == 14000);
	CHECK("createdel: with TIME and TID: pid is the thread, tgid the process",
	    is_fop(&g, 5, FOP_RMDIR, "out", VFS_PF_AS_PASSED) &&
	    FOP(&g, 5)->pid == 601 && FOP(&g, 5)->tgid == 600);

	/* Found from the first line naming a call, no header. */
	write_log("7000000000000 600 rmdir() 100 /x\n", 33);
	CHECK("createdel: found without a header", import_got(&g, &err) == 0 &&
	    is_fop(&g, 0, FOP_RMDIR, "/x", VFS_PF_AS_PASSED));
}

/* The close fixture. */
static void
test_close(void)
{
	struct got	 g;
	char		*err = NULL;

	copy_fixture("import-close.txt", 0);
	CHECK("close: imported", import_got(&g, &err) == 0);
	CHECK("close: 4 records, 1 tick", g.n == 4 && g.ticks == 1);
	CHECK("close: counts: 4, 2 malformed (the first line 5), 4 skipped",
	    g.counts.records == 4 && g.counts.malformed == 2 &&
	    g.counts.first_malformed == 5 && g.counts.skipped == 4);
	CHECK("close: fd 3, no path, no file type",
	    is_fop(&g, 0, FOP_CLOSE, "", VFS_PF_NOPATH) && FOP(&g, 0)->fd == 3 &&
	    FOP(&g, 0)->sys == VFS_SYS_CLOSE && FOP(&g, 0)->ftype == VFS_FT_NONE &&
	    FOP(&g, 0)->lat_ns == 7374 && FOP(&g, 0)->error == 0);
	CHECK("close: LAT -1: 2^32 - 1", FOP(&g, 2)->lat_ns == 4294967295ULL &&
	    FOP(&g, 2)->pid == 701);
	CHECK("close: a fifth column RET -9: EBADF", FOP(&g, 3)->fd == 6 &&
	    FOP(&g, 3)->error == -9);

	write_log("TIMESTAMP PID FD LAT(ns) FILENAME\n8000000000000 1 3 10 a.txt\n", 61);
	CHECK("close: a FILENAME column: the name, a basename",
	    import_got(&g, &err) == 0 && is_fop(&g, 0, FOP_CLOSE, "a.txt", VFS_PF_BASENAME) &&
	    FOP(&g, 0)->ftype == VFS_FT_OTHER);
}

/*
 * The time alignment fixture: whole seconds across midnight. Each line says
 * wall - TIMESTAMP lies in [its second's start - TIMESTAMP, + 1 s); counted
 * from the first line's midnight (23:59:58 = 86398 s, 00:00:00 the next day
 * = 86400 s), the tightest are 1000.0 s at 23:59:58 (>= 86398 - 1000 =
 * 85398 s) and 1001.95 s at 23:59:59 (< 86400 - 1001.95 = 85398.05 s): the
 * offset is their middle, 85398.025 s, within 0.025 s. With the file's mtime
 * at 2024-03-02 00:00:05 UTC the last line (00:00:01) is on 2024-03-02, the
 * first on 2024-03-01, whose midnight is 1709251200 s: 1709251200 + 85398.025
 * = 1709336598.025 s.
 */
static void
test_timealign(void)
{
	struct got	 g;
	char		*err = NULL, *log;

	copy_fixture("import-timealign.txt", 1709337605);
	CHECK("time align: imported", import_got(&g, &err) == 0);
	CHECK("time align: no records, no ticks", g.n == 0 && g.ticks == 0);
	CHECK("time align: counts: 9 lines, 1 malformed (line 12), 3 skipped",
	    g.counts.records == 9 && g.counts.malformed == 1 &&
	    g.counts.first_malformed == 12 && g.counts.skipped == 3);
	CHECK("time align: across midnight, dated from the mtime: 1709336598.025 s",
	    g.has_clock == 1 && g.clock_offset == 1709336598025000000LL);

	/* The mtime a day later: every line a day later. */
	copy_fixture("import-timealign.txt", 1709337605 + 86400);
	CHECK("time align: the mtime a day later: a day later",
	    import_got(&g, &err) == 0 &&
	    g.clock_offset == 1709336598025000000LL + 86400 * 1000000000LL);

	/*
	 * Dates and milliseconds: 10:00:00.250 at 2000 s and 10:00:00.750 at
	 * 2000.5 s on 2024-03-01 (1709287200 s) both say [1709285200.250,
	 * 1709285200.251): the middle, 1709285200.2505 s.
	 */
	log = "TIMESTAMP TIME\n2000000000000 2024-03-01T10:00:00.250\n"
	    "2000500000000 2024-03-01T10:00:00.750\n";
	write_log(log, strlen(log));
	CHECK("time align: dated lines with ms: 1709285200.2505 s",
	    import_got(&g, &err) == 0 && g.has_clock == 1 &&
	    g.clock_offset == 1709285200250500000LL);

	/* A date among times without one: malformed, not a day's jump. */
	log = "TIMESTAMP TIME\n2000000000000 10:00:00\n2000500000000 2024-03-01 10:00:01\n";
	write_log(log, strlen(log));
	CHECK("time align: a dated line among undated ones: malformed",
	    import_got(&g, &err) == 0 && g.counts.records == 1 &&
	    g.counts.malformed == 1 && g.counts.first_malformed == 3);

	/* The other formats: a clock only from a TIME with a date. */
	log = HDR "1000000000 2022-02-05T20:27:46.0" REST "\n";
	write_log(log, strlen(log));
	CHECK("biosnoop with dates: has_clock", import_got(&g, &err) == 0 &&
	    g.has_clock == 1);
	log = HDR "1000000000 20:27:46" REST "\n";
	write_log(log, strlen(log));
	CHECK("biosnoop without dates: no clock", import_got(&g, &err) == 0 &&
	    g.has_clock == 0 && g.clock_offset == 0);
}

/* The vfs_rw fixture: a dentry name is a basename, a path is not. */
static void
test_vfs_basename(void)
{
	struct got	 g;
	char		*err = NULL, *log;

	log = "TIMESTAMP PID COMM R/W LAT REQUESTED RETURNED FILE\n"
	    "1000000000 1 python R 10 4096 4096 case 1.npy\n"
	    "1000000001 1 python W 10 4096 4096 /tmp/x.log\n";
	write_log(log, strlen(log));
	CHECK("vfs_rw: imported", import_got(&g, &err) == 0 && g.n == 2);
	CHECK("vfs_rw: a name without '/' is a basename, as passed",
	    (&g.rec[0].rw)->path_flags == (VFS_PF_AS_PASSED | VFS_PF_BASENAME) &&
	    strcmp((&g.rec[0].rw)->path, "case 1.npy") == 0);
	CHECK("vfs_rw: a path is not",
	    (&g.rec[1].rw)->path_flags == VFS_PF_AS_PASSED);

	/* A file named like a create/delete call is still a vfs_rw log's. */
	log = "1000000000 1 python R 10 4096 4096 my unlink() file\n";
	write_log(log, strlen(log));
	CHECK("vfs_rw: a file named 'my unlink() file': a read, not create/delete",
	    import_got(&g, &err) == 0 && g.n == 1 && g.rec[0].rw.type == EV_RW &&
	    strcmp(g.rec[0].rw.path, "my unlink() file") == 0);
}

int
main(void)
{
	char		*err, *big;
	unsigned	 blocks, ticks;
	uint64_t	 last;
	int		 fd, ordered, r;
	size_t		 n;

	if ((fd = mkstemp(path)) == -1)
		return (1);
	close(fd);

	/* The tick after 2^64 - 1 s wrapped: import_next never ended. */
	big = HDR "18446744073709000000 2022-02-05T20:27:46.0" REST "\n"
	    "18446744073709500000 2022-02-05T20:27:46.5" REST "\n";
	write_log(big, strlen(big));
	err = NULL;
	r = import_all(&blocks, &ticks, &last, &ordered, &err);
	CHECK("ts near 2^64: refused", r == -1);
	CHECK("ts near 2^64: the error names line 2 and why", err != NULL &&
	    strstr(err, "the first line 2, timestamp 18446744073709000000 past") != NULL);
	free(err);

	big = HDR "18446744072999000000" REST "\n18446744072999999999" REST "\n";
	write_log(big, strlen(big));
	r = import_all(&blocks, &ticks, &last, &ordered, &err);
	CHECK("last representable ts: ends", r == 0);
	CHECK("last representable ts: 2 requests, 1 tick at 18446744073 s",
	    blocks == 2 && ticks == 1 && last == 18446744073000000000ULL);

	/* Ticks across a long silence stay in order. */
	big = HDR "1000000000" REST "\n18446744072000000001" REST "\n";
	write_log(big, strlen(big));
	r = import_all(&blocks, &ticks, &last, &ordered, &err);
	CHECK("a silence of 584 years: ends, ticks in order",
	    r == 0 && blocks == 2 && ordered && last == 18446744073000000000ULL);

	/* A NUL mid-line: the line is malformed whether opening or reading. */
	big = HDR "1000000000" REST "\n2000000000" REST "\0junk\n3000000000" REST "\n";
	write_log(big, strlen(HDR) + 3 * (10 + strlen(REST) + 1) + 5);
	r = import_all(&blocks, &ticks, &last, &ordered, &err);
	CHECK("NUL mid-line: the other 2 requests", r == 0 && blocks == 2);

	/* A NUL on line 1: the whole file was refused as binary. */
	big = "x\0y\n" HDR "1000000000" REST "\n";
	write_log(big, 4 + strlen(HDR) + 10 + strlen(REST) + 1);
	r = import_all(&blocks, &ticks, &last, &ordered, &err);
	CHECK("NUL on line 1: imported", r == 0 && blocks == 1);
	if (r == -1)
		free(err);

	/* A line over 8 KB was cut: what it had past 8191 bytes was lost. */
	n = 20000;
	big = xmalloc(n + 256);
	snprintf(big, n + 256, HDR "1000000000" REST "\n2000000000" REST);
	memset(big + strlen(big), ' ', 9000);
	snprintf(big + strlen(HDR) + 2 * (10 + strlen(REST)) + 1 + 9000, 256,
	    " garbage\n3000000000" REST "\n");
	write_log(big, strlen(big));
	r = import_all(&blocks, &ticks, &last, &ordered, &err);
	CHECK("9 KB line: parsed whole, malformed by its last field", r == 0 && blocks == 2);

	/* A line over the cap: skipped, the next imported, memory bounded. */
	memset(big, '7', n);
	memcpy(big + n, "\n1000000000" REST "\n", 12 + strlen(REST));
	write_log(big, n + 12 + strlen(REST));
	r = import_all(&blocks, &ticks, &last, &ordered, &err);
	CHECK("20 KB line: skipped, the next line imported", r == 0 && blocks == 1);
	if (r == -1)
		free(err);

	/* Over the cap before any valid line: the error names it. */
	memcpy(big + n, "\n", 2);
	write_log(big, n + 1);
	r = import_all(&blocks, &ticks, &last, &ordered, &err);
	CHECK("20 KB line alone: refused as line 1, too long", r == -1 && err != NULL &&
	    strstr(err, ":1: not a text log blktop can import: line longer than 16384 bytes (20000)") != NULL);
	if (r == -1)
		free(err);
	free(big);

	/* Year 0000: a signed overflow (UBSan) making the wall clock. */
	big = HDR "1000000000 0000-01-01T00:00:00.0" REST "\n";
	write_log(big, strlen(big));
	r = import_all(&blocks, &ticks, &last, &ordered, &err);
	CHECK("year 0000: refused, the date named", r == -1 && err != NULL &&
	    strstr(err, "TIME date not between 1970 and 2262") != NULL);
	if (r == -1)
		free(err);

	/* Dates come out in UTC whatever the machine's zone. */
	setenv("TZ", "UTC", 1);
	tzset();
	test_openat();
	test_mmap();
	test_createdel();
	test_close();
	test_timealign();
	test_vfs_basename();

	unlink(path);
	CHECK_EXIT();
}
