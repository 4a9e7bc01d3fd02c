/* source-diskstat.c: the kernel's own accounting of each whole disk (/proc/diskstats), sampled per tick. */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blktop.h"
#include "source-live.h"
#include "stream.h"

/*
 * Busy time (io_ticks), queue time (time_in_queue) and in-flight come from
 * part_stat, as iostat takes them: one read of /proc/diskstats at the start
 * and before every tick closes, one EV_DISKSTAT per whole disk the device
 * filter keeps. The kernel side keeps no count of its own (it kept an
 * in-flight count and a busy stamp, atomics every CPU wrote at every request
 * start and end). Partitions are left out: blktop keys whole disks.
 */

#define DISKSTAT_BUF	(256 * 1024)	/* /proc/diskstats: ~150 bytes a line */

/* Whether dev is a partition: /sys/dev/block/M:m/partition exists; looked up once per device. */
static int
diskstat_is_part(struct diskstat *ds, uint32_t dev)
{
	char		 path[64];
	unsigned	 h, n;

	for (h = (dev * 0x9e3779b1u) >> (32 - DISKSTAT_HASH_BITS), n = 0;
	    n < DISKSTAT_HASH; h = (h + 1) & (DISKSTAT_HASH - 1), n++) {
		if (ds->kind[h].dev == dev && ds->kind[h].known)
			return (ds->kind[h].part);
		if (!ds->kind[h].known)
			break;
	}
	snprintf(path, sizeof path, "/sys/dev/block/%u:%u/partition", DEV_MAJOR(dev),
	    DEV_MINOR(dev));
	if (n == DISKSTAT_HASH)		/* full: ask each time (a thousand disks) */
		return (access(path, F_OK) == 0);
	ds->kind[h].dev = dev;
	ds->kind[h].known = 1;
	ds->kind[h].part = access(path, F_OK) == 0;
	return (ds->kind[h].part);
}

/* Open /proc/diskstats once; -1 (and sampling off) where it cannot be read. */
int
diskstat_open(struct diskstat *ds)
{
	memset(ds, 0, sizeof *ds);
	if ((ds->fd = open("/proc/diskstats", O_RDONLY | O_CLOEXEC)) == -1)
		return (-1);
	ds->buf = xmalloc(DISKSTAT_BUF);
	return (0);
}

/* Close it. */
void
diskstat_close(struct diskstat *ds)
{
	if (ds->fd > 0)
		close(ds->fd);
	free(ds->buf);
	memset(ds, 0, sizeof *ds);
}

/* Parse one line into ev; 0, or -1 for a line not of a disk. */
static int
diskstat_parse(char *line, struct ev_diskstat *ev)
{
	unsigned long long	 f[17];
	unsigned		 maj, mnr;
	char			 name[64];
	int			 n;

	memset(f, 0, sizeof f);
	n = sscanf(line, "%u %u %63s %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu"
	    " %llu %llu %llu %llu %llu %llu", &maj, &mnr, name, &f[0], &f[1], &f[2], &f[3],
	    &f[4], &f[5], &f[6], &f[7], &f[8], &f[9], &f[10], &f[11], &f[12], &f[13],
	    &f[14], &f[15], &f[16]);
	if (n < 14)
		return (-1);
	memset(ev, 0, sizeof *ev);
	ev->type = EV_DISKSTAT;
	ev->dev = (uint32_t)maj << 20 | (mnr & ((1u << 20) - 1));
	/* Completions: reads, writes, then discards (4.18+) and flushes (5.5+). */
	ev->ios = f[0] + f[4] + f[11] + f[15];
	ev->in_flight = (uint32_t)f[8];
	ev->io_ticks_ms = f[9];
	ev->queue_ms = f[10];
	return (0);
}

/*
 * Read every disk's counters now, at ts; diskstat_emit streams them. The
 * live source reads once before its programs load (the first tick's
 * baseline) and streams that read once the sinks run.
 */
void
diskstat_read(struct diskstat *ds, uint64_t ts)
{
	ssize_t		 n;

	ds->pending = 0;
	if (ds->fd <= 0 || (n = pread(ds->fd, ds->buf, DISKSTAT_BUF - 1, 0)) <= 0)
		return;
	ds->buf[n] = '\0';
	ds->ts = ts;
	ds->pending = 1;
}

/* One EV_DISKSTAT per whole disk, from the last read: the stream keeps those the device filter names. */
void
diskstat_emit(struct diskstat *ds, struct blktop *b)
{
	struct ev_diskstat	 ev;
	char			*line, *next;

	if (!ds->pending)
		return;
	ds->pending = 0;
	for (line = ds->buf; line != NULL && *line != '\0'; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		if (diskstat_parse(line, &ev) != 0 || diskstat_is_part(ds, ev.dev))
			continue;
		ev.ts = ds->ts;
		stream_sample(b, &ev);
	}
}

/*
 * A sample of every whole disk, at ts, into the stream (before the tick it
 * closes). Called when the live source drains for a tick; never per event.
 */
void
diskstat_sample(struct diskstat *ds, struct blktop *b, uint64_t ts)
{
	diskstat_emit(ds, b);
	diskstat_read(ds, ts);
	diskstat_emit(ds, b);
}
