/* proc.c: bounded per-process and per-file I/O tables fed by the event stream. */
#include <stdlib.h>
#include <string.h>

#include "blktop.h"

/*
 * Both tables are preallocated at proc_create: open addressing (linear
 * probing, backward-shift deletion) over slot indices, an intrusive LRU list
 * through the slots, paths in a pool of fixed chunks. Adding an event never
 * allocates and never makes a system call; a full table evicts its least
 * recently active entry and counts it. Per-interval counters and histograms
 * are reset lazily: an entry touched in a new interval (epoch) clears them.
 */

#define NIL		UINT32_MAX
#define CHUNK_DATA	(PROC_CHUNK_SIZE - sizeof(uint32_t))

struct proc_chunk {
	uint32_t	 next;			/* next chunk of the path, NIL at the end */
	char		 data[CHUNK_DATA];
};

/* LRU list and hash index over one array of entries. */
struct proc_index {
	uint32_t	*slots;		/* entry index + 1, 0 = empty; nslots is a power of 2 */
	uint32_t	 mask;
	uint32_t	 head, tail;	/* most and least recently active */
	uint32_t	 nfree;		/* free entries, chained through lru_next */
	uint32_t	 free;
	uint32_t	 used;
	uint32_t	 cap;
	uint64_t	 evicted;
};

struct proc_table {
	int			 by_thread;
	uint64_t		 epoch;		/* current interval */
	struct proc_index	 pi;
	struct proc_entry	*procs;
	struct proc_index	 fi;
	struct file_entry	*files;
	struct proc_chunk	*chunks;
	uint32_t		 nchunks;
	uint32_t		 chunk_free;	/* free chunks, chained through next */
	uint32_t		 chunks_used;
	uint64_t		 bad;		/* malformed records */
	char			 name[64];	/* names of pathless files, built here */
};

static const char *const proc_key_names[PROC_KEY_MAX] = {
	[PROC_KEY_READ_BYTES] = "read_bytes",
	[PROC_KEY_WRITE_BYTES] = "write_bytes",
	[PROC_KEY_READ_IOS] = "read_ios",
	[PROC_KEY_WRITE_IOS] = "write_ios",
	[PROC_KEY_VFS_READ_BYTES] = "vfs_read_bytes",
	[PROC_KEY_VFS_WRITE_BYTES] = "vfs_write_bytes",
	[PROC_KEY_VFS_READS] = "vfs_reads",
	[PROC_KEY_VFS_WRITES] = "vfs_writes",
	[PROC_KEY_OPENS] = "opens",
	[PROC_KEY_LAT] = "lat",
};

/* A key's name. */
const char *
proc_key_name(enum proc_key k)
{
	if ((unsigned)k >= PROC_KEY_MAX)
		return "?";
	return proc_key_names[k];
}

/* A key from its name, -1 if unknown. */
int
proc_key_parse(const char *s)
{
	int k;

	for (k = 0; k < PROC_KEY_MAX; k++) {
		if (strcmp(s, proc_key_names[k]) == 0)
			return k;
	}
	return -1;
}

/* Smallest power of two >= 2 * n. */
static uint32_t
proc_nslots(uint32_t n)
{
	uint32_t s = 16;

	while (s < 2 * n)
		s <<= 1;
	return s;
}

/* Set up an index over cap entries, all free. */
static void
proc_index_init(struct proc_index *ix, uint32_t cap)
{
	ix->mask = proc_nslots(cap) - 1;
	ix->slots = xcalloc(ix->mask + 1, sizeof(*ix->slots));
	ix->head = ix->tail = NIL;
	ix->cap = cap;
	ix->used = 0;
	ix->evicted = 0;
}

/* Bytes proc_create(max_procs, max_files) allocates: the memory bound of the tables. */
size_t
proc_mem_bound(unsigned max_procs, unsigned max_files)
{
	size_t nchunks = (size_t)max_files * PROC_CHUNKS_PER_FILE;

	if (nchunks < VFS_PATH_MAX / CHUNK_DATA + 2)
		nchunks = VFS_PATH_MAX / CHUNK_DATA + 2;
	return sizeof(struct proc_table) +
	    (size_t)max_procs * sizeof(struct proc_entry) +
	    (size_t)proc_nslots(max_procs) * sizeof(uint32_t) +
	    (size_t)max_files * sizeof(struct file_entry) +
	    (size_t)proc_nslots(max_files) * sizeof(uint32_t) +
	    nchunks * sizeof(struct proc_chunk);
}

