/*
 * model-reqpat.c: the access pattern of block requests (src/pattern.h,
 * struct req_pattern), of each device and of the file whose pages a request
 * carried. Requests reach the model at their completion, but are judged in
 * the order they started: they wait in a ring kept in start order until
 * MODEL_PATTERN_DELAY_NS older than the stream (the calls' wait: longer than
 * a drain period, so every CPU's batch is in), REQPAT_MAX of them (40 bytes
 * each: 2.5 MiB, used from 1024 of them and doubled as they need). They come nearly in that order (completion order, a
 * queue's depth of requests apart at most, and the CPUs' batches): one that
 * started before the last ones to come is moved back past them, a cost of
 * that distance (a binary heap cost 535 instructions a request, callgrind,
 * at 260k requests/s, where its 16 levels were always full). A full ring
 * judges its oldest at once (early); a request that started before one
 * already judged, slower than the wait, is judged out of order (late).
 * -J's tables count both.
 */
#include <stdlib.h>
#include <string.h>

#include "blktop.h"
#include "model.h"
#include "window-find.h"

#define REQPAT_MAX	65536
#define REQPAT_FIRST	1024	/* the ring's length in use at first (model_index_ring_grow) */
/*
 * A request moves back past MODEL_PATTERN_REORDER at most (more than the
 * requests in flight on all devices at once): a capture in reverse time
 * order, read from a file and not trusted, would otherwise cost a ring's
 * length a record. One that would go further is left there, judged out of
 * order (late).
 */

struct reqpat_ent {
	uint64_t	 ts;		/* started */
	uint64_t	 off;		/* device offset, bytes */
	uint64_t	 fhash;		/* its file entry's, to check it is still the same file */
	uint32_t	 bytes;
	uint32_t	 dev;
	uint32_t	 file;		/* file entry, MODEL_NIL: none */
	uint32_t	 dir;		/* enum pat_dir */
};

struct reqpat {
	struct reqpat_ent	*h;	/* a ring in start order, from head */
	uint32_t		 head, n;
	uint32_t		 len;	/* the ring's length in use, up to REQPAT_MAX */
	uint64_t		 judged;	/* start time of the last request judged */
	uint64_t		 early, late;
};

struct reqpat *
reqpat_create(void)
{
	struct reqpat *r = xcalloc(1, sizeof *r);

	/* Address space only: the pages of the length in use (model_index_entries). */
	r->h = model_index_entries(REQPAT_MAX, sizeof *r->h);
	r->len = REQPAT_FIRST;
	return (r);
}

void
reqpat_free(struct reqpat *r)
{
	if (r == NULL)
		return;
	model_index_entries_free(r->h, REQPAT_MAX, sizeof *r->h);
	free(r);
}

/* Forget what waits and the counts: a new model. */
void
reqpat_reset(struct reqpat *r)
{
	r->head = r->n = 0;
	r->judged = 0;
	r->early = r->late = 0;
}

void
reqpat_stats(const struct reqpat *r, uint64_t *early, uint64_t *late)
{
	*early = r != NULL ? r->early : 0;
	*late = r != NULL ? r->late : 0;
}

/* Whether a started before b; the same 32 ns (TS_QUANTUM_NS): the lower offset first. */
static int
reqpat_before(const void *va, const void *vb)
{
	const struct reqpat_ent	*a = va, *b = vb;

	return (a->ts < b->ts || (a->ts == b->ts && a->off < b->off));
}

/* Judge the request that started first: into its device's pattern and its file's. */
static void
reqpat_pop(struct blktop *b, struct reqpat *r)
{
	const struct reqpat_ent	*e = &r->h[r->head];
	struct devwin		*dw;

	r->head = (r->head + 1) & (r->len - 1);
	r->n--;
	/* Old entries come from memory: ask 8 ahead, as model_pattern_pop does. */
	__builtin_prefetch(&r->h[(r->head + 8) & (r->len - 1)]);
	if (e->ts < r->judged)
		r->late++;
	else
		r->judged = e->ts;
	if ((dw = windows_find(&b->win, e->dev)) != NULL)
		pattern_req_add(&dw->rpat, &dw->rx, (enum pat_dir)e->dir, e->off, e->bytes);
	if (e->file != MODEL_NIL && b->procs != NULL)
		proc_file_req_add(b->procs, e->file, e->fhash, (enum pat_dir)e->dir, e->off, e->bytes);
}

/*
 * A completed block request, and the file entry the tables charged it to
 * (MODEL_NIL: none) with its hash: waits to be judged. Requests of no data
 * (flushes, discards) are no accesses.
 */
void
reqpat_add(struct blktop *b, const struct ev_block *ev, uint32_t file, uint64_t fhash)
{
	struct reqpat		*r = b->reqpat;
	struct reqpat_ent	 e;

	if (r == NULL || ev->bytes == 0 || (ev->op != BLK_OP_READ && ev->op != BLK_OP_WRITE))
		return;
	if (r->n == r->len) {
		if (r->len < REQPAT_MAX) {
			r->len = model_index_ring_grow(r->h, sizeof *r->h, r->len, r->head);
		} else {
			reqpat_pop(b, r);
			r->early++;
		}
	}
	e.ts = ev->ts_start;
	/* A sector past what 64 bits of bytes hold: the largest offset. */
	e.off = ev->sector > UINT64_MAX >> 9 ? UINT64_MAX : ev->sector << 9;
	e.fhash = fhash;
	e.bytes = ev->bytes;
	e.dev = ev->dev;
	e.file = file;
	e.dir = ev->op == BLK_OP_WRITE ? PAT_WRITE : PAT_READ;
	/* Later-started requests move up one; the same start keeps offset order. */
	model_index_ring_insert(r->h, sizeof *r->h, r->head, r->n, r->len, &e, reqpat_before,
	    &r->late);
	r->n++;
}

/* Judge the requests that started before upto (UINT64_MAX: all). */
void
reqpat_flush(struct blktop *b, uint64_t upto)
{
	struct reqpat *r = b->reqpat;

	while (r != NULL && r->n > 0 && r->h[r->head].ts <= upto)
		reqpat_pop(b, r);
}
