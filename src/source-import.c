/* source-import.c: text logs of bpftrace scripts (block_rq_issue, biosnoop-style, vfs read/write) as event records. */

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#include "blktop.h"

/*
 * Formats, each detected from the content:
 *  - ISSUE: `nsecs, rwbs, bytes, sector, nr_sector` (a bpftrace printf on
 *    tracepoint:block:block_rq_issue): issue times only, no latency, no device.
 *  - BIO: `TIMESTAMP [TIME] PID COMM DONEPID DONECOMM DISK T [SECTOR] BYTES LAT`
 *    (start/done probes keyed by request; TIMESTAMP at completion, T 0 = read,
 *    1 = write, LAT in ns).
 *  - VFS_RW: `TIMESTAMP [TIME] PID COMM R|W LAT REQUESTED RETURNED FILE`.
 * TIMESTAMP is ns since boot (CLOCK_MONOTONIC); an ISO TIME with a date
 * gives the wall clock. Ticks are made every second of log time.
 */
enum import_format { IMPORT_NONE, IMPORT_ISSUE, IMPORT_BIO, IMPORT_VFS_RW };
static const char *import_format_names[] = {
	"none", "block_rq_issue", "biosnoop", "vfs_rw"
};

#define IMPORT_MAJOR		4095		/* fake major of imported devices */
#define IMPORT_MAX_DEVS		64
#define IMPORT_DETECT_LINES	64		/* lines looked at to find the format */
#define IMPORT_REPORT_BAD	5		/* malformed lines shown */
#define IMPORT_GAP_NS		(3600 * NSEC_PER_SEC)	/* longer silences: one long tick */
#define IMPORT_MAX_TOKENS	16
#define IMPORT_LINE_MAX		16384		/* longer lines are malformed, never cut */
#define IMPORT_READ_SIZE	65536
#define IMPORT_EXCERPT		60		/* bytes of a bad line shown */
/* The last timestamp whose next tick boundary still fits in 64 bits. */
#define IMPORT_MAX_TS		(UINT64_MAX / NSEC_PER_SEC * NSEC_PER_SEC - 1)

struct import {
	FILE			*f;
	char			*path;
	enum import_format	 format;
	char			*rbuf;		/* what was read and not used yet */
	size_t			 roff;
	size_t			 rend;
	char			*line;		/* the line, its first IMPORT_LINE_MAX bytes */
	size_t			 len;		/* its whole length, newline excluded */
	char			*work;		/* a copy of it the parsers cut up */
	char			 why[96];	/* why a line is malformed, if not constant */
	unsigned long		 lineno;
	struct capture_header	 hdr;
	uint64_t		 tick_end;	/* next tick boundary */
	uint64_t		 pend[(sizeof(struct ev_rw) + VFS_PATH_MAX) / 8 + 1];
	size_t			 pend_len;
	uint64_t		 pend_ts;
	int			 have_pend;
	int			 any;		/* a record was returned */
	int			 done;		/* the final tick was returned */
	struct tm		 wall_tm;	/* the last local time converted, */
	time_t			 wall_t;	/* and what mktime made of it */
	int			 have_wall;
};

/* A stable fake dev_t for a device name: the same name, the same number. */
static uint32_t
import_dev(struct import *im, const char *name)
{
	struct capture_header	*hdr = &im->hdr;
	uint32_t		 minor;
	unsigned		 i;

	for (i = 0; i < hdr->ndevs; i++) {
		if (strcmp(hdr->devs[i].name, name) == 0)
			return (hdr->devs[i].dev);
	}
	if (hdr->ndevs == IMPORT_MAX_DEVS)
		return (0);
	minor = (uint32_t)crc32(0, (const unsigned char *)name, (unsigned)strlen(name)) &
	    ((1u << 20) - 1);
again:
	for (i = 0; i < hdr->ndevs; i++) {
		if (hdr->devs[i].dev == DEV_MKDEV(IMPORT_MAJOR, minor)) {
			minor = (minor + 1) & ((1u << 20) - 1);
			goto again;
		}
	}
	hdr->devs = xreallocarray(hdr->devs, hdr->ndevs + 1, sizeof *hdr->devs);
	hdr->devs[hdr->ndevs].dev = DEV_MKDEV(IMPORT_MAJOR, minor);
	snprintf(hdr->devs[hdr->ndevs].name, DEVNAME_MAX, "%s", name);
	return (hdr->devs[hdr->ndevs++].dev);
}

