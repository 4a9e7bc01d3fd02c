/*
 * stream.h: what the stream's filters (-D, -p, -c, --cgroup) keep of a
 * record, decided once in stream.c and handed to every event sink as its
 * verdict (STREAM_KEEP_*, sinks.h); and the way in for a source's device
 * samples. blktop.h (which this includes) has the rest of stream.c's entry
 * points.
 */
#ifndef BLKTOP_STREAM_H
#define BLKTOP_STREAM_H

#include <stdint.h>

#include "blktop.h"

/* stream.c */
unsigned	 stream_keep(const struct blktop *, const struct rec_type *, const void *rec);
void		 stream_sample(struct blktop *, const struct ev_diskstat *);

#endif /* BLKTOP_STREAM_H */
