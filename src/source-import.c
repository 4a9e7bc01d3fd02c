/* source-import.c: text logs of bpftrace scripts (block I/O, vfs read/write, openat, close, mmap, create/delete, time alignment) as event records. */

#include <sys/stat.h>

#include <ctype.h>
#include <errno.h>
#include <stddef.h>
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
 *  - VFS_RW: `TIMESTAMP [TIME] PID COMM R|W LAT REQUESTED RETURNED FILE`
 *    (FILE is the dentry name: VFS_PF_BASENAME when it has no '/').
 *  - CREATEDEL: `nsecs pid mkdir() mode lat path`, `nsecs pid rmdir() lat
 *    path`, `nsecs pid unlink() lat basename path`, found from the first line
 *    naming one of the three calls, a `mkdir():` marker or a header with a
 *    CALL or FUNCTION column: EV_FOP by name (no return value: error 0).
 *    MODE is decimal as the script prints it (%hu); with a leading 0, octal.
 * Found from their header line only (their lines are too plain to tell):
 *  - OPENAT: `TIMESTAMP PID FD LAT(ns) FILENAME FULLPATH`: EV_OPEN, the path
 *    as passed (FD < 0: failed, no basename printed).
 *  - MMAP: a `mmap():` block, `TIMESTAMP PID FD ADDRESS LAT(ns) FILENAME`, and
 *    a `munmap():` block, `TIMESTAMP PID ADDRESS LEN LAT(ns)`, in any order,
 *    lines of both interleaved (the script prints both headers at BEGIN): a
 *    hex ADDRESS tells one from the other, else the last marker or header.
 *    EV_FOP FOP_MMAP (anonymous mappings, FD < 0, are skipped as the kernel
 *    side skips them; FILENAME "-": not known) and FOP_MUNMAP, named after
 *    the mmap of the same pid and address earlier in the log.
 *  - CLOSE: `TIMESTAMP PID FD LAT(ns) [RET|FILENAME]`: EV_FOP FOP_CLOSE.
 *  - TIMEALIGN: `TIMESTAMP TIME`: no events, the clock offset (see
 *    import_align_done).
 * TIMESTAMP is ns since boot (CLOCK_MONOTONIC); an ISO TIME with a date
 * gives the wall clock. Ticks are made every second of log time. Lines that
 * are bpftrace's own (Attaching, WARNING, ERROR, Lost N events, map dumps,
 * headers, block markers, blank) are skipped and counted, never fatal.
 */
enum import_format {
	IMPORT_NONE, IMPORT_ISSUE, IMPORT_BIO, IMPORT_VFS_RW, IMPORT_CREATEDEL,
	IMPORT_OPENAT, IMPORT_MMAP, IMPORT_CLOSE, IMPORT_TIMEALIGN
};
static const char *import_format_names[] = {
	"none", "block_rq_issue", "biosnoop", "vfs_rw", "create_delete",
	"openat", "mmap", "close", "time_align"
};

/* What a line that is no record is. */
enum import_skip {
	IMPORT_SKIP_QUIET = 1,		/* blank, comment, header, Attaching, marker */
	IMPORT_SKIP_NOTE,		/* bpftrace's WARNING or ERROR: reported */
	IMPORT_SKIP_LOST,		/* "Lost N events": an EV_LOST record */
};

/* Which sub-format lines of an mmap log are when nothing else tells. */
enum import_mmap_sub { IMPORT_SUB_MMAP, IMPORT_SUB_MUNMAP };
/* What the fifth column of a close log is. */
enum import_close_col { IMPORT_COL_NONE, IMPORT_COL_RET, IMPORT_COL_FILENAME };

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
#define IMPORT_MAPS		4096		/* mmaps remembered for munmap, direct-mapped */
#define IMPORT_MAP_PATH		256		/* longer file names are not remembered */
#define IMPORT_ALIGN_SAMPLES	65536		/* clock estimates kept (then every 2nd, 4th...) */
#define IMPORT_DAY_NS		(86400 * (int64_t)NSEC_PER_SEC)
#define IMPORT_PTIME_KEY	40		/* bytes of a TIME whose strptime is remembered */
/* The largest record a line makes. */
#define IMPORT_REC_WORDS	((sizeof(struct ev_rw) + sizeof(struct ev_open) + \
				    sizeof(struct ev_fop) + VFS_PATH_MAX + 2) / 8 + 1)

/* An mmap seen, for the munmap of its address. */
struct import_map {
	uint64_t	 addr;
	uint32_t	 pid;
	uint16_t	 len;		/* of path */
	uint16_t	 used;
	char		 path[IMPORT_MAP_PATH];
};

/* What the lines of a time alignment log say, accumulated (import_align_add). */
struct import_align {
	/* The line just parsed. */
	uint64_t	 t;		/* its TIMESTAMP */
	int64_t		 w;		/* wall ns where its TIME starts: since midnight
					   without a date, since 1970 with one */
	int64_t		 res;		/* ns its TIME spans: 1 s, or its fraction's digit */
	int		 dated;
	/* The log so far. */
	uint64_t	 lines;
	int		 is_dated;	/* the first line's kind: all lines must be */
	int64_t		 day;		/* midnights crossed (times without a date) */
	int64_t		 prev_w;	/* the last line in order: its time of day, */
	int64_t		 prev_rel;	/* its time since the first line's midnight, */
	uint64_t	 prev_t;	/* its TIMESTAMP */
	int64_t		 lo, hi;	/* the offset's bounds from every line */
	int64_t		*est;		/* estimates of the offset, a sample */
	size_t		 nest;
	uint64_t	 stride, seen;	/* every stride-th estimate is kept */
};

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
	uint64_t		 pend[IMPORT_REC_WORDS];
	size_t			 pend_len;
	uint64_t		 pend_ts;
	int			 have_pend;
	int			 any;		/* a record was returned */
	int			 done;		/* the final tick was returned */
	struct tm		 wall_tm;	/* the last local time converted, */
	time_t			 wall_t;	/* and what mktime made of it */
	int			 have_wall;
	char			 ptime_key[IMPORT_PTIME_KEY]; /* what strptime read last, */
	size_t			 ptime_len;	/* its length (0: none), */
	struct tm		 ptime_tm;	/* and what it made of it */
	enum import_skip	 skip;		/* what the line import_parse passed over is */
	uint64_t		 skip_lost;	/* IMPORT_SKIP_LOST: the events lost */
	uint64_t		 first_ts;	/* the first record's time (after import_open) */
	uint64_t		 last_ts;	/* the last record's: when bpftrace lost events */
	enum import_mmap_sub	 mmap_sub;
	enum import_close_col	 close_col;
	struct import_map	*maps;		/* IMPORT_MMAP: IMPORT_MAPS of them */
	struct import_align	 align;		/* IMPORT_TIMEALIGN */
	struct import_counts	 counts;
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
 * none) and the digits of its fraction into *digitsp (if not NULL); -1 if
 * the date is outside what 64-bit ns since 1970 can hold. The
 * second of the last line is remembered: mktime reads the time zone file
 * each call, and a log has thousands of lines a second.
 */
