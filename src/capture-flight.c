/* capture-flight.c: the flight recorder, the last seconds of events as ready-made chunks. */

#include <sys/types.h>

#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "capture-file.h"
#include "capture.h"

/* One chunk kept by the flight recorder. */
struct capture_flight_chunk {
	size_t		 off;
	size_t		 len;
	uint64_t	 stamp;		/* newest time the chunk covers */
};

/* The flight recorder: the last seconds of events as ready-made chunks. */
struct capture_flight {
	struct capture_enc		*enc;
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
	fl->enc = capture_enc_create(capture_flight_store, fl);
	return (fl);
}

/* Add one record to the flight recorder; no allocation, no system call. */
void
capture_flight_add(struct capture_flight *fl, const void *rec, size_t len)
{
	if (len >= 4 && len <= CAPTURE_REC_MAX)
		capture_enc_add(fl->enc, rec, len);
}

/* Seal the partial chunk and forget chunks older than the window. */
void
capture_flight_tick(struct capture_flight *fl, uint64_t now)
{
	fl->now = now;
	capture_enc_seal(fl->enc);
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
	capture_enc_free(fl->enc);
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
	capture_enc_seal(fl->enc);
	for (i = 0; i < fl->count; i++) {
		c = &fl->ch[(fl->first + i) % fl->nch];
		capture_write_chunk(w, fl->buf + c->off, c->len, c->stamp);
	}
	if (capture_error(w) != NULL) {
		capture_seterr(errp, "%s", capture_error(w));
		capture_close(w);
		return (NULL);
	}
	return (w);
}
