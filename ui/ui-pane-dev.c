/* ui-pane-dev.c: the devices pane: an iostat-like line, a latency heatmap and sparklines per device. */

#include <curses.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "blktop.h"
#include "ui.h"
#include "field-dev.h"

#define UI_DEV_SCALE_W	7		/* right margin: sparkline scale ("12.3k") */
#define UI_DEV_NOGROUP	UINT64_MAX
#define UI_DEV_LINE_FIX	49		/* overview: a device line but its sparkline */
#define UI_DEV_LINE_LEFT 38		/* ... the part before the sparkline */
#define UI_DEV_SPARK_MAX 1281		/* overview: 1 + 64 log2(1 s / 1 us + 1) */

/*
 * Columns of closed tick groups never change: each device drawn keeps them
 * in a ring of cap slots (slot = group % cap), so a frame sums only the
 * newest, still open group instead of every tick on screen. A column keeps
 * its latencies as the heatmap's sub-rows, already summed from the buckets.
 */
struct ui_dev_cache {
	uint64_t	*group;		/* group in each slot, UI_DEV_NOGROUP */
	uint64_t	*sub;		/* cap x nsub */
	uint64_t	*qd;
	uint64_t	*iops;
	uint64_t	*p99;		/* ns, 0 where no request was timed */
	unsigned	 shift;		/* the device's map_shift its map columns were summed at */
};

/* How devices are drawn: as the space allows, one line each, a heatmap each. */
enum { UI_DEV_AUTO, UI_DEV_LINES, UI_DEV_BLOCKS };

/* Selection and buffers of the devices pane: its state in a UI (ui_pane's data). */
struct ui_dev {
	uint32_t	 sel_dev;	/* selected device, by dev_t (order may change) */
	unsigned	 top;
	int		 zoomed;	/* the selected device fills the pane */
	const struct devwin *shown[WINDOWS_MAX_DEVS];	/* devices listed, in order */
	unsigned	 shown_idx[WINDOWS_MAX_DEVS];	/* their index in windows.devs */
	unsigned	 nshown;
	unsigned	 first_shown;	/* index of the first block drawn */
	int		 block_h;	/* rows per device block, for clicks */
	uint64_t	*sub;		/* ncols x cache_nsub heatmap sub-rows */
	size_t		 sub_len;	/* entries allocated in sub */
	uint64_t	*qd;		/* per column: aqu-sz x 100 */
	uint64_t	*iops;		/* per column: IOPS x 10 */
	uint64_t	*p99;		/* per column: p99 latency, ns */
	uint64_t	*spark;		/* per column: what the overview's sparkline draws */
	uint8_t		*marks;		/* per column: a mark fell in it */
	size_t		 nvals;
	int		 lines;		/* UI_DEV_AUTO, _LINES (overview), _BLOCKS */
	int		 overview;	/* as drawn last: one line per device */
	unsigned	 ov_rows;	/* overview: lines per column of devices */
	unsigned	 ov_w;		/* overview: width of one device's line */
	struct draw_cell *cells;
	size_t		 ncells;
	struct ui_dev_cache cache[WINDOWS_MAX_DEVS];	/* by index in windows.devs */
	unsigned	 cache_cap;
	unsigned	 cache_ticks;	/* col_ticks, opmask and sub-rows the cache holds */
	unsigned	 cache_mask;
	unsigned	 cache_nsub;
};

/* The devices to list: the -D filter, then the / filter on the name. */
static void
ui_pane_dev_list(struct ui_pane *p)
{
	struct ui_state		*u = p->u;
	struct ui_dev		*d = p->data;
	struct blktop		*b = u->b;
	const struct devwin	*dw;
	unsigned		 i;

	d->nshown = 0;
	for (i = 0; i < b->win.ndevs; i++) {
		dw = b->win.devs[i];
		if (!ui_filter_match(u, device_name(dw->dev)))
			continue;
		d->shown_idx[d->nshown] = i;
		d->shown[d->nshown++] = dw;
	}
}