static int
import_wall(struct import *im, const char *s, int64_t *wallp, unsigned *digitsp)
{
	struct tm	 tm;
	const char	*p;
	int64_t		 ns = 0, scale = 100000000;
	time_t		 t;

	*wallp = 0;
	if (im->ptime_len != 0 && strncmp(s, im->ptime_key, im->ptime_len) == 0) {
		/* strptime reads no further than the byte after what it parsed:
		 * the same bytes, the same result. */
		tm = im->ptime_tm;
		p = s + im->ptime_len - 1;
	} else {
		memset(&tm, 0, sizeof tm);
		if ((p = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm)) == NULL &&
		    (p = strptime(s, "%Y-%m-%d %H:%M:%S", &tm)) == NULL)
			return (0);
		im->ptime_len = 0;
		if ((size_t)(p - s) < sizeof im->ptime_key && *p != '\0') {
			im->ptime_len = (size_t)(p - s) + 1;
			memcpy(im->ptime_key, s, im->ptime_len);
			im->ptime_tm = tm;
		}
	}
	if (*p == '.') {
		for (p++; isdigit((unsigned char)*p) && scale > 0; p++, scale /= 10) {
			ns += (*p - '0') * scale;
			if (digitsp != NULL)
				(*digitsp)++;
		}
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
	memcpy(ev->comm, comm, strnlen(comm, sizeof ev->comm - 1));	/* ev is zeroed */
	*lenp = sizeof *ev;
	return (0);
}

/* VFS_PF_BASENAME for a file name without a directory: the log has only the dentry's name. */
static uint16_t
import_name_flags(const char *path)
{
	return (strchr(path, '/') == NULL ? VFS_PF_BASENAME : 0);
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
	ev->path_flags = VFS_PF_AS_PASSED | import_name_flags(file);
	ev->path_len = (uint16_t)plen;
	memcpy(ev->comm, comm, strnlen(comm, sizeof ev->comm - 1));	/* ev is zeroed */
	memcpy(ev->path, file, plen);
	ev->path[plen] = '\0';
	*lenp = EV_RW_SIZE(plen);
	return (0);
}

/* Cut the first max blank-separated fields of line into tok[]; *restp is
 * what follows them, its leading blanks skipped ("" at the end). The count. */
static unsigned
import_fields(char *line, char **tok, unsigned max, char **restp)
{
	unsigned	 n = 0;
	char		*p = line;

	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '\0' || n == max)
			break;
		tok[n++] = p;
		while (*p != '\0' && *p != ' ' && *p != '\t')
			p++;
		if (*p != '\0')
			*p++ = '\0';
	}
	*restp = p;
	return (n);
}

/* A whole int32_t in decimal. */
static int
import_s32(const char *s, int32_t *v)
{
	int64_t	 x;

	if (import_s64(s, &x) != 0 || x < INT32_MIN || x > INT32_MAX)
		return (-1);
	*v = (int32_t)x;
	return (0);
}

/* A latency as the scripts print it: %d of a u64, negative past 2^31 - 1. */
static int
import_lat(const char *s, uint64_t *lat)
{
	int64_t	 v;

	if (import_s64(s, &v) != 0 || v < INT32_MIN)
		return (-1);
	if (v < 0)
		v += (int64_t)1 << 32;
	*lat = (uint64_t)v;
	return (0);
}

