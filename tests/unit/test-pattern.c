/* test-pattern.c: Darshan's access-pattern counters (src/pattern.c) on sequences of known shape. */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../../src/pattern.h"
#include "check.h"
#include "../common/rand.h"

#define KiB	1024
#define MiB	(1024 * 1024)

/* The top values of t as "v:c v:c ...", for one comparison. */
static const char *
top(const struct pat_vals *t)
{
	static char	 buf[256];
	int64_t		 v[PAT_COMMON];
	uint64_t	 c[PAT_COMMON];
	unsigned	 i, n = pattern_common(t, v, c);
	size_t		 len = 0;

	buf[0] = '\0';
	for (i = 0; i < n; i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%lld:%llu", i ? " " : "",
		    (long long)v[i], (unsigned long long)c[i]);
	return (buf);
}

/* The calls a map holds of direction d: the sum of its cells. */
static uint64_t
map_total(const struct pat_map *m, unsigned d)
{
	uint64_t	 n = 0;
	unsigned	 c, k;

	for (c = 0; c < PAT_MAP_COLS; c++)
		for (k = 0; k < PAT_MAP_BANDS; k++)
			n += m->n[d][c][k];
	return (n);
}

/* The offset map (pattern_map_*): exact cells, widening in time and offset, no call lost. */
static void
map_checks(void)
{
	static struct pat_map	 m;
	uint64_t		 seed = 5, t0 = 1000000000ULL, col = 1ULL << PAT_MAP_TSHIFT, tmax = 0, omax = 0;
	unsigned		 i, diag, bad, c, k;

	/* 32 reads, one a column, each a band further: a diagonal at the finest grain. */
	pattern_map_init(&m, t0);
	for (i = 0; i < 32; i++)
		pattern_map_add(&m, PAT_READ, t0 + i * col + col / 2, (int64_t)i << PAT_MAP_OSHIFT);
	for (i = 0, diag = 0; i < 32; i++)
		diag += m.n[PAT_READ][i][i] == 1;
	CHECK("map: 32 sequential reads are the diagonal at the first grain",
	    diag == 32 && map_total(&m, PAT_READ) == 32 && map_total(&m, PAT_WRITE) == 0 &&
	    m.tshift == PAT_MAP_TSHIFT && m.oshift == PAT_MAP_OSHIFT);
	/* The same file read again twice as far and twice as long: both axes double, still a diagonal. */
	for (i = 32; i < 64; i++)
		pattern_map_add(&m, PAT_READ, t0 + i * col + col / 2, (int64_t)i << PAT_MAP_OSHIFT);
	for (i = 0, diag = 0; i < 32; i++)
		diag += m.n[PAT_READ][i][i] == 2;
	CHECK("map: 64 reads over twice the time and offsets: both grains doubled, 2 a cell on the diagonal",
	    diag == 32 && map_total(&m, PAT_READ) == 64 && m.tshift == PAT_MAP_TSHIFT + 1 &&
	    m.oshift == PAT_MAP_OSHIFT + 1);
	/* Writes, calls with no offset and calls before t0. */
	pattern_map_add(&m, PAT_WRITE, t0 - 5, 0);
	pattern_map_add(&m, PAT_WRITE, t0 + 3, -1);
	CHECK("map: a write before t0 lands in column 0, one without an offset is counted apart",
	    m.n[PAT_WRITE][0][0] == 1 && map_total(&m, PAT_WRITE) == 1 && m.nooff == 1);
	/* Random calls over 1 GiB and an hour: all kept, spread over many cells. */
	pattern_map_init(&m, t0);
	for (i = 0; i < 10000; i++) {
		uint64_t dt = xorshift64(&seed) % (3600ULL * 1000000000ULL), off = xorshift64(&seed) % (1ULL << 30);

		tmax = dt > tmax ? dt : tmax;
		omax = off > omax ? off : omax;
		pattern_map_add(&m, (enum pat_dir)(i & 1), t0 + dt, (int64_t)off);
	}
	for (c = 0, bad = 0, diag = 0; c < PAT_MAP_COLS; c++)
		for (k = 0; k < PAT_MAP_BANDS; k++)
			diag += m.n[0][c][k] + m.n[1][c][k] > 0;
	bad = map_total(&m, 0) != 5000 || map_total(&m, 1) != 5000;
	/* The grains are the finest that hold the latest call and the farthest offset. */
	bad += (tmax >> m.tshift) >= PAT_MAP_COLS || (tmax >> (m.tshift - 1)) < PAT_MAP_COLS ||
	    (omax >> m.oshift) >= PAT_MAP_BANDS || (omax >> (m.oshift - 1)) < PAT_MAP_BANDS;
	printf("# random map: %u cells used, tshift %u, oshift %u\n", diag, m.tshift, m.oshift);
	CHECK("map: 10000 random calls over an hour and 1 GiB: none lost, the grains the finest that "
	    "fit, the calls spread over most cells", bad == 0 && diag > 800);
	/* An offset at the top of the range: the bands widen to 2^63 and stop. */
	pattern_map_add(&m, PAT_READ, t0, INT64_MAX);
	CHECK("map: an offset of 2^63 - 1 fits in the last band", m.oshift <= 63 &&
	    map_total(&m, 0) == 5001);
	/* Given to another file: the columns it used are cleared, no cell left. */
	pattern_map_init(&m, t0 + 5);
	CHECK("map: a map given again holds nothing of its last file", map_total(&m, 0) == 0 &&
	    map_total(&m, 1) == 0 && m.nooff == 0 && m.used == 0 && m.t0 == t0 + 5 &&
	    m.tshift == PAT_MAP_TSHIFT && m.oshift == PAT_MAP_OSHIFT);
}

