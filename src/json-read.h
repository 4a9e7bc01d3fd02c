/*
 * json-read.h: a small reader of JSON text (json-read.c) for --compare, which
 * reads back the -J lines of its replays: the text parsed in place into a
 * flat array of nodes, members found by dotted paths, numbers kept as the
 * very tokens -J wrote.
 */
#ifndef BLKTOP_JSON_READ_H
#define BLKTOP_JSON_READ_H

#include <stddef.h>

enum jr_type { JR_NULL, JR_BOOL, JR_NUM, JR_STR, JR_ARR, JR_OBJ };

struct jr_node {
	enum jr_type	 type;
	const char	*tok;		/* the value's text as written (a string with its quotes) */
	size_t		 len;
	const char	*key;		/* an object member's key, with its quotes; NULL in an array */
	size_t		 keylen;
	int		 child;		/* first member or element, -1 for none */
	int		 next;		/* next sibling, -1 for none */
};

struct jr_doc {
	struct jr_node	*n;
	unsigned	 count, cap;
};

int		 json_read_parse(struct jr_doc *, const char *text, size_t len, char **errp);
void		 json_read_free(struct jr_doc *);
int		 json_read_get(const struct jr_doc *, int node, const char *path);
int		 json_read_num(const struct jr_doc *, int node, double *);
int		 json_read_eq(const struct jr_doc *, int node, const char *s);

#endif
