/* source-merge.c: several files of one run (captures and logs) as one stream in time order, names joined. */

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "base.h"
#include "replay.h"
#include "capture-file.h"

/* A file of the run and the record it would hand out next. */
struct merge_src {
	struct replay_file	*f;
	const char		*path;
	uint64_t		 head[CAPTURE_REC_MAX / 8 + 1];
	size_t			 len;
	int			 have;
	uint64_t		 key;		/* the head's time (the last one if it has none) */
	uint32_t		*remap_from;	/* its dev_t -> the run's */
	uint32_t		*remap_to;
	unsigned		 nremap;
	uint64_t		 fed;		/* records handed out */
	int			 host;		/* its host (host.h), HOST_NONE: a log's */
	int64_t			 clock_move;	/* ns added to its times: another host's clock */
};

struct merge {
	unsigned		 n;
	struct merge_src	 s[MERGE_MAX_FILES];
	struct capture_header	 hdr;		/* the run's, when n > 1 */
	int			*dev_host;	/* the host of each of hdr's devices */
	int			 last_host;	/* of the record handed out last */
	struct merge_names	*names;
	uint64_t		 tmp[CAPTURE_REC_MAX / 8 + 1];
	uint64_t		 tick_ns;	/* ticks made here, when n > 1 */
	uint64_t		 next_tick;	/* the next tick's time, once started */
	int			 started;
	int			 no_ticks;	/* the next tick would be past 2^64 ns */
	uint64_t		 start;		/* stream time of the run's start */
	int			 any;		/* a record was handed out */
	int			 done;		/* the last tick was handed out */
};

/* The run's number for device dev of file s. */
static uint32_t
merge_remap_dev(const struct merge_src *s, uint32_t dev)
{
	unsigned	 i;

	for (i = 0; i < s->nremap; i++) {
		if (s->remap_from[i] == dev)
			return (s->remap_to[i]);
	}
	return (dev);
}

/* Renumber the devices of a record as the run's table has them. */
static void
merge_remap(const struct merge_src *s, void *rec, size_t len)
{
	const struct rec_type	*rt;
	uint32_t		 type, dev;
	unsigned		 i;

	memcpy(&type, rec, sizeof type);
	if ((rt = rec_type_of(type)) == NULL || len < rt->min_len)
		return;
	for (i = 0; i < nitems(rt->dev_off) && rt->dev_off[i] != 0; i++) {
		memcpy(&dev, (char *)rec + rt->dev_off[i], sizeof dev);
		dev = merge_remap_dev(s, dev);
		memcpy((char *)rec + rt->dev_off[i], &dev, sizeof dev);
	}
}

/* Read file s's next record that is not a tick into its head. */
static void
merge_fill(struct merge *m, struct merge_src *s)
{
	uint32_t	 type;
	uint64_t	 ts;

	while ((s->have = replay_file_next(s->f, s->head, sizeof s->head,
	    &s->len)) == 1) {
		memcpy(&type, s->head, sizeof type);
		if (type == EV_TICK && m->n > 1)
			continue;	/* the run's ticks are made in merge_next */
		merge_clock_move(s->head, s->len, s->clock_move);
		if ((ts = rec_type_ts(s->head, s->len)) != 0)
			s->key = ts;
		if (s->nremap != 0)
			merge_remap(s, s->head, s->len);
		return;
	}
}

/* A free device number for name (of host, if any), of major MERGE_MAJOR. */
static uint32_t
merge_free_dev(const struct capture_header *hdr, const char *name, int host)
{
	uint32_t	 minor, dev;
	unsigned	 i;

	minor = (uint32_t)crc32(0, (const unsigned char *)name,
	    (unsigned)strlen(name));
	if (host_name(host) != NULL)
		minor = (uint32_t)crc32(minor, (const unsigned char *)host_name(host),
		    (unsigned)strlen(host_name(host)));
	minor &= (1u << 20) - 1;
again:
	dev = DEV_MKDEV(MERGE_MAJOR, minor);
	for (i = 0; i < hdr->ndevs; i++) {
		if (hdr->devs[i].dev == dev) {
			minor = (minor + 1) & ((1u << 20) - 1);
			goto again;
		}
	}
	return (dev);
}

/* Whether devices of hosts a and b may be one (same host, or one of no known host: a log). */
static int
merge_same_host(int a, int b)
{
	return (a == b || a == HOST_NONE || b == HOST_NONE);
}

/*
 * The run's device table: a name seen before on the same host (or in a file
 * of no host, a log) is the same device (its number as the first file had
 * it); a number another device holds already is moved to a free one of
 * major MERGE_MAJOR (quietly where that is a device of another host: loop0
 * of every host). Records are renumbered as they pass.
 */
