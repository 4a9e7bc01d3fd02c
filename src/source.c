/* source.c: the source of a run, an instance of one of the source kinds. */

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "blktop.h"

/* A new source of the given kind for this run (not started). */
struct source *
source_create(struct blktop *b, const struct source_entry *entry)
{
	struct source	*src = xcalloc(1, sizeof *src);

	src->entry = entry;
	src->b = b;
	return (src);
}

/* Free a stopped source. */
void
source_free(struct source *src)
{
	free(src);
}

/* A device named as the source knows devices: a recording's table, else this host's. */
int
source_device(struct source *src, const char *arg, uint32_t *dev, char **errp)
{
	*errp = NULL;
	if (src == NULL || src->entry->device == NULL)
		return (device_parse(arg, dev, errp));
	return (src->entry->device(src, arg, dev, errp));
}

/* CLOCK_MONOTONIC in ns: the clock bpf_ktime_get_ns() uses, records carry and replays pace by. */
uint64_t
source_now(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec);
}

/* The HAVE_* bits in order: what each tells, by the name the plan and --probe give it. */
const struct have_entry have_table[HAVE_NBITS] = {
	{ HAVE_FILES, "files", "block requests name their file" },
	{ HAVE_DIRTY, "dirty", "dirtied bytes, writeback charged to the dirtier" },
	{ HAVE_FAULT, "fault", "mmap faults per file and process" },
	{ HAVE_VFS, "calls", "read/write calls per process and file" },
	{ HAVE_URING, "uring", "io_uring reads/writes per process and file" },
	{ HAVE_AIO, "aio", "libaio reads/writes per process and file" },
	{ HAVE_LIFE, "life", "opens, closes, mmaps, unlinks, renames, mkdirs" },
	{ HAVE_MUNMAP, "munmap", "munmaps per process and file" },
	{ HAVE_FSYNC, "fsync", "fsyncs per process and file" },
	{ HAVE_THROTTLE, "throttle", "dirtiers paused by the kernel (writeback throttling)" },
	{ HAVE_TASK, "task", "the process tree: jobs (parents at fork and exec)" },
	{ HAVE_TRUNCATE, "truncate", "truncate and ftruncate calls per process and file" },
};

/* Bit's index in have_table. */
static unsigned
have_index(unsigned bit)
{
	unsigned i;

	for (i = 0; i < HAVE_NBITS - 1; i++) {
		if (have_table[i].bit == bit)
			break;
	}
	return (i);
}

/* Why the source cannot tell what bit stands for; "" if it can, or said nothing. */
const char *
source_have_na(const struct blktop *b, unsigned bit)
{
	return ((b->have & bit) ? "" : b->na[have_index(bit)]);
}

/* Say why the source cannot tell what bit stands for. */
void
source_have_set_na(struct blktop *b, unsigned bit, const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	vsnprintf(b->na[have_index(bit)], sizeof b->na[0], fmt, ap);
	va_end(ap);
}

/* "name (why), name (why)" of the bits off that have a reason, into buf; its length. */
size_t
source_have_na_list(const struct blktop *b, char *buf, size_t size)
{
	size_t	 n = 0;
	unsigned i;

	if (size > 0)
		buf[0] = '\0';
	for (i = 0; i < HAVE_NBITS; i++) {
		const char *why = source_have_na(b, have_table[i].bit);

		if (why[0] == '\0' || n >= size)
			continue;
		n += (size_t)snprintf(buf + n, size - n, "%s%s (%s)", n > 0 ? ", " : "",
		    have_table[i].name, why);
	}
	return (n < size ? n : size - 1);
}
