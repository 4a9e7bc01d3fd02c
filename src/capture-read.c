/* capture-read.c: the capture reader: finds, checks and decodes chunks, skipping damage. */

#include <sys/types.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "base.h"
#include "capture-file.h"
#include "capture.h"

#define CHUNK_RAW_MAX		(4 * 1024 * 1024)	/* reader's bound */
#define CHUNK_COMP_MAX		(CHUNK_RAW_MAX + CHUNK_RAW_MAX / 8 + 1024)
#define CHUNK_NREC_MAX		65536			/* reader's bound */

/*
 * Open captures are mapped: a file cut short by someone else while it is read
 * would kill blktop with SIGBUS at the first page past its new end. The
 * handler puts a page of zeros there instead, which the reader then meets as
 * damage (a chunk whose CRC fails, bytes lost at the end), and notes it in
 * that mapping alone. Every open mapping is watched (a merge opens up to
 * MERGE_MAX_FILES at once): each reader carries its own entry in a list the
 * handler walks, changed only with SIGBUS blocked.
 */
struct capture_map {
	uintptr_t		 lo, hi;
	volatile sig_atomic_t	 shrunk;	/* a page past its end was touched */
	struct capture_map	*next;
};
static struct capture_map *volatile capture_maps;
static uintptr_t capture_pagesize;

/* SIGBUS: a page past the end of a mapped capture reads as zeros; any other is fatal as before. */
static void
capture_sigbus(int sig, siginfo_t *si, void *uc __unused)
{
	uintptr_t		 a = (uintptr_t)si->si_addr, pg;
	struct capture_map	*m;

	for (m = capture_maps; m != NULL; m = m->next) {
		if (a < m->lo || a >= m->hi)
			continue;
		pg = a & ~(capture_pagesize - 1);
		if (mmap((void *)pg, capture_pagesize, PROT_READ,
		    MAP_PRIVATE|MAP_ANONYMOUS|MAP_FIXED, -1, 0) != MAP_FAILED) {
			m->shrunk = 1;
			return;
		}
	}
	signal(sig, SIG_DFL);
}

/* Block (how SIG_BLOCK) or restore SIGBUS around a change to the list the handler walks. */
static void
capture_map_mask(int how, sigset_t *old)
{
	sigset_t	 set;

	sigemptyset(&set);
	sigaddset(&set, SIGBUS);
	if (how == SIG_BLOCK)
		sigprocmask(SIG_BLOCK, &set, old);
	else
		sigprocmask(SIG_SETMASK, old, NULL);
}

/* Watch a mapping for SIGBUS through its entry m (the handler is set once). */
static void
capture_map_watch(struct capture_map *m, const void *base, size_t len)
{
	static int		 installed;
	struct sigaction	 sa;
	sigset_t		 old;

	if (!installed) {
		capture_pagesize = (uintptr_t)sysconf(_SC_PAGESIZE);
		memset(&sa, 0, sizeof sa);
		sa.sa_sigaction = capture_sigbus;
		sa.sa_flags = SA_SIGINFO;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGBUS, &sa, NULL);
		installed = 1;
	}
	m->lo = (uintptr_t)base;
	m->hi = (uintptr_t)base + len;
	m->shrunk = 0;
	capture_map_mask(SIG_BLOCK, &old);
	m->next = capture_maps;
	capture_maps = m;
	capture_map_mask(SIG_SETMASK, &old);
}

/* A mapping goes away: its entry leaves the list. */
static void
capture_map_unwatch(struct capture_map *m)
{
	struct capture_map	*volatile *pp;
	sigset_t		 old;

	capture_map_mask(SIG_BLOCK, &old);
	for (pp = &capture_maps; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == m) {
			*pp = m->next;
			break;
		}
	}
	capture_map_mask(SIG_SETMASK, &old);
}