/* Parse a whole unsigned decimal number. */
static int
import_u64(const char *s, uint64_t *v)
{
	char	*end;

	if (!isdigit((unsigned char)*s))
		return (-1);
	errno = 0;
	*v = strtoull(s, &end, 10);
	return (errno != 0 || *end != '\0' ? -1 : 0);
}

/* Parse a whole signed decimal number. */
static int
import_s64(const char *s, int64_t *v)
{
	char	*end;

	if (*s != '-' && !isdigit((unsigned char)*s))
		return (-1);
	errno = 0;
	*v = strtoll(s, &end, 10);
	return (errno != 0 || *end != '\0' ? -1 : 0);
}

/* Split a line on blanks (and commas if commas); returns the number of tokens. */
static unsigned
import_split(char *s, const char *sep, char **tok, unsigned max)
{
	unsigned	 n = 0;
	char		*p;

	while (n < max && (p = strsep(&s, sep)) != NULL) {
		if (*p == '\0')
			continue;
		tok[n++] = p;
	}
	return (s != NULL && n == max ? max + 1 : n);
}

/* Trim blanks at both ends in place. */
static char *
import_trim(char *s)
{
	size_t	 n;

	while (isspace((unsigned char)*s))
		s++;
	n = strlen(s);
	while (n > 0 && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return (s);
}

/* rwbs text ("W", "RA", "FWS", "D", "FF") to op and flags; -1 if it is not one. */
static int
import_rwbs(const char *s, uint16_t *op, uint16_t *flags)
{
	*flags = 0;
	if (s[0] == 'F' && s[1] != '\0' && strchr("WRDFN", s[1]) != NULL) {
		*flags |= BLK_F_PREFLUSH;
		s++;
	}
	switch (*s++) {
	case 'W':
		*op = BLK_OP_WRITE;
		break;
	case 'R':
		*op = BLK_OP_READ;
		break;
	case 'D':
		*op = BLK_OP_DISCARD;
		if (*s == 'E') {
			*op = BLK_OP_SECURE_ERASE;
			s++;
		}
		break;
	case 'F':
		*op = BLK_OP_FLUSH;
		break;
	case 'N':
		*op = BLK_OP_OTHER;
		break;
	default:
		return (-1);
	}
	for (; *s != '\0'; s++) {
		switch (*s) {
		case 'F':
			*flags |= BLK_F_FUA;
			break;
		case 'A':
			*flags |= BLK_F_RAHEAD;
			break;
		case 'S':
			*flags |= BLK_F_SYNC;
			break;
		case 'M':
			*flags |= BLK_F_META;
			break;
		default:
			return (-1);
		}
	}
	return (0);
}

/* `nsecs, rwbs, bytes, sector, nr_sector`: an issue without a latency. */
static int
import_parse_issue(struct import *im, char *line, void *rec, size_t *lenp,
    const char **whyp)
{
	struct ev_block	*ev = rec;
	char		*tok[6];
	uint64_t	 ts, bytes, sector, nr;
	uint16_t	 op, flags;
	unsigned	 i;

	if (strchr(line, ',') == NULL || import_split(line, ",", tok, 5) != 5) {
		*whyp = "not 5 comma-separated fields";
		return (-1);
	}
	for (i = 0; i < 5; i++)
		tok[i] = import_trim(tok[i]);
	if (import_u64(tok[0], &ts) != 0 || ts == 0)
		*whyp = "bad nsecs";
	else if (import_rwbs(tok[1], &op, &flags) != 0)
		*whyp = "bad rwbs";
	else if (import_u64(tok[2], &bytes) != 0 || bytes > UINT32_MAX)
		*whyp = "bad bytes";
	else if (import_u64(tok[3], &sector) != 0)
		*whyp = "bad sector";
	else if (import_u64(tok[4], &nr) != 0)
		*whyp = "bad nr_sector";
	else
		*whyp = NULL;
	if (*whyp != NULL)
		return (-1);
	memset(ev, 0, sizeof *ev);
	ev->type = EV_BLOCK;
	/* While the format is being found, no device is learned. */
	ev->dev = im->format != IMPORT_NONE ? import_dev(im, "imported") : 1;
	ev->ts_start = ev->ts_issue = ev->ts_done = ts;
	ev->sector = sector;
	ev->bytes = (uint32_t)bytes;
	ev->op = op;
	ev->flags = flags | BLK_F_NOLAT | BLK_F_NOSTART;
	*lenp = sizeof *ev;
	return (0);
}

/* Whether a token is a local time ("20:27:46" or "2022-02-05T20:27:46.077425393"). */
static int
import_is_time(const char *s)
{
	return (isdigit((unsigned char)*s) && strchr(s, ':') != NULL);
}

/*
 * Wall-clock ns of an ISO local time with a date into *wallp (0 if it has
 * none); -1 if the date is outside what 64-bit ns since 1970 can hold. The
 * second of the last line is remembered: mktime reads the time zone file
 * each call, and a log has thousands of lines a second.
 */
static int
import_wall(struct import *im, const char *s, int64_t *wallp)
{
	struct tm	 tm;
	const char	*p;
	int64_t		 ns = 0, scale = 100000000;
	time_t		 t;

	*wallp = 0;
	memset(&tm, 0, sizeof tm);
	if ((p = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm)) == NULL &&
	    (p = strptime(s, "%Y-%m-%d %H:%M:%S", &tm)) == NULL)
		return (0);
	if (*p == '.') {
		for (p++; isdigit((unsigned char)*p) && scale > 0; p++, scale /= 10)
			ns += (*p - '0') * scale;
	}
	if (im->have_wall && tm.tm_sec == im->wall_tm.tm_sec &&
	    tm.tm_min == im->wall_tm.tm_min && tm.tm_hour == im->wall_tm.tm_hour &&
	    tm.tm_mday == im->wall_tm.tm_mday && tm.tm_mon == im->wall_tm.tm_mon &&
	    tm.tm_year == im->wall_tm.tm_year)
		t = im->wall_t;
	else {
		im->wall_tm = tm;
		tm.tm_isdst = -1;
		t = mktime(&tm);
		im->wall_t = t;
		im->have_wall = 1;
	}
	if (t < 0 || (uint64_t)t >= (uint64_t)INT64_MAX / NSEC_PER_SEC)
		return (-1);
	*wallp = (int64_t)t * (int64_t)NSEC_PER_SEC + ns;
	return (0);
}

