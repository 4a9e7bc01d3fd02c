/* name.c: names from the kernel or a file (paths, commands, cgroups, devices) as text that is always valid UTF-8, and their hash. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"

/*
 * The length of the well-formed UTF-8 character at s (at most n bytes) and
 * its code point in *cpp (if not NULL); 0 for a stray or truncated byte, an
 * overlong form, a surrogate or a code point past U+10FFFF.
 */
size_t
name_utf8_char(const char *s, size_t n, uint32_t *cpp)
{
	const unsigned char	*u = (const unsigned char *)s;
	size_t			 len, i;
	uint32_t		 cp;

	if (n == 0)
		return (0);
	if (u[0] < 0x80) {
		cp = u[0];
		len = 1;
		goto done;
	}
	if (u[0] >= 0xc2 && u[0] <= 0xdf) {
		len = 2;
		cp = u[0] & 0x1f;
	} else if (u[0] >= 0xe0 && u[0] <= 0xef) {
		len = 3;
		cp = u[0] & 0x0f;
	} else if (u[0] >= 0xf0 && u[0] <= 0xf4) {
		len = 4;
		cp = u[0] & 0x07;
	} else
		return (0);
	if (len > n)
		return (0);
	for (i = 1; i < len; i++) {
		if ((u[i] & 0xc0) != 0x80)
			return (0);
		cp = (cp << 6) | (u[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return (0);
done:
	if (cpp != NULL)
		*cpp = cp;
	return (len);
}

/*
 * Whether a code point changes how the text around it reads without showing
 * itself: bidirectional overrides, embeddings and isolates (U+202E turns
 * "x\u202Etxt.exe" into "xexe.txt"), zero-width spaces and joiners, the
 * byte order mark, and the line and paragraph separators U+2028/U+2029
 * (valid in JSON, but a reader that splits lines as Unicode does breaks a
 * JSON line at them). Text outputs show them as '?'; JSON as \uXXXX.
 */
int
name_utf8_invisible(uint32_t cp)
{
	return (cp == 0x061c || cp == 0x180e || (cp >= 0x200b && cp <= 0x200f) ||
	    (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2060 && cp <= 0x2069) ||
	    cp == 0xfeff);
}

/*
 * The length of the UTF-8 character at s (at most n bytes) if it is well
 * formed and printable: 1 for printable ASCII, 2-4 for a multibyte
 * character; 0 for a control (C0, DEL, or C1: U+0080..U+009F, which a
 * terminal may take as CSI and the like), an invisible code point
 * (name_utf8_invisible), a stray or truncated byte, an overlong form or a
 * surrogate. Names from the kernel or a file go to text output through this.
 */
size_t
name_utf8_printable(const char *s, size_t n)
{
	uint32_t	 cp;
	size_t		 k;

	if ((k = name_utf8_char(s, n, &cp)) == 0 || cp < 0x20 || (cp >= 0x7f && cp < 0xa0) ||
	    name_utf8_invisible(cp))
		return (0);
	return (k);
}

/*
 * The next character of a name as text (n > 0 bytes at s): its length (1 to
 * 4), with *shown 1 if it is printable (name_utf8_printable) and shown as itself,
 * 0 if it is shown as one '?': a control, an invisible character, or a byte
 * of no character (length 1). The one rule of every text output, for
 * name_text and the writers that escape as they go (CSV, HTML).
 */
size_t
name_text_char(const char *s, size_t n, int *shown)
{
	size_t	 k;

	if ((k = name_utf8_printable(s, n)) > 0) {
		*shown = 1;
		return (k);
	}
	*shown = 0;
	/* A whole invisible character is one '?'; a bad byte is one too. */
	return ((k = name_utf8_char(s, n, NULL)) == 0 ? 1 : k);
}

/*
 * A name (n bytes at most, up to a NUL) as text for a terminal or a text
 * file (-b, the UI, messages): name_text_char's, each character kept or one
 * '?', so that no name can move the cursor, retitle a terminal or read as
 * another (doc/blktop.8, NAMES). Into out, NUL-terminated, cut to outlen at
 * a character's end; out may be in itself (the text is never longer).
 * Returns the length written.
 */
size_t
name_text(char *out, size_t outlen, const char *in, size_t n)
{
	size_t	 i = 0, k, used = 0;
	int	 shown;

	if (outlen == 0)
		return (0);
	n = strnlen(in, n);
	while (i < n) {
		k = name_text_char(in + i, n - i, &shown);
		if (used + (shown ? k : 1) >= outlen)
			break;
		if (shown)
			memmove(out + used, in + i, k);
		else
			out[used] = '?';	/* after the length: out may be in */
		used += shown ? k : 1;
		i += k;
	}
	out[used] = '\0';
	return (used);
}

/* Put one byte into out if it fits (room kept for the NUL). */
static void
name_put(char *out, size_t outlen, size_t *used, char c)
{
	if (*used + 1 < outlen)
		out[*used] = c;
	(*used)++;
}

/*
 * A name (n bytes at most, up to a NUL) as valid UTF-8 that says what its
 * bytes said (doc/blktop.8, NAMES): well-formed UTF-8 is copied as it is; a
 * byte that is no part of a well-formed character becomes \XHH (uppercase X,
 * two uppercase hex digits); and so that this can be undone, a run of
 * backslashes just before an X (or before such an escape) is written twice
 * as long. Nothing else changes: systemd's "\x2d" stays "\x2d". With
 * strict, each byte of a character that is not printable (name_utf8_printable: a
 * control, an invisible character) is escaped as well, for a format that has
 * no escape of its own for them. Into out, NUL-terminated and cut to outlen;
 * returns the length the whole needs.
 */
static size_t
name_escape_how(char *out, size_t outlen, const char *in, size_t n, int strict)
{
	static const char	 hex[] = "0123456789ABCDEF";
	size_t			 i = 0, j, k, used = 0, run;
	unsigned char		 c;

	n = strnlen(in, n);
	while (i < n) {
		if (in[i] == '\\') {
			for (j = i; j < n && in[j] == '\\'; j++)
				;
			run = j - i;
			if (j < n && (in[j] == 'X' || (strict ? name_utf8_printable(in + j, n - j) :
			    name_utf8_char(in + j, n - j, NULL)) == 0))
				run *= 2;
			for (k = 0; k < run; k++)
				name_put(out, outlen, &used, '\\');
			i = j;
			continue;
		}
		if ((k = name_utf8_char(in + i, n - i, NULL)) == 0 ||
		    (strict && name_utf8_printable(in + i, n - i) == 0)) {
			for (j = 0; j < (k == 0 ? 1 : k); j++) {
				c = (unsigned char)in[i + j];
				name_put(out, outlen, &used, '\\');
				name_put(out, outlen, &used, 'X');
				name_put(out, outlen, &used, hex[c >> 4]);
				name_put(out, outlen, &used, hex[c & 0xf]);
			}
			i += k == 0 ? 1 : k;
			continue;
		}
		for (j = 0; j < k; j++)
			name_put(out, outlen, &used, in[i + j]);
		i += k;
	}
	if (outlen > 0)
		out[used < outlen ? used : outlen - 1] = '\0';
	return (used);
}

/* name_escape_how, leaving printable and unprintable characters as they are (JSON escapes the latter itself). */
size_t
name_escape(char *out, size_t outlen, const char *in, size_t n)
{
	return (name_escape_how(out, outlen, in, n, 0));
}

/* name_escape into a new string, freed by the caller. */
char *
name_escape_dup(const char *in, size_t n)
{
	size_t	 len;
	char	*out;

	len = name_escape(NULL, 0, in, n);
	out = xmalloc(len + 1);
	name_escape(out, len + 1, in, n);
	return (out);
}

/*
 * name_escape_how with strict into a new string, freed by the caller: for
 * the metrics' label values, whose format escapes only \, " and newline
 * (an ESC in a cgroup's name went raw to whoever reads /metrics).
 */
char *
name_escape_strict_dup(const char *in, size_t n)
{
	size_t	 len;
	char	*out;

	len = name_escape_how(NULL, 0, in, n, 1);
	out = xmalloc(len + 1);
	name_escape_how(out, len + 1, in, n, 1);
	return (out);
}

/*
 * A name as a JSON string (n bytes at most, up to a NUL): name_escape's text,
 * with JSON's own escapes for the quote, the backslash, the C0 and C1
 * controls, DEL and the invisible code points (name_utf8_invisible). The output
 * is ASCII but for the name's own printable characters: valid UTF-8.
 */
void
name_json(FILE *f, const char *s, size_t n)
{
	char		*e, *p;
	size_t		 k, len;
	uint32_t	 cp;

	e = name_escape_dup(s, n);
	len = strlen(e);
	fputc('"', f);
	for (p = e; *p != '\0'; p += k) {
		k = name_utf8_char(p, len - (size_t)(p - e), &cp);
		if (k == 0)
			k = 1;	/* cannot happen: name_escape's output is well formed */
		if (cp == '"' || cp == '\\')
			fprintf(f, "\\%c", (char)cp);
		else if (cp == '\n')
			fputs("\\n", f);
		else if (cp == '\t')
			fputs("\\t", f);
		else if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0) || name_utf8_invisible(cp))
			fprintf(f, "\\u%04x", (unsigned)cp);
		else
			fwrite(p, 1, k, f);
	}
	fputc('"', f);
	free(e);
}

/*
 * A table key of n bytes from a basis varied by seed: eight bytes a step
 * (each a multiply and a fold), the last 1-8 bytes (two loads) with their
 * count, and a final mix. It was FNV-1a, a byte a step: a multiply's latency per byte,
 * about 90 ns for an 80-byte path, paid by every read/write record (the
 * model finds a call's file by its path's hash).
 */
uint64_t
name_hash(const void *p, size_t n, uint64_t seed)
{
	const unsigned char	*s = p;
	uint64_t		 h = 0xcbf29ce484222325ULL ^ seed, w;

	for (; n > 8; s += 8, n -= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
		h ^= h >> 29;
	}
	if (n >= 4) {		/* two loads of four, overlapping below 8 */
		uint32_t a, b;

		memcpy(&a, s, 4);
		memcpy(&b, s + n - 4, 4);
		w = (uint64_t)a | (uint64_t)b << 32;
	} else if (n > 0)
		w = (uint64_t)s[0] | (uint64_t)s[n / 2] << 8 | (uint64_t)s[n - 1] << 16;
	else
		w = 0;
	h = (h ^ w ^ (uint64_t)n << 59) * 0x9e3779b97f4a7c15ULL;
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	return (h);
}
