/* sink-report.c: the report sink: the whole run kept in bounded columns, written at the end as HTML or JSON. */

#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "blktop.h"
#include "fields.h"
#include "report.h"

/* The sink's state, made the first time it is needed (a source begins before the sinks start). */
static struct report *
report_state(struct sink *s)
{
	struct report	*r = s->data;

	if (r == NULL) {
		r = s->data = xcalloc(1, sizeof *r);
		r->opts = *(const struct report_opts *)s->opts;
		r->ticks_per_col = 1;
		theme_default(&r->theme);
	}
	return (r);
}

/*
 * Open the report file now, so that a bad name fails at once: created by the
 * user blktop runs as by then, 0600, never over a file or through a link.
 */
static int
report_start(struct sink *s, char **errp)
{
	struct report	*r = report_state(s);
	const char	*path = r->opts.path;
	size_t		 len = strlen(path);
	int		 fd;

	r->json = len > 5 && strcasecmp(path + len - 5, ".json") == 0;
	if (r->opts.theme != NULL && theme_option(&r->theme, r->opts.theme, errp) != 0)
		return (-1);
	fd = open(path, O_WRONLY|O_CREAT|O_EXCL|O_NOFOLLOW|O_CLOEXEC, 0600);
	if (fd == -1 || (r->f = fdopen(fd, "w")) == NULL) {
		xasprintf(errp, "--report %s: %s", path,
		    errno == EEXIST ? "file exists (a report never overwrites)" :
		    strerror(errno));
		if (fd != -1)
			close(fd);
		return (-1);
	}
	return (0);
}

/* Forget every column: the windows start again (a replay seeked or began). */
static void
report_begin(struct sink *s, uint64_t ts)
{
	struct report	*r = report_state(s);
	unsigned	 i;

	for (i = 0; i < r->ndevs; i++) {
		free(r->devs[i]->cols);
		free(r->devs[i]);
	}
	for (i = 0; i < r->nfiles; i++)
		free(r->files[i].rw);
	r->ndevs = r->nfiles = r->ncols = r->ticks_in_col = 0;
	r->ndropped = 0;
	r->dropped_requests = 0;
	memset(r->dropped_seen, 0, sizeof r->dropped_seen);
	r->ticks = 0;
	r->ticks_per_col = 1;
	r->first_ts = r->last_ts = ts;
}

/* The report's device for a window, added the first time it is seen. */
static struct report_dev *
report_dev(struct report *r, uint32_t dev)
{
	struct report_dev	*rd;
	unsigned		 i;

	for (i = 0; i < r->ndevs; i++) {
		if (r->devs[i]->dev == dev)
			return (r->devs[i]);
	}
	if (r->ndevs == nitems(r->devs))
		return (NULL);
	rd = xcalloc(1, sizeof *rd);
	rd->dev = dev;
	rd->cols = xcalloc(REPORT_COLS_MAX, sizeof *rd->cols);
	r->devs[r->ndevs++] = rd;
	return (rd);
}

/* A count added to a 32-bit bucket, stuck at the top rather than wrapping. */
static uint32_t
report_add32(uint32_t a, uint64_t b)
{
	return (b >= UINT32_MAX - a ? UINT32_MAX : (uint32_t)(a + b));
}

/* Column j takes column k's figures. */
static void
report_col_add(struct report_col *j, const struct report_col *k)
{
	unsigned	 i;

	for (i = 0; i < OPC_MAX; i++) {
		j->ios[i] += k->ios[i];
		j->bytes[i] += k->bytes[i];
	}
	windows_extremes_add(&j->lat_min, &j->lat_max, j->timed, k->lat_min, k->lat_max,
	    k->timed);
	j->timed += k->timed;
	j->errors += k->errors;
	j->busy_ns += k->busy_ns;
	j->wait_sum += k->wait_sum;
	j->lat_sum += k->lat_sum;
	if (k->qd_max > j->qd_max)
		j->qd_max = k->qd_max;
	for (i = 0; i < HIST_NBUCKETS; i++)
		j->lat[i] = report_add32(j->lat[i], k->lat[i]);
	for (i = 0; i < MAP_BANDS; i++) {
		j->band[0][i] = report_add32(j->band[0][i], k->band[0][i]);
		j->band[1][i] = report_add32(j->band[1][i], k->band[1][i]);
	}
}

