/*
 * pattern.h: how one process used one file, in Darshan's vocabulary: access
 * sizes in Darshan's ten bins, consecutive and sequential accesses, the
 * commonest access sizes and strides, read/write switches. Fixed size, no
 * allocation.
 *
 * The counts (struct pattern) and the position they are judged by (struct
 * pat_pos) are apart: the model keeps a position per (process, file) pair
 * and adds each access to its file's counts and to its process's.
 *
 * Definitions (Darshan's POSIX module, darshan-runtime/lib/darshan-posix.c,
 * keeps the same counters per rank and file: POSIX_RECORD_OPEN, _READ and
 * _WRITE; where blktop differs it says so, and doc/json.md):
 * - An access is one call's transfer of `bytes` (the bytes done) at offset
 *   `off`, in one direction (read or write), each direction on its own.
 * - Each open of the file by the process starts both directions again from
 *   Darshan's origin, an end at byte 1 (its last_byte_read/written = 0):
 *   the open's first access is judged against it, so one at offset 0 is
 *   neither consecutive nor sequential, one at 1 is both, one past 1
 *   sequential. A process whose open was not seen (made before blktop
 *   started) has no end to judge its first access by: neither.
 * - consecutive: it starts where the previous access of that direction ended.
 * - sequential: it starts at or after that end (consecutive included).
 * - stride: start minus the previous end, of a forward jump only (start past
 *   the end), as Darshan keeps them; and as Darshan, none from the open's
 *   origin (nor from an access that ended at byte 1: the same state there).
 *   Darshan records 0 for every other access and never lists 0: the table
 *   holds the forward gaps only.
 * - Sizes: an access of 0 bytes (a read at end of file) is counted in its
 *   bin, not in the common sizes, which Darshan never lists 0 in either.
 * - An access with no known offset (-1: a call whose offset the source did
 *   not carry, doc/json.md no_offset_reads) counts in its size bin and the
 *   common sizes, not in the rest, and the previous end is forgotten, unless
 *   it moved no bytes: then wherever it was, the end stands. (A read at end
 *   of file has its offset, the file's position at the call's exit, as any
 *   0-byte read, write, readv or writev has since issue 41.)
 * - A switch: an access in the other direction than the one before it.
 */
#ifndef BLKTOP_PATTERN_H
#define BLKTOP_PATTERN_H

#include <stdint.h>

#define PAT_BINS	10	/* Darshan's SIZE_*_0_100 ... SIZE_*_1G_PLUS */
#define PAT_COMMON	4	/* reported: the four commonest values */
#define PAT_TRACK	16	/* distinct values tracked per table; later new values are "untracked" */

enum pat_dir { PAT_READ = 0, PAT_WRITE = 1 };

/* The values seen (sizes or strides) and how often; bounded. */
struct pat_vals {
	int64_t		 val[PAT_TRACK];
	uint64_t	 count[PAT_TRACK];
	uint64_t	 untracked;	/* accesses whose value came once the table was full */
	uint64_t	 seen[4];	/* a bit per value tracked (PAT_SEEN_BIT): not set, not tracked */
	uint8_t		 n;
	uint8_t		 last;		/* the entry found last: looked at first */
};

/* One direction of the accesses counted. */
struct pat_side {
	uint64_t	 accesses;
	uint64_t	 hist[PAT_BINS];
	uint64_t	 consec;
	uint64_t	 seq;
	uint64_t	 no_offset;	/* accesses whose offset was not known */
	uint64_t	 first;		/* accesses with an offset, first of their open or with no previous end */
	uint64_t	 first_seq;	/* of those, judged sequential against the open's origin */
	uint64_t	 first_consec;	/* and consecutive (at offset 1) */
};

/*
 * The counts: of one file or one process, over all the (process, file)
 * pairs that fed it. 2 x 136 + 2 x 304 + 40 = 920 bytes.
 */
struct pattern {
	struct pat_side	 side[2];	/* by enum pat_dir */
	struct pat_vals	 sizes;
	struct pat_vals	 strides;
	uint64_t	 switches;
	uint64_t	 direct;		/* O_DIRECT calls, done or refused (pattern_direct) */
	uint64_t	 misaligned;		/* of those: off PAT_ALIGN, or refused with EINVAL */
	uint64_t	 first_ns;		/* stream time the first access began (0: none yet) */
	uint64_t	 last_ns;		/* and the last one ended */
};

/* Where one process's accesses to one file ended: what the next is judged by. */
struct pat_pos {
	int64_t		 end[2];	/* by enum pat_dir: offset after the last access; -1: none known */
	int8_t		 last;		/* direction of the last access, -1 before the first */
	uint8_t		 fresh;		/* a bit per direction: no access of it since the open */
};

/*
 * The bytes a file's reads covered, for bytes_touched (the union of the byte
 * ranges read by calls with an offset) and the re-reads (bytes read again):
 * PAT_EXTENTS ranges apart at most. One more joins the two nearest, and the
 * gap between them counts as touched: bytes then exceeds the true union by
 * at most over (0: exact), and the re-read bytes, read - bytes (0 if
 * negative: gaps joined), fall short of the true figure by as much at most. 17 x 16 + 32 = 304 bytes.
 */
#define PAT_EXTENTS	16

