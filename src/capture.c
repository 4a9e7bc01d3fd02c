/* capture.c: capture files: chunk encoder, writer, flight recorder, reader. */

#include <sys/types.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "blktop.h"

/*
 * The layout is specified in doc/capture-format.md; keep the two in step.
 *
 * A chunk holds up to ENC_NREC records. Its payload, before zlib, is a table
 * of region lengths followed by the regions: one byte stream of record tags,
 * five numeric streams whose varint bytes are split by position into four
 * planes each (low bytes of noisy values in one place, the nearly constant
 * high bytes in another: deflate's Huffman coder does much better that way),
 * one stream of plain varints and one of raw bytes.
 */

#define FILE_MAGIC		"\x89" "BLKTOP\n"
#define FILE_MAGIC_LEN		8
#define FILE_FIXED_LEN		20	/* magic, major, minor, body length, body CRC */
#define FILE_BODY_MAX		(1024 * 1024)
#define HDR_STR_MAX		65536
#define HDR_DEVS_MAX		4096

#define CHUNK_MAGIC		"\xb1" "kCH"
#define CHUNK_HDR_LEN		40
#define CHUNK_RAW_MAX		(4 * 1024 * 1024)	/* reader's bound */
#define CHUNK_COMP_MAX		(CHUNK_RAW_MAX + CHUNK_RAW_MAX / 8 + 1024)
#define CHUNK_NREC_MAX		65536			/* reader's bound */

/* Record tags. Below 0x80: EV_BLOCK with these bits. */
#define TAG_NEW_DEV		0x01
#define TAG_NEW_TASK		0x02
#define TAG_NEW_CGROUP		0x04
#define TAG_NEW_BYTES		0x08
#define TAG_NEW_OPFLAGS		0x10
#define TAG_ERROR		0x20
#define TAG_SEQ			0x40
#define TAG_TICK		0x80
#define TAG_LOST		0x81
#define TAG_RAW			0x82

/* Streams and regions. */
enum {
	S_TS,			/* ts delta from the previous timestamp in the chunk */
	S_LAT,			/* ts_done - ts_issue */
	S_QUEUE,		/* ts_issue - ts_start */
	S_SECTOR,		/* sector - end of the previous request on the device */
	S_BUSY,			/* busy time residual */
	S_NUM
};
#define PLANES			4
#define R_TAG			0
#define R_PLANE(s, j)		(1 + (s) * PLANES + (j))
#define R_MISC			(1 + S_NUM * PLANES)
#define R_BLOB			(R_MISC + 1)
#define NREG			(R_BLOB + 1)

/* Encoder limits: a chunk is sealed when any of them would be passed. */
#define ENC_NREC		8192
#define ENC_DEVS		64
#define ENC_TASKS		1024
#define ENC_COMMS		256
#define ENC_HASH		2048	/* task and comm hash slots, power of two */
#define ENC_MISC_ROOM		128	/* most MISC bytes one record writes */
#define ENC_BLOB_CAP		65536

/* Per-device delta state within a chunk. */
struct capture_devstate {
	uint32_t	 dev;
	uint64_t	 end;		/* sector after the previous request */
	uint64_t	 ts;		/* ts_done of the previous request */
	uint64_t	 busy;		/* busy_ns of the previous request */
};

/* One process in a chunk's task table. */
struct capture_task {
	uint32_t	 pid;
	uint32_t	 tgid;
	unsigned	 comm;		/* index in the comm table */
};

/* Per-chunk delta state and tables, the same for encoder and decoder. */
struct capture_state {
	uint64_t		 prev_ts;
	uint64_t		 cgroup;
	uint32_t		 bytes;
	uint16_t		 op;
	uint16_t		 flags;
	int			 cur_dev;	/* -1 until the first block record */
	int			 cur_task;
	unsigned		 ndevs;
	unsigned		 ntasks;
	unsigned		 ncomms;
	struct capture_devstate	 devs[ENC_DEVS];
	struct capture_task	 tasks[ENC_TASKS];
	char			 comms[ENC_COMMS][BLKTOP_COMM_LEN];
};

/* A growing region of the chunk being built. */
struct capture_region {
	u_char		*buf;
	size_t		 len;
	size_t		 cap;
};

/* The chunk encoder; sealed chunks go to sink(). */
struct capture_enc {
	struct capture_state	 st;
	struct capture_region	 reg[NREG];
	uint32_t		 nrec;
	uint64_t		 first_ts;
	uint64_t		 last_ts;
	int			 have_ts;
	uint16_t		 task_hash[ENC_HASH];	/* index + 1, 0 = empty */
	uint16_t		 comm_hash[ENC_HASH];
	z_stream		 z;
	u_char			*out;
	size_t			 outcap;
	void			(*sink)(void *, const u_char *, size_t,
				     uint64_t);
	void			*arg;
};

/* The file writer. */
struct capture {
	struct capture_enc	 enc;
	int			 fd;
	char			*path;
	char			*error;
	uint64_t		 records;
	uint64_t		 chunks;
	uint64_t		 bytes;
};

/* One chunk kept by the flight recorder. */
struct capture_flight_chunk {
	size_t		 off;
	size_t		 len;
	uint64_t	 stamp;		/* newest time the chunk covers */
};

/* The flight recorder: the last seconds of events as ready-made chunks. */
struct capture_flight {
	struct capture_enc		 enc;
	u_char				*buf;
	size_t				 size;
	size_t				 head;
	struct capture_flight_chunk	*ch;
	unsigned			 nch;
	unsigned			 first;
	unsigned			 count;
	uint64_t			 keep_ns;
	uint64_t			 now;
	uint64_t			 dropped;
};

/* The reader. */
struct capture_reader {
	const u_char		*base;
	size_t			 size;
	size_t			 mapped;	/* bytes to munmap, 0 for memory */
	size_t			 off;		/* next chunk candidate */
	size_t			 pending;	/* garbage bytes not yet accounted */
	struct capture_header	 hdr;
	struct capture_stats	 stats;
	z_stream		 z;
	u_char			*raw;
	size_t			 rawcap;
	uint32_t		 left;		/* records left in the current chunk */
	const u_char		*cur[NREG];
	const u_char		*end[NREG];
	struct capture_state	 st;
};

static const size_t capture_planecap[PLANES] = {
	ENC_NREC, ENC_NREC, ENC_NREC, 4 * ENC_NREC
};

/* Store a little-endian u32. */
static void
capture_put32(u_char *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

/* Store a little-endian u64. */
static void
capture_put64(u_char *p, uint64_t v)
{
	capture_put32(p, (uint32_t)v);
	capture_put32(p + 4, (uint32_t)(v >> 32));
}

/* Load a little-endian u16. */
static uint16_t
capture_get16(const u_char *p)
{
	return (p[0] | (uint16_t)p[1] << 8);
}

/* Load a little-endian u32. */
static uint32_t
capture_get32(const u_char *p)
{
	return (p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	    (uint32_t)p[3] << 24);
}

/* Map a two's complement difference to a number small either side of 0. */
static inline uint64_t
capture_zigzag(uint64_t d)
{
	return ((d << 1) ^ (0 - (d >> 63)));
}

/* Undo capture_zigzag. */
static inline uint64_t
capture_unzigzag(uint64_t u)
{
	return ((u >> 1) ^ (0 - (u & 1)));
}

/* Append a varint to a byte buffer (room is the caller's business). */
static inline u_char *
capture_putvar(u_char *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (u_char)v | 0x80;
		v >>= 7;
	}
	*p++ = (u_char)v;
	return (p);
}

