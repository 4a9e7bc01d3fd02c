/*
 * pattern.c: how one process used one file (pattern.h has the definitions).
 * Every function is O(1) or O(PAT_TRACK) and allocates nothing: it may run
 * on every call record.
 */
#include <errno.h>
#include <string.h>

#include "pattern.h"

/*
 * Darshan's bin edges (DARSHAN_BUCKET_INC): a size goes in the first bin
 * whose edge it does not pass; the last bin's edge is none (UINT64_MAX).
 */
static const uint64_t pattern_edges[PAT_BINS] = {
	100, 1024, 10240, 102400, 1048576, 4194304, 10485760, 104857600, 1073741824, UINT64_MAX,
};

/*
 * The edges below 2^k, for each k: the first edge that a size of 2^k to
 * 2^(k+1) - 1 may pass. No such span holds two edges, so one compare with
 * that edge finds the bin (pattern_bin_of).
 */
static const uint8_t pattern_bin_below[64] = {
	0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 3, 3,
	3, 4, 4, 4, 4, 5, 5, 6, 7, 7, 7, 8, 8, 8, 8, 9,
	9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9,
	9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9,
};

static const char *const pattern_bin_names[PAT_BINS] = {
	"0-100", "100-1K", "1K-10K", "10K-100K", "100K-1M", "1M-4M", "4M-10M", "10M-100M",
	"100M-1G", "1G+",
};

void
pattern_init(struct pattern *p)
{
	memset(p, 0, sizeof(*p));
}

/* Remove ranges i+1 .. j-1 of t: the ranges from j on move down. */
static void
pattern_touch_cut(struct pat_touched *t, unsigned i, unsigned j)
{
	unsigned k, d = j - i - 1;

	if (d == 0)
		return;
	for (k = j; k < t->n; k++) {
		t->start[k - d] = t->start[k];
		t->end[k - d] = t->end[k];
	}
	t->n -= d;
}

/*
 * Past PAT_EXTENTS ranges, the two nearest join: the gap between them
 * counts as touched (bytes) and as joined (over). Both sets of pattern.h
 * (the ranges read, wear.c's ranges unread) keep their cap by it.
 */
void
pattern_touch_cap(struct pat_touched *t)
{
	uint64_t	 gap = UINT64_MAX;
	unsigned	 k, near = 0;

	if (t->n <= PAT_EXTENTS)
		return;
	for (k = 0; k + 1 < t->n; k++)
		if (t->start[k + 1] - t->end[k] < gap) {
			gap = t->start[k + 1] - t->end[k];
			near = k;
		}
	t->end[near] = t->end[near + 1];
	t->bytes += gap;
	t->over += gap;
	pattern_touch_cut(t, near, near + 2);
}

/*
 * [a, b) into t, ranges i on not ending before a: it joins every range it
 * overlaps or touches; a range apart is inserted, and past PAT_EXTENTS the
 * two nearest ranges join. Out of line: most reads fall inside a range.
 */
static __attribute__((noinline)) void
pattern_touch_join(struct pat_touched *t, unsigned i, uint64_t a, uint64_t b)
{
	unsigned	 j, k;

	for (j = i; j < t->n && t->start[j] <= b; j++)
		;
	if (j > i) {		/* ranges i .. j-1 meet [a, b): one range */
		if (t->start[i] < a)
			a = t->start[i];
		if (t->end[j - 1] > b)
			b = t->end[j - 1];
		for (k = i; k < j; k++)
			t->bytes -= t->end[k] - t->start[k];
		pattern_touch_cut(t, i, j);
	} else {		/* apart: inserted at i */
		for (k = t->n; k > i; k--) {
			t->start[k] = t->start[k - 1];
			t->end[k] = t->end[k - 1];
		}
		t->n++;
	}
	t->start[i] = a;
	t->end[i] = b;
	t->bytes += b - a;
	pattern_touch_cap(t);
}

