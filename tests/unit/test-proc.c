/* test-proc.c: the model's tables and their index: folding, caps, eviction, top-N, memory bound. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "blktop.h"
#include "model.h"
#include "check.h"

/* An event record with room for its path. */
union rec {
	struct ev_rw	 rw;
	struct ev_open	 open;
	char		 raw[sizeof(struct ev_rw) + VFS_PATH_MAX];
};

static uint64_t now = 1000;

/* A read/write call's record of bytes on path, into r; its length. */
static size_t
rw_rec(union rec *r, uint32_t pid, uint32_t tgid, const char *comm, const char *path,
    int write, uint64_t bytes, uint64_t lat)
{
	size_t		len = strlen(path);

	memset(r, 0, sizeof(struct ev_rw));
	r->rw.type = EV_RW;
	r->rw.ts = now++;
	r->rw.lat_ns = lat;
	r->rw.pid = pid;
	r->rw.tgid = tgid;
	r->rw.op = write ? BLK_OP_WRITE : BLK_OP_READ;
	r->rw.sys = write ? VFS_SYS_WRITE : VFS_SYS_READ;
	r->rw.ftype = VFS_FT_REG;
	r->rw.asked = bytes;
	r->rw.done = bytes;
	strncpy(r->rw.comm, comm, sizeof(r->rw.comm) - 1);
	r->rw.path_len = len;
	memcpy(r->rw.path, path, len + 1);
	return (EV_RW_SIZE(len));
}

/* Feed one read/write call to the tables. */
static int
add_rw(struct proc_table *t, uint32_t pid, uint32_t tgid, const char *comm, const char *path,
    int write, uint64_t bytes, uint64_t lat)
{
	union rec	r;
	size_t		len = rw_rec(&r, pid, tgid, comm, path, write, bytes, lat);

	return proc_add(t, &r, len);
}

/* Feed one open. */
static int
add_open(struct proc_table *t, uint32_t tgid, const char *path, int ret)
{
	union rec	r;
	size_t		len = strlen(path);

	memset(&r, 0, sizeof(struct ev_open));
	r.open.type = EV_OPEN;
	r.open.ts = now++;
	r.open.pid = r.open.tgid = tgid;
	r.open.ret = ret;
	r.open.ftype = ret < 0 ? VFS_FT_NONE : VFS_FT_REG;
	strcpy(r.open.comm, "opener");
	r.open.path_len = len;
	memcpy(r.open.path, path, len + 1);
	return proc_add(t, &r, EV_OPEN_SIZE(len));
}

/* Feed one block request. */
static void
add_block(struct proc_table *t, uint32_t pid, uint32_t tgid, const char *comm, int write,
    uint32_t bytes, uint64_t lat)
{
	struct ev_block b;

	memset(&b, 0, sizeof(b));
	b.type = EV_BLOCK;
	b.ts_start = now;
	b.ts_issue = now;
	b.ts_done = now + lat;
	now++;
	b.pid = pid;
	b.tgid = tgid;
	b.op = write ? BLK_OP_WRITE : BLK_OP_READ;
	b.bytes = bytes;
	strncpy(b.comm, comm, sizeof(b.comm) - 1);
	proc_add(t, &b, sizeof(b));
}

/* The process entry with this id, or NULL (through the total top). */
static const struct proc_entry *
find_proc(struct proc_table *t, uint32_t id)
{
	const struct proc_entry	*top[1024];
	unsigned		 n, i;

	n = proc_top(t, PROC_KEY_OPENS, 1, top, nitems(top));
	for (i = 0; i < n; i++) {
		if (top[i]->id == id)
			return top[i];
	}
	return NULL;
}

/* The file entry with this path, or NULL. */
static const struct file_entry *
find_file(struct proc_table *t, const char *path)
{
	static const struct file_entry	*top[1024];
	char				 buf[VFS_PATH_MAX];
	unsigned			 n, i;

	n = proc_top_files(t, PROC_KEY_OPENS, 1, top, nitems(top));
	for (i = 0; i < n; i++) {
		model_file_path(t, top[i], buf, sizeof(buf));
		if (strcmp(buf, path) == 0)
			return top[i];
	}
	return NULL;
}