/* The columns are all taken: adjacent pairs become one, each column twice as long. */
static void
report_halve(struct report *r)
{
	struct report_col	*c;
	unsigned		 d, i, n = r->ncols / 2;

	for (d = 0; d < r->ndevs; d++) {
		c = r->devs[d]->cols;
		for (i = 0; i < n; i++) {
			c[i] = c[2 * i];
			report_col_add(&c[i], &c[2 * i + 1]);
		}
		memset(c + n, 0, (REPORT_COLS_MAX - n) * sizeof *c);
	}
	for (d = 0; d < r->nfiles; d++) {
		for (i = 0; i < n; i++) {
			r->files[d].rw[2 * i] = r->files[d].rw[4 * i] + r->files[d].rw[4 * i + 2];
			r->files[d].rw[2 * i + 1] = r->files[d].rw[4 * i + 1] +
			    r->files[d].rw[4 * i + 3];
		}
		memset(r->files[d].rw + 2 * n, 0,
		    (REPORT_COLS_MAX - n) * 2 * sizeof *r->files[d].rw);
	}
	for (i = 0; i < n; i++) {
		r->col_start[i] = r->col_start[2 * i];
		r->col_end[i] = r->col_end[2 * i + 1];
	}
	r->ncols = n;
	r->ticks_per_col *= 2;
}

/* A tick closed: each device's tick into the open column and the run's totals. */
static void
report_tick(struct sink *s, uint64_t ts)
{
	struct blktop		*b = s->b;
	struct report		*r = s->data;
	struct report_dev	*rd;
	struct report_col	*c;
	const struct devwin	*dw;
	const struct tick	*t;
	unsigned		 i, o, k;

	if (r->ticks_in_col == 0) {
		if (r->ncols == REPORT_COLS_MAX)
			report_halve(r);
		r->col_start[r->ncols] = r->last_ts;
		r->ncols++;
	}
	r->col_end[r->ncols - 1] = ts;
	for (i = 0; i < b->win.ndevs; i++) {
		dw = b->win.devs[i];
		if ((t = windows_tick_at(&b->win, dw, 1)) == NULL)
			continue;
		if ((rd = report_dev(r, dw->dev)) == NULL) {
			/* Past the report's own cap: counted and said, not charted. */
			for (o = 0; o < OPC_MAX; o++)
				r->dropped_requests += t->op[o].ios;
			if (!r->dropped_seen[i]) {
				r->dropped_seen[i] = 1;
				r->ndropped++;
			}
			continue;
		}
		windows_sum_tick(&rd->tot, t);
		if (t->qd_max > rd->qd_peak) {
			rd->qd_peak = t->qd_max;
			rd->qd_peak_ts = t->start;
		}
		/* The device's map widened: so do the columns taken before. */
		if (dw->map_shift > rd->map_shift) {
			for (k = 0; k < r->ncols; k++) {
				windows_band_merge(rd->cols[k].band[0], dw->map_shift - rd->map_shift);
				windows_band_merge(rd->cols[k].band[1], dw->map_shift - rd->map_shift);
			}
			rd->map_shift = dw->map_shift;
		}
		c = &rd->cols[r->ncols - 1];
		c->busy_ns += t->busy_ns;
		c->wait_sum += t->wait_sum;
		if (t->qd_max > c->qd_max)
			c->qd_max = t->qd_max;
		for (o = 0; o < OPC_MAX; o++) {
			if (t->op[o].ios == 0)
				continue;
			c->ios[o] += t->op[o].ios;
			c->bytes[o] += t->op[o].bytes;
			windows_extremes_add(&c->lat_min, &c->lat_max, c->timed, t->op[o].lat_min,
			    t->op[o].lat_max, t->op[o].timed);
			c->timed += t->op[o].timed;
			c->errors += t->op[o].errors;
			c->lat_sum += t->op[o].lat_sum;
			for (k = 0; k < HIST_NBUCKETS; k++)
				if (t->op[o].lat[k] != 0)
					c->lat[k] = report_add32(c->lat[k], t->op[o].lat[k]);
			for (k = 0; o != OPC_OTHER && k < MAP_BANDS; k++)
				c->band[o == OPC_WRITE][k] = report_add32(c->band[o == OPC_WRITE][k],
				    t->op[o].band[k]);
		}
	}
	r->ticks++;
	r->last_ts = ts;
	if (++r->ticks_in_col == r->ticks_per_col)
		r->ticks_in_col = 0;
}

/* The timeline's slot for a file path: found, free, or the least active one taken over. */
static struct report_file *
report_file_slot(struct report *r, const char *path, uint64_t bytes)
{
	struct report_file	*f, *least = NULL;
	unsigned		 i;

	for (i = 0; i < r->nfiles; i++) {
		f = &r->files[i];
		if (strcmp(f->path, path) == 0)
			return (f);
		if (least == NULL || f->total < least->total)
			least = f;
	}
	if (r->nfiles < REPORT_FILES) {
		f = &r->files[r->nfiles++];
		f->rw = xcalloc(REPORT_COLS_MAX * 2, sizeof *f->rw);
	} else if (least->total < bytes) {
		f = least;
		memset(f->rw, 0, REPORT_COLS_MAX * 2 * sizeof *f->rw);
	} else
		return (NULL);
	snprintf(f->path, sizeof f->path, "%s", path);
	f->total = 0;
	return (f);
}

