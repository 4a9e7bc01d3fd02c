/* test-proc.c: the model's tables and their index: folding, caps, eviction, top-N, memory bound. */

#include "proc-test.h"

static void
test_folding(void)
{
	struct proc_table		*t;
	const struct proc_entry		*p, *top[8];
	const struct proc_counts	*c;
	struct proc_stats		 s;

	t = proc_create(16, 16, 0);
	add_rw(t, 101, 100, "worker", "/data/a", 0, 4096, 1000);
	add_rw(t, 100, 100, "main", "/data/a", 0, 4096, 1000);
	add_rw(t, 102, 100, "worker2", "/data/a", 1, 100, 1000);
	proc_stats(t, &s);
	CHECK("folding: threads of one tgid make one process", s.procs == 1);
	p = find_proc(t, 100);
	c = p ? proc_entry_counts(t, p, 0) : NULL;
	CHECK("folding: calls of all threads summed",
	    c && c->vfs_calls[0] == 2 && c->vfs_calls[1] == 1 && c->vfs_bytes[0] == 8192);
	CHECK("folding: main thread names the process", p && strcmp(p->comm, "main") == 0);
	proc_free(t);

	t = proc_create(16, 16, 1);
	add_rw(t, 101, 100, "worker", "/data/a", 0, 4096, 1000);
	add_rw(t, 100, 100, "main", "/data/a", 0, 4096, 1000);
	add_rw(t, 102, 100, "worker2", "/data/a", 1, 100, 1000);
	proc_stats(t, &s);
	CHECK("per-thread view: one entry per thread", s.procs == 3 && s.by_thread);
	p = find_proc(t, 101);
	CHECK("per-thread view: thread keeps its comm and tgid",
	    p && strcmp(p->comm, "worker") == 0 && p->tgid == 100);
	CHECK("per-thread view: top by vfs_writes",
	    top_procs(t, PROC_KEY_VFS_WRITES, 0, top, 1) == 1 && top[0]->id == 102);
	proc_free(t);

	/* Imported logs without COMM (openat, close): an empty comm renames nothing. */
	t = proc_create(16, 16, 0);
	add_rw(t, 200, 200, "", "/data/a", 0, 4096, 1000);
	p = find_proc(t, 200);
	CHECK("no comm: a new process is [unknown]", p && strcmp(p->comm, "[unknown]") == 0);
	add_rw(t, 200, 200, "python", "/data/a", 0, 4096, 1000);
	add_rw(t, 200, 200, "", "/data/a", 0, 4096, 1000);
	p = find_proc(t, 200);
	CHECK("no comm: the name a record gave stays", p && strcmp(p->comm, "python") == 0);
	proc_free(t);
}

static void
test_caps(void)
{
	struct proc_table	*t;
	struct proc_stats	 s;
	char			 path[64];
	uint32_t		 i;
	int			 ok;

	t = proc_create(4, 8, 0);
	for (i = 1; i <= 10; i++)
		add_rw(t, i, i, "p", "/x", 0, 1, 1);
	proc_stats(t, &s);
	CHECK("caps: processes capped", s.procs == 4 && s.max_procs == 4);
	CHECK("caps: evictions counted", s.procs_evicted == 6);
	CHECK("caps: the most recent stay", find_proc(t, 7) && find_proc(t, 10) &&
	    !find_proc(t, 6));
	add_rw(t, 7, 7, "p", "/x", 0, 1, 1);	/* 7 is now the most recent */
	add_rw(t, 11, 11, "p", "/x", 0, 1, 1);	/* evicts 8, the least recent */
	CHECK("eviction: least recently active goes", find_proc(t, 7) && !find_proc(t, 8) &&
	    find_proc(t, 11));
	/* Evicted and back: a fresh entry, counted from zero. */
	add_rw(t, 1, 1, "p", "/x", 0, 1, 1);
	CHECK("eviction: a returning process starts fresh",
	    find_proc(t, 1) && proc_entry_counts(t, find_proc(t, 1), 1)->vfs_calls[0] == 1);

	for (i = 0; i < 20; i++) {
		snprintf(path, sizeof(path), "/files/f%02u", i);
		add_rw(t, 1, 1, "p", path, 0, 1, 1);
	}
	proc_stats(t, &s);
	CHECK("caps: files capped", s.files == 8 && s.files_evicted == 13);
	ok = 1;
	for (i = 12; i < 20; i++) {
		snprintf(path, sizeof(path), "/files/f%02u", i);
		ok &= find_file(t, path) != NULL;
	}
	CHECK("caps: the 8 most recent files stay", ok && find_file(t, "/files/f11") == NULL);
	CHECK("caps: chunks accounted", s.chunks_used == 8);
	proc_free(t);
}

