/* log.c: fatal errors, warnings and checked allocators. */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blktop.h"

const char *log_prog = "blktop";

/* Hook run before a fatal message is printed (the UI restores the terminal). */
void (*log_fatal_hook)(void);

/* Print one line prefixed with the program name, with an optional errno text. */
static void __attribute__((format(printf, 1, 0)))
log_vprint(const char *fmt, va_list ap, int err)
{
	fprintf(stderr, "%s: ", log_prog);
	vfprintf(stderr, fmt, ap);
	if (err)
		fprintf(stderr, ": %s", strerror(err));
	fputc('\n', stderr);
}

/* Print a message with the errno text and exit. */
void
fatal(const char *fmt, ...)
{
	int	 err = errno;
	va_list	 ap;

	if (log_fatal_hook != NULL)
		log_fatal_hook();
	va_start(ap, fmt);
	log_vprint(fmt, ap, err);
	va_end(ap);
	exit(1);
}

/* Print a message and exit. */
void
fatalx(const char *fmt, ...)
{
	va_list	 ap;

	if (log_fatal_hook != NULL)
		log_fatal_hook();
	va_start(ap, fmt);
	log_vprint(fmt, ap, 0);
	va_end(ap);
	exit(1);
}

/* Print a warning and go on. */
void
log_warnx(const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	log_vprint(fmt, ap, 0);
	va_end(ap);
}

/* malloc that never returns NULL. */
void *
xmalloc(size_t size)
{
	void	*p;

	if (size == 0)
		size = 1;
	if ((p = malloc(size)) == NULL)
		fatal("malloc %zu", size);
	return (p);
}

/* calloc that never returns NULL. */
void *
xcalloc(size_t n, size_t size)
{
	void	*p;

	if (n == 0 || size == 0)
		n = size = 1;
	if ((p = calloc(n, size)) == NULL)
		fatal("calloc %zu x %zu", n, size);
	return (p);
}

/* reallocarray that never returns NULL. */
void *
xreallocarray(void *old, size_t n, size_t size)
{
	void	*p;

	if (n == 0 || size == 0)
		n = size = 1;
	if (size != 0 && n > SIZE_MAX / size)
		fatalx("reallocarray %zu x %zu: overflow", n, size);
	if ((p = realloc(old, n * size)) == NULL)
		fatal("realloc %zu x %zu", n, size);
	return (p);
}

/*
 * The length of the UTF-8 character at s (at most n bytes) if it is well
 * formed and printable: 1 for printable ASCII, 2-4 for a multibyte
 * character; 0 for a control (C0, DEL, or C1: U+0080..U+009F, which a
 * terminal may take as CSI and the like), a stray or truncated byte, an
 * overlong form or a surrogate. Names from the kernel or a file go to text
 * output through this.
 */
size_t
utf8_printable(const char *s, size_t n)
{
	const unsigned char	*u = (const unsigned char *)s;
	size_t			 len, i;
	unsigned char		 lo = 0x80, hi = 0xbf;

	if (n == 0)
		return (0);
	if (u[0] < 0x80)
		return (u[0] >= 0x20 && u[0] != 0x7f);
	if (u[0] >= 0xc2 && u[0] <= 0xdf)
		len = 2;
	else if (u[0] >= 0xe0 && u[0] <= 0xef)
		len = 3;
	else if (u[0] >= 0xf0 && u[0] <= 0xf4)
		len = 4;
	else
		return (0);
	if (u[0] == 0xc2)
		lo = 0xa0;	/* C1 controls: U+0080..U+009F */
	else if (u[0] == 0xe0)
		lo = 0xa0;	/* overlong */
	else if (u[0] == 0xed)
		hi = 0x9f;	/* surrogates */
	else if (u[0] == 0xf0)
		lo = 0x90;	/* overlong */
	else if (u[0] == 0xf4)
		hi = 0x8f;	/* past U+10FFFF */
	if (n < len || u[1] < lo || u[1] > hi)
		return (0);
	for (i = 2; i < len; i++) {
		if (u[i] < 0x80 || u[i] > 0xbf)
			return (0);
	}
	return (len);
}

/* strdup that never returns NULL. */
char *
xstrdup(const char *s)
{
	char	*p;

	if ((p = strdup(s)) == NULL)
		fatal("strdup");
	return (p);
}

/* asprintf that never fails. */
int
xasprintf(char **ret, const char *fmt, ...)
{
	va_list	 ap;
	int	 n;

	va_start(ap, fmt);
	n = vasprintf(ret, fmt, ap);
	va_end(ap);
	if (n < 0)
		fatal("asprintf");
	return (n);
}
