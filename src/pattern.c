/*
 * pattern.c: how one process used one file (pattern.h has the definitions).
 * Every function is O(1) or O(PAT_TRACK) and allocates nothing: it may run
 * on every call record.
 */
#include <string.h>

#include "pattern.h"

/* Darshan's bin edges (DARSHAN_BUCKET_INC): a size goes in the first bin whose edge it does not pass. */
static const uint64_t pattern_edges[PAT_BINS - 1] = {
	100, 1024, 10240, 102400, 1048576, 4194304, 10485760, 104857600, 1073741824,
};

static const char *const pattern_bin_names[PAT_BINS] = {
	"0-100", "100-1K", "1K-10K", "10K-100K", "100K-1M", "1M-4M", "4M-10M", "10M-100M",
	"100M-1G", "1G+",
};

void
pattern_init(struct pattern *p)
{
	memset(p, 0, sizeof(*p));
	p->side[PAT_READ].end = -1;
	p->side[PAT_WRITE].end = -1;
	p->last = -1;
}

/* The bin of an access of n bytes. */
unsigned
pattern_bin(uint64_t n)
{
	unsigned	 i;

	for (i = 0; i < PAT_BINS - 1; i++)
		if (n <= pattern_edges[i])
			break;
	return (i);
}

/* A bin's name as Darshan's counters spell it (SIZE_READ_100_1K: "100-1K"). */
const char *
pattern_bin_name(unsigned bin)
{
	return (bin < PAT_BINS ? pattern_bin_names[bin] : "?");
}

/* Count one more v: its entry, a new one while there is room, else untracked. */
static void
pattern_val(struct pat_vals *t, int64_t v)
{
	unsigned	 i;

	for (i = 0; i < t->n; i++)
		if (t->val[i] == v) {
			t->count[i]++;
			return;
		}
	if (t->n == PAT_TRACK) {
		t->untracked++;
		return;
	}
	t->val[t->n] = v;
	t->count[t->n++] = 1;
}

/* One access of bytes at off (-1: not known) in direction d. */
void
pattern_add(struct pattern *p, enum pat_dir d, int64_t off, uint64_t bytes)
{
	struct pat_side	*s = &p->side[d & 1];

	s->accesses++;
	s->hist[pattern_bin(bytes)]++;
	pattern_val(&p->sizes, (int64_t)bytes);
	if (p->last >= 0 && p->last != (int8_t)(d & 1))
		p->switches++;
	p->last = (int8_t)(d & 1);
	if (off < 0) {
		s->no_offset++;
		s->end = -1;
		return;
	}
	if (s->end >= 0) {
		if (off == s->end)
			s->consec++;
		if (off >= s->end)
			s->seq++;
		pattern_val(&p->strides, off - s->end);
	}
	/* A size past what an offset can hold ends at the largest one. */
	s->end = bytes > (uint64_t)(INT64_MAX - off) ? INT64_MAX : off + (int64_t)bytes;
}

/*
 * The commonest values of t, at most PAT_COMMON, into val[] and count[]:
 * most frequent first, equal counts the smaller value first. Returns how many.
 */
unsigned
pattern_common(const struct pat_vals *t, int64_t val[PAT_COMMON], uint64_t count[PAT_COMMON])
{
	unsigned	 i, j, k, n = 0;

	for (i = 0; i < t->n; i++) {
		/* Insertion into the sorted top list, which holds n entries. */
		for (j = 0; j < n; j++)
			if (t->count[i] > count[j] || (t->count[i] == count[j] && t->val[i] < val[j]))
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
