/*
 * test-proc-io.c: what the model's tables learn of each file's I/O: bytes
 * that reached the disk, access patterns (calls judged in time order, the
 * ring that holds them), maps, hints.
 */

#include "proc-test.h"

/* The calls a file's offset map holds, both directions; -1 without a map. */
static long long
map_calls(struct proc_table *t, const char *path)
{
	const struct file_entry	*f = find_file(t, path);
	const struct pat_map	*m = f != NULL ? model_file_map(t, f) : NULL;
	long long		 n = 0;
	unsigned		 d, c, k;

	if (m == NULL)
		return (-1);
	for (d = 0; d < 2; d++)
		for (c = 0; c < PAT_MAP_COLS; c++)
			for (k = 0; k < PAT_MAP_BANDS; k++)
				n += m->n[d][c][k];
	return (n);
}

/*
 * The offset maps' pool: 300 files read once each, a hot file read between
 * each two. The pool runs out at the 256th file; the clock hand then takes
 * maps back from the files not read since it last passed, never the hot one.
 */
/* Calls in reverse time order, as a hostile capture could have them: bounded work, counted late. */
static void
test_reverse(void)
{
	struct proc_table	*t = proc_create(0, 0, 0);
	struct proc_stats	 s;
	uint64_t		 base = now + 1000000;
	clock_t			 c0 = clock();
	unsigned		 i;

	for (i = 0; i < 60000; i++) {
		now = base - i;
		add_rw(t, 7, 7, "reader", "/data/rev", 0, 4096, 1);
	}
	now = base + 1;
	model_pattern_flush(t, UINT64_MAX);
	proc_stats(t, &s);
	/* The lane takes the first MODEL_LANE_MAX of those far behind, in their order; the ring 4096 places more. */
	CHECK("60000 calls in reverse time order: those past the lane and 4096 places judged late",
	    s.pattern_late >= 60000 - MODEL_LANE_MAX - MODEL_LANE_AFTER - 4097 - 1);
	/* 20 s: the whole of test-proc takes 3.3 s of CPU under ASan (issue 41). */
	CHECK("and in bounded time (under 20 s of CPU; unbounded, minutes)",
	    (double)(clock() - c0) / CLOCKS_PER_SEC < 20.0);
	proc_free(t);
}

/*
 * A CPU's batch of calls sent late (bpf/batch.h: a partial batch waits for
 * its age): a file read from 0 on, 10000 calls 1 us apart, of which the 32
 * from the 2000th come after the 9000th, 7000 places late, past the 4096
 * the ring's moves reach. They wait in its lane and are judged in their
 * turn: 9999 consecutive, none late (without the lane this fails: the 32
 * are judged after later calls).
 */
static void
test_straggler(void)
{
	struct proc_table	*t = proc_create(0, 0, 0);
	const struct file_entry	*f;
	struct proc_stats	 s;
	unsigned		 i, k;

	for (k = 0; k < 10000; k++) {
		union rec	r;
		size_t		len;

		/* 0..1999, 2032..9000, the 32 late ones, 9001..9999 */
		i = k < 2000 ? k : k < 8969 ? k + 32 : k < 9001 ? k - 6969 : k;
		now = 1000000 + (uint64_t)i * 1000;
		len = rw_rec(&r, 9, 9, "straggler", "/data/late", 0, 4096, 1);
		r.rw.pos = (int64_t)i * 4096;
		proc_add(t, &r, len);
	}
	model_pattern_flush(t, UINT64_MAX);
	proc_stats(t, &s);
	f = find_file(t, "/data/late");
	CHECK("32 calls 7000 places late: judged in time order (9999 consecutive), none late",
	    f != NULL && f->pat.side[PAT_READ].accesses == 10000 &&
	    f->pat.side[PAT_READ].consec == 9999 && s.pattern_late == 0 && s.pattern_early == 0);
	proc_free(t);
}