/*
 * Split a line of a token format into tok[] (*np of them) and parse its leading
 * `TIMESTAMP [TIME] PID COMM`; the index after COMM.
 */
static int
import_lead(char *line, char **tok, unsigned *np, uint64_t *ts, const char **time,
    uint64_t *pid, const char **comm, const char **whyp)
{
	unsigned	 i = 1, n;

	*np = n = import_split(line, " \t\r\n", tok, IMPORT_MAX_TOKENS);
	if (n > IMPORT_MAX_TOKENS) {
		*whyp = "too many fields";
		return (-1);
	}
	if (n < 4) {
		*whyp = "too few fields";
		return (-1);
	}
	if (import_u64(tok[0], ts) != 0 || *ts == 0) {
		*whyp = "bad TIMESTAMP";
		return (-1);
	}
	*time = NULL;
	if (import_is_time(tok[1]))
		*time = tok[i++];
	if (i + 1 >= n || import_u64(tok[i], pid) != 0 || *pid > UINT32_MAX) {
		*whyp = "bad PID";
		return (-1);
	}
	*comm = tok[i + 1];
	return ((int)i + 2);
}

/* `TIMESTAMP [TIME] PID COMM DONEPID DONECOMM DISK T [SECTOR] BYTES LAT`. */
static int
import_parse_bio(struct import *im, char *line, void *rec, size_t *lenp,
    const char **timep, const char **whyp)
{
	struct ev_block	*ev = rec;
	char		*tok[IMPORT_MAX_TOKENS];
	uint64_t	 ts, pid, donepid, bytes, lat, sector = 0;
	const char	*comm;
	unsigned	 n, i, left;
	int		 j;

	if ((j = import_lead(line, tok, &n, &ts, timep, &pid, &comm, whyp)) < 0)
		return (-1);
	i = (unsigned)j;
	left = n - i;				/* DONEPID DONECOMM DISK T [SECTOR] BYTES LAT */
	if (left != 6 && left != 7) {
		*whyp = "wrong number of fields";
		return (-1);
	}
	if (import_u64(tok[i], &donepid) != 0) {
		*whyp = "bad DONEPID";
		return (-1);
	}
	memset(ev, 0, sizeof *ev);
	if (strcmp(tok[i + 3], "1") == 0 || strcmp(tok[i + 3], "W") == 0)
		ev->op = BLK_OP_WRITE;
	else if (strcmp(tok[i + 3], "0") == 0 || strcmp(tok[i + 3], "R") == 0)
		ev->op = BLK_OP_READ;
	else {
		*whyp = "bad T (not 0, 1, R or W)";
		return (-1);
	}
	if (left == 7 && import_u64(tok[i + 4], &sector) != 0)
		*whyp = "bad SECTOR";
	else if (import_u64(tok[n - 2], &bytes) != 0 || bytes > UINT32_MAX)
		*whyp = "bad BYTES";
	else if (import_u64(tok[n - 1], &lat) != 0)
		*whyp = "bad LAT";
	else if (strlen(tok[i + 2]) >= DEVNAME_MAX)
		*whyp = "DISK name too long";
	else
		*whyp = NULL;
	if (*whyp != NULL)
		return (-1);
	ev->type = EV_BLOCK;
	/* While the format is being found, no device is learned. */
	ev->dev = im->format != IMPORT_NONE ? import_dev(im, tok[i + 2]) : 1;
	if (ev->dev == 0) {
		*whyp = "more than 64 disks";
		return (-1);
	}
	ev->ts_done = ts;
	ev->ts_issue = ev->ts_start = lat < ts ? ts - lat : 0;
	ev->sector = sector;
	ev->bytes = (uint32_t)bytes;
	ev->pid = ev->tgid = (uint32_t)pid;
	ev->flags = BLK_F_NOSTART;
	snprintf(ev->comm, sizeof ev->comm, "%s", comm);
	*lenp = sizeof *ev;
	return (0);
}

