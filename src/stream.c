/* stream.c: the one entry point every source hands its event records to. */

#include <string.h>

#include "blktop.h"

/* Whether the -D filter keeps a device (no filter keeps all). */
int
stream_dev_wanted(const struct blktop *b, uint32_t dev)
{
	unsigned	 i;

	if (b->ndevs == 0)
		return (1);
	for (i = 0; i < b->ndevs; i++) {
		if (b->devs[i] == dev)
			return (1);
	}
	return (0);
}

/*
 * Validate one record and feed it to the windows (and later the capture
 * writer). Records come from the kernel or a file: the size is checked
 * against the type before anything is read. Returns -1 for a bad record.
 */
int
stream_event(struct blktop *b, const void *rec, size_t len)
{
	uint32_t	 type;

	if (len < sizeof type) {
		b->bad_records++;
		return (-1);
	}
	memcpy(&type, rec, sizeof type);
	switch (type) {
	case EV_BLOCK: {
		const struct ev_block *ev = rec;

		if (len < sizeof *ev)
			break;
		b->events++;
		if (stream_dev_wanted(b, ev->dev))
			windows_add_block(&b->win, ev);
		return (0);
	}
	case EV_TICK: {
		const struct ev_tick *ev = rec;

		if (len < sizeof *ev)
			break;
		windows_tick(&b->win, ev->ts);
		batch_report(b, ev->ts);
		return (0);
	}
	case EV_LOST: {
		const struct ev_lost *ev = rec;

		if (len < sizeof *ev)
			break;
		b->lost += ev->count;
		b->lost_report += ev->count;
		return (0);
	}
	default:
		/* Record types of later versions: skipped, not fatal. */
		return (0);
	}
	b->bad_records++;
	return (-1);
}
