/* ui-widget.c: widgets the panes draw with: text cut to the window, a heatmap, a sortable table. */

#include <sys/ioctl.h>
#include <sys/utsname.h>

#include <curses.h>
#include <dirent.h>
#include <errno.h>
#include <event2/event.h>
#include <limits.h>
#include <locale.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>

#include "blktop.h"
#include "ui.h"


/* Whether a name or path passes the / filter. */
int
ui_filter_match(const struct ui_state *u, const char *s)
{
	return (ui_layout_match(s, u->filter));
}

/*
 * Draw text at y, x cut to the window's right edge (ui_draw_text would wrap).
 * Every string the UI shows comes here, names from the kernel, a capture or
 * a log among them (mark labels, the plan, n/a reasons): name_text makes each
 * control (a CR would move the cursor) and invisible character one '?'.
 */
void
ui_text(WINDOW *win, int y, int x, enum theme_colour fg, enum theme_colour bg,
    const char *text)
{
	char	 buf[1024], safe[1024];
	int	 avail = getmaxx(win) - x, n = 0;
	size_t	 i = 0;
	const char *s = safe;

	if (avail <= 0 || y < 0 || y >= getmaxy(win))
		return;
	name_text(safe, sizeof safe, text, strlen(text));
	if ((int)strlen(s) <= avail) {
		ui_draw_text(win, y, x, fg, bg, s);
		return;
	}
	/* Count characters, not bytes: continuation bytes take no column. */
	while (s[i] != '\0' && i + 1 < sizeof buf) {
		if (((unsigned char)s[i] & 0xc0) != 0x80 && n++ == avail)
			break;
		buf[i] = s[i];
		i++;
	}
	buf[i] = '\0';
	ui_draw_text(win, y, x, fg, bg, buf);
}

/*
 * Draw the heatmap axis labels and nrows x ncols cells from ncols columns of
 * 2 * nrows sub-row counts (draw_heat_column); a column with marks[c] set
 * (marks NULL: none) gets a triangle on its top row, a mark's place in time.
 * With map_shift >= 0 it is an offset map, labelled in bytes from the start.
 */
void
ui_heatmap(struct ui_state *u, WINDOW *win, int y, int x, unsigned nrows,
    unsigned ncols, const uint64_t *sub, const uint8_t *marks, int map_shift)
{
	const char	*label;
	char		 off[16];
	uint64_t	 band;
	size_t		 need = (size_t)nrows * ncols;
	unsigned	 r;
	char		 buf[DRAW_LABEL_WIDTH + 2];

	if (nrows == 0 || ncols == 0)
		return;
	for (r = 0; r < nrows; r++) {
		label = draw_heat_label(r, nrows);
		/* An offset map: the bytes where the row's bands begin, on the same rows. */
		if (map_shift >= 0 && label != NULL) {
			band = (uint64_t)(2 * (nrows - 1 - r)) * MAP_BANDS / (2 * nrows);
			label = draw_fmt_bytes(off, sizeof off, (band << map_shift) * 512);
			while (*label == ' ')
				label++;
		}
		snprintf(buf, sizeof buf, "%*s ", DRAW_LABEL_WIDTH,
		    label != NULL ? label : "");
		ui_text(win, y + (int)r, x, THEME_GRAPH_TEXT, THEME_MAIN_BG,
		    buf);
	}
	if (u->ncells < need) {
		u->cells = xreallocarray(u->cells, need, sizeof *u->cells);
		u->ncells = need;
	}
	draw_heatmap_sub(sub, ncols, nrows, u->view.heat_coarse ?
	    u->view.flags & ~DRAW_UTF8 : u->view.flags, u->cells);
	for (r = 0; marks != NULL && r < ncols; r++) {
		if (!marks[r])
			continue;
		snprintf(u->cells[r].glyph, sizeof u->cells[r].glyph, "%s",
		    u->view.flags & DRAW_UTF8 ? "\xe2\x96\xbe" : "v");
		u->cells[r].fg = THEME_TITLE;
	}
	ui_draw_cells(win, y, x + DRAW_LABEL_WIDTH + 1, u->cells, nrows, ncols);
}

