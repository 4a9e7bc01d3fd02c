/* log.c: fatal errors, warnings and checked allocators. */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"

const char *log_prog = "blktop";

/* Hook run before a fatal message is printed (the UI restores the terminal). */
void (*log_fatal_hook)(void);

/*
 * Print one line prefixed with the program name, with an optional errno
 * text. Messages quote names from the kernel, a capture or a log (a device,
 * a path, a line): the whole line goes through name_text, so that none of
 * them can drive the terminal or break the message into two lines.
 */
static void __attribute__((format(printf, 1, 0)))
log_vprint(const char *fmt, va_list ap, int err)
{
	char	 buf[1024], *s = buf;
	va_list	 aq;
	int	 n;

	va_copy(aq, ap);
	n = vsnprintf(buf, sizeof buf, fmt, aq);
	va_end(aq);
	if (n < 0)
		buf[0] = '\0';
	else if ((size_t)n >= sizeof buf && (s = malloc((size_t)n + 1)) != NULL)
		vsnprintf(s, (size_t)n + 1, fmt, ap);	/* not xmalloc: its failure logs */
	else if (s == NULL)
		s = buf;				/* out of memory: the message cut */
	name_text(s, strlen(s) + 1, s, strlen(s));
	fprintf(stderr, "%s: %s", log_prog, s);
	if (err)
		fprintf(stderr, ": %s", strerror(err));
	fputc('\n', stderr);
	if (s != buf)
		free(s);
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