/* Whether a field is written in hex (0x...). */
static int
import_is_hex(const char *s)
{
	return (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'));
}

/* An address or a mode: 0x and hex digits, a leading 0 and octal (if octal), or decimal. */
static int
import_num(const char *s, int octal, uint64_t *v)
{
	char	*end;
	int	 base = 10;

	if (import_is_hex(s)) {
		s += 2;
		base = 16;
		if (!isxdigit((unsigned char)*s))
			return (-1);
	} else if (octal && s[0] == '0' && s[1] != '\0')
		base = 8;
	else if (!isdigit((unsigned char)*s))
		return (-1);
	if (*s == '-' || *s == '+')
		return (-1);
	errno = 0;
	*v = strtoull(s, &end, base);
	return (errno != 0 || *end != '\0' ? -1 : 0);
}

/* TIMESTAMP and PID, the first two fields of the lines of every later format. */
static int
import_ts_pid(char **tok, uint64_t *ts, uint32_t *pid, const char **whyp)
{
	uint64_t	 v;

	if (import_u64(tok[0], ts) != 0 || *ts == 0) {
		*whyp = "bad TIMESTAMP";
		return (-1);
	}
	if (import_u64(tok[1], &v) != 0 || v > UINT32_MAX) {
		*whyp = "bad PID";
		return (-1);
	}
	*pid = (uint32_t)v;
	return (0);
}

/*
 * "BASENAME PATH", either holding blanks: cut where PATH is BASENAME or ends
 * in "/BASENAME", else at the first blank; where nothing matches a failed call
 * printed no BASENAME (the kernel function that names it never ran) and the
 * whole is PATH. The path; *basep the name ("" if none).
 */
static char *
import_split_name(char *rest, int failed, char **basep)
{
	char	*p;
	size_t	 len = strlen(rest), blen, plen;

	for (p = strchr(rest, ' '); p != NULL; p = strchr(p + 1, ' ')) {
		blen = (size_t)(p - rest);
		plen = len - blen - 1;
		if (blen > 0 && plen >= blen &&
		    memcmp(p + 1 + plen - blen, rest, blen) == 0 &&
		    (plen == blen || p[plen - blen] == '/'))
			break;
	}
	if (p == NULL && !failed)
		p = strchr(rest, ' ');
	if (p == NULL) {
		*basep = rest + len;
		return (rest);
	}
	*p = '\0';
	*basep = rest;
	return (p + 1);
}

/* An EV_FOP record with path (plen bytes, no path: VFS_PF_NOPATH) and no path2; its length. */
static size_t
import_fop(void *rec, uint16_t op, uint16_t sys, uint64_t ts, uint64_t lat,
    uint32_t pid, const char *path, size_t plen, uint16_t pflags)
{
	struct ev_fop	*ev = rec;

	memset(ev, 0, sizeof *ev);
	ev->type = EV_FOP;
	ev->ts = ts;
	ev->lat_ns = lat;
	ev->pid = ev->tgid = pid;
	ev->fd = -1;
	ev->op = op;
	ev->sys = sys;
	ev->ftype = VFS_FT_NONE;
	ev->path_flags = plen == 0 ? VFS_PF_NOPATH : pflags;
	ev->path_len = (uint16_t)plen;
	memcpy(ev->path, path, plen);
	/* The NULs of path and (empty) path2. */
	memset(ev->path + plen, 0, EV_FOP_SIZE(plen, 0) -
	    offsetof(struct ev_fop, path) - plen);
	return (EV_FOP_SIZE(plen, 0));
}

/* `TIMESTAMP PID FD LAT BASENAME PATH`: an openat, the path as passed. */
static int
import_parse_openat(char *line, void *rec, size_t *lenp, const char **whyp)
{
	struct ev_open	*ev = rec;
	char		*tok[4], *rest, *path, *base;
	uint64_t	 ts, lat;
	uint32_t	 pid;
	int32_t		 fd;
	size_t		 plen;

	if (import_fields(line, tok, 4, &rest) != 4 || *rest == '\0') {
		*whyp = "too few fields";
		return (-1);
	}
	if (import_ts_pid(tok, &ts, &pid, whyp) != 0)
		return (-1);
	if (import_s32(tok[2], &fd) != 0) {
		*whyp = "bad FD";
		return (-1);
	}
	if (import_lat(tok[3], &lat) != 0) {
		*whyp = "bad LAT";
		return (-1);
	}
	path = import_split_name(rest, fd < 0, &base);
	if ((plen = strlen(path)) >= VFS_PATH_MAX) {
		*whyp = "FULLPATH longer than 4095 bytes";
		return (-1);
	}
	memset(ev, 0, sizeof *ev);
	ev->type = EV_OPEN;
	ev->ts = ts;
	ev->lat_ns = lat;
	ev->pid = ev->tgid = pid;
	ev->ret = fd;
	ev->sys = VFS_SYS_OPENAT;
	ev->ftype = fd < 0 ? VFS_FT_NONE : VFS_FT_OTHER;
	ev->path_flags = VFS_PF_AS_PASSED;
	ev->path_len = (uint16_t)plen;
	memcpy(ev->path, path, plen + 1);
	*lenp = EV_OPEN_SIZE(plen);
	return (0);
}

/* The slot of a mapping in the table of mmaps seen. */
static struct import_map *
import_map_slot(struct import *im, uint32_t pid, uint64_t addr)
{
	uint64_t	 h = (addr >> 12) ^ ((uint64_t)pid * 2654435761u);

	return (&im->maps[(h ^ (h >> 17)) & (IMPORT_MAPS - 1)]);
}

/*
 * `TIMESTAMP PID FD ADDRESS LAT FILENAME` (mmap) or `TIMESTAMP PID ADDRESS
 * LEN LAT` (munmap). 1: an anonymous mapping, no record.
 */
static int
import_parse_mmap(struct import *im, char *line, void *rec, size_t *lenp,
    const char **whyp)
{
	struct ev_fop		*ev = rec;
	struct import_map	*m;
	char			*tok[5], *rest;
	uint64_t		 ts, lat = 0, addr = 0, len = 0;
	uint32_t		 pid;
	int32_t			 fd = -1;
	size_t			 plen = 0;
	int			 munmap;

	if (import_fields(line, tok, 5, &rest) != 5) {
		*whyp = "too few fields";
		return (-1);
	}
	if (import_ts_pid(tok, &ts, &pid, whyp) != 0)
		return (-1);
	if (import_is_hex(tok[3]) || tok[2][0] == '-')
		munmap = 0;
	else if (import_is_hex(tok[2]))
		munmap = 1;
	else
		munmap = im->mmap_sub == IMPORT_SUB_MUNMAP;
	if (munmap) {
		if (*rest != '\0')
			*whyp = "munmap: too many fields";
		else if (import_num(tok[2], 0, &addr) != 0)
			*whyp = "munmap: bad ADDRESS";
		else if (import_u64(tok[3], &len) != 0)
			*whyp = "munmap: bad LEN";
		else if (import_lat(tok[4], &lat) != 0)
			*whyp = "munmap: bad LAT";
		if (*whyp != NULL)
			return (-1);
		m = import_map_slot(im, pid, addr);
		if (m->used && m->pid == pid && m->addr == addr) {
			*lenp = import_fop(rec, FOP_MUNMAP, VFS_SYS_MUNMAP, ts, lat, pid,
			    m->path, m->len, import_name_flags(m->path));
			ev->ftype = VFS_FT_OTHER;
			m->used = 0;
		} else {
			*lenp = import_fop(rec, FOP_MUNMAP, VFS_SYS_MUNMAP, ts, lat, pid,
			    "", 0, 0);
		}
		ev->addr = addr;
		ev->len = len;
		return (0);
	}
	if (import_s32(tok[2], &fd) != 0)
		*whyp = "mmap: bad FD";
	else if (import_num(tok[3], 0, &addr) != 0)
		*whyp = "mmap: bad ADDRESS";
	else if (import_lat(tok[4], &lat) != 0)
		*whyp = "mmap: bad LAT";
	else if ((plen = strlen(rest)) >= VFS_PATH_MAX)
		*whyp = "mmap: FILENAME longer than 4095 bytes";
	if (*whyp != NULL)
		return (-1);
	if (fd < 0)
		return (1);
	if (strcmp(rest, "-") == 0)
		plen = 0;		/* the script did not know the fd's file */
	*lenp = import_fop(rec, FOP_MMAP, VFS_SYS_MMAP, ts, lat, pid, rest, plen,
	    import_name_flags(rest));
	ev->fd = fd;
	ev->ftype = VFS_FT_OTHER;
	if (addr >= (uint64_t)-4095) {
		ev->error = (int32_t)(int64_t)addr;	/* the call failed: -errno */
		return (0);
	}
	ev->addr = addr;
	if (plen > 0 && plen < IMPORT_MAP_PATH) {
		m = import_map_slot(im, pid, addr);
		m->used = 1;
		m->pid = pid;
		m->addr = addr;
		m->len = (uint16_t)plen;
		memcpy(m->path, rest, plen + 1);
	}
	return (0);
}

/* The operation a create/delete log's FUNCTION field names, or -1. */
static int
import_createdel_op(const char *s)
{
	if (strcmp(s, "mkdir()") == 0)
		return (FOP_MKDIR);
	if (strcmp(s, "rmdir()") == 0)
		return (FOP_RMDIR);
	if (strcmp(s, "unlink()") == 0)
		return (FOP_UNLINK);
	return (-1);
}

/*
 * `TIMESTAMP [TIME] PID [TID] mkdir() MODE LAT PATH`, `... rmdir() LAT PATH`,
 * `... unlink() LAT BASENAME PATH`.
 */
static int
import_parse_createdel(char *line, void *rec, size_t *lenp, const char **whyp)
{
	struct ev_fop	*ev = rec;
	char		*tok[5], *arg[2], *p = line, *path, *base;
	uint64_t	 ts, lat, mode = 0;
	uint32_t	 pid, tid;
	unsigned	 n, i = 1, nargs;
	size_t		 plen;
	int		 op;

	for (n = 0;; n++) {
		if (n == nitems(tok) || import_fields(p, &tok[n], 1, &p) != 1) {
			*whyp = "no mkdir(), rmdir() or unlink()";
			return (-1);
		}
		if ((op = import_createdel_op(tok[n])) != -1)
			break;
	}
	if (n > 1 && import_is_time(tok[1]))
		i = 2;
	if (n < i + 1 || n > i + 2) {
		*whyp = "not TIMESTAMP PID before the call";
		return (-1);
	}
	tok[1] = tok[i];
	if (import_ts_pid(tok, &ts, &pid, whyp) != 0)
		return (-1);
	tid = pid;
	if (n == i + 2) {
		tok[1] = tok[i + 1];
		if (import_ts_pid(tok, &ts, &tid, whyp) != 0) {
			*whyp = "bad TID";
			return (-1);
		}
	}
	nargs = op == FOP_MKDIR ? 2 : 1;
	if (import_fields(p, arg, nargs, &p) != nargs || *p == '\0') {
		*whyp = "too few fields";
		return (-1);
	}
	if (op == FOP_MKDIR && (import_num(arg[0], 1, &mode) != 0 || mode > UINT32_MAX)) {
		*whyp = "bad MODE";
		return (-1);
	}
	if (import_lat(arg[nargs - 1], &lat) != 0) {
		*whyp = "bad LAT";
		return (-1);
	}
	path = op == FOP_UNLINK ? import_split_name(p, 0, &base) : p;
	if ((plen = strlen(path)) >= VFS_PATH_MAX) {
		*whyp = "path longer than 4095 bytes";
		return (-1);
	}
	*lenp = import_fop(rec, (uint16_t)op, op == FOP_MKDIR ? VFS_SYS_MKDIR :
	    op == FOP_RMDIR ? VFS_SYS_RMDIR : VFS_SYS_UNLINK, ts, lat, tid, path,
	    plen, VFS_PF_AS_PASSED);
	ev->tgid = pid;
	ev->mode = (uint32_t)mode;
	return (0);
}

/* `TIMESTAMP PID FD LAT [RET|FILENAME]`: a close. */
static int
import_parse_close(struct import *im, char *line, void *rec, size_t *lenp,
    const char **whyp)
{
	struct ev_fop	*ev = rec;
	char		*tok[4], *rest;
	uint64_t	 ts, lat;
	uint32_t	 pid;
	int32_t		 fd, ret = 0;
	size_t		 plen = 0;

	if (import_fields(line, tok, 4, &rest) != 4) {
		*whyp = "too few fields";
		return (-1);
	}
	if (import_ts_pid(tok, &ts, &pid, whyp) != 0)
		return (-1);
	if (import_s32(tok[2], &fd) != 0)
		*whyp = "bad FD";
	else if (import_lat(tok[3], &lat) != 0)
		*whyp = "bad LAT";
	else if (im->close_col == IMPORT_COL_FILENAME) {
		if ((plen = strlen(rest)) >= VFS_PATH_MAX)
			*whyp = "FILENAME longer than 4095 bytes";
	} else if (*rest != '\0' && import_s32(rest, &ret) != 0)
		*whyp = im->close_col == IMPORT_COL_RET ? "bad RET" : "too many fields";
	if (*whyp != NULL)
		return (-1);
	*lenp = import_fop(rec, FOP_CLOSE, VFS_SYS_CLOSE, ts, lat, pid, rest, plen,
	    import_name_flags(rest));
	ev->fd = fd;
	ev->error = ret < 0 ? ret : 0;
	if (plen > 0)
		ev->ftype = VFS_FT_OTHER;
	return (0);
}

/* `HH:MM:SS[.frac]`: ns since midnight and the fraction's digits; -1 if not one. */
static int
import_tod(const char *s, int64_t *w, unsigned *digits)
{
	int		 v[3], i;
	int64_t		 ns = 0, scale = 100000000;

	for (i = 0; i < 3; i++) {
		if (!isdigit((unsigned char)s[0]) || !isdigit((unsigned char)s[1]))
			return (-1);
		v[i] = (s[0] - '0') * 10 + (s[1] - '0');
		s += 2;
		if (i < 2 && *s++ != ':')
			return (-1);
	}
	if (v[0] > 23 || v[1] > 59 || v[2] > 60)
		return (-1);
	*digits = 0;
	if (*s == '.') {
		for (s++; isdigit((unsigned char)*s); s++, (*digits)++) {
			ns += (*s - '0') * scale;
			scale /= 10;
		}
		if (*digits == 0)
			return (-1);
	}
	if (*s != '\0')
		return (-1);
	*w = ((int64_t)v[0] * 3600 + v[1] * 60 + v[2]) * (int64_t)NSEC_PER_SEC + ns;
	return (0);
}

/* `TIMESTAMP TIME`, TIME `HH:MM:SS[.frac]` or an ISO date and time: into im->align. */
static int
import_parse_align(struct import *im, char *line, const char **whyp)
{
	struct import_align	*a = &im->align;
	char			*tok[2], *rest, buf[64];
	const char		*time;
	uint64_t		 ts;
	int64_t			 wall, res;
	unsigned		 digits = 0;

	if (import_fields(line, tok, 2, &rest) != 2) {
		*whyp = "too few fields";
		return (-1);
	}
	if (import_u64(tok[0], &ts) != 0 || ts == 0) {
		*whyp = "bad TIMESTAMP";
		return (-1);
	}
	time = tok[1];
	if (*rest != '\0') {
		/* "YYYY-MM-DD HH:MM:SS" */
		if (strchr(rest, ' ') != NULL || strchr(rest, '\t') != NULL ||
		    strlen(tok[1]) + strlen(rest) + 2 > sizeof buf) {
			*whyp = "too many fields";
			return (-1);
		}
		if (snprintf(buf, sizeof buf, "%s %s", tok[1], rest) >= (int)sizeof buf) {
			*whyp = "too many fields";	/* not reached: measured above */
			return (-1);
		}
		time = buf;
	}
	if (import_wall(im, time, &wall, &digits) != 0) {
		*whyp = "TIME date not between 1970 and 2262";
		return (-1);
	}
	a->dated = wall != 0;
	if (!a->dated && (*rest != '\0' || import_tod(time, &wall, &digits) != 0)) {
		*whyp = "bad TIME (not HH:MM:SS nor a date and time)";
		return (-1);
	}
	if (a->lines > 0 && a->dated != a->is_dated) {
		*whyp = a->dated ? "TIME with a date among times without" :
		    "TIME without a date among times with one";
		return (-1);
	}
	for (res = NSEC_PER_SEC; digits > 0 && res > 1; digits--)
		res /= 10;
	a->t = ts;
	a->w = wall;
	a->res = res;
	return (0);
}

/* Keep an estimate of the clock offset: all of them, or every stride-th once there are too many. */
static void
import_align_push(struct import_align *a, int64_t e)
{
	size_t	 i;

	if (a->seen++ % a->stride != 0)
		return;
	if (a->est == NULL)
		a->est = xreallocarray(NULL, IMPORT_ALIGN_SAMPLES, sizeof *a->est);
	if (a->nest == IMPORT_ALIGN_SAMPLES) {
		for (i = 0; i < a->nest / 2; i++)
			a->est[i] = a->est[2 * i];
		a->nest /= 2;
		a->stride *= 2;
	}
	a->est[a->nest++] = e;
}

/*
 * Add the line just parsed to what the log says of the clock. A time of day
 * more than 12 h before the last one is the next day (midnight crossed); more
 * than 12 h after it, a late line of the day before. Every line bounds the
 * offset (wall - TIMESTAMP lies in [start of its TIME, + its resolution));
 * a whole-second time that starts a new second puts that second's start
 * between the TIMESTAMPs of the line before and this one: their midpoint is
 * an estimate, within half their gap; a time with a fraction is one by
 * itself, its interval's middle.
 */
static void
import_align_add(struct import *im)
{
	struct import_align	*a = &im->align;
	int64_t			 rel, e, diff;
	int			 in_order = 1;

	if (a->lines++ == 0) {
		a->is_dated = a->dated;
		a->lo = INT64_MIN;
		a->hi = INT64_MAX;
		a->stride = 1;
		a->prev_w = a->w;
		rel = a->w;
	} else if (a->is_dated)
		rel = a->w;
	else {
		diff = a->w - a->prev_w;
		if (diff < -IMPORT_DAY_NS / 2) {
			a->day++;
			a->prev_w = a->w;
		} else if (diff > IMPORT_DAY_NS / 2)
			in_order = 0;
		else
			a->prev_w = a->w;
		rel = (a->day - !in_order) * IMPORT_DAY_NS + a->w;
	}
	/* Modulo 2^64, as the other formats' offsets are. */
	e = (int64_t)((uint64_t)rel - a->t);
	if (e > a->lo)
		a->lo = e;
	if (e + a->res < a->hi)
		a->hi = e + a->res;
	if (a->res < (int64_t)NSEC_PER_SEC)
		import_align_push(a, e + a->res / 2);
	else if (a->lines > 1 && in_order && a->t > a->prev_t &&
	    rel > a->prev_rel && a->t - a->prev_t < NSEC_PER_SEC)
		import_align_push(a, (int64_t)((uint64_t)rel - a->prev_t -
		    (a->t - a->prev_t) / 2));
	if (in_order && (a->lines == 1 || a->t > a->prev_t)) {
		a->prev_t = a->t;
		a->prev_rel = rel;
	}
}

/* Order int64_t values for qsort. */
static int
import_cmp_i64(const void *x, const void *y)
{
	int64_t	 a = *(const int64_t *)x, b = *(const int64_t *)y;

	return (a < b ? -1 : a > b);
}

/*
 * The clock offset of a time alignment log into *offp: the middle of the
 * bounds every line puts on it (import_align_add) when they agree, *precp
 * half their width; where they do not (lines out of order, a TIME printed
 * late: bpftrace's time() is formatted when user space reads the event), the
 * median of the estimates, *precp -1. Times without a date
 * count from the first line's midnight, 86400 s a day (a change of summer
 * time within the log is not seen); the date is the one that puts the last
 * line nearest the file's mtime (the log is written as it goes; a copy that
 * did not keep the mtime gets the copy's date). *datep: that date. -1 if the
 * date is out of range.
 */
static int
import_align_done(struct import *im, int64_t *offp, int64_t *precp, char *date,
    size_t datelen)
{
	struct import_align	*a = &im->align;
	struct stat		 st;
	struct tm		 tm, c;
	time_t			 mtime, t, base = 0;
	int64_t			 off, best = INT64_MAX, d;
	int			 i, bestd = 0;

	*precp = -1;
	if (a->lo < a->hi) {
		*precp = (a->hi - a->lo) / 2;
		off = a->lo + *precp;
	} else if (a->nest > 0) {
		qsort(a->est, a->nest, sizeof *a->est, import_cmp_i64);
		off = a->est[a->nest / 2];
	} else
		off = a->lo / 2 + a->hi / 2;
	*date = '\0';
	if (a->is_dated) {
		*offp = off;
		return (0);
	}
	if (fstat(fileno(im->f), &st) != 0 || a->day > 1000000 ||
	    localtime_r(&st.st_mtime, &tm) == NULL)
		return (-1);
	mtime = st.st_mtime;
	for (i = -1; i <= 1; i++) {
		memset(&c, 0, sizeof c);
		c.tm_year = tm.tm_year;
		c.tm_mon = tm.tm_mon;
		c.tm_mday = tm.tm_mday + i;
		c.tm_isdst = -1;
		if ((t = mktime(&c)) == (time_t)-1)
			continue;
		d = (int64_t)t + a->prev_w / (int64_t)NSEC_PER_SEC - (int64_t)mtime;
		if (d < 0)
			d = -d;
		if (d < best) {
			best = d;
			bestd = i;
		}
	}
	memset(&c, 0, sizeof c);
	c.tm_year = tm.tm_year;
	c.tm_mon = tm.tm_mon;
	c.tm_mday = tm.tm_mday + bestd - (int)a->day;
	c.tm_isdst = -1;
	if (best == INT64_MAX || (base = mktime(&c)) == (time_t)-1 || base < 0 ||
	    (uint64_t)base >= (uint64_t)INT64_MAX / NSEC_PER_SEC - 2 * 86400)
		return (-1);
	strftime(date, datelen, "%Y-%m-%d", &c);
	*offp = (int64_t)((uint64_t)base * NSEC_PER_SEC + (uint64_t)off);
	return (0);
}

/*
 * Whether the line is a header or a block marker of a format found from its
 * header (then *auxp: the mmap sub-format or the close log's fifth column),
 * IMPORT_NONE if not. An openat header has no newline in the script: *gluedp
 * is the record stuck to it, or NULL.
 */
static enum import_format
import_head_format(const char *line, int *auxp, const char **gluedp)
{
	const char	*w[7], *p = line;
	size_t		 l[7];
	unsigned	 n;

#define W(i, s)		(l[i] == strlen(s) && memcmp(w[i], s, l[i]) == 0)
#define LAT(i)		(W(i, "LAT(ns)") || W(i, "LAT") || W(i, "LAT(NS)"))
	*auxp = 0;
	*gluedp = NULL;
	for (n = 0; n < nitems(w); n++) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '\0')
			break;
		w[n] = p;
		while (*p != '\0' && *p != ' ' && *p != '\t')
			p++;
		l[n] = (size_t)(p - w[n]);
	}
	if (n == 1 && (W(0, "mmap():") || W(0, "munmap():"))) {
		*auxp = W(0, "mmap():") ? IMPORT_SUB_MMAP : IMPORT_SUB_MUNMAP;
		return (IMPORT_MMAP);
	}
	if (n == 1 && (W(0, "mkdir():") || W(0, "rmdir():") || W(0, "unlink():")))
		return (IMPORT_CREATEDEL);
	if (n < 2 || !W(0, "TIMESTAMP"))
		return (IMPORT_NONE);
	if (n == 2 && W(1, "TIME"))
		return (IMPORT_TIMEALIGN);
	if ((n >= 5 && W(1, "TIME") && W(2, "PID") && W(3, "TID") && W(4, "FUNCTION")) ||
	    (n >= 4 && W(1, "PID") && (W(2, "CALL") || W(2, "FUNCTION"))))
		return (IMPORT_CREATEDEL);
	if (!W(1, "PID") || n < 4)
		return (IMPORT_NONE);
	if (n >= 6 && W(2, "FD") && LAT(3) && W(4, "FILENAME") &&
	    l[5] >= 8 && memcmp(w[5], "FULLPATH", 8) == 0) {
		if (l[5] > 8 || n > 6)
			*gluedp = w[5] + 8;
		return (IMPORT_OPENAT);
	}
	if (n == 6 && W(2, "FD") && W(3, "ADDRESS") && LAT(4) && W(5, "FILENAME")) {
		*auxp = IMPORT_SUB_MMAP;
		return (IMPORT_MMAP);
	}
	if (n == 5 && W(2, "ADDRESS") && W(3, "LEN") && LAT(4)) {
		*auxp = IMPORT_SUB_MUNMAP;
		return (IMPORT_MMAP);
	}
	if (W(2, "FD") && LAT(3) && (n == 4 || (n == 5 && (W(4, "RET") ||
	    W(4, "FILENAME"))))) {
		*auxp = n == 4 ? IMPORT_COL_NONE : W(4, "RET") ? IMPORT_COL_RET :
		    IMPORT_COL_FILENAME;
		return (IMPORT_CLOSE);
	}
	return (IMPORT_NONE);
