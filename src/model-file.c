/* model-file.c: the model's file table: files by path, paths kept in a pool of fixed chunks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "proc.h"
#include "model.h"

/*
 * A path is stored once, when its file is first seen, in a chain of
 * PROC_CHUNK_SIZE chunks from a pool sized at proc_create (its pages taken as
 * it fills); a path that finds the pool full evicts the least recently active
 * files until it fits.
 */

/* A path being looked up, of a host (a run of several hosts: proc_set_host) or HOST_NONE (-1). */
struct model_file_key {
	uint64_t	 hash;
	const char	*path;
	size_t		 len;
	int		 host;
};

/* Chunks the pool holds for max_files files: enough for one longest path at least. */
static uint32_t
model_file_nchunks(unsigned max_files)
{
	uint32_t n = max_files * PROC_CHUNKS_PER_FILE;

	if (n < VFS_PATH_MAX / PROC_CHUNK_DATA + 2)
		n = VFS_PATH_MAX / PROC_CHUNK_DATA + 2;
	return (n);
}

/*
 * The key of a path of a host: in a run of several hosts a file is its
 * host's (as a process is), so /data/x of two hosts are two files; in a run
 * of one (host -1) the path's own.
 */
static uint64_t
model_file_hash(const char *s, size_t len, int host)
{
	uint64_t	 h = name_hash(s, len, 0);

	return (host >= 0 ? h ^ (uint64_t)(host + 1) * 0x9e3779b97f4a7c15ULL : h);
}

/* Sets of the by-inode table: PROC_INO_WAYS ways each, two slots per file. */
static uint32_t
model_file_ino_nsets(unsigned max_files)
{
	return (model_index_nsets(2ULL * max_files, PROC_INO_WAYS));
}

/* Bytes model_file_table_init allocates for max_files files. */
size_t
model_file_table_size(unsigned max_files)
{
	return (model_index_size(max_files) + (size_t)max_files * sizeof(struct file_entry) +
	    (size_t)model_file_nchunks(max_files) * sizeof(struct proc_chunk) +
	    (size_t)model_file_ino_nsets(max_files) * PROC_INO_WAYS * sizeof(uint32_t));
}

/* Allocate the file table and its chunk pool for max_files files. */
void
model_file_table_init(struct proc_table *t, unsigned max_files)
{
	uint32_t i;

	model_index_init(&t->fi, max_files, t);
	t->files = model_index_entries(max_files, sizeof(*t->files));
	t->nchunks = model_file_nchunks(max_files);
	t->chunks = model_index_entries(t->nchunks, sizeof(*t->chunks));
	t->chunk_free = MODEL_NIL;
	t->chunk_fresh = 0;
	t->ino_mask = model_file_ino_nsets(max_files) - 1;
	t->by_ino = xcalloc((size_t)(t->ino_mask + 1) * PROC_INO_WAYS, sizeof(*t->by_ino));
	for (i = 0; i < (t->ino_mask + 1) * PROC_INO_WAYS; i++)
		t->by_ino[i] = MODEL_NIL;
	t->ino_hint = MODEL_NIL;
}

/* Free the file table. */
void
model_file_table_free(struct proc_table *t)
{
	model_index_free(&t->fi);
	model_index_entries_free(t->files, t->fi.cap, sizeof(*t->files));
	model_index_entries_free(t->chunks, t->nchunks, sizeof(*t->chunks));
	free(t->by_ino);
}

/* Give a chain of path chunks back to the pool. */
static void
model_file_chunks_release(struct proc_table *t, uint32_t c)
{
	while (c != MODEL_NIL) {
		uint32_t next = t->chunks[c].next;

		t->chunks[c].next = t->chunk_free;
		t->chunk_free = c;
		t->chunks_used--;
		c = next;
	}
}

/* Evict the least recently active file, its path with it. */
static void
model_file_evict(struct proc_table *t)
{
	uint32_t e = model_index_evict(&t->fi);

	model_file_chunks_release(t, t->files[e].chunk);
	t->files[e].chunk = MODEL_NIL;
	t->files[e].ino = 0;	/* out of the by-inode table: its slot no longer matches */
	t->files[e].dev = 0;
}

