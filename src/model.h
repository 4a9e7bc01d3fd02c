/* model.h: the model's own tables (the hash index and LRU, the process and file tables' layout), for model-*.c and their tests (proc.h first). */
#ifndef BLKTOP_MODEL_H
#define BLKTOP_MODEL_H

#include <string.h>

/* model-index.c */
#define MODEL_NIL		UINT32_MAX	/* no entry */
struct model_link {
	uint32_t		 prev, next;
};
/* A hash index and LRU list over entries 0..cap-1 of a caller's array. */
struct model_index {
	uint32_t		*slots;		/* entry + 1, 0 = empty; mask + 1 of them */
	struct model_link	*links;		/* LRU list; the free list through next */
	uint32_t		*hashes;	/* each entry's hash, as added */
	uint32_t		 mask;
	uint32_t		 head, tail;	/* most and least recently active */
	uint32_t		 free;		/* freed entries, chained through next */
	uint32_t		 fresh;		/* entries from here up never used */
	uint32_t		 used, cap;
	uint64_t		 evicted;
	const void		*ctx;		/* for model_index_find's same */
};
size_t		 model_index_size(uint32_t cap);
void		 model_index_init(struct model_index *, uint32_t cap, const void *ctx);
void		*model_index_entries(uint32_t cap, size_t size);
void		 model_index_entries_free(void *, uint32_t cap, size_t size);
void		 model_index_free(struct model_index *);
uint32_t	 model_index_find(const struct model_index *, uint32_t hash,
		     int (*same)(const void *, uint32_t, const void *), const void *key);
void		 model_index_touch(struct model_index *, uint32_t e);
uint32_t	 model_index_add(struct model_index *, uint32_t hash);
uint32_t	 model_index_evict(struct model_index *);
uint32_t	 model_index_nsets(uint64_t need, unsigned ways);
uint32_t	 model_index_ring_grow(void *ring, size_t size, uint32_t len, uint32_t head);

/*
 * Stragglers beside a ring kept in time order (model_index_ring_insert): an
 * entry that would move back past more than MODEL_LANE_AFTER of the ring's
 * entries waits in a binary heap instead, in the ring's order, up to
 * MODEL_LANE_MAX of them; whichever of the ring's head and the heap's top
 * comes first is judged first. They are a CPU's batch of records sent late
 * (a partial batch waits for its age, bpf/batch.h): at 400k records/s,
 * 10-130 ms late is 4,000-50,000 places, which moving through the ring cost
 * 56 bytes each, and which MODEL_PATTERN_REORDER cut short, judged out of
 * order (fio's sequential reader beside a random load: 81 of its 74,061
 * reads judged not consecutive). The heap's pages are taken as it grows.
 */
#define MODEL_LANE_AFTER	128
#define MODEL_LANE_MAX		16384
struct model_lane {
	char			*h;		/* MODEL_LANE_MAX entries reserved; h[0] first */
	uint32_t		 n;
	uint32_t		 seq;		/* arrivals numbered, for their order among equals */
};
void		 model_lane_init(struct model_lane *, size_t size);
void		 model_lane_free(struct model_lane *, size_t size);
void		 model_lane_push(struct model_lane *, size_t size, const void *e,
		     int (*first)(const void *, const void *));
void		 model_lane_pop(struct model_lane *, size_t size, void *out,
		     int (*first)(const void *, const void *));

/*
 * The entry of a ring (head, n of len in use) or of its lane l that goes
 * first by first(): the lane's top, copied to buf and out of the lane, or
 * the ring's head, the ring moving on past it (there until the next write).
 * Entries are read some 0.2 s after they were written, from memory: asking
 * 8 ahead hides that (a quarter of model_pattern_pop's samples were its
 * first load, perf, fio's libaio job). The ring or the lane holds one.
 */
static inline const void *
model_ring_take(void *ring, size_t size, uint32_t *head, uint32_t *n, uint32_t len,
    struct model_lane *l, void *buf, int (*first)(const void *, const void *))
{
	char		*h = ring;
	const void	*e = h + (size_t)*head * size;

	if (l->n != 0 && (*n == 0 || first(l->h, e))) {
		model_lane_pop(l, size, buf, first);
		return (buf);
	}
	*head = (*head + 1) & (len - 1);
	(*n)--;
	__builtin_prefetch(h + (size_t)((*head + 8) & (len - 1)) * size);
	return (e);
}

