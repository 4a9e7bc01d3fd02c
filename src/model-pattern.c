/*
 * model-pattern.c: the access pattern of the model's files and processes
 * (src/pattern.h): each read/write call judged by where the previous one of
 * its process on its file ended since the process's last open of it (an
 * open starts the pair's position again, as Darshan's does), and counted
 * into the file's and the process's struct pattern.
 *
 * The positions, one per (process, file) pair, live in a table of
 * MODEL_PAIR_WAYS-way sets, 2 x max_files pairs (40 bytes each: 1.3 MiB at
 * the default 16384 files), taken by a pair's first open or call. A set
 * full of live pairs drops its least recently used; that pair's next access
 * is judged as a first one (neither consecutive nor sequential, no stride),
 * and proc_stats counts the drop. The calls and opens wait
 * MODEL_PATTERN_DELAY_NS to be judged in time order, in a ring of
 * MODEL_PATTERN_PENDING in time order (56 bytes each: 3.5 MiB), used from
 * its first MODEL_PATTERN_FIRST entries and doubled as the calls waiting at
 * once need (model_index_ring_grow); those that came far behind the ring's
 * last wait beside it, in its lane (model.h: 0.9 MiB at most).
 */
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "proc.h"
#include "model.h"

/* A pending entry that is an open, not an access (struct model_pending's dir). */
#define MODEL_PENDING_OPEN	2

static void	model_pattern_queue(struct proc_table *, struct proc_entry *, struct file_entry *,
		    uint64_t, int64_t, uint64_t, uint8_t);

/* Sets in the pair table: a power of two, two pairs per file at least. */
static uint32_t
model_pattern_nsets(unsigned max_files)
{
	return (model_index_nsets(2ULL * max_files, MODEL_PAIR_WAYS));
}

/* Bytes model_pattern_init allocates for max_files files. */
size_t
model_pattern_size(unsigned max_files)
{
	return (size_t)model_pattern_nsets(max_files) * MODEL_PAIR_WAYS * sizeof(struct model_pair) +
	    (MODEL_PATTERN_PENDING + MODEL_LANE_MAX) * sizeof(struct model_pending) +
	    MODEL_MAPS * sizeof(struct model_map);
}

void
model_pattern_init(struct proc_table *t, unsigned max_files)
{
	uint32_t n = model_pattern_nsets(max_files);

	t->pairs = xcalloc((size_t)n * MODEL_PAIR_WAYS, sizeof(*t->pairs));	/* stamp 0: free */
	/* Address space only: the pages the ring's length in use and the maps given take. */
	t->pending = model_index_entries(MODEL_PATTERN_PENDING, sizeof(*t->pending));
	t->pending_len = MODEL_PATTERN_FIRST;
	model_lane_init(&t->lane, sizeof(*t->pending));
	t->judged = 0;
	t->maps = model_index_entries(MODEL_MAPS, sizeof(*t->maps));
	t->maps_fresh = 0;
	t->map_hand = 0;
	t->maps_reused = 0;
	t->pair_mask = n - 1;
	t->pair_stamp = 0;
}

void
model_pattern_free(struct proc_table *t)
{
	free(t->pairs);
	model_index_entries_free(t->pending, MODEL_PATTERN_PENDING, sizeof(*t->pending));
	model_lane_free(&t->lane, sizeof(*t->pending));
	model_index_entries_free(t->maps, MODEL_MAPS, sizeof(*t->maps));
}

/* File f (entry e)'s offset map, or NULL: none given yet, or taken back for another file. */
static inline struct model_map *
model_map_at(const struct proc_table *t, const struct file_entry *f, uint32_t e)
{
	struct model_map *m;

	if (f->map - 1 >= MODEL_MAPS)		/* 0: none */
		return (NULL);
	m = &t->maps[f->map - 1];
	return (m->fhash == f->hash && m->file == e ? m : NULL);
}

/* File f's offset map, or NULL (model_map_at). */
static struct model_map *
model_map_of(const struct proc_table *t, const struct file_entry *f)
{
	return (model_map_at(t, f, (uint32_t)(f - t->files)));
}