/* Index of the selected device in the list, selecting the first if it is gone. */
static unsigned
ui_pane_dev_sel(struct ui_dev *d)
{
	unsigned	 i;

	for (i = 0; i < d->nshown; i++) {
		if (d->shown[i]->dev == d->sel_dev)
			return (i);
	}
	if (d->nshown > 0)
		d->sel_dev = d->shown[0]->dev;
	return (0);
}

/* Make sure the column buffers hold ncols columns of nsub sub-rows. */
static void
ui_pane_dev_grow(struct ui_dev *d, unsigned ncols, unsigned nsub)
{
	if (d->sub_len < (size_t)ncols * nsub) {
		d->sub_len = (size_t)ncols * nsub;
		d->sub = xreallocarray(d->sub, d->sub_len,
		    sizeof *d->sub);
	}
	if (d->nvals < ncols) {
		d->nvals = ncols;
		d->qd = xreallocarray(d->qd, ncols, sizeof *d->qd);
		d->iops = xreallocarray(d->iops, ncols,
		    sizeof *d->iops);
		d->p99 = xreallocarray(d->p99, ncols, sizeof *d->p99);
		d->spark = xreallocarray(d->spark, ncols,
		    sizeof *d->spark);
		d->marks = xreallocarray(d->marks, ncols, sizeof *d->marks);
	}
}

/* Free every cached column. */
static void
ui_pane_dev_cache_free(struct ui_dev *d)
{
	unsigned	 i;

	for (i = 0; i < WINDOWS_MAX_DEVS; i++) {
		free(d->cache[i].group);
		free(d->cache[i].sub);
		free(d->cache[i].qd);
		free(d->cache[i].iops);
		free(d->cache[i].p99);
		memset(&d->cache[i], 0, sizeof d->cache[i]);
	}
}

/* Forget every cached column when the width, height, time per column or operations change. */
static void
ui_pane_dev_cache_check(struct ui_pane *p, unsigned ncols,
    unsigned nsub)
{
	struct ui_state	*u = p->u;
	struct ui_dev	*d = p->data;

	unsigned	 mask = u->view.opmask | (u->view.map ? 1u << 8 : 0);

	if (d->cache_cap == ncols && d->cache_ticks == u->view.col_ticks &&
	    d->cache_mask == mask && d->cache_nsub == nsub)
		return;
	ui_pane_dev_cache_free(d);
	d->cache_cap = ncols;
	d->cache_ticks = u->view.col_ticks;
	d->cache_mask = mask;
	d->cache_nsub = nsub;
}

/* The cache of device number i of the windows, allocated on first use. */
static struct ui_dev_cache *
ui_pane_dev_cache(struct ui_dev *d, unsigned i)
{
	struct ui_dev_cache	*c = &d->cache[i];
	unsigned		 s;

	if (c->group == NULL) {
		c->group = xcalloc(d->cache_cap, sizeof *c->group);
		for (s = 0; s < d->cache_cap; s++)
			c->group[s] = UI_DEV_NOGROUP;
		c->sub = xcalloc((size_t)d->cache_cap * d->cache_nsub,
		    sizeof *c->sub);
		c->qd = xcalloc(d->cache_cap, sizeof *c->qd);
		c->iops = xcalloc(d->cache_cap, sizeof *c->iops);
		c->p99 = xcalloc(d->cache_cap, sizeof *c->p99);
	}
	return (c);
}

/*
 * The offset map's column of group g: requests by where they start, the
 * device's MAP_BANDS bands spread over nsub sub-rows (band 0 at the bottom).
 */
