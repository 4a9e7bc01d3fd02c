/* ui-pane-file.c: the files pane: a top-like sortable table of the busiest files by path. */

#include <curses.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "blktop.h"
#include "fields.h"
#include "host.h"
#include "ui.h"

#define UI_FILE_ROWS	1024		/* rows kept per interval (top_files' most) */
#define UI_FILE_FINDINGS 8		/* the drilled file's insights shown */

/* One file as it was over the last display interval. */
struct ui_file_row {
	char			*path;
	uint64_t		 host1;		/* its host + 1 (0: none, a run of one host) */
	uint64_t		 first_ts;	/* identity across intervals, with the path */
	struct proc_counts	 c;
	uint64_t		 p50;
	uint64_t		 p99;
	double			 hit;		/* cache hit %, -1 if not known */
	double			 seq;		/* sequential % of its judged calls, -1 if none */
	double			 size;		/* its commonest call size, -1 if none */
	uint32_t		 pids[PROC_FILE_PIDS];
	uint8_t			 npids;
	uint8_t			 pids_more;
	uint8_t			 have_files;	/* the source's block records name files */
};

enum ui_file_col {
	UI_FC_CR, UI_FC_CW, UI_FC_RMB, UI_FC_WMB, UI_FC_DRMB, UI_FC_DWMB,
	UI_FC_HIT, UI_FC_SEQ, UI_FC_SIZE, UI_FC_OPEN, UI_FC_P50,
	UI_FC_P99, UI_FC_PIDS, UI_FC_HOST, UI_FC_PATH, UI_FC_MAX
};

static double	 ui_pane_file_hit(const struct ui_col *, const void *);
static double	 ui_pane_file_pid(const struct ui_col *, const void *);
static double	 ui_pane_file_dbl(const struct ui_col *, const void *);
static void	 ui_pane_file_fmt_size(const struct ui_col *, const void *, double, char *, size_t);
static void	 ui_pane_file_fmt_disk(const struct ui_col *, const void *, double, char *, size_t);
static void	 ui_pane_file_fmt_lat(const struct ui_col *, const void *, double, char *, size_t);
static void	 ui_pane_file_fmt_pids(const struct ui_col *, const void *, double, char *, size_t);
static void	 ui_pane_file_fmt_host(const struct ui_col *, const void *, double, char *, size_t);

/* A column of a uint64_t counter of the row, how it prints. */
#define UI_FC_U64(field, fn)	.off = offsetof(struct ui_file_row, field), .fmt = (fn)

/*
 * The columns: each a field of file_fields (field-file.c: its title, width
 * and the top_files key that picks the rows worth keeping when sorted
 * by it), in its order, and before the path the HOST of proc_fields (a
 * file's as a process's; shown in a run of several hosts only); here, how
 * the pane prints it and where its row keeps it. The path takes what is
 * left and is shortened in the middle.
 */
static const struct ui_col ui_file_show[UI_FC_MAX] = {
	[UI_FC_CR] = { UI_FC_U64(c.vfs_calls[0], ui_tab_fmt_rate) },
	[UI_FC_CW] = { UI_FC_U64(c.vfs_calls[1], ui_tab_fmt_rate) },
	[UI_FC_RMB] = { UI_FC_U64(c.vfs_bytes[0], ui_tab_fmt_mb) },
	[UI_FC_WMB] = { UI_FC_U64(c.vfs_bytes[1], ui_tab_fmt_mb) },
	[UI_FC_DRMB] = { UI_FC_U64(c.disk_bytes[0], ui_pane_file_fmt_disk) },
	[UI_FC_DWMB] = { UI_FC_U64(c.disk_bytes[1], ui_pane_file_fmt_disk) },
	[UI_FC_HIT] = { .value = ui_pane_file_hit, .fmt = ui_tab_fmt_pct },
	[UI_FC_SEQ] = { .off = offsetof(struct ui_file_row, seq), .value = ui_pane_file_dbl,
	    .fmt = ui_tab_fmt_pct },
	[UI_FC_SIZE] = { .off = offsetof(struct ui_file_row, size), .value = ui_pane_file_dbl,
	    .fmt = ui_pane_file_fmt_size },
	[UI_FC_OPEN] = { .off = offsetof(struct ui_file_row, c), .value = ui_tab_opens,
	    .fmt = ui_tab_fmt_rate },
	[UI_FC_P50] = { UI_FC_U64(p50, ui_pane_file_fmt_lat) },
	[UI_FC_P99] = { UI_FC_U64(p99, ui_pane_file_fmt_lat) },
	[UI_FC_PIDS] = { .left = 1, .value = ui_pane_file_pid, .fmt = ui_pane_file_fmt_pids },
	[UI_FC_HOST] = { .left = 1, .ascending = 1, .off = offsetof(struct ui_file_row, host1),
	    .fmt = ui_pane_file_fmt_host },
	[UI_FC_PATH] = { .left = 1, .by_name = 1, .off = offsetof(struct ui_file_row, path),
	    .fmt = ui_tab_fmt_str },
};
_Static_assert((int)UI_FC_MAX == (int)FILEF_MAX + 1 && (int)UI_FC_HOST == (int)FILEF_PATH &&
    (int)UI_FC_PATH == (int)FILEF_PATH + 1,
    "the pane's columns are file_fields' rows, in their order, HOST before the path");
