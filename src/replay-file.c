/* replay-file.c: the files a replay reads, each opened by the first reader (capture, text log) whose probe of its first bytes claims it. */

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base.h"
#include "replay.h"
#include "capture-file.h"

/* What a reader's probe says of a file from its first bytes. */
enum replay_file_probe {
	REPLAY_FILE_PROBE_NO,		/* not its kind: the next reader's */
	REPLAY_FILE_PROBE_MAYBE,		/* its kind if it opens; else the next reader's */
	REPLAY_FILE_PROBE_YES,		/* its kind: its error if it does not open */
};
#define REPLAY_FILE_PROBE_LEN	64		/* bytes a probe sees */

/* A kind of file replay reads (replay_file_readers): a capture or a text log. */
struct replay_file_reader {
	const char	*name;
	enum replay_file_probe (*probe)(const uint8_t *head, size_t len);
	/* The reader's state, the file's header in *hdrp; NULL with *errp. */
	void		*(*open)(const char *path, int quiet,
			    const struct capture_header **hdrp, char **errp);
	/* The next record: 1, 0 at the end, -1 for one too long for buf. */
	int		 (*next)(void *data, void *buf, size_t size, size_t *lenp);
	/* Close it (path: its file, for what it says), adding what it skipped and lost to the counts. */
	void		 (*close)(void *data, const char *path, uint64_t *skipped,
			    uint64_t *tail_lost);
};

/* An open file of records and the reader of its kind. */
struct replay_file {
	const struct replay_file_reader *reader;
	void			*data;
	const struct capture_header *hdr;
	char			*path;		/* named in what its reader says at close */
};

/* A capture by its magic; one a few bits from it may be a capture with a damaged header. */
static enum replay_file_probe
replay_file_capture_probe(const uint8_t *head, size_t len)
{
	if (capture_header_is_magic(head, len))
		return (REPLAY_FILE_PROBE_YES);
	if (capture_header_near_magic(head, len))
		return (REPLAY_FILE_PROBE_MAYBE);
	return (REPLAY_FILE_PROBE_NO);
}

/* Open a capture; quiet: no word of a damaged header (a reopen). */
static void *
replay_file_capture_open(const char *path, int quiet, const struct capture_header **hdrp,
    char **errp)
{
	struct capture_reader	*cap;

	if ((cap = capture_open(path, errp)) == NULL)
		return (NULL);
	*hdrp = capture_reader_header(cap);
	if (capture_reader_stats(cap)->header_damage != NULL && !quiet)
		log_warnx("%s: %s: replaying the chunks after it (device names, "
		    "host and wall clock unknown)", path,
		    capture_reader_stats(cap)->header_damage);
	return (cap);
}

/* The next record of a capture. */
static int
replay_file_capture_next(void *data, void *buf, size_t size, size_t *lenp)
{
	return (capture_next(data, buf, size, lenp));
}

/* Close a capture, adding what its reader skipped and lost to the counts; a shrink is said of this file alone. */
static void
replay_file_capture_close(void *data, const char *path, uint64_t *skipped,
    uint64_t *tail_lost)
{
	const struct capture_stats	*st = capture_reader_stats(data);

	*skipped += st->skipped;
	*tail_lost += st->tail_lost;
	if (st->shrunk)
		log_warnx("%s: the capture file shrank while it was read: what "
		    "was cut off is counted as skipped or lost", path);
	capture_reader_close(data);
}

/* Any file no other reader claims: a text log is told by its lines (import_open), not its first bytes. */
static enum replay_file_probe
replay_file_import_probe(__unused const uint8_t *head, __unused size_t len)
{
	return (REPLAY_FILE_PROBE_YES);
}

/* Open a text log. */
static void *
replay_file_import_open(const char *path, __unused int quiet,
    const struct capture_header **hdrp, char **errp)
{
	struct import	*im;

	if ((im = import_open(path, errp)) == NULL)
		return (NULL);
	*hdrp = import_header(im);
	return (im);
}

/* The next record of a text log. */
static int
replay_file_import_next(void *data, void *buf, size_t size, size_t *lenp)
{
	return (import_next(data, buf, size, lenp));
}

/* Close a text log (what it skipped import_open counted and said). */
static void
replay_file_import_close(void *data, __unused const char *path,
    __unused uint64_t *skipped, __unused uint64_t *tail_lost)
{
	import_close(data);
}

/* The kinds of file replay reads, asked in order. */
static const struct replay_file_reader replay_file_readers[] = {
	{
		.name = "capture",
		.probe = replay_file_capture_probe,
		.open = replay_file_capture_open,
		.next = replay_file_capture_next,
		.close = replay_file_capture_close,
	},
	{
		.name = "import",
		.probe = replay_file_import_probe,
		.open = replay_file_import_open,
		.next = replay_file_import_next,
		.close = replay_file_import_close,
	},
};

/* Open a file with the first reader whose probe claims it; quiet: no word of a damaged header (a reopen). */
struct replay_file *
replay_file_open(const char *path, int quiet, char **errp)
{
	const struct replay_file_reader	*rd;
	struct replay_file		*f;
	struct stat			 st;
	enum replay_file_probe		 probe;
	uint8_t				 head[REPLAY_FILE_PROBE_LEN];
	char				*err = NULL;
	ssize_t				 len;
	size_t				 i;
	int				 fd;

	/*
	 * A FIFO or a device would block in open() or read forever: look
	 * without blocking first; only regular files are replayed.
	 */
	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) == -1) {
		xasprintf(errp, "%s: %s", path, strerror(errno));
		return (NULL);
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		xasprintf(errp, "%s: not a regular file", path);
		close(fd);
		return (NULL);
	}
	if ((len = pread(fd, head, sizeof head, 0)) == -1) {
		xasprintf(errp, "%s: %s", path, strerror(errno));
		close(fd);
		return (NULL);
	}
	close(fd);
	f = xcalloc(1, sizeof *f);
	for (i = 0; i < nitems(replay_file_readers); i++) {
		rd = &replay_file_readers[i];
		if ((probe = rd->probe(head, (size_t)len)) == REPLAY_FILE_PROBE_NO)
			continue;
		free(err);
		err = NULL;
		if ((f->data = rd->open(path, quiet, &f->hdr, &err)) != NULL) {
			f->reader = rd;
			f->path = xstrdup(path);
			return (f);
		}
		if (probe == REPLAY_FILE_PROBE_YES)
			break;
	}
	free(f);
	if (err == NULL)
		xasprintf(&err, "%s: not a blktop capture file nor a text log "
		    "blktop can import", path);
	*errp = err;
	return (NULL);
}

/* The header of an open file. */
const struct capture_header *
replay_file_header(struct replay_file *f)
{
	return (f->hdr);
}

/* The next record into buf; 1, or 0 at the end (records too long for buf are skipped). */
int
replay_file_next(struct replay_file *f, void *buf, size_t size, size_t *lenp)
{
	int	 r;

	while ((r = f->reader->next(f->data, buf, size, lenp)) < 0)
		continue;
	return (r);
}

/* Close a file, adding what its reader skipped and lost to the counts. */
void
replay_file_close(struct replay_file *f, uint64_t *skipped, uint64_t *tail_lost)
{
	if (f == NULL)
		return;
	f->reader->close(f->data, f->path, skipped, tail_lost);
	free(f->path);
	free(f);
}