/* Resident set size in bytes. */
static size_t
rss(void)
{
	FILE	*f = fopen("/proc/self/statm", "r");
	long	 size = 0, res = 0;

	if (f == NULL)
		return 0;
	if (fscanf(f, "%ld %ld", &size, &res) != 2)
		res = 0;
	fclose(f);
	return (size_t)res * (size_t)sysconf(_SC_PAGESIZE);
}

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
	    proc_top(t, PROC_KEY_VFS_WRITES, 0, top, 1) == 1 && top[0]->id == 102);
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
	n = proc_top(t, PROC_KEY_VFS_READ_BYTES, 0, top, 5);
	sorted = n == 5;
	for (i = 1; i < n; i++)
		sorted &= proc_entry_counts(t, top[i - 1], 0)->vfs_bytes[0] >=
		    proc_entry_counts(t, top[i], 0)->vfs_bytes[0];
	CHECK("top: n entries, sorted by key", sorted && top[0]->id == 10 && top[1]->id == 9);
	CHECK("top: ties broken by id", top[4]->id == 5 || (n == 5 && top[3]->id == 5));
	n = proc_top(t, PROC_KEY_WRITE_BYTES, 0, top, 2);
	CHECK("top: block write bytes", n == 2 && top[0]->id == 3 &&
	    proc_entry_counts(t, top[0], 0)->blk_bytes[1] == 16384 && top[1]->id == 4);
	n = proc_top(t, PROC_KEY_WRITE_IOS, 0, top, 1);
	CHECK("top: block write ios", n == 1 && top[0]->id == 3);
	CHECK("top: block latency histogram", proc_entry_lat(t, top[0], 1, 50) >= 4500 &&
	    proc_entry_lat(t, top[0], 1, 50) <= 5500);
	CHECK("top: requests of one time: every percentile is that time, not in its bucket",
	    n == 1 && proc_entry_hist(t, top[0], 1)->n == 2 &&
	    proc_entry_lat(t, top[0], 1, 50) == 5000 && proc_entry_lat(t, top[0], 1, 99) == 5000);

	proc_interval(t);
	CHECK("interval: idle entries leave the interval top",
	    proc_top(t, PROC_KEY_VFS_READ_BYTES, 0, top, 5) == 0);
	CHECK("interval: totals remain", proc_top(t, PROC_KEY_VFS_READ_BYTES, 1, top, 1) == 1 &&
	    top[0]->id == 10);
	add_rw(t, 2, 2, "r", "/f", 0, 7, 10);
	n = proc_top(t, PROC_KEY_VFS_READ_BYTES, 0, top, 5);
	CHECK("interval: only this interval's counts", n == 1 && top[0]->id == 2 &&
	    proc_entry_counts(t, top[0], 0)->vfs_bytes[0] == 7 &&
	    proc_entry_counts(t, top[0], 1)->vfs_bytes[0] == 2007);

	/* Files: opens, failed opens, distinct pids, latency percentiles. */
	add_open(t, 1, "/etc/passwd", 3);
	add_open(t, 2, "/etc/passwd", 3);
	add_open(t, 2, "/nonexistent/x", -2);
	for (i = 1; i <= 100; i++)
		add_rw(t, 20 + i % 12, 20 + i % 12, "lat", "/lat", 0, 1, i * 1000);
	n = proc_top_files(t, PROC_KEY_OPENS, 0, ft, 8);
	CHECK("files: top by opens", n >= 2 && ft[0]->iv.opens == 2);
	CHECK("files: failed open counted under its path",
	    find_file(t, "/nonexistent/x") && find_file(t, "/nonexistent/x")->iv.open_fails == 1);
	n = proc_top_files(t, PROC_KEY_VFS_READS, 0, ft, 1);
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
	n = proc_top_files(t, PROC_KEY_VFS_READ_BYTES, 0, ft, 3);
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
	proc_stats(t, &s);
	CHECK("60000 calls in reverse time order: those past 4096 places judged late",
	    s.pattern_late >= 60000 - 4097 - 1);
	/* 20 s: the whole of test-proc takes 3.3 s of CPU under ASan (issue 41). */
	CHECK("and in bounded time (under 20 s of CPU; unbounded, minutes)",
	    (double)(clock() - c0) / CLOCKS_PER_SEC < 20.0);
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
	proc_pattern_flush(t, UINT64_MAX);
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
			proc_pattern_flush(t, t700);
	}
	proc_pattern_flush(t, UINT64_MAX);
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
	proc_pattern_flush(t, UINT64_MAX);
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
	proc_pattern_flush(t, UINT64_MAX);
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

int
main(void)
{
	test_index();
	test_disk();
	test_folding();
	test_caps();
	test_paths();
	test_top();
	test_kernel_and_bad();
	test_million();
	test_maps();
	test_open_pattern();
	test_reverse();
	test_ring_grow();
	test_hint();
	CHECK_EXIT();
}
