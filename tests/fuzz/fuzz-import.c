/* fuzz-import.c: fuzz the text log importer (standalone, like fuzz-capture): the import fixtures, mutated, through import_open and import_next. */

#include <glob.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blktop.h"
#include "fuzz.h"

static char		 fuzz_path[] = "/tmp/fuzz-import-XXXXXX";
static FILE		*fuzz_stderr = NULL;	/* the real one: the importer's warnings go to /dev/null */

/* Whether a record has the length its type and path lengths say. */
static int
fuzz_rec_ok(const void *rec, size_t len)
{
	union {
		struct ev_open	 open;
		struct ev_fop	 fop;
		struct ev_rw	 rw;
	} u;
	uint32_t	 type;
	size_t		 i;

	if (len < sizeof type)
		return (0);
	memcpy(&type, rec, sizeof type);
	memcpy(&u, rec, len < sizeof u ? len : sizeof u);
	switch (type) {
	case EV_BLOCK:
		return (len == sizeof(struct ev_block));
	case EV_LOST:
		return (len == sizeof(struct ev_lost));
	case EV_OPEN:
		return (len >= sizeof u.open && u.open.path_len < VFS_PATH_MAX &&
		    len == EV_OPEN_SIZE(u.open.path_len) &&
		    ((const char *)rec)[len - 1] == '\0');
	case EV_RW:
		return (len >= sizeof u.rw && u.rw.path_len < VFS_PATH_MAX &&
		    len == EV_RW_SIZE(u.rw.path_len) &&
		    ((const char *)rec)[len - 1] == '\0');
	case EV_FOP:
		/* path, NUL, path2 (empty), NUL, and nothing but zeros to the end. */
		if (len < sizeof u.fop || u.fop.path_len >= VFS_PATH_MAX ||
		    u.fop.path2_len != 0 || len != EV_FOP_SIZE(u.fop.path_len, 0) ||
		    (u.fop.path_len == 0) != ((u.fop.path_flags & VFS_PF_NOPATH) != 0))
			return (0);
		for (i = offsetof(struct ev_fop, path) + u.fop.path_len; i < len; i++) {
			if (((const char *)rec)[i] != '\0')
				return (0);
		}
		return (memchr((const char *)rec + offsetof(struct ev_fop, path), '\0',
		    u.fop.path_len) == NULL);
	default:
		return (0);
	}
}

/* Say why an input failed, keep it as fuzz-import-crash.txt, abort. */
static void
fuzz_fail(const uint8_t *data, size_t size, const char *why)
{
	FILE	*f;

	fprintf(fuzz_stderr, "FAIL: fuzz-import: %s (input kept in "
	    "fuzz-import-crash.txt)\n", why);
	if ((f = fopen("fuzz-import-crash.txt", "w")) != NULL) {
		fwrite(data, 1, size, f);
		fclose(f);
	}
	abort();
}

/* Import one input as a file, checking what the importer promises. */
static void
fuzz_import(const uint8_t *data, size_t size)
{
	static uint64_t			 rec[(CAPTURE_REC_MAX + 7) / 8];
	const struct import_counts	*c;
	struct import			*im;
	struct ev_tick			 t;
	struct ev_lost			 l;
	uint64_t			 n = 0, lost = 0, last_tick = 0;
	uint32_t			 type;
	size_t				 len;
	char				*err = NULL;
	FILE				*f;

	if ((f = fopen(fuzz_path, "w")) == NULL || fwrite(data, 1, size, f) != size ||
	    fclose(f) != 0)
		fatal("%s", fuzz_path);
	if ((im = import_open(fuzz_path, &err)) == NULL) {
		if (err == NULL || strchr(err, '\n') != NULL)
			fuzz_fail(data, size, "refused without a one-line error");
		free(err);
		return;
	}
	c = import_counts(im);
	if (c->records == 0 || (c->malformed != 0) != (c->first_malformed != 0))
		fuzz_fail(data, size, "counts");
	while (import_next(im, rec, sizeof rec, &len) == 1) {
		if (!fuzz_rec_ok(rec, len)) {
			memcpy(&type, rec, sizeof type);
			if (type != EV_TICK || len != sizeof t)
				fuzz_fail(data, size, "a malformed record");
			memcpy(&t, rec, sizeof t);
			if (t.ts <= last_tick && last_tick != 0)
				fuzz_fail(data, size, "ticks out of order");
			last_tick = t.ts;
			continue;
		}
		memcpy(&type, rec, sizeof type);
		if (type == EV_LOST) {
			memcpy(&l, rec, sizeof l);
			lost += l.count;
		} else
			n++;
	}
	/* Every valid line a record, but a time alignment log's (none at all). */
	if (n == 0 ? lost != 0 : n != c->records || lost != c->lost)
		fuzz_fail(data, size, "records or lost events not as counted");
	import_close(im);
}