static void
ui_pane_dev_map_column(const struct windows *w, const struct devwin *dw, uint64_t g,
    uint64_t view, unsigned ct, unsigned mask, unsigned nsub, uint64_t *sub)
{
	uint64_t		 band[MAP_BANDS] = { 0 }, a;
	const struct tick	*t;
	unsigned		 o, i, s, lo, hi;

	for (a = g * ct; a < (g + 1) * ct && a < view; a++) {
		if ((t = windows_tick_at(w, dw, (unsigned)(w->nclosed - a))) == NULL)
			continue;
		for (o = 0; o < OPC_MAX; o++) {
			if (!(mask & (1u << o)) || t->op[o].ios == 0)
				continue;
			for (i = 0; i < MAP_BANDS; i++)
				band[i] += t->op[o].band[i];
		}
	}
	for (s = 0; s < nsub; s++) {
		lo = s * MAP_BANDS / nsub;
		hi = (s + 1) * MAP_BANDS / nsub;
		if (hi <= lo)
			hi = lo + 1;
		sub[s] = 0;
		for (i = lo; i < hi && i < MAP_BANDS; i++)
			sub[s] += band[i];
	}
}

/* Sum the ticks of group g (view ticks closed) into cache slot s. */
static void
ui_pane_dev_group(struct ui_pane *p, const struct devwin *dw,
    struct ui_dev_cache *cc, unsigned s, uint64_t g, uint64_t view)
{
	struct ui_state		*u = p->u;
	struct ui_dev		*d = p->data;
	const struct blktop	*b = u->b;
	static uint64_t		 h[HIST_NBUCKETS];
	const struct windows	*w = &b->win;
	const struct tick	*t;
	unsigned		 ct = u->view.col_ticks, mask = u->view.opmask;
	unsigned		 o, i;
	uint64_t		 a, ios = 0, dur = 0, wait = 0, timed = 0, min = 0, max = 0;

	if (mask == 0)
		mask = (1u << OPC_MAX) - 1;
	memset(h, 0, HIST_NBUCKETS * sizeof *h);
	for (a = g * ct; a < (g + 1) * ct && a < view; a++) {
		if ((t = windows_tick_at(w, dw, (unsigned)(w->nclosed - a))) == NULL)
			continue;
		if (t->end > t->start)
			dur += t->end - t->start;
		wait += t->wait_sum;
		for (o = 0; o < OPC_MAX; o++) {
			if (!(mask & (1u << o)) || t->op[o].ios == 0)
				continue;
			ios += t->op[o].ios;
			for (i = 0; i < HIST_NBUCKETS; i++)
				h[i] += t->op[o].lat[i];
			if (t->op[o].timed == 0)
				continue;
			if (timed == 0 || t->op[o].lat_min < min)
				min = t->op[o].lat_min;
			if (t->op[o].lat_max > max)
				max = t->op[o].lat_max;
			timed += t->op[o].timed;
		}
	}
	if (u->view.map)
		ui_pane_dev_map_column(w, dw, g, view, ct, mask, d->cache_nsub,
		    cc->sub + (size_t)s * d->cache_nsub);
	else
		draw_heat_column(h, d->cache_nsub,
		    cc->sub + (size_t)s * d->cache_nsub);
	cc->p99[s] = timed > 0 ? (uint64_t)hist_percentile(h, timed, 99, min, max) : 0;
	cc->qd[s] = cc->iops[s] = 0;
	if (dur > 0) {
		cc->qd[s] = (uint64_t)((double)wait / (double)dur * 100 + 0.5);
		cc->iops[s] = (uint64_t)((double)ios * 1e10 / (double)dur + 0.5);
	}
	/* Only a whole group is final: the newest one is summed again next frame. */
	cc->group[s] = (g + 1) * ct <= view ? g : UI_DEV_NOGROUP;
}

/*
 * Fill ncols columns (oldest left) of heatmap sub-rows (nsub), aqu-sz and
 * IOPS for device number di. Columns are groups of col_ticks ticks aligned on
 * the tick count, so they do not shift at every tick; the newest holds the
 * last closed tick.
 */