/* A read of 4096 bytes at off on path by tgid 9, its record's time ts. */
static void
add_read_at(struct proc_table *t, const char *path, uint64_t ts, int64_t off)
{
	union rec	r;
	size_t		len;

	now = ts;
	len = rw_rec(&r, 9, 9, "opener", path, 0, 4096, 1);
	r.rw.pos = off;
	proc_add(t, &r, len);
}

/*
 * Each open starts the file's pattern again from Darshan's origin (byte 1,
 * darshan-posix.c _POSIX_RECORD_OPEN), in time order with the calls: an
 * open whose record comes after a later call's is applied before that call.
 */
static void
test_open_pattern(void)
{
	struct proc_table	*t = proc_create(0, 0, 0);
	const struct file_entry	*f;

	now = 100;
	add_open(t, 9, "/data/opened", 3);	/* ts 100 */
	add_read_at(t, "/data/opened", 101, 0);	/* the open's first, at 0: neither (Darshan) */
	add_read_at(t, "/data/opened", 102, 4096);
	add_read_at(t, "/data/opened", 103, 8192);
	add_read_at(t, "/data/opened", 104, 12288);
	add_read_at(t, "/data/opened", 106, 2048);	/* after the second open: sequential from byte 1 */
	now = 105;
	add_open(t, 9, "/data/opened", 3);	/* ts 105, its record after the read at 106 */
	now = 200;
	model_pattern_flush(t, UINT64_MAX);
	f = find_file(t, "/data/opened");
	CHECK("opens: 3 consecutive after the first open's read at 0; the second open's read at 2048 "
	    "sequential (Darshan's 4), not a step back from 16384",
	    f != NULL && f->pat.side[PAT_READ].consec == 3 && f->pat.side[PAT_READ].seq == 4 &&
	    f->pat.side[PAT_READ].first == 2 && f->pat.side[PAT_READ].first_seq == 1);
	proc_free(t);
}

/*
 * The calls' ring starts at MODEL_PATTERN_FIRST entries and doubles when
 * full: grown while it had wrapped (its oldest call past the start), it must
 * keep them in time order. 3000 calls reading a file from 0 on, 4 KiB each,
 * the first 700 judged early so the ring wraps, then 2300 more waiting: all
 * but the first consecutive, none judged early or late.
 */
static void
test_ring_grow(void)
{
	struct proc_table	*t = proc_create(0, 0, 0);
	const struct file_entry	*f;
	struct proc_stats	 s;
	uint64_t		 t700 = 0;
	unsigned		 i;

	for (i = 0; i < 3000; i++) {
		union rec	r;
		size_t		len = rw_rec(&r, 9, 9, "grower", "/data/grow", 0, 4096, 1);

		r.rw.pos = (int64_t)i * 4096;
		proc_add(t, &r, len);
		if (i == 699)
			t700 = r.rw.ts;
		/* The 700 first judged once 1000 wait: the ring's head is past its start. */
		if (i == 999)
			model_pattern_flush(t, t700);
	}
	model_pattern_flush(t, UINT64_MAX);
	proc_stats(t, &s);
	f = find_file(t, "/data/grow");
	CHECK("ring grown while wrapped: 3000 calls in order, 2999 consecutive, none early or late",
	    f != NULL && f->pat.side[PAT_READ].accesses == 3000 &&
	    f->pat.side[PAT_READ].consec == 2999 && s.pattern_early == 0 && s.pattern_late == 0);
	proc_free(t);
}

