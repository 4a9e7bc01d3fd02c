/* capture-write.c: the capture file writer: header, then chunks as they seal. */

#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base.h"
#include "capture-file.h"
#include "capture.h"

/* The file writer. */
struct capture {
	struct capture_enc	*enc;
	int			 fd;
	char			*path;
	char			*error;
	uint64_t		 records;
	uint64_t		 chunks;
	uint64_t		 bytes;
};

/* Give the caller an error message, if it wants one. */
void
capture_seterr(char **errp, const char *fmt, ...)
{
	va_list	 ap;
	char	 buf[1024];

	if (errp == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	*errp = xstrdup(buf);
}

/* Write all of a buffer, retrying short writes. */
static int
capture_write_all(int fd, const u_char *p, size_t len)
{
	ssize_t	 n;

	while (len > 0) {
		n = write(fd, p, len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			return (-1);
		if (n == 0) {
			errno = ENOSPC;
			return (-1);
		}
		p += n;
		len -= n;
	}
	return (0);
}

/* Put the writer into the failed state with the error in errno. */
static void
capture_fail(struct capture *w, const char *what)
{
	if (w->error == NULL)
		xasprintf(&w->error, "%s: %s: %s", w->path, what,
		    strerror(errno));
}

/* Encoder sink of the writer: write one chunk to the file. */
void
capture_write_chunk(void *arg, const u_char *p, size_t len,
    __unused uint64_t stamp)
{
	struct capture	*w = arg;

	if (w->error != NULL)
		return;
	if (capture_write_all(w->fd, p, len) != 0) {
		capture_fail(w, "write");
		return;
	}
	w->chunks++;
	w->bytes += len;
}

/* Wall-clock ns minus CLOCK_MONOTONIC ns, now. */
int64_t
capture_clock_offset(void)
{
	struct timespec	 m0, r, m1;
	uint64_t	 mono, real;

	clock_gettime(CLOCK_MONOTONIC, &m0);
	clock_gettime(CLOCK_REALTIME, &r);
	clock_gettime(CLOCK_MONOTONIC, &m1);
	mono = ((uint64_t)m0.tv_sec * NSEC_PER_SEC + m0.tv_nsec +
	    (uint64_t)m1.tv_sec * NSEC_PER_SEC + m1.tv_nsec) / 2;
	real = (uint64_t)r.tv_sec * NSEC_PER_SEC + r.tv_nsec;
	return ((int64_t)(real - mono));
}

/* Create a capture file (no overwrite, no link followed) with its header. */
struct capture *
capture_create(const char *path, const struct capture_header *hdr,
    char **errp)
{
	struct capture	*w;
	u_char		*buf;
	size_t		 len;
	int		 fd;

	fd = open(path, O_WRONLY|O_CREAT|O_EXCL|O_NOFOLLOW|O_CLOEXEC, 0600);
	if (fd == -1) {
		capture_seterr(errp, "%s: %s", path, strerror(errno));
		return (NULL);
	}
	len = capture_header_build(hdr, &buf);
	if (capture_write_all(fd, buf, len) != 0) {
		capture_seterr(errp, "%s: write: %s", path, strerror(errno));
		free(buf);
		close(fd);
		return (NULL);
	}
	free(buf);

	w = xcalloc(1, sizeof *w);
	w->fd = fd;
	w->path = xstrdup(path);
	w->bytes = len;
	w->enc = capture_enc_create(capture_write_chunk, w);
	return (w);
}

/* Add one record; no allocation and, until a chunk fills, no system call. */
int
capture_add(struct capture *w, const void *rec, size_t len)
{
	if (w->error != NULL || len < 4 || len > CAPTURE_REC_MAX)
		return (-1);
	capture_enc_add(w->enc, rec, len);
	if (w->error != NULL)
		return (-1);
	w->records++;
	return (0);
}

/* Write the partial chunk: called about once a second. */
int
capture_flush(struct capture *w)
{
	if (w->error == NULL)
		capture_enc_seal(w->enc);
	return (w->error != NULL ? -1 : 0);
}

/* The error that put the writer into the failed state, or NULL. */
const char *
capture_error(struct capture *w)
{
	return (w->error);
}

/* Counters of a writer. */
void
capture_writer_stats(struct capture *w, uint64_t *records, uint64_t *chunks,
    uint64_t *bytes)
{
	*records = w->records;
	*chunks = w->chunks;
	*bytes = w->bytes;
}

/* Flush, close and free a writer; -1 if it failed at any point. */
int
capture_close(struct capture *w)
{
	int	 rv;

	capture_flush(w);
	if (close(w->fd) != 0)
		capture_fail(w, "close");
	rv = (w->error != NULL) ? -1 : 0;
	capture_enc_free(w->enc);
	free(w->error);
	free(w->path);
	free(w);
	return (rv);
}