/* Allocate the tables: at most max_procs processes (threads if by_thread) and max_files files. */
struct proc_table *
proc_create(unsigned max_procs, unsigned max_files, int by_thread)
{
	struct proc_table	*t;
	uint32_t		 i;

	if (max_procs == 0)
		max_procs = PROC_DEF_PROCS;
	if (max_files == 0)
		max_files = PROC_DEF_FILES;
	if (max_procs > PROC_MAX_ENTRIES)
		max_procs = PROC_MAX_ENTRIES;
	if (max_files > PROC_MAX_ENTRIES)
		max_files = PROC_MAX_ENTRIES;
	t = xcalloc(1, sizeof(*t));
	t->by_thread = by_thread;
	t->epoch = 1;
	proc_index_init(&t->pi, max_procs);
	t->procs = xcalloc(max_procs, sizeof(*t->procs));
	proc_index_init(&t->fi, max_files);
	t->files = xcalloc(max_files, sizeof(*t->files));
	t->nchunks = max_files * PROC_CHUNKS_PER_FILE;
	if (t->nchunks < VFS_PATH_MAX / CHUNK_DATA + 2)
		t->nchunks = VFS_PATH_MAX / CHUNK_DATA + 2;
	t->chunks = xcalloc(t->nchunks, sizeof(*t->chunks));

	/* Free lists. The first use of each entry touches its pages, not before. */
	for (i = 0; i < max_procs; i++)
		t->procs[i].lru_next = i + 1 < max_procs ? i + 1 : NIL;
	t->pi.free = 0;
	for (i = 0; i < max_files; i++)
		t->files[i].lru_next = i + 1 < max_files ? i + 1 : NIL;
	t->fi.free = 0;
	for (i = 0; i < t->nchunks; i++)
		t->chunks[i].next = i + 1 < t->nchunks ? i + 1 : NIL;
	t->chunk_free = 0;
	return t;
}

/* Free the tables. */
void
proc_free(struct proc_table *t)
{
	if (t == NULL)
		return;
	free(t->pi.slots);
	free(t->procs);
	free(t->fi.slots);
	free(t->files);
	free(t->chunks);
	free(t);
}

/* Mix a 32-bit id into a hash. */
static uint32_t
proc_hash32(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x7feb352dU;
	x ^= x >> 15;
	x *= 0x846ca68bU;
	x ^= x >> 16;
	return x;
}

/* 64-bit FNV-1a with a final mix: the key of a path. */
static uint64_t
proc_hash_path(const char *s, size_t len)
{
	uint64_t	h = 0xcbf29ce484222325ULL;
	size_t		i;

	for (i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ULL;
	}
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	return h;
}

/* The LRU links of entry i of either table. */
#define LRU_PREV(arr, i)	((arr)[i].lru_prev)
#define LRU_NEXT(arr, i)	((arr)[i].lru_next)

/* Unlink entry i from the LRU list. */
#define LRU_UNLINK(ix, arr, i) do {					\
	uint32_t p_ = LRU_PREV(arr, i), n_ = LRU_NEXT(arr, i);		\
	if (p_ != NIL) LRU_NEXT(arr, p_) = n_; else (ix)->head = n_;	\
	if (n_ != NIL) LRU_PREV(arr, n_) = p_; else (ix)->tail = p_;	\
} while (0)

/* Put entry i at the most recently active end. */
#define LRU_PUSH(ix, arr, i) do {					\
	LRU_PREV(arr, i) = NIL;						\
	LRU_NEXT(arr, i) = (ix)->head;					\
	if ((ix)->head != NIL) LRU_PREV(arr, (ix)->head) = (i);		\
	(ix)->head = (i);						\
	if ((ix)->tail == NIL) (ix)->tail = (i);			\
} while (0)