static void
test_maps(void)
{
	struct proc_table	*t = proc_create(0, 0, 0);
	struct proc_stats	 s;
	char			 path[64];
	unsigned		 i, kept = 0;

	for (i = 0; i < 300; i++) {
		snprintf(path, sizeof(path), "/data/once-%03u", i);
		add_rw(t, 7, 7, "reader", path, 0, 4096, 100);
		add_rw(t, 7, 7, "reader", "/data/hot", i & 1, 4096, 100);
	}
	model_pattern_flush(t, UINT64_MAX);
	proc_stats(t, &s);
	for (i = 0; i < 300; i++) {
		snprintf(path, sizeof(path), "/data/once-%03u", i);
		kept += map_calls(t, path) == 1;
	}
	CHECK("maps: the hot file keeps its map through the pool's turnover, all 300 calls in it",
	    map_calls(t, "/data/hot") == 300);
	CHECK("maps: 301 files, 256 maps: 45 taken back, 255 of the once-read files hold one",
	    s.maps_reused == 45 && kept == 255 && map_calls(t, "/data/once-000") == -1 &&
	    map_calls(t, "/data/once-299") == 1);
	proc_free(t);

	/* Calls without an offset (io_uring before 5.19): the file takes no map from the pool. */
	t = proc_create(0, 0, 0);
	for (i = 0; i < 3; i++) {
		union rec	r;
		size_t		len = rw_rec(&r, 8, 8, "ring", "/data/nooff", 0, 4096, 100);

		r.rw.pos = -1;
		proc_add(t, &r, len);
	}
	model_pattern_flush(t, UINT64_MAX);
	proc_stats(t, &s);
	CHECK("maps: a file of calls without an offset has no map", find_file(t, "/data/nooff") != NULL &&
	    map_calls(t, "/data/nooff") == -1);
	proc_free(t);
}

/* A block request carrying the pages of (fsdev, ino), submitted by pid. */
static void
add_file_block(struct proc_table *t, uint32_t pid, const char *comm, int write, uint32_t bytes,
    uint16_t fclass, uint32_t fsdev, uint64_t ino)
{
	struct ev_block b;

	memset(&b, 0, sizeof(b));
	b.type = EV_BLOCK;
	b.dev = DEV_MKDEV(7, 0);
	b.ts_start = b.ts_issue = now;
	b.ts_done = now + 1000;
	now++;
	b.pid = b.tgid = pid;
	b.op = write ? BLK_OP_WRITE : BLK_OP_READ;
	b.bytes = bytes;
	b.fclass = fclass;
	b.fsdev = fsdev;
	b.ino = ino;
	strncpy(b.comm, comm, sizeof(b.comm) - 1);
	proc_add(t, &b, sizeof(b));
}

/* A page of (dev, ino) dirtied or faulted by pid. */
static void
add_page(struct proc_table *t, uint32_t pid, const char *comm, uint16_t kind, uint32_t dev,
    uint64_t ino)
{
	struct ev_page p;

	memset(&p, 0, sizeof(p));
	p.type = EV_PAGE;
	p.ts = now++;
	p.dev = dev;
	p.ino = ino;
	p.bytes = 4096;
	p.pid = p.tgid = pid;
	p.kind = kind;
	strncpy(p.comm, comm, sizeof(p.comm) - 1);
	proc_add(t, &p, sizeof(p));
}

/* A read/write call on a file with its identity (dev, ino), O_DIRECT or not. */
static void
add_rw_ino(struct proc_table *t, uint32_t pid, const char *path, int write, uint64_t bytes,
    uint32_t dev, uint64_t ino, int direct)
{
	union rec	r;
	size_t		len = rw_rec(&r, pid, pid, "app", path, write, bytes, 0);

	r.rw.dev = dev;
	r.rw.ino = ino;
	r.rw.path_flags = direct ? VFS_PF_DIRECT : 0;
	proc_add(t, &r, len);
}

/*
 * Disk bytes on whose behalf: a block request finds its file by inode (the
 * path a call gave it, else inode:[]), metadata its device's pseudo-file;
 * writeback goes to the last dirtier, the flusher keeps its requests; direct
 * calls bring their bytes to the file; an evicted file is never matched.
 */
