/* merge-names.c: the name join of a merged run (replay.h): the paths of the latest opens, for the logs' records that name a file by basename or fd. */

#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "replay.h"
#include "capture-file.h"

/*
 * Name join: a vfs read/write log has only the file's last component
 * (VFS_PF_BASENAME), a close log only the fd, an mmap log both; an openat
 * log has the path as passed and the fd it returned. The latest successful
 * opens, at most MERGE_NAMES_MAX of them and their paths in a ring of
 * MERGE_NAMES_POOL bytes, the oldest giving way, are kept by (process,
 * basename) and by (process, fd): a read, write, mmap or munmap of that
 * basename by that process, or a close or mmap of that fd, takes the open's
 * path; a close ends the fd's (the number may come back for another file).
 */
#define MERGE_NAMES_BUCKETS	(MERGE_NAMES_MAX * 2)	/* a power of two */
#define MERGE_NAMES_POOL	(1024 * 1024)		/* path bytes, >= VFS_PATH_MAX */
#define MERGE_NIL		(-1)

struct merge_name {
	uint32_t	 tgid;
	uint32_t	 hash;		/* of tgid and the basename */
	int32_t		 next;		/* in its bucket, MERGE_NIL at the end */
	int32_t		 fd;		/* the open's fd, -1 once closed */
	int32_t		 fd_next;	/* in its fd bucket */
	uint32_t	 fd_bucket;	/* which, fixed when made */
	uint32_t	 off;		/* the path in the pool, NUL-terminated */
	uint16_t	 path_len;
	uint16_t	 base_off;	/* where the basename starts in the path */
	uint16_t	 path_flags;	/* the open's VFS_PF_* */
};

struct merge_names {
	struct merge_name	 e[MERGE_NAMES_MAX];	/* a ring, oldest first */
	unsigned		 oldest;
	unsigned		 count;
	char			*pool;		/* allocated at the first open */
	uint32_t		 head;		/* where the next path goes */
	int32_t			 bucket[MERGE_NAMES_BUCKETS];
	int32_t			 fd_bucket[MERGE_NAMES_BUCKETS];
	uint64_t		 joined;	/* records given a path */
};

/* FNV-1a of a basename, mixed with the process id. */
static uint32_t
merge_names_hash(uint32_t tgid, const char *s, size_t len)
{
	uint32_t	 h = 2166136261u ^ tgid;
	size_t		 i;

	for (i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 16777619u;
	}
	return (h ^ (h >> 15));
}

/* A new, empty table of opened names. */
struct merge_names *
merge_names_create(void)
{
	struct merge_names	*t;
	unsigned		 i;

	t = xcalloc(1, sizeof *t);
	for (i = 0; i < MERGE_NAMES_BUCKETS; i++)
		t->bucket[i] = t->fd_bucket[i] = MERGE_NIL;
	return (t);
}

/* Free a table of opened names. */
void
merge_names_free(struct merge_names *t)
{
	if (t == NULL)
		return;
	free(t->pool);
	free(t);
}

/* How many reads and writes were given a full path. */
uint64_t
merge_names_joined(const struct merge_names *t)
{
	return (t->joined);
}

/* The fd bucket of (tgid, fd). */
static uint32_t
merge_names_fd_bucket(uint32_t tgid, int32_t fd)
{
	uint32_t h = (tgid * 2654435761u) ^ ((uint32_t)fd * 40503u);

	return ((h ^ (h >> 16)) & (MERGE_NAMES_BUCKETS - 1));
}

/* Forget the oldest open: out of its buckets' chains and the ring. */
static void
merge_names_evict(struct merge_names *t)
{
	int32_t	 slot = (int32_t)t->oldest;
	int32_t	*p = &t->bucket[t->e[slot].hash & (MERGE_NAMES_BUCKETS - 1)];

	while (*p != MERGE_NIL && *p != slot)
		p = &t->e[*p].next;
	if (*p == slot)
		*p = t->e[slot].next;
	p = &t->fd_bucket[t->e[slot].fd_bucket];
	while (*p != MERGE_NIL && *p != slot)
		p = &t->e[*p].fd_next;
	if (*p == slot)
		*p = t->e[slot].fd_next;
	t->oldest = (t->oldest + 1) % MERGE_NAMES_MAX;
	t->count--;
}