const struct pat_map *
model_file_map(const struct proc_table *t, const struct file_entry *f)
{
	const struct model_map *m = model_map_of(t, f);

	return (m != NULL ? &m->m : NULL);
}

/*
 * A map for file e: a fresh one while the pool lasts, then the first the
 * clock hand finds whose file made no call since it last passed (or left
 * the table). Amortised O(1): each pass of the hand clears what it skips.
 */
static struct model_map *
model_map_get(struct proc_table *t, uint32_t e, uint64_t ts)
{
	struct file_entry	*f = &t->files[e];
	struct model_map	*m;
	uint32_t		 i;

	if (t->maps_fresh < MODEL_MAPS)
		i = t->maps_fresh++;
	else
		for (;;) {
			i = t->map_hand;
			t->map_hand = (t->map_hand + 1) % MODEL_MAPS;
			m = &t->maps[i];
			if (model_map_of(t, &t->files[m->file]) != m ||
			    t->files[m->file].chunk == MODEL_NIL)
				break;		/* its file left the table */
			if (!m->ref) {
				t->maps_reused++;
				break;
			}
			m->ref = 0;
		}
	m = &t->maps[i];
	pattern_map_init(&m->m, ts);
	m->fhash = f->hash;
	m->file = e;
	m->ref = 1;
	f->map = i + 1;
	return (m);
}

/* A call of file e, ended at ts, at offset off: into the file's offset map. */
static void
model_map_add(struct proc_table *t, uint32_t e, enum pat_dir dir, uint64_t ts, int64_t off)
{
	struct model_map *m = model_map_at(t, &t->files[e], e);

	if (m == NULL && off < 0)
		return;		/* no map for a file of calls without an offset */
	if (m == NULL)
		m = model_map_get(t, e, ts);
	m->ref = 1;
	pattern_map_add(&m->m, dir, ts, off);
}

/* The position of tgid on the file of path hash fhash: found, or a fresh one in place of the set's oldest. */
static struct pat_pos *
model_pattern_pos(struct proc_table *t, uint32_t tgid, uint64_t fhash)
{
	uint64_t		 h;
	struct model_pair	*set, *pick = NULL;
	uint32_t		 w;

	if (++t->pair_stamp == 0)
		t->pair_stamp = 1;	/* 0 marks a free way */
	/* The pair found last first: one process's calls on one file come in runs. */
	pick = &t->pairs[t->pair_last];
	if (pick->stamp != 0 && pick->fhash == fhash && pick->tgid == tgid) {
		pick->stamp = t->pair_stamp;
		return (&pick->pos);
	}
	pick = NULL;
	h = (fhash ^ (uint64_t)tgid * 0x9e3779b97f4a7c15ULL) * 0xff51afd7ed558ccdULL;
	set = &t->pairs[((h >> 32) & t->pair_mask) * MODEL_PAIR_WAYS];
	for (w = 0; w < MODEL_PAIR_WAYS; w++) {
		struct model_pair *q = &set[w];

		if (q->stamp != 0 && q->fhash == fhash && q->tgid == tgid) {
			q->stamp = t->pair_stamp;
			t->pair_last = (uint32_t)(q - t->pairs);
			return (&q->pos);
		}
		if (pick == NULL || (pick->stamp != 0 &&
		    (q->stamp == 0 || t->pair_stamp - q->stamp > t->pair_stamp - pick->stamp)))
			pick = q;	/* a free way, else the least recently used */
	}
	if (pick->stamp != 0)
		t->pairs_evicted++;
	pick->fhash = fhash;
	pick->tgid = tgid;
	pick->stamp = t->pair_stamp;
	t->pair_last = (uint32_t)(pick - t->pairs);
	pattern_pos_init(&pick->pos);
	return (&pick->pos);
}

/* Whether pending entry a goes before b: by time, then as they came (the ring's order). */
static int
model_pending_first(const void *va, const void *vb)
{
	const struct model_pending *a = va, *b = vb;

	return (a->ts < b->ts || (a->ts == b->ts && model_seq_before(a->seq, b->seq)));
}