/* `TIMESTAMP [TIME] PID COMM R|W LAT REQUESTED RETURNED FILE`. */
static int
import_parse_vfs(char *line, void *rec, size_t *lenp, const char **timep,
    const char **whyp)
{
	struct ev_rw	*ev = rec;
	char		*tok[IMPORT_MAX_TOKENS], *file, *end, *p;
	uint64_t	 ts, pid;
	int64_t		 lat, asked, ret;
	const char	*comm;
	size_t		 plen;
	unsigned	 n, i;
	int		 j;

	if ((j = import_lead(line, tok, &n, &ts, timep, &pid, &comm, whyp)) < 0)
		return (-1);
	i = (unsigned)j;
	if (i + 5 > n)
		*whyp = "too few fields";
	else if (strcmp(tok[i], "R") != 0 && strcmp(tok[i], "W") != 0)
		*whyp = "not R or W";
	else if (import_s64(tok[i + 1], &lat) != 0)
		*whyp = "bad LAT";
	else if (import_s64(tok[i + 2], &asked) != 0 || asked < 0)
		*whyp = "bad REQUESTED";
	else if (import_s64(tok[i + 3], &ret) != 0)
		*whyp = "bad RETURNED";
	else
		*whyp = NULL;
	if (*whyp != NULL)
		return (-1);
	/* The file name is the rest of the line, blanks included. */
	file = tok[i + 4];
	for (end = tok[n - 1] + strlen(tok[n - 1]), p = file; p < end; p++) {
		if (*p == '\0')
			*p = ' ';
	}
	if ((plen = strlen(file)) >= VFS_PATH_MAX) {
		*whyp = "FILE longer than 4095 bytes";
		return (-1);
	}
	if (lat < 0)
		lat += (int64_t)1 << 32;	/* 32-bit overflow in the logging script */
	memset(ev, 0, sizeof *ev);
	ev->type = EV_RW;
	ev->ts = ts;
	ev->lat_ns = lat < 0 ? 0 : (uint64_t)lat;
	ev->asked = (uint64_t)asked;
	ev->done = ret > 0 ? (uint64_t)ret : 0;
	ev->pos = -1;
	ev->pid = ev->tgid = (uint32_t)pid;
	ev->error = ret < 0 && ret >= INT32_MIN ? (int32_t)ret : 0;
	ev->fd = -1;
	ev->op = tok[i][0] == 'R' ? BLK_OP_READ : BLK_OP_WRITE;
	ev->sys = tok[i][0] == 'R' ? VFS_SYS_VFS_READ : VFS_SYS_VFS_WRITE;
	ev->ftype = VFS_FT_OTHER;
	ev->path_flags = VFS_PF_AS_PASSED;
	ev->path_len = (uint16_t)plen;
	snprintf(ev->comm, sizeof ev->comm, "%s", comm);
	memcpy(ev->path, file, plen);
	ev->path[plen] = '\0';
	*lenp = EV_RW_SIZE(plen);
	return (0);
}