static void
merge_devs(struct merge *m, int quiet)
{
	struct capture_header		*hdr = &m->hdr;
	const struct capture_header	*fh;
	struct merge_src		*s;
	uint32_t			 dev;
	unsigned			 i, d, k;

	for (i = 0; i < m->n; i++) {
		s = &m->s[i];
		fh = replay_file_header(s->f);
		for (d = 0; d < fh->ndevs; d++) {
			dev = fh->devs[d].dev;
			for (k = 0; k < hdr->ndevs; k++) {
				if (strcmp(hdr->devs[k].name, fh->devs[d].name) == 0 &&
				    merge_same_host(m->dev_host[k], s->host))
					break;
			}
			if (k == hdr->ndevs) {
				for (k = 0; k < hdr->ndevs && hdr->devs[k].dev != dev; k++)
					;
				if (k < hdr->ndevs) {
					dev = merge_free_dev(hdr, fh->devs[d].name, s->host);
					if (!quiet && merge_same_host(m->dev_host[k], s->host))
						log_warnx("%s: device %s is %u:%u, which is "
						    "%s in a file before it: renumbered %u:%u",
						    s->path, fh->devs[d].name,
						    DEV_MAJOR(fh->devs[d].dev),
						    DEV_MINOR(fh->devs[d].dev),
						    hdr->devs[k].name, DEV_MAJOR(dev),
						    DEV_MINOR(dev));
				}
				hdr->devs = xreallocarray(hdr->devs, hdr->ndevs + 1,
				    sizeof *hdr->devs);
				hdr->devs[hdr->ndevs].dev = dev;
				memcpy(hdr->devs[hdr->ndevs].name, fh->devs[d].name,
				    DEVNAME_MAX);
				m->dev_host = xreallocarray(m->dev_host, hdr->ndevs + 1,
				    sizeof *m->dev_host);
				m->dev_host[hdr->ndevs++] = s->host;
			} else {
				dev = hdr->devs[k].dev;
				if (m->dev_host[k] == HOST_NONE)
					m->dev_host[k] = s->host;
			}
			if (dev != fh->devs[d].dev) {
				s->remap_from = xreallocarray(s->remap_from,
				    s->nremap + 1, sizeof *s->remap_from);
				s->remap_to = xreallocarray(s->remap_to,
				    s->nremap + 1, sizeof *s->remap_to);
				s->remap_from[s->nremap] = fh->devs[d].dev;
				s->remap_to[s->nremap++] = dev;
			}
		}
	}
}

/* Whether two files recorded the same process filter (a file of 2.0 or a log recorded none). */
static int
merge_same_procs(const struct capture_header *a, const struct capture_header *b)
{
	unsigned	 i;

	if (!a->has_procs || !b->has_procs || a->filter_cgroup != b->filter_cgroup ||
	    a->nfilter_pids != b->nfilter_pids || a->nfilter_comms != b->nfilter_comms)
		return (0);
	for (i = 0; i < a->nfilter_pids; i++) {
		if (a->filter_pids[i] != b->filter_pids[i])
			return (0);
	}
	for (i = 0; i < a->nfilter_comms; i++) {
		if (strncmp(a->filter_comms[i], b->filter_comms[i], BLKTOP_COMM_LEN) != 0)
			return (0);
	}
	return (1);
}

/*
 * The run's header: the first known clock (a warning if another known one
 * is more than a second away), the earliest start, the merged device table,
 * the first interval; the device filter only if every file had one.
 */