#undef LAT
#undef W
}

/* What a line that is no record is (enum import_skip), 0 if it may be one; *lostp for Lost lines. */
static enum import_skip
import_skip_kind(const char *line, uint64_t *lostp)
{
	size_t	 n = strlen(line);
	char	*end;

	if (*line == '\0' || *line == '#' || *line == '@' || *line == '[' ||
	    strncmp(line, "Attaching ", 10) == 0 || strncmp(line, "Tracing ", 8) == 0 ||
	    strstr(line, "TIMESTAMP") != NULL ||
	    (n > 3 && strcmp(line + n - 3, "():") == 0 && strchr(line, ' ') == NULL))
		return (IMPORT_SKIP_QUIET);
	if (strncmp(line, "WARNING", 7) == 0 || strncmp(line, "ERROR", 5) == 0 ||
	    strstr(line, ": WARNING:") != NULL || strstr(line, ": ERROR:") != NULL)
		return (IMPORT_SKIP_NOTE);
	if (strncmp(line, "Lost ", 5) == 0 && isdigit((unsigned char)line[5])) {
		errno = 0;
		*lostp = strtoull(line + 5, &end, 10);
		if (errno == 0 && strncmp(end, " event", 6) == 0)
			return (IMPORT_SKIP_LOST);
	}
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
	/* What earlier lines taught the parsers is learned again. */
	im->mmap_sub = IMPORT_SUB_MMAP;
	im->close_col = IMPORT_COL_NONE;
	im->last_ts = 0;
	if (im->maps != NULL)
		memset(im->maps, 0, IMPORT_MAPS * sizeof *im->maps);
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

/* The stream time of a record a parser made. */
static uint64_t
import_rec_ts(const void *rec)
{
	uint32_t	 type;
	uint64_t	 ts;

	memcpy(&type, rec, sizeof type);
	if (type == EV_BLOCK)
		return (((const struct ev_block *)rec)->ts_done);
	memcpy(&ts, (const char *)rec + 8, sizeof ts);	/* every other record's */
	return (ts);
}

/*
 * Parse the line in a format; 1 for a record (a time alignment line: *lenp
 * 0, im->align holds it; "Lost N events": an EV_LOST, im->skip says so), 0
 * for a line that is none (im->skip says what), -1 if malformed (*whyp says
 * why). While the format is being found, values out of range still count as
 * the format: they are reported once it is known.
 */
static int
import_parse(struct import *im, enum import_format fmt, void *rec, size_t *lenp,
    uint64_t *tsp, int64_t *wallp, const char **whyp)
{
	struct ev_lost	*lost = rec;
	char		*line;
	const char	*time = NULL, *glued;
	uint64_t	 nlost = 0;
	int		 r = -1, aux;

	*whyp = NULL;
	im->skip = 0;
	if ((*whyp = import_bad_line(im)) != NULL)
		return (-1);
	memcpy(im->work, im->line, im->len + 1);
	line = import_trim(im->work);
	if (import_head_format(line, &aux, &glued) == fmt && fmt != IMPORT_NONE) {
		if (fmt == IMPORT_MMAP)
			im->mmap_sub = aux;
		else if (fmt == IMPORT_CLOSE)
			im->close_col = aux;
		if (glued != NULL && fmt == IMPORT_OPENAT)
			line = import_trim((char *)glued);
	}
	if ((im->skip = import_skip_kind(line, &nlost)) != 0) {
		if (im->skip != IMPORT_SKIP_LOST || im->format == IMPORT_NONE)
			return (0);
		memset(lost, 0, sizeof *lost);
		lost->type = EV_LOST;
		lost->ts = im->last_ts != 0 ? im->last_ts : im->first_ts;
		lost->count = im->skip_lost = nlost;
		*lenp = sizeof *lost;
		*tsp = lost->ts;
		*wallp = 0;
		return (1);
	}
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
	case IMPORT_CREATEDEL:
		r = import_parse_createdel(line, rec, lenp, whyp);
		break;
	case IMPORT_OPENAT:
		r = import_parse_openat(line, rec, lenp, whyp);
		break;
	case IMPORT_MMAP:
		r = import_parse_mmap(im, line, rec, lenp, whyp);
		break;
	case IMPORT_CLOSE:
		r = import_parse_close(im, line, rec, lenp, whyp);
		break;
	case IMPORT_TIMEALIGN:
		r = import_parse_align(im, line, whyp);
		break;
	default:
		*whyp = "no format";
		break;
	}
	if (r == 1) {
		im->skip = IMPORT_SKIP_QUIET;	/* a line of the format that is no record */
		return (0);
	}
	if (r != 0)
		return (-1);
	if (fmt == IMPORT_TIMEALIGN) {
		*tsp = im->align.t;
		*lenp = 0;
	} else
		*tsp = import_rec_ts(rec);
	*wallp = 0;
	if (im->format == IMPORT_NONE)
		return (1);
	if (*tsp > IMPORT_MAX_TS) {
		snprintf(im->why, sizeof im->why, "timestamp %" PRIu64 " past %" PRIu64,
		    *tsp, (uint64_t)IMPORT_MAX_TS);
		*whyp = im->why;
		return (-1);
	}
	if (time != NULL && import_wall(im, time, wallp, NULL) != 0) {
		*whyp = "TIME date not between 1970 and 2262";
		return (-1);
	}
	im->last_ts = *tsp;
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
	free(im->maps);
	free(im->align.est);
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
	const char	*why[IMPORT_VFS_RW + 1], *bad, *glued;
	char		*err = NULL, *line;
	unsigned	 looked = 0;
	uint64_t	 ts;
	int64_t		 wall;
	size_t		 len;
	int		 rd = 0, r, aux;

	while (im->format == IMPORT_NONE && looked < IMPORT_DETECT_LINES &&
	    (rd = import_read(im)) == 1) {
		/* A header or a block marker names its format. */
		line = NULL;
		if (import_bad_line(im) == NULL) {
			memcpy(im->work, im->line, im->len + 1);
			line = import_trim(im->work);
			if ((im->format = import_head_format(line, &aux, &glued)) !=
			    IMPORT_NONE)
				break;
		}
		for (fmt = IMPORT_ISSUE; fmt <= IMPORT_VFS_RW; fmt++) {
			r = import_parse(im, fmt, im->pend, &len, &ts, &wall, &why[fmt]);
			if (r == 0)
				break;
			if (r == 1) {
				im->format = fmt;
				break;
			}
		}
		if (fmt <= IMPORT_VFS_RW)
			continue;
		/* A line of none of those that names a create/delete call. */
		if (line != NULL) {
			memcpy(im->work, im->line, im->len + 1);
			line = import_trim(im->work);
			if (strstr(line, " mkdir() ") != NULL ||
			    strstr(line, " rmdir() ") != NULL ||
			    strstr(line, " unlink() ") != NULL) {
				im->format = IMPORT_CREATEDEL;
				break;
			}
		}
		if (looked++ != 0)
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
	struct import		*im;
	struct import_counts	*c;
	const char		*why;
	char			*first_bad = NULL, date[32], lost[64], precs[64];
	uint64_t		 ts, first = UINT64_MAX;
	int64_t			 wall, offset = 0, prec;
	size_t			 len;
	int			 r, has_clock = 0;

	*errp = NULL;
	im = xcalloc(1, sizeof *im);
	c = &im->counts;
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
	if (im->format == IMPORT_MMAP)
		im->maps = xcalloc(IMPORT_MAPS, sizeof *im->maps);

	/* Count, report and learn. */
	import_rewind(im);
	while ((r = import_read(im)) == 1) {
		r = import_parse(im, im->format, im->pend, &len, &ts, &wall, &why);
		if (r == 1 && im->skip == IMPORT_SKIP_LOST) {
			c->skipped++;
			c->lost += im->skip_lost;
		} else if (r == 1) {
			/* Modulo 2^64, as stream times past 2^63 are. */
			if (c->records++ == 0 && wall != 0) {
				offset = (int64_t)((uint64_t)wall - ts);
				has_clock = 1;
			}
			if (ts < first)
				first = ts;
			if (im->format == IMPORT_TIMEALIGN)
				import_align_add(im);
		} else if (r == 0) {
			c->skipped++;
			if (im->skip == IMPORT_SKIP_NOTE && c->notes++ < IMPORT_REPORT_BAD)
				log_warnx("%s:%lu: bpftrace's message, skipped: %s", path,
				    im->lineno, import_excerpt(im));
		} else if (c->malformed++ == 0) {
			c->first_malformed = im->lineno;
			xasprintf(&first_bad, "line %lu, %s", im->lineno, why);
		}
		if (r == -1 && c->malformed <= IMPORT_REPORT_BAD) {
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
	*lost = '\0';
	if (c->lost > 0)
		snprintf(lost, sizeof lost, "; bpftrace lost %" PRIu64 " event%s",
		    c->lost, c->lost == 1 ? "" : "s");
	if (c->malformed > 0 || c->notes > 0 || c->lost > 0)
		log_warnx("%s: %" PRIu64 " malformed line%s skipped, %" PRIu64
		    " imported; %" PRIu64 " other line%s skipped (bpftrace's own, "
		    "headers, blank)%s", path, c->malformed, c->malformed == 1 ? "" :
		    "s", c->records, c->skipped, c->skipped == 1 ? "" : "s", lost);
	if (c->records == 0) {
		xasprintf(errp, "%s: no valid %s line (%" PRIu64 " malformed, the "
		    "first %s)", path, import_format_names[im->format], c->malformed,
		    first_bad != NULL ? first_bad : "none");
		free(first_bad);
		import_close(im);
		return (NULL);
	}
	free(first_bad);
	if (im->format == IMPORT_TIMEALIGN) {
		if (import_align_done(im, &offset, &prec, date, sizeof date) != 0) {
			xasprintf(errp, "%s: no date puts its times between 1970 and "
			    "2262", path);
			import_close(im);
			return (NULL);
		}
		has_clock = 1;
		if (prec >= 0)
			snprintf(precs, sizeof precs, "within %" PRId64 ".%06" PRId64
			    " s", prec / (int64_t)NSEC_PER_SEC, prec %
			    (int64_t)NSEC_PER_SEC / 1000);
		else
			snprintf(precs, sizeof precs, "lines disagree: the median "
			    "of %zu estimates", im->align.nest);
		log_warnx("%s: a clock alignment log (%" PRIu64 " lines%s%s): wall "
		    "time = CLOCK_MONOTONIC + %s%" PRIu64 ".%09" PRIu64 " s (%s); no "
		    "events", path, c->records, *date != '\0' ? ", dated from the "
		    "file's mtime: the first line's day is " : "", date, offset < 0 ?
		    "-" : "",
		    (uint64_t)((offset < 0 ? 0 - (uint64_t)offset : (uint64_t)offset) /
		    NSEC_PER_SEC), (uint64_t)((offset < 0 ? 0 - (uint64_t)offset :
		    (uint64_t)offset) % NSEC_PER_SEC), precs);
	}
	import_rewind(im);

	im->hdr.major = CAPTURE_VERSION_MAJOR;
	im->hdr.version = xstrdup(PACKAGE_VERSION);
	xasprintf(&im->hdr.host, "imported %s log", import_format_names[im->format]);
	im->hdr.kernel = xstrdup("");
	/*
	 * "+life": its records fill the lifecycle fields (HAVE_LIFE); "+calls":
	 * the read/write call fields (HAVE_VFS; replay_have).
	 */
	xasprintf(&im->hdr.plan, "import:%s%s", import_format_names[im->format],
	    im->format == IMPORT_OPENAT || im->format == IMPORT_CLOSE ||
	    im->format == IMPORT_MMAP || im->format == IMPORT_CREATEDEL ? "+life" :
	    im->format == IMPORT_VFS_RW ? "+calls" : "");
	im->hdr.interval_ns = NSEC_PER_SEC;
	im->hdr.clock_offset = offset;
	im->hdr.has_clock = has_clock;
	im->first_ts = first;
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

/* What import_open counted in the log's lines. */
const struct import_counts *
import_counts(const struct import *im)
{
	return (&im->counts);
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

	if (im->format == IMPORT_TIMEALIGN)
		return (0);		/* a clock, no events */
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
