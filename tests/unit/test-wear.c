/* test-wear.c: the unread ranges of a file's writes (src/wear.c) against a byte map kept by hand. */

#include <stdio.h>
#include <string.h>

#include "../../src/wear.h"
#include "check.h"
#include "../common/rand.h"

#define SPAN	4096	/* bytes the random calls fall in */

/* The truth: a flag per byte, written and not read back since. */
static unsigned char	 truth[SPAN];

/* Bytes of [off, off + n) flagged, and the flags set to v there. */
static uint64_t
truth_set(uint64_t off, uint64_t n, unsigned char v)
{
	uint64_t	 i, had = 0;

	for (i = off; i < off + n && i < SPAN; i++) {
		had += truth[i];
		truth[i] = v;
	}
	return (had);
}

int
main(void)
{
	struct file_wear w;
	uint64_t	 seed = 44, written = 0, back = 0, never = 0, ow, n, bad, i, off, len, had, unit,
			 exact;

	memset(&w, 0, sizeof w);
	CHECK("a write counts its bytes", wear_write(&w, 0, 1000, &ow) == 1000 && ow == 0 &&
	    w.unread.bytes == 1000);
	CHECK("a read inside: read back, the range cut in two", wear_read(&w, 100, 200) == 200 &&
	    w.unread.n == 2 && w.unread.bytes == 800);
	CHECK("the same read again reads nothing back", wear_read(&w, 100, 200) == 0);
	CHECK("a read over a range's head and the gap", wear_read(&w, 250, 100) == 50 &&
	    w.unread.start[1] == 350);
	CHECK("a write over unread bytes: overwritten",
	    wear_write(&w, 900, 200, &ow) == 200 && ow == 100 && w.unread.bytes == 850);
	CHECK("settled: the unread bytes, none left", wear_settle(&w) == 850 && w.unread.n == 0 &&
	    wear_read(&w, 0, 2000) == 0);
	CHECK("no offset: not counted", wear_write(&w, -1, 10, &ow) == 0 && wear_read(&w, -1, 10) == 0);
	CHECK("read at the top of the offsets", wear_write(&w, INT64_MAX - 10, 10, &ow) == 10 &&
	    wear_read(&w, INT64_MAX - 10, UINT64_MAX) == 10);

	/* 20 writes apart: past the cap the nearest ranges join, over counts the gaps. */
	memset(&w, 0, sizeof w);
	for (i = 0; i < 20; i++)
		wear_write(&w, (int64_t)(i * 100), 10, &ow);
	CHECK("20 ranges apart: PAT_EXTENTS kept", w.unread.n == PAT_EXTENTS);
	CHECK("bytes = 200 written + the gaps joined", w.unread.bytes == 200 + w.unread.over &&
	    w.unread.over == 4 * 90);

	/*
	 * Random writes and reads: in 256-byte blocks of a 4 KiB span (8
	 * ranges apart at most, the cap never reached) every figure exact
	 * against the byte map; at any byte (the cap reached) the invariant
	 * written = back + never + unread - over after every call.
	 */
	memset(&w, 0, sizeof w);
	memset(truth, 0, sizeof truth);
	for (bad = 0, exact = 0, i = 0; i < 40000; i++) {
		unit = i < 20000 ? 256 : 1;
		off = xorshift64(&seed) % (SPAN / unit) * unit;
		len = (1 + xorshift64(&seed) % (i < 20000 ? 4 : 64)) * unit;
		if (off + len > SPAN)
			len = SPAN - off;
		if (xorshift64(&seed) % 3 == 0) {
			written += wear_write(&w, (int64_t)off, len, &ow);
			never += ow;
			n = ow;
			had = truth_set(off, len, 1);
		} else {
			n = wear_read(&w, (int64_t)off, len);
			back += n;
			had = truth_set(off, len, 0);
		}
		if (w.unread.over == 0)
			exact++, bad += n != had;
		if (written != back + never + w.unread.bytes - w.unread.over)
			bad++;
		if (i % 1000 == 999) {
			never += wear_settle(&w);
			memset(truth, 0, sizeof truth);
		}
	}
	CHECK("40000 random calls: exact while nothing joined, the invariant always",
	    bad == 0 && exact >= 20000 && w.unread.over > 0);
	CHECK_EXIT();
}