/* The reader. */
struct capture_reader {
	const u_char		*base;
	size_t			 size;
	size_t			 mapped;	/* bytes to munmap, 0 for memory */
	struct capture_map	 map;		/* its SIGBUS watch, if mapped */
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
	if (capture_dec_misc(r, vp) != 0 || *vp > max)
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
	int			 nodev;

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
			if (st->ndevs == CHUNK_DEVS_MAX ||
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
			if (st->ntasks == CHUNK_TASKS_MAX)
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
				if (st->ncomms == CHUNK_COMMS_MAX ||
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
	/* 3.0: a record of no kernel-side device state carries neither (both 0). */
	nodev = r->hdr.major >= 3 && (b->flags & BLK_F_NODEVSTAT);
	if (nodev)
		v = 0;
	else if (capture_dec_misc_max(r, UINT32_MAX, &v) != 0)
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
	if (nodev)
		b->busy_ns = 0;
	else if (capture_dec_diff(r, S_BUSY, &v) != 0)
		return (-1);
	else
		b->busy_ns = d->busy + (b->ts_done - d->ts) - v;
	d->ts = b->ts_done;
	d->busy = b->busy_ns;
	b->fclass = st->fclass;
	b->fsdev = st->fsdev;
	b->ino = st->ino;
	return (0);
}

/* A TAG_FILE's fields: the block tag it stands for, then the new file. */
static int
capture_dec_file(struct capture_reader *r, unsigned *tagp)
{
	struct capture_state	*st = &r->st;
	uint64_t		 tag, fclass, fsdev, d;

	if (capture_dec_misc_max(r, 0x7f, &tag) != 0 ||
	    capture_dec_misc_max(r, BLK_FC_MAX - 1, &fclass) != 0 ||
	    capture_dec_misc_max(r, UINT32_MAX, &fsdev) != 0 ||
	    capture_dec_misc(r, &d) != 0)
		return (-1);
	*tagp = tag;
	st->fclass = fclass;
	st->fsdev = fsdev;
	st->ino += capture_unzigzag(d);
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
	if (tag < 0x80 || tag == TAG_FILE) {
		if (size < sizeof b)
			goto small;
		if (tag == TAG_FILE && (r->hdr.major < 2 ||
		    capture_dec_file(r, &tag) != 0))
			return (-1);
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
	*lenp = (tag < 0x80 || tag == TAG_FILE) ? sizeof b : (tag == TAG_TICK ? sizeof t :
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

/* Is there a whole chunk within the limits, with a good header, at off? */
static int
capture_chunk_whole(struct capture_reader *r, size_t off)
{
	const u_char	*h = r->base + off;
	uint32_t	 comp, raw, nrec;

	if (!capture_chunk_header_ok(r, off))
		return (0);
	comp = capture_get32(h + 4);
	raw = capture_get32(h + 8);
	nrec = capture_get32(h + 12);
	/* A torn (or lying) chunk is garbage: the caller looks further. */
	return (comp <= CHUNK_COMP_MAX && raw <= CHUNK_RAW_MAX &&
	    nrec <= CHUNK_NREC_MAX && nrec != 0 &&
	    r->size - off - CHUNK_HDR_LEN >= comp);
}

/* Move to the next chunk that decodes, counting damage; 0 at the end. */
static int
capture_chunk_next(struct capture_reader *r)
{
	const u_char	*h;
	size_t		 next;
	uint32_t	 comp;

	while (r->off < r->size) {
		if (!capture_chunk_whole(r, r->off)) {
			next = capture_chunk_find(r, r->off + 1);
			r->pending += next - r->off;
			r->off = next;
			continue;
		}
		h = r->base + r->off;
		comp = capture_get32(h + 4);
		if (r->pending != 0) {
			r->stats.skipped++;
			r->stats.skipped_bytes += r->pending;
			r->pending = 0;
		}
		if (capture_chunk_load(r, h) != 0) {
			/*
			 * Its length may be the lie: the next good chunk is
			 * looked for from here, not past what it claims.
			 */
			next = capture_chunk_find(r, r->off + 1);
			r->stats.skipped++;
			r->stats.skipped_bytes += next - r->off;
			r->off = next;
			continue;
		}
		r->off += CHUNK_HDR_LEN + comp;
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

/*
 * A file header that does not check out (a flipped bit, a lying length, a
 * damaged magic) costs the header, not the file: if a good chunk follows,
 * replay from there with nothing the header said (no device names, host or
 * wall clock) and count the header as skipped. 0 if recovered.
 */
static int
capture_header_recover(struct capture_reader *r, const char *err)
{
	size_t	 off;

	if (strncmp(err, "damaged header", 14) != 0 &&
	    !(strcmp(err, "truncated header") == 0 && r->size >= CHUNK_HDR_LEN) &&
	    !(strcmp(err, "not a blktop capture file") == 0 &&
	    capture_header_near_magic(r->base, r->size)))
		return (-1);
	off = capture_chunk_find(r, 0);
	while (off < r->size && !capture_chunk_whole(r, off))
		off = capture_chunk_find(r, off + 1);
	if (off >= r->size)
		return (-1);
	capture_header_free(&r->hdr);
	memset(&r->hdr, 0, sizeof r->hdr);
	r->hdr.major = CAPTURE_VERSION_MAJOR;
	r->hdr.version = xstrdup("unknown");
	r->hdr.host = xstrdup("unknown");
	r->hdr.kernel = xstrdup("unknown");
	r->hdr.plan = xstrdup("unknown (header damaged)");
	r->stats.header_damage = strncmp(err, "damaged header", 14) == 0 ? err :
	    strcmp(err, "truncated header") == 0 ? "damaged header (impossible length)" :
	    "damaged header (magic)";
	r->stats.skipped++;
	r->stats.skipped_bytes += off;
	r->off = off;
	return (0);
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
	if (mapped != 0)
		capture_map_watch(&r->map, base, mapped);
	if (inflateInit(&r->z) != Z_OK)
		fatalx("inflateInit failed");
	if ((err = capture_header_parse(&r->hdr, r->base, r->size, &r->off)) != NULL &&
	    capture_header_recover(r, err) == 0)
		err = NULL;
	if (err != NULL) {
		if (strcmp(err, "unsupported capture format version") == 0) {
			capture_seterr(errp, "%s%sunsupported capture format "
			    "version %u.%u (this blktop reads %u.x to %u.x)",
			    name != NULL ? name : "", name != NULL ? ": " : "",
			    r->hdr.major, r->hdr.minor, CAPTURE_VERSION_MAJOR_OLDEST,
			    CAPTURE_VERSION_MAJOR);
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
	if (r->mapped != 0 && r->map.shrunk)
		r->stats.shrunk = 1;
	return (&r->stats);
}

/* Close a reader. */
void
capture_reader_close(struct capture_reader *r)
{
	if (r->mapped != 0) {
		capture_map_unwatch(&r->map);
		munmap((void *)r->base, r->mapped);
	}
	inflateEnd(&r->z);
	capture_header_free(&r->hdr);
	free(r->raw);
	free(r);
}