/* Whether range k of t holds [a, b) whole. */
static inline int
pattern_touch_holds(const struct pat_touched *t, unsigned k, uint64_t a, uint64_t b)
{
	return (k < t->n && t->start[k] <= a && b <= t->end[k]);
}

/*
 * A read of bytes at off (off < 0: not known, not counted): the first range
 * that does not end before it holds it (read again, nothing new touched),
 * or it joins the ranges (pattern_touch_join). O(PAT_EXTENTS).
 */
void
pattern_touch(struct pat_touched *t, int64_t off, uint64_t bytes)
{
	uint64_t	 a, b;
	unsigned	 i, j, k;

	if (off < 0 || bytes == 0)
		return;
	a = (uint64_t)off;
	b = a + bytes < a ? UINT64_MAX : a + bytes;	/* nothing read from the kernel is trusted */
	t->read += bytes;
	/* The range a read fell inside last: a run of reads in one range looks no further. */
	if (pattern_touch_holds(t, t->last, a, b))
		return;
	/* The first range that does not end before a: ends are sorted too (4 steps, not 8). */
	for (i = 0, j = t->n; i < j;) {
		k = (i + j) / 2;
		if (t->end[k] < a)
			i = k + 1;
		else
			j = k;
	}
	if (pattern_touch_holds(t, i, a, b)) {
		t->last = (uint8_t)i;
		return;
	}
	pattern_touch_join(t, i, a, b);
}

/* The bytes read again: read less the union, a lower bound when gaps were joined. */
uint64_t
pattern_reread(const struct pat_touched *t)
{
	return (t->read > t->bytes ? t->read - t->bytes : 0);
}

/* One O_DIRECT call: off its starting offset (-1: not known), asked its length, error its negative errno. */
void
pattern_direct(struct pattern *p, int64_t off, uint64_t asked, int32_t error)
{
	p->direct++;
	if (error == -EINVAL || (off >= 0 && off % PAT_ALIGN != 0) || asked % PAT_ALIGN != 0)
		p->misaligned++;
}

/* An access from start to end (stream ns): the first began and the last ended, kept. */
void
pattern_span(struct pattern *p, uint64_t start, uint64_t end)
{
	if (start == 0)
		start = 1;	/* 0 marks none */
	if (p->first_ns == 0 || start < p->first_ns)
		p->first_ns = start;
	if (end > p->last_ns)
		p->last_ns = end;
}

void
pattern_pos_init(struct pat_pos *pos)
{
	pos->end[PAT_READ] = pos->end[PAT_WRITE] = -1;
	pos->last = -1;
	pos->fresh = 0;
}

/*
 * An open of the file by the pair's process: both directions start again
 * from Darshan's origin, an end at byte 1 (_POSIX_RECORD_OPEN sets
 * last_byte_read and last_byte_written to 0); the last direction stays, as
 * Darshan's last_io_type does, for the switches.
 */
void
pattern_pos_open(struct pat_pos *pos)
{
	pos->end[PAT_READ] = pos->end[PAT_WRITE] = 1;
	pos->fresh = 1u << PAT_READ | 1u << PAT_WRITE;
}

/* The bin of an access of n bytes: its power of two's first edge, passed or not. */
static inline unsigned
pattern_bin_of(uint64_t n)
{
	unsigned	 b = pattern_bin_below[63 - __builtin_clzll(n | 1)];

	return (b + (n > pattern_edges[b]));
}

unsigned
pattern_bin(uint64_t n)
{
	return (pattern_bin_of(n));
}

/* A bin's name as Darshan's counters spell it (SIZE_READ_100_1K: "100-1K"). */
const char *
pattern_bin_name(unsigned bin)
{
	return (bin < PAT_BINS ? pattern_bin_names[bin] : "?");
}

/*
 * Value v's bit in a table's seen mask: 256 bits, so that a full table
 * (PAT_TRACK values) is searched for a value not in it once in 16, not
 * once in 4 as with 64 (random strides, two tables a call).
 */
