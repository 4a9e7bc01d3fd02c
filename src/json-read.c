/* json-read.c: JSON text parsed into a flat array of nodes (json-read.h), for --compare's reading of -J lines. */

#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "json-read.h"

#define JR_DEPTH	64

struct json_read_parse {
	struct jr_doc	*d;
	const char	*p, *end;
	char		*err;
};

/* Skip white space. */
static void
jr_space(struct json_read_parse *s)
{
	while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' ||
	    *s->p == '\r'))
		s->p++;
}

/* A new node, -1 past INT_MAX nodes. */
static int
jr_new(struct jr_doc *d, enum jr_type t)
{
	if (d->count == d->cap) {
		d->cap = d->cap ? d->cap * 2 : 256;
		d->n = xreallocarray(d->n, d->cap, sizeof *d->n);
	}
	d->n[d->count] = (struct jr_node){ .type = t, .child = -1, .next = -1 };
	return ((int)d->count++);
}

/* A string's end (past its closing quote), or NULL. */
static const char *
jr_string_end(const char *p, const char *end)
{
	for (p++; p < end; p++) {
		if (*p == '\\')
			p++;
		else if (*p == '"')
			return (p + 1);
	}
	return (NULL);
}

static int jr_value(struct json_read_parse *, int depth);

/* The members or elements of the object or array at node i, up to close. */
static int
jr_members(struct json_read_parse *s, int i, int obj, int depth)
{
	const char	*key = NULL, *e;
	size_t		 keylen = 0;
	int		 last = -1, c;
	char		 close = obj ? '}' : ']';

	s->p++;
	jr_space(s);
	if (s->p < s->end && *s->p == close) {
		s->p++;
		return (i);
	}
	for (;;) {
		jr_space(s);
		if (obj) {
			if (s->p >= s->end || *s->p != '"' ||
			    (e = jr_string_end(s->p, s->end)) == NULL)
				return (-1);
			key = s->p;
			keylen = (size_t)(e - s->p);
			s->p = e;
			jr_space(s);
			if (s->p >= s->end || *s->p++ != ':')
				return (-1);
		}
		if ((c = jr_value(s, depth + 1)) < 0)
			return (-1);
		s->d->n[c].key = key;
		s->d->n[c].keylen = keylen;
		if (last < 0)
			s->d->n[i].child = c;
		else
			s->d->n[last].next = c;
		last = c;
		jr_space(s);
		if (s->p < s->end && *s->p == ',') {
			s->p++;
			continue;
		}
		if (s->p < s->end && *s->p == close) {
			s->p++;
			return (i);
		}
		return (-1);
	}
}

/* One value at s->p: its node, or -1. */
static int
jr_value(struct json_read_parse *s, int depth)
{
	const char	*start, *e;
	int		 i;

	jr_space(s);
	if (s->p >= s->end || depth > JR_DEPTH)
		return (-1);
	start = s->p;
	switch (*s->p) {
	case '{':
	case '[':
		i = jr_new(s->d, *s->p == '{' ? JR_OBJ : JR_ARR);
		if (jr_members(s, i, *start == '{', depth) < 0)
			return (-1);
		break;
	case '"':
		if ((e = jr_string_end(s->p, s->end)) == NULL)
			return (-1);
		i = jr_new(s->d, JR_STR);
		s->p = e;
		break;
	default:
		while (s->p < s->end && strchr(",}] \t\r\n", *s->p) == NULL)
			s->p++;
		if (s->p == start)
			return (-1);
		if (strncmp(start, "null", 4) == 0)
			i = jr_new(s->d, JR_NULL);
		else if (strncmp(start, "true", 4) == 0 || strncmp(start, "false", 5) == 0)
			i = jr_new(s->d, JR_BOOL);
		else
			i = jr_new(s->d, JR_NUM);
		break;
	}
	s->d->n[i].tok = start;
	s->d->n[i].len = (size_t)(s->p - start);
	return (i);
}

/* Parse text (kept by the caller: nodes point into it); node 0 is the root. -1 with *errp. */
int
json_read_parse(struct jr_doc *d, const char *text, size_t len, char **errp)
{
	struct json_read_parse	 s = { .d = d, .p = text, .end = text + len };

	memset(d, 0, sizeof *d);
	if (jr_value(&s, 0) < 0) {
		xasprintf(errp, "not JSON at byte %zu", (size_t)(s.p - text));
		return (-1);
	}
	jr_space(&s);
	if (s.p != s.end) {
		xasprintf(errp, "not JSON at byte %zu", (size_t)(s.p - text));
		return (-1);
	}
	return (0);
}

/* Free the nodes. */
void
json_read_free(struct jr_doc *d)
{
	free(d->n);
	memset(d, 0, sizeof *d);
}

/* The member at a dotted path of keys below node, or -1. */
int
json_read_get(const struct jr_doc *d, int node, const char *path)
{
	const char	*dot;
	size_t		 l;
	int		 c;

	while (node >= 0 && *path != '\0') {
		dot = strchr(path, '.');
		l = dot != NULL ? (size_t)(dot - path) : strlen(path);
		if (d->n[node].type != JR_OBJ)
			return (-1);
		for (c = d->n[node].child; c >= 0; c = d->n[c].next) {
			if (d->n[c].keylen == l + 2 && memcmp(d->n[c].key + 1, path, l) == 0)
				break;
		}
		node = c;
		path += l + (dot != NULL);
	}
	return (node);
}

/* A number's value: 1 if node is one, 0 (null, absent or other) if not. */
int
json_read_num(const struct jr_doc *d, int node, double *v)
{
	char	 buf[64];

	if (node < 0 || d->n[node].type != JR_NUM || d->n[node].len >= sizeof buf)
		return (0);
	memcpy(buf, d->n[node].tok, d->n[node].len);
	buf[d->n[node].len] = '\0';
	*v = strtod(buf, NULL);
	return (1);
}

/* Whether node's text (a string's with its quotes) is s. */
int
json_read_eq(const struct jr_doc *d, int node, const char *s)
{
	return (node >= 0 && d->n[node].len == strlen(s) &&
	    memcmp(d->n[node].tok, s, d->n[node].len) == 0);
}