struct pat_touched {
	uint64_t	 start[PAT_EXTENTS + 1];	/* sorted, apart: end[i] < start[i + 1]; */
	uint64_t	 end[PAT_EXTENTS + 1];		/* one spare while a new range joins */
	uint64_t	 read;		/* bytes read by calls with an offset */
	uint64_t	 bytes;		/* the size of the ranges' union, gaps joined included */
	uint64_t	 over;		/* bytes of the gaps joined: bytes is exact when 0 */
	uint8_t		 n;
	uint8_t		 last;		/* the range a read fell inside last (pattern_touch): a hint, checked */
};

/*
 * Misaligned O_DIRECT calls (Darshan's FILE_NOT_ALIGNED, of direct calls):
 * an offset or a length asked that is not a multiple of PAT_ALIGN, the
 * block size of ext4 and xfs and the page size, where a direct write off it
 * takes the slow path (ext4 serialises it and zeroes the block's rest); or
 * a call the kernel refused with EINVAL, which it does for an offset,
 * length or buffer off the device's logical block size.
 */
#define PAT_ALIGN	4096

/*
 * Where in a file its calls went, over time (the file's offset map, iowatcher's
 * I/O map of file offsets): calls counted by the time they ended and the offset
 * they start at, reads and writes apart, in PAT_MAP_COLS columns of
 * 1 << tshift ns from t0 and PAT_MAP_BANDS bands of 1 << oshift bytes from
 * offset 0. A call past the last column merges the columns in pairs (tshift
 * grows), one past the last band merges the bands in pairs (oshift grows):
 * the map always covers the whole of the file's life and size, at a coarser
 * grain as they grow. A call with no known offset is not mapped (nooff counts
 * it). A map is cleared for a new file column by column, those it used
 * only (used), so a map that held a file read once costs 256 bytes to clear,
 * not 8 KiB. 2 x 32 x 32 x 4 + 32 = 8224 bytes.
 */
#define PAT_MAP_COLS	32
#define PAT_MAP_BANDS	32
#define PAT_MAP_TSHIFT	24	/* the first columns: 16.8 ms */
#define PAT_MAP_OSHIFT	12	/* the first bands: 4 KiB */

struct pat_map {
	uint32_t	 n[2][PAT_MAP_COLS][PAT_MAP_BANDS];	/* calls by enum pat_dir, column, band */
	uint64_t	 t0;		/* stream ns column 0 begins at */
	uint32_t	 nooff;		/* calls without an offset, not mapped */
	uint32_t	 used;		/* a bit per column with a call: the ones to clear */
	uint8_t		 tshift, oshift;
};

/*
 * Block requests judged as accesses (the request level, beside the calls'):
 * of a device, or of the file whose pages they carried. An access is a read
 * or write request that completed, of its bytes, at its device offset
 * (sector x 512), judged in the order the requests started; consecutive and
 * sequential as above, by the previous request of that direction of the
 * device (or file), whoever made it: what the disk saw, where the calls'
 * pattern is what each process asked. Zeroed memory is an empty one.
 * 2 x 15 x 8 = 240 bytes.
 */
struct req_pattern {
	uint64_t	 n[2];			/* requests by enum pat_dir */
	uint64_t	 hist[2][PAT_BINS];
	uint64_t	 consec[2];
	uint64_t	 seq[2];
	uint64_t	 first[2];		/* with no previous request of the direction */
	uint64_t	 end[2];		/* byte after that previous request (if n) */
};

/*
 * A device's requests also keep their commonest sizes and strides and their
 * read/write switches (a file's do not: 624 bytes more a file). 624 bytes.
 */
struct req_extra {
	struct pat_vals	 sizes;
	struct pat_vals	 strides;
	uint64_t	 switches;
	uint8_t		 last1;		/* the previous request's enum pat_dir + 1, 0: none */
};

void		 pattern_req_add(struct req_pattern *, struct req_extra *, enum pat_dir,
		     uint64_t off, uint64_t bytes);
double		 pattern_req_pct(const struct req_pattern *, int consec);
void		 pattern_map_init(struct pat_map *, uint64_t t0);	/* zeroed memory, or a map */
void		 pattern_map_add(struct pat_map *, enum pat_dir, uint64_t ts, int64_t off);
void		 pattern_direct(struct pattern *, int64_t off, uint64_t asked, int32_t error);
void		 pattern_span(struct pattern *, uint64_t start, uint64_t end);
void		 pattern_init(struct pattern *);
void		 pattern_touch(struct pat_touched *, int64_t off, uint64_t bytes);
void		 pattern_touch_cap(struct pat_touched *);
uint64_t	 pattern_reread(const struct pat_touched *);
unsigned	 pattern_bin(uint64_t);
const char	*pattern_bin_name(unsigned);
void		 pattern_pos_init(struct pat_pos *);
void		 pattern_pos_open(struct pat_pos *);
void		 pattern_judge(struct pat_pos *, enum pat_dir, int64_t, uint64_t, struct pattern *,
		     struct pattern *);
void		 pattern_add(struct pattern *, struct pat_pos *, enum pat_dir, int64_t, uint64_t);
/*
 * Both directions summed: calls with an offset, of those judged against a
 * previous access of their open (not a first), sequential, consecutive: the
 * shares blktop shows (-b, insights) leave each open's first access out,
 * where Darshan's counters judge it against byte 1.
 */
struct pat_sum {
	uint64_t	 with_offset, judged, seq, consec;
};
void		 pattern_sum(const struct pattern *, struct pat_sum *);
unsigned	 pattern_common(const struct pat_vals *, int64_t [PAT_COMMON], uint64_t [PAT_COMMON]);

#endif