static void
merge_header_build(struct merge *m, int quiet)
{
	struct capture_header		*hdr = &m->hdr;
	const struct capture_header	*fh, *first = replay_file_header(m->s[0].f);
	const char			*clock_from = NULL;
	int				 clock_host = HOST_NONE;
	char				*plan, *s;
	uint64_t			 start, fstart;
	int64_t				 d;
	unsigned			 i, k, all_filter = 1;
	int				 warned = 0;

	hdr->major = first->major;
	hdr->minor = first->minor;
	hdr->version = xstrdup(first->version != NULL ? first->version : "");
	hdr->host = xstrdup(first->host != NULL ? first->host : "");
	hdr->kernel = xstrdup(first->kernel != NULL ? first->kernel : "");
	for (i = 0; i < m->n; i++) {
		fh = replay_file_header(m->s[i].f);
		if (!fh->has_clock)
			continue;
		if (clock_from == NULL) {
			clock_from = m->s[i].path;
			clock_host = m->s[i].host;
			hdr->clock_offset = fh->clock_offset;
			hdr->has_clock = 1;
			continue;
		}
		d = fh->clock_offset - hdr->clock_offset;
		/* Another host's clock: its times moved onto the run's, by wall time. */
		if (!merge_same_host(m->s[i].host, clock_host)) {
			m->s[i].clock_move = d;
			continue;
		}
		if ((d > (int64_t)NSEC_PER_SEC || d < -(int64_t)NSEC_PER_SEC) &&
		    !warned++ && !quiet)
			log_warnx("%s: its wall clock is %.3f s from %s's: the run "
			    "takes %s's", m->s[i].path, (double)d / 1e9, clock_from,
			    clock_from);
	}
	/* The earliest start, in stream time; created as the run's clock says. */
	start = UINT64_MAX;
	plan = NULL;
	for (i = 0; i < m->n; i++) {
		fh = replay_file_header(m->s[i].f);
		fstart = (uint64_t)((int64_t)fh->created - fh->clock_offset +
		    m->s[i].clock_move);
		if (fh->created != 0 && fstart < start)
			start = fstart;
		if (hdr->interval_ns == 0)
			hdr->interval_ns = fh->interval_ns;
		if (fh->interval_ns == 0 || fh->nfilter == 0)
			all_filter = 0;
		k = (unsigned)strcspn(fh->plan != NULL ? fh->plan : "", " \n");
		xasprintf(&s, "%s%s%.*s", plan != NULL ? plan : "", plan != NULL ?
		    "," : "", (int)k, fh->plan != NULL ? fh->plan : "");
		free(plan);
		plan = s;
	}
	hdr->plan = plan;
	m->start = start;
	hdr->created = start == UINT64_MAX ? 0 :
	    (uint64_t)((int64_t)start + hdr->clock_offset);
	/* The process filter only if every file recorded the same one. */
	for (i = 0; i < m->n && merge_same_procs(first, replay_file_header(m->s[i].f)); i++)
		;
	if (i == m->n) {
		hdr->has_procs = 1;
		hdr->filter_cgroup = first->filter_cgroup;
		hdr->nfilter_pids = first->nfilter_pids;
		memcpy(hdr->filter_pids, first->filter_pids, sizeof hdr->filter_pids);
		hdr->nfilter_comms = first->nfilter_comms;
		memcpy(hdr->filter_comms, first->filter_comms, sizeof hdr->filter_comms);
	}
	merge_devs(m, quiet);
	if (!all_filter)
		return;
	for (i = 0; i < m->n; i++) {
		fh = replay_file_header(m->s[i].f);
		for (k = 0; k < fh->nfilter; k++) {
			hdr->filter_devs = xreallocarray(hdr->filter_devs,
			    hdr->nfilter + 1, sizeof *hdr->filter_devs);
			hdr->filter_devs[hdr->nfilter++] =
			    merge_remap_dev(&m->s[i], fh->filter_devs[k]);
		}
	}
}

/*
 * Open the files of a run (at most MERGE_MAX_FILES); the first that fails
 * fails it all, *errp naming it. quiet: no warnings (a reopen to seek).
 */
struct merge *
merge_open(const char *const *paths, unsigned n, int quiet, char **errp)
{
	const struct capture_header	*fh = NULL;
	struct merge			*m;
	unsigned			 i;

	*errp = NULL;
	if (n == 0 || n > MERGE_MAX_FILES) {
		xasprintf(errp, "%u files to replay: from 1 to %d", n, MERGE_MAX_FILES);
		return (NULL);
	}
	m = xcalloc(1, sizeof *m);
	m->n = n;
	m->names = merge_names_create();
	m->tick_ns = NSEC_PER_SEC;
	host_reset();
	for (i = 0; i < n; i++) {
		m->s[i].path = paths[i];
		if ((m->s[i].f = replay_file_open(paths[i], quiet, errp)) == NULL) {
			merge_close(m, 0, 0);
			return (NULL);
		}
		fh = replay_file_header(m->s[i].f);
		m->s[i].host = fh->has_host ? host_add(fh->host, fh->labels, fh->nlabels) :
		    HOST_NONE;
	}
	m->last_host = m->s[0].host;
	if (n > 1) {
		merge_header_build(m, quiet);
		for (i = 0; i < m->hdr.ndevs; i++)
			host_set_dev(m->hdr.devs[i].dev, m->dev_host[i]);
		for (i = 0; i < n; i++)
			merge_fill(m, &m->s[i]);
	} else {
		for (i = 0; i < fh->ndevs; i++)
			host_set_dev(fh->devs[i].dev, m->s[0].host);
	}
	return (m);
}

/* The run's header (one file: its own). */
const struct capture_header *
merge_header(struct merge *m)
{
	return (m->n == 1 ? replay_file_header(m->s[0].f) : &m->hdr);
}

/* How many files the run has. */
unsigned
merge_nfiles(struct merge *m)
{
	return (m->n);
}

/* The header of file i as it is in the file. */
const struct capture_header *
merge_file_header(struct merge *m, unsigned i)
{
	return (replay_file_header(m->s[i].f));
}