static void
test_paths(void)
{
	struct proc_table		*t;
	const struct file_entry		*f;
	struct proc_stats		 s;
	static char			 lng[VFS_PATH_MAX], buf[VFS_PATH_MAX];
	unsigned			 i;

	t = proc_create(8, 8, 0);
	for (i = 0; i < 8; i++) {
		char p[32];

		snprintf(p, sizeof(p), "/short/%u", i);
		add_rw(t, 1, 1, "p", p, 0, 1, 1);
	}
	/* A 4000-byte path needs 67 chunks: files are evicted to make room. */
	memset(lng, 'a', 4000);
	for (i = 0; i < 4000; i += 100)
		lng[i] = '/';
	lng[4000] = '\0';
	add_rw(t, 1, 1, "p", lng, 1, 10, 1);
	f = find_file(t, lng);
	CHECK("paths: a 4000-byte path stored whole", f != NULL && f->path_len == 4000 &&
	    model_file_path(t, f, buf, sizeof(buf)) == 4000 && strcmp(buf, lng) == 0);
	proc_stats(t, &s);
	CHECK("paths: chunk pool bounded, files evicted for it",
	    s.chunks_used <= s.nchunks && s.files < 9 && s.files_evicted > 0);
	CHECK("paths: truncated copy is NUL-terminated",
	    f && model_file_path(t, f, buf, 10) == 4000 && strlen(buf) == 9);
	/* Paths sharing a 60-byte prefix differ only in a later chunk. */
	memset(lng, 'b', 130);
	lng[0] = '/';
	lng[130] = '\0';
	add_rw(t, 1, 1, "p", lng, 0, 1, 1);
	lng[129] = 'c';
	add_rw(t, 1, 1, "p", lng, 0, 1, 1);
	lng[129] = 'b';
	add_rw(t, 1, 1, "p", lng, 0, 1, 1);
	f = find_file(t, lng);
	CHECK("paths: long paths differing in the last chunk are distinct",
	    f && proc_file_counts(t, f, 1)->vfs_calls[0] == 2);
	proc_free(t);
}

/* Whether entry e of an index over ids holds the id *key. */
static int
index_same(const void *ctx, uint32_t e, const void *key)
{
	const uint32_t *ids = ctx;

	return ids[e] == *(const uint32_t *)key;
}

/* Add id under hash to the index over ids, evicting first if it is full. */
static uint32_t
index_add(struct model_index *ix, uint32_t *ids, uint32_t id, uint32_t hash)
{
	uint32_t e;

	if (ix->used == ix->cap)
		model_index_evict(ix);
	e = model_index_add(ix, hash);
	ids[e] = id;
	return e;
}