static void
test_disk(void)
{
	struct proc_table		*t = proc_create(64, 4, 0);
	const struct file_entry		*f;
	const struct proc_entry		*p;
	const struct proc_counts	*c;
	uint32_t			 fs = DEV_MKDEV(7, 0);

	add_rw_ino(t, 100, "/d/a", 0, 4096, fs, 12, 0);
	add_file_block(t, 100, "app", 0, 65536, BLK_FC_FILE, fs, 12);
	f = find_file(t, "/d/a");
	c = f != NULL ? proc_file_counts(t, f, 1) : NULL;
	CHECK("disk: a read miss lands on the file the call named",
	    c != NULL && c->disk_bytes[0] == 65536 && c->disk_ios[0] == 1 && c->fill_bytes == 65536);
	CHECK("disk: cache hit % floored at 0 when readahead outruns the calls",
	    c != NULL && proc_cache_hit_pct(HAVE_FILES | HAVE_VFS, c) == 0);
	CHECK("disk: cache hit % unknown without file records",
	    c != NULL && proc_cache_hit_pct(HAVE_VFS, c) < 0);

	add_page(t, 100, "app", PAGE_DIRTY, fs, 12);
	add_file_block(t, 7, "kworker/u8:1", 1, 4096, BLK_FC_FILE, fs, 12);
	p = find_proc(t, 100);
	c = p != NULL ? proc_entry_counts(t, p, 1) : NULL;
	CHECK("disk: writeback charged to the dirtier",
	    c != NULL && c->dirtied_bytes == 4096 && c->wb_bytes == 4096 &&
	    c->disk_bytes[1] == 4096 && c->blk_bytes[1] == 0);
	p = find_proc(t, 7);
	c = p != NULL ? proc_entry_counts(t, p, 1) : NULL;
	CHECK("disk: the flusher keeps its request, not the bytes",
	    c != NULL && c->blk_bytes[1] == 4096 && c->blk_ios[1] == 1 && c->disk_bytes[1] == 0);

	add_file_block(t, 100, "app", 1, 8192, BLK_FC_FILE, fs, 12);
	p = find_proc(t, 100);
	c = p != NULL ? proc_entry_counts(t, p, 1) : NULL;
	CHECK("disk: the dirtier's own fsync is its own, not writeback",
	    c != NULL && c->wb_bytes == 4096 && c->disk_bytes[1] == 4096 + 8192);

	add_file_block(t, 100, "app", 0, 4096, BLK_FC_FILE, fs, 99);
	CHECK("disk: a file no call named is inode:[MAJ:MIN:INO]",
	    (f = find_file(t, "inode:[7:0:99]")) != NULL &&
	    proc_file_counts(t, f, 1)->disk_bytes[0] == 4096);
	add_file_block(t, 8, "jbd2/loop0-8", 1, 1024, BLK_FC_META, 0, 0);
	CHECK("disk: metadata on metadata:[7:0]",
	    (f = find_file(t, "metadata:[7:0]")) != NULL &&
	    proc_file_counts(t, f, 1)->disk_bytes[1] == 1024);
	add_page(t, 100, "app", PAGE_FAULT, fs, 99);
	CHECK("disk: a fault counted on file and process",
	    (f = find_file(t, "inode:[7:0:99]")) != NULL &&
	    proc_file_counts(t, f, 1)->mmap_faults == 1 &&
	    proc_entry_counts(t, find_proc(t, 100), 1)->mmap_faults == 1);

	add_rw_ino(t, 100, "/d/b", 1, 4096, fs, 13, 1);
	CHECK("disk: an O_DIRECT write brings its bytes to the file",
	    (f = find_file(t, "/d/b")) != NULL &&
	    proc_file_counts(t, f, 1)->disk_bytes[1] == 4096);

	/* Four files at most: /d/a, the oldest, is evicted by new ones. */
	add_rw_ino(t, 100, "/d/c", 0, 1, fs, 14, 0);
	add_rw_ino(t, 100, "/d/e", 0, 1, fs, 15, 0);
	add_rw_ino(t, 100, "/d/f", 0, 1, fs, 16, 0);
	CHECK("disk: the oldest file evicted", find_file(t, "/d/a") == NULL);
	add_file_block(t, 100, "app", 0, 4096, BLK_FC_FILE, fs, 12);
	CHECK("disk: its inode is not matched to a reused entry",
	    (f = find_file(t, "inode:[7:0:12]")) != NULL &&
	    proc_file_counts(t, f, 1)->disk_bytes[0] == 4096 &&
	    proc_file_counts(t, find_file(t, "/d/f"), 1)->disk_bytes[0] == 0);
	proc_free(t);
}