/*
 * Read the next line: its first IMPORT_LINE_MAX bytes into im->line, the
 * rest of a longer one skipped, so memory stays bounded whatever the file.
 * 1, 0 at the end, -1 on a read error.
 */
static int
import_read(struct import *im)
{
	const char	*start, *nl;
	size_t		 n, keep;
	int		 any = 0;

	im->len = 0;
	for (;;) {
		if (im->roff == im->rend) {
			n = fread(im->rbuf, 1, IMPORT_READ_SIZE, im->f);
			if (n == 0) {
				if (ferror(im->f))
					return (-1);
				if (!any)
					return (0);
				break;		/* a last line without a newline */
			}
			im->roff = 0;
			im->rend = n;
		}
		any = 1;
		start = im->rbuf + im->roff;
		nl = memchr(start, '\n', im->rend - im->roff);
		n = nl != NULL ? (size_t)(nl - start) : im->rend - im->roff;
		if (im->len < IMPORT_LINE_MAX) {
			keep = IMPORT_LINE_MAX - im->len;
			memcpy(im->line + im->len, start, n < keep ? n : keep);
		}
		im->len += n;
		im->roff += n;
		if (nl != NULL) {
			im->roff++;
			break;
		}
	}
	im->line[im->len < IMPORT_LINE_MAX ? im->len : IMPORT_LINE_MAX] = '\0';
	im->lineno++;
	return (1);
}

/* Go back to the first line. */
static void
import_rewind(struct import *im)
{
	rewind(im->f);
	im->roff = im->rend = 0;
	im->lineno = 0;
}