/* Remove the hash slot at pos, shifting followers back (no tombstones). */
static void
proc_slot_delete(struct proc_index *ix, uint32_t pos, uint32_t (*home)(const void *, uint32_t),
    const void *ctx)
{
	uint32_t i = pos, j = pos, k;

	ix->slots[i] = 0;
	for (;;) {
		j = (j + 1) & ix->mask;
		if (ix->slots[j] == 0)
			return;
		k = home(ctx, ix->slots[j] - 1) & ix->mask;
		/* Move slot j into the hole at i unless k lies cyclically in (i, j]. */
		if ((i <= j) ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		ix->slots[i] = ix->slots[j];
		ix->slots[j] = 0;
		i = j;
	}
}

/* Home hash of a process entry. */
static uint32_t
proc_home(const void *ctx, uint32_t e)
{
	const struct proc_table *t = ctx;

	return proc_hash32(t->procs[e].id);
}

/* Home hash of a file entry. */
static uint32_t
file_home(const void *ctx, uint32_t e)
{
	const struct proc_table *t = ctx;

	return (uint32_t)t->files[e].hash;
}

/* Hash slot holding entry e of a table, by its home. */
static uint32_t
proc_slot_of(const struct proc_index *ix, uint32_t home, uint32_t e)
{
	uint32_t pos = home & ix->mask;

	while (ix->slots[pos] != e + 1)
		pos = (pos + 1) & ix->mask;
	return pos;
}

/* Evict the least recently active process. */
static void
proc_evict_proc(struct proc_table *t)
{
	struct proc_index	*ix = &t->pi;
	uint32_t		 e = ix->tail;

	proc_slot_delete(ix, proc_slot_of(ix, proc_home(t, e), e), proc_home, t);
	LRU_UNLINK(ix, t->procs, e);
	t->procs[e].lru_next = ix->free;
	ix->free = e;
	ix->used--;
	ix->evicted++;
}

/* Give a file's path chunks back to the pool. */
static void
proc_chunks_release(struct proc_table *t, uint32_t c)
{
	while (c != NIL) {
		uint32_t next = t->chunks[c].next;

		t->chunks[c].next = t->chunk_free;
		t->chunk_free = c;
		t->chunks_used--;
		c = next;
	}
}

/* Evict the least recently active file. */
static void
proc_evict_file(struct proc_table *t)
{
	struct proc_index	*ix = &t->fi;
	uint32_t		 e = ix->tail;

	proc_slot_delete(ix, proc_slot_of(ix, file_home(t, e), e), file_home, t);
	LRU_UNLINK(ix, t->files, e);
	proc_chunks_release(t, t->files[e].chunk);
	t->files[e].chunk = NIL;
	t->files[e].lru_next = ix->free;
	ix->free = e;
	ix->used--;
	ix->evicted++;
}

/* Clear the interval part of a process if it belongs to an older interval. */
static void
proc_entry_epoch(struct proc_table *t, struct proc_entry *p)
{
	if (p->epoch == t->epoch)
		return;
	memset(&p->iv, 0, sizeof(p->iv));
	memset(p->blk_lat, 0, sizeof(p->blk_lat));
	memset(p->vfs_lat, 0, sizeof(p->vfs_lat));
	p->epoch = t->epoch;
}

static void
file_entry_epoch(struct proc_table *t, struct file_entry *f)
{
	if (f->epoch == t->epoch)
		return;
	memset(&f->iv, 0, sizeof(f->iv));
	memset(f->lat, 0, sizeof(f->lat));
	f->epoch = t->epoch;
}

/* Find or create the process entry for an event; refreshes its LRU place. */
static struct proc_entry *
proc_get(struct proc_table *t, uint32_t pid, uint32_t tgid, const char *comm, uint64_t cgroup,
    uint64_t ts)
{
	struct proc_index	*ix = &t->pi;
	struct proc_entry	*p;
	uint32_t		 id = t->by_thread ? pid : tgid, pos, e;

	pos = proc_hash32(id) & ix->mask;
	while ((e = ix->slots[pos]) != 0) {
		if (t->procs[e - 1].id == id) {
			e--;
			p = &t->procs[e];
			if (ix->head != e) {
				LRU_UNLINK(ix, t->procs, e);
				LRU_PUSH(ix, t->procs, e);
			}
			/* In the folded view the main thread names the process. */
			if (t->by_thread || pid == tgid || p->comm[0] == '\0')
				memcpy(p->comm, comm, sizeof(p->comm));
			p->comm[sizeof(p->comm) - 1] = '\0';
			p->last_ts = ts;
			p->cgroup = cgroup;
			proc_entry_epoch(t, p);
			return p;
		}
		pos = (pos + 1) & ix->mask;
	}
	if (ix->used == ix->cap) {
		proc_evict_proc(t);
		/* The deletion may have shifted the chain: find the free slot again. */
		pos = proc_hash32(id) & ix->mask;
		while (ix->slots[pos] != 0)
			pos = (pos + 1) & ix->mask;
	}
	e = ix->free;
	p = &t->procs[e];
	ix->free = p->lru_next;
	memset(p, 0, sizeof(*p));
	p->id = id;
	p->tgid = tgid;
	memcpy(p->comm, comm, sizeof(p->comm));
	p->comm[sizeof(p->comm) - 1] = '\0';
	p->cgroup = cgroup;
	p->first_ts = p->last_ts = ts;
	p->epoch = t->epoch;
	ix->slots[pos] = e + 1;
	ix->used++;
	LRU_PUSH(ix, t->procs, e);
	return p;
}

/* Whether file entry f holds exactly path. */
static int
proc_path_equal(const struct proc_table *t, const struct file_entry *f, const char *path,
    size_t len)
{
	uint32_t	c = f->chunk;
	size_t		off = 0;

	if (f->path_len != len)
		return 0;
	while (off < len && c != NIL) {
		size_t n = len - off < CHUNK_DATA ? len - off : CHUNK_DATA;

		if (memcmp(t->chunks[c].data, path + off, n) != 0)
			return 0;
		off += n;
		c = t->chunks[c].next;
	}
	return off == len;
}

/* Store path in fresh chunks, evicting files until the pool has room; returns the first. */
static uint32_t
proc_path_store(struct proc_table *t, const char *path, size_t len)
{
	uint32_t	need = (len + CHUNK_DATA - 1) / CHUNK_DATA, first = NIL, *link = &first;
	size_t		off = 0;

	if (need == 0)
		need = 1;
	while (t->nchunks - t->chunks_used < need && t->fi.used > 0)
		proc_evict_file(t);
	while (off < len || first == NIL) {
		size_t		n = len - off < CHUNK_DATA ? len - off : CHUNK_DATA;
		uint32_t	c = t->chunk_free;

		t->chunk_free = t->chunks[c].next;
		t->chunks_used++;
		memcpy(t->chunks[c].data, path + off, n);
		t->chunks[c].next = NIL;
		*link = c;
		link = &t->chunks[c].next;
		off += n;
	}
	return first;
}

/* Find or create the file entry for path; refreshes its LRU place. */
static struct file_entry *
file_get(struct proc_table *t, const char *path, size_t len, uint64_t ts)
{
	struct proc_index	*ix = &t->fi;
	struct file_entry	*f;
	uint64_t		 h;
	uint32_t		 pos, e, chunk;

	if (len >= VFS_PATH_MAX)
		len = VFS_PATH_MAX - 1;
	h = proc_hash_path(path, len);
	pos = (uint32_t)h & ix->mask;
	while ((e = ix->slots[pos]) != 0) {
		f = &t->files[e - 1];
		if (f->hash == h && proc_path_equal(t, f, path, len)) {
			e--;
			if (ix->head != e) {
				LRU_UNLINK(ix, t->files, e);
				LRU_PUSH(ix, t->files, e);
			}
			f->last_ts = ts;
			file_entry_epoch(t, f);
			return f;
		}
		pos = (pos + 1) & ix->mask;
	}
	if (ix->used == ix->cap)
		proc_evict_file(t);
	chunk = proc_path_store(t, path, len);	/* may evict more files */
	pos = (uint32_t)h & ix->mask;
	while (ix->slots[pos] != 0)
		pos = (pos + 1) & ix->mask;
	e = ix->free;
	f = &t->files[e];
	ix->free = f->lru_next;
	memset(f, 0, sizeof(*f));
	f->hash = h;
	f->chunk = chunk;
	f->path_len = len;
	f->first_ts = f->last_ts = ts;
	f->epoch = t->epoch;
	ix->slots[pos] = e + 1;
	ix->used++;
	LRU_PUSH(ix, t->files, e);
	return f;
}

/* Remember that tgid touched file f (a small bounded set). */
static void
file_add_pid(struct file_entry *f, uint32_t tgid)
{
	unsigned i;

	for (i = 0; i < f->npids; i++) {
		if (f->pids[i] == tgid)
			return;
	}
	if (f->npids < PROC_FILE_PIDS)
		f->pids[f->npids++] = tgid;
	else
		f->pids_more = 1;
}

/* Latency into a 32-bit histogram bucket, saturating. */
static void
proc_hist_add(uint32_t *h, uint64_t ns)
{
	unsigned b = hist_bucket(ns);

	if (b < HIST_NBUCKETS && h[b] != UINT32_MAX)
		h[b]++;
}

/* Both counter sets of an entry. */
#define COUNT2(e, field, op) do { (e)->iv.field op; (e)->tot.field op; } while (0)

/* A completed block request: charged to its submitter, kernel threads included. */
void
proc_add_block(struct proc_table *t, const struct ev_block *ev)
{
	struct proc_entry	*p;
	char			 comm[BLKTOP_COMM_LEN];
	uint64_t		 lat;
	unsigned		 d;

	if (ev->op == BLK_OP_READ)
		d = 0;
	else if (ev->op == BLK_OP_WRITE)
		d = 1;
	else
		return;
	memcpy(comm, ev->comm, sizeof(comm));
	if (comm[0] == '\0')
		strcpy(comm, "[unknown]");	/* no start hook saw the submitter */
	p = proc_get(t, ev->pid, ev->tgid, comm, ev->cgroup, ev->ts_done);
	COUNT2(p, blk_ios[d], += 1);
	COUNT2(p, blk_bytes[d], += ev->bytes);
	if (ev->flags & BLK_F_NOLAT)
		return;
	lat = ev->ts_done > ev->ts_issue ? ev->ts_done - ev->ts_issue : 0;
	COUNT2(p, blk_lat_sum, += lat);
	proc_hist_add(p->blk_lat, lat);
}

/* The path a VFS event is filed under: its own, or a name for pathless files. */
static const char *
proc_event_path(struct proc_table *t, const char *path, uint16_t len, uint16_t pflags,
    uint16_t ftype, uint64_t ino, size_t *lenp)
{
	const char *kind;

	if (len > 0 && !(pflags & VFS_PF_NOPATH)) {
		*lenp = len;
		return path;
	}
	switch (ftype) {
	case VFS_FT_FIFO:	kind = "pipe"; break;
	case VFS_FT_SOCK:	kind = "socket"; break;
	case VFS_FT_NONE:	kind = "closed"; break;
	default:		kind = "anon"; break;
	}
	*lenp = snprintf(t->name, sizeof(t->name), "%s:[%llu]", kind, (unsigned long long)ino);
	return t->name;
}

/* One open: counted on the process and on the file (failed ones under the path asked for). */
void
proc_add_open(struct proc_table *t, const struct ev_open *ev)
{
	struct proc_entry	*p;
	struct file_entry	*f;
	const char		*path;
	size_t			 len;
	char			 comm[BLKTOP_COMM_LEN];

	memcpy(comm, ev->comm, sizeof(comm));
	p = proc_get(t, ev->pid, ev->tgid, comm, ev->cgroup, ev->ts);
	path = proc_event_path(t, ev->path, ev->path_len, ev->path_flags, ev->ftype, ev->ino,
	    &len);
	f = file_get(t, path, len, ev->ts);
	f->ftype = ev->ftype;
	f->path_flags = ev->path_flags;
	if (ev->ret >= 0) {
		COUNT2(p, opens, += 1);
		COUNT2(f, opens, += 1);
		f->dev = ev->dev;
		f->ino = ev->ino;
	} else {
		COUNT2(p, open_fails, += 1);
		COUNT2(f, open_fails, += 1);
	}
	file_add_pid(f, ev->tgid);
}

/* One read/write call: on the process and on the file. */
void
proc_add_rw(struct proc_table *t, const struct ev_rw *ev)
{
	struct proc_entry	*p;
	struct file_entry	*f;
	const char		*path;
	size_t			 len;
	unsigned		 d = ev->op == BLK_OP_WRITE;
	char			 comm[BLKTOP_COMM_LEN];

	memcpy(comm, ev->comm, sizeof(comm));
	p = proc_get(t, ev->pid, ev->tgid, comm, ev->cgroup, ev->ts);
	path = proc_event_path(t, ev->path, ev->path_len, ev->path_flags, ev->ftype, ev->ino,
	    &len);
	f = file_get(t, path, len, ev->ts);
	f->ftype = ev->ftype;
	f->path_flags = ev->path_flags;
	f->dev = ev->dev;
	f->ino = ev->ino;
	file_add_pid(f, ev->tgid);

	COUNT2(p, vfs_calls[d], += 1);
	COUNT2(p, vfs_bytes[d], += ev->done);
	COUNT2(p, vfs_asked[d], += ev->asked);
	COUNT2(p, vfs_lat_sum, += ev->lat_ns);
	COUNT2(f, vfs_calls[d], += 1);
	COUNT2(f, vfs_bytes[d], += ev->done);
	COUNT2(f, vfs_asked[d], += ev->asked);
	COUNT2(f, vfs_lat_sum, += ev->lat_ns);
	if (ev->error != 0) {
		COUNT2(p, vfs_errors, += 1);
		COUNT2(f, vfs_errors, += 1);
	}
	if (ev->lat_ns > p->iv.vfs_lat_max)
		p->iv.vfs_lat_max = ev->lat_ns;
	if (ev->lat_ns > p->tot.vfs_lat_max)
		p->tot.vfs_lat_max = ev->lat_ns;
	if (ev->lat_ns > f->iv.vfs_lat_max)
		f->iv.vfs_lat_max = ev->lat_ns;
	if (ev->lat_ns > f->tot.vfs_lat_max)
		f->tot.vfs_lat_max = ev->lat_ns;
	proc_hist_add(p->vfs_lat, ev->lat_ns);
	proc_hist_add(f->lat, ev->lat_ns);
}

/*
 * Any record of the stream: EV_BLOCK, EV_OPEN and EV_RW are checked against
 * len and added; 0 if used, 1 if not a type for these tables, -1 if malformed.
 */
int
proc_add(struct proc_table *t, const void *rec, size_t len)
{
	uint32_t type;

	if (len < sizeof(type))
		goto bad;
	memcpy(&type, rec, sizeof(type));
	switch (type) {
	case EV_BLOCK:
		if (len < sizeof(struct ev_block))
			goto bad;
		proc_add_block(t, rec);
		return 0;
	case EV_OPEN: {
		const struct ev_open *ev = rec;

		if (len < sizeof(*ev) || ev->path_len >= VFS_PATH_MAX ||
		    len < EV_OPEN_SIZE(ev->path_len))
			goto bad;
		proc_add_open(t, ev);
		return 0;
	}
	case EV_RW: {
		const struct ev_rw *ev = rec;

		if (len < sizeof(*ev) || ev->path_len >= VFS_PATH_MAX ||
		    len < EV_RW_SIZE(ev->path_len) || ev->op > BLK_OP_WRITE)
			goto bad;
		proc_add_rw(t, ev);
		return 0;
	}
	}
	return 1;
bad:
	t->bad++;
	return -1;
}

/* Close the current interval: later events count into a fresh one. */
void
proc_interval(struct proc_table *t)
{
	t->epoch++;
}

/* The counters an entry has for the current interval (zeros if idle), or since first seen. */
static const struct proc_counts *
proc_counts_of(const struct proc_table *t, const struct proc_counts *iv,
    const struct proc_counts *tot, uint64_t epoch, int total)
{
	static const struct proc_counts zero;

	if (total)
		return tot;
	return epoch == t->epoch ? iv : &zero;
}

/* Value of key k in a set of counters. */
static uint64_t
proc_counts_key(const struct proc_counts *c, enum proc_key k)
{
	switch (k) {
	case PROC_KEY_READ_BYTES:	return c->blk_bytes[0];
	case PROC_KEY_WRITE_BYTES:	return c->blk_bytes[1];
	case PROC_KEY_READ_IOS:		return c->blk_ios[0];
	case PROC_KEY_WRITE_IOS:	return c->blk_ios[1];
	case PROC_KEY_VFS_READ_BYTES:	return c->vfs_bytes[0];
	case PROC_KEY_VFS_WRITE_BYTES:	return c->vfs_bytes[1];
	case PROC_KEY_VFS_READS:	return c->vfs_calls[0];
	case PROC_KEY_VFS_WRITES:	return c->vfs_calls[1];
	case PROC_KEY_OPENS:		return c->opens + c->open_fails;
	case PROC_KEY_LAT:		return c->vfs_lat_sum + c->blk_lat_sum;
	default:			return 0;
	}
}

/* An entry's counters: the current interval's (zeros if idle) or its totals. */
const struct proc_counts *
proc_entry_counts(const struct proc_table *t, const struct proc_entry *p, int total)
{
	return proc_counts_of(t, &p->iv, &p->tot, p->epoch, total);
}

const struct proc_counts *
proc_file_counts(const struct proc_table *t, const struct file_entry *f, int total)
{
	return proc_counts_of(t, &f->iv, &f->tot, f->epoch, total);
}

/* One candidate of a top-N selection. */
struct proc_cand {
	uint64_t	 v;
	uint64_t	 tie;		/* smaller wins among equal values */
	uint32_t	 e;
};

/* Whether a ranks before b. */
static int
proc_cand_before(const struct proc_cand *a, const struct proc_cand *b)
{
	if (a->v != b->v)
		return a->v > b->v;
	return a->tie < b->tie;
}

/* Sift down in a heap whose root is the worst kept candidate. */
static void
proc_heap_down(struct proc_cand *h, unsigned n, unsigned i)
{
	for (;;) {
		unsigned l = 2 * i + 1, r = l + 1, w = i;
		struct proc_cand tmp;

		if (l < n && proc_cand_before(&h[w], &h[l]))
			w = l;
		if (r < n && proc_cand_before(&h[w], &h[r]))
			w = r;
		if (w == i)
			return;
		tmp = h[i];
		h[i] = h[w];
		h[w] = tmp;
		i = w;
	}
}

/* Offer a candidate to a bounded heap of the n best. */
static void
proc_heap_offer(struct proc_cand *h, unsigned *len, unsigned n, const struct proc_cand *c)
{
	unsigned i;

	if (*len < n) {
		i = (*len)++;
		h[i] = *c;
		while (i > 0 && proc_cand_before(&h[(i - 1) / 2], &h[i])) {
			struct proc_cand tmp = h[i];

			h[i] = h[(i - 1) / 2];
			h[(i - 1) / 2] = tmp;
			i = (i - 1) / 2;
		}
		return;
	}
	if (n == 0 || !proc_cand_before(c, &h[0]))
		return;
	h[0] = *c;
	proc_heap_down(h, n, 0);
}

static int
proc_cand_cmp(const void *a, const void *b)
{
	const struct proc_cand *x = a, *y = b;

	return proc_cand_before(x, y) ? -1 : proc_cand_before(y, x) ? 1 : 0;
}

#define PROC_TOP_MAX	1024	/* most entries one top call returns */

/*
 * The n processes ranking first by key k, best first: over the current
 * interval (only entries active in it) or, if total, since first seen. Returns
 * how many were stored in out; they stay valid until the next event.
 */
unsigned
proc_top(const struct proc_table *t, enum proc_key k, int total,
    const struct proc_entry **out, unsigned n)
{
	struct proc_cand	 heap[PROC_TOP_MAX], c;
	unsigned		 len = 0, i;
	uint32_t		 e;

	if (n > PROC_TOP_MAX)
		n = PROC_TOP_MAX;
	for (e = t->pi.head; e != NIL; e = t->procs[e].lru_next) {
		const struct proc_entry *p = &t->procs[e];

		if (!total && p->epoch != t->epoch)
			break;	/* LRU order: the rest were idle this interval too */
		c.v = proc_counts_key(proc_entry_counts(t, p, total), k);
		c.tie = p->id;
		c.e = e;
		proc_heap_offer(heap, &len, n, &c);
	}
	qsort(heap, len, sizeof(heap[0]), proc_cand_cmp);
	for (i = 0; i < len; i++)
		out[i] = &t->procs[heap[i].e];
	return len;
}

/* The same for files; ties go to the file seen first. */
unsigned
proc_top_files(const struct proc_table *t, enum proc_key k, int total,
    const struct file_entry **out, unsigned n)
{
	struct proc_cand	 heap[PROC_TOP_MAX], c;
	unsigned		 len = 0, i;
	uint32_t		 e;

	if (n > PROC_TOP_MAX)
		n = PROC_TOP_MAX;
	for (e = t->fi.head; e != NIL; e = t->files[e].lru_next) {
		const struct file_entry *f = &t->files[e];

		if (!total && f->epoch != t->epoch)
			break;
		c.v = proc_counts_key(proc_file_counts(t, f, total), k);
		c.tie = f->first_ts;
		c.e = e;
		proc_heap_offer(heap, &len, n, &c);
	}
	qsort(heap, len, sizeof(heap[0]), proc_cand_cmp);
	for (i = 0; i < len; i++)
		out[i] = &t->files[heap[i].e];
	return len;
}

/* Copy a file's path into buf (NUL-terminated, cut to len); returns its full length. */
size_t
proc_file_path(const struct proc_table *t, const struct file_entry *f, char *buf, size_t len)
{
	uint32_t	c = f->chunk;
	size_t		off = 0;

	while (c != NIL && off < f->path_len) {
		size_t n = f->path_len - off < CHUNK_DATA ? f->path_len - off : CHUNK_DATA;

		if (len > 0 && off < len - 1)
			memcpy(buf + off, t->chunks[c].data,
			    off + n < len - 1 ? n : len - 1 - off);
		off += n;
		c = t->chunks[c].next;
	}
	if (len > 0)
		buf[off < len - 1 ? off : len - 1] = '\0';
	return f->path_len;
}

/* Percentile p (0..100) of a 32-bit interval histogram, in ns; 0 if empty. */
static uint64_t
proc_hist_pct(const uint32_t *h, double p)
{
	uint64_t	b[HIST_NBUCKETS], n = 0;
	unsigned	i;

	for (i = 0; i < HIST_NBUCKETS; i++)
		n += b[i] = h[i];
	return n ? (uint64_t)hist_percentile(b, n, p) : 0;
}

/* Interval percentile of a file's read/write call latency, ns. */
uint64_t
proc_file_lat(const struct proc_table *t, const struct file_entry *f, double p)
{
	return f->epoch == t->epoch ? proc_hist_pct(f->lat, p) : 0;
}

/* Interval percentile of a process's read/write call (vfs) or device (block) latency, ns. */
uint64_t
proc_entry_lat(const struct proc_table *t, const struct proc_entry *e, int block, double p)
{
	if (e->epoch != t->epoch)
		return 0;
	return proc_hist_pct(block ? e->blk_lat : e->vfs_lat, p);
}

/* Sizes and eviction counts. */
void
proc_stats(const struct proc_table *t, struct proc_stats *s)
{
	s->procs = t->pi.used;
	s->max_procs = t->pi.cap;
	s->procs_evicted = t->pi.evicted;
	s->files = t->fi.used;
	s->max_files = t->fi.cap;
	s->files_evicted = t->fi.evicted;
	s->chunks_used = t->chunks_used;
	s->nchunks = t->nchunks;
	s->bad = t->bad;
	s->by_thread = t->by_thread;
}