/* Judge the pending call that came first and count it into its file's and process's patterns. */
static void
model_pattern_pop(struct proc_table *t)
{
	struct model_pending		 lc;
	const struct model_pending	*c = model_ring_take(t->pending, sizeof lc, &t->pending_head,
					    &t->npending, t->pending_len, &t->lane, &lc,
					    model_pending_first);
	struct proc_entry		*p;

	/* After a later one: out of order (a call slower than the wait, or past the ring's reach). */
	if (c->ts < t->judged)
		t->pattern_late += c->dir < MODEL_PENDING_OPEN;
	else
		t->judged = c->ts;
	/* The file (or process) left the table meanwhile, its slot maybe reused: not counted. */
	if (t->files[c->file].hash != c->fhash || t->files[c->file].chunk == MODEL_NIL) {
		t->pattern_gone += c->dir < MODEL_PENDING_OPEN;
		return;
	}
	if (c->dir == MODEL_PENDING_OPEN) {
		pattern_pos_open(model_pattern_pos(t, c->tgid, c->fhash));
		return;
	}
	if (c->dir > MODEL_PENDING_OPEN) {
		model_wear_life(t, c);
		return;
	}
	p = t->procs[c->proc].id == c->proc_id ? &t->procs[c->proc] : NULL;
	pattern_judge(model_pattern_pos(t, c->tgid, c->fhash), c->dir, c->off, c->bytes,
	    &t->files[c->file].pat, p != NULL ? &p->pat : NULL);
	if (c->dir == PAT_READ)
		pattern_touch(&t->files[c->file].touched, c->off, c->bytes);
	model_map_add(t, c->file, (enum pat_dir)c->dir, c->ts, c->off);
	model_file_active(t, c->file);
	model_wear_access(t, c);
	if (p != NULL)
		model_proc_active(t, c->proc);
}

/*
 * A read/write call of process p on file f. The calls reach the model
 * nearly in time order: each CPU's records in order, but a CPU's batch of
 * them may go out up to a drain period after another CPU's (bpf/batch.h).
 * Their pattern needs the order the calls were made in, so they wait here,
 * in a ring kept in time order (a call that came late is moved back past
 * the later ones, a batch's length at most where it matters), and are judged
 * once MODEL_PATTERN_DELAY_NS older than the stream's time
 * (model_pattern_flush: as the newest call's time moves on, each
 * MODEL_PATTERN_STEP_NS of it, at each tick, and all of them at the end). A full
 * ring judges its oldest at once (pattern_early counts it). Failed calls are
 * no accesses.
 */
void
model_pattern_add(struct proc_table *t, struct proc_entry *p, struct file_entry *f,
    const struct ev_rw *ev)
{
	if (ev->error != 0)
		return;
	model_pattern_access(t, p, f, ev->ts, ev->lat_ns, ev->pos, ev->done,
	    ev->op == BLK_OP_WRITE ? PAT_WRITE : PAT_READ);
}

/*
 * An open of file f by process p at ts: its pair's position starts again
 * from Darshan's origin (pattern_pos_open) once the calls made before ts
 * have been judged, so it waits in the ring as they do.
 */
void
model_pattern_open(struct proc_table *t, struct proc_entry *p, struct file_entry *f, uint64_t ts)
{
	model_pattern_queue(t, p, f, ts, -1, 0, MODEL_PENDING_OPEN);
}

/*
 * A create, truncation or unlink of file f by process p at ts (kind a
 * MODEL_PENDING_* of wear.h): judged after the calls made before it.
 */
void
model_pattern_life(struct proc_table *t, struct proc_entry *p, struct file_entry *f, uint64_t ts,
    unsigned kind)
{
	model_pattern_queue(t, p, f, ts, -1, 0, (uint8_t)kind);
}

/*
 * A truncate or ftruncate of file f by process p at ts to len bytes: what
 * lies past len was never read (model_wear_life), judged after the calls
 * made before it.
 */
void
model_pattern_truncate(struct proc_table *t, struct proc_entry *p, struct file_entry *f,
    uint64_t ts, uint64_t len)
{
	model_pattern_queue(t, p, f, ts, len > INT64_MAX ? INT64_MAX : (int64_t)len, 0,
	    MODEL_PENDING_TRUNC_AT);
}