/* The host of the record merge_next handed out last (a tick: HOST_NONE). */
int
merge_last_host(struct merge *m)
{
	return (m->last_host);
}

/* The tick length of a run of several files (one file keeps its own ticks). */
void
merge_set_tick(struct merge *m, uint64_t tick_ns)
{
	if (tick_ns != 0)
		m->tick_ns = tick_ns;
}

/* Hand out rec as the next record: opens are remembered, reads and writes joined. */
static int
merge_out(struct merge *m, const void *rec, size_t len, void *buf, size_t size,
    size_t *lenp)
{
	uint32_t	 type;
	size_t		 jlen;

	memcpy(&type, rec, sizeof type);
	if (type == EV_OPEN)
		merge_names_open(m->names, rec, len);
	else if ((type == EV_RW || type == EV_FOP) &&
	    merge_names_join(m->names, rec, len, m->tmp, sizeof m->tmp, &jlen) == 1 &&
	    jlen <= size) {
		rec = m->tmp;
		len = jlen;
	}
	if (len > size)
		return (-1);
	if (rec != buf)
		memmove(buf, rec, len);
	*lenp = len;
	return (1);
}

/* The next tick a tick after t; none past 2^64 ns (times near it: a log's, wrapped). */
static void
merge_tick_after(struct merge *m, uint64_t t)
{
	if (t > UINT64_MAX - m->tick_ns)
		m->no_ticks = 1;
	else
		m->next_tick = t + m->tick_ns;
}

/*
 * The run's next record into buf; 1, or 0 at the end. Several files: the
 * head with the earliest time goes first (a file's own order is kept), and a
 * tick is made at every tick_ns from the run's start, a silence of an hour
 * or more taking one, and one after the last record.
 */
int
merge_next(struct merge *m, void *buf, size_t size, size_t *lenp)
{
	struct merge_src	*s, *best;
	uint64_t		 t;
	unsigned		 i;
	int			 r;

	/* One file: exactly what it holds, its ticks, no join (a log has opens or reads, not both). */
	if (m->n == 1) {
		if (replay_file_next(m->s[0].f, buf, size, lenp) != 1)
			return (0);
		m->s[0].fed++;
		return (1);
	}
	for (;;) {
		best = NULL;
		for (i = 0; i < m->n; i++) {
			s = &m->s[i];
			if (s->have && (best == NULL || s->key < best->key))
				best = s;
		}
		if (!m->started) {
			m->started = 1;
			t = m->start;
			if (best != NULL && best->key < t)
				t = best->key;
			if (t == UINT64_MAX)
				t = 0;
			merge_tick_after(m, t);
		}
		if (best == NULL) {
			if (!m->any || m->done || m->no_ticks)
				return (0);
			m->done = 1;
			m->last_host = HOST_NONE;
			return (rec_type_tick(buf, size, lenp, m->next_tick));
		}
		if (!m->no_ticks && best->key >= m->next_tick) {
			t = m->next_tick;
			if (best->key - t >= MERGE_GAP_NS)
				t += (best->key - t) / m->tick_ns * m->tick_ns;
			merge_tick_after(m, t);
			m->last_host = HOST_NONE;
			return (rec_type_tick(buf, size, lenp, t));
		}
		r = merge_out(m, best->head, best->len, buf, size, lenp);
		if (r == 1) {
			best->fed++;
			m->last_host = best->host;
		}
		merge_fill(m, best);
		if (r == 1) {
			m->any = 1;
			return (1);
		}
	}
}

/*
 * Close the run's files. report: say what a file skipped or lost, one line
 * (a single file as ever: fed records, damaged chunks, bytes lost; several:
 * a line per damaged file, named).
 */
void
merge_close(struct merge *m, int report, uint64_t fed)
{
	uint64_t	 skipped, tail_lost;
	unsigned	 i;

	if (m == NULL)
		return;
	for (i = 0; i < m->n; i++) {
		free(m->s[i].remap_from);
		free(m->s[i].remap_to);
		if (m->s[i].f == NULL)
			continue;
		skipped = tail_lost = 0;
		replay_file_close(m->s[i].f, &skipped, &tail_lost);
		if (!report || (skipped == 0 && tail_lost == 0))
			continue;
		if (m->n == 1) {
			log_warnx("replayed %" PRIu64 " events; skipped %" PRIu64
			    " damaged chunks; lost %" PRIu64 " bytes at the end",
			    fed, skipped, tail_lost);
		} else {
			log_warnx("%s: replayed %" PRIu64 " events; skipped %" PRIu64
			    " damaged chunks; lost %" PRIu64 " bytes at the end",
			    m->s[i].path, m->s[i].fed, skipped, tail_lost);
		}
	}
	merge_names_free(m->names);
	free(m->dev_host);
	capture_header_free(&m->hdr);
	free(m);
}
