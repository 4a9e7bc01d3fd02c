/* import.c: text logs of bpftrace scripts as event records: the table of formats, the line reader, detection and the clock. */

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base.h"
#include "replay.h"
#include "capture-file.h"
#include "import.h"

/*
 * Each format is an entry of import_formats (import-block.c, import-vfs.c,
 * import-life.c, import-align.c), found from the content: a line that is
 * its header or block marker, else the first line that one of them sniffs as
 * its own, in table order. TIMESTAMP is ns since boot (CLOCK_MONOTONIC); an
 * ISO TIME with a date gives the wall clock. Ticks are made every second of
 * log time. Lines that are bpftrace's own (Attaching, WARNING, ERROR, Lost N
 * events, map dumps, headers, block markers, blank) are skipped and counted,
 * never fatal.
 */
static const struct import_format *const import_formats[] = {
	&import_block_issue_format,
	&import_block_bio_format,
	&import_vfs_rw_format,
	&import_life_createdel_format,
	&import_life_openat_format,
	&import_life_mmap_format,
	&import_life_close_format,
	&import_align_format,
};

#define IMPORT_DETECT_LINES	64		/* lines looked at to find the format */
#define IMPORT_REPORT_BAD	5		/* malformed lines shown */
#define IMPORT_GAP_NS		(3600 * NSEC_PER_SEC)	/* longer silences: one long tick */
#define IMPORT_LINE_MAX		16384		/* longer lines are malformed, never cut */
#define IMPORT_READ_SIZE	65536
#define IMPORT_EXCERPT		60		/* bytes of a bad line shown */
/* The last timestamp whose next tick boundary still fits in 64 bits. */
#define IMPORT_MAX_TS		(UINT64_MAX / NSEC_PER_SEC * NSEC_PER_SEC - 1)

/*
 * Wall-clock ns of an ISO local time with a date into *wallp (0 if it has
 * none) and the digits of its fraction into *digitsp (if not NULL); -1 if
 * the date is outside what 64-bit ns since 1970 can hold. The
 * second of the last line is remembered: mktime reads the time zone file
 * each call, and a log has thousands of lines a second.
 */
int
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

/* The first words of a line, for the formats' heads. */
static void
import_words(const char *line, struct import_words *w)
{
	const char	*p = line;

	for (w->n = 0; w->n < nitems(w->w); w->n++) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '\0')
			break;
		w->w[w->n] = p;
		while (*p != '\0' && *p != ' ' && *p != '\t')
			p++;
		w->l[w->n] = (size_t)(p - w->w[w->n]);
	}
}

/*
 * The format whose header or block marker the line is (*auxp what it says,
 * *gluedp a record stuck to it), or NULL.
 */
static const struct import_format *
import_head(const char *line, int *auxp, const char **gluedp)
{
	struct import_words	 w;
	size_t			 i;

	/*
	 * Every header or marker starts with a word (TIMESTAMP, mkdir():...);
	 * a line starting with a digit, as every record does, is none: most
	 * lines of a log skip the split and the table here.
	 */
	*auxp = 0;
	*gluedp = NULL;
	if (isdigit((unsigned char)*line))
		return (NULL);
	import_words(line, &w);
	for (i = 0; i < nitems(import_formats); i++) {
		*auxp = 0;
		*gluedp = NULL;
		if (import_formats[i]->head != NULL &&
		    import_formats[i]->head(&w, auxp, gluedp))
			return (import_formats[i]);
	}
	return (NULL);
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
	im->aux = 0;
	im->last_ts = 0;
	if (im->format->rewind != NULL)
		im->format->rewind(im);
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
 * Parse the line in the log's format; 1 for a record (*lenp 0 for a line
 * that only says something of the log; "Lost N events": an EV_LOST, im->skip
 * says so), 0 for a line that is none (im->skip says what), -1 if malformed
 * (*whyp says why).
 */