static void
ui_pane_dev_columns(struct ui_pane *p, unsigned di, unsigned ncols,
    unsigned nsub, uint64_t view)
{
	struct ui_state		*u = p->u;
	struct ui_dev		*d = p->data;
	const struct blktop	*b = u->b;
	const struct devwin	*dw = b->win.devs[di];
	struct ui_dev_cache	*cc;
	uint64_t		*h, g, newest;
	unsigned		 c, s, ct = u->view.col_ticks;

	ui_pane_dev_cache_check(p, ncols, nsub);
	cc = ui_pane_dev_cache(d, di);
	/* The map widened: its columns were summed in narrower bands. */
	if (u->view.map && cc->shift != dw->map_shift) {
		for (s = 0; s < d->cache_cap; s++)
			cc->group[s] = UI_DEV_NOGROUP;
		cc->shift = dw->map_shift;
	}
	memset(d->qd, 0, ncols * sizeof *d->qd);
	memset(d->iops, 0, ncols * sizeof *d->iops);
	memset(d->p99, 0, ncols * sizeof *d->p99);
	newest = view > 0 ? (view - 1) / ct : 0;
	for (c = 0; c < ncols; c++) {
		h = d->sub + (size_t)c * nsub;
		if (view == 0 || ncols - 1 - c > newest) {
			memset(h, 0, nsub * sizeof *h);
			continue;
		}
		g = newest - (ncols - 1 - c);
		s = (unsigned)(g % d->cache_cap);
		if (cc->group[s] != g)
			ui_pane_dev_group(p, dw, cc, s, g, view);
		memcpy(h, cc->sub + (size_t)s * nsub, nsub * sizeof *h);
		d->qd[c] = cc->qd[s];
		d->iops[c] = cc->iops[s];
		d->p99[c] = cc->p99[s];
	}
}

/*
 * Sum the ticks of the heatmaps' newest column (a group of col_ticks ticks,
 * the newest maybe partly closed): the summary says what the last column
 * shows, never zeros beside a column with requests in it.
 */
static void
ui_pane_dev_sum(struct ui_pane *p, const struct devwin *dw, uint64_t view,
    struct sum *s)
{
	struct ui_state		*u = p->u;
	const struct blktop	*b = u->b;
	unsigned		 ago = (unsigned)(b->win.nclosed - view) + 1;
	unsigned		 n = view > 0 ?
	    (unsigned)((view - 1) % u->view.col_ticks) + 1 : 1;

	windows_sum(&b->win, dw, ago, n, s);
}

/* The devices pane's columns (dev_fields' rows: their .ui titles and widths), a heatmap each. */
static const struct dev_colref ui_dev_cols[] = {
	{ DEVF_NAME, 0 }, { DEVF_IOPS, OPC_READ }, { DEVF_IOPS, OPC_WRITE },
	{ DEVF_BYTES_S, OPC_READ }, { DEVF_BYTES_S, OPC_WRITE }, { DEVF_P50, OPC_READ },
	{ DEVF_P99, OPC_READ }, { DEVF_P50, OPC_WRITE }, { DEVF_P99, OPC_WRITE },
	{ DEVF_QD_AVG, 0 }, { DEVF_UTIL, 0 }, { DEVF_QD_MAX, 0 },
};

/* One line each (their .line titles and widths): these, its p99 trend, then the two after it. */
static const struct dev_colref ui_dev_line_cols[] = {
	{ DEVF_NAME, 0 }, { DEVF_IOPS, OPC_READ }, { DEVF_IOPS, OPC_WRITE },
	{ DEVF_BYTES_S, DEVF_RW }, { DEVF_P99, DEVF_ALL },
	{ DEVF_QD_AVG, 0 }, { DEVF_UTIL, 0 },
};
#define UI_DEV_LINE_TREND 5		/* ui_dev_line_cols before the trend */

/* The iostat-like summary of a device over the heatmaps' newest column. */
static void
ui_pane_dev_summary(struct ui_pane *p, const struct devwin *dw,
    uint64_t view, char *buf, size_t len)
{
	static struct sum	 s;	/* large: keep it off the stack */
	static struct dev_ctx	 x;

	ui_pane_dev_sum(p, dw, view, &s);
	dev_ctx_init(&x, dw->dev, &s, dw);
	ui_dev_cols_cells(&x, ui_dev_cols, nitems(ui_dev_cols), 0, buf, len);
}

/*
 * Marks (blktop --mark): which of the heatmap's columns hold one (marks[c]
 * set), for a triangle on its top row; 0 if none.
 */