/* The generic index alone: colliding hashes, wrap-around, LRU eviction, deletion. */
static void
test_index(void)
{
	struct model_index	 ix;
	uint32_t		 ids[8] = { 0 }, id, e, all, wrap = 0;

	model_index_init(&ix, 8, ids);
	/* Ids 1..8 all hash to the last slot or the one before: chains wrap around. */
	for (id = 1; id <= 8; id++)
		index_add(&ix, ids, id, ix.mask - (id & 1));
	for (e = 0; e <= ix.mask; e++)
		wrap += e < 8 && ix.slots[e] != 0;
	all = 1;
	for (id = 1; id <= 8; id++)
		all &= model_index_find(&ix, ix.mask - (id & 1), index_same, &id) != MODEL_NIL;
	CHECK("index: colliding hashes all found, chains wrap", all && wrap > 0 && ix.used == 8);
	id = 9;
	CHECK("index: an absent id", model_index_find(&ix, ix.mask, index_same, &id) ==
	    MODEL_NIL);

	/* Touch id 1 (the oldest): ids 2 and 3 go first. */
	id = 1;
	model_index_touch(&ix, model_index_find(&ix, ix.mask - 1, index_same, &id));
	index_add(&ix, ids, 9, ix.mask - 1);
	index_add(&ix, ids, 10, ix.mask);
	all = 1;
	for (id = 1; id <= 10; id++) {
		e = model_index_find(&ix, ix.mask - (id & 1), index_same, &id);
		all &= (e == MODEL_NIL) == (id == 2 || id == 3);
	}
	CHECK("index: least recently active evicted, the rest still found", all &&
	    ix.used == 8 && ix.evicted == 2);
	CHECK("index: LRU order", ids[ix.head] == 10 && ids[ix.links[ix.head].next] == 9 &&
	    ids[ix.tail] == 4);
	model_index_free(&ix);
}