static struct ui_col ui_file_cols[UI_FC_MAX];	/* the two above, made once */

/* The snapshot and the selection of the files pane. */
static int	 ui_pane_file_tie(const void *, const void *);
static const char *ui_pane_file_name(const void *);
static int	 ui_pane_file_kept(const void *, const void *);
static void	 ui_pane_file_remember(void *, unsigned);

static const struct ui_tab ui_file_tab = {
	.sortcol = UI_FC_RMB, .cols = ui_file_cols, .ncols = UI_FC_MAX,
	.rowsize = sizeof(struct ui_file_row), .tie = ui_pane_file_tie,
	.name = ui_pane_file_name, .kept = ui_pane_file_kept,
	.remember = ui_pane_file_remember,
};

/*
 * The file drilled into (Enter): how it was read since first seen, as of
 * the last interval (the model's entry, copied: the table may drop it).
 */
struct ui_file_drill {
	char			*path;		/* NULL: no drill-down */
	int			 host;		/* the file's host (HOST_NONE: a run of one) */
	int			 found;		/* the table held it at the last interval */
	int			 have;		/* the source's HAVE_* bits */
	struct pattern		 pat;
	struct pat_touched	 touched;
	struct req_pattern	 rpat;
	struct proc_counts	 tot;
	uint32_t		 pids[PROC_FILE_PIDS];
	uint8_t			 npids, pids_more;
	unsigned		 nfind;
	char			 find[UI_FILE_FINDINGS][2][256];	/* code and figure; the rule */
	int			 have_map;	/* map holds its offset map (m shows it) */
	double			 map_start;	/* the map's column 0, wall clock */
	struct pat_map		 map;
};

/* The file map's bands are drawn by ui_heatmap, labelled as a device map's. */
_Static_assert(PAT_MAP_BANDS == MAP_BANDS, "a file's offset map has a device map's bands");

/* The files pane's rows, order and selection: its state in a UI (ui_pane's data). */
struct ui_file {
	struct ui_file_row *rows;
	unsigned	 nrows;
	struct ui_tab	 tab;		/* order, sort and selection */
	double		 secs;
	char		*sel_path;	/* keeps the selection across intervals */
	uint64_t	 sel_host1;	/* with its host */
	struct ui_file_drill drill;
};

/* Equal in the sort column: paths A to Z, then (a run of several hosts) hosts in their order. */
static int
ui_pane_file_tie(const void *a, const void *b)
{
	const struct ui_file_row *x = a, *y = b;
	int		 c = strcmp(x->path, y->path);

	return (c != 0 ? c : (x->host1 > y->host1) - (x->host1 < y->host1));
}

/* What the / filter matches: the path. */
static const char *
ui_pane_file_name(const void *row)
{
	return (((const struct ui_file_row *)row)->path);
}

/* Whether a row is the file selected before. */
static int
ui_pane_file_kept(const void *owner, const void *row)
{
	const struct ui_file	*d = owner;

	return (d->sel_path != NULL && ((const struct ui_file_row *)row)->host1 == d->sel_host1 &&
	    strcmp(((const struct ui_file_row *)row)->path, d->sel_path) == 0);
}

/* Remember a file's path as the selection. */
static void
ui_pane_file_remember(void *owner, unsigned row)
{
	struct ui_file	*d = owner;

	free(d->sel_path);
	d->sel_path = xstrdup(d->rows[row].path);
	d->sel_host1 = d->rows[row].host1;
}