/* Append a varint to the MISC region. */
static inline void
capture_enc_misc(struct capture_enc *e, uint64_t v)
{
	struct capture_region	*r = &e->reg[R_MISC];

	r->len = capture_putvar(r->buf + r->len, v) - r->buf;
}

/* Append a varint to a numeric stream, its bytes spread over the planes. */
static inline void
capture_enc_num(struct capture_enc *e, unsigned s, uint64_t v)
{
	struct capture_region	*r;
	unsigned		 j = 0;

	for (;;) {
		r = &e->reg[R_PLANE(s, j)];
		if (v < 0x80) {
			r->buf[r->len++] = (u_char)v;
			return;
		}
		r->buf[r->len++] = (u_char)v | 0x80;
		v >>= 7;
		if (j < PLANES - 1)
			j++;
	}
}

/* Append bytes to the BLOB region. */
static void
capture_enc_blob(struct capture_enc *e, const void *p, size_t len)
{
	struct capture_region	*r = &e->reg[R_BLOB];

	memcpy(r->buf + r->len, p, len);
	r->len += len;
}

/* Forget a chunk's state so the next chunk decodes on its own. */
static void
capture_state_reset(struct capture_state *st)
{
	st->prev_ts = 0;
	st->cgroup = 0;
	st->bytes = 0;
	st->op = 0;
	st->flags = 0;
	st->cur_dev = -1;
	st->cur_task = -1;
	st->ndevs = 0;
	st->ntasks = 0;
	st->ncomms = 0;
}

/* Start an empty chunk. */
static void
capture_enc_reset(struct capture_enc *e)
{
	unsigned	 i;

	capture_state_reset(&e->st);
	for (i = 0; i < NREG; i++)
		e->reg[i].len = 0;
	e->nrec = 0;
	e->first_ts = e->last_ts = 0;
	e->have_ts = 0;
	memset(e->task_hash, 0, sizeof e->task_hash);
	memset(e->comm_hash, 0, sizeof e->comm_hash);
}

/* Allocate an encoder's buffers and its zlib stream. */
static void
capture_enc_init(struct capture_enc *e,
    void (*sink)(void *, const u_char *, size_t, uint64_t), void *arg)
{
	unsigned	 s, j;
	size_t		 raw = 0;

	memset(e, 0, sizeof *e);
	e->reg[R_TAG].cap = ENC_NREC;
	for (s = 0; s < S_NUM; s++) {
		for (j = 0; j < PLANES; j++)
			e->reg[R_PLANE(s, j)].cap = capture_planecap[j];
	}
	e->reg[R_MISC].cap = 16 * ENC_NREC;
	e->reg[R_BLOB].cap = ENC_BLOB_CAP;
	for (s = 0; s < NREG; s++) {
		e->reg[s].buf = xmalloc(e->reg[s].cap);
		raw += e->reg[s].cap;
	}
	raw += NREG * 10;
	/*
	 * Z_RLE: the planes are either noise (only Huffman coding helps) or
	 * runs; measured smaller and four times faster than the default.
	 */
	if (deflateInit2(&e->z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15, 9,
	    Z_RLE) != Z_OK)
		fatalx("deflateInit2 failed");
	e->outcap = CHUNK_HDR_LEN + deflateBound(&e->z, raw) + NREG * 16;
	e->out = xmalloc(e->outcap);
	e->sink = sink;
	e->arg = arg;
	capture_enc_reset(e);
}

/* Free an encoder. */
static void
capture_enc_free(struct capture_enc *e)
{
	unsigned	 i;

	for (i = 0; i < NREG; i++)
		free(e->reg[i].buf);
	free(e->out);
	deflateEnd(&e->z);
}

/* Feed bytes to deflate; the output buffer is sized to never fill up. */
static void
capture_enc_deflate(struct capture_enc *e, const u_char *p, size_t len,
    int flush)
{
	e->z.next_in = (u_char *)p;
	e->z.avail_in = len;
	if (deflate(&e->z, flush) == Z_STREAM_ERROR || e->z.avail_in != 0)
		fatalx("deflate failed");
}

/* Compress the chunk being built, hand it to the sink and start a new one. */
static void
capture_enc_seal(struct capture_enc *e)
{
	u_char		 table[NREG * 10], *p = table, *h = e->out;
	size_t		 raw, comp;
	unsigned	 i;
	uint64_t	 stamp;

	if (e->nrec == 0)
		return;
	raw = 0;
	for (i = 0; i < NREG; i++) {
		p = capture_putvar(p, e->reg[i].len);
		raw += e->reg[i].len;
	}
	raw += p - table;

	deflateReset(&e->z);
	e->z.next_out = e->out + CHUNK_HDR_LEN;
	e->z.avail_out = e->outcap - CHUNK_HDR_LEN;
	capture_enc_deflate(e, table, p - table, Z_NO_FLUSH);
	/* A deflate block per region, so each gets its own Huffman codes. */
	for (i = 0; i < NREG; i++) {
		if (e->reg[i].len != 0)
			capture_enc_deflate(e, e->reg[i].buf, e->reg[i].len,
			    Z_BLOCK);
	}
	e->z.next_in = NULL;
	e->z.avail_in = 0;
	if (deflate(&e->z, Z_FINISH) != Z_STREAM_END)
		fatalx("deflate did not finish");
	comp = e->z.total_out;

	memcpy(h, CHUNK_MAGIC, 4);
	capture_put32(h + 4, comp);
	capture_put32(h + 8, raw);
	capture_put32(h + 12, e->nrec);
	capture_put64(h + 16, e->first_ts);
	capture_put64(h + 24, e->last_ts);
	capture_put32(h + 32, crc32(0, h + CHUNK_HDR_LEN, comp));
	capture_put32(h + 36, crc32(0, h, 36));

	stamp = e->have_ts ? e->last_ts : 0;
	capture_enc_reset(e);
	e->sink(e->arg, h, CHUNK_HDR_LEN + comp, stamp);
}

/* Note a record's timestamp for the chunk's time range. */
static inline void
capture_enc_time(struct capture_enc *e, uint64_t ts)
{
	struct capture_state	*st = &e->st;

	capture_enc_num(e, S_TS, capture_zigzag(ts - st->prev_ts));
	st->prev_ts = ts;
	if (!e->have_ts) {
		e->first_ts = e->last_ts = ts;
		e->have_ts = 1;
	} else if (ts < e->first_ts)
		e->first_ts = ts;
	else if (ts > e->last_ts)
		e->last_ts = ts;
}