/* The start of the line as printable text, for messages. */
static const char *
import_excerpt(struct import *im)
{
	static char	 out[IMPORT_EXCERPT + 4];
	const char	*s = im->line;
	size_t		 n, len;

	while (*s == ' ' || *s == '\t')
		s++;
	len = im->len < IMPORT_LINE_MAX ? im->len : IMPORT_LINE_MAX;
	len -= (size_t)(s - im->line);
	/*
	 * Printable ASCII only: bytes past 0x7f may spell, in UTF-8, C1
	 * controls (U+0080-U+009F, a CSI among them) that a terminal obeys.
	 */
	for (n = 0; n < len && n < IMPORT_EXCERPT; n++) {
		if ((unsigned char)s[n] < 0x20 || (unsigned char)s[n] >= 0x7f)
			out[n] = '?';
		else
			out[n] = s[n];
	}
	if (n < len)
		out[n++] = '.', out[n++] = '.', out[n++] = '.';
	out[n] = '\0';
	return (out);
}

/* Why the line cannot be parsed in any format (too long, a NUL), or NULL. */
static const char *
import_bad_line(struct import *im)
{
	const char	*nul;

	if (im->len > IMPORT_LINE_MAX) {
		snprintf(im->why, sizeof im->why, "longer than %d bytes (%zu)",
		    IMPORT_LINE_MAX, im->len);
		return (im->why);
	}
	if ((nul = memchr(im->line, '\0', im->len)) != NULL) {
		snprintf(im->why, sizeof im->why, "NUL byte at column %zu",
		    (size_t)(nul - im->line) + 1);
		return (im->why);
	}
	return (NULL);
}

/*
 * Parse the line in a format; 1 for a record, 0 for a line to ignore, -1 if
 * malformed (*whyp says why). While the format is being found, values out of
 * range still count as the format: they are reported once it is known.
 */
static int
import_parse(struct import *im, enum import_format fmt, void *rec, size_t *lenp,
    uint64_t *tsp, int64_t *wallp, const char **whyp)
{
	char		*line;
	const char	*time = NULL;
	int		 r = -1;

	*whyp = NULL;
	if ((*whyp = import_bad_line(im)) != NULL)
		return (-1);
	memcpy(im->work, im->line, im->len + 1);
	line = import_trim(im->work);
	if (*line == '\0' || *line == '#' || strncmp(line, "Attaching ", 10) == 0 ||
	    strstr(line, "TIMESTAMP") != NULL || strncmp(line, "Tracing ", 8) == 0)
		return (0);
	switch (fmt) {
	case IMPORT_ISSUE:
		r = import_parse_issue(im, line, rec, lenp, whyp);
		break;
	case IMPORT_BIO:
		r = import_parse_bio(im, line, rec, lenp, &time, whyp);
		break;
	case IMPORT_VFS_RW:
		r = import_parse_vfs(line, rec, lenp, &time, whyp);
		break;
	default:
		*whyp = "no format";
		break;
	}
	if (r != 0)
		return (-1);
	if (fmt == IMPORT_VFS_RW)
		*tsp = ((struct ev_rw *)rec)->ts;
	else
		*tsp = ((struct ev_block *)rec)->ts_done;
	*wallp = 0;
	if (im->format == IMPORT_NONE)
		return (1);
	if (*tsp > IMPORT_MAX_TS) {
		snprintf(im->why, sizeof im->why, "timestamp %" PRIu64 " past %" PRIu64,
		    *tsp, (uint64_t)IMPORT_MAX_TS);
		*whyp = im->why;
		return (-1);
	}
	if (time != NULL && import_wall(im, time, wallp) != 0) {
		*whyp = "TIME date not between 1970 and 2262";
		return (-1);
	}
	return (1);
}

/* Free an importer. */
void
import_close(struct import *im)
{
	if (im->f != NULL)
		fclose(im->f);
	free(im->rbuf);
	free(im->line);
	free(im->work);
	free(im->path);
	capture_header_free(&im->hdr);
	free(im);
}

