/* ui-layout.c: pure layout and formatting decisions of the panes, kept apart to be tested. */

#include <ctype.h>
#include <string.h>

#include "blktop.h"
#include "ui.h"

/* Seconds per heatmap column that + and - step through. */
static const unsigned ui_layout_zooms[] = { 1, 2, 5, 10, 15, 30, 60 };

/*
 * Fit table columns into width: fixed columns left to right while they fit,
 * one space apart, keeping at least 8 columns for the flexible one (width 0)
 * if there is one; it gets what is left. widths[i] is set for every column,
 * 0 for those left out and those hidden (a fixed column's bit in hidden). Returns how many columns are shown.
 */
unsigned
ui_layout_cols(const struct ui_col *cols, unsigned ncols, uint32_t hidden,
    int width, int *widths)
{
	unsigned	 i, shown = 0;
	int		 used = 0, flex = -1, reserve = 0, full = 0;

	for (i = 0; i < ncols; i++) {
		if (cols[i].width == 0 && flex == -1) {
			flex = (int)i;
			reserve = 9;
		}
	}
	for (i = 0; i < ncols; i++) {
		widths[i] = 0;
		if (cols[i].width == 0 || full || (i < 32 && (hidden >> i & 1)))
			continue;
		if (used + (used > 0) + cols[i].width + reserve > width) {
			full = 1;
			continue;
		}
		used += (used > 0) + cols[i].width;
		widths[i] = cols[i].width;
		shown++;
	}
	if (flex != -1 && width - used - (used > 0) >= 8) {
		widths[flex] = width - used - (used > 0);
		shown++;
	}
	return (shown);
}

/*
 * Rows of each device block in the devices pane (one summary line, a heatmap
 * and two sparklines below it) so that all devices fit in height, sharing it,
 * or else as many as fit with 4-row heatmaps (the pane scrolls);
 * zoomed, one device takes it all. Returns how many device blocks fit (0 if
 * not even one), with the heatmap and per-sparkline heights.
 */
unsigned
ui_layout_dev_rows(unsigned ndevs, int height, int zoomed,
    unsigned *heat_rows, unsigned *spark_rows)
{
	unsigned	 fit, block;
	int		 heat;

	*heat_rows = *spark_rows = 0;
	if (ndevs == 0 || height < 2)
		return (0);
	if (zoomed || ndevs == 1) {
		/* One device: sparklines of 1..4 rows, the heatmap the rest. */
		*spark_rows = height >= 24 ? 4 : height >= 14 ? 2 : height >= 8 ? 1 : 0;
		heat = height - 1 - 2 * (int)*spark_rows;
		*heat_rows = heat > 0 ? (unsigned)heat : 0;
		return (1);
	}
	/* Several: all of them with heatmaps of at least 4 rows, or scroll. */
	heat = height / (int)ndevs - 3;
	if (heat < 4)
		heat = 4;
	block = 1 + (unsigned)heat + 2;
	fit = (unsigned)height / block;
	if (fit == 0) {
		/* Not even one block: summary lines only. */
		fit = (unsigned)height < ndevs ? (unsigned)height : ndevs;
		return (fit);
	}
	*heat_rows = (unsigned)heat;
	*spark_rows = 1;
	return (fit < ndevs ? fit : ndevs);
}

/*
 * The devices pane's overview: n devices, one line each, in columns (filled
 * top to bottom, then left to right, as ls does) of lines width wide and
 * height rows high (below a title). As many columns as all devices need to
 * fit, if each can be UI_LAYOUT_LINE_MIN wide; else as many as the width
 * holds, the lines then taller than height (the pane scrolls). Returns the
 * lines per column (0 if nothing fits), with the columns and their width.
 */
unsigned
ui_layout_dev_lines(unsigned n, int width, int height, unsigned *ncolumns, int *w)
{
	unsigned	 k, maxk;

	*ncolumns = 0;
	*w = 0;
	if (n == 0 || height < 1 || width < 1)
		return (0);
	maxk = (unsigned)(width + 1) / (UI_LAYOUT_LINE_MIN + 1);
	if (maxk == 0)
		maxk = 1;
	k = (n + (unsigned)height - 1) / (unsigned)height;
	if (k > maxk)
		k = maxk;
	*ncolumns = k;
	*w = (width + 1) / (int)k - 1;
	return ((n + k - 1) / k);
}