/* Pad or cut s to exactly w columns into buf (s is ASCII or already made safe). */
void
ui_fit(const struct ui_state *u, char *buf, size_t len, const char *s, int w,
    int left)
{
	int	 n = (int)draw_text_width(s);

	if (n > w) {
		draw_path(buf, len, s, (unsigned)w, u->view.flags);
		n = (int)draw_text_width(buf);
		snprintf(buf + strlen(buf), len - strlen(buf), "%*s", w - n, "");
		return;
	}
	if (left)
		snprintf(buf, len, "%s%*s", s, w - n, "");
	else
		snprintf(buf, len, "%*s%s", w - n, "", s);
}

/*
 * Draw a sortable table in r: a header row, then rows from *top, the selected
 * one highlighted; cell(row, col, buf, len, arg) formats one cell. Adjusts *top
 * to keep sel visible and returns the number of rows that fit.
 */
unsigned
ui_table(const struct ui_state *u, WINDOW *win, const struct ui_rect *r,
    const struct ui_col *cols, unsigned ncols, uint32_t hidden, unsigned nrows,
    unsigned sel, unsigned *top, int sortcol, int invert,
    void (*cell)(unsigned, unsigned, char *, size_t, void *), void *arg)
{
	int		 widths[32], x, y;
	unsigned	 c, i, visible;
	char		 text[VFS_PATH_MAX + 64], fitted[VFS_PATH_MAX + 64];
	enum theme_colour fg, bg;

	if (r->h < 1 || ncols > nitems(widths))
		return (0);
	ui_layout_cols(cols, ncols, hidden, r->w, widths);
	x = r->x;
	for (c = 0; c < ncols; c++) {
		if (widths[c] == 0)
			continue;
		if (x > r->x)
			x++;
		/* The sort column's name carries the direction where it fits. */
		if ((int)c == sortcol && (int)strlen(cols[c].name) < widths[c])
			snprintf(text, sizeof text, cols[c].left ? "%s%s" : "%2$s%1$s",
			    cols[c].name, (u->view.flags & DRAW_UTF8) ?
			    (invert ? "\u25b4" : "\u25be") : (invert ? "^" : "v"));
		else
			snprintf(text, sizeof text, "%s", cols[c].name);
		ui_fit(u, fitted, sizeof fitted, text, widths[c], cols[c].left);
		ui_text(win, r->y, x, (int)c == sortcol ? THEME_HI_FG :
		    THEME_TITLE, THEME_MAIN_BG, fitted);
		x += widths[c];
	}
	visible = (unsigned)(r->h - 1);
	if (sel == (unsigned)-1)
		*top = 0;	/* no selection */
	else
		*top = ui_layout_scroll(sel, *top, visible, nrows);
	for (i = *top, y = r->y + 1; i < nrows && y < r->y + r->h; i++, y++) {
		fg = i == sel ? THEME_SELECTED_FG : THEME_MAIN_FG;
		bg = i == sel ? THEME_SELECTED_BG : THEME_MAIN_BG;
		x = r->x;
		if (i == sel) {
			snprintf(fitted, sizeof fitted, "%*s", r->w, "");
			ui_text(win, y, x, fg, bg, fitted);
		}
		for (c = 0; c < ncols; c++) {
			if (widths[c] == 0)
				continue;
			if (x > r->x)
				x++;
			text[0] = '\0';
			cell(i, c, text, sizeof text, arg);
			if (cols[c].width == 0 && cols[c].left)
				draw_path(fitted, sizeof fitted, text,
				    (unsigned)widths[c], u->view.flags);
			else
				ui_fit(u, fitted, sizeof fitted, text, widths[c],
				    cols[c].left);
			ui_text(win, y, x, fg, bg, fitted);
			x += widths[c];
		}
	}
	return (visible);
}