static void
test_top(void)
{
	struct proc_table		*t;
	const struct proc_entry		*top[8];
	const struct file_entry		*ft[8];
	unsigned			 n, i;
	int				 sorted;

	t = proc_create(64, 64, 0);
	/* tgid i reads i * 1000 bytes; tgid 5 and 6 tie with 5000. */
	for (i = 1; i <= 10; i++)
		add_rw(t, i, i, "r", "/f", 0, (i == 6 ? 5 : i) * 1000, 10);
	add_block(t, 3, 3, "r", 1, 8192, 5000);
	add_block(t, 3, 3, "r", 1, 8192, 5000);
	add_block(t, 4, 4, "r", 1, 4096, 5000);
	n = top_procs(t, PROC_KEY_VFS_READ_BYTES, 0, top, 5);
	sorted = n == 5;
	for (i = 1; i < n; i++)
		sorted &= proc_entry_counts(t, top[i - 1], 0)->vfs_bytes[0] >=
		    proc_entry_counts(t, top[i], 0)->vfs_bytes[0];
	CHECK("top: n entries, sorted by key", sorted && top[0]->id == 10 && top[1]->id == 9);
	CHECK("top: ties broken by id", top[4]->id == 5 || (n == 5 && top[3]->id == 5));
	n = top_procs(t, PROC_KEY_WRITE_BYTES, 0, top, 2);
	CHECK("top: block write bytes", n == 2 && top[0]->id == 3 &&
	    proc_entry_counts(t, top[0], 0)->blk_bytes[1] == 16384 && top[1]->id == 4);
	n = top_procs(t, PROC_KEY_WRITE_IOS, 0, top, 1);
	CHECK("top: block write ios", n == 1 && top[0]->id == 3);
	CHECK("top: block latency histogram", proc_entry_lat(t, top[0], 1, 50) >= 4500 &&
	    proc_entry_lat(t, top[0], 1, 50) <= 5500);
	CHECK("top: requests of one time: every percentile is that time, not in its bucket",
	    n == 1 && proc_entry_hist(t, top[0], 1)->n == 2 &&
	    proc_entry_lat(t, top[0], 1, 50) == 5000 && proc_entry_lat(t, top[0], 1, 99) == 5000);

	proc_interval(t);
	CHECK("interval: idle entries leave the interval top",
	    top_procs(t, PROC_KEY_VFS_READ_BYTES, 0, top, 5) == 0);
	CHECK("interval: totals remain", top_procs(t, PROC_KEY_VFS_READ_BYTES, 1, top, 1) == 1 &&
	    top[0]->id == 10);
	add_rw(t, 2, 2, "r", "/f", 0, 7, 10);
	n = top_procs(t, PROC_KEY_VFS_READ_BYTES, 0, top, 5);
	CHECK("interval: only this interval's counts", n == 1 && top[0]->id == 2 &&
	    proc_entry_counts(t, top[0], 0)->vfs_bytes[0] == 7 &&
	    proc_entry_counts(t, top[0], 1)->vfs_bytes[0] == 2007);

	/* Files: opens, failed opens, distinct pids, latency percentiles. */
	add_open(t, 1, "/etc/passwd", 3);
	add_open(t, 2, "/etc/passwd", 3);
	add_open(t, 2, "/nonexistent/x", -2);
	for (i = 1; i <= 100; i++)
		add_rw(t, 20 + i % 12, 20 + i % 12, "lat", "/lat", 0, 1, i * 1000);
	n = top_files(t, PROC_KEY_OPENS, 0, ft, 8);
	CHECK("files: top by opens", n >= 2 && ft[0]->iv.opens == 2);
	CHECK("files: failed open counted under its path",
	    find_file(t, "/nonexistent/x") && find_file(t, "/nonexistent/x")->iv.open_fails == 1);
	n = top_files(t, PROC_KEY_VFS_READS, 0, ft, 1);
	CHECK("files: distinct pids bounded", n == 1 && ft[0]->npids == PROC_FILE_PIDS &&
	    ft[0]->pids_more == 1);
	CHECK("files: p50 within 5%", n == 1 && proc_file_lat(t, ft[0], 50) > 47500 &&
	    proc_file_lat(t, ft[0], 50) < 52500);
	CHECK("files: p99 within 5%", n == 1 && proc_file_lat(t, ft[0], 99) > 94000 &&
	    proc_file_lat(t, ft[0], 99) < 104000);
	CHECK("files: the histogram's count and exact extremes", n == 1 &&
	    proc_file_hist(t, ft[0], 0)->n == 100 && proc_file_hist(t, ft[0], 0)->min == 1000 &&
	    proc_file_hist(t, ft[0], 0)->max == 100000 &&
	    proc_file_lat(t, ft[0], 100) == 100000 && proc_file_hist(t, ft[0], 1)->n == 0);
	/* Equal values: the file seen first ranks first, whatever the LRU order. */
	proc_interval(t);
	add_rw(t, 1, 1, "r", "/tie/a", 0, 100, 10);
	add_rw(t, 1, 1, "r", "/tie/b", 0, 100, 10);
	add_rw(t, 1, 1, "r", "/tie/c", 0, 100, 10);
	add_rw(t, 1, 1, "r", "/tie/b", 0, 0, 10);
	add_rw(t, 1, 1, "r", "/tie/a", 0, 0, 10);
	add_rw(t, 1, 1, "r", "/tie/c", 0, 0, 10);
	n = top_files(t, PROC_KEY_VFS_READ_BYTES, 0, ft, 3);
	CHECK("files: ties go to the file seen first", n == 3 && ft[0] == find_file(t, "/tie/a") &&
	    ft[1] == find_file(t, "/tie/b") && ft[2] == find_file(t, "/tie/c"));
	proc_free(t);
}