/* First row to show so that sel is visible, moving top as little as possible. */
unsigned
ui_layout_scroll(unsigned sel, unsigned top, unsigned visible, unsigned n)
{
	if (visible == 0 || n == 0)
		return (0);
	if (sel >= n)
		sel = n - 1;
	if (sel < top)
		top = sel;
	if (sel >= top + visible)
		top = sel - visible + 1;
	if (top + visible > n)
		top = n > visible ? n - visible : 0;
	return (top);
}

/* Window ticks making one heatmap column of col_secs seconds, at least 1. */
unsigned
ui_layout_col_ticks(unsigned col_secs, uint64_t tick_ns)
{
	uint64_t	 n;

	if (tick_ns == 0)
		return (1);
	n = ((uint64_t)col_secs * NSEC_PER_SEC + tick_ns / 2) / tick_ns;
	return (n == 0 ? 1 : (unsigned)n);
}

/* The next zoom step from col_secs: dir > 0 more seconds, dir < 0 fewer. */
unsigned
ui_layout_zoom(unsigned col_secs, int dir)
{
	unsigned	 i, n = nitems(ui_layout_zooms);

	for (i = 0; i < n && ui_layout_zooms[i] < col_secs; i++)
		;
	if (i == n)
		i = n - 1;
	if (dir > 0 && ui_layout_zooms[i] <= col_secs && i + 1 < n)
		i++;
	else if (dir < 0 && i > 0)
		i--;
	return (ui_layout_zooms[i]);
}

/* A percentage in 4 columns, whole: "100", "97", "0"; "-" when not known (< 0). */
char *
ui_layout_pct(char *buf, size_t len, double v)
{
	if (v < 0)
		snprintf(buf, len, "%4s", "-");
	else
		snprintf(buf, len, "%4.0f", v > 100 ? 100 : v);
	return (buf);
}

/* A rate in 6 columns: "0", "12.3", "1234", "12.3k", "123M". */
char *
ui_layout_rate(char *buf, size_t len, double v)
{
	static const char	 units[] = " kMGTP";
	unsigned		 u = 0;

	if (v < 0.05) {
		snprintf(buf, len, "%6s", "0");
		return (buf);
	}
	if (v < 100) {
		snprintf(buf, len, "%6.1f", v);
		return (buf);
	}
	if (v < 10000) {
		snprintf(buf, len, "%6.0f", v);
		return (buf);
	}
	while (v >= 1000 && u < sizeof units - 2) {
		v /= 1000;
		u++;
	}
	if (v < 99.95)
		snprintf(buf, len, "%5.1f%c", v, units[u]);
	else
		snprintf(buf, len, "%5.0f%c", v, units[u]);
	return (buf);
}

/* Whether s contains filter, ignoring case; an empty filter matches all. */
int
ui_layout_match(const char *s, const char *filter)
{
	size_t	 i, n = strlen(filter);

	if (n == 0)
		return (1);
	for (; *s != '\0'; s++) {
		for (i = 0; i < n && s[i] != '\0'; i++) {
			if (tolower((unsigned char)s[i]) !=
			    tolower((unsigned char)filter[i]))
				break;
		}
		if (i == n)
			return (1);
	}
	return (0);
}

/*
 * The keys every table shares: move the selection over nrows rows, change or
 * invert the sort column among ncols. Returns 1 if the action was one of them.
 */
int
ui_layout_table_key(enum ui_action a, unsigned *sel, unsigned nrows, int *sortcol,
    int ncols, int *invert)
{
	const unsigned	 page = 10;
	unsigned	 last = nrows > 0 ? nrows - 1 : 0;

	switch (a) {
	case UI_UP:
		if (*sel > 0)
			(*sel)--;
		break;
	case UI_DOWN:
		if (*sel < last)
			(*sel)++;
		break;
	case UI_PAGE_UP:
		*sel = *sel > page ? *sel - page : 0;
		break;
	case UI_PAGE_DOWN:
		*sel = *sel + page < last ? *sel + page : last;
		break;
	case UI_HOME:
		*sel = 0;
		break;
	case UI_END:
		*sel = last;
		break;
	case UI_SORT_LEFT:
		*sortcol = (*sortcol + ncols - 1) % ncols;
		break;
	case UI_SORT_RIGHT:
		*sortcol = (*sortcol + 1) % ncols;
		break;
	case UI_SORT_INVERT:
		*invert = !*invert;
		break;
	default:
		return (0);
	}
	return (1);
}
