/* ui-tab.c: what the table panes share: filter, sort and selection kept across intervals, keys and clicks. */

#include <stdlib.h>
#include <string.h>

#include "blktop.h"
#include "ui.h"

/* A column's value: its value function's, or the uint64_t counter at c->off. */
static inline double
ui_tab_value(const struct ui_col *c, const void *row)
{
	if (c->value != NULL)
		return (c->value(c, row));
	return ((double)*(const uint64_t *)(const void *)((const char *)row + c->off));
}

/*
 * qsort_r's comparison by the sort column: largest first (smallest for an
 * ascending column), names A to Z, then the pane's tie; turned round when
 * inverted.
 */
static int
ui_tab_cmp(const void *a, const void *b, void *arg)
{
	const struct ui_tab	*t = arg;
	const struct ui_col	*c = &t->cols[t->sortcol];
	double			 va, vb;
	int			 r;

	if (c->by_name)
		r = strcmp(t->name(a), t->name(b));
	else {
		va = ui_tab_value(c, a);
		vb = ui_tab_value(c, b);
		r = va > vb ? -1 : va < vb ? 1 : 0;
		if (c->ascending)
			r = -r;
	}
	if (r == 0)
		r = t->tie(a, b);
	return (t->invert ? -r : r);
}

/* A column's value: the opens, failed ones included, of the counters at c->off. */
double
ui_tab_opens(const struct ui_col *c, const void *row)
{
	const struct proc_counts *pc = (const void *)((const char *)row + c->off);

	return ((double)(pc->opens + pc->open_fails));
}

/*
 * List the rows passing the / filter in t->order, sorting them first if
 * asked; the row the pane kept selected stays selected.
 */
void
ui_tab_order(const struct ui_state *u, struct ui_tab *t, void *rows,
    unsigned nrows, int sort)
{
	const char	*row;
	unsigned	 i;

	if (sort)
		qsort_r(rows, nrows, t->rowsize, ui_tab_cmp, t);
	t->norder = 0;
	for (i = 0; i < nrows; i++) {
		row = (const char *)rows + (size_t)i * t->rowsize;
		if (!ui_filter_match(u, t->name(row)))
			continue;
		if (t->kept(t->owner, row))
			t->sel = t->norder;
		t->order[t->norder++] = i;
	}
	if (t->sel >= t->norder)
		t->sel = t->norder > 0 ? t->norder - 1 : 0;
}

/*
 * Moving and sorting keys of a table; 0 if the key is not one. The pane's
 * remember notes the selected row; a new order is sorted and said.
 */
int
ui_tab_key(struct ui_state *u, struct ui_tab *t, enum ui_action a, void *rows,
    unsigned nrows)
{
	int	 i;

	if (!ui_layout_table_key(a, &t->sel, t->norder, &t->sortcol, t->ncols,
	    &t->invert))
		return (0);
	/* A hidden column is not sorted by: on to the next shown one. */
	for (i = 0; i < t->ncols && t->sortcol < 32 && (t->hidden >> t->sortcol & 1) &&
	    (a == UI_SORT_LEFT || a == UI_SORT_RIGHT); i++)
		ui_layout_table_key(a, &t->sel, t->norder, &t->sortcol, t->ncols,
		    &t->invert);
	if (t->sel < t->norder)
		t->remember(t->owner, t->order[t->sel]);
	if (a == UI_SORT_LEFT || a == UI_SORT_RIGHT || a == UI_SORT_INVERT) {
		ui_tab_order(u, t, rows, nrows, 1);
		ui_status(u, "sorted by %s%s", t->cols[t->sortcol].name,
		    t->invert ? ", inverted" : "");
	}
	return (1);
}

/* The row a click at y falls on (the header is r->y), or -1. */
int
ui_tab_click(const struct ui_tab *t, const struct ui_rect *r, int y)
{
	unsigned	 row;

	if (y <= r->y)
		return (-1);
	row = t->top + (unsigned)(y - r->y - 1);
	if (row >= t->norder)
		return (-1);
	return ((int)row);
}

/* A count as a rate per second of the interval. */
void
ui_tab_fmt_rate(const struct ui_col *c, const void *row, double secs, char *buf,
    size_t len)
{
	ui_layout_rate(buf, len, ui_tab_value(c, row) / secs);
}

/* Bytes as MB per second of the interval. */
void
ui_tab_fmt_mb(const struct ui_col *c, const void *row, double secs, char *buf,
    size_t len)
{
	ui_layout_rate(buf, len, ui_tab_value(c, row) / secs / 1e6);
}

/* A percentage, "-" if not known (below 0). */
void
ui_tab_fmt_pct(const struct ui_col *c, const void *row, __unused double secs,
    char *buf, size_t len)
{
	ui_layout_pct(buf, len, ui_tab_value(c, row));
}

/* The string the row points to at c->off. */
void
ui_tab_fmt_str(const struct ui_col *c, const void *row, __unused double secs,
    char *buf, size_t len)
{
	snprintf(buf, len, "%s", *(char *const *)(const void *)((const char *)row +
	    c->off));
}

/*
 * A latency, the uint64_t at c->off; with no read or write (n[0] + n[1]) in
 * the interval: "-", not a latency of 0.
 */
void
ui_tab_lat(const struct ui_col *c, const void *row, const uint64_t *n, char *buf,
    size_t len)
{
	if (n[0] + n[1] == 0)
		snprintf(buf, len, "-");
	else
		draw_fmt_lat(buf, len, *(const uint64_t *)(const void *)
		    ((const char *)row + c->off));
}