static void
test_kernel_and_bad(void)
{
	struct proc_table	*t;
	const struct proc_entry	*p;
	union rec		 r;
	struct proc_stats	 s;

	t = proc_create(16, 16, 0);
	add_block(t, 1234, 1234, "kworker/u8:2", 1, 4096, 100);
	add_block(t, 0, 0, "", 1, 4096, 100);
	add_rw(t, 50, 50, "app", "/x", 1, 4096, 100);
	p = find_proc(t, 1234);
	CHECK("kernel threads: flusher writes under its own comm",
	    p && strcmp(p->comm, "kworker/u8:2") == 0 && p->tot.blk_ios[1] == 1);
	p = find_proc(t, 50);
	CHECK("kernel threads: not charged to another process", p && p->tot.blk_ios[1] == 0);
	p = find_proc(t, 0);
	CHECK("unknown submitter shown as [unknown]", p && strcmp(p->comm, "[unknown]") == 0);
	{
		struct ev_block b;

		memset(&b, 0, sizeof(b));
		b.type = EV_BLOCK;
		b.ts_start = b.ts_issue = now;
		b.ts_done = now + 50000000;	/* when it was seen reused, not done */
		b.pid = b.tgid = 1234;
		b.op = BLK_OP_WRITE;
		b.bytes = 8192;
		b.flags = BLK_F_NOLAT | BLK_F_UNSEEN;
		strncpy(b.comm, "kworker/u8:2", sizeof(b.comm) - 1);
		proc_add(t, &b, sizeof(b));
	}
	p = find_proc(t, 1234);
	CHECK("block event without times: counted, not in the latency",
	    p && p->tot.blk_ios[1] == 2 && p->tot.blk_bytes[1] == 12288 &&
	    p->tot.blk_lat_sum == 100 && proc_entry_lat(t, p, 1, 99) <= 1000);

	memset(&r, 0, sizeof(r));
	r.rw.type = EV_RW;
	r.rw.path_len = 100;
	CHECK("malformed: record shorter than its path", proc_add(t, &r, EV_RW_SIZE(10)) == -1);
	r.rw.path_len = VFS_PATH_MAX;
	CHECK("malformed: path_len over the max", proc_add(t, &r, sizeof(r)) == -1);
	CHECK("malformed: short record", proc_add(t, &r, 3) == -1);
	r.rw.type = EV_TICK;
	CHECK("other types ignored", proc_add(t, &r, sizeof(struct ev_tick)) == 1);
	proc_stats(t, &s);
	CHECK("malformed: counted", s.bad == 3);
	proc_free(t);
}

/* A million distinct files and pids through default-size tables: memory stays bounded. */
static void
test_million(void)
{
	struct proc_table	*t;
	struct proc_stats	 s;
	size_t			 before, after, bound;
	char			 path[128];
	unsigned		 i;

	bound = proc_mem_bound(PROC_DEF_PROCS, PROC_DEF_FILES);
	before = rss();
	t = proc_create(0, 0, 0);
	for (i = 0; i < 1000000; i++) {
		snprintf(path, sizeof(path), "/data/set%03u/shard%04u/sample-%07u.npy",
		    i % 1000, i % 7919, i);
		add_rw(t, 100000 + i, 100000 + i, "python", path, i & 1, 4096, 1000 + i);
	}
	after = rss();
	proc_stats(t, &s);
	printf("# million: bound %zu KiB, rss before %zu KiB, after %zu KiB, growth %zu KiB; "
	    "files %u (evicted %ju), procs %u (evicted %ju)\n", bound / 1024, before / 1024,
	    after / 1024, (after - before) / 1024, s.files, s.files_evicted, s.procs,
	    s.procs_evicted);
	CHECK("million: files capped at the default", s.files == PROC_DEF_FILES &&
	    s.files_evicted == 1000000 - PROC_DEF_FILES);
	CHECK("million: procs capped at the default", s.procs == PROC_DEF_PROCS &&
	    s.procs_evicted == 1000000 - PROC_DEF_PROCS);
	/* Sanitizer builds add shadow memory: allow 1/4 more plus 4 MiB. */
	CHECK("million: RSS growth within the documented bound",
	    after - before <= bound + bound / 4 + (4u << 20));
	proc_free(t);
}

int
main(void)
{
	test_index();
	test_folding();
	test_caps();
	test_paths();
	test_top();
	test_kernel_and_bad();
	test_million();
	CHECK_EXIT();
}