/* The entry model_ring_take would take, NULL if none. */
static inline const void *
model_ring_peek(const void *ring, size_t size, uint32_t head, uint32_t n,
    const struct model_lane *l, int (*first)(const void *, const void *))
{
	const void	*e = n > 0 ? (const char *)ring + (size_t)head * size : NULL;

	return (l->n != 0 && (e == NULL || first(l->h, e)) ? l->h : e);
}

/*
 * Arrivals are numbered in 31 bits (model_lane_seq: a request's number
 * shares its word with its direction); a ring and its lane hold fewer than
 * 2^30, so two numbers compare across the wrap.
 */
#define MODEL_SEQ_MASK		0x7fffffffU
static inline uint32_t
model_lane_seq(struct model_lane *l)
{
	return (l->seq++ & MODEL_SEQ_MASK);
}

/* Whether arrival a came before arrival b (model_lane_seq's numbers). */
static inline int
model_seq_before(uint32_t a, uint32_t b)
{
	return (((a - b) & MODEL_SEQ_MASK) > (MODEL_SEQ_MASK >> 1));
}

/*
 * Entry e (of size bytes) into a ring kept in start order: len (a power of
 * two) slots, n of them in use from head, one free. The entries that e comes
 * before move up one. Returns 1, leaving the ring as it was, where e would
 * move past more than MODEL_LANE_AFTER and the caller's lane has room
 * (lane_room): it goes there. Else it moves past MODEL_PATTERN_REORDER at
 * most (a file's records in reverse time order, not trusted, would cost the
 * ring's length each): one that would go further stays there, judged out of
 * order (the caller counts those as it judges them). Inline, with the
 * caller's size and before, for the per-record path.
 */
static inline int
model_index_ring_insert(void *ring, size_t size, uint32_t head, uint32_t n, uint32_t len,
    const void *e, int (*before)(const void *, const void *), int lane_room)
{
	char		*h = ring;
	uint32_t	 i, p, moved, mask = len - 1;

	i = (head + n) & mask;
	if (i != head && before(e, h + (size_t)((i - 1) & mask) * size)) {
		if (lane_room && n > MODEL_LANE_AFTER &&
		    before(e, h + (size_t)((i - 1 - MODEL_LANE_AFTER) & mask) * size))
			return (1);
		for (moved = 0; i != head && moved < MODEL_PATTERN_REORDER &&
		    before(e, h + (size_t)(p = (i - 1) & mask) * size); moved++) {
			memcpy(h + (size_t)i * size, h + (size_t)p * size, size);
			i = p;
		}
	}
	memcpy(h + (size_t)i * size, e, size);
	return (0);
}

#define PROC_CHUNK_DATA	(PROC_CHUNK_SIZE - sizeof(uint32_t))
struct proc_chunk {
	uint32_t		 next;		/* next chunk of the path or MODEL_NIL */
	char			 data[PROC_CHUNK_DATA];
};
/* model-pattern.c: one process's position on one file. */
#define MODEL_PAIR_WAYS		4
struct model_pair {
	uint64_t		 fhash;		/* the file's path hash (struct file_entry's) */
	uint32_t		 tgid;
	uint32_t		 stamp;		/* last use; 0: free */
	struct pat_pos		 pos;
};

/* A call waiting to be judged in time order (model-pattern.c). */
#define MODEL_PATTERN_PENDING	65536	/* a power of two */
#define MODEL_PATTERN_FIRST	1024	/* the ring's length in use at first: 56 KiB */
struct model_pending {
	uint64_t		 ts;
	int64_t			 off;
	uint64_t		 bytes;
	uint64_t		 fhash;
	uint32_t		 tgid;
	uint32_t		 file, proc;	/* entries, checked on the way out */
	uint32_t		 proc_id;
	uint32_t		 seq;		/* its arrival (model_lane's seq) */
	uint8_t			 dir;
};

/*
 * model-pattern.c: the files' offset maps, a pool of MODEL_MAPS (8.2 KiB each:
 * 2.1 MiB) shared by the files, given out at a file's first mapped call and
 * taken back, by a clock hand, from a file with no call since the hand last
 * passed (maps_reused counts those).
 */
#define MODEL_MAPS		256
struct model_map {
	struct pat_map		 m;
	uint64_t		 fhash;		/* its file's: the file holds it while both agree */
	uint32_t		 file;		/* entry */
	uint8_t			 ref;		/* a call since the hand last passed */
};