/* Whether file entry e holds exactly the path of key k; inline in model_file_get's test of its hint, once a call. */
static inline __attribute__((always_inline)) int
model_file_same(const void *ctx, uint32_t e, const void *k)
{
	const struct proc_table		*t = ctx;
	const struct model_file_key	*key = k;
	const struct file_entry		*f = &t->files[e];
	uint32_t			 c = f->chunk;
	size_t				 off = 0;

	if (f->hash != key->hash || f->path_len != key->len || f->host != key->host)
		return (0);
	while (off < key->len && c != MODEL_NIL) {
		size_t n = key->len - off < PROC_CHUNK_DATA ? key->len - off : PROC_CHUNK_DATA;

		if (memcmp(t->chunks[c].data, key->path + off, n) != 0)
			return (0);
		off += n;
		c = t->chunks[c].next;
	}
	return (off == key->len);
}

/* Store path in fresh chunks, evicting files until the pool has room; returns the first. */
static uint32_t
model_file_path_store(struct proc_table *t, const char *path, size_t len)
{
	uint32_t	need = (len + PROC_CHUNK_DATA - 1) / PROC_CHUNK_DATA, first = MODEL_NIL;
	uint32_t	*link = &first;
	size_t		off = 0;

	if (need == 0)
		need = 1;
	while (t->nchunks - t->chunks_used < need && t->fi.used > 0)
		model_file_evict(t);
	while (off < len || first == MODEL_NIL) {
		size_t		n = len - off < PROC_CHUNK_DATA ? len - off : PROC_CHUNK_DATA;
		uint32_t	c = t->chunk_free;

		if (c != MODEL_NIL)
			t->chunk_free = t->chunks[c].next;
		else
			c = t->chunk_fresh++;	/* the pool's never-used chunks, lowest first */
		t->chunks_used++;
		memcpy(t->chunks[c].data, path + off, n);
		t->chunks[c].next = MODEL_NIL;
		*link = c;
		link = &t->chunks[c].next;
		off += n;
	}
	return (first);
}

/* Clear the interval part of a file if it belongs to an older interval. */
static void
model_file_epoch(struct proc_table *t, struct file_entry *f)
{
	if (f->epoch == t->epoch)
		return;
	memset(&f->iv, 0, sizeof(f->iv));
	memset(&f->lat, 0, sizeof(f->lat));
	memset(&f->blk_lat, 0, sizeof(f->blk_lat));
	f->epoch = t->epoch;
}

/* File entry e changed (its access pattern, judged late): active in this interval, its row shown. */
void
model_file_active(struct proc_table *t, uint32_t e)
{
	model_index_touch(&t->fi, e);
	model_file_epoch(t, &t->files[e]);
}

/*
 * A path's last 8 bytes (fewer, zero-padded, if shorter): files of one
 * directory differ there, so a wrong hint is refused at once.
 */
static uint64_t
model_file_tail(const char *path, size_t len)
{
	uint64_t	 w = 0;

	if (len >= 8)
		memcpy(&w, path + len - 8, 8);
	else if (len > 0)
		memcpy(&w, path, len);
	return (w ^ len);
}

/*
 * Whether the file found last (t->file_hint) holds the path of key (its
 * tail given, its hash not yet): a path of one chunk, the common one, is
 * compared word by word without a call, its last 8 bytes being the tail
 * (fio's libaio job: the file's part of a call 203 instructions to 85 with
 * no name hashed or probed for, callgrind); a longer one by model_file_same.
 * An entry evicted since holds no path (chunk MODEL_NIL) or another one.
 */