/* List the rows passing the filter, sorting first if asked, keeping the selection. */
static void
ui_pane_file_order(struct ui_pane *p, int sort)
{
	struct ui_state	*u = p->u;
	struct ui_file	*d = p->data;

	ui_tab_order(u, &d->tab, d->rows, d->nrows, sort);
}

/* Free the paths of the snapshot. */
static void
ui_pane_file_clear(struct ui_file *d)
{
	unsigned	 i;

	for (i = 0; i < d->nrows; i++)
		free(d->rows[i].path);
	d->nrows = d->tab.norder = 0;
}

/*
 * The pattern's columns (doc/json.md, Access pattern): seq%, of the calls
 * judged against a previous one (an offset, not a process's first), those
 * that were sequential; size, the commonest call size. Since the file was
 * first seen, as the JSON's.
 */
static void
ui_pane_file_pattern(struct ui_file_row *r, const struct pattern *p)
{
	int64_t		 v[PAT_COMMON];
	uint64_t	 n[PAT_COMMON];
	struct pat_sum	 sum;

	pattern_sum(p, &sum);
	r->seq = sum.judged > 0 ? 100.0 * (double)sum.seq / (double)sum.judged : -1;
	r->size = pattern_common(&p->sizes, v, n) > 0 ? (double)v[0] : -1;
}

/* Copy the drilled file out of the table, with the file rules' findings on it. */
static void
ui_pane_file_drill_collect(struct ui_file *d, struct blktop *b)
{
	struct ui_file_drill	*dr = &d->drill;
	const struct file_entry	*f = model_file_find(b->procs, dr->path, dr->host);
	const struct pat_map	*m;
	struct insight		 in;
	char			 fig[160];
	unsigned		 i;

	dr->found = f != NULL;
	dr->have = b->have;
	if (f == NULL)
		return;
	dr->pat = f->pat;
	dr->touched = f->touched;
	dr->rpat = f->rpat;
	if ((m = model_file_map(b->procs, f)) != NULL) {
		dr->map = *m;
		dr->map_start = stream_wall(b, m->t0);
	}
	dr->have_map = m != NULL;
	dr->tot = f->tot;
	memcpy(dr->pids, f->pids, sizeof dr->pids);
	dr->npids = f->npids > PROC_FILE_PIDS ? PROC_FILE_PIDS : f->npids;
	dr->pids_more = f->pids_more;
	dr->nfind = 0;
	for (i = 0; i < insight_nrules && dr->nfind < UI_FILE_FINDINGS; i++) {
		const struct insight_rule *ru = &insight_rules[i];

		memset(&in, 0, sizeof in);
		if (ru->subject != INSIGHT_FILE || (ru->need & b->have) != ru->need ||
		    !ru->fire(&b->opt.insight, f, &in.figure, &in.n))
			continue;
		in.rule = ru;
		in.file = f;
		ru->text(&b->opt.insight, &in, fig, sizeof fig, dr->find[dr->nfind][1],
		    sizeof dr->find[dr->nfind][1]);
		snprintf(dr->find[dr->nfind][0], sizeof dr->find[dr->nfind][0], "%-4s %s: %s",
		    insight_level_name(ru->level), ru->code, fig);
		dr->nfind++;
	}
}

/* End of a display interval: copy the busiest files out of the table. */
static void
ui_pane_file_collect(struct ui_pane *p, double secs)
{
	struct ui_state	*u = p->u;
	struct ui_file	*d = p->data;
	struct blktop	*b = u->b;
	static const struct file_entry *top[UI_FILE_ROWS];
	static char		 path[VFS_PATH_MAX];
	const struct file_entry	*f;
	struct ui_file_row	*r;
	unsigned		 n, i;

	if (d->rows == NULL) {
		d->rows = xcalloc(UI_FILE_ROWS, sizeof *d->rows);
		d->tab.order = xcalloc(UI_FILE_ROWS, sizeof *d->tab.order);
	}
	if (b->procs == NULL || secs <= 0)
		return;
	if (d->drill.path != NULL)
		ui_pane_file_drill_collect(d, b);
	ui_pane_file_clear(d);
	d->secs = secs;
	n = top_files(b->procs, ui_file_cols[d->tab.sortcol].key, 0, top,
	    UI_FILE_ROWS);
	for (i = 0; i < n; i++) {
		f = top[i];
		r = &d->rows[i];
		model_file_path(b->procs, f, path, sizeof path);
		r->path = xstrdup(path);
		r->host1 = (uint64_t)(f->host + 1);
		r->first_ts = f->first_ts;
		r->c = *proc_file_counts(b->procs, f, 0);
		r->p50 = proc_file_lat(b->procs, f, 50);
		r->p99 = proc_file_lat(b->procs, f, 99);
		r->hit = proc_cache_hit_pct(b->have, &r->c);
		ui_pane_file_pattern(r, &f->pat);
		memcpy(r->pids, f->pids, sizeof r->pids);
		r->npids = f->npids > PROC_FILE_PIDS ? PROC_FILE_PIDS : f->npids;
		r->pids_more = f->pids_more;
		r->have_files = (b->have & HAVE_FILES) != 0;
	}
	d->nrows = n;
	ui_pane_file_order(p, 1);
}