/*
 * Find the format: the first one a line parses in, among the first
 * IMPORT_DETECT_LINES lines that are not blank or comments. NULL, or the
 * error naming the first line that fits none and why.
 */
static char *
import_detect(struct import *im)
{
	enum import_format fmt;
	const char	*why[IMPORT_VFS_RW + 1], *bad;
	char		*err = NULL;
	unsigned	 looked = 0;
	uint64_t	 ts;
	int64_t		 wall;
	size_t		 len;
	int		 rd = 0, r;

	while (im->format == IMPORT_NONE && looked < IMPORT_DETECT_LINES &&
	    (rd = import_read(im)) == 1) {
		for (fmt = IMPORT_ISSUE; fmt <= IMPORT_VFS_RW; fmt++) {
			r = import_parse(im, fmt, im->pend, &len, &ts, &wall, &why[fmt]);
			if (r == 0)
				break;
			if (r == 1) {
				im->format = fmt;
				break;
			}
		}
		if (fmt <= IMPORT_VFS_RW || looked++ != 0)
			continue;
		if ((bad = import_bad_line(im)) != NULL) {
			xasprintf(&err, "%s:%lu: not a text log blktop can import: "
			    "line %s: %s", im->path, im->lineno, bad, import_excerpt(im));
		} else {
			xasprintf(&err, "%s:%lu: not a text log blktop can import: "
			    "neither %s (%s), %s (%s) nor %s (%s): %s", im->path,
			    im->lineno, import_format_names[IMPORT_ISSUE],
			    why[IMPORT_ISSUE], import_format_names[IMPORT_BIO],
			    why[IMPORT_BIO], import_format_names[IMPORT_VFS_RW],
			    why[IMPORT_VFS_RW], import_excerpt(im));
		}
	}
	if (im->format != IMPORT_NONE) {
		free(err);
		return (NULL);
	}
	if (rd == -1) {
		free(err);
		xasprintf(&err, "%s: %s", im->path, strerror(errno));
	} else if (err == NULL)
		xasprintf(&err, "%s: no line of a text log blktop can import", im->path);
	return (err);
}

/*
 * Open a text log: find its format, count and report malformed lines, learn
 * its devices and clock, then rewind. NULL with *errp if it is not a log of
 * a known format or has no valid line.
 */