static inline __attribute__((always_inline)) int
model_file_hint_holds(const struct proc_table *t, struct model_file_key *key, uint64_t tail)
{
	const struct file_entry	*f;
	const char		*data;
	uint64_t		 a, b;
	size_t			 off;

	if (t->file_hint == MODEL_NIL || t->file_hint_tail != tail)
		return (0);
	f = &t->files[t->file_hint];
	if (f->chunk == MODEL_NIL || f->path_len != key->len || f->host != key->host)
		return (0);
	if (key->len > PROC_CHUNK_DATA) {
		key->hash = f->hash;	/* model_file_same asks it first */
		return (model_file_same(t, t->file_hint, key));
	}
	data = t->chunks[f->chunk].data;
	for (off = 0; off + 8 < key->len; off += 8) {	/* the words before the tail */
		memcpy(&a, data + off, 8);
		memcpy(&b, key->path + off, 8);
		if (a != b)
			return (0);
	}
	return (1);
}

/* A new file entry for the path of key (its hash, host, tail set), evicting as the table and pool need. */
static __attribute__((noinline)) struct file_entry *
model_file_new(struct proc_table *t, const struct model_file_key *key, uint64_t tail, uint64_t ts)
{
	struct file_entry	*f;
	uint32_t		 e, chunk;

	if (t->fi.used == t->fi.cap)
		model_file_evict(t);
	chunk = model_file_path_store(t, key->path, key->len);	/* may evict more files */
	e = model_index_add(&t->fi, (uint32_t)key->hash);
	f = &t->files[e];
	t->file_hint = e;
	t->file_hint_tail = tail;
	memset(f, 0, sizeof(*f));
	f->hash = key->hash;
	f->host = (int16_t)key->host;
	f->chunk = chunk;
	f->path_len = key->len;
	f->first_ts = f->last_ts = ts;
	f->epoch = t->epoch;
	return (f);
}

/*
 * Find or create the file entry for path; refreshes its LRU place. Inline,
 * the creation out of line: once a call record.
 */
static inline __attribute__((always_inline)) struct file_entry *
model_file_get(struct proc_table *t, const char *path, size_t len, uint64_t ts)
{
	struct model_file_key	 key;
	struct file_entry	*f;
	uint32_t		 e;
	uint64_t		 tail;

	if (len >= VFS_PATH_MAX)
		len = VFS_PATH_MAX - 1;
	key.path = path;
	key.len = len;
	key.host = t->host;
	/* The file found last first: calls come in runs on one file. */
	tail = model_file_tail(path, len);
	if (model_file_hint_holds(t, &key, tail))
		e = t->file_hint;
	else {
		key.hash = model_file_hash(path, len, key.host);
		e = model_index_find(&t->fi, (uint32_t)key.hash, model_file_same, &key);
	}
	if (e != MODEL_NIL) {
		t->file_hint = e;
		t->file_hint_tail = tail;
		f = &t->files[e];
		if (t->fi.head != e)	/* mostly it is: no call */
			model_index_touch(&t->fi, e);
		f->last_ts = ts;
		model_file_epoch(t, f);
		return (f);
	}
	return (model_file_new(t, &key, tail, ts));
}

/*
 * The file of this path of this host (a file_entry's host: HOST_NONE in a
 * run of one) if the table holds it, else NULL; nothing changes (a view's
 * lookup). Two hosts' /data/x are two files: the one asked for, never the other.
 */
const struct file_entry *
model_file_find(struct proc_table *t, const char *path, int host)
{
	struct model_file_key	 key;
	uint32_t		 e;

	key.path = path;
	key.len = strnlen(path, VFS_PATH_MAX - 1);
	key.host = host;
	key.hash = model_file_hash(path, key.len, key.host);
	e = model_index_find(&t->fi, (uint32_t)key.hash, model_file_same, &key);
	return (e == MODEL_NIL ? NULL : &t->files[e]);
}

/* Remember that tgid touched file f (a small bounded set). */
void
model_file_add_pid(struct file_entry *f, uint32_t tgid)
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

/* The last component of a path of len bytes, and its length. */
static const char *
model_file_last(const char *path, size_t len, size_t *lenp)
{
	const char *p = path + len;

	while (p > path && p[-1] != '/')
		p--;
	*lenp = len - (size_t)(p - path);
	return (p);
}

/*
 * The name a VFS event is filed under: its path; a deleted file's last path
 * with " (deleted)"; pseudo and pathless files named by what they are, as
 * /proc/PID/fd shows them: pipe:[ino], socket:[ino], anon_inode:[eventfd],
 * memfd:NAME.
 */