static int
ui_pane_dev_marks(struct ui_pane *p, uint8_t *marks, unsigned ncols, uint64_t view,
    const struct devwin *dw)
{
	const struct blktop	*b = p->u->b;
	const struct windows	*w = &b->win;
	const struct tick	*t0, *t1;
	uint64_t		 first, g, a0, a1, newest, lo, hi;
	unsigned		 c, i, n, ct = p->u->view.col_ticks;
	int			 any = 0;

	memset(marks, 0, ncols);
	n = b->phases != NULL ? phase_marks(b->phases, 0, &first) : 0;
	if (n == 0 || view == 0 || ct == 0)
		return (0);
	newest = (view - 1) / ct;
	for (c = 0; c < ncols; c++) {
		if (ncols - 1 - c > newest)
			continue;
		g = newest - (ncols - 1 - c);
		a0 = g * ct;
		a1 = (g + 1) * ct < view ? (g + 1) * ct : view;
		if ((t0 = windows_tick_at(w, dw, (unsigned)(w->nclosed - a0))) == NULL ||
		    (t1 = windows_tick_at(w, dw, (unsigned)(w->nclosed - (a1 - 1)))) == NULL)
			continue;
		lo = t0->start;
		hi = t1->end != 0 ? t1->end : UINT64_MAX;
		for (i = 0; i < n; i++) {
			uint64_t ts = phase_mark(b->phases, first + i)->ts;

			if (ts >= lo && ts < hi) {
				marks[c] = 1;
				any = 1;
				break;
			}
		}
	}
	return (any);
}

/* A sparkline of one column value per heatmap column, with its label and scale. */
static void
ui_pane_dev_spark(struct ui_pane *p, WINDOW *win, int y, int x,
    unsigned height, unsigned ncols, const uint64_t *vals, double unit,
    const char *label, enum theme_colour base)
{
	struct ui_state		*u = p->u;
	struct ui_dev		*d = p->data;
	enum draw_spark_style	 style;
	uint64_t		 max = 0;
	size_t			 need = (size_t)height * ncols;
	unsigned		 c;
	char			 buf[16], num[16];

	if (height == 0 || ncols == 0)
		return;
	for (c = 0; c < ncols; c++) {
		if (vals[c] > max)
			max = vals[c];
	}
	snprintf(buf, sizeof buf, "%*s ", DRAW_LABEL_WIDTH, label);
	ui_text(win, y + (int)height - 1, x, THEME_GRAPH_TEXT,
	    THEME_MAIN_BG, buf);
	if (d->ncells < need) {
		d->cells = xreallocarray(d->cells, need,
		    sizeof *d->cells);
		d->ncells = need;
	}
	style = (u->view.flags & DRAW_UTF8) ? DRAW_SPARK_BLOCK :
	    DRAW_SPARK_ASCII;
	draw_spark(vals, ncols, max, style, height, base, d->cells);
	ui_draw_cells(win, y, x + DRAW_LABEL_WIDTH + 1, d->cells, height,
	    ncols);
	if (unit >= 100 && (double)max / unit < 100)
		snprintf(buf, sizeof buf, " %6.2f", (double)max / unit);
	else
		snprintf(buf, sizeof buf, " %s", ui_layout_rate(num, sizeof num,
		    (double)max / unit));
	ui_text(win, y, x + DRAW_LABEL_WIDTH + 1 + (int)ncols,
	    THEME_GRAPH_TEXT, THEME_MAIN_BG, buf);
}

/* Overview: the sparkline value of a p99 latency, log-scaled from 1 us to 1 s. */
static uint64_t
ui_pane_dev_p99_step(uint64_t ns)
{
	uint64_t	 v;

	if (ns == 0)
		return (0);
	v = 1 + (uint64_t)(log2((double)ns / 1000.0 + 1) * 64);
	return (v < UI_DEV_SPARK_MAX ? v : UI_DEV_SPARK_MAX);
}