/* Hash a task for the task table. */
static inline unsigned
capture_task_hash(uint32_t pid, uint32_t tgid, const char *comm)
{
	uint64_t	 h, c0, c1;

	memcpy(&c0, comm, 8);
	memcpy(&c1, comm + 8, 8);
	h = (pid * 0x9e3779b97f4a7c15ULL) ^ (tgid * 0xc2b2ae3d27d4eb4fULL) ^
	    (c0 * 0x165667b19e3779f9ULL) ^ c1;
	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ULL;
	return ((h >> 32) & (ENC_HASH - 1));
}

/* Hash a comm for the comm table. */
static inline unsigned
capture_comm_hash(const char *comm)
{
	uint64_t	 h, c0, c1;

	memcpy(&c0, comm, 8);
	memcpy(&c1, comm + 8, 8);
	h = c0 * 0x9e3779b97f4a7c15ULL ^ c1 * 0xc2b2ae3d27d4eb4fULL;
	h ^= h >> 31;
	return ((h >> 20) & (ENC_HASH - 1));
}

/* Find a comm in the chunk's table; its hash slot is returned in *slot. */
static int
capture_enc_find_comm(struct capture_enc *e, const char *comm, unsigned *slot)
{
	unsigned	 h = capture_comm_hash(comm), i;

	for (;; h = (h + 1) & (ENC_HASH - 1)) {
		if ((i = e->comm_hash[h]) == 0)
			break;
		if (memcmp(e->st.comms[i - 1], comm, BLKTOP_COMM_LEN) == 0)
			return (i - 1);
	}
	*slot = h;
	return (-1);
}

/* Find a task in the chunk's table; its hash slot is returned in *slot. */
static int
capture_enc_find_task(struct capture_enc *e, const struct ev_block *b,
    unsigned *slot)
{
	struct capture_task	*t;
	unsigned		 h, i;

	h = capture_task_hash(b->pid, b->tgid, b->comm);
	for (;; h = (h + 1) & (ENC_HASH - 1)) {
		if ((i = e->task_hash[h]) == 0)
			break;
		t = &e->st.tasks[i - 1];
		if (t->pid == b->pid && t->tgid == b->tgid &&
		    memcmp(e->st.comms[t->comm], b->comm, BLKTOP_COMM_LEN) == 0)
			return (i - 1);
	}
	*slot = h;
	return (-1);
}

/* Length of a comm without its trailing NUL bytes. */
static size_t
capture_comm_len(const char *comm)
{
	size_t	 n = BLKTOP_COMM_LEN;

	while (n > 0 && comm[n - 1] == '\0')
		n--;
	return (n);
}

/* Encode one block record; returns -1 (nothing written) if a table is full. */
static int
capture_enc_block(struct capture_enc *e, const struct ev_block *b)
{
	struct capture_state	*st = &e->st;
	struct capture_devstate	*d;
	struct capture_task	*t;
	unsigned		 tag = 0, tslot = 0, cslot = 0, i;
	int			 dev, task, comm = -1;
	uint64_t		 v;

	/* Look everything up before writing anything. */
	dev = st->cur_dev;
	if (dev == -1 || st->devs[dev].dev != b->dev) {
		tag |= TAG_NEW_DEV;
		for (dev = 0; dev < (int)st->ndevs; dev++) {
			if (st->devs[dev].dev == b->dev)
				break;
		}
		if (dev == ENC_DEVS)
			return (-1);
	}
	task = st->cur_task;
	if (task != -1) {
		t = &st->tasks[task];
		if (t->pid != b->pid || t->tgid != b->tgid ||
		    memcmp(st->comms[t->comm], b->comm, BLKTOP_COMM_LEN) != 0)
			task = -1;
	}
	if (task == -1) {
		tag |= TAG_NEW_TASK;
		task = capture_enc_find_task(e, b, &tslot);
		if (task == -1) {
			if (st->ntasks == ENC_TASKS)
				return (-1);
			comm = capture_enc_find_comm(e, b->comm, &cslot);
			if (comm == -1 && st->ncomms == ENC_COMMS)
				return (-1);
		}
	}
	if (b->cgroup != st->cgroup)
		tag |= TAG_NEW_CGROUP;
	if (b->bytes != st->bytes)
		tag |= TAG_NEW_BYTES;
	if (b->op != st->op || b->flags != st->flags)
		tag |= TAG_NEW_OPFLAGS;
	if (b->error != 0)
		tag |= TAG_ERROR;
	d = (dev < (int)st->ndevs) ? &st->devs[dev] : NULL;
	if (d != NULL && b->sector == d->end)
		tag |= TAG_SEQ;

	e->reg[R_TAG].buf[e->reg[R_TAG].len++] = tag;
	capture_enc_time(e, b->ts_done);
	capture_enc_num(e, S_LAT, capture_zigzag(b->ts_done - b->ts_issue));
	capture_enc_num(e, S_QUEUE, capture_zigzag(b->ts_issue - b->ts_start));
	if (tag & TAG_NEW_DEV) {
		capture_enc_misc(e, dev);
		if (d == NULL) {
			capture_enc_misc(e, b->dev);
			d = &st->devs[st->ndevs++];
			d->dev = b->dev;
			d->end = d->ts = d->busy = 0;
		}
		st->cur_dev = dev;
	}
	if (tag & TAG_NEW_TASK) {
		if (task != -1)
			capture_enc_misc(e, task);
		else {
			task = st->ntasks++;
			capture_enc_misc(e, task);
			capture_enc_misc(e, b->pid);
			capture_enc_misc(e, capture_zigzag((uint64_t)b->tgid -
			    b->pid));
			t = &st->tasks[task];
			t->pid = b->pid;
			t->tgid = b->tgid;
			if (comm != -1)
				capture_enc_misc(e, comm);
			else {
				comm = st->ncomms++;
				memcpy(st->comms[comm], b->comm,
				    BLKTOP_COMM_LEN);
				i = capture_comm_len(b->comm);
				capture_enc_misc(e, comm);
				capture_enc_misc(e, i);
				capture_enc_blob(e, b->comm, i);
				e->comm_hash[cslot] = comm + 1;
			}
			t->comm = comm;
			e->task_hash[tslot] = task + 1;
		}
		st->cur_task = task;
	}
	if (tag & TAG_NEW_CGROUP) {
		capture_enc_misc(e, b->cgroup);
		st->cgroup = b->cgroup;
	}
	if (tag & TAG_NEW_BYTES) {
		if (b->bytes % 512 == 0)
			capture_enc_misc(e, (uint64_t)(b->bytes / 512) << 1);
		else
			capture_enc_misc(e, (uint64_t)b->bytes << 1 | 1);
		st->bytes = b->bytes;
	}
	if (tag & TAG_NEW_OPFLAGS) {
		v = (uint64_t)b->flags << 3 | (b->op < 7 ? b->op : 7);
		capture_enc_misc(e, v);
		if (b->op >= 7)
			capture_enc_misc(e, b->op);
		st->op = b->op;
		st->flags = b->flags;
	}
	if (tag & TAG_ERROR)
		capture_enc_misc(e, capture_zigzag((uint64_t)(int64_t)b->error));
	capture_enc_misc(e, b->inflight);
	if (!(tag & TAG_SEQ))
		capture_enc_num(e, S_SECTOR, capture_zigzag(b->sector - d->end));
	d->end = b->sector + (b->bytes >> 9);
	capture_enc_num(e, S_BUSY, capture_zigzag((b->ts_done - d->ts) -
	    (b->busy_ns - d->busy)));
	d->ts = b->ts_done;
	d->busy = b->busy_ns;
	return (0);
}

