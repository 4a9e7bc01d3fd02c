/* model-file.c: the model's file table: files by path, paths kept in a pool of fixed chunks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blktop.h"

/*
 * A path is stored once, when its file is first seen, in a chain of
 * PROC_CHUNK_SIZE chunks from a pool sized at proc_create; a path that finds
 * the pool full evicts the least recently active files until it fits.
 */

/* A path being looked up. */
struct proc_file_key {
	uint64_t	 hash;
	const char	*path;
	size_t		 len;
};

/* Chunks the pool holds for max_files files: enough for one longest path at least. */
static uint32_t
proc_file_nchunks(unsigned max_files)
{
	uint32_t n = max_files * PROC_CHUNKS_PER_FILE;

	if (n < VFS_PATH_MAX / PROC_CHUNK_DATA + 2)
		n = VFS_PATH_MAX / PROC_CHUNK_DATA + 2;
	return n;
}

/* 64-bit FNV-1a with a final mix: the key of a path. */
static uint64_t
proc_file_hash(const char *s, size_t len)
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

/* Bytes proc_file_table_init allocates for max_files files. */
size_t
proc_file_table_size(unsigned max_files)
{
	return model_index_size(max_files) + (size_t)max_files * sizeof(struct file_entry) +
	    (size_t)proc_file_nchunks(max_files) * sizeof(struct proc_chunk);
}

/* Allocate the file table and its chunk pool for max_files files. */
void
proc_file_table_init(struct proc_table *t, unsigned max_files)
{
	uint32_t i;

	model_index_init(&t->fi, max_files, t);
	t->files = model_index_entries(max_files, sizeof(*t->files));
	t->nchunks = proc_file_nchunks(max_files);
	t->chunks = xcalloc(t->nchunks, sizeof(*t->chunks));
	for (i = 0; i < t->nchunks; i++)
		t->chunks[i].next = i + 1 < t->nchunks ? i + 1 : MODEL_NIL;
	t->chunk_free = 0;
}

/* Free the file table. */
void
proc_file_table_free(struct proc_table *t)
{
	model_index_free(&t->fi);
	free(t->files);
	free(t->chunks);
}

/* Give a chain of path chunks back to the pool. */
static void
proc_file_chunks_release(struct proc_table *t, uint32_t c)
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
proc_file_evict(struct proc_table *t)
{
	uint32_t e = model_index_evict(&t->fi);

	proc_file_chunks_release(t, t->files[e].chunk);
	t->files[e].chunk = MODEL_NIL;
}

/* Whether file entry e holds exactly the path of key k. */
static int
proc_file_same(const void *ctx, uint32_t e, const void *k)
{
	const struct proc_table		*t = ctx;
	const struct proc_file_key	*key = k;
	const struct file_entry		*f = &t->files[e];
	uint32_t			 c = f->chunk;
	size_t				 off = 0;

	if (f->hash != key->hash || f->path_len != key->len)
		return 0;
	while (off < key->len && c != MODEL_NIL) {
		size_t n = key->len - off < PROC_CHUNK_DATA ? key->len - off : PROC_CHUNK_DATA;

		if (memcmp(t->chunks[c].data, key->path + off, n) != 0)
			return 0;
		off += n;
		c = t->chunks[c].next;
	}
	return off == key->len;
}

/* Store path in fresh chunks, evicting files until the pool has room; returns the first. */
static uint32_t
proc_file_path_store(struct proc_table *t, const char *path, size_t len)
{
	uint32_t	need = (len + PROC_CHUNK_DATA - 1) / PROC_CHUNK_DATA, first = MODEL_NIL;
	uint32_t	*link = &first;
	size_t		off = 0;

	if (need == 0)
		need = 1;
	while (t->nchunks - t->chunks_used < need && t->fi.used > 0)
		proc_file_evict(t);
	while (off < len || first == MODEL_NIL) {
		size_t		n = len - off < PROC_CHUNK_DATA ? len - off : PROC_CHUNK_DATA;
		uint32_t	c = t->chunk_free;

		t->chunk_free = t->chunks[c].next;
		t->chunks_used++;
		memcpy(t->chunks[c].data, path + off, n);
		t->chunks[c].next = MODEL_NIL;
		*link = c;
		link = &t->chunks[c].next;
		off += n;
	}
	return first;
}

/* Clear the interval part of a file if it belongs to an older interval. */
static void
proc_file_epoch(struct proc_table *t, struct file_entry *f)
{
	if (f->epoch == t->epoch)
		return;
	memset(&f->iv, 0, sizeof(f->iv));
	memset(f->lat, 0, sizeof(f->lat));
	f->epoch = t->epoch;
}

/* Find or create the file entry for path; refreshes its LRU place. */
static struct file_entry *
proc_file_get(struct proc_table *t, const char *path, size_t len, uint64_t ts)
{
	struct proc_file_key	 key;
	struct file_entry	*f;
	uint32_t		 e, chunk;

	if (len >= VFS_PATH_MAX)
		len = VFS_PATH_MAX - 1;
	key.hash = proc_file_hash(path, len);
	key.path = path;
	key.len = len;
	e = model_index_find(&t->fi, (uint32_t)key.hash, proc_file_same, &key);
	if (e != MODEL_NIL) {
		f = &t->files[e];
		model_index_touch(&t->fi, e);
		f->last_ts = ts;
		proc_file_epoch(t, f);
		return f;
	}
	if (t->fi.used == t->fi.cap)
		proc_file_evict(t);
	chunk = proc_file_path_store(t, path, len);	/* may evict more files */
	e = model_index_add(&t->fi, (uint32_t)key.hash);
	f = &t->files[e];
	memset(f, 0, sizeof(*f));
	f->hash = key.hash;
	f->chunk = chunk;
	f->path_len = len;
	f->first_ts = f->last_ts = ts;
	f->epoch = t->epoch;
	return f;
}

/* Remember that tgid touched file f (a small bounded set). */
static void
proc_file_add_pid(struct file_entry *f, uint32_t tgid)
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

/* The path a VFS event is filed under: its own, or a name for pathless files. */
static const char *
proc_file_name(struct proc_table *t, const char *path, uint16_t len, uint16_t pflags,
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

/* The file a VFS event of tgid is about, found or created, with the type and flags it saw. */
struct file_entry *
proc_file_event(struct proc_table *t, const char *path, uint16_t len, uint16_t pflags,
    uint16_t ftype, uint64_t ino, uint32_t tgid, uint64_t ts)
{
	struct file_entry	*f;
	size_t			 n;

	path = proc_file_name(t, path, len, pflags, ftype, ino, &n);
	f = proc_file_get(t, path, n, ts);
	f->ftype = ftype;
	f->path_flags = pflags;
	proc_file_add_pid(f, tgid);
	return f;
}

/* Copy a file's path into buf (NUL-terminated, cut to len); returns its full length. */
size_t
proc_file_path(const struct proc_table *t, const struct file_entry *f, char *buf, size_t len)
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
	return f->path_len;
}