/*
 * Overview: one device's line, w wide, at y, x: name, r/s, w/s, MB/s and
 * p99 over the last display interval ("-" where no request was timed), its
 * p99 over time as a sparkline (blank where there was no I/O), aqu-sz, %util.
 */
static void
ui_pane_dev_line(struct ui_pane *p, WINDOW *win, int y, int x, int w,
    unsigned i, uint64_t view, int selected)
{
	struct ui_state		*u = p->u;
	struct ui_dev		*d = p->data;
	static struct sum	 s;	/* large: keep them off the stack */
	static struct dev_ctx	 dx;
	const struct devwin	*dw = d->shown[i];
	unsigned		 c;
	unsigned		 ncols = w > UI_DEV_LINE_FIX ? (unsigned)(w - UI_DEV_LINE_FIX) : 0;
	char			 line[1024], fitted[1024], left[256], right[64];
	enum theme_colour	 fg = selected ? THEME_SELECTED_FG : THEME_MAIN_FG;
	enum theme_colour	 bg = selected ? THEME_SELECTED_BG : THEME_MAIN_BG;

	ui_pane_dev_sum(p, dw, view, &s);
	dev_ctx_init(&dx, dw->dev, &s, dw);
	ui_dev_cols_cells(&dx, ui_dev_line_cols, UI_DEV_LINE_TREND, 1, left, sizeof left);
	ui_dev_cols_cells(&dx, ui_dev_line_cols + UI_DEV_LINE_TREND,
	    nitems(ui_dev_line_cols) - UI_DEV_LINE_TREND, 1, right, sizeof right);
	snprintf(line, sizeof line, "%s %*s %s", left, (int)ncols, "", right);
	ui_fit(u, fitted, sizeof fitted, line, w, 1);
	ui_text(win, y, x, fg, bg, fitted);
	if (ncols == 0)
		return;
	ui_pane_dev_columns(p, d->shown_idx[i], ncols, 2, view);
	for (c = 0; c < ncols; c++)
		d->spark[c] = ui_pane_dev_p99_step(d->p99[c]);
	if (d->ncells < ncols) {
		d->cells = xreallocarray(d->cells, ncols, sizeof *d->cells);
		d->ncells = ncols;
	}
	draw_spark(d->spark, ncols, UI_DEV_SPARK_MAX, (u->view.flags & DRAW_UTF8) ?
	    DRAW_SPARK_BLOCK : DRAW_SPARK_ASCII, 1, THEME_HEAT_0, d->cells);
	ui_draw_cells(win, y, x + UI_DEV_LINE_LEFT, d->cells, 1, ncols);
}

/* Overview: the devices in columns of lines, as many as fit. */
static void
ui_pane_dev_overview(struct ui_pane *p, WINDOW *win, const struct ui_rect *r,
    unsigned sel, uint64_t view)
{
	struct ui_state	*u = p->u;
	struct ui_dev	*d = p->data;
	unsigned	 ncolumns, col, row, i;
	int		 w, x, spark;
	char		 title[1024], head[1024], left[256], right[64];

	d->ov_rows = ui_layout_dev_lines(d->nshown, r->w, r->h - 1,
	    &ncolumns, &w);
	d->ov_w = (unsigned)w;
	if (d->ov_rows == 0)
		return;
	d->top = ui_layout_scroll(sel % d->ov_rows, d->top,
	    (unsigned)(r->h - 1), d->ov_rows);
	spark = w > UI_DEV_LINE_FIX ? w - UI_DEV_LINE_FIX : 0;
	ui_pane_dev_grow(d, spark > 0 ? (unsigned)spark : 1, 2);
	ui_dev_cols_head(ui_dev_line_cols, UI_DEV_LINE_TREND, 1, left, sizeof left);
	ui_dev_cols_head(ui_dev_line_cols + UI_DEV_LINE_TREND,
	    nitems(ui_dev_line_cols) - UI_DEV_LINE_TREND, 1, right, sizeof right);
	snprintf(head, sizeof head, "%s %-*.*s %s", left, spark, spark, "p99 trend", right);
	ui_fit(u, title, sizeof title, head, w, 1);
	for (col = 0; col < ncolumns; col++) {
		x = r->x + (int)col * (w + 1);
		ui_text(win, r->y, x, THEME_TITLE, THEME_MAIN_BG, title);
		for (row = d->top; row < d->top + (unsigned)(r->h - 1) &&
		    row < d->ov_rows; row++) {
			i = col * d->ov_rows + row;
			if (i >= d->nshown)
				break;
			ui_pane_dev_line(p, win, r->y + 1 + (int)(row - d->top), x, w,
			    i, view, i == sel);
		}
	}
}

