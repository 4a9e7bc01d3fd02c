/* capture-encode.c: the chunk encoder, records in, sealed compressed chunks out. */

#include <sys/types.h>

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "base.h"
#include "event.h"
#include "capture.h"

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

/* Encoder limits: a chunk is sealed when any of them would be passed. */
#define ENC_NREC		8192
#define ENC_HASH		2048	/* task and comm hash slots, power of two */
#define ENC_MISC_ROOM		128	/* most MISC bytes one record writes */
#define ENC_BLOB_CAP		65536

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

static const size_t capture_planecap[PLANES] = {
	ENC_NREC, ENC_NREC, ENC_NREC, 4 * ENC_NREC
};

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
void
capture_state_reset(struct capture_state *st)
{
	st->prev_ts = 0;
	st->cgroup = 0;
	st->bytes = 0;
	st->op = 0;
	st->flags = 0;
	st->fclass = 0;
	st->fsdev = 0;
	st->ino = 0;
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

/* Allocate an encoder, its buffers and its zlib stream. */
struct capture_enc *
capture_enc_create(void (*sink)(void *, const u_char *, size_t, uint64_t),
    void *arg)
{
	struct capture_enc	*e;
	unsigned		 s, j;
	size_t			 raw = 0;

	e = xcalloc(1, sizeof *e);
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
	return (e);
}

/* Free an encoder. */
void
capture_enc_free(struct capture_enc *e)
{
	unsigned	 i;

	for (i = 0; i < NREG; i++)
		free(e->reg[i].buf);
	free(e->out);
	deflateEnd(&e->z);
	free(e);
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
void
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
	if (deflateParams(&e->z, Z_DEFAULT_COMPRESSION, Z_RLE) != Z_OK)
		fatalx("deflateParams failed");
	capture_enc_deflate(e, table, p - table, Z_NO_FLUSH);
	/* A deflate block per region, so each gets its own Huffman codes. */
	for (i = 0; i < NREG; i++) {
		if (e->reg[i].len == 0)
			continue;
		/*
		 * Raw records (file calls, page events) repeat their paths and
		 * headers at a distance: string matching finds them, RLE not
		 * (a libaio job's records took 27.6 bytes each with RLE).
		 */
		if (i == R_BLOB && deflateParams(&e->z, Z_DEFAULT_COMPRESSION,
		    Z_DEFAULT_STRATEGY) != Z_OK)
			fatalx("deflateParams failed");
		capture_enc_deflate(e, e->reg[i].buf, e->reg[i].len, Z_BLOCK);
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
		if (dev == CHUNK_DEVS_MAX)
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
			if (st->ntasks == CHUNK_TASKS_MAX)
				return (-1);
			comm = capture_enc_find_comm(e, b->comm, &cslot);
			if (comm == -1 && st->ncomms == CHUNK_COMMS_MAX)
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

	/*
	 * A new file: tag TAG_FILE, then the block tag, class, filesystem and
	 * inode in MISC (format 1.2). Runs on one file cost nothing.
	 */
	if (b->fclass != st->fclass || b->fsdev != st->fsdev || b->ino != st->ino) {
		e->reg[R_TAG].buf[e->reg[R_TAG].len++] = TAG_FILE;
		capture_enc_misc(e, tag);
		capture_enc_misc(e, b->fclass);
		capture_enc_misc(e, b->fsdev);
		capture_enc_misc(e, capture_zigzag(b->ino - st->ino));
		st->fclass = b->fclass;
		st->fsdev = b->fsdev;
		st->ino = b->ino;
	} else
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
	/* 3.0: a record of no kernel-side device state carries neither (both 0). */
	if (!(b->flags & BLK_F_NODEVSTAT))
		capture_enc_misc(e, b->inflight);
	if (!(tag & TAG_SEQ))
		capture_enc_num(e, S_SECTOR, capture_zigzag(b->sector - d->end));
	d->end = b->sector + (b->bytes >> 9);
	if (!(b->flags & BLK_F_NODEVSTAT))
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
void
capture_enc_add(struct capture_enc *e, const void *rec, size_t len)
{
	struct ev_block	 b;
	struct ev_tick	 t;
	struct ev_lost	 l;
	uint32_t	 type;

	if (!capture_enc_room(e, len))
		capture_enc_seal(e);
	memcpy(&type, rec, sizeof type);
	if (type == EV_BLOCK && len == sizeof b &&
	    (memcpy(&b, rec, sizeof b), b.fclass < BLK_FC_MAX && b.pad2 == 0) &&
	    (!(b.flags & BLK_F_NODEVSTAT) || (b.inflight == 0 && b.busy_ns == 0))) {
		if (capture_enc_block(e, &b) != 0) {
			capture_enc_seal(e);
			capture_enc_block(e, &b);
		}
	} else if (type == EV_TICK && len == sizeof t &&
	    (memcpy(&t, rec, sizeof t), t.pad == 0)) {
		e->reg[R_TAG].buf[e->reg[R_TAG].len++] = TAG_TICK;
		capture_enc_time(e, t.ts);
	} else if (type == EV_LOST && len == sizeof l &&
	    (memcpy(&l, rec, sizeof l), l.kind == 0)) {
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