/* Does the chunk being built have room for a record of this length? */
static int
capture_enc_room(struct capture_enc *e, size_t len)
{
	unsigned	 i;

	if (e->reg[R_MISC].cap - e->reg[R_MISC].len < ENC_MISC_ROOM ||
	    e->reg[R_BLOB].cap - e->reg[R_BLOB].len < len + BLKTOP_COMM_LEN)
		return (0);
	for (i = 0; i < S_NUM; i++) {
		if (e->reg[R_PLANE(i, PLANES - 1)].cap -
		    e->reg[R_PLANE(i, PLANES - 1)].len < 8)
			return (0);
	}
	return (1);
}

/* Add one record to the chunk being built, sealing chunks as they fill. */
static void
capture_enc_add(struct capture_enc *e, const void *rec, size_t len)
{
	struct ev_block	 b;
	struct ev_tick	 t;
	struct ev_lost	 l;
	uint32_t	 type;

	if (!capture_enc_room(e, len))
		capture_enc_seal(e);
	memcpy(&type, rec, sizeof type);
	if (type == EV_BLOCK && len == sizeof b) {
		memcpy(&b, rec, sizeof b);
		if (capture_enc_block(e, &b) != 0) {
			capture_enc_seal(e);
			capture_enc_block(e, &b);
		}
	} else if (type == EV_TICK && len == sizeof t &&
	    (memcpy(&t, rec, sizeof t), t.pad == 0)) {
		e->reg[R_TAG].buf[e->reg[R_TAG].len++] = TAG_TICK;
		capture_enc_time(e, t.ts);
	} else if (type == EV_LOST && len == sizeof l &&
	    (memcpy(&l, rec, sizeof l), l.pad == 0)) {
		e->reg[R_TAG].buf[e->reg[R_TAG].len++] = TAG_LOST;
		capture_enc_time(e, l.ts);
		capture_enc_misc(e, l.count);
	} else {
		e->reg[R_TAG].buf[e->reg[R_TAG].len++] = TAG_RAW;
		capture_enc_misc(e, len);
		capture_enc_blob(e, rec, len);
	}
	if (++e->nrec == ENC_NREC)
		capture_enc_seal(e);
}

/* Append a length-prefixed string to a header being built. */
static u_char *
capture_hdr_putstr(u_char *p, const char *s, size_t max)
{
	size_t	 n = (s == NULL) ? 0 : strnlen(s, max);

	p = capture_putvar(p, n);
	memcpy(p, s, n);
	return (p + n);
}

/* Build the file header; returns its length in a new buffer in *out. */
static size_t
capture_hdr_build(const struct capture_header *hdr, u_char **out)
{
	u_char		*buf, *p, *body;
	size_t		 size, len;
	unsigned	 i, ndevs;

	ndevs = hdr->ndevs > HDR_DEVS_MAX ? HDR_DEVS_MAX : hdr->ndevs;
	size = FILE_FIXED_LEN + 1 + 5 * (10 + 4096) + 20 +
	    ndevs * (10 + DEVNAME_MAX) + 10 + HDR_STR_MAX;
	buf = xmalloc(size);
	body = p = buf + FILE_FIXED_LEN;
	*p++ = 1;			/* raw records are little-endian */
	p = capture_hdr_putstr(p, hdr->version, 4096);
	p = capture_hdr_putstr(p, hdr->host, 4096);
	p = capture_hdr_putstr(p, hdr->kernel, 4096);
	p = capture_putvar(p, capture_zigzag((uint64_t)hdr->clock_offset));
	p = capture_putvar(p, hdr->created);
	p = capture_putvar(p, ndevs);
	for (i = 0; i < ndevs; i++) {
		p = capture_putvar(p, hdr->devs[i].dev);
		p = capture_hdr_putstr(p, hdr->devs[i].name, DEVNAME_MAX - 1);
	}
	p = capture_hdr_putstr(p, hdr->plan, HDR_STR_MAX - 1);
	len = p - body;

	memcpy(buf, FILE_MAGIC, FILE_MAGIC_LEN);
	buf[8] = CAPTURE_VERSION_MAJOR;
	buf[9] = 0;
	buf[10] = CAPTURE_VERSION_MINOR;
	buf[11] = 0;
	capture_put32(buf + 12, len);
	capture_put32(buf + 16, crc32(0, body, len));
	*out = buf;
	return (FILE_FIXED_LEN + len);
}

