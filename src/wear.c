/*
 * wear.c: the byte ranges a file's writes left unread (wear.h has the
 * definitions), in the bounded interval set of pattern.h. Every function is
 * O(PAT_EXTENTS) and allocates nothing: it runs on every call judged.
 */
#include <string.h>

#include "wear.h"

/*
 * Take [off, off + bytes) out of t's ranges: the bytes it held there (a gap
 * joined at the cap included), returned. A range cut in two that takes t
 * past PAT_EXTENTS joins the two nearest ranges again (pattern_touch_cap).
 */
uint64_t
wear_cut(struct pat_touched *t, int64_t off, uint64_t bytes)
{
	uint64_t	 a, b, s, e, cut = 0;
	unsigned	 i, k;

	if (off < 0 || bytes == 0)
		return (0);
	a = (uint64_t)off;
	b = a + bytes < a ? UINT64_MAX : a + bytes;
	for (i = 0; i < t->n && t->start[i] < b; ) {
		s = t->start[i];
		e = t->end[i];
		if (e <= a) {
			i++;
			continue;
		}
		cut += (e < b ? e : b) - (s > a ? s : a);
		if (s < a && e > b) {		/* cut in two: room made at i + 1 */
			for (k = t->n; k > i + 1; k--) {
				t->start[k] = t->start[k - 1];
				t->end[k] = t->end[k - 1];
			}
			t->n++;
			t->end[i] = a;
			t->start[i + 1] = b;
			t->end[i + 1] = e;
			break;
		}
		if (s < a) {			/* its tail */
			t->end[i++] = a;
			continue;
		}
		if (e > b) {			/* its head */
			t->start[i] = b;
			break;
		}
		for (k = i; k + 1 < t->n; k++) {	/* all of it */
			t->start[k] = t->start[k + 1];
			t->end[k] = t->end[k + 1];
		}
		t->n--;
	}
	t->bytes -= cut;
	pattern_touch_cap(t);
	return (cut);
}

/* The bytes of t's ranges in [a, b). */
static uint64_t
wear_overlap(const struct pat_touched *t, uint64_t a, uint64_t b)
{
	uint64_t	 n = 0;
	unsigned	 i;

	for (i = 0; i < t->n && t->start[i] < b; i++)
		if (t->end[i] > a)
			n += (t->end[i] < b ? t->end[i] : b) - (t->start[i] > a ? t->start[i] : a);
	return (n);
}

/*
 * A write of bytes at off (off < 0: not known, not counted): the bytes it
 * counts as written; *overwritten the unread bytes it wrote over (never
 * read: they are gone).
 */
uint64_t
wear_write(struct file_wear *w, int64_t off, uint64_t bytes, uint64_t *overwritten)
{
	*overwritten = 0;
	if (off < 0 || bytes == 0)
		return (0);
	*overwritten = wear_overlap(&w->unread, (uint64_t)off,
	    (uint64_t)off + bytes < (uint64_t)off ? UINT64_MAX : (uint64_t)off + bytes);
	pattern_touch(&w->unread, off, bytes);
	return (bytes);
}

/* A read of bytes at off: the bytes of it read back (written and unread till now). */
uint64_t
wear_read(struct file_wear *w, int64_t off, uint64_t bytes)
{
	return (wear_cut(&w->unread, off, bytes));
}

/* The file unlinked, truncated or created anew: its unread bytes, never read, returned; none left. */
uint64_t
wear_settle(struct file_wear *w)
{
	uint64_t	 n = w->unread.bytes;

	w->unread.n = 0;
	w->unread.bytes = 0;
	return (n);
}
