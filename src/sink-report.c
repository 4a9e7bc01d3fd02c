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
	if (k->timed != 0 && (j->timed == 0 || k->lat_min < j->lat_min))
		j->lat_min = k->lat_min;
	j->timed += k->timed;
	j->errors += k->errors;
	j->busy_ns += k->busy_ns;
	j->wait_sum += k->wait_sum;
	j->lat_sum += k->lat_sum;
	if (k->lat_max > j->lat_max)
		j->lat_max = k->lat_max;
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
		if (!stream_dev_wanted(b, dw->dev) ||
		    (t = windows_tick_at(&b->win, dw, 1)) == NULL)
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
			if (t->op[o].timed != 0 &&
			    (c->timed == 0 || t->op[o].lat_min < c->lat_min))
				c->lat_min = t->op[o].lat_min;
			c->timed += t->op[o].timed;
			c->errors += t->op[o].errors;
			c->lat_sum += t->op[o].lat_sum;
			if (t->op[o].lat_max > c->lat_max)
				c->lat_max = t->op[o].lat_max;
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
		n = proc_top_files(b->procs, keys[k], 0, fe, REPORT_TOP);
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
			model_file_path(b->procs, fe[i], path, sizeof path);
			if ((f = report_file_slot(r, path, rd + wr)) == NULL)
				continue;
			f->rw[2 * (r->ncols - 1)] += rd;
			f->rw[2 * (r->ncols - 1) + 1] += wr;
			f->total += rd + wr;
		}
	}
}

/* A percentile of a column's device times, ns, within their extremes; 0 when it holds none. */
uint64_t
report_col_pct(const struct report_col *c, double p)
{
	uint64_t	 h[HIST_NBUCKETS], n = 0;
	unsigned	 i;

	for (i = 0; i < HIST_NBUCKETS; i++)
		n += h[i] = c->lat[i];
	return (n == 0 ? 0 : (uint64_t)hist_percentile(h, n, p, c->lat_min, c->lat_max));
}

/* Order two u64 for qsort. */
static int
report_cmp_u64(const void *a, const void *b)
{
	uint64_t	 x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x < y ? -1 : x > y);
}

/* The median of the p99s of a device's columns that hold enough requests to judge; 0 if none. */
uint64_t
report_median_p99(const struct report *r, const struct report_dev *rd)
{
	uint64_t	 v[REPORT_COLS_MAX];
	unsigned	 i, n = 0;

	for (i = 0; i < r->ncols; i++) {
		if (rd->cols[i].timed >= REPORT_ANOMALY_MIN)
			v[n++] = report_col_pct(&rd->cols[i], 99);
	}
	if (n == 0)
		return (0);
	qsort(v, n, sizeof *v, report_cmp_u64);
	return (n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2);
}

/*
 * The spans where p99 jumped: runs of columns holding at least
 * REPORT_ANOMALY_MIN timed requests whose p99 is over REPORT_ANOMALY_X times
 * the median column p99. Returns how many (at most max are stored).
 */
unsigned
report_anomalies(const struct report *r, const struct report_dev *rd,
    struct report_span *out, unsigned max)
{
	uint64_t	 med = report_median_p99(r, rd), p99;
	unsigned	 i, n = 0;
	int		 prev = 0;

	for (i = 0; i < r->ncols; i++) {
		p99 = rd->cols[i].timed >= REPORT_ANOMALY_MIN ?
		    report_col_pct(&rd->cols[i], 99) : 0;
		if (med == 0 || (double)p99 <= REPORT_ANOMALY_X * (double)med) {
			prev = 0;
			continue;
		}
		if (prev) {		/* the open span, stored if n <= max */
			if (n <= max) {
				out[n - 1].last = i;
				if (p99 > out[n - 1].p99)
					out[n - 1].p99 = p99;
			}
			continue;
		}
		if (n < max) {
			out[n].first = out[n].last = i;
			out[n].p99 = p99;
		}
		n++;
		prev = 1;
	}
	return (n);
}

/* How many of a device's columns hold enough timed requests to judge a p99 by. */
static unsigned
report_judged_cols(const struct report *r, const struct report_dev *rd)
{
	unsigned	 i, n = 0;

	for (i = 0; i < r->ncols; i++)
		n += rd->cols[i].timed >= REPORT_ANOMALY_MIN;
	return (n);
}