/*
 * Room for len path bytes in the pool: at head, or at 0 if they do not fit
 * before the end; the oldest opens whose paths lie in what is taken (or
 * skipped at the end) give way, as do any past MERGE_NAMES_MAX. The offset.
 */
static uint32_t
merge_names_room(struct merge_names *t, uint32_t len)
{
	uint32_t	 off = t->head, reach, dist;

	if (off + len > MERGE_NAMES_POOL)
		off = 0;
	/* How far past head, going round, the new path ends. */
	reach = off == t->head ? len : MERGE_NAMES_POOL - t->head + len;
	while (t->count > 0) {
		dist = (t->e[t->oldest].off + MERGE_NAMES_POOL - t->head) %
		    MERGE_NAMES_POOL;
		if (t->count < MERGE_NAMES_MAX && dist >= reach)
			break;
		merge_names_evict(t);
	}
	t->head = off + len;
	return (off);
}

/* Remember a successful EV_OPEN's path under its process and basename. */
void
merge_names_open(struct merge_names *t, const void *rec, size_t len)
{
	const struct ev_open	*ev = rec;
	struct merge_name	*e;
	const char		*slash;
	size_t			 base;
	int32_t			 slot;
	uint32_t		 b;

	if (len < sizeof *ev || ev->type != EV_OPEN || ev->ret < 0 ||
	    ev->path_len == 0 || ev->path_len >= VFS_PATH_MAX ||
	    EV_OPEN_SIZE(ev->path_len) > len)
		return;
	slash = memrchr(ev->path, '/', ev->path_len);
	base = slash != NULL ? (size_t)(slash - ev->path) + 1 : 0;
	if (base == ev->path_len)
		return;			/* "dir/": no last component */
	if (t->pool == NULL)
		t->pool = xmalloc(MERGE_NAMES_POOL);
	b = merge_names_room(t, (uint32_t)ev->path_len + 1);
	slot = (int32_t)((t->oldest + t->count) % MERGE_NAMES_MAX);
	e = &t->e[slot];
	e->off = b;
	memcpy(t->pool + b, ev->path, ev->path_len);
	t->pool[b + ev->path_len] = '\0';
	e->tgid = ev->tgid;
	e->hash = merge_names_hash(ev->tgid, ev->path + base, ev->path_len - base);
	e->path_len = ev->path_len;
	e->base_off = (uint16_t)base;
	e->path_flags = ev->path_flags;
	t->count++;
	e->fd = ev->ret;
	/* At the head of its chains: the latest open is found first. */
	b = e->hash & (MERGE_NAMES_BUCKETS - 1);
	e->next = t->bucket[b];
	t->bucket[b] = slot;
	e->fd_bucket = merge_names_fd_bucket(ev->tgid, ev->ret);
	e->fd_next = t->fd_bucket[e->fd_bucket];
	t->fd_bucket[e->fd_bucket] = slot;
}

/* The latest open of basename name by tgid, or NULL. */
static struct merge_name *
merge_names_by_base(struct merge_names *t, uint32_t tgid, const char *name, size_t len)
{
	uint32_t		 h = merge_names_hash(tgid, name, len);
	struct merge_name	*e;
	int32_t			 slot;

	for (slot = t->bucket[h & (MERGE_NAMES_BUCKETS - 1)]; slot != MERGE_NIL;
	    slot = e->next) {
		e = &t->e[slot];
		if (e->hash == h && e->tgid == tgid && (size_t)(e->path_len - e->base_off) == len &&
		    memcmp(t->pool + e->off + e->base_off, name, len) == 0)
			return (e);
	}
	return (NULL);
}

