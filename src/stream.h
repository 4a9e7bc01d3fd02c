/*
 * stream.h: the stream's filters (-D, -p, -c, --cgroup), inline because
 * they are asked on every record, and their slow path in stream.c. For
 * stream.c and the sinks and views that still ask them; blktop.h (which
 * this includes) has the rest of stream.c's entry points.
 */
#ifndef BLKTOP_STREAM_H
#define BLKTOP_STREAM_H

#include <stdint.h>

#include "blktop.h"

/* Whether the -D filter keeps a device (no filter keeps all): on every record, inline. */
static inline int
stream_dev_wanted(const struct blktop *b, uint32_t dev)
{
	unsigned	 i;

	if (b->opt.ndevs == 0)
		return (1);
	for (i = 0; i < b->opt.ndevs; i++) {
		if (b->opt.devs[i] == dev)
			return (1);
	}
	return (0);
}

/* stream.c, the filters' slow path */
int		 stream_proc_filter(const struct blktop *, uint32_t tgid, const char *comm,
		     uint64_t cgroup);

/* Whether the -p, -c and --cgroup filters keep a process (none keeps all): on every record, inline. */
static inline int
stream_proc_wanted(const struct blktop *b, uint32_t tgid, const char *comm, uint64_t cgroup)
{
	if (b->opt.cgroup_id == 0 && b->opt.ntgids == 0 && b->opt.ncomms == 0)
		return (1);
	return (stream_proc_filter(b, tgid, comm, cgroup));
}

#endif /* BLKTOP_STREAM_H */