/* Give the caller an error message, if it wants one. */
static void __printflike(2, 3)
capture_seterr(char **errp, const char *fmt, ...)
{
	va_list	 ap;
	char	 buf[1024];

	if (errp == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	*errp = xstrdup(buf);
}

/* Write all of a buffer, retrying short writes. */
static int
capture_write_all(int fd, const u_char *p, size_t len)
{
	ssize_t	 n;

	while (len > 0) {
		n = write(fd, p, len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			return (-1);
		if (n == 0) {
			errno = ENOSPC;
			return (-1);
		}
		p += n;
		len -= n;
	}
	return (0);
}

/* Put the writer into the failed state with the error in errno. */
static void
capture_fail(struct capture *w, const char *what)
{
	if (w->error == NULL)
		xasprintf(&w->error, "%s: %s: %s", w->path, what,
		    strerror(errno));
}

/* Encoder sink of the writer: write one chunk to the file. */
static void
capture_write_chunk(void *arg, const u_char *p, size_t len,
    __unused uint64_t stamp)
{
	struct capture	*w = arg;

	if (w->error != NULL)
		return;
	if (capture_write_all(w->fd, p, len) != 0) {
		capture_fail(w, "write");
		return;
	}
	w->chunks++;
	w->bytes += len;
}

/* Wall-clock ns minus CLOCK_MONOTONIC ns, now. */
int64_t
capture_clock_offset(void)
{
	struct timespec	 m0, r, m1;
	uint64_t	 mono, real;

	clock_gettime(CLOCK_MONOTONIC, &m0);
	clock_gettime(CLOCK_REALTIME, &r);
	clock_gettime(CLOCK_MONOTONIC, &m1);
	mono = ((uint64_t)m0.tv_sec * NSEC_PER_SEC + m0.tv_nsec +
	    (uint64_t)m1.tv_sec * NSEC_PER_SEC + m1.tv_nsec) / 2;
	real = (uint64_t)r.tv_sec * NSEC_PER_SEC + r.tv_nsec;
	return ((int64_t)(real - mono));
}

/* Create a capture file (no overwrite, no link followed) with its header. */
struct capture *
capture_create(const char *path, const struct capture_header *hdr,
    char **errp)
{
	struct capture	*w;
	u_char		*buf;
	size_t		 len;
	int		 fd;

	fd = open(path, O_WRONLY|O_CREAT|O_EXCL|O_NOFOLLOW|O_CLOEXEC, 0600);
	if (fd == -1) {
		capture_seterr(errp, "%s: %s", path, strerror(errno));
		return (NULL);
	}
	len = capture_hdr_build(hdr, &buf);
	if (capture_write_all(fd, buf, len) != 0) {
		capture_seterr(errp, "%s: write: %s", path, strerror(errno));
		free(buf);
		close(fd);
		return (NULL);
	}
	free(buf);

	w = xcalloc(1, sizeof *w);
	w->fd = fd;
	w->path = xstrdup(path);
	w->bytes = len;
	capture_enc_init(&w->enc, capture_write_chunk, w);
	return (w);
}

/* Add one record; no allocation and, until a chunk fills, no system call. */
int
capture_add(struct capture *w, const void *rec, size_t len)
{
	if (w->error != NULL || len < 4 || len > CAPTURE_REC_MAX)
		return (-1);
	capture_enc_add(&w->enc, rec, len);
	if (w->error != NULL)
		return (-1);
	w->records++;
	return (0);
}

/* Write the partial chunk: called about once a second. */
int
capture_flush(struct capture *w)
{
	if (w->error == NULL)
		capture_enc_seal(&w->enc);
	return (w->error != NULL ? -1 : 0);
}

/* The error that put the writer into the failed state, or NULL. */
const char *
capture_error(struct capture *w)
{
	return (w->error);
}

/* Counters of a writer. */
void
capture_writer_stats(struct capture *w, uint64_t *records, uint64_t *chunks,
    uint64_t *bytes)
{
	*records = w->records;
	*chunks = w->chunks;
	*bytes = w->bytes;
}

/* Flush, close and free a writer; -1 if it failed at any point. */
int
capture_close(struct capture *w)
{
	int	 rv;

	capture_flush(w);
	if (close(w->fd) != 0)
		capture_fail(w, "close");
	rv = (w->error != NULL) ? -1 : 0;
	capture_enc_free(&w->enc);
	free(w->error);
	free(w->path);
	free(w);
	return (rv);
}

/* Drop the flight recorder's oldest chunk. */
static void
capture_flight_evict(struct capture_flight *fl)
{
	fl->first = (fl->first + 1) % fl->nch;
	if (--fl->count == 0)
		fl->head = 0;
}

/* Encoder sink of the flight recorder: keep the chunk, evicting old ones. */
static void
capture_flight_store(void *arg, const u_char *p, size_t len, uint64_t stamp)
{
	struct capture_flight		*fl = arg;
	struct capture_flight_chunk	*c;
	size_t				 off;

	if (len > fl->size) {
		fl->dropped++;
		return;
	}
	if (fl->count == fl->nch)
		capture_flight_evict(fl);
	if (fl->size - fl->head < len) {
		while (fl->count != 0 && fl->ch[fl->first].off >= fl->head)
			capture_flight_evict(fl);
		fl->head = 0;
	}
	off = fl->head;
	while (fl->count != 0 && fl->ch[fl->first].off >= off &&
	    fl->ch[fl->first].off < off + len)
		capture_flight_evict(fl);
	memcpy(fl->buf + off, p, len);
	c = &fl->ch[(fl->first + fl->count) % fl->nch];
	c->off = off;
	c->len = len;
	c->stamp = (stamp > fl->now) ? stamp : fl->now;
	fl->count++;
	fl->head = off + len;
}

/* Create a flight recorder of the last seconds of events, in max_bytes. */
struct capture_flight *
capture_flight_init(unsigned seconds, size_t max_bytes)
{
	struct capture_flight	*fl;

	if (max_bytes < 4096)
		max_bytes = 4096;
	fl = xcalloc(1, sizeof *fl);
	fl->buf = xmalloc(max_bytes);
	fl->size = max_bytes;
	fl->nch = seconds * 4 + max_bytes / 4096 + 16;
	fl->ch = xcalloc(fl->nch, sizeof *fl->ch);
	fl->keep_ns = (uint64_t)seconds * NSEC_PER_SEC;
	capture_enc_init(&fl->enc, capture_flight_store, fl);
	return (fl);
}

/* Add one record to the flight recorder; no allocation, no system call. */
void
capture_flight_add(struct capture_flight *fl, const void *rec, size_t len)
{
	if (len >= 4 && len <= CAPTURE_REC_MAX)
		capture_enc_add(&fl->enc, rec, len);
}

/* Seal the partial chunk and forget chunks older than the window. */
void
capture_flight_tick(struct capture_flight *fl, uint64_t now)
{
	fl->now = now;
	capture_enc_seal(&fl->enc);
	while (fl->count != 0 &&
	    fl->ch[fl->first].stamp + fl->keep_ns < now)
		capture_flight_evict(fl);
}

/* Bytes and chunks the flight recorder holds. */
void
capture_flight_usage(struct capture_flight *fl, size_t *bytes,
    unsigned *chunks)
{
	unsigned	 i;

	*bytes = 0;
	for (i = 0; i < fl->count; i++)
		*bytes += fl->ch[(fl->first + i) % fl->nch].len;
	*chunks = fl->count;
}

/* Free a flight recorder. */
void
capture_flight_free(struct capture_flight *fl)
{
	capture_enc_free(&fl->enc);
	free(fl->ch);
	free(fl->buf);
	free(fl);
}

/* Create a capture file that begins with what the flight recorder holds. */
struct capture *
capture_create_from_flight(const char *path, const struct capture_header *hdr,
    struct capture_flight *fl, char **errp)
{
	struct capture			*w;
	struct capture_flight_chunk	*c;
	unsigned			 i;

	if ((w = capture_create(path, hdr, errp)) == NULL)
		return (NULL);
	capture_enc_seal(&fl->enc);
	for (i = 0; i < fl->count; i++) {
		c = &fl->ch[(fl->first + i) % fl->nch];
		capture_write_chunk(w, fl->buf + c->off, c->len, c->stamp);
	}
	if (w->error != NULL) {
		capture_seterr(errp, "%s", w->error);
		capture_close(w);
		return (NULL);
	}
	return (w);
}

/* Read a varint from [*pp, end); -1 if it runs past end or past 64 bits. */
static inline int
capture_getvar(const u_char **pp, const u_char *end, uint64_t *vp)
{
	const u_char	*p = *pp;
	uint64_t	 v = 0;
	unsigned	 shift = 0;
	u_char		 c;

	do {
		if (p == end || shift > 63)
			return (-1);
		c = *p++;
		if (shift == 63 && c > 1)
			return (-1);
		v |= (uint64_t)(c & 0x7f) << shift;
		shift += 7;
	} while (c & 0x80);
	*pp = p;
	*vp = v;
	return (0);
}

/* Read a varint from the MISC region. */
static inline int
capture_dec_misc(struct capture_reader *r, uint64_t *vp)
{
	return (capture_getvar(&r->cur[R_MISC], r->end[R_MISC], vp));
}

/* Read a varint from the MISC region that must not exceed max. */
static inline int
capture_dec_misc_max(struct capture_reader *r, uint64_t max, uint64_t *vp)
{
	if (capture_getvar(&r->cur[R_MISC], r->end[R_MISC], vp) != 0 ||
	    *vp > max)
		return (-1);
	return (0);
}

/* Read a varint from a numeric stream, byte by byte across its planes. */
static inline int
capture_dec_num(struct capture_reader *r, unsigned s, uint64_t *vp)
{
	uint64_t	 v = 0;
	unsigned	 shift = 0, j = 0, i;
	u_char		 c;

	do {
		i = R_PLANE(s, j);
		if (r->cur[i] == r->end[i] || shift > 63)
			return (-1);
		c = *r->cur[i]++;
		if (shift == 63 && c > 1)
			return (-1);
		v |= (uint64_t)(c & 0x7f) << shift;
		shift += 7;
		if (j < PLANES - 1)
			j++;
	} while (c & 0x80);
	*vp = v;
	return (0);
}

/* Read a zigzag difference from a numeric stream. */
static inline int
capture_dec_diff(struct capture_reader *r, unsigned s, uint64_t *vp)
{
	if (capture_dec_num(r, s, vp) != 0)
		return (-1);
	*vp = capture_unzigzag(*vp);
	return (0);
}

/* Take bytes from the BLOB region. */
static int
capture_dec_blob(struct capture_reader *r, void *p, size_t len)
{
	if ((size_t)(r->end[R_BLOB] - r->cur[R_BLOB]) < len)
		return (-1);
	memcpy(p, r->cur[R_BLOB], len);
	r->cur[R_BLOB] += len;
	return (0);
}

/* Decode a record timestamp. */
static int
capture_dec_time(struct capture_reader *r, uint64_t *tsp)
{
	uint64_t	 d;

	if (capture_dec_diff(r, S_TS, &d) != 0)
		return (-1);
	*tsp = r->st.prev_ts += d;
	return (0);
}

/* Decode one block record. */
static int
capture_dec_block(struct capture_reader *r, unsigned tag, struct ev_block *b)
{
	struct capture_state	*st = &r->st;
	struct capture_devstate	*d;
	struct capture_task	*t;
	uint64_t		 v, v2, comm, ts;

	memset(b, 0, sizeof *b);
	b->type = EV_BLOCK;
	if (capture_dec_time(r, &ts) != 0 ||
	    capture_dec_diff(r, S_LAT, &v) != 0)
		return (-1);
	b->ts_done = ts;
	b->ts_issue = b->ts_done - v;
	if (capture_dec_diff(r, S_QUEUE, &v) != 0)
		return (-1);
	b->ts_start = b->ts_issue - v;

	if (tag & TAG_NEW_DEV) {
		if (capture_dec_misc_max(r, st->ndevs, &v) != 0)
			return (-1);
		if (v == st->ndevs) {
			if (st->ndevs == ENC_DEVS ||
			    capture_dec_misc_max(r, UINT32_MAX, &v2) != 0)
				return (-1);
			d = &st->devs[st->ndevs++];
			d->dev = v2;
			d->end = d->ts = d->busy = 0;
		}
		st->cur_dev = v;
	} else if (st->cur_dev == -1)
		return (-1);
	d = &st->devs[st->cur_dev];
	b->dev = d->dev;

	if (tag & TAG_NEW_TASK) {
		if (capture_dec_misc_max(r, st->ntasks, &v) != 0)
			return (-1);
		if (v == st->ntasks) {
			if (st->ntasks == ENC_TASKS)
				return (-1);
			t = &st->tasks[st->ntasks];
			if (capture_dec_misc_max(r, UINT32_MAX, &v2) != 0)
				return (-1);
			t->pid = v2;
			if (capture_dec_misc(r, &v2) != 0)
				return (-1);
			t->tgid = (uint32_t)(t->pid + capture_unzigzag(v2));
			if ((uint64_t)t->tgid - t->pid !=
			    capture_unzigzag(v2))
				return (-1);
			if (capture_dec_misc_max(r, st->ncomms, &comm) != 0)
				return (-1);
			if (comm == st->ncomms) {
				if (st->ncomms == ENC_COMMS ||
				    capture_dec_misc_max(r, BLKTOP_COMM_LEN,
				    &v2) != 0)
					return (-1);
				memset(st->comms[comm], 0, BLKTOP_COMM_LEN);
				if (capture_dec_blob(r, st->comms[comm],
				    v2) != 0)
					return (-1);
				st->ncomms++;
			}
			t->comm = comm;
			st->ntasks++;
		}
		st->cur_task = v;
	} else if (st->cur_task == -1)
		return (-1);
	t = &st->tasks[st->cur_task];
	b->pid = t->pid;
	b->tgid = t->tgid;
	memcpy(b->comm, st->comms[t->comm], BLKTOP_COMM_LEN);

	if (tag & TAG_NEW_CGROUP) {
		if (capture_dec_misc(r, &st->cgroup) != 0)
			return (-1);
	}
	b->cgroup = st->cgroup;
	if (tag & TAG_NEW_BYTES) {
		if (capture_dec_misc_max(r, (uint64_t)UINT32_MAX << 1 | 1,
		    &v) != 0)
			return (-1);
		if (v & 1)
			st->bytes = v >> 1;
		else {
			if ((v >> 1) > UINT32_MAX / 512)
				return (-1);
			st->bytes = (v >> 1) * 512;
		}
	}
	b->bytes = st->bytes;
	if (tag & TAG_NEW_OPFLAGS) {
		if (capture_dec_misc_max(r, (uint64_t)UINT16_MAX << 3 | 7,
		    &v) != 0)
			return (-1);
		st->flags = v >> 3;
		st->op = v & 7;
		if (st->op == 7) {
			if (capture_dec_misc_max(r, UINT16_MAX, &v) != 0)
				return (-1);
			st->op = v;
		}
	}
	b->op = st->op;
	b->flags = st->flags;
	if (tag & TAG_ERROR) {
		if (capture_dec_misc(r, &v) != 0)
			return (-1);
		v = capture_unzigzag(v);
		if ((int64_t)v < INT32_MIN || (int64_t)v > INT32_MAX)
			return (-1);
		b->error = (int32_t)v;
	}
	if (capture_dec_misc_max(r, UINT32_MAX, &v) != 0)
		return (-1);
	b->inflight = v;

	if (tag & TAG_SEQ)
		b->sector = d->end;
	else {
		if (capture_dec_diff(r, S_SECTOR, &v) != 0)
			return (-1);
		b->sector = d->end + v;
	}
	d->end = b->sector + (b->bytes >> 9);
	if (capture_dec_diff(r, S_BUSY, &v) != 0)
		return (-1);
	b->busy_ns = d->busy + (b->ts_done - d->ts) - v;
	d->ts = b->ts_done;
	d->busy = b->busy_ns;
	return (0);
}

/* Decode the next record of the chunk into buf, its length into *lenp. */
static int
capture_dec_record(struct capture_reader *r, void *buf, size_t size,
    size_t *lenp)
{
	struct ev_block	 b;
	struct ev_tick	 t;
	struct ev_lost	 l;
	const u_char	*save;
	uint64_t	 v, v2;
	unsigned	 tag;

	if (r->cur[R_TAG] == r->end[R_TAG])
		return (-1);
	tag = *r->cur[R_TAG];
	if (tag < 0x80) {
		if (size < sizeof b)
			goto small;
		if (capture_dec_block(r, tag, &b) != 0)
			return (-1);
		memcpy(buf, &b, sizeof b);
		*lenp = sizeof b;
	} else if (tag == TAG_TICK) {
		if (size < sizeof t)
			goto small;
		memset(&t, 0, sizeof t);
		t.type = EV_TICK;
		if (capture_dec_time(r, &v) != 0)
			return (-1);
		t.ts = v;
		memcpy(buf, &t, sizeof t);
		*lenp = sizeof t;
	} else if (tag == TAG_LOST) {
		if (size < sizeof l)
			goto small;
		memset(&l, 0, sizeof l);
		l.type = EV_LOST;
		if (capture_dec_time(r, &v) != 0 ||
		    capture_dec_misc(r, &v2) != 0)
			return (-1);
		l.ts = v;
		l.count = v2;
		memcpy(buf, &l, sizeof l);
		*lenp = sizeof l;
	} else if (tag == TAG_RAW) {
		save = r->cur[R_MISC];
		if (capture_dec_misc_max(r, CAPTURE_REC_MAX, &v) != 0 || v < 4)
			return (-1);
		if (size < v) {
			r->cur[R_MISC] = save;
			*lenp = v;
			return (1);
		}
		if (capture_dec_blob(r, buf, v) != 0)
			return (-1);
		*lenp = v;
	} else
		return (-1);
	r->cur[R_TAG]++;
	return (0);

small:
	*lenp = (tag < 0x80) ? sizeof b : (tag == TAG_TICK ? sizeof t :
	    sizeof l);
	return (1);
}

/* Is there a chunk header with a good CRC at this offset? */
static int
capture_chunk_header_ok(struct capture_reader *r, size_t off)
{
	const u_char	*p = r->base + off;

	if (r->size - off < CHUNK_HDR_LEN || memcmp(p, CHUNK_MAGIC, 4) != 0)
		return (0);
	return (crc32(0, p, 36) == capture_get32(p + 36));
}

/* Offset of the next good chunk header at or after off, or the file size. */
static size_t
capture_chunk_find(struct capture_reader *r, size_t off)
{
	const u_char	*p;

	while (off < r->size) {
		p = memchr(r->base + off, CHUNK_MAGIC[0], r->size - off);
		if (p == NULL)
			break;
		off = p - r->base;
		if (capture_chunk_header_ok(r, off))
			return (off);
		off++;
	}
	return (r->size);
}

/* Inflate the chunk at r->off and set up its regions; -1 if it is damaged. */
static int
capture_chunk_load(struct capture_reader *r, const u_char *h)
{
	uint32_t	 comp, raw, nrec;
	uint64_t	 len[NREG], sum = 0;
	const u_char	*p, *end;
	unsigned	 i;
	int		 ret;

	comp = capture_get32(h + 4);
	raw = capture_get32(h + 8);
	nrec = capture_get32(h + 12);
	if (crc32(0, h + CHUNK_HDR_LEN, comp) != capture_get32(h + 32))
		return (-1);
	if (raw > r->rawcap) {
		free(r->raw);
		r->rawcap = raw;
		r->raw = xmalloc(r->rawcap);
	}
	inflateReset(&r->z);
	r->z.next_in = (u_char *)h + CHUNK_HDR_LEN;
	r->z.avail_in = comp;
	r->z.next_out = r->raw;
	r->z.avail_out = raw;
	ret = inflate(&r->z, Z_FINISH);
	if (ret != Z_STREAM_END || r->z.avail_out != 0 || r->z.avail_in != 0)
		return (-1);

	p = r->raw;
	end = r->raw + raw;
	for (i = 0; i < NREG; i++) {
		if (capture_getvar(&p, end, &len[i]) != 0 || len[i] > raw)
			return (-1);
		sum += len[i];
	}
	if (sum != (uint64_t)(end - p) || len[R_TAG] != nrec)
		return (-1);
	for (i = 0; i < NREG; i++) {
		r->cur[i] = p;
		r->end[i] = p + len[i];
		p += len[i];
	}
	capture_state_reset(&r->st);
	r->left = nrec;
	return (0);
}

/* Move to the next chunk that decodes, counting damage; 0 at the end. */
static int
capture_chunk_next(struct capture_reader *r)
{
	const u_char	*h;
	size_t		 next;
	uint32_t	 comp, raw, nrec;

	while (r->off < r->size) {
		if (!capture_chunk_header_ok(r, r->off)) {
			next = capture_chunk_find(r, r->off + 1);
			r->pending += next - r->off;
			r->off = next;
			continue;
		}
		h = r->base + r->off;
		comp = capture_get32(h + 4);
		raw = capture_get32(h + 8);
		nrec = capture_get32(h + 12);
		if (comp > CHUNK_COMP_MAX || raw > CHUNK_RAW_MAX ||
		    nrec > CHUNK_NREC_MAX || nrec == 0 ||
		    r->size - r->off - CHUNK_HDR_LEN < comp) {
			/* Torn (or lying) chunk: look for a later one. */
			next = capture_chunk_find(r, r->off + 1);
			r->pending += next - r->off;
			r->off = next;
			continue;
		}
		if (r->pending != 0) {
			r->stats.skipped++;
			r->stats.skipped_bytes += r->pending;
			r->pending = 0;
		}
		r->off += CHUNK_HDR_LEN + comp;
		if (capture_chunk_load(r, h) != 0) {
			r->stats.skipped++;
			r->stats.skipped_bytes += CHUNK_HDR_LEN + comp;
			continue;
		}
		r->stats.chunks++;
		return (1);
	}
	r->stats.tail_lost += r->pending;
	r->pending = 0;
	return (0);
}

/*
 * Copy the next record into buf (size bytes) and its length into *lenp.
 * Returns 1 for a record, 0 at the end, -1 if buf is too small (*lenp is then
 * the size needed and the record is kept for the next call).
 */
int
capture_next(struct capture_reader *r, void *buf, size_t size, size_t *lenp)
{
	int	 ret;

	for (;;) {
		if (r->left != 0) {
			ret = capture_dec_record(r, buf, size, lenp);
			if (ret == 1)
				return (-1);
			if (ret == 0) {
				r->left--;
				r->stats.records++;
				return (1);
			}
			/* Good CRC, bad contents: drop the rest of it. */
			r->left = 0;
			r->stats.skipped++;
		}
		if (!capture_chunk_next(r))
			return (0);
	}
}

/* Read a header string into a new NUL-terminated copy. */
static int
capture_hdr_getstr(const u_char **pp, const u_char *end, size_t max,
    char **sp)
{
	uint64_t	 n;

	if (capture_getvar(pp, end, &n) != 0 || n > max ||
	    n > (uint64_t)(end - *pp) || memchr(*pp, '\0', n) != NULL)
		return (-1);
	*sp = xmalloc(n + 1);
	memcpy(*sp, *pp, n);
	(*sp)[n] = '\0';
	*pp += n;
	return (0);
}

/* Free what a reader's header holds. */
static void
capture_hdr_free(struct capture_header *hdr)
{
	free(hdr->version);
	free(hdr->host);
	free(hdr->kernel);
	free(hdr->plan);
	free(hdr->devs);
}

/* Check and parse the file header; the error is a short phrase. */
static const char *
capture_hdr_parse(struct capture_reader *r)
{
	struct capture_header	*hdr = &r->hdr;
	const u_char		*p, *end;
	uint32_t		 len;
	uint64_t		 v, ndevs, i;
	char			*name;
	unsigned		 major, minor;

	if (r->size == 0)
		return ("empty file");
	if (memcmp(r->base, FILE_MAGIC, r->size < FILE_MAGIC_LEN ? r->size :
	    FILE_MAGIC_LEN) != 0)
		return ("not a blktop capture file");
	if (r->size < FILE_FIXED_LEN)
		return ("truncated header");
	major = capture_get16(r->base + 8);
	minor = capture_get16(r->base + 10);
	hdr->major = major;
	hdr->minor = minor;
	if (major != CAPTURE_VERSION_MAJOR)
		return ("unsupported capture format version");
	len = capture_get32(r->base + 12);
	if (len > FILE_BODY_MAX)
		return ("damaged header (impossible length)");
	if (r->size - FILE_FIXED_LEN < len)
		return ("truncated header");
	p = r->base + FILE_FIXED_LEN;
	end = p + len;
	if (crc32(0, p, len) != capture_get32(r->base + 16))
		return ("damaged header (CRC mismatch)");

	if (p == end)
		return ("damaged header");
	if (*p++ != 1)
		return ("capture written on a big-endian host");
	if (capture_hdr_getstr(&p, end, 4096, &hdr->version) != 0 ||
	    capture_hdr_getstr(&p, end, 4096, &hdr->host) != 0 ||
	    capture_hdr_getstr(&p, end, 4096, &hdr->kernel) != 0 ||
	    capture_getvar(&p, end, &v) != 0)
		return ("damaged header");
	hdr->clock_offset = (int64_t)capture_unzigzag(v);
	if (capture_getvar(&p, end, &hdr->created) != 0 ||
	    capture_getvar(&p, end, &ndevs) != 0 || ndevs > HDR_DEVS_MAX)
		return ("damaged header");
	hdr->devs = xcalloc(ndevs, sizeof *hdr->devs);
	for (i = 0; i < ndevs; i++) {
		if (capture_getvar(&p, end, &v) != 0 || v > UINT32_MAX ||
		    capture_hdr_getstr(&p, end, DEVNAME_MAX - 1, &name) != 0)
			return ("damaged header");
		hdr->devs[i].dev = v;
		memcpy(hdr->devs[i].name, name, strlen(name) + 1);
		free(name);
		hdr->ndevs++;
	}
	if (capture_hdr_getstr(&p, end, HDR_STR_MAX - 1, &hdr->plan) != 0)
		return ("damaged header");
	/* Fields a later minor version appends are skipped. */
	r->off = FILE_FIXED_LEN + len;
	return (NULL);
}

/* Set up a reader over [base, base + size) and check the header. */
static struct capture_reader *
capture_open_common(const void *base, size_t size, size_t mapped,
    const char *name, char **errp)
{
	struct capture_reader	*r;
	const char		*err;

	r = xcalloc(1, sizeof *r);
	r->base = base;
	r->size = size;
	r->mapped = mapped;
	if (inflateInit(&r->z) != Z_OK)
		fatalx("inflateInit failed");
	if ((err = capture_hdr_parse(r)) != NULL) {
		if (strcmp(err, "unsupported capture format version") == 0) {
			capture_seterr(errp, "%s%sunsupported capture format "
			    "version %u.%u (this blktop reads %u.x)",
			    name != NULL ? name : "", name != NULL ? ": " : "",
			    r->hdr.major, r->hdr.minor, CAPTURE_VERSION_MAJOR);
		} else {
			capture_seterr(errp, "%s%s%s", name != NULL ? name : "",
			    name != NULL ? ": " : "", err);
		}
		capture_reader_close(r);
		return (NULL);
	}
	return (r);
}

/* Open a capture file for reading; on error *errp is a one-line message. */
struct capture_reader *
capture_open(const char *path, char **errp)
{
	struct stat	 sb;
	void		*base = NULL;
	int		 fd;

	if ((fd = open(path, O_RDONLY|O_CLOEXEC)) == -1) {
		capture_seterr(errp, "%s: %s", path, strerror(errno));
		return (NULL);
	}
	if (fstat(fd, &sb) != 0) {
		capture_seterr(errp, "%s: %s", path, strerror(errno));
		close(fd);
		return (NULL);
	}
	if (!S_ISREG(sb.st_mode)) {
		capture_seterr(errp, "%s: not a regular file", path);
		close(fd);
		return (NULL);
	}
	if (sb.st_size != 0) {
		base = mmap(NULL, sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (base == MAP_FAILED) {
			capture_seterr(errp, "%s: mmap: %s", path,
			    strerror(errno));
			close(fd);
			return (NULL);
		}
	}
	close(fd);
	return (capture_open_common(base, sb.st_size, sb.st_size, path, errp));
}

/* Open a capture held in memory; buf must outlive the reader. */
struct capture_reader *
capture_open_mem(const void *buf, size_t len, char **errp)
{
	return (capture_open_common(buf, len, 0, NULL, errp));
}

/* The header of an open capture. */
const struct capture_header *
capture_reader_header(struct capture_reader *r)
{
	return (&r->hdr);
}

/* What the reader has met so far. */
const struct capture_stats *
capture_reader_stats(struct capture_reader *r)
{
	return (&r->stats);
}

/* Close a reader. */
void
capture_reader_close(struct capture_reader *r)
{
	if (r->mapped != 0)
		munmap((void *)r->base, r->mapped);
	inflateEnd(&r->z);
	capture_hdr_free(&r->hdr);
	free(r->raw);
	free(r);
}
