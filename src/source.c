/* source.c: the source of a run, an instance of one of the source kinds. */

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