static const char *
model_file_name(struct proc_table *t, const char *path, uint16_t len, uint16_t pflags,
    uint16_t ftype, uint64_t ino, size_t *lenp)
{
	const char	*kind, *last;
	size_t		 n;
	int		 w;

	if (ftype == VFS_FT_REG && (pflags & VFS_PF_UNREACHABLE)) {
		last = model_file_last(path, len, &n);
		if (n > 6 && memcmp(last, "memfd:", 6) == 0) {
			*lenp = n;
			return (last);
		}
	}
	if (len > 0 && !(pflags & (VFS_PF_NOPATH | VFS_PF_PSEUDO))) {
		if (!(pflags & VFS_PF_DELETED) || ftype != VFS_FT_REG ||
		    (size_t)len + sizeof " (deleted)" > sizeof t->name2) {
			*lenp = len;
			return (path);
		}
		memcpy(t->name2, path, len);
		memcpy(t->name2 + len, " (deleted)", sizeof " (deleted)");
		*lenp = len + sizeof " (deleted)" - 1;
		return (t->name2);
	}
	last = model_file_last(path, len, &n);
	switch (ftype) {
	case VFS_FT_FIFO:	kind = "pipe"; break;
	case VFS_FT_SOCK:	kind = "socket"; break;
	case VFS_FT_NONE:	kind = "closed"; break;
	default:
		if ((pflags & VFS_PF_PSEUDO) && n > 0 && n < sizeof t->name - 12) {
			/* An anon inode's dentry is its class: "[eventfd]". */
			w = snprintf(t->name, sizeof t->name, "%s%.*s",
			    last[0] == '[' ? "anon_inode:" : "", (int)n, last);
			*lenp = (size_t)w;
			return (t->name);
		}
		kind = "anon_inode";
		break;
	}
	*lenp = snprintf(t->name, sizeof(t->name), "%s:[%llu]", kind, (unsigned long long)ino);
	return (t->name);
}

/* The file a VFS event of tgid is about, found or created, with the type and flags it saw. */
struct file_entry *
model_file_event(struct proc_table *t, const char *path, uint16_t len, uint16_t pflags,
    uint16_t ftype, uint64_t ino, uint32_t tgid, uint64_t ts)
{
	struct file_entry	*f;
	size_t			 n;

	path = model_file_name(t, path, len, pflags, ftype, ino, &n);
	f = model_file_get(t, path, n, ts);
	f->ftype = ftype;
	f->path_flags = pflags;
	model_file_add_pid(f, tgid);
	return (f);
}

/*
 * Files by inode. A slot holds an entry number and is checked against the
 * entry's own dev and ino on lookup, so an evicted or reused entry never
 * matches; a set full of live files drops its least recently active way
 * (that file is found by its path again at its next call).
 */
static uint32_t *
model_file_ino_set(const struct proc_table *t, uint32_t dev, uint64_t ino)
{
	uint64_t h = (ino ^ (uint64_t)dev << 40) * 0x9e3779b97f4a7c15ULL;

	return (&t->by_ino[((h >> 32) & t->ino_mask) * PROC_INO_WAYS]);
}

/* Whether slot value e names the live file (dev, ino). */
static int
model_file_ino_match(const struct proc_table *t, uint32_t e, uint32_t dev, uint64_t ino)
{
	return (e != MODEL_NIL && t->files[e].ino == ino && t->files[e].dev == dev &&
	    t->files[e].host == t->host);
}

/*
 * File f is (dev, ino): remember it so block requests and page events find
 * it. t->ino_hint is the entry this last found in or put into the table: a
 * slot is only ever written here, and each write makes its entry the hint,
 * so the hint's slot is still its own while its dev and ino are unchanged.
 */
