/* stream.c: the one entry point every source hands its event records to. */

#include <math.h>
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

/* Whether the -p, -c and --cgroup filters keep a process (none keeps all). */
int
stream_proc_wanted(const struct blktop *b, uint32_t tgid, const char *comm,
    uint64_t cgroup)
{
	unsigned	 i;
	int		 ok;

	if (b->cgroup_id != 0 && cgroup != b->cgroup_id)
		return (0);
	if (b->ntgids > 0) {
		for (i = 0, ok = 0; i < b->ntgids && !ok; i++)
			ok = b->tgids[i] == tgid;
		if (!ok)
			return (0);
	}
	if (b->ncomms > 0) {
		for (i = 0, ok = 0; i < b->ncomms && !ok; i++)
			ok = strncmp(b->comms[i], comm, BLKTOP_COMM_LEN) == 0;
		if (!ok)
			return (0);
	}
	return (1);
}

/*
 * Tick length and ring size from the report interval: ticks of at most a
 * second, a report spans a whole number of them, and the ring holds
 * history_secs and at least one report more than the open tick.
 */
void
stream_set_ticks(struct blktop *b, double history_secs)
{
	b->tick_ns = b->interval < 1 ? (uint64_t)(b->interval * 1e9) : NSEC_PER_SEC;
	b->ticks_per_report = (unsigned)llround(b->interval * 1e9 / (double)b->tick_ns);
	if (b->ticks_per_report == 0)
		b->ticks_per_report = 1;
	b->nticks = (unsigned)ceil(history_secs * 1e9 / (double)b->tick_ns);
	if (b->nticks < b->ticks_per_report + 1)
		b->nticks = b->ticks_per_report + 1;
}

/* An open or read/write record into the process tables, if the filters keep it. */
static int
stream_proc_record(struct blktop *b, const void *rec, size_t len, uint32_t tgid,
    const char *comm, uint64_t cgroup)
{
	b->events++;
	if (b->procs != NULL && stream_proc_wanted(b, tgid, comm, cgroup) &&
	    proc_add(b->procs, rec, len) < 0) {
		b->bad_records++;
		return (-1);
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
	record_event(b, rec, len);	/* the capture gets exactly what the windows get */
	switch (type) {
	case EV_BLOCK: {
		const struct ev_block *ev = rec;

		if (len < sizeof *ev)
			break;
		b->events++;
		b->block_events++;
		if (stream_dev_wanted(b, ev->dev)) {
			windows_add_block(&b->win, ev);
			if (b->procs != NULL && stream_proc_wanted(b, ev->tgid,
			    ev->comm, ev->cgroup))
				proc_add_block(b->procs, ev);
		}
		return (0);
	}
	case EV_TICK: {
		const struct ev_tick *ev = rec;

		if (len < sizeof *ev)
			break;
		windows_tick(&b->win, ev->ts);
		record_tick(b, ev->ts);
		batch_report(b, ev->ts);
		ui_tick(b);
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
	case EV_OPEN: {
		const struct ev_open *ev = rec;

		if (len < sizeof *ev)
			break;
		return (stream_proc_record(b, rec, len, ev->tgid, ev->comm, ev->cgroup));
	}
	case EV_RW: {
		const struct ev_rw *ev = rec;

		if (len < sizeof *ev)
			break;
		return (stream_proc_record(b, rec, len, ev->tgid, ev->comm, ev->cgroup));
	}
	default:
		/* Record types of later versions: skipped, not fatal. */
		return (0);
	}
	b->bad_records++;
	return (-1);
}