/*
 * The file found last is tried first (model_file_get's hint): paths of one
 * length and one tail are still told apart, alternating or in runs, and an
 * evicted file whose entry another path of that length and tail took comes
 * back as a fresh entry.
 */
static void
test_hint(void)
{
	struct proc_table	*t = proc_create(4, 2, 0);
	const struct file_entry	*a, *b;
	char			 path[32];
	unsigned		 i;

	for (i = 0; i < 3; i++) {
		add_rw(t, 1, 1, "p", "/data/a/file.bin", 0, 10, 1);
		add_rw(t, 1, 1, "p", "/data/b/file.bin", 0, 20, 1);
	}
	add_rw(t, 1, 1, "p", "/data/b/file.bin", 0, 20, 1);
	a = find_file(t, "/data/a/file.bin");
	b = find_file(t, "/data/b/file.bin");
	CHECK("hint: same length and tail, two files", a && b && a != b &&
	    proc_file_counts(t, a, 1)->vfs_calls[0] == 3 &&
	    proc_file_counts(t, b, 1)->vfs_calls[0] == 4);
	/* Two files fit: a third evicts a (least recent); b stays hinted. */
	add_rw(t, 1, 1, "p", "/data/c/file.bin", 0, 30, 1);
	add_rw(t, 1, 1, "p", "/data/a/file.bin", 0, 10, 1);	/* evicts b, takes its entry */
	a = find_file(t, "/data/a/file.bin");
	CHECK("hint: an evicted file comes back fresh", a && find_file(t, "/data/b/file.bin") == NULL &&
	    proc_file_counts(t, a, 1)->vfs_calls[0] == 1);
	for (i = 0; i < 6; i++) {
		snprintf(path, sizeof path, "/data/%c/file.bin", 'd' + i % 2);
		add_rw(t, 1, 1, "p", path, 0, 1, 1);
	}
	CHECK("hint: alternating files each counted", find_file(t, "/data/d/file.bin") &&
	    proc_file_counts(t, find_file(t, "/data/d/file.bin"), 1)->vfs_calls[0] == 3 &&
	    proc_file_counts(t, find_file(t, "/data/e/file.bin"), 1)->vfs_calls[0] == 3);
	proc_free(t);
}

/*
 * The calls wait MODEL_PATTERN_DELAY_NS behind the stream's newest, not for
 * the next tick: 100000 calls over 2 s with no tick between (50k a second,
 * fio's libaio job made 345k) wait 0.3 s each (and the millisecond of
 * MODEL_PATTERN_STEP_NS), 15051 at most, and none is
 * judged early. Judged only at ticks, the ring filled (65536) and judged
 * 34464 of them early.
 */
static void
test_ring_stream_time(void)
{
	struct proc_table	*t = proc_create(0, 0, 0);
	const struct file_entry	*f;
	struct proc_stats	 s;
	uint64_t		 base = now;
	unsigned		 i, most = 0;

	for (i = 0; i < 100000; i++) {
		union rec	r;
		size_t		len = rw_rec(&r, 9, 9, "streamer", "/data/stream", 0, 4096, 1);

		r.rw.ts = base + (uint64_t)i * 20000;
		r.rw.pos = (int64_t)i * 4096;
		proc_add(t, &r, len);
		if (t->npending > most)
			most = t->npending;
	}
	model_pattern_flush(t, UINT64_MAX);
	proc_stats(t, &s);
	f = find_file(t, "/data/stream");
	CHECK("100000 calls over 2 s without a tick: at most 0.3 s and 1 ms of them wait (15051), none early",
	    f != NULL && f->pat.side[PAT_READ].consec == 99999 && s.pattern_early == 0 &&
	    most <= 15051 && t->pending_len <= 16384);
	now = base + 100000ULL * 20000;
	proc_free(t);
}

int
main(void)
{
	test_disk();
	test_maps();
	test_open_pattern();
	test_reverse();
	test_ring_grow();
	test_straggler();
	test_ring_stream_time();
	test_hint();
	CHECK_EXIT();
}
