/* ui-pane-file.c: the files pane: a top-like sortable table of the busiest files by path. */

#include <curses.h>
#include <stdlib.h>
#include <string.h>

#include "blktop.h"
#include "ui.h"

#define UI_FILE_ROWS	1024		/* rows kept per interval (proc_top_files' most) */

/* One file as it was over the last display interval. */
struct ui_file_row {
	char			*path;
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
	UI_FC_P99, UI_FC_PIDS, UI_FC_PATH, UI_FC_MAX
};

static double	 ui_pane_file_hit(const struct ui_col *, const void *);
static double	 ui_pane_file_pid(const struct ui_col *, const void *);
static double	 ui_pane_file_dbl(const struct ui_col *, const void *);
static void	 ui_pane_file_fmt_size(const struct ui_col *, const void *, double, char *, size_t);
static void	 ui_pane_file_fmt_disk(const struct ui_col *, const void *, double, char *, size_t);
static void	 ui_pane_file_fmt_lat(const struct ui_col *, const void *, double, char *, size_t);
static void	 ui_pane_file_fmt_pids(const struct ui_col *, const void *, double, char *, size_t);

/* A column of a uint64_t counter of the row, how it prints. */
#define UI_FC_U64(field, fn)	.off = offsetof(struct ui_file_row, field), .fmt = (fn)

/*
 * The columns; the path takes what is left and is shortened in the middle.
 * key: the proc_top_files key that picks the rows worth keeping when sorted by it.
 */
static const struct ui_col ui_file_cols[UI_FC_MAX] = {
	[UI_FC_CR] = { "rcall/s", 7, 0, .key = PROC_KEY_VFS_READS,
	    UI_FC_U64(c.vfs_calls[0], ui_tab_fmt_rate) },
	[UI_FC_CW] = { "wcall/s", 7, 0, .key = PROC_KEY_VFS_WRITES,
	    UI_FC_U64(c.vfs_calls[1], ui_tab_fmt_rate) },
	[UI_FC_RMB] = { "rMB/s", 6, 0, .key = PROC_KEY_VFS_READ_BYTES,
	    UI_FC_U64(c.vfs_bytes[0], ui_tab_fmt_mb) },
	[UI_FC_WMB] = { "wMB/s", 6, 0, .key = PROC_KEY_VFS_WRITE_BYTES,
	    UI_FC_U64(c.vfs_bytes[1], ui_tab_fmt_mb) },
	[UI_FC_DRMB] = { "drMB/s", 6, 0, .key = PROC_KEY_DISK_READ_BYTES,
	    UI_FC_U64(c.disk_bytes[0], ui_pane_file_fmt_disk) },
	[UI_FC_DWMB] = { "dwMB/s", 6, 0, .key = PROC_KEY_DISK_WRITE_BYTES,
	    UI_FC_U64(c.disk_bytes[1], ui_pane_file_fmt_disk) },
	[UI_FC_HIT] = { "hit%", 4, 0, .key = PROC_KEY_VFS_READ_BYTES,
	    .value = ui_pane_file_hit, .fmt = ui_tab_fmt_pct },
	[UI_FC_SEQ] = { "seq%", 4, 0, .key = PROC_KEY_VFS_READS,
	    .off = offsetof(struct ui_file_row, seq), .value = ui_pane_file_dbl,
	    .fmt = ui_tab_fmt_pct },
	[UI_FC_SIZE] = { "size", 5, 0, .key = PROC_KEY_VFS_READS,
	    .off = offsetof(struct ui_file_row, size), .value = ui_pane_file_dbl,
	    .fmt = ui_pane_file_fmt_size },
	[UI_FC_OPEN] = { "open/s", 6, 0, .key = PROC_KEY_OPENS,
	    .off = offsetof(struct ui_file_row, c), .value = ui_tab_opens,
	    .fmt = ui_tab_fmt_rate },
	[UI_FC_P50] = { "p50", DRAW_LAT_WIDTH, 0, .key = PROC_KEY_LAT,
	    UI_FC_U64(p50, ui_pane_file_fmt_lat) },
	[UI_FC_P99] = { "p99", DRAW_LAT_WIDTH, 0, .key = PROC_KEY_LAT,
	    UI_FC_U64(p99, ui_pane_file_fmt_lat) },
	[UI_FC_PIDS] = { "PIDS", 13, 1, .key = PROC_KEY_LAT,
	    .value = ui_pane_file_pid, .fmt = ui_pane_file_fmt_pids },
	[UI_FC_PATH] = { "PATH", 0, 1, .by_name = 1, .key = PROC_KEY_LAT,
	    .off = offsetof(struct ui_file_row, path), .fmt = ui_tab_fmt_str },
};

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

/* The files pane's rows, order and selection: its state in a UI (ui_pane's data). */
struct ui_file {
	struct ui_file_row *rows;
	unsigned	 nrows;
	struct ui_tab	 tab;		/* order, sort and selection */
	double		 secs;
	char		*sel_path;	/* keeps the selection across intervals */
};

/* Equal in the sort column: paths A to Z. */
static int
ui_pane_file_tie(const void *a, const void *b)
{
	const struct ui_file_row *x = a, *y = b;

	return (strcmp(x->path, y->path));
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

	return (d->sel_path != NULL &&
	    strcmp(((const struct ui_file_row *)row)->path, d->sel_path) == 0);
}

/* Remember a file's path as the selection. */
static void
ui_pane_file_remember(void *owner, unsigned row)
{
	struct ui_file	*d = owner;

	free(d->sel_path);
	d->sel_path = xstrdup(d->rows[row].path);
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
	ui_pane_file_clear(d);
	d->secs = secs;
	n = proc_top_files(b->procs, ui_file_cols[d->tab.sortcol].key, 0, top,
	    UI_FILE_ROWS);
	for (i = 0; i < n; i++) {
		f = top[i];
		r = &d->rows[i];
		model_file_path(b->procs, f, path, sizeof path);
		r->path = xstrdup(path);
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

/* Draw the files pane. */
static void
ui_pane_file_draw(struct ui_pane *p, WINDOW *win, const struct ui_rect *r)
{
	struct ui_state	*u = p->u;
	struct ui_file	*d = p->data;
	struct blktop	*b = u->b;

	if (d->rows == NULL)
		return;
	ui_pane_file_order(p, 0);
	ui_table(u, win, r, ui_file_cols, UI_FC_MAX, d->tab.hidden,
	    d->tab.norder, d->tab.sel,
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

	return (ui_tab_key(u, &d->tab, a, d->rows, d->nrows));
}

/* A click selects a row. */
static void
ui_pane_file_click(struct ui_pane *p, const struct ui_rect *r, int y,
    __unused int x)
{
	struct ui_file	*d = p->data;
	int		 row;

	if ((row = ui_tab_click(&d->tab, r, y)) < 0)
		return;
	d->tab.sel = (unsigned)row;
	ui_pane_file_remember(d, d->tab.order[row]);
}

/* The pane's state in a new UI: the table's defaults, no rows yet. */
static void *
ui_pane_file_init(void)
{
	struct ui_file	*d = xcalloc(1, sizeof *d);

	d->tab = ui_file_tab;
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
	free(d);
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
	.tab_default = &ui_file_tab,
};