/* Draw the devices pane. */
static void
ui_pane_dev_draw(struct ui_pane *p, WINDOW *win, const struct ui_rect *r)
{
	struct ui_state		*u = p->u;
	struct ui_dev		*d = p->data;
	struct blktop		*b = u->b;
	const struct devwin	*dw;
	unsigned		 fit, heat, spark, sel, i, ncols;
	uint64_t		 view = ui_view_nclosed(u);
	int			 y, cols;
	char			 line[256], head[192], ops[32];

	ui_pane_dev_list(p);
	if (d->nshown == 0) {
		ui_text(win, r->y + 2, r->x + 2, THEME_INACTIVE_FG,
		    THEME_MAIN_BG, b->win.ndevs == 0 ? "no block I/O seen yet" :
		    "no device matches the filter");
		return;
	}
	sel = ui_pane_dev_sel(d);
	fit = ui_layout_dev_rows(d->zoomed ? 1 : d->nshown, r->h - 1,
	    d->zoomed, &heat, &spark);
	/* One line per device when asked, or when the heatmaps do not all fit. */
	d->overview = !d->zoomed && (d->lines == UI_DEV_LINES ||
	    (d->lines == UI_DEV_AUTO && d->nshown > 1 &&
	    (fit < d->nshown || heat == 0)));
	if (d->overview) {
		ui_pane_dev_overview(p, win, r, sel, view);
		return;
	}
	snprintf(ops, sizeof ops, "  %s of %s", u->view.map ? "offset map" : "latency",
	    u->view.opmask == 0 ?
	    "all" : u->view.opmask == 1u << OPC_READ ? "reads" : "writes");
	ui_dev_cols_head(ui_dev_cols, nitems(ui_dev_cols), 0, head, sizeof head);
	snprintf(line, sizeof line, "%s%s", head, r->w >= 100 ? ops : "");
	ui_text(win, r->y, r->x, THEME_TITLE, THEME_MAIN_BG, line);
	if (fit == 0)
		return;
	d->block_h = (int)(1 + heat + 2 * spark);
	if (d->zoomed)
		d->top = sel;
	else
		d->top = ui_layout_scroll(sel, d->top, fit,
		    d->nshown);
	d->first_shown = d->top;
	cols = r->w - DRAW_LABEL_WIDTH - 1 - UI_DEV_SCALE_W;
	ncols = cols > 0 ? (unsigned)cols : 0;
	ui_pane_dev_grow(d, ncols > 0 ? ncols : 1, heat > 0 ? 2 * heat : 1);

	y = r->y + 1;
	for (i = d->top; i < d->top + fit && i < d->nshown; i++) {
		dw = d->shown[i];
		ui_pane_dev_summary(p, dw, view, line, sizeof line);
		if (i == sel) {
			char pad[512];

			snprintf(pad, sizeof pad, "%-*.*s", r->w, r->w, line);
			ui_text(win, y, r->x, THEME_SELECTED_FG,
			    THEME_SELECTED_BG, pad);
		} else
			ui_text(win, y, r->x, THEME_MAIN_FG, THEME_MAIN_BG,
			    line);
		y++;
		if (heat == 0 || ncols == 0) {
			y += (int)(heat + 2 * spark);
			continue;
		}
		ui_pane_dev_columns(p, d->shown_idx[i], ncols, 2 * heat,
		    view);
		ui_heatmap(u, win, y, r->x, heat, ncols, d->sub,
		    ui_pane_dev_marks(p, d->marks, ncols, view, dw) ? d->marks : NULL,
		    u->view.map ? (int)dw->map_shift : -1);
		y += (int)heat;
		ui_pane_dev_spark(p, win, y, r->x, spark, ncols, d->qd, 100,
		    "qd", THEME_QD_0);
		y += (int)spark;
		ui_pane_dev_spark(p, win, y, r->x, spark, ncols, d->iops, 10,
		    "iops", THEME_IOPS_0);
		y += (int)spark;
	}
}