/* The hit% column's value: the cache hit %, -1 if not known. */
static double
ui_pane_file_hit(__unused const struct ui_col *c, const void *row)
{
	return (((const struct ui_file_row *)row)->hit);
}

/*
 * The requests that carried the file's pages, at the request level (doc/json.md,
 * Access pattern): how many, and how sequential on the device.
 */
static void
ui_pane_file_requests(char *line, size_t size, const struct req_pattern *q)
{
	if (q->n[0] + q->n[1] == 0)
		snprintf(line, size, "requests: none carried its pages");
	else if (pattern_req_pct(q, 0) < 0)
		snprintf(line, size, "requests: %llu reads, %llu writes on the device",
		    (unsigned long long)q->n[0], (unsigned long long)q->n[1]);
	else
		snprintf(line, size, "requests: %llu reads, %llu writes on the device, %.0f%% "
		    "sequential, %.0f%% consecutive there", (unsigned long long)q->n[0],
		    (unsigned long long)q->n[1], pattern_req_pct(q, 0), pattern_req_pct(q, 1));
}

/* A double of the row at the column's offset (seq%, size). */
static double
ui_pane_file_dbl(const struct ui_col *c, const void *row)
{
	double v;

	memcpy(&v, (const char *)row + c->off, sizeof v);
	return (v);
}

/* A size in 5 columns: 512, 4K, 128K, 1M, 1.5M, 2G; "-" if none. */
static void
ui_pane_file_fmt_size(const struct ui_col *c, const void *row, __unused double secs,
    char *buf, size_t len)
{
	static const char	 units[] = "KMGT";
	double			 v = ui_pane_file_dbl(c, row);
	unsigned		 u = 0;

	if (v < 0) {
		snprintf(buf, len, "%5s", "-");
		return;
	}
	if (v < 1024) {
		snprintf(buf, len, "%5.0f", v);
		return;
	}
	v /= 1024;
	while (v >= 1024 && u < sizeof units - 2) {
		v /= 1024;
		u++;
	}
	if (v == (double)(uint64_t)v || v >= 100)
		snprintf(buf, len, "%4.0f%c", v, units[u]);
	else
		snprintf(buf, len, "%4.1f%c", v, units[u]);
}

/* The PIDS column's value: its first process. */
static double
ui_pane_file_pid(__unused const struct ui_col *c, const void *row)
{
	const struct ui_file_row *r = row;

	return ((double)(r->npids > 0 ? r->pids[0] : 0));
}

/* Device bytes; a capture whose block records name no file: not known. */
static void
ui_pane_file_fmt_disk(const struct ui_col *c, const void *row, double secs,
    char *buf, size_t len)
{
	if (!((const struct ui_file_row *)row)->have_files)
		snprintf(buf, len, "-");
	else
		ui_tab_fmt_mb(c, row, secs, buf, len);
}

/* A call latency: "-" with no read or write in the interval (opens are not timed). */
static void
ui_pane_file_fmt_lat(const struct ui_col *c, const void *row,
    __unused double secs, char *buf, size_t len)
{
	ui_tab_lat(c, row, ((const struct ui_file_row *)row)->c.vfs_calls, buf, len);
}

/* The HOST cell: the file's host's name ("-" for none). */
static void
ui_pane_file_fmt_host(__unused const struct ui_col *c, const void *row,
    __unused double secs, char *buf, size_t len)
{
	fmt_host(buf, len, (int)((const struct ui_file_row *)row)->host1 - 1);
}