/*
 * Where a fault record's page starts in its file, -1 if not known (a dirtied
 * page, an older capture's record, an index no offset can hold).
 */
int64_t
model_fault_offset(const struct ev_page *ev)
{
	if (ev->kind != PAGE_FAULT || ev->index1 == 0 || ev->index1 - 1 > (uint64_t)INT64_MAX >> 12)
		return (-1);
	return ((int64_t)((ev->index1 - 1) << 12));
}

/*
 * An access of process p to file f that ended at ts after lat_ns: bytes at
 * off (-1: not known) in direction dir; a call, or a page faulted in.
 */
void
model_pattern_access(struct proc_table *t, struct proc_entry *p, struct file_entry *f,
    uint64_t ts, uint64_t lat_ns, int64_t off, uint64_t bytes, enum pat_dir dir)
{
	uint64_t		 start;

	/* Its time: from its entry (the record's time less its latency) to its exit. */
	start = lat_ns < ts ? ts - lat_ns : 0;
	pattern_span(&f->pat, start, ts);
	pattern_span(&p->pat, start, ts);
	model_pattern_queue(t, p, f, ts, off, bytes, (uint8_t)dir);
}

/*
 * Into the ring, in time order: an access (dir an enum pat_dir) or an open
 * (MODEL_PENDING_OPEN) of process p on file f at ts.
 */
static void
model_pattern_queue(struct proc_table *t, struct proc_entry *p, struct file_entry *f,
    uint64_t ts, int64_t off, uint64_t bytes, uint8_t dir)
{
	struct model_pending	 c;

	/*
	 * The stream's time is its newest call's: what waited
	 * MODEL_PATTERN_DELAY_NS behind it is judged now, not at the next tick,
	 * so the ring holds that wait's calls, not a tick's and more. Once a
	 * millisecond of it: a compare a call, not a flush (15 instructions).
	 */
	if (ts >= t->pending_next) {
		t->pending_next = ts + MODEL_PATTERN_STEP_NS;
		if (ts > MODEL_PATTERN_DELAY_NS)
			model_pattern_flush(t, ts - MODEL_PATTERN_DELAY_NS);
	}
	if (t->npending == t->pending_len) {
		if (t->pending_len < MODEL_PATTERN_PENDING) {
			t->pending_len = model_index_ring_grow(t->pending, sizeof(*t->pending),
			    t->pending_len, t->pending_head);
		} else {
			/* Until the ring has room: what goes first may be the lane's. */
			do {
				model_pattern_pop(t);
				t->pattern_early++;
			} while (t->npending == t->pending_len);
		}
	}
	c.ts = ts;
	c.off = off;
	c.bytes = bytes;
	c.fhash = f->hash;
	c.tgid = p->tgid;
	c.file = (uint32_t)(f - t->files);
	c.proc = (uint32_t)(p - t->procs);
	c.proc_id = p->id;
	c.dir = dir;
	c.seq = model_lane_seq(&t->lane);
	/* Later calls move up one; equal times keep their arrival order; one far behind waits aside. */
	if (model_index_ring_insert(t->pending, sizeof *t->pending, t->pending_head, t->npending,
	    t->pending_len, &c, model_pending_first, t->lane.n < MODEL_LANE_MAX))
		model_lane_push(&t->lane, sizeof c, &c, model_pending_first);
	else
		t->npending++;
}

/* Judge the pending calls made before upto (UINT64_MAX: all). */
void
model_pattern_flush(struct proc_table *t, uint64_t upto)
{
	const struct model_pending *c;

	while ((c = model_ring_peek(t->pending, sizeof *c, t->pending_head, t->npending, &t->lane,
	    model_pending_first)) != NULL && c->ts <= upto)
		model_pattern_pop(t);
}

/* The stream starts again at ts (a replay's rewind): the calls are judged by its time from there. */
void
model_pattern_begin(struct proc_table *t, uint64_t ts)
{
	t->pending_next = ts;
	t->judged = 0;
}