static void
model_file_set_ino_slow(struct proc_table *t, struct file_entry *f, uint32_t dev, uint64_t ino)
{
	uint32_t	*set, e = f - t->files, w, pick = PROC_INO_WAYS;

	if (f->ino == ino && f->dev == dev && ino != 0) {
		set = model_file_ino_set(t, dev, ino);
		for (w = 0; w < PROC_INO_WAYS; w++) {
			if (set[w] == e) {
				t->ino_hint = e;
				return;		/* the common case: known already */
			}
		}
	}
	f->dev = dev;
	f->ino = ino;
	if (ino == 0)
		return;
	t->ino_hint = e;
	set = model_file_ino_set(t, dev, ino);
	for (w = 0; w < PROC_INO_WAYS; w++) {
		if (set[w] == e || model_file_ino_match(t, set[w], dev, ino)) {
			set[w] = e;	/* the newest entry of an inode wins: a path over inode:[] */
			return;
		}
	}
	for (w = 0; w < PROC_INO_WAYS && pick == PROC_INO_WAYS; w++) {
		uint32_t o = set[w];

		if (o == MODEL_NIL || t->files[o].ino == 0 ||
		    model_file_ino_set(t, t->files[o].dev, t->files[o].ino) != set)
			pick = w;	/* free, evicted, or reused for another set's inode */
	}
	if (pick == PROC_INO_WAYS) {
		pick = 0;
		for (w = 1; w < PROC_INO_WAYS; w++) {
			if (t->files[set[w]].last_ts < t->files[set[pick]].last_ts)
				pick = w;
		}
	}
	set[pick] = e;
}

/* File f is (dev, ino): remember it so block requests and page events find it. */
void
model_file_set_ino(struct proc_table *t, struct file_entry *f, uint32_t dev, uint64_t ino)
{
	if ((uint32_t)(f - t->files) != t->ino_hint || f->ino != ino || f->dev != dev || ino == 0)
		model_file_set_ino_slow(t, f, dev, ino);
}

/*
 * The file (dev, ino), by inode; one named inode:[MAJ:MIN:INO] if no call
 * of this run named it (opened before blktop started, and only mapped or
 * written back since).
 */
struct file_entry *
model_file_by_ino(struct proc_table *t, uint32_t dev, uint64_t ino, uint64_t ts)
{
	struct file_entry	*f;
	uint32_t		*set = model_file_ino_set(t, dev, ino), w;
	char			 name[64];
	int			 n;

	for (w = 0; w < PROC_INO_WAYS; w++) {
		if (model_file_ino_match(t, set[w], dev, ino)) {
			f = &t->files[set[w]];
			model_index_touch(&t->fi, set[w]);
			f->last_ts = ts;
			model_file_epoch(t, f);
			return (f);
		}
	}
	n = snprintf(name, sizeof name, "inode:[%u:%u:%llu]", DEV_MAJOR(dev), DEV_MINOR(dev),
	    (unsigned long long)ino);
	f = model_file_get(t, name, n, ts);
	f->ftype = VFS_FT_REG;
	f->path_flags = VFS_PF_NOPATH;
	model_file_set_ino(t, f, dev, ino);
	return (f);
}

/* A file by a name of blktop's own (metadata:[7:0]), found or created. */
struct file_entry *
model_file_named(struct proc_table *t, const char *name, uint64_t ts)
{
	struct file_entry *f = model_file_get(t, name, strlen(name), ts);

	f->path_flags = VFS_PF_NOPATH;
	return (f);
}

/* Copy a file's path into buf (NUL-terminated, cut to len); returns its full length. */
size_t
model_file_path(const struct proc_table *t, const struct file_entry *f, char *buf, size_t len)
{
	uint32_t	c = f->chunk;
	size_t		off = 0;

	while (c != MODEL_NIL && off < f->path_len) {
		size_t n = f->path_len - off < PROC_CHUNK_DATA ? f->path_len - off :
		    PROC_CHUNK_DATA;

		if (len > 0 && off < len - 1)
			memcpy(buf + off, t->chunks[c].data,
			    off + n < len - 1 ? n : len - 1 - off);
		off += n;
		c = t->chunks[c].next;
	}
	if (len > 0)
		buf[off < len - 1 ? off : len - 1] = '\0';
	return (f->path_len);
}