/* The fuzz target. */
int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_import(data, size);
	return (0);
}

/* Pieces of the formats a mutation puts in. */
static const char *fuzz_words[] = {
	" ", "\t", "\n", "-", "0x", "0", "-2", "-2147483649", "4294967296",
	"18446744073709551615", "18446744073709551616", "0xfffffffffffffff3",
	"mkdir()", "rmdir()", "unlink()", "mmap():\n", "munmap():\n",
	"Lost 18446744073709551615 events\n", "Lost 7 events\n", "WARNING: x\n",
	"TIMESTAMP TIME\n", "TIMESTAMP PID FD LAT(ns) FILENAME FULLPATH",
	"TIMESTAMP PID FD LAT(ns) RET\n", "23:59:59", "00:00:00", "24:00:00",
	"12:00:00.123456789012", "2024-03-01T10:00:00.5", "0000-01-01T00:00:00",
	"9999-12-31 23:59:59", "/", "a b", "//", "\0",
};

/* Mutate a copy of a corpus input. */
static size_t
fuzz_mutate(const struct fuzz_input *in, unsigned char *out, size_t max)
{
	const char	*w;
	size_t		 len, i, n, at, k;

	len = in->len < max ? in->len : max;
	memcpy(out, in->data, len);
	n = 1 + fuzz_rand() % 8;
	for (i = 0; i < n; i++) {
		at = len > 0 ? fuzz_rand() % (len + 1) : 0;
		switch (fuzz_rand() % 6) {
		case 0:		/* a random byte */
			if (at < len)
				out[at] = fuzz_rand();
			break;
		case 1:		/* cut */
			len = at;
			break;
		case 2:		/* delete a run */
			k = fuzz_rand() % (len - at + 1);
			if (k > 32)
				k = 32;
			memmove(out + at, out + at + k, len - at - k);
			len -= k;
			break;
		case 3:		/* a word of the formats */
		case 4:
			w = fuzz_words[fuzz_rand() % nitems(fuzz_words)];
			k = *w == '\0' ? 1 : strlen(w);
			if (len + k <= max) {
				memmove(out + at + k, out + at, len - at);
				memcpy(out + at, w, k);
				len += k;
			}
			break;
		case 5:		/* a digit changed */
			if (at < len && out[at] >= '0' && out[at] <= '9')
				out[at] = '0' + fuzz_rand() % 10;
			break;
		}
	}
	return (len);
}

/* The import fixtures, before the files named. */
static void
fuzz_import_load(void)
{
	glob_t	 g;
	size_t	 i;

	if (glob(TEST_FIXTURES "/import-*.txt", 0, NULL, &g) == 0) {
		for (i = 0; i < g.gl_pathc; i++)
			fuzz_load_file(g.gl_pathv[i]);
		globfree(&g);
	}
}

/* The file each input is written to; the importer's warnings to /dev/null. */
static void
fuzz_import_start(void)
{
	int	 fd;

	if (fuzz_ninputs == 0)
		fatalx("no input: no %s/import-*.txt", TEST_FIXTURES);
	if ((fd = mkstemp(fuzz_path)) == -1)
		fatal("mkstemp");
	close(fd);
	/* Sanitizer reports go to fd 2 still; the importer's warnings nowhere. */
	fuzz_stderr = stderr;
	if ((stderr = fopen("/dev/null", "w")) == NULL)
		stderr = fuzz_stderr;
}

/* The input's file removed, stderr back. */
static void
fuzz_import_end(void)
{
	unlink(fuzz_path);
	if (stderr != fuzz_stderr)
		fclose(stderr);
	stderr = fuzz_stderr;
}

static const struct fuzz_target fuzz_import_target = {
	.name = "fuzz-import",
	.usage = "[-s seed] [-t seconds] [file...]",
	.optstring = "",
	.load = fuzz_import_load,
	.start = fuzz_import_start,
	.end = fuzz_import_end,
	.one = fuzz_import,
	.mutate = fuzz_mutate,
	.batch = 100,
};

int
main(int argc, char **argv)
{
	return (fuzz_main(argc, argv, &fuzz_import_target));
}
