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
 * at 260k requests/s, where its 16 levels were always full); one that
 * would move further than MODEL_LANE_AFTER (a CPU's batch sent late) waits
 * beside the ring in its lane (model.h), a heap of those few. A full ring
 * judges what started first at once (early); a request that started before
 * one already judged, slower than the wait, is judged out of order (late).
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
	uint32_t	 dir : 1;	/* enum pat_dir */
	uint32_t	 seq : 31;	/* its arrival, for its order among equals (the lane's) */
};

struct reqpat {
	struct reqpat_ent	*h;	/* a ring in start order, from head */
	uint32_t		 head, n;
	uint32_t		 len;	/* the ring's length in use, up to REQPAT_MAX */
	struct model_lane	 lane;	/* those that came far behind the ring's last */
	uint64_t		 judged;	/* start time of the last request judged */
	uint64_t		 next;		/* the stream's time to judge the waiting requests again */
	uint64_t		 early, late;
};

struct reqpat *
reqpat_create(void)
{
	struct reqpat *r = xcalloc(1, sizeof *r);

	/* Address space only: the pages of the length in use (model_index_entries). */
	r->h = model_index_entries(REQPAT_MAX, sizeof *r->h);
	r->len = REQPAT_FIRST;
	model_lane_init(&r->lane, sizeof *r->h);
	return (r);
}

void
reqpat_free(struct reqpat *r)
{
	if (r == NULL)
		return;
	model_index_entries_free(r->h, REQPAT_MAX, sizeof *r->h);
	model_lane_free(&r->lane, sizeof *r->h);
	free(r);
}

/* Forget what waits and the counts: a new model. */
void
reqpat_reset(struct reqpat *r)
{
	r->head = r->n = 0;
	r->lane.n = 0;
	r->judged = 0;
	r->next = 0;
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

/* Whether a goes before b: reqpat_before, then as they came. */
static int
reqpat_first(const void *va, const void *vb)
{
	const struct reqpat_ent	*a = va, *b = vb;

	return (reqpat_before(a, b) || (!reqpat_before(b, a) && model_seq_before(a->seq, b->seq)));
}

/* Judge the request that started first: into its device's pattern and its file's. */
static void
reqpat_pop(struct blktop *b, struct reqpat *r)
{
	struct reqpat_ent	 le;
	const struct reqpat_ent	*e = model_ring_take(r->h, sizeof le, &r->head, &r->n, r->len,
				    &r->lane, &le, reqpat_first);
	struct devwin		*dw;

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
	/*
	 * As the calls' (model_pattern_queue): what started MODEL_PATTERN_DELAY_NS
	 * before the stream's time, its newest completion, is judged as that
	 * time moves on, once a MODEL_PATTERN_STEP_NS of it, not only at a tick:
	 * the ring holds the wait's requests, not a tick's and more (at -d 1,
	 * 1.3 s of them: past 50k requests/s the ring was full and judged them
	 * early, by its length, not by the wait).
	 */
	if (ev->ts_done >= r->next) {
		r->next = ev->ts_done + MODEL_PATTERN_STEP_NS;
		if (ev->ts_done > MODEL_PATTERN_DELAY_NS)
			reqpat_flush(b, ev->ts_done - MODEL_PATTERN_DELAY_NS);
	}
	if (r->n == r->len) {
		if (r->len < REQPAT_MAX) {
			r->len = model_index_ring_grow(r->h, sizeof *r->h, r->len, r->head);
		} else {
			/* Until the ring has room: what goes first may be the lane's. */
			do {
				reqpat_pop(b, r);
				r->early++;
			} while (r->n == r->len);
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
	e.seq = model_lane_seq(&r->lane);
	/* Later-started requests move up one; the same start keeps offset order; one far behind waits aside. */
	if (model_index_ring_insert(r->h, sizeof *r->h, r->head, r->n, r->len, &e, reqpat_before,
	    r->lane.n < MODEL_LANE_MAX))
		model_lane_push(&r->lane, sizeof e, &e, reqpat_first);
	else
		r->n++;
}

/* Judge the requests that started before upto (UINT64_MAX: all). */
void
reqpat_flush(struct blktop *b, uint64_t upto)
{
	struct reqpat		*r = b->reqpat;
	const struct reqpat_ent	*e;

	while (r != NULL && (e = model_ring_peek(r->h, sizeof *e, r->head, r->n, &r->lane,
	    reqpat_first)) != NULL && e->ts <= upto)
		reqpat_pop(b, r);
}
