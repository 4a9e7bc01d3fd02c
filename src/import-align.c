/* import-align.c: time alignment logs, `TIMESTAMP TIME`: no events, the offset of the wall clock from CLOCK_MONOTONIC. */

#include <sys/stat.h>

#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base.h"
#include "replay.h"
#include "capture-file.h"
#include "import.h"

#define IMPORT_ALIGN_SAMPLES	65536		/* clock estimates kept (then every 2nd, 4th...) */
#define IMPORT_DAY_NS		(86400 * (int64_t)NSEC_PER_SEC)

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

/* `HH:MM:SS[.frac]`: ns since midnight and the fraction's digits; -1 if not one. */
static int
import_align_tod(const char *s, int64_t *w, unsigned *digits)
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

/* `TIMESTAMP TIME`, TIME `HH:MM:SS[.frac]` or an ISO date and time: no record, the line kept for import_align_add. */
static int
import_align_parse(struct import *im, char *line, __unused void *rec, size_t *lenp,
    uint64_t *tsp, __unused const char **timep, const char **whyp)
{
	struct import_align	*a = im->data;
	char			*tok[2], *rest, buf[64];
	const char		*time;
	uint64_t		 ts;
	int64_t			 wall, res;
	unsigned		 digits = 0;

	if (import_field_cut(line, tok, 2, &rest) != 2) {
		*whyp = "too few fields";
		return (-1);
	}
	if (import_field_u64(tok[0], &ts) != 0 || ts == 0) {
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
	if (!a->dated && (*rest != '\0' || import_align_tod(time, &wall, &digits) != 0)) {
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
	*tsp = ts;
	*lenp = 0;
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
	struct import_align	*a = im->data;
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
import_align_cmp_i64(const void *x, const void *y)
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
	struct import_align	*a = im->data;
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
		qsort(a->est, a->nest, sizeof *a->est, import_align_cmp_i64);
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
 * The clock offset the log gives (import_align_done), told to the user with
 * how precise it is; -1 with *errp if no date puts it in range.
 */
static int
import_align_clock(struct import *im, int64_t *offp, char **errp)
{
	struct import_align	*a = im->data;
	char			 date[32], precs[64];
	int64_t			 offset, prec;

	if (import_align_done(im, &offset, &prec, date, sizeof date) != 0) {
		xasprintf(errp, "%s: no date puts its times between 1970 and "
		    "2262", im->path);
		return (-1);
	}
	if (prec >= 0)
		snprintf(precs, sizeof precs, "within %" PRId64 ".%06" PRId64
		    " s", prec / (int64_t)NSEC_PER_SEC, prec %
		    (int64_t)NSEC_PER_SEC / 1000);
	else
		snprintf(precs, sizeof precs, "lines disagree: the median "
		    "of %zu estimates", a->nest);
	log_warnx("%s: a clock alignment log (%" PRIu64 " lines%s%s): wall "
	    "time = CLOCK_MONOTONIC + %s%" PRIu64 ".%09" PRIu64 " s (%s); no "
	    "events", im->path, im->counts.records, *date != '\0' ? ", dated from the "
	    "file's mtime: the first line's day is " : "", date, offset < 0 ?
	    "-" : "",
	    (uint64_t)((offset < 0 ? 0 - (uint64_t)offset : (uint64_t)offset) /
	    NSEC_PER_SEC), (uint64_t)((offset < 0 ? 0 - (uint64_t)offset :
	    (uint64_t)offset) % NSEC_PER_SEC), precs);
	*offp = offset;
	return (0);
}

/* Its header: `TIMESTAMP TIME`. */
static int
import_align_head(const struct import_words *w, __unused int *auxp,
    __unused const char **gluedp)
{
	return (w->n == 2 && import_field_word(w, 0, "TIMESTAMP") &&
	    import_field_word(w, 1, "TIME"));
}

/* What the log says of the clock, nothing yet. */
static void
import_align_start(struct import *im)
{
	im->data = xcalloc(1, sizeof(struct import_align));
}

/* Free what the log said. */
static void
import_align_free(struct import *im)
{
	struct import_align	*a = im->data;

	free(a->est);
	free(a);
}

/*
 * `TIMESTAMP TIME`, found from its header only: no events, the clock offset
 * (import_align_done) for the other logs of the same run.
 */
const struct import_format import_align_format = {
	.name = "time_align",
	.no_events = 1,
	.head = import_align_head,
	.parse = import_align_parse,
	.start = import_align_start,
	.learn = import_align_add,
	.clock = import_align_clock,
	.free = import_align_free,
};