void		 model_file_active(struct proc_table *, uint32_t e);

/* The process and file tables; private to model-*.c. */
struct proc_table {
	int			 by_thread;
	int			 host;		/* the host (host.h) of the records being added: a process is its */
					/* host's in a run of several (sink-model.c sets it); -1 (HOST_NONE) else */
	uint64_t		 epoch;		/* current interval */
	struct model_index	 pi;
	struct proc_entry	*procs;
	struct model_index	 fi;
	struct file_entry	*files;
	uint32_t		*by_ino;	/* (dev, ino) -> file entry: PROC_INO_WAYS-way sets */
	uint32_t		 ino_mask;	/* sets - 1 */
	uint32_t		 ino_hint;	/* the entry model_file_set_ino found or put last, MODEL_NIL: none */
	struct proc_chunk	*chunks;
	uint32_t		 nchunks;
	uint32_t		 chunk_free;	/* freed chunks, chained through next */
	uint32_t		 chunk_fresh;	/* chunks from here up never used */
	uint32_t		 chunks_used;
	struct model_pair	*pairs;		/* model-pattern.c */
	uint32_t		 pair_mask;	/* sets - 1 */
	uint32_t		 pair_stamp;
	uint32_t		 pair_last;	/* the pair model_pattern_pos found last (stamp 0: none) */
	uint64_t		 pairs_evicted;
	struct model_map	*maps;		/* MODEL_MAPS */
	uint32_t		 maps_fresh;	/* maps from here up never given */
	uint32_t		 map_hand;
	uint64_t		 maps_reused;
	uint32_t		 blk_file;	/* the file entry proc_add_block charged last, MODEL_NIL: none */
	uint32_t		 file_hint;	/* the file entry model_file_get found last, MODEL_NIL: none */
	uint64_t		 file_hint_tail;	/* its path's model_file_tail */
	struct model_pending	*pending;	/* a ring in time order */
	uint32_t		 pending_head, npending;
	uint32_t		 pending_len;	/* the ring's length in use, up to MODEL_PATTERN_PENDING */
	uint64_t		 pending_next;	/* the stream's time to judge the waiting calls again */
	struct model_lane	 lane;		/* the calls that came late, beside the ring */
	uint64_t		 judged;	/* the time of the last call judged */
	uint64_t		 pattern_early;	/* judged before their time: the ring was full */
	uint64_t		 pattern_late;	/* judged out of order: after a later one */
	uint64_t		 pattern_gone;	/* not judged: their file left the table first */
	uint64_t		 bad;		/* malformed records */
	struct proc_counts	 sum;		/* the interval's calls, all processes (proc_sum) */
	struct task_table	*tasks;		/* the process tree (model-task.c) */
	uint64_t		 procs_evicted_mark;	/* pi.evicted, fi.evicted at the interval's start */
	uint64_t		 files_evicted_mark;
	struct wear_moving	 wear_moving;	/* model-wear.c: a renamed file's unread ranges */
	struct pdepth_slot	*pdepth;	/* model-pdepth.c: PDEPTH_SLOTS, NULL until a request */
	uint64_t		 pdepth_late;	/* requests whose depth may be short */
	char			 name[64];	/* names of pathless files, built here */
	char			 name2[VFS_PATH_MAX + 16];	/* a deleted file's "PATH (deleted)" */
};

/*
 * Clear the interval part of a process if it belongs to an older interval.
 * Inline here, not in model-proc.c: the pattern and wear files, which judge
 * calls late, mark processes active through it without calling back up
 * into model-proc.c (farm-studio: the circle model-pattern.c, model-proc.c,
 * model-wear.c).
 */
static inline void
proc_entry_epoch(struct proc_table *t, struct proc_entry *p)
{
	if (p->epoch == t->epoch)
		return;
	memset(&p->iv, 0, sizeof(p->iv));
	memset(&p->blk_lat, 0, sizeof(p->blk_lat));
	memset(&p->vfs_lat, 0, sizeof(p->vfs_lat));
	p->epoch = t->epoch;
}

/* Process entry e changed (its access pattern, judged late): active in this interval. */
static inline void
model_proc_active(struct proc_table *t, uint32_t e)
{
	model_index_touch(&t->pi, e);
	proc_entry_epoch(t, &t->procs[e]);
}

#endif