#define PAT_SEEN_WORD(h)	((h) >> 62)
#define PAT_SEEN_BIT(h)		(1ULL << ((h) >> 56 & 63))

static inline uint64_t
pattern_val_hash(int64_t v)
{
	return ((uint64_t)v * 0x9e3779b97f4a7c15ULL);
}

/*
 * Count one more v: its entry, a new one while there is room, else
 * untracked. The entry found last is tried first (a run of equal sizes or
 * strides), and a value whose bit is not in seen is not in the table (a
 * random stride, once the table is full, costs no search). Inline: three
 * calls a call record and two a request, a call each of 22 instructions.
 */
static inline __attribute__((always_inline)) void
pattern_val(struct pat_vals *t, int64_t v)
{
	uint64_t	 h;
	unsigned	 i;

	if (t->last < t->n && t->val[t->last] == v) {
		t->count[t->last]++;
		return;
	}
	h = pattern_val_hash(v);
	if (t->seen[PAT_SEEN_WORD(h)] & PAT_SEEN_BIT(h)) {
		for (i = 0; i < t->n; i++)
			if (t->val[i] == v) {
				t->count[i]++;
				t->last = (uint8_t)i;
				return;
			}
	}
	if (t->n == PAT_TRACK) {
		t->untracked++;
		return;
	}
	t->seen[PAT_SEEN_WORD(h)] |= PAT_SEEN_BIT(h);
	t->last = t->n;
	t->val[t->n] = v;
	t->count[t->n++] = 1;
}

/* One access as its pair's position judged it (pattern_judge), for each pattern it counts in. */
struct pat_judged {
	int64_t		 size;		/* 0: none listed (Darshan never lists a size 0,
					 * DARSHAN_UPDATE_COMMON_VAL_COUNTERS) */
	int64_t		 stride;	/* if has_stride */
	unsigned	 dir, bin;
	unsigned	 switched, nooff, consec, seq, has_stride;
	unsigned	 first;		/* the first of its open, with an offset */
};

/* One judged access into p. */
static inline __attribute__((always_inline)) void
pattern_count_one(struct pattern *p, const struct pat_judged *j)
{
	struct pat_side	*s = &p->side[j->dir];

	/* The side's counters first, while s is at hand, then the tables. */
	s->accesses++;
	s->hist[j->bin]++;
	s->no_offset += j->nooff;
	s->consec += j->consec;
	s->seq += j->seq;
	if (j->first) {
		s->first++;
		s->first_seq += j->seq;
		s->first_consec += j->consec;
	}
	p->switches += j->switched;
	if (j->size != 0)
		pattern_val(&p->sizes, j->size);
	if (j->has_stride)
		pattern_val(&p->strides, j->stride);
}

/*
 * One access of a pair judged by pos (and pos moved past it), counted into
 * a and, unless NULL, b: its file's and its process's, judged once.
 */
void
pattern_judge(struct pat_pos *pos, enum pat_dir d, int64_t off, uint64_t bytes,
    struct pattern *a, struct pattern *b)
{
	struct pat_judged	 j = { 0 };
	int64_t			 e;

	j.dir = d & 1;
	j.bin = pattern_bin_of(bytes);
	j.size = bytes > INT64_MAX ? INT64_MAX : (int64_t)bytes;
	e = pos->end[j.dir];
	j.switched = pos->last >= 0 && pos->last != (int8_t)j.dir;
	j.first = e < 0 || (pos->fresh & (1u << j.dir));
	pos->last = (int8_t)j.dir;
	pos->fresh &= (uint8_t)~(1u << j.dir);
	if (off < 0) {
		if (bytes > 0)
			pos->end[j.dir] = -1;	/* moved somewhere unknown; 0 bytes moved nothing */
		j.nooff = 1;
		j.first = 0;
	} else {
		if (e >= 0) {
			j.consec = off == e;
			j.seq = off >= e;
			/* Darshan's stride: a forward gap, none from its origin (last_byte 0, end 1). */
			j.has_stride = off > e && e != 1;
			j.stride = off - e;
		}
		/* A size past what an offset can hold ends at the largest one. */
		pos->end[j.dir] = bytes > (uint64_t)(INT64_MAX - off) ? INT64_MAX : off + (int64_t)bytes;
	}
	pattern_count_one(a, &j);
	if (b != NULL)
		pattern_count_one(b, &j);
}

