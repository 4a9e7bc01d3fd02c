/* capture.h: the capture's chunk format and encoder, for capture-*.c only (base.h and event.h first). */
#ifndef BLKTOP_CAPTURE_H
#define BLKTOP_CAPTURE_H

/* The chunk format, shared by the encoder and the reader (capture-*.c only). */
#define CHUNK_MAGIC		"\xb1" "kCH"
#define CHUNK_HDR_LEN		40
#define CHUNK_DEVS_MAX		64	/* table sizes of one chunk */
#define CHUNK_TASKS_MAX		1024
#define CHUNK_COMMS_MAX		256

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
#define TAG_FILE		0x83	/* 2.0: a block record whose file changed; its tag follows in MISC */

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
	uint16_t		 fclass;	/* the file of the last block record */
	uint32_t		 fsdev;
	uint64_t		 ino;
	int			 cur_dev;	/* -1 until the first block record */
	int			 cur_task;
	unsigned		 ndevs;
	unsigned		 ntasks;
	unsigned		 ncomms;
	struct capture_devstate	 devs[CHUNK_DEVS_MAX];
	struct capture_task	 tasks[CHUNK_TASKS_MAX];
	char			 comms[CHUNK_COMMS_MAX][BLKTOP_COMM_LEN];
};

/* Store a little-endian u32. */
static inline void
capture_put32(uint8_t *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

/* Store a little-endian u64. */
static inline void
capture_put64(uint8_t *p, uint64_t v)
{
	capture_put32(p, (uint32_t)v);
	capture_put32(p + 4, (uint32_t)(v >> 32));
}

/* Load a little-endian u16. */
static inline uint16_t
capture_get16(const uint8_t *p)
{
	return (p[0] | (uint16_t)p[1] << 8);
}

/* Load a little-endian u32. */
static inline uint32_t
capture_get32(const uint8_t *p)
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
static inline uint8_t *
capture_putvar(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)v | 0x80;
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return (p);
}

/* Read a varint from [*pp, end); -1 if it runs past end or past 64 bits. */
static inline int
capture_getvar(const uint8_t **pp, const uint8_t *end, uint64_t *vp)
{
	const uint8_t	*p = *pp;
	uint64_t	 v = 0;
	unsigned	 shift = 0;
	uint8_t		 c;

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

/* capture-encode.c */
struct capture_enc;
void		 capture_state_reset(struct capture_state *);
struct capture_enc *capture_enc_create(void (*sink)(void *, const uint8_t *, size_t,
		     uint64_t stamp), void *arg);
void		 capture_enc_add(struct capture_enc *, const void *rec, size_t len);
void		 capture_enc_seal(struct capture_enc *);
void		 capture_enc_free(struct capture_enc *);

#endif