/* The PIDS cell: the processes seen using the file, "+" if there were more. */
static void
ui_pane_file_fmt_pids(__unused const struct ui_col *c, const void *row,
    __unused double secs, char *buf, size_t len)
{
	const struct ui_file_row *r = row;
	size_t			 off = 0;
	unsigned		 i;

	buf[0] = '\0';
	for (i = 0; i < r->npids && off + 12 < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%u",
		    i > 0 ? "," : "", r->pids[i]);
	if (r->pids_more && off + 2 < len)
		snprintf(buf + off, len - off, "+");
}

/* ui_table callback: one cell of the files table. */
static void
ui_pane_file_cell(unsigned row, unsigned col, char *buf, size_t len, void *arg)
{
	const struct ui_file	*d = arg;

	ui_file_cols[col].fmt(&ui_file_cols[col],
	    &d->rows[d->tab.order[row]],
	    d->secs > 0 ? d->secs : 1, buf, len);
}

/* "4.0M" for bytes; "-" for 0 when none. */
static const char *
ui_pane_file_bytes(char *buf, size_t len, uint64_t v)
{
	size_t i = 0;

	draw_fmt_bytes(buf, len, v);
	while (buf[i] == ' ')
		i++;
	return (buf + i);
}

/*
 * The drilled file's offset map (m, as the devices' maps; o: reads, writes
 * or both), from y to at most bottom: a column per map column, stretched to
 * the width, its 32 bands on up to 16 rows (offset 0 at the bottom). Returns
 * the next free row.
 */
static int
ui_pane_file_draw_map(struct ui_state *u, const struct ui_file_drill *dr, WINDOW *win,
    const struct ui_rect *r, int y, int bottom)
{
	const struct pat_map	*m = &dr->map;
	static uint64_t		 sub[PAT_MAP_COLS * 3 * 2 * 16];
	char			 line[256], when[16], a[32];
	uint64_t		 band[PAT_MAP_BANDS], nr = 0, nw = 0;
	unsigned		 nrows, nsub, rep, col, s, k, lo, hi, d, dmask;
	time_t			 t;
	struct tm		 tm;

	if (!dr->have_map) {
		ui_text(win, y++, r->x, THEME_INACTIVE_FG, THEME_MAIN_BG, "offset map: none kept "
		    "for this file (no call with an offset yet, or its map went to a busier file)");
		return (y);
	}
	dmask = u->view.opmask == 1u << OPC_READ ? 1 : u->view.opmask == 1u << OPC_WRITE ? 2 : 3;
	for (col = 0; col < PAT_MAP_COLS; col++)
		for (k = 0; k < PAT_MAP_BANDS; k++) {
			nr += m->n[PAT_READ][col][k];
			nw += m->n[PAT_WRITE][col][k];
		}
	t = (time_t)dr->map_start;
	localtime_r(&t, &tm);
	strftime(when, sizeof when, "%H:%M:%S", &tm);
	snprintf(line, sizeof line, "offset map (m: size histogram; o: %s): %llu reads, %llu writes "
	    "by where they start, columns of %.3g s from %s, bands of %s",
	    dmask == 1 ? "reads" : dmask == 2 ? "writes" : "both", (unsigned long long)nr,
	    (unsigned long long)nw, (double)(1ULL << m->tshift) / 1e9, when,
	    ui_pane_file_bytes(a, sizeof a, 1ULL << m->oshift));
	if (m->nooff > 0)
		snprintf(line + strlen(line), sizeof line - strlen(line), "; %u without an offset",
		    m->nooff);
	ui_text(win, y++, r->x, THEME_TITLE, THEME_MAIN_BG, line);
	if (bottom - y < 2)
		return (y);
	nrows = (unsigned)(bottom - y) > 16 ? 16 : (unsigned)(bottom - y);
	nsub = 2 * nrows;
	rep = r->w > DRAW_LABEL_WIDTH + 1 ? (unsigned)(r->w - DRAW_LABEL_WIDTH - 1) / PAT_MAP_COLS : 1;
	rep = rep < 1 ? 1 : rep > 3 ? 3 : rep;
	for (col = 0; col < PAT_MAP_COLS; col++) {
		for (k = 0; k < PAT_MAP_BANDS; k++) {
			band[k] = 0;
			for (d = 0; d < 2; d++)
				if (dmask & (1u << d))
					band[k] += m->n[d][col][k];
		}
		for (s = 0; s < nsub; s++) {
			lo = s * PAT_MAP_BANDS / nsub;
			hi = (s + 1) * PAT_MAP_BANDS / nsub;
			if (hi <= lo)
				hi = lo + 1;
			sub[(size_t)col * rep * nsub + s] = 0;
			for (k = lo; k < hi && k < PAT_MAP_BANDS; k++)
				sub[(size_t)col * rep * nsub + s] += band[k];
		}
		for (k = 1; k < rep; k++)
			memcpy(&sub[((size_t)col * rep + k) * nsub], &sub[(size_t)col * rep * nsub],
			    nsub * sizeof *sub);
	}
	ui_heatmap(u, win, y, r->x, nrows, PAT_MAP_COLS * rep, sub, NULL, (int)m->oshift - 9);
	return (y + (int)nrows);
}