/* One device's whole run: json-dev.c's object, and the report's own members. */
static void
report_json_dev(FILE *f, const struct blktop *b, const struct report *r,
    const struct report_dev *rd)
{
	struct report_span	 sp[64];
	struct json_dev		 jd = {
		.dev = rd->dev, .sum = &rd->tot, .qd_max = rd->qd_peak,
		.qd_max_at = stream_wall(b, rd->qd_peak_ts), .run = 1,
		.dw = windows_get(&b->win, rd->dev),
	};
	uint64_t		 med;
	unsigned		 o, i, ns;

	json_dev_write(f, &jd);
	/* No column with enough timed requests: no median to judge by. */
	med = report_median_p99(r, rd);
	json_num(f, "median_column_p99_us", report_judged_cols(r, rd) > 0, 1,
	    (double)med / 1e3);
	fprintf(f, ",\"anomalies\":[");
	ns = report_anomalies(r, rd, sp, nitems(sp));
	for (i = 0; i < ns && i < nitems(sp); i++)
		fprintf(f, "%s{\"start\":%.3f,\"end\":%.3f,\"p99_us\":%.1f}", i ? "," : "",
		    stream_wall(b, r->col_start[sp[i].first]),
		    stream_wall(b, r->col_end[sp[i].last]), (double)sp[i].p99 / 1e3);
	fprintf(f, "],\"anomalies_total\":%u", ns);
	/* The offset map's numbers: per column, reads and writes by band. */
	fprintf(f, ",\"offset_map\":{\"band_bytes\":%llu,\"bands\":%u,\"reads\":[",
	    (unsigned long long)512 << rd->map_shift, MAP_BANDS);
	for (o = 0; o < 2; o++) {
		for (i = 0; i < r->ncols; i++) {
			fprintf(f, "%s[", i ? "," : "");
			for (ns = 0; ns < MAP_BANDS; ns++)
				fprintf(f, "%s%u", ns ? "," : "", rd->cols[i].band[o][ns]);
			fputc(']', f);
		}
		fprintf(f, o == 0 ? "],\"writes\":[" : "]}}");
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

/* The whole run as one JSON object (the HTML page's summary, for scripts). */
void
report_json(FILE *f, const struct blktop *b, const struct report *r)
{
	unsigned	 i;

	fprintf(f, "{\"source\":");
	json_string(f, b->replay_path != NULL ? b->replay_path : "live");
	fprintf(f, ",\"plan\":");
	json_string(f, b->plan_text);
	fprintf(f, ",\"start\":%.3f,\"end\":%.3f,\"duration_s\":%.3f,\"ticks\":%llu,"
	    "\"columns\":%u,\"ticks_per_column\":%u,\"events\":%llu,\"lost\":%llu,"
	    "\"anomaly_rule\":\"a column with at least %d timed requests whose p99 is over "
	    "%.0fx the median column p99 of the device; adjacent ones form one span\","
	    "\"devices\":[", stream_wall(b, r->first_ts), stream_wall(b, r->last_ts),
	    (double)(r->last_ts - r->first_ts) / 1e9, (unsigned long long)r->ticks,
	    r->ncols, r->ticks_per_col, (unsigned long long)b->events,
	    (unsigned long long)b->lost, REPORT_ANOMALY_MIN, REPORT_ANOMALY_X);
	for (i = 0; i < r->ndevs; i++) {
		if (i > 0)
			fputc(',', f);
		report_json_dev(f, b, r, r->devs[i]);
	}
	fprintf(f, "]");
	json_marks(f, b, 0);
	json_phases(f, b, 0);
	json_dropped(f, b, 0, REPORT_DEVS_MAX, r->ndropped, r->dropped_requests);
	if (b->procs != NULL) {
		fprintf(f, ",\"sort\":\"%s\"", field_key_name(r->opts.sort_key));
		json_top(f, b, r->opts.sort_key, 1, REPORT_TOP);
		json_insights(f, b);
	}
	fprintf(f, "}\n");
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
		report_json(r->f, b, r);
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
