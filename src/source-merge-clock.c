/* source-merge-clock.c: a record of another host's clock moved onto the run's (merge of several hosts). */

#include <stddef.h>
#include <string.h>

#include "base.h"
#include "event.h"
#include "replay.h"

/* Move one CLOCK_MONOTONIC time field by delta ns (0, a time not known, stays 0). */
static void
merge_clock_field(void *rec, size_t len, size_t off, int64_t delta)
{
	uint64_t	 ts;

	if (off + sizeof ts > len)
		return;
	memcpy(&ts, (char *)rec + off, sizeof ts);
	if (ts == 0)
		return;
	ts += (uint64_t)delta;
	memcpy((char *)rec + off, &ts, sizeof ts);
}

/*
 * Move every CLOCK_MONOTONIC time of a record by delta ns: its own time
 * (rec_type's ts_off), and a block request's start and issue, a process's
 * start. Each host's monotonic clock starts at its own boot; moved by the
 * difference of the two files' clock offsets, a record keeps its wall time
 * and the hosts' records share one time axis.
 */
void
merge_clock_move(void *rec, size_t len, int64_t delta)
{
	const struct rec_type	*rt;
	uint32_t		 type;

	if (delta == 0 || len < sizeof type)
		return;
	memcpy(&type, rec, sizeof type);
	if ((rt = rec_type_of(type)) == NULL || len < rt->min_len)
		return;
	merge_clock_field(rec, len, rt->ts_off, delta);
	if (type == EV_BLOCK) {
		merge_clock_field(rec, len, offsetof(struct ev_block, ts_start), delta);
		merge_clock_field(rec, len, offsetof(struct ev_block, ts_issue), delta);
	} else if (type == EV_TASK)
		merge_clock_field(rec, len, offsetof(struct ev_task, start), delta);
}