/*
 * The drilled file: its calls and bytes since first seen, the access
 * pattern (doc/json.md), the bytes touched and read again, the size
 * histogram in Darshan's bins (reads and writes, bars to the largest), and
 * the findings of the file rules (doc/insights.md).
 */
static void
ui_pane_file_draw_drill(struct ui_state *u, const struct ui_file_drill *dr, WINDOW *win,
    const struct ui_rect *r)
{
	const struct pattern	*p = &dr->pat;
	const struct pat_touched *t = &dr->touched;
	char			 line[1024], a[HOST_NAME_MAX_LEN], b2[32], c[32], e[32];
	int64_t			 v[PAT_COMMON];
	uint64_t		 n[PAT_COMMON], max = 1;
	struct pat_sum		 sum;
	unsigned		 i, k, cnt, d, bar, barw;
	size_t			 off;
	int			 y = r->y, bottom = r->y + r->h;

	snprintf(line, sizeof line, "%s%s%s%s  (Esc back)", dr->host != HOST_NONE ?
	    fmt_host(a, sizeof a, dr->host) : "", dr->host != HOST_NONE ? ":" : "", dr->path,
	    dr->found ? "" : "  [no longer in the file table: as last seen]");
	ui_text(win, y++, r->x, THEME_TITLE, THEME_MAIN_BG, line);
	snprintf(line, sizeof line, "since first seen: %llu reads %s, %llu writes %s; device read "
	    "%s, wrote %s; %u process%s%s", (unsigned long long)dr->tot.vfs_calls[0],
	    ui_pane_file_bytes(a, sizeof a, dr->tot.vfs_bytes[0]),
	    (unsigned long long)dr->tot.vfs_calls[1],
	    ui_pane_file_bytes(b2, sizeof b2, dr->tot.vfs_bytes[1]),
	    (dr->have & HAVE_FILES) ? ui_pane_file_bytes(c, sizeof c, dr->tot.disk_bytes[0]) : "-",
	    (dr->have & HAVE_FILES) ? ui_pane_file_bytes(e, sizeof e, dr->tot.disk_bytes[1]) : "-",
	    dr->npids, dr->npids == 1 ? "" : "es", dr->pids_more ? " (more)" : "");
	ui_text(win, y++, r->x, THEME_MAIN_FG, THEME_MAIN_BG, line);
	pattern_sum(p, &sum);
	if (sum.judged > 0)
		snprintf(line, sizeof line, "pattern: %.0f%% sequential, %.0f%% consecutive of %llu "
		    "calls judged; %llu without an offset; %llu read/write switches; %llu O_DIRECT, "
		    "%llu misaligned", 100.0 * (double)sum.seq / (double)sum.judged,
		    100.0 * (double)sum.consec / (double)sum.judged, (unsigned long long)sum.judged,
		    (unsigned long long)(p->side[0].no_offset + p->side[1].no_offset),
		    (unsigned long long)p->switches, (unsigned long long)p->direct,
		    (unsigned long long)p->misaligned);
	else
		snprintf(line, sizeof line, "pattern: no call judged against a previous one yet");
	ui_text(win, y++, r->x, THEME_MAIN_FG, THEME_MAIN_BG, line);
	if (t->bytes > 0)
		snprintf(line, sizeof line, "touched %s%s by its reads, read %.2fx (%s again)%s",
		    t->over > 0 ? "~" : "", ui_pane_file_bytes(a, sizeof a, t->bytes),
		    (double)t->read / (double)t->bytes,
		    ui_pane_file_bytes(b2, sizeof b2, pattern_reread(t)),
		    t->over > 0 ? "; ~: gaps joined, an upper bound" : "");
	else
		snprintf(line, sizeof line, "touched: no read with an offset");
	ui_text(win, y++, r->x, THEME_MAIN_FG, THEME_MAIN_BG, line);
	ui_pane_file_requests(line, sizeof line, &dr->rpat);
	ui_text(win, y++, r->x, THEME_MAIN_FG, THEME_MAIN_BG, line);
	for (k = 0; k < 2; k++) {
		cnt = pattern_common(k ? &p->strides : &p->sizes, v, n);
		off = (size_t)snprintf(line, sizeof line, "common %s:", k ? "strides" : "sizes  ");
		for (i = 0; i < cnt && off < sizeof line - 64; i++)
			off += (size_t)snprintf(line + off, sizeof line - off, " %lld x%llu",
			    (long long)v[i], (unsigned long long)n[i]);
		if (cnt == 0)
			snprintf(line + off, sizeof line - off, " -");
		ui_text(win, y++, r->x, THEME_MAIN_FG, THEME_MAIN_BG, line);
	}
	/* The offset map in place of the histogram (m), with room for two findings below. */
	if (u->view.map)
		y = ui_pane_file_draw_map(u, dr, win, r, y, bottom - (dr->nfind > 0 ? 3 : 1));
	/* The size histogram: a row a bin, reads then writes, bars to the largest count. */
	for (d = 0; d < 2 && !u->view.map; d++)
		for (i = 0; i < PAT_BINS; i++)
			if (p->side[d].hist[i] > max)
				max = p->side[d].hist[i];
	barw = r->w > 40 ? (unsigned)(r->w - 40) / 2 : 4;
	if (barw > 40)
		barw = 40;
	if (y < bottom && !u->view.map)
		ui_text(win, y++, r->x, THEME_TITLE, THEME_MAIN_BG, "size histogram (Darshan's bins):"
		    "  reads | writes   (m: offset map)");
	for (i = 0; i < PAT_BINS && y < bottom - 1 && !u->view.map; i++) {
		off = (size_t)snprintf(line, sizeof line, "%9s ", pattern_bin_name(i));
		for (d = 0; d < 2; d++) {
			bar = (unsigned)((double)barw * (double)p->side[d].hist[i] / (double)max + 0.5);
			if (bar == 0 && p->side[d].hist[i] > 0)
				bar = 1;
			for (k = 0; k < barw; k++)
				line[off++] = k < bar ? '#' : ' ';
			off += (size_t)snprintf(line + off, sizeof line - off, " %8llu%s",
			    (unsigned long long)p->side[d].hist[i], d == 0 ? " | " : "");
		}
		ui_text(win, y++, r->x, THEME_MAIN_FG, THEME_MAIN_BG, line);
	}
	if (y < bottom)
		ui_text(win, y++, r->x, THEME_TITLE, THEME_MAIN_BG, dr->nfind > 0 ?
		    "insights on this file (i: all of them):" : "no insight on this file");
	for (i = 0; i < dr->nfind && y + 1 < bottom + 1; i++) {
		ui_text(win, y++, r->x, THEME_LOST, THEME_MAIN_BG, dr->find[i][0]);
		if (y < bottom) {
			snprintf(line, sizeof line, "     rule: %s", dr->find[i][1]);
			ui_text(win, y++, r->x, THEME_INACTIVE_FG, THEME_MAIN_BG, line);
		}
	}
}

