/* model-index.c: a fixed-size hash index and LRU list over the entries of a model table. */
#include <sys/mman.h>

#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "proc.h"
#include "model.h"

/*
 * Open addressing (linear probing, backward-shift deletion) over entry
 * numbers, each entry's hash kept beside its LRU links; freed entries are
 * chained through the same links, and entries never used yet are the ones
 * from fresh up. The index never allocates after model_index_init: a full
 * index is made room in by model_index_evict.
 */

/* Smallest power of two >= 2 * n: the slot count for n entries. */
static uint32_t
model_index_nslots(uint32_t n)
{
	uint32_t s = 16;

	while (s < 2 * n)
		s <<= 1;
	return (s);
}

/* Bytes model_index_init allocates for cap entries. */
size_t
model_index_size(uint32_t cap)
{
	return (size_t)model_index_nslots(cap) * sizeof(uint32_t) +
	    (size_t)cap * (sizeof(struct model_link) + sizeof(uint32_t));
}

/* Set up an index over cap entries, all free; ctx is passed to model_index_find's same. */
void
model_index_init(struct model_index *ix, uint32_t cap, const void *ctx)
{
	ix->mask = model_index_nslots(cap) - 1;
	ix->slots = xcalloc(ix->mask + 1, sizeof(*ix->slots));
	ix->links = xcalloc(cap, sizeof(*ix->links));
	ix->hashes = xcalloc(cap, sizeof(*ix->hashes));
	ix->free = MODEL_NIL;
	ix->fresh = 0;
	ix->head = ix->tail = MODEL_NIL;
	ix->cap = cap;
	ix->used = 0;
	ix->evicted = 0;
	ix->ctx = ctx;
}

/*
 * The array of cap entries of size bytes an index is over, zeroed: address
 * space only, each page taken when an entry on it is first used. Entries are
 * used lowest first and freed ones again before any other, so the tables take
 * memory as they fill, up to their bound (proc_mem_bound), and never more.
 */