int
main(void)
{
	struct pattern	 p;
	struct pat_pos	 pos;
	struct pat_touched tch;
	uint64_t	 seed = 42;
	unsigned	 i, j, perm[256], consec, seq, bad;

	/* Darshan's bin edges: each bound in its bin, one more byte in the next. */
	CHECK("bin 0 and 100: 0-100", pattern_bin(0) == 0 && pattern_bin(100) == 0);
	CHECK("bin 101 and 1024: 100-1K", pattern_bin(101) == 1 && pattern_bin(1024) == 1);
	CHECK("bin 1025: 1K-10K", pattern_bin(1025) == 2 && pattern_bin(10240) == 2);
	CHECK("bin 1 MiB: 100K-1M, 1 MiB + 1: 1M-4M",
	    pattern_bin(1048576) == 4 && pattern_bin(1048577) == 5);
	CHECK("bin 1 GiB: 100M-1G, past it: 1G+", pattern_bin(1073741824) == 8 &&
	    pattern_bin(1073741825) == 9 && pattern_bin(UINT64_MAX) == 9);
	CHECK("bin names", strcmp(pattern_bin_name(0), "0-100") == 0 &&
	    strcmp(pattern_bin_name(9), "1G+") == 0 && strcmp(pattern_bin_name(10), "?") == 0);

	/* 16 sequential 1 MiB reads from 0. */
	pattern_init(&p);
	pattern_pos_init(&pos);
	for (i = 0; i < 16; i++)
		pattern_add(&p, &pos, PAT_READ, (int64_t)i * MiB, MiB);
	CHECK("sequential: 16 reads in 100K-1M", p.side[PAT_READ].accesses == 16 &&
	    p.side[PAT_READ].hist[4] == 16);
	CHECK("sequential: 15 consecutive, 15 sequential (the first has no previous)",
	    p.side[PAT_READ].consec == 15 && p.side[PAT_READ].seq == 15);
	CHECK("sequential: common size 1 MiB x16", strcmp(top(&p.sizes), "1048576:16") == 0);
	/* Darshan lists no stride 0 (DARSHAN_UPDATE_COMMON_VAL_COUNTERS: a value 0 breaks out). */
	CHECK("sequential: no stride listed (every one 0)", strcmp(top(&p.strides), "") == 0);
	CHECK("sequential: no writes, no switches", p.side[PAT_WRITE].accesses == 0 &&
	    p.switches == 0);

	/* A 2-stride: every other 4 KiB block. */
	pattern_init(&p);
	pattern_pos_init(&pos);
	for (i = 0; i < 64; i++)
		pattern_add(&p, &pos, PAT_READ, (int64_t)i * 8 * KiB, 4 * KiB);
	CHECK("2-stride: 63 sequential, none consecutive",
	    p.side[PAT_READ].seq == 63 && p.side[PAT_READ].consec == 0);
	CHECK("2-stride: stride 4096 x63, size 4096 x64",
	    strcmp(top(&p.strides), "4096:63") == 0 && strcmp(top(&p.sizes), "4096:64") == 0);

	/* By hand: 0+4K, 8K+4K, 4K+4K, 8K+4K, 12K+4K. */
	pattern_init(&p);
	pattern_pos_init(&pos);
	pattern_add(&p, &pos, PAT_READ, 0, 4 * KiB);		/* first */
	pattern_add(&p, &pos, PAT_READ, 8 * KiB, 4 * KiB);	/* seq, stride +4K */
	pattern_add(&p, &pos, PAT_READ, 4 * KiB, 4 * KiB);	/* back: stride -8K */
	pattern_add(&p, &pos, PAT_READ, 8 * KiB, 4 * KiB);	/* consec, seq, stride 0 */
	pattern_add(&p, &pos, PAT_READ, 12 * KiB, 4 * KiB);	/* consec, seq, stride 0 */
	CHECK("by hand: 2 consecutive, 3 sequential",
	    p.side[PAT_READ].consec == 2 && p.side[PAT_READ].seq == 3);
	/* Darshan's stride: the forward gap only (POSIX_RECORD_READ: 0 for a step back or consecutive). */
	CHECK("by hand: the forward gap 4096 once; the step back and the consecutive ones not listed",
	    strcmp(top(&p.strides), "4096:1") == 0);

	/* 256 random 4 KiB reads: a permutation of a 1 MiB file's blocks. */
	for (i = 0; i < 256; i++)
		perm[i] = i;
	for (i = 255; i > 0; i--) {
		unsigned t = perm[i];

		j = (unsigned)(xorshift64(&seed) % (i + 1));
		perm[i] = perm[j];
		perm[j] = t;
	}
	pattern_init(&p);
	pattern_pos_init(&pos);
	consec = seq = 0;
	for (i = 0; i < 256; i++) {
		pattern_add(&p, &pos, PAT_READ, (int64_t)perm[i] * 4 * KiB, 4 * KiB);
		if (i > 0 && perm[i] == perm[i - 1] + 1)
			consec++;
		if (i > 0 && perm[i] >= perm[i - 1] + 1)
			seq++;
	}
	CHECK("random: 256 reads in 1K-10K", p.side[PAT_READ].hist[2] == 256);
	CHECK("random: consecutive and sequential as the block numbers say",
	    p.side[PAT_READ].consec == consec && p.side[PAT_READ].seq == seq);
	CHECK("random: about half sequential, few consecutive",
	    seq > 96 && seq < 160 && consec < 16);
	CHECK("random: more distinct strides than the table holds: untracked counted",
	    p.strides.n == PAT_TRACK && p.strides.untracked > 0 &&
	    p.strides.untracked < 255);

	/* Reads and writes interleaved: switches, each direction on its own. */
	pattern_init(&p);
	pattern_pos_init(&pos);
	for (i = 0; i < 10; i++) {
		pattern_add(&p, &pos, PAT_READ, (int64_t)i * 512, 512);
		pattern_add(&p, &pos, PAT_WRITE, (int64_t)i * 512, 512);
	}
	CHECK("read, write, read...: 19 switches", p.switches == 19);
	CHECK("each direction consecutive on its own: 9 and 9",
	    p.side[PAT_READ].consec == 9 && p.side[PAT_WRITE].consec == 9);
	CHECK("512 B: 100-1K, 10 each", p.side[PAT_READ].hist[1] == 10 &&
	    p.side[PAT_WRITE].hist[1] == 10);

	/* An access with no offset: sized, not judged, and the chain starts again. */
	pattern_init(&p);
	pattern_pos_init(&pos);
	pattern_add(&p, &pos, PAT_READ, 0, 4096);
	pattern_add(&p, &pos, PAT_READ, -1, 4096);
	pattern_add(&p, &pos, PAT_READ, 8192, 4096);
	pattern_add(&p, &pos, PAT_READ, 12288, 4096);
	CHECK("no offset: counted in its bin, not judged; the next one has no previous",
	    p.side[PAT_READ].accesses == 4 && p.side[PAT_READ].no_offset == 1 &&
	    p.side[PAT_READ].hist[2] == 4 && p.side[PAT_READ].consec == 1 &&
	    p.side[PAT_READ].seq == 1 && strcmp(top(&p.strides), "") == 0);

	/* Sizes past the table; ties. */
	pattern_init(&p);
	pattern_pos_init(&pos);
	for (i = 1; i <= PAT_TRACK + 4; i++)
		for (j = 0; j < i; j++)
			pattern_add(&p, &pos, PAT_WRITE, -1, i);
	CHECK("the size table holds PAT_TRACK values; later ones untracked",
	    p.sizes.n == PAT_TRACK && p.sizes.untracked == (uint64_t)(17 + 18 + 19 + 20));
	CHECK("the commonest tracked sizes first", strcmp(top(&p.sizes), "16:16 15:15 14:14 13:13") == 0);
	pattern_init(&p);
	pattern_pos_init(&pos);
	pattern_add(&p, &pos, PAT_READ, -1, 7);
	pattern_add(&p, &pos, PAT_READ, -1, 3);
	pattern_add(&p, &pos, PAT_READ, -1, 5);
	/* Darshan's order: equal counts, the larger value first (DARSHAN_UPDATE_COMMON_VAL_COUNTERS). */
	CHECK("equal counts: the larger value first", strcmp(top(&p.sizes), "7:1 5:1 3:1") == 0);

	/*
	 * Darshan's numbers, by its rules (darshan-posix.c): an open sets
	 * last_byte_read to 0 (_POSIX_RECORD_OPEN); a read at off is sequential
	 * if off > last_byte, consecutive if off == last_byte + 1; then
	 * last_byte = off + ret - 1 (POSIX_RECORD_READ).
	 */
	/* A 1 MiB + 500 B file read in 4 KiB calls to EOF: 256 x 4096, 500, 0 at 1049076. */
	pattern_init(&p);
	pattern_pos_init(&pos);
	pattern_pos_open(&pos);
	for (i = 0; i < 256; i++)
		pattern_add(&p, &pos, PAT_READ, (int64_t)i * 4 * KiB, 4 * KiB);
	pattern_add(&p, &pos, PAT_READ, MiB, 500);
	pattern_add(&p, &pos, PAT_READ, MiB + 500, 0);
	{
		struct pat_sum	 sum;

		pattern_sum(&p, &sum);
		/* Darshan: 257 each (the first at 0: 0 > 0 and 0 == 1 false); the 0 in SIZE_READ_0_100. */
		CHECK("read to EOF after an open: 257 consecutive and sequential, as Darshan's",
		    p.side[PAT_READ].accesses == 258 && p.side[PAT_READ].consec == 257 &&
		    p.side[PAT_READ].seq == 257 && p.side[PAT_READ].hist[0] == 1 &&
		    p.side[PAT_READ].hist[1] == 1 && p.side[PAT_READ].hist[2] == 256);
		/* Darshan never lists a common value 0: sizes 4096 and 500, no stride. */
		CHECK("read to EOF: common sizes 4096 x256, 500 x1 (no 0), no stride",
		    strcmp(top(&p.sizes), "4096:256 500:1") == 0 && strcmp(top(&p.strides), "") == 0);
		CHECK("read to EOF: blktop's share judges the 257 after the open's first: all sequential",
		    p.side[PAT_READ].first == 1 && sum.judged == 257 && sum.seq == 257 &&
		    sum.consec == 257);
	}
	/* The open's first access against Darshan's origin (last_byte 0): at 0, at 1, past 1. */
	pattern_init(&p);
	pattern_pos_init(&pos);
	pattern_pos_open(&pos);
	pattern_add(&p, &pos, PAT_READ, 0, 100);		/* neither */
	pattern_pos_open(&pos);
	pattern_add(&p, &pos, PAT_READ, 1, 100);		/* 1 == 0 + 1: both */
	pattern_pos_open(&pos);
	pattern_add(&p, &pos, PAT_READ, 4096, 100);		/* 4096 > 0: sequential; stride 0 (last_byte 0) */
	pattern_add(&p, &pos, PAT_READ, 4296, 100);		/* 4296 > 4195: stride 4296 - 4195 - 1 = 100 */
	CHECK("each open's first read judged from byte 1: at 0 neither, at 1 both, at 4096 sequential",
	    p.side[PAT_READ].consec == 1 && p.side[PAT_READ].seq == 3 &&
	    p.side[PAT_READ].first == 3 && p.side[PAT_READ].first_seq == 2 &&
	    p.side[PAT_READ].first_consec == 1);
	CHECK("no stride from the open's origin; the forward gap after it: 100 x1",
	    strcmp(top(&p.strides), "100:1") == 0);
	/* Across opens: the second open's first read is judged from byte 1, not from the first open's end. */
	pattern_init(&p);
	pattern_pos_init(&pos);
	pattern_pos_open(&pos);
	pattern_add(&p, &pos, PAT_READ, 0, 4096);
	pattern_add(&p, &pos, PAT_WRITE, 8192, 4096);	/* a write's first: 8192 > 0, sequential */
	pattern_pos_open(&pos);
	pattern_add(&p, &pos, PAT_READ, 2048, 4096);	/* 2048 > 0: sequential (not a step back from 4096) */
	CHECK("a second open: its first read sequential from byte 1; the switch across it counted",
	    p.side[PAT_READ].seq == 1 && p.side[PAT_WRITE].seq == 1 && p.switches == 2 &&
	    strcmp(top(&p.strides), "") == 0);
	/* A 1-byte read at 0 leaves Darshan's last_byte at 0: the next gap is no stride either. */
	pattern_init(&p);
	pattern_pos_init(&pos);
	pattern_add(&p, &pos, PAT_READ, 0, 1);
	pattern_add(&p, &pos, PAT_READ, 10, 1);
	CHECK("no open seen: the first not judged; after a read ending at byte 1, no stride (Darshan's last_byte 0)",
	    p.side[PAT_READ].first == 1 && p.side[PAT_READ].seq == 1 &&
	    strcmp(top(&p.strides), "") == 0);
	/* A 0-byte write between writes: it has its offset, consecutive, and the next one too. */
	pattern_init(&p);
	pattern_pos_init(&pos);
	pattern_pos_open(&pos);
	pattern_add(&p, &pos, PAT_WRITE, 0, 4096);
	pattern_add(&p, &pos, PAT_WRITE, 4096, 0);
	pattern_add(&p, &pos, PAT_WRITE, 4096, 4096);
	CHECK("a 0-byte write: consecutive, and the next at the same offset too; size 0 not listed",
	    p.side[PAT_WRITE].consec == 2 && p.side[PAT_WRITE].seq == 2 &&
	    strcmp(top(&p.sizes), "4096:2") == 0);

	/* An end past INT64_MAX stops there. */
	pattern_init(&p);
	pattern_pos_init(&pos);
	pattern_add(&p, &pos, PAT_READ, INT64_MAX - 10, 100);
	CHECK("an end past the largest offset is clamped", pos.end[PAT_READ] == INT64_MAX);

	/* O_DIRECT alignment: offset, length, EINVAL, an unknown offset. */
	pattern_init(&p);
	pattern_direct(&p, 8192, 4096, 0);
	pattern_direct(&p, 512, 4096, 0);
	pattern_direct(&p, 0, 1000, 0);
	pattern_direct(&p, -1, 4096, 0);
	pattern_direct(&p, 0, 4096, -EINVAL);
	pattern_direct(&p, 0, 4096, -EIO);
	CHECK("direct: 6 calls, misaligned by offset, by length, refused with EINVAL",
	    p.direct == 6 && p.misaligned == 3);

	/* bytes touched: overlaps, neighbours, ranges apart, unknown offsets. */
	memset(&tch, 0, sizeof tch);
	pattern_touch(&tch, 0, 4096);
	pattern_touch(&tch, 4096, 4096);		/* touches: one range */
	pattern_touch(&tch, 2048, 4096);		/* inside: read again */
	pattern_touch(&tch, 16384, 100);		/* apart */
	pattern_touch(&tch, -1, 4096);		/* no offset: not counted */
	pattern_touch(&tch, 50, 0);		/* nothing done */
	CHECK("touched: 8292 bytes in 2 ranges, 4096 read again, exact",
	    tch.n == 2 && tch.bytes == 8292 && tch.read == 12388 && pattern_reread(&tch) == 4096 &&
	    tch.over == 0 && tch.start[0] == 0 && tch.end[0] == 8192 && tch.start[1] == 16384);
	pattern_touch(&tch, 8000, 8384);		/* bridges both */
	CHECK("touched: a read joining two ranges leaves one", tch.n == 1 && tch.bytes == 16484 &&
	    tch.end[0] == 16484);
	memset(&tch, 0, sizeof tch);
	pattern_touch(&tch, INT64_MAX - 10, UINT64_MAX);
	CHECK("touched: an end past 2^64 is clamped", tch.n == 1 && tch.end[0] == UINT64_MAX);
	/* Every 8 KiB a 4 KiB read: past PAT_EXTENTS ranges, the nearest join. */
	memset(&tch, 0, sizeof tch);
	for (i = 0; i < 64; i++)
		pattern_touch(&tch, (int64_t)i * 8192, 4096);
	CHECK("touched: 64 ranges apart kept as PAT_EXTENTS, the gaps joined counted in over",
	    tch.n == PAT_EXTENTS && tch.read == 64 * 4096 && tch.bytes - tch.over == 64 * 4096 &&
	    tch.over == (64 - PAT_EXTENTS) * 4096ULL && pattern_reread(&tch) == 0);
	/* Random reads against a byte map: the bounds of pattern.h hold. */
	seed = 11;
	for (j = 0, bad = 0; j < 200; j++) {
		static uint8_t	 map[1 << 14];
		uint64_t	 truth = 0, sum = 0, k;

		memset(&tch, 0, sizeof tch);
		memset(map, 0, sizeof map);
		for (i = 0; i < 1 + j % 60; i++) {
			uint64_t off = xorshift64(&seed) % (sizeof map - 512), len = 1 + xorshift64(&seed) % 512;

			pattern_touch(&tch, (int64_t)off, len);
			for (k = off; k < off + len; k++)
				truth += map[k] == 0, map[k] = 1;
		}
		for (k = 0; k < tch.n; k++)
			sum += tch.end[k] - tch.start[k];
		for (k = 0; k + 1 < tch.n; k++)
			bad += tch.end[k] >= tch.start[k + 1];
		bad += sum != tch.bytes || tch.n > PAT_EXTENTS || tch.bytes - tch.over > truth ||
		    truth > tch.bytes || (tch.over == 0 && tch.bytes != truth) ||
		    pattern_reread(&tch) > tch.read - truth;
	}
	CHECK("touched: 200 random runs against a byte map: sorted ranges apart, "
	    "bytes - over <= the truth <= bytes, exact when over is 0", bad == 0);
	map_checks();
	{
		/* The request level: by the previous request of the direction, whoever made it. */
		struct req_pattern	 rq;
		struct req_extra	 rx;
		int64_t			 v[PAT_COMMON];
		uint64_t		 k, c[PAT_COMMON];

		memset(&rq, 0, sizeof rq);
		memset(&rx, 0, sizeof rx);
		for (k = 0; k < 16; k++)
			pattern_req_add(&rq, &rx, PAT_READ, (1 << 20) + k * 65536, 65536);
		pattern_req_add(&rq, &rx, PAT_WRITE, 0, 4096);
		pattern_req_add(&rq, &rx, PAT_READ, 1 << 30, 4096);	/* a jump forward */
		pattern_req_add(&rq, &rx, PAT_READ, 0, 512);		/* a step back */
		CHECK("requests: 16 sequential 64 KiB reads: 15 consecutive, then a jump and a step back",
		    rq.n[PAT_READ] == 18 && rq.first[PAT_READ] == 1 &&
		    rq.consec[PAT_READ] == 15 && rq.seq[PAT_READ] == 16);
		CHECK("requests: the bins", rq.hist[PAT_READ][3] == 16 && rq.hist[PAT_READ][2] == 1 &&
		    rq.hist[PAT_READ][1] == 1 && rq.hist[PAT_WRITE][2] == 1);
		CHECK("requests: a write is judged apart: the first of its direction",
		    rq.n[PAT_WRITE] == 1 && rq.first[PAT_WRITE] == 1 && rq.seq[PAT_WRITE] == 0);
		CHECK("requests, a device's extras: sizes 64 KiB x16 first, 2 switches, strides",
		    pattern_common(&rx.sizes, v, c) == 3 && v[0] == 65536 && c[0] == 16 &&
		    rx.switches == 2 && pattern_common(&rx.strides, v, c) == 3 && v[0] == 0 &&
		    c[0] == 15 && (v[1] == -(1 << 30) - 4096 || v[2] == -(1 << 30) - 4096));
		pattern_req_add(&rq, &rx, PAT_WRITE, UINT64_MAX - 10, 4096);	/* ends past 2^64: held at the top */
		pattern_req_add(&rq, &rx, PAT_WRITE, UINT64_MAX, 4096);
		CHECK("requests: an end past 2^64 stops at the top, no wrap",
		    rq.end[PAT_WRITE] == UINT64_MAX && rq.consec[PAT_WRITE] == 1);
	}
	CHECK_EXIT();
}