/* Draw the files pane. */
static void
ui_pane_file_draw(struct ui_pane *p, WINDOW *win, const struct ui_rect *r)
{
	struct ui_state	*u = p->u;
	struct ui_file	*d = p->data;
	struct blktop	*b = u->b;

	if (d->rows == NULL)
		return;
	if (d->drill.path != NULL) {
		ui_pane_file_draw_drill(u, &d->drill, win, r);
		return;
	}
	ui_pane_file_order(p, 0);
	ui_table(u, win, r, ui_file_cols, UI_FC_MAX, d->tab.hidden |
	    (host_count() > 1 ? 0 : 1u << UI_FC_HOST), d->tab.norder, d->tab.sel,
	    &d->tab.top, d->tab.sortcol, d->tab.invert, ui_pane_file_cell, d);
	if (d->tab.norder == 0)
		ui_text(win, r->y + 2, r->x + 2, THEME_INACTIVE_FG,
		    THEME_MAIN_BG, b->procs == NULL ?
		    "per-file accounting is not enabled in this build" :
		    d->nrows > 0 ? "no file matches the filter" :
		    "no file I/O in the last interval (file events need VFS tracing)");
}

/* Keys of the files pane: move and sort. */
static int
ui_pane_file_key(struct ui_pane *p, enum ui_action a)
{
	struct ui_state	*u = p->u;
	struct ui_file	*d = p->data;
	uint32_t	 saved;
	int		 used;

	if (d->drill.path != NULL) {
		if (a != UI_BACK)
			return (a == UI_ENTER);
		free(d->drill.path);
		d->drill.path = NULL;
		return (1);
	}
	if (a == UI_ENTER) {
		if (d->tab.sel < d->tab.norder && u->b->procs != NULL) {
			d->drill.path = xstrdup(d->rows[d->tab.order[d->tab.sel]].path);
			d->drill.host = (int)d->rows[d->tab.order[d->tab.sel]].host1 - 1;
			ui_pane_file_drill_collect(d, u->b);
		}
		return (1);
	}
	saved = d->tab.hidden;	/* no sorting by HOST where it is not shown (one host) */
	d->tab.hidden |= host_count() > 1 ? 0 : 1u << UI_FC_HOST;
	used = ui_tab_key(u, &d->tab, a, d->rows, d->nrows);
	d->tab.hidden = saved;
	return (used);
}