struct import *
import_open(const char *path, char **errp)
{
	struct import	*im;
	const char	*why;
	char		*first_bad = NULL;
	uint64_t	 ts, first = UINT64_MAX, valid = 0, bad = 0;
	int64_t		 wall, offset = 0;
	size_t		 len;
	int		 r;

	*errp = NULL;
	im = xcalloc(1, sizeof *im);
	im->path = xstrdup(path);
	if ((im->f = fopen(path, "re")) == NULL) {
		xasprintf(errp, "%s: %s", path, strerror(errno));
		import_close(im);
		return (NULL);
	}
	im->rbuf = xmalloc(IMPORT_READ_SIZE);
	im->line = xmalloc(IMPORT_LINE_MAX + 1);
	im->work = xmalloc(IMPORT_LINE_MAX + 1);
	if ((*errp = import_detect(im)) != NULL) {
		import_close(im);
		return (NULL);
	}

	/* Count, report and learn. */
	import_rewind(im);
	while ((r = import_read(im)) == 1) {
		r = import_parse(im, im->format, im->pend, &len, &ts, &wall, &why);
		if (r == 1) {
			/* Modulo 2^64, as stream times past 2^63 are. */
			if (valid++ == 0 && wall != 0) {
				offset = (int64_t)((uint64_t)wall - ts);
				im->hdr.has_clock = 1;
			}
			if (ts < first)
				first = ts;
		} else if (r == -1 && bad++ == 0) {
			xasprintf(&first_bad, "line %lu, %s", im->lineno, why);
		}
		if (r == -1 && bad <= IMPORT_REPORT_BAD) {
			log_warnx("%s:%lu: malformed %s line, %s: %s", path, im->lineno,
			    import_format_names[im->format], why, import_excerpt(im));
		}
	}
	if (r == -1) {
		xasprintf(errp, "%s:%lu: %s", path, im->lineno + 1, strerror(errno));
		free(first_bad);
		import_close(im);
		return (NULL);
	}
	if (bad > 0)
		log_warnx("%s: %" PRIu64 " malformed line%s skipped, %" PRIu64
		    " imported", path, bad, bad == 1 ? "" : "s", valid);
	if (valid == 0) {
		xasprintf(errp, "%s: no valid %s line (%" PRIu64 " malformed, the "
		    "first %s)", path, import_format_names[im->format], bad,
		    first_bad != NULL ? first_bad : "none");
		free(first_bad);
		import_close(im);
		return (NULL);
	}
	free(first_bad);
	import_rewind(im);

	im->hdr.major = CAPTURE_VERSION_MAJOR;
	im->hdr.version = xstrdup(PACKAGE_VERSION);
	xasprintf(&im->hdr.host, "imported %s log", import_format_names[im->format]);
	im->hdr.kernel = xstrdup("");
	xasprintf(&im->hdr.plan, "import:%s", import_format_names[im->format]);
	im->hdr.interval_ns = NSEC_PER_SEC;
	im->hdr.clock_offset = offset;
	/* first <= IMPORT_MAX_TS: every tick boundary fits. */
	im->tick_end = first - first % NSEC_PER_SEC + NSEC_PER_SEC;
	im->hdr.created = im->tick_end - NSEC_PER_SEC + (uint64_t)offset;
	return (im);
}

/* The header import_open made up: devices, clock, format as the plan. */
const struct capture_header *
import_header(struct import *im)
{
	return (&im->hdr);
}

/* An EV_TICK at ts into buf. */
static int
import_tick(void *buf, size_t size, size_t *lenp, uint64_t ts)
{
	struct ev_tick	 t = { .type = EV_TICK, .ts = ts };

	if (size < sizeof t)
		return (-1);
	memcpy(buf, &t, sizeof t);
	*lenp = sizeof t;
	return (1);
}

/*
 * The next record: the log's records in order, with an EV_TICK at every
 * second of log time and one after the last record. 1, 0 at the end, or -1
 * for a record too long for buf (it is dropped).
 */
int
import_next(struct import *im, void *buf, size_t size, size_t *lenp)
{
	const char	*why;
	uint64_t	 ts, t;
	int64_t		 wall;
	int		 r;

	for (;;) {
		if (im->have_pend) {
			if (im->pend_ts >= im->tick_end) {
				t = im->tick_end;
				if (im->pend_ts - im->tick_end >= IMPORT_GAP_NS)
					t = im->pend_ts - im->pend_ts % NSEC_PER_SEC;
				im->tick_end = t + NSEC_PER_SEC;
				return (import_tick(buf, size, lenp, t));
			}
			im->have_pend = 0;
			if (im->pend_len > size)
				return (-1);
			memcpy(buf, im->pend, im->pend_len);
			*lenp = im->pend_len;
			im->any = 1;
			return (1);
		}
		if (im->done)
			return (0);
		if ((r = import_read(im)) != 1) {
			if (r == -1) {
				log_warnx("%s:%lu: %s; the rest is not imported",
				    im->path, im->lineno + 1, strerror(errno));
			}
			im->done = 1;
			if (!im->any)
				return (0);
			return (import_tick(buf, size, lenp, im->tick_end));
		}
		r = import_parse(im, im->format, im->pend, &im->pend_len, &ts,
		    &wall, &why);
		if (r == 1) {
			im->pend_ts = ts;
			im->have_pend = 1;
		}
	}
}