/* The open fd of tgid stands for, or NULL. */
static struct merge_name *
merge_names_by_fd(struct merge_names *t, uint32_t tgid, int32_t fd)
{
	struct merge_name	*e;
	int32_t			 slot;

	if (fd < 0)
		return (NULL);
	for (slot = t->fd_bucket[merge_names_fd_bucket(tgid, fd)]; slot != MERGE_NIL;
	    slot = e->fd_next) {
		e = &t->e[slot];
		if (e->tgid == tgid && e->fd == fd)
			return (e);
	}
	return (NULL);
}

/*
 * A lifecycle record named by fd (close, mmap) or by basename (mmap,
 * munmap): again in out with the open's path; 1, or 0 (out untouched).
 */
static int
merge_names_join_fop(struct merge_names *t, const struct ev_fop *ev, size_t len, void *out,
    size_t size, size_t *outlen)
{
	struct ev_fop		*o = out;
	struct merge_name	*e = NULL;

	if (len < sizeof *ev || ev->path_len >= VFS_PATH_MAX || ev->path2_len != 0 ||
	    EV_FOP_SIZE(ev->path_len, 0) > len)
		return (0);
	if ((ev->op == FOP_CLOSE || ev->op == FOP_MMAP) &&
	    (ev->path_flags & (VFS_PF_NOPATH | VFS_PF_BASENAME)))
		e = merge_names_by_fd(t, ev->tgid, ev->fd);
	if (e == NULL && (ev->op == FOP_MMAP || ev->op == FOP_MUNMAP) &&
	    (ev->path_flags & VFS_PF_BASENAME) && ev->path_len > 0)
		e = merge_names_by_base(t, ev->tgid, ev->path, ev->path_len);
	if (e == NULL || EV_FOP_SIZE(e->path_len, 0) > size)
		return (0);
	memcpy(o, ev, sizeof *ev);
	o->path_flags = (ev->path_flags & ~(VFS_PF_BASENAME | VFS_PF_NOPATH)) |
	    (e->path_flags & (VFS_PF_AS_PASSED | VFS_PF_TRUNC));
	o->path_len = e->path_len;
	memcpy(o->path, t->pool + e->off, e->path_len);
	o->path[e->path_len] = '\0';
	o->path[e->path_len + 1] = '\0';
	*outlen = EV_FOP_SIZE(e->path_len, 0);
	if (ev->op == FOP_CLOSE && ev->error == 0)
		e->fd = -1;
	t->joined++;
	return (1);
}

/*
 * A record that names its file only by basename or fd (EV_RW, EV_FOP) whose
 * process opened that file: the record again in out with the open's path
 * and the flag cleared; 1, or 0 if there is nothing to join (out untouched).
 */
int
merge_names_join(struct merge_names *t, const void *rec, size_t len, void *out,
    size_t size, size_t *outlen)
{
	const struct ev_rw	*ev = rec;
	struct ev_rw		*o = out;
	const struct merge_name	*e;
	uint32_t		 type;

	if (t->count == 0 || len < sizeof type)
		return (0);
	memcpy(&type, rec, sizeof type);
	if (type == EV_FOP)
		return (merge_names_join_fop(t, rec, len, out, size, outlen));
	if (len < sizeof *ev || ev->type != EV_RW ||
	    !(ev->path_flags & VFS_PF_BASENAME) || ev->path_len == 0 ||
	    ev->path_len >= VFS_PATH_MAX || EV_RW_SIZE(ev->path_len) > len)
		return (0);
	if ((e = merge_names_by_base(t, ev->tgid, ev->path, ev->path_len)) == NULL ||
	    EV_RW_SIZE(e->path_len) > size)
		return (0);
	memcpy(o, ev, sizeof *ev);
	o->path_flags = (ev->path_flags & ~VFS_PF_BASENAME) |
	    (e->path_flags & (VFS_PF_AS_PASSED | VFS_PF_TRUNC));
	o->path_len = e->path_len;
	memcpy(o->path, t->pool + e->off, e->path_len);
	o->path[e->path_len] = '\0';
	*outlen = EV_RW_SIZE(e->path_len);
	t->joined++;
	return (1);
}