/* A click selects a row. */
static void
ui_pane_file_click(struct ui_pane *p, const struct ui_rect *r, int y,
    __unused int x)
{
	struct ui_file	*d = p->data;
	int		 row;

	if (d->drill.path != NULL || (row = ui_tab_click(&d->tab, r, y)) < 0)
		return;
	d->tab.sel = (unsigned)row;
	ui_pane_file_remember(d, d->tab.order[row]);
}

/* The pane's defaults: its columns (made from their fields' rows the first time), the sort. */
static const struct ui_tab *
ui_pane_file_tab_default(void)
{
	unsigned	 i, k;

	if (ui_file_cols[0].name != NULL)
		return (&ui_file_tab);
	for (i = 0; i < UI_FC_MAX; i++) {
		ui_file_cols[i] = ui_file_show[i];
		if (i == UI_FC_HOST) {
			ui_file_cols[i].name = proc_fields[PROCF_HOST].ui.title;
			ui_file_cols[i].width = proc_fields[PROCF_HOST].ui.width;
			ui_file_cols[i].key = (enum proc_key)proc_fields[PROCF_HOST].top_key;
			continue;
		}
		k = i < UI_FC_HOST ? i : i - 1;
		ui_file_cols[i].name = file_fields[k].ui.title;
		ui_file_cols[i].width = file_fields[k].ui.width;
		ui_file_cols[i].key = (enum proc_key)file_fields[k].top_key;
	}
	return (&ui_file_tab);
}

/* The pane's state in a new UI: the table's defaults, no rows yet. */
static void *
ui_pane_file_init(void)
{
	struct ui_file	*d = xcalloc(1, sizeof *d);

	d->tab = *ui_pane_file_tab_default();
	d->tab.owner = d;
	return (d);
}

/* Free the pane's state and its snapshot. */
static void
ui_pane_file_free(void *data)
{
	struct ui_file	*d = data;

	ui_pane_file_clear(d);
	free(d->rows);
	free(d->tab.order);
	free(d->sel_path);
	free(d->drill.path);
	free(d);
}

/* The file drilled into, or the one selected: its path, and in id its host + 1 (0: none). */
static int
ui_pane_file_selected(struct ui_pane *p, uint64_t *id, const char **path)
{
	struct ui_file	*d = p->data;
	const struct ui_file_row *r = d->tab.sel < d->tab.norder ?
	    &d->rows[d->tab.order[d->tab.sel]] : NULL;

	*path = d->drill.path != NULL ? d->drill.path : r != NULL ? r->path : NULL;
	*id = d->drill.path != NULL ? (uint64_t)(d->drill.host + 1) : r != NULL ? r->host1 : 0;
	return (*path != NULL);
}

/* The table's sort and columns, for the config file. */
static struct ui_tab *
ui_pane_file_tab(struct ui_pane *p)
{
	struct ui_file	*d = p->data;

	return (&d->tab);
}

const struct pane_entry ui_pane_file = {
	.name = "files",
	.title = "Files",
	.init = ui_pane_file_init,
	.free = ui_pane_file_free,
	.collect = ui_pane_file_collect,
	.draw = ui_pane_file_draw,
	.key = ui_pane_file_key,
	.click = ui_pane_file_click,
	.tab = ui_pane_file_tab,
	.tab_default = ui_pane_file_tab_default,
	.selected = ui_pane_file_selected,
};