/*
 * One request of r's device or file: bytes at device offset off, in
 * direction d; x (a device's, or NULL) takes its size, stride and switch.
 */
void
pattern_req_add(struct req_pattern *r, struct req_extra *x, enum pat_dir d, uint64_t off,
    uint64_t bytes)
{
	unsigned	 i = d & 1;

	if (x != NULL) {
		pattern_val(&x->sizes, bytes > INT64_MAX ? INT64_MAX : (int64_t)bytes);
		if (r->n[i] > 0)	/* start less the previous end: wraps only past 2^63 */
			pattern_val(&x->strides, (int64_t)(off - r->end[i]));
		x->switches += x->last1 != 0 && x->last1 != i + 1;
		x->last1 = (uint8_t)(i + 1);
	}
	if (r->n[i] == 0)
		r->first[i]++;
	else {
		r->consec[i] += off == r->end[i];
		r->seq[i] += off >= r->end[i];
	}
	r->n[i]++;
	r->hist[i][pattern_bin(bytes)]++;
	r->end[i] = bytes > UINT64_MAX - off ? UINT64_MAX : off + bytes;
}

/*
 * Of r's requests judged against a previous one (both directions), the
 * share sequential (consec: consecutive), in percent; -1 if none was judged.
 */
double
pattern_req_pct(const struct req_pattern *r, int consec)
{
	uint64_t judged = r->n[0] + r->n[1] - r->first[0] - r->first[1];

	if (judged == 0)
		return (-1);
	return (100.0 * (double)(consec ? r->consec[0] + r->consec[1] : r->seq[0] + r->seq[1]) /
	    (double)judged);
}

/* One access of one pair: judged by pos, counted into p. */
void
pattern_add(struct pattern *p, struct pat_pos *pos, enum pat_dir d, int64_t off, uint64_t bytes)
{
	pattern_judge(pos, d, off, bytes, p, NULL);
}

/* Both directions of p summed (struct pat_sum). */
void
pattern_sum(const struct pattern *p, struct pat_sum *sum)
{
	unsigned d;

	memset(sum, 0, sizeof(*sum));
	for (d = 0; d < 2; d++) {
		sum->with_offset += p->side[d].accesses - p->side[d].no_offset;
		sum->judged += p->side[d].accesses - p->side[d].no_offset - p->side[d].first;
		sum->seq += p->side[d].seq - p->side[d].first_seq;
		sum->consec += p->side[d].consec - p->side[d].first_consec;
	}
}

/*
 * The commonest values of t, at most PAT_COMMON, into val[] and count[]:
 * most frequent first, equal counts the larger value first (Darshan's order,
 * DARSHAN_UPDATE_COMMON_VAL_COUNTERS). Returns how many.
 */
unsigned
pattern_common(const struct pat_vals *t, int64_t val[PAT_COMMON], uint64_t count[PAT_COMMON])
{
	unsigned	 i, j, k, n = 0;

	for (i = 0; i < t->n; i++) {
		/* Insertion into the sorted top list, which holds n entries. */
		for (j = 0; j < n; j++)
			if (t->count[i] > count[j] || (t->count[i] == count[j] && t->val[i] > val[j]))
				break;
		if (j == PAT_COMMON)
			continue;
		for (k = n < PAT_COMMON ? n : PAT_COMMON - 1; k > j; k--) {
			val[k] = val[k - 1];
			count[k] = count[k - 1];
		}
		val[j] = t->val[i];
		count[j] = t->count[i];
		if (n < PAT_COMMON)
			n++;
	}
	return (n);
}