static int
import_parse(struct import *im, void *rec, size_t *lenp, uint64_t *tsp,
    int64_t *wallp, const char **whyp)
{
	const struct import_format *fmt = im->format;
	struct ev_lost	*lost = rec;
	char		*line;
	const char	*time = NULL, *glued;
	uint64_t	 nlost = 0;
	int		 r, aux;

	*whyp = NULL;
	im->skip = 0;
	if ((*whyp = import_bad_line(im)) != NULL)
		return (-1);
	memcpy(im->work, im->line, im->len + 1);
	line = import_field_trim(im->work);
	if (import_head(line, &aux, &glued) == fmt) {
		im->aux = aux;
		if (glued != NULL)
			line = import_field_trim((char *)glued);
	}
	if ((im->skip = import_skip_kind(line, &nlost)) != 0) {
		if (im->skip != IMPORT_SKIP_LOST)
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
	r = fmt->parse(im, line, rec, lenp, tsp, &time, whyp);
	if (r == 1) {
		im->skip = IMPORT_SKIP_QUIET;	/* a line of the format that is no record */
		return (0);
	}
	if (r != 0)
		return (-1);
	*wallp = 0;
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

/*
 * A format's sniff that parses the line: whether it is one of its records
 * (values out of range still count: they are reported once the format is
 * known); else *whyp why not.
 */
int
import_sniff_parse(struct import *im, const struct import_format *fmt, char *line,
    const char **whyp)
{
	const char	*time;
	uint64_t	 ts;
	size_t		 len;

	*whyp = NULL;
	return (fmt->parse(im, line, im->pend, &len, &ts, &time, whyp) == 0);
}


/* Free an importer. */
void
import_close(struct import *im)
{
	if (im->format != NULL && im->format->free != NULL && im->data != NULL)
		im->format->free(im);
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
 * Why the line is no record of the formats that sniff lines, as the error
 * names them: "neither A (why), B (why) nor C (why)".
 */
static char *
import_detect_why(const char **why)
{
	char	*s = xstrdup("neither"), *t;
	size_t	 i, n = 0, last = 0;

	for (i = 0; i < nitems(import_formats); i++) {
		if (why[i] != NULL)
			last = i;
	}
	for (i = 0; i < nitems(import_formats); i++) {
		if (why[i] == NULL)
			continue;
		xasprintf(&t, "%s%s %s (%s)", s, n++ == 0 ? "" : i == last ? " nor" :
		    ",", import_formats[i]->name, why[i]);
		free(s);
		s = t;
	}
	return (s);
}

/*
 * Find the format: the first one a line is the header of or sniffs as its
 * own, among the first IMPORT_DETECT_LINES lines that are not blank or
 * comments. NULL, or the error naming the first line that fits none and why.
 */
static char *
import_detect(struct import *im)
{
	const char	*why[nitems(import_formats)], *bad, *glued;
	char		*err = NULL, *line, *whys;
	unsigned	 looked = 0;
	uint64_t	 nlost;
	size_t		 i;
	int		 rd = 0, aux;

	while (im->format == NULL && looked < IMPORT_DETECT_LINES &&
	    (rd = import_read(im)) == 1) {
		if ((bad = import_bad_line(im)) == NULL) {
			memcpy(im->work, im->line, im->len + 1);
			line = import_field_trim(im->work);
			/* A header or a block marker names its format. */
			if ((im->format = import_head(line, &aux, &glued)) != NULL)
				break;
			if (import_skip_kind(line, &nlost) != 0)
				continue;
			for (i = 0; i < nitems(import_formats); i++) {
				why[i] = NULL;
				if (import_formats[i]->sniff == NULL)
					continue;
				memcpy(im->work, im->line, im->len + 1);
				line = import_field_trim(im->work);
				if (import_formats[i]->sniff(im, import_formats[i], line,
				    &why[i])) {
					im->format = import_formats[i];
					break;
				}
			}
			if (im->format != NULL)
				break;
		}
		if (looked++ != 0)
			continue;
		if (bad != NULL) {
			xasprintf(&err, "%s:%lu: not a text log blktop can import: "
			    "line %s: %s", im->path, im->lineno, bad, import_excerpt(im));
		} else {
			whys = import_detect_why(why);
			xasprintf(&err, "%s:%lu: not a text log blktop can import: "
			    "%s: %s", im->path, im->lineno, whys, import_excerpt(im));
			free(whys);
		}
	}
	if (im->format != NULL) {
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
	char			*first_bad = NULL, lost[64];
	uint64_t		 ts, first = UINT64_MAX;
	int64_t			 wall, offset = 0;
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
	if (im->format->start != NULL)
		im->format->start(im);

	/* Count, report and learn. */
	import_rewind(im);
	while ((r = import_read(im)) == 1) {
		r = import_parse(im, im->pend, &len, &ts, &wall, &why);
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
			if (im->format->learn != NULL)
				im->format->learn(im);
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
			    im->format->name, why, import_excerpt(im));
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
		    "first %s)", path, im->format->name, c->malformed,
		    first_bad != NULL ? first_bad : "none");
		free(first_bad);
		import_close(im);
		return (NULL);
	}
	free(first_bad);
	if (im->format->clock != NULL) {
		if (im->format->clock(im, &offset, errp) != 0) {
			import_close(im);
			return (NULL);
		}
		has_clock = 1;
	}
	import_rewind(im);

	im->hdr.major = CAPTURE_VERSION_MAJOR;
	im->hdr.version = xstrdup(PACKAGE_VERSION);
	xasprintf(&im->hdr.host, "imported %s log", im->format->name);
	im->hdr.kernel = xstrdup("");
	/*
	 * "+life": its records fill the lifecycle fields (HAVE_LIFE); "+calls":
	 * the read/write call fields (HAVE_VFS; replay_have).
	 */
	xasprintf(&im->hdr.plan, "import:%s%s", im->format->name,
	    im->format->life ? "+life" : im->format->calls ? "+calls" : "");
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

	if (im->format->no_events)
		return (0);		/* a clock, no events */
	for (;;) {
		if (im->have_pend) {
			if (im->pend_ts >= im->tick_end) {
				t = im->tick_end;
				if (im->pend_ts - im->tick_end >= IMPORT_GAP_NS)
					t = im->pend_ts - im->pend_ts % NSEC_PER_SEC;
				im->tick_end = t + NSEC_PER_SEC;
				return (rec_type_tick(buf, size, lenp, t));
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
			return (rec_type_tick(buf, size, lenp, im->tick_end));
		}
		r = import_parse(im, im->pend, &im->pend_len, &ts, &wall, &why);
		if (r == 1) {
			im->pend_ts = ts;
			im->have_pend = 1;
		}
	}
}
