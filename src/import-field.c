/* import-field.c: the fields of a text log's lines: numbers, blanks, the leading TIMESTAMP [TIME] PID COMM. */

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "replay.h"
#include "capture-file.h"
#include "import.h"

/* Parse a whole unsigned decimal number. */
int
import_field_u64(const char *s, uint64_t *v)
{
	char	*end;

	if (!isdigit((unsigned char)*s))
		return (-1);
	errno = 0;
	*v = strtoull(s, &end, 10);
	return (errno != 0 || *end != '\0' ? -1 : 0);
}

/* Parse a whole signed decimal number. */
int
import_field_s64(const char *s, int64_t *v)
{
	char	*end;

	if (*s != '-' && !isdigit((unsigned char)*s))
		return (-1);
	errno = 0;
	*v = strtoll(s, &end, 10);
	return (errno != 0 || *end != '\0' ? -1 : 0);
}

/* A whole int32_t in decimal. */
int
import_field_s32(const char *s, int32_t *v)
{
	int64_t	 x;

	if (import_field_s64(s, &x) != 0 || x < INT32_MIN || x > INT32_MAX)
		return (-1);
	*v = (int32_t)x;
	return (0);
}

/* A latency as the scripts print it: %d of a u64, negative past 2^31 - 1. */
int
import_field_lat(const char *s, uint64_t *lat)
{
	int64_t	 v;

	if (import_field_s64(s, &v) != 0 || v < INT32_MIN)
		return (-1);
	if (v < 0)
		v += (int64_t)1 << 32;
	*lat = (uint64_t)v;
	return (0);
}

/* Whether a field is written in hex (0x...). */
int
import_field_is_hex(const char *s)
{
	return (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'));
}

/* An address or a mode: 0x and hex digits, a leading 0 and octal (if octal), or decimal. */
int
import_field_num(const char *s, int octal, uint64_t *v)
{
	char	*end;
	int	 base = 10;

	if (import_field_is_hex(s)) {
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

/* Split a line on blanks (and commas if commas); returns the number of tokens. */
unsigned
import_field_split(char *s, const char *sep, char **tok, unsigned max)
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

/* Cut the first max blank-separated fields of line into tok[]; *restp is
 * what follows them, its leading blanks skipped ("" at the end). The count. */
unsigned
import_field_cut(char *line, char **tok, unsigned max, char **restp)
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

/* Trim blanks at both ends in place. */
char *
import_field_trim(char *s)
{
	size_t	 n;

	while (isspace((unsigned char)*s))
		s++;
	n = strlen(s);
	while (n > 0 && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return (s);
}

/* Whether a token is a local time ("20:27:46" or "2022-02-05T20:27:46.077425393"). */
int
import_field_is_time(const char *s)
{
	return (isdigit((unsigned char)*s) && strchr(s, ':') != NULL);
}

/* TIMESTAMP and PID, the first two fields of the lines of every later format. */
int
import_field_ts_pid(char **tok, uint64_t *ts, uint32_t *pid, const char **whyp)
{
	uint64_t	 v;

	if (import_field_u64(tok[0], ts) != 0 || *ts == 0) {
		*whyp = "bad TIMESTAMP";
		return (-1);
	}
	if (import_field_u64(tok[1], &v) != 0 || v > UINT32_MAX) {
		*whyp = "bad PID";
		return (-1);
	}
	*pid = (uint32_t)v;
	return (0);
}

/*
 * Split a line of a token format into tok[] (*np of them) and parse its leading
 * `TIMESTAMP [TIME] PID COMM`; the index after COMM.
 */
int
import_field_lead(char *line, char **tok, unsigned *np, uint64_t *ts, const char **time,
    uint64_t *pid, const char **comm, const char **whyp)
{
	unsigned	 i = 1, n;

	*np = n = import_field_split(line, " \t\r\n", tok, IMPORT_MAX_TOKENS);
	if (n > IMPORT_MAX_TOKENS) {
		*whyp = "too many fields";
		return (-1);
	}
	if (n < 4) {
		*whyp = "too few fields";
		return (-1);
	}
	if (import_field_u64(tok[0], ts) != 0 || *ts == 0) {
		*whyp = "bad TIMESTAMP";
		return (-1);
	}
	*time = NULL;
	if (import_field_is_time(tok[1]))
		*time = tok[i++];
	if (i + 1 >= n || import_field_u64(tok[i], pid) != 0 || *pid > UINT32_MAX) {
		*whyp = "bad PID";
		return (-1);
	}
	*comm = tok[i + 1];
	return ((int)i + 2);
}

/* VFS_PF_BASENAME for a file name without a directory: the log has only the dentry's name. */
uint16_t
import_field_name_flags(const char *path)
{
	return (strchr(path, '/') == NULL ? VFS_PF_BASENAME : 0);
}

/* Whether the i-th word of a line is s. */
int
import_field_word(const struct import_words *w, unsigned i, const char *s)
{
	return (i < w->n && w->l[i] == strlen(s) && memcmp(w->w[i], s, w->l[i]) == 0);
}

/* Whether the i-th word of a header is a latency column, as the scripts spell it. */
int
import_field_word_lat(const struct import_words *w, unsigned i)
{
	return (import_field_word(w, i, "LAT(ns)") || import_field_word(w, i, "LAT") ||
	    import_field_word(w, i, "LAT(NS)"));
}