/*
 * A report interval ended: the busiest files of it (by calls' and by the
 * disk's bytes, read and written) into the open column of the timeline.
 */
static void
report_report(struct sink *s, uint64_t ts __unused, unsigned nticks __unused)
{
	static const enum proc_key keys[] = {
		PROC_KEY_VFS_READ_BYTES, PROC_KEY_VFS_WRITE_BYTES,
		PROC_KEY_DISK_READ_BYTES, PROC_KEY_DISK_WRITE_BYTES
	};
	struct blktop		*b = s->b;
	struct report		*r = s->data;
	const struct file_entry	*fe[REPORT_TOP], *seen[nitems(keys) * REPORT_TOP];
	const struct proc_counts *c;
	struct report_file	*f;
	char			 path[REPORT_PATH_MAX];
	uint64_t		 rd, wr;
	unsigned		 k, i, j, n, nseen = 0;

	if (b->procs == NULL || r->ncols == 0)
		return;
	for (k = 0; k < nitems(keys); k++) {
		n = top_files(b->procs, keys[k], 0, fe, REPORT_TOP);
		for (i = 0; i < n; i++) {
			for (j = 0; j < nseen && seen[j] != fe[i]; j++)
				;
			if (j < nseen)
				continue;
			seen[nseen++] = fe[i];
			c = proc_file_counts(b->procs, fe[i], 0);
			rd = c->vfs_bytes[0] > c->disk_bytes[0] ? c->vfs_bytes[0] : c->disk_bytes[0];
			wr = c->vfs_bytes[1] > c->disk_bytes[1] ? c->vfs_bytes[1] : c->disk_bytes[1];
			if (rd + wr == 0)
				continue;
			fmt_file_name(b->procs, fe[i], path, sizeof path);
			if ((f = report_file_slot(r, path, rd + wr)) == NULL)
				continue;
			f->rw[2 * (r->ncols - 1)] += rd;
			f->rw[2 * (r->ncols - 1) + 1] += wr;
			f->total += rd + wr;
		}
	}
}

/*
 * What a cap cut in the run, as text ("" if nothing): devices past the
 * device cap (their requests counted nowhere), devices past the report's own
 * cap (counted in the totals of -J, not charted here). Its length.
 */
size_t
report_dropped_text(const struct blktop *b, const struct report *r, char *buf, size_t size)
{
	size_t	 n = fmt_dropped(b, 0, buf, size);

	if (r->ndropped > 0 && n < size)
		n += (size_t)snprintf(buf + n, size - n, "%s%u devices past the report's %u "
		    "not charted (%llu requests)", n ? "; " : "", r->ndropped, REPORT_DEVS_MAX,
		    (unsigned long long)r->dropped_requests);
	return (n < size ? n : size > 0 ? size - 1 : 0);
}

/* Write the report once: at the end of a replay, or when a live run stops. */
static void
report_write(struct sink *s)
{
	struct blktop	*b = s->b;
	struct report	*r = s->data;
	int		 bad;

	if (r == NULL || r->f == NULL)
		return;
	if (r->json)
		json_run_report(r->f, b, r);
	else
		report_html(r->f, b, r);
	bad = ferror(r->f);
	if (fclose(r->f) != 0 || bad) {
		log_warnx("--report %s: write failed: %s", r->opts.path,
		    strerror(errno != 0 ? errno : EIO));
		b->status = 1;
	} else if (r->opts.announce)
		fprintf(stderr, "%s: report written to %s\n", log_prog, r->opts.path);
	r->f = NULL;
}

/* The source has nothing more (the interval still open is reported): write the report; a report-only run is done. */
static void
report_end(struct sink *s)
{
	struct blktop	*b = s->b;
	struct report	*r = s->data;

	report_write(s);
	if (r != NULL && r->opts.ends_run && b->base != NULL)
		event_base_loopbreak(b->base);
}

/* blktop stops: write the report if the source never ended, free everything. */
static void
report_stop(struct sink *s)
{
	struct report	*r = s->data;

	if (r == NULL)
		return;
	report_write(s);
	report_begin(s, 0);
	free(r);
	s->data = NULL;
}

const struct sink_entry sink_report = {
	.name = "report",
	.start = report_start,
	.begin = report_begin,
	.tick = report_tick,
	.report = report_report,
	.end = report_end,
	.report_at_end = 1,
	.stop = report_stop,
};