/* Keys of the devices pane: move the selection, zoom in and out. */
static int
ui_pane_dev_key(struct ui_pane *p, enum ui_action a)
{
	struct ui_state	*u = p->u;
	struct ui_dev	*d = p->data;
	unsigned	 sel;

	ui_pane_dev_list(p);
	sel = ui_pane_dev_sel(d);
	switch (a) {
	case UI_UP:
		if (sel > 0)
			sel--;
		break;
	case UI_DOWN:
	case UI_PAGE_DOWN:
		if (sel + 1 < d->nshown)
			sel++;
		break;
	case UI_PAGE_UP:
		if (sel > 0)
			sel--;
		break;
	case UI_HOME:
		sel = 0;
		break;
	case UI_END:
		sel = d->nshown > 0 ? d->nshown - 1 : 0;
		break;
	case UI_ENTER:
		d->zoomed = !d->zoomed;
		return (1);
	case UI_DEV_VIEW:
		d->zoomed = 0;
		d->lines = d->overview ? UI_DEV_BLOCKS : UI_DEV_LINES;
		ui_status(u, "devices: %s", d->lines == UI_DEV_LINES ?
		    "one line each" : "a heatmap each");
		return (1);
	case UI_BACK:
		if (!d->zoomed)
			return (0);
		d->zoomed = 0;
		return (1);
	default:
		return (0);
	}
	if (sel < d->nshown)
		d->sel_dev = d->shown[sel]->dev;
	return (1);
}

/* A click selects the device whose block it falls in. */
static void
ui_pane_dev_click(struct ui_pane *p, const struct ui_rect *r, int y, int x)
{
	struct ui_dev	*d = p->data;
	unsigned	 i;

	ui_pane_dev_list(p);
	if (d->zoomed || y <= r->y)
		return;
	if (d->overview) {
		if (d->ov_rows == 0 || x < r->x)
			return;
		i = (unsigned)(x - r->x) / (d->ov_w + 1) * d->ov_rows +
		    d->top + (unsigned)(y - r->y - 1);
		if (d->top + (unsigned)(y - r->y - 1) >= d->ov_rows)
			return;
	} else if (d->block_h <= 0)
		return;
	else
		i = d->first_shown + (unsigned)((y - r->y - 1) / d->block_h);
	if (i < d->nshown)
		d->sel_dev = d->shown[i]->dev;
}

/*
 * The config file's devices.view in a UI: set it to v (0 auto, 1 lines, 2
 * heatmaps) if v >= 0; what it is.
 */
int
ui_pane_dev_view(struct ui_state *u, int v)
{
	struct ui_dev	*d = ui_pane_data(u, &ui_pane_dev);

	if (v >= 0)
		d->lines = v;
	return (d->lines);
}

/* The pane's state in a new UI: nothing selected, nothing drawn yet. */
static void *
ui_pane_dev_init(void)
{
	return (xcalloc(1, sizeof(struct ui_dev)));
}

/* Free the pane's state and its buffers. */
static void
ui_pane_dev_free(void *data)
{
	struct ui_dev	*d = data;

	free(d->sub);
	free(d->qd);
	free(d->iops);
	free(d->p99);
	free(d->spark);
	free(d->marks);
	free(d->cells);
	ui_pane_dev_cache_free(d);
	free(d);
}

const struct pane_entry ui_pane_dev = {
	.name = "devices",
	.title = "Devices",
	.init = ui_pane_dev_init,
	.free = ui_pane_dev_free,
	.draw = ui_pane_dev_draw,
	.key = ui_pane_dev_key,
	.click = ui_pane_dev_click,
};