void *
model_index_entries(uint32_t cap, size_t size)
{
	void	*p;

	p = mmap(NULL, (size_t)cap * size, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		fatal("cannot reserve %zu bytes for a table", (size_t)cap * size);
	return (p);
}

/* Give back what model_index_entries(cap, size) returned. */
void
model_index_entries_free(void *p, uint32_t cap, size_t size)
{
	if (p != NULL)
		munmap(p, (size_t)cap * size);
}

/* Free what model_index_init allocated. */
void
model_index_free(struct model_index *ix)
{
	free(ix->slots);
	free(ix->links);
	free(ix->hashes);
}

/* The entry with this hash that same(ctx, e, key) accepts, MODEL_NIL if none. */
uint32_t
model_index_find(const struct model_index *ix, uint32_t hash,
    int (*same)(const void *, uint32_t, const void *), const void *key)
{
	uint32_t pos = hash & ix->mask, e;

	while ((e = ix->slots[pos]) != 0) {
		/* The hashes first: entries of other hashes stay out of the cache. */
		if (ix->hashes[e - 1] == hash && same(ix->ctx, e - 1, key))
			return (e - 1);
		pos = (pos + 1) & ix->mask;
	}
	return (MODEL_NIL);
}

/* Take entry e out of the LRU list. */
static void
model_index_unlink(struct model_index *ix, uint32_t e)
{
	uint32_t p = ix->links[e].prev, n = ix->links[e].next;

	if (p != MODEL_NIL)
		ix->links[p].next = n;
	else
		ix->head = n;
	if (n != MODEL_NIL)
		ix->links[n].prev = p;
	else
		ix->tail = p;
}

/* Put entry e at the most recently active end of the LRU list. */
static void
model_index_push(struct model_index *ix, uint32_t e)
{
	ix->links[e].prev = MODEL_NIL;
	ix->links[e].next = ix->head;
	if (ix->head != MODEL_NIL)
		ix->links[ix->head].prev = e;
	ix->head = e;
	if (ix->tail == MODEL_NIL)
		ix->tail = e;
}

/* Make entry e the most recently active. */
void
model_index_touch(struct model_index *ix, uint32_t e)
{
	if (ix->head == e)
		return;
	model_index_unlink(ix, e);
	model_index_push(ix, e);
}

/*
 * Take an entry (the caller evicts first if the index is full) under hash, as
 * most recently active: the last one freed, else the lowest never used.
 */
uint32_t
model_index_add(struct model_index *ix, uint32_t hash)
{
	uint32_t pos = hash & ix->mask, e;

	while (ix->slots[pos] != 0)
		pos = (pos + 1) & ix->mask;
	if ((e = ix->free) != MODEL_NIL)
		ix->free = ix->links[e].next;
	else
		e = ix->fresh++;
	ix->hashes[e] = hash;
	ix->slots[pos] = e + 1;
	ix->used++;
	model_index_push(ix, e);
	return (e);
}

/* Remove the hash slot at pos, shifting followers back (no tombstones). */
static void
model_index_slot_delete(struct model_index *ix, uint32_t pos)
{
	uint32_t i = pos, j = pos, k;

	ix->slots[i] = 0;
	for (;;) {
		j = (j + 1) & ix->mask;
		if (ix->slots[j] == 0)
			return;
		k = ix->hashes[ix->slots[j] - 1] & ix->mask;
		/* Move slot j into the hole at i unless k lies cyclically in (i, j]. */
		if ((i <= j) ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		ix->slots[i] = ix->slots[j];
		ix->slots[j] = 0;
		i = j;
	}
}

/* Free the least recently active entry and return it (its data is left for the caller). */
uint32_t
model_index_evict(struct model_index *ix)
{
	uint32_t e = ix->tail, pos = ix->hashes[e] & ix->mask;

	while (ix->slots[pos] != e + 1)
		pos = (pos + 1) & ix->mask;
	model_index_slot_delete(ix, pos);
	model_index_unlink(ix, e);
	ix->links[e].next = ix->free;
	ix->free = e;
	ix->used--;
	ix->evicted++;
	return (e);
}

/*
 * Doubles a full ring's length in use (a power of two), keeping its entries
 * in order from head: the entries from 0 up to head follow the last one. A
 * ring reserved at its largest (calloc: pages not yet touched are not
 * resident) takes the memory its load needs, a few pages on a quiet machine
 * where a ring written round in full took all of it (issue 41). Returns the
 * new length; the caller has len * 2 entries.
 */
uint32_t
model_index_ring_grow(void *ring, size_t size, uint32_t len, uint32_t head)
{
	memcpy((char *)ring + (size_t)len * size, ring, (size_t)head * size);
	return (len * 2);
}

/* Sets of ways slots each for at least need slots: a power of two, 4 at least. */
uint32_t
model_index_nsets(uint64_t need, unsigned ways)
{
	uint32_t n = 4;

	while ((uint64_t)n * ways < need)
		n <<= 1;
	return (n);
}

/* An empty lane of entries of size bytes: address space only (model_index_entries). */
void
model_lane_init(struct model_lane *l, size_t size)
{
	l->h = model_index_entries(MODEL_LANE_MAX, size);
	l->n = 0;
	l->seq = 0;
}

void
model_lane_free(struct model_lane *l, size_t size)
{
	model_index_entries_free(l->h, MODEL_LANE_MAX, size);
	l->h = NULL;
	l->n = 0;
}

/* Entry e into the heap (l->n < MODEL_LANE_MAX: the caller checked), first(a, b): a goes before b. */
void
model_lane_push(struct model_lane *l, size_t size, const void *e,
    int (*first)(const void *, const void *))
{
	uint32_t	 i = l->n++, p;

	while (i > 0 && first(e, l->h + (size_t)(p = (i - 1) / 2) * size)) {
		memcpy(l->h + (size_t)i * size, l->h + (size_t)p * size, size);
		i = p;
	}
	memcpy(l->h + (size_t)i * size, e, size);
}

/* The first entry out of the heap (l->n > 0), into out. */
void
model_lane_pop(struct model_lane *l, size_t size, void *out,
    int (*first)(const void *, const void *))
{
	const char	*last;
	uint32_t	 i = 0, c, n;

	memcpy(out, l->h, size);
	n = --l->n;
	last = l->h + (size_t)n * size;
	while ((c = 2 * i + 1) < n) {
		if (c + 1 < n && first(l->h + (size_t)(c + 1) * size, l->h + (size_t)c * size))
			c++;
		if (!first(l->h + (size_t)c * size, last))
			break;
		memcpy(l->h + (size_t)i * size, l->h + (size_t)c * size, size);
		i = c;
	}
	if (n > 0)
		memcpy(l->h + (size_t)i * size, last, size);
}
