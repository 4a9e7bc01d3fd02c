/* report-html-text.c: the HTML report's text helpers (escaped text, theme colours, trimmed numbers, wall-clock times), below every sink-report-*.c that writes the page. */

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "blktop.h"
#include "report.h"

/* A theme colour as #rrggbb; the fallback where the theme leaves it to the terminal. */
void
html_colour(const struct report *r, enum theme_colour c, const char *fallback, char *out)
{
	int32_t	 rgb = r->theme.colour[c];

	if (rgb == THEME_DEFAULT)
		snprintf(out, 8, "%s", fallback);
	else
		snprintf(out, 8, "#%06x", (unsigned)rgb & 0xffffff);
}

/*
 * Text as HTML: markup characters escaped; controls, invisible characters
 * and broken UTF-8 shown as one '?' each (name_text_char, as every text output).
 */
void
html_text(FILE *f, const char *s)
{
	static const char	*ent[] = { ['&'] = "&amp;", ['<'] = "&lt;", ['>'] = "&gt;",
		['"'] = "&quot;", ['\''] = "&#39;" };
	size_t			 n = strlen(s), k;
	int			 shown;

	for (; n > 0; s += k, n -= k) {
		k = name_text_char(s, n, &shown);
		if (!shown)
			fputc('?', f);
		else if (k == 1 && (unsigned char)*s < nitems(ent) && ent[(unsigned char)*s] != NULL)
			fputs(ent[(unsigned char)*s], f);
		else
			fwrite(s, 1, k, f);
	}
}

/* A number from draw.c's fixed-width formats, without the padding. */
const char *
html_trim(const char *s)
{
	while (*s == ' ')
		s++;
	return (s);
}

/* Wall-clock time of a stream time: "HH:MM:SS", or the whole date with long. */
char *
html_time(const struct blktop *b, uint64_t ts, int whole, char *buf, size_t len)
{
	time_t		 t = (time_t)(((int64_t)ts + b->mono_to_wall) / (int64_t)NSEC_PER_SEC);
	struct tm	 tm;

	if (localtime_r(&t, &tm) == NULL ||
	    strftime(buf, len, whole ? "%Y-%m-%d %H:%M:%S %Z" : "%H:%M:%S", &tm) == 0)
		snprintf(buf, len, "?");
	return (buf);
}