void
pattern_map_init(struct pat_map *m, uint64_t t0)
{
	unsigned	 c;

	for (c = 0; m->used != 0; c++, m->used >>= 1)
		if (m->used & 1) {
			memset(m->n[PAT_READ][c], 0, sizeof(m->n[PAT_READ][c]));
			memset(m->n[PAT_WRITE][c], 0, sizeof(m->n[PAT_WRITE][c]));
		}
	m->nooff = 0;
	m->t0 = t0;
	m->tshift = PAT_MAP_TSHIFT;
	m->oshift = PAT_MAP_OSHIFT;
}

/* Add counts a into b, saturating: a column or band merged past UINT32_MAX stays there. */
static uint32_t
pattern_map_sum(uint32_t a, uint32_t b)
{
	return (a > UINT32_MAX - b ? UINT32_MAX : a + b);
}

/*
 * Merge the map's columns (cols 1) or else its bands in pairs, into the
 * lower half: cell j of the result is the saturated sum of cells 2j and
 * 2j + 1, the upper half 0. Pair by pair, each cell read once (cell by cell,
 * adding into a cell maybe read already, it was 30 000 instructions a
 * merge). Columns never used are all 0 (pattern_map_init), and are skipped.
 */
static void
pattern_map_halve(struct pat_map *m, int cols)
{
	unsigned	 d, c, k;
	uint32_t	 used = 0;

	for (c = 0; c < PAT_MAP_COLS; c++)
		if (m->used & (1u << c))
			used |= 1u << (cols ? c >> 1 : c);
	for (d = 0; d < 2; d++) {
		for (c = 0; c < PAT_MAP_COLS; c++) {
			if (!cols && (m->used & (1u << c))) {
				for (k = 0; k < PAT_MAP_BANDS / 2; k++)
					m->n[d][c][k] = pattern_map_sum(m->n[d][c][2 * k],
					    m->n[d][c][2 * k + 1]);
				memset(&m->n[d][c][PAT_MAP_BANDS / 2], 0,
				    sizeof(m->n[d][c]) / 2);
			} else if (cols && c < PAT_MAP_COLS / 2 && (m->used & (3u << (2 * c)))) {
				for (k = 0; k < PAT_MAP_BANDS; k++)
					m->n[d][c][k] = pattern_map_sum(m->n[d][2 * c][k],
					    m->n[d][2 * c + 1][k]);
			} else if (cols && (m->used & (1u << c)))
				memset(m->n[d][c], 0, sizeof(m->n[d][c]));
		}
	}
	m->used = used;
}

/*
 * A call of direction dir that ended at stream time ts (before t0: in column
 * 0) at offset off (-1: unknown, not mapped).
 */
void
pattern_map_add(struct pat_map *m, enum pat_dir dir, uint64_t ts, int64_t off)
{
	uint64_t	 col = ts > m->t0 ? (ts - m->t0) >> m->tshift : 0;
	uint64_t	 band;

	if (off < 0) {
		if (m->nooff < UINT32_MAX)
			m->nooff++;
		return;
	}
	/* Widen time: column pairs merge until ts fits. */
	while (col >= PAT_MAP_COLS && m->tshift < 63) {
		pattern_map_halve(m, 1);
		m->tshift++;
		col = (ts - m->t0) >> m->tshift;
	}
	band = (uint64_t)off >> m->oshift;
	/* Widen offsets: band pairs merge until off fits. */
	while (band >= PAT_MAP_BANDS && m->oshift < 63) {
		pattern_map_halve(m, 0);
		m->oshift++;
		band = (uint64_t)off >> m->oshift;
	}
	if (col >= PAT_MAP_COLS)
		col = PAT_MAP_COLS - 1;
	if (band >= PAT_MAP_BANDS)
		band = PAT_MAP_BANDS - 1;
	m->n[dir][col][band] = pattern_map_sum(m->n[dir][col][band], 1);
	m->used |= 1u << col;
}
