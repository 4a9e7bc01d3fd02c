/* ui.c: the live terminal UI: screen, layout, redraw scheduling, keys, help and status lines. */

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

#define UI_MIN_W	40		/* smaller than this: "terminal too small" */
#define UI_MIN_H	8
#define UI_STATUS_TICKS	5		/* a status message stays this many ticks */
#define UI_THEMES_MAX	32
#define UI_FILTER_MAX	64

/* The panes, in tab order. */
static const struct pane_entry *ui_panes[] = {
	&ui_pane_dev, &ui_pane_proc, &ui_pane_file
};

struct ui_view ui_view = { .col_secs = 1, .col_ticks = 1, .filter = "" };

/* Everything the screen keeps between frames. */
static struct {
	struct blktop	*b;
	int		 running;
	struct event	*key_ev;
	struct event	*winch_ev;
	struct event	*redraw_ev;
	int		 redraw_pending;
	unsigned	 pane;
	int		 help;
	int		 editing;	/* the filter is being typed */
	char		 filter[UI_FILTER_MAX];
	char		 edit[UI_FILTER_MAX];
	char		 status[160];
	unsigned	 status_ticks;
	struct theme	 theme;
	char		 theme_arg[THEME_ARG_MAX];	/* -t, "" for none */
	char		*themes[UI_THEMES_MAX];	/* names or paths 't' cycles through */
	unsigned	 nthemes;
	unsigned	 theme_idx;
	unsigned	 ticks;		/* ticks since the last display interval */
	uint64_t	 last_ts;	/* stream time of the last interval end */
	uint64_t	 last_events;
	double		 evps;		/* events per second over the last interval */
	double		 secs;		/* length of the last interval */
	char		 host[80];
	char		 kernel[80];
	int		 tabs_x[nitems(ui_panes) + 1];	/* tab columns on the tab row */
	struct ui_rect	 pane_rect;
	struct draw_cell *cells;	/* heatmap cells, reused */
	size_t		 ncells;
	uint64_t	 frames;
} ui;

/* Compare two theme names for qsort. */
static int
ui_theme_cmp(const void *a, const void *b)
{
	return (strcmp(*(char *const *)a, *(char *const *)b));
}

/* The themes 't' cycles through: -t first, "default", then every other file of the theme dir. */
static void
ui_theme_list(void)
{
	DIR		*d;
	struct dirent	*de;
	size_t		 len;
	unsigned	 first;

	if (ui.theme_arg[0] != '\0')
		ui.themes[ui.nthemes++] = xstrdup(ui.theme_arg);
	if (ui.theme_arg[0] == '\0' || strcmp(ui.theme_arg, "default") != 0)
		ui.themes[ui.nthemes++] = xstrdup("default");
	first = ui.nthemes;
	if ((d = opendir(theme_dir())) == NULL)
		return;
	while ((de = readdir(d)) != NULL && ui.nthemes < UI_THEMES_MAX) {
		len = strlen(de->d_name);
		if (len <= 6 || de->d_name[0] == '.' ||
		    strcmp(de->d_name + len - 6, ".theme") != 0)
			continue;
		de->d_name[len - 6] = '\0';
		if (strcmp(de->d_name, "default") == 0 ||
		    strcmp(de->d_name, ui.theme_arg) == 0)
			continue;
		ui.themes[ui.nthemes++] = xstrdup(de->d_name);
	}
	closedir(d);
	qsort(ui.themes + first, ui.nthemes - first, sizeof *ui.themes,
	    ui_theme_cmp);
}

/* Set a message for the status line; it goes after a few ticks. */
void
ui_status(const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	vsnprintf(ui.status, sizeof ui.status, fmt, ap);
	va_end(ap);
	ui.status_ticks = UI_STATUS_TICKS;
	ui_redraw();
}

/* Schedule one redraw at the end of this loop turn, whoever asks and however often. */
void
ui_redraw(void)
{
	if (!ui.running || ui.redraw_pending)
		return;
	ui.redraw_pending = 1;
	event_active(ui.redraw_ev, EV_TIMEOUT, 1);
}

/* The number of closed ticks the view shows: frozen while paused. */
uint64_t
ui_view_nclosed(const struct blktop *b)
{
	if (ui_view.paused && ui_view.pause_nclosed <= b->win.nclosed)
		return (ui_view.pause_nclosed);
	return (b->win.nclosed);
}

/* Whether a name or path passes the / filter. */
int
ui_filter_match(const char *s)
{
	return (ui_layout_match(s, ui.filter));
}

/* Draw text at y, x cut to the window's right edge (ui_draw_text would wrap). */
void
ui_text(WINDOW *win, int y, int x, enum theme_colour fg, enum theme_colour bg,
    const char *s)
{
	char	 buf[1024];
	int	 avail = getmaxx(win) - x, n = 0;
	size_t	 i = 0;

	if (avail <= 0 || y < 0 || y >= getmaxy(win))
		return;
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
 * 2 * nrows sub-row counts (draw_heat_column).
 */
void
ui_heatmap(WINDOW *win, int y, int x, unsigned nrows, unsigned ncols,
    const uint64_t *sub)
{
	const char	*label;
	size_t		 need = (size_t)nrows * ncols;
	unsigned	 r;
	char		 buf[DRAW_LABEL_WIDTH + 2];

	if (nrows == 0 || ncols == 0)
		return;
	for (r = 0; r < nrows; r++) {
		label = draw_heat_label(r, nrows);
		snprintf(buf, sizeof buf, "%*s ", DRAW_LABEL_WIDTH,
		    label != NULL ? label : "");
		ui_text(win, y + (int)r, x, THEME_GRAPH_TEXT, THEME_MAIN_BG,
		    buf);
	}
	if (ui.ncells < need) {
		ui.cells = xreallocarray(ui.cells, need, sizeof *ui.cells);
		ui.ncells = need;
	}
	draw_heatmap_sub(sub, ncols, nrows, ui_view.heat_coarse ?
	    ui_view.flags & ~DRAW_UTF8 : ui_view.flags, ui.cells);
	ui_draw_cells(win, y, x + DRAW_LABEL_WIDTH + 1, ui.cells, nrows, ncols);
}

/* Pad or cut s to exactly w columns into buf (s is ASCII or already made safe). */
static void
ui_fit(char *buf, size_t len, const char *s, int w, int left)
{
	int	 n = (int)draw_text_width(s);

	if (n > w) {
		draw_path(buf, len, s, (unsigned)w, ui_view.flags);
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
ui_table(WINDOW *win, const struct ui_rect *r, const struct ui_col *cols,
    unsigned ncols, unsigned nrows, unsigned sel, unsigned *top, int sortcol,
    int invert, void (*cell)(unsigned, unsigned, char *, size_t, void *),
    void *arg)
{
	int		 widths[32], x, y;
	unsigned	 c, i, visible;
	char		 text[VFS_PATH_MAX + 64], fitted[VFS_PATH_MAX + 64];
	enum theme_colour fg, bg;

	if (r->h < 1 || ncols > nitems(widths))
		return (0);
	ui_layout_cols(cols, ncols, r->w, widths);
	x = r->x;
	for (c = 0; c < ncols; c++) {
		if (widths[c] == 0)
			continue;
		if (x > r->x)
			x++;
		/* The sort column's name carries the direction where it fits. */
		if ((int)c == sortcol && (int)strlen(cols[c].name) < widths[c])
			snprintf(text, sizeof text, cols[c].left ? "%s%s" : "%2$s%1$s",
			    cols[c].name, (ui_view.flags & DRAW_UTF8) ?
			    (invert ? "\u25b4" : "\u25be") : (invert ? "^" : "v"));
		else
			snprintf(text, sizeof text, "%s", cols[c].name);
		ui_fit(fitted, sizeof fitted, text, widths[c], cols[c].left);
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
				    (unsigned)widths[c], ui_view.flags);
			else
				ui_fit(fitted, sizeof fitted, text, widths[c],
				    cols[c].left);
			ui_text(win, y, x, fg, bg, fitted);
			x += widths[c];
		}
	}
	return (visible);
}

/* Restore the terminal: after a fatal error, at exit, and on quit. */
static void
ui_restore(void)
{
	if (ui.running && !isendwin()) {
		endwin();
		fflush(stdout);
	}
}

/* log_fatal_hook: the message must land on a normal screen. */
static void
ui_fatal_hook(void)
{
	ui_restore();
	ui.running = 0;
}

/* Set the screen's background to the theme's main colours. */
static void
ui_background(void)
{
	cchar_t		 bg;
	attr_t		 attrs;
	short		 pair;
	int		 ext = 0;

	ui_draw_set(stdscr, THEME_MAIN_FG, THEME_MAIN_BG);
	wattr_get(stdscr, &attrs, &pair, &ext);
	setcchar(&bg, L" ", attrs, pair, &ext);
	wbkgrndset(stdscr, &bg);
	wattr_set(stdscr, A_NORMAL, 0, NULL);
}

/* Apply the current theme to the terminal. */
static void
ui_apply_theme(void)
{
	enum ui_colour_mode	 mode;

	mode = ui_draw_init(&ui.theme, UI_COLOUR_AUTO);
	ui_view.flags = ui_draw_flags();
	ui_view.heat_coarse = mode == UI_COLOUR_8 || mode == UI_COLOUR_16;
	ui_background();
}

/* Load the next theme of the list. */
static void
ui_next_theme(void)
{
	struct theme	 t;
	char		*cause;
	unsigned	 i;

	for (i = 1; i <= ui.nthemes; i++) {
		const char *name = ui.themes[(ui.theme_idx + i) % ui.nthemes];

		if (strcmp(name, "default") == 0 &&
		    theme_load(&t, name, theme_dir(), &cause) != 0) {
			free(cause);
			theme_default(&t);
		} else if (theme_load(&t, name, theme_dir(), &cause) != 0) {
			ui_status("theme %s: %s", name, cause);
			free(cause);
			continue;
		}
		ui.theme_idx = (ui.theme_idx + i) % ui.nthemes;
		ui.theme = t;
		ui_apply_theme();
		ui_status("theme %s", ui.theme.name);
		return;
	}
}

/* One header line of text at y, x; returns the column after it. */
static int
ui_put(int y, int x, enum theme_colour fg, const char *s)
{
	if (x >= COLS)
		return (x);
	ui_text(stdscr, y, x, fg, THEME_MAIN_BG, s);
	return (x + (int)draw_text_width(s));
}

/* The two header lines: who and when, rates and loss; then the tabs and the probe plan. */
static void
ui_draw_header(struct blktop *b)
{
	struct source_status st;
	const char	*rec;
	char		 buf[512], when[16];
	time_t		 t;
	struct tm	 tm;
	int		 x;
	unsigned	 i;

	t = (time_t)(((int64_t)b->win.tick_start + b->mono_to_wall) /
	    (int64_t)NSEC_PER_SEC);
	localtime_r(&t, &tm);
	strftime(when, sizeof when, "%H:%M:%S", &tm);
	x = ui_put(0, 0, THEME_TITLE, "blktop ");
	snprintf(buf, sizeof buf, "%s %s  %s  %s  interval %gs  column %us  ",
	    ui.host, ui.kernel, b->src != NULL ? b->src->entry->name : "?", when,
	    b->interval, ui_view.col_secs);
	x = ui_put(0, x, THEME_MAIN_FG, buf);
	snprintf(buf, sizeof buf, "%.0f ev/s  ", ui.evps);
	x = ui_put(0, x, THEME_MAIN_FG, buf);
	snprintf(buf, sizeof buf, "lost %llu", (unsigned long long)b->lost);
	x = ui_put(0, x, b->lost > 0 ? THEME_LOST : THEME_MAIN_FG, buf);
	if ((rec = record_status(b)) != NULL) {
		snprintf(buf, sizeof buf, "  rec %s", rec);
		x = ui_put(0, x, THEME_LOST, buf);
	} else
		x = ui_put(0, x, THEME_INACTIVE_FG, "  rec off");
	if (b->src->entry->status != NULL) {
		memset(&st, 0, sizeof st);
		b->src->entry->status(b->src, &st);
		if (st.speed > 0)
			snprintf(buf, sizeof buf, "  x%g%s", st.speed,
			    st.at_end ? " end" : st.paused ? " paused" : "");
		else
			snprintf(buf, sizeof buf, "  max%s", st.at_end ? " end" :
			    st.paused ? " paused" : "");
		x = ui_put(0, x, THEME_HI_FG, buf);
	}
	if (ui_view.paused)
		ui_put(0, x + 2, THEME_LOST, "PAUSED");

	x = 0;
	for (i = 0; i < nitems(ui_panes); i++) {
		ui.tabs_x[i] = x;
		snprintf(buf, sizeof buf, " %u %s ", i + 1, ui_panes[i]->title);
		ui_text(stdscr, 1, x, i == ui.pane ? THEME_SELECTED_FG :
		    THEME_INACTIVE_FG, i == ui.pane ? THEME_SELECTED_BG :
		    THEME_MAIN_BG, buf);
		x += (int)strlen(buf) + 1;
	}
	ui.tabs_x[i] = x;
	snprintf(buf, sizeof buf, " plan %s", b->plan_text[0] != '\0' ?
	    b->plan_text : "-");
	if (x + (int)strlen(buf) < COLS)
		ui_put(1, COLS - (int)strlen(buf), THEME_GRAPH_TEXT, buf);
}

/* The bottom line: the filter being typed, a message, or the main keys. */
static void
ui_draw_status(void)
{
	char	 buf[256];
	int	 y = LINES - 1;

	if (ui.editing) {
		snprintf(buf, sizeof buf, "filter: %s_  (Enter apply, Esc cancel)",
		    ui.edit);
		ui_put(y, 0, THEME_HI_FG, buf);
		return;
	}
	if (ui.status[0] != '\0') {
		ui_put(y, 0, THEME_HI_FG, ui.status);
		return;
	}
	snprintf(buf, sizeof buf, "q quit  ? help  Tab pane  Enter drill  "
	    "Space pause  +/- time  / filter%s%s", ui.filter[0] != '\0' ?
	    ": " : "", ui.filter);
	ui_put(y, 0, THEME_INACTIVE_FG, buf);
}

/* The help screen, generated from the key table. */
static void
ui_draw_help(const struct ui_rect *r)
{
	char		 lines[64][96];
	unsigned	 n, i, col, ncolumns, per;

	n = ui_keys_help(lines, nitems(lines));
	ui_put(r->y, r->x, THEME_TITLE, "Keys (any key closes this help)");
	per = (unsigned)(r->h - 2);
	if (per == 0)
		return;
	ncolumns = (n + per - 1) / per;
	for (i = 0; i < n; i++) {
		col = i / per;
		if (ncolumns > 1 && (int)(col + 1) * (r->w / (int)ncolumns) >
		    r->w + 1)
			break;
		ui_text(stdscr, r->y + 2 + (int)(i % per),
		    r->x + (int)col * (r->w / (int)ncolumns), THEME_MAIN_FG,
		    THEME_MAIN_BG, lines[i]);
	}
}

/* Draw the whole screen once. */
static void
ui_draw(struct blktop *b)
{
	struct ui_rect	 r;
	const char	*small = "terminal too small";

	ui_draw_begin();
	erase();
	if (COLS < UI_MIN_W || LINES < UI_MIN_H) {
		ui_text(stdscr, 0, 0, THEME_LOST, THEME_MAIN_BG,
		    COLS >= (int)strlen(small) ? small : "too small");
		ui_draw_flush();
		return;
	}
	ui_draw_header(b);
	r.y = 2;
	r.x = 0;
	r.h = LINES - 3;
	r.w = COLS;
	ui.pane_rect = r;
	if (ui.help)
		ui_draw_help(&r);
	else
		ui_panes[ui.pane]->draw(b, stdscr, &r);
	ui_draw_status();
	ui_draw_flush();
	ui.frames++;
}

/* Draw one frame now, of a pane by its tab index or the current one (-1): for benchmarks. */
void
ui_frame(struct blktop *b, int pane)
{
	if (pane >= 0 && pane < (int)nitems(ui_panes))
		ui.pane = (unsigned)pane;
	if (ui.running)
		ui_draw(b);
}

/* The redraw event: one per loop turn at most. */
static void
ui_redraw_cb(__unused int fd, __unused short what, void *arg)
{
	ui.redraw_pending = 0;
	if (ui.running)
		ui_draw(arg);
}

/* Follow the terminal's new size. */
static void
ui_resize(void)
{
	struct winsize	 ws;

	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 &&
	    ws.ws_col > 0)
		resizeterm(ws.ws_row, ws.ws_col);
	clearok(curscr, TRUE);
	ui_redraw();
}

/* SIGWINCH. */
static void
ui_winch_cb(__unused int sig, __unused short what, __unused void *arg)
{
	ui_resize();
}

/* Leave the loop as SIGINT does, reporting what is pending. */
static void
ui_quit(struct blktop *b)
{
	raise(SIGTERM);
	(void)b;
}

/* The replay keys: step, seek and speed, where the source has them. */
static void
ui_replay_action(struct blktop *b, enum ui_action a)
{
	const struct source_entry	*e = b->src->entry;
	struct source_status		 st;

	if (e->step == NULL || e->seek == NULL || e->seek_start == NULL ||
	    e->set_speed == NULL || e->status == NULL) {
		ui_status("that key is for replays (blktop -r FILE)");
		return;
	}
	memset(&st, 0, sizeof st);
	e->status(b->src, &st);
	switch (a) {
	case UI_STEP:
		e->step(b->src);
		break;
	case UI_SEEK_BACK:
		e->seek(b->src, -10);
		break;
	case UI_SEEK_FWD:
		e->seek(b->src, 10);
		break;
	case UI_SEEK_START:
		e->seek_start(b->src);
		break;
	case UI_SEEK_END:
		e->seek(b->src, 1e9);
		break;
	case UI_SLOWER:
		e->set_speed(b->src, st.speed == 0 ? 64 : st.speed / 2);
		break;
	case UI_FASTER:
		e->set_speed(b->src, st.speed == 0 || st.speed >= 64 ? 0 : st.speed * 2);
		break;
	default:
		return;
	}
	e->status(b->src, &st);
	if (st.speed == 0)
		ui_status("replay as fast as possible");
	else
		ui_status("replay at %gx%s", st.speed, st.paused ? ", paused" : "");
}

/* Apply an action that is not the pane's. */
static void
ui_action(struct blktop *b, enum ui_action a)
{
	char	*msg;

	switch (a) {
	case UI_QUIT:
		ui_quit(b);
		break;
	case UI_HELP:
		ui.help = 1;
		break;
	case UI_NEXT_PANE:
		ui.pane = (ui.pane + 1) % nitems(ui_panes);
		break;
	case UI_PANE_DEV:
	case UI_PANE_PROC:
	case UI_PANE_FILE:
		ui.pane = a - UI_PANE_DEV;
		break;
	case UI_PAUSE:
		if (b->src->entry->pause != NULL && b->src->entry->status != NULL) {
			struct source_status st;

			/* A replay pauses the stream itself: nothing to collect. */
			memset(&st, 0, sizeof st);
			b->src->entry->pause(b->src);
			b->src->entry->status(b->src, &st);
			ui_status(st.paused ? "replay paused" : "replay resumed");
			break;
		}
		ui_view.paused = !ui_view.paused;
		ui_view.pause_nclosed = b->win.nclosed;
		ui_status(ui_view.paused ? "display paused (collection goes on)" :
		    "display resumed");
		break;
	case UI_ZOOM_OUT:
	case UI_ZOOM_IN:
		ui_view.col_secs = ui_layout_zoom(ui_view.col_secs,
		    a == UI_ZOOM_OUT ? 1 : -1);
		ui_view.col_ticks = ui_layout_col_ticks(ui_view.col_secs,
		    b->tick_ns);
		ui_status("%u s per heatmap column", ui_view.col_secs);
		break;
	case UI_OPS:
		ui_view.opmask = ui_view.opmask == 0 ? 1u << OPC_READ :
		    ui_view.opmask == 1u << OPC_READ ? 1u << OPC_WRITE : 0;
		ui_status("heatmap of %s", ui_view.opmask == 0 ? "all requests" :
		    ui_view.opmask == 1u << OPC_READ ? "reads" : "writes");
		break;
	case UI_THEME:
		ui_next_theme();
		break;
	case UI_FILTER:
		ui.editing = 1;
		snprintf(ui.edit, sizeof ui.edit, "%s", ui.filter);
		break;
	case UI_RECORD:
		msg = NULL;
		record_toggle(b, &msg);
		if (msg != NULL) {
			ui_status("%s", msg);
			free(msg);
		}
		break;
	case UI_STEP:
	case UI_SEEK_BACK:
	case UI_SEEK_FWD:
	case UI_SEEK_START:
	case UI_SEEK_END:
	case UI_SLOWER:
	case UI_FASTER:
		ui_replay_action(b, a);
		break;
	case UI_REDRAW:
		clearok(curscr, TRUE);	/* whatever else wrote on the terminal goes */
		break;
	case UI_BACK:
		if (ui.filter[0] != '\0') {
			ui.filter[0] = '\0';
			ui_status("filter cleared");
		}
		break;
	default:
		break;
	}
}

/* One key typed into the filter line. */
static void
ui_edit_key(int key, int is_code)
{
	size_t		 len = strlen(ui.edit);
	char		 mb[MB_LEN_MAX];
	mbstate_t	 st;
	size_t		 n;

	if (!is_code && (key == '\n' || key == '\r')) {
		snprintf(ui.filter, sizeof ui.filter, "%s", ui.edit);
		ui.editing = 0;
		return;
	}
	if (!is_code && key == 0x1b) {
		ui.editing = 0;
		return;
	}
	if ((is_code && key == KEY_BACKSPACE) || (!is_code && (key == 0x7f ||
	    key == 0x08))) {
		/* Drop one whole UTF-8 character. */
		while (len > 0 && (ui.edit[len - 1] & 0xc0) == 0x80)
			len--;
		if (len > 0)
			len--;
		ui.edit[len] = '\0';
		return;
	}
	if (is_code || key < 0x20 || key == 0x7f)
		return;
	memset(&st, 0, sizeof st);
	if ((n = wcrtomb(mb, (wchar_t)key, &st)) == (size_t)-1)
		return;
	if (len + n < sizeof ui.edit) {
		memcpy(ui.edit + len, mb, n);
		ui.edit[len + n] = '\0';
	}
}

/* A mouse event: tabs switch panes, the wheel moves, clicks in a pane select. */
static void
ui_mouse(struct blktop *b)
{
	MEVENT		 me;
	unsigned	 i;
	const struct ui_rect *r = &ui.pane_rect;

	if (getmouse(&me) != OK)
		return;
	if (ui.help) {
		ui.help = 0;
		return;
	}
	if (me.bstate & BUTTON4_PRESSED) {
		ui_panes[ui.pane]->key(b, UI_UP);
		return;
	}
#ifdef BUTTON5_PRESSED
	if (me.bstate & BUTTON5_PRESSED) {
		ui_panes[ui.pane]->key(b, UI_DOWN);
		return;
	}
#endif
	if (!(me.bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED |
	    BUTTON1_RELEASED)))
		return;
	if (me.y == 1) {
		for (i = 0; i < nitems(ui_panes); i++) {
			if (me.x >= ui.tabs_x[i] && me.x < ui.tabs_x[i + 1])
				ui.pane = i;
		}
		return;
	}
	if (me.y >= r->y && me.y < r->y + r->h && ui_panes[ui.pane]->click != NULL)
		ui_panes[ui.pane]->click(b, r, me.y, me.x);
}

/* One key from the terminal. */
static void
ui_key(struct blktop *b, int key, int is_code)
{
	int	 a;

	if (is_code && key == KEY_RESIZE)
		return;		/* resizeterm() queued it: already handled */
	if (is_code && key == KEY_MOUSE) {
		ui_mouse(b);
		return;
	}
	if (ui.editing) {
		ui_edit_key(key, is_code);
		return;
	}
	if (ui.help) {
		/* Any key closes the help; q still quits. */
		ui.help = 0;
		if (!is_code && key == 'q')
			ui_quit(b);
		return;
	}
	if (!is_code && key > 0x7f)
		return;
	if ((a = ui_keys_lookup(key)) == -1)
		return;
	if (ui.status_ticks > 0 && ui.status[0] != '\0' && a != UI_RECORD)
		ui.status[0] = '\0';
	if (ui_panes[ui.pane]->key(b, (enum ui_action)a))
		return;
	ui_action(b, (enum ui_action)a);
}

/* stdin is readable: every key waiting, then one redraw. */
static void
ui_key_cb(int fd, __unused short what, void *arg)
{
	struct blktop	*b = arg;
	wint_t		 wch;
	int		 r, avail = 0;

	/* Readable with nothing to read: the terminal is gone. */
	if (ioctl(fd, FIONREAD, &avail) == 0 && avail == 0) {
		ui_quit(b);
		event_del(ui.key_ev);
		return;
	}
	while ((r = wget_wch(stdscr, &wch)) != ERR)
		ui_key(b, (int)wch, r == KEY_CODE_YES);
	ui_redraw();
}

/*
 * Start the UI on the terminal: curses, theme, colours, and the key, resize
 * and redraw events on b->base. Returns -1 with *errp when there is no usable
 * terminal.
 */
int
ui_start(struct blktop *b, char **errp)
{
	struct utsname	 u;
	SCREEN		*s;
	const char	*term = getenv("TERM");
	unsigned	 i;

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		xasprintf(errp, "the terminal UI needs a terminal: use -b or -J "
		    "for reports");
		return (-1);
	}
	if (b->theme != NULL) {
		if (theme_option(&ui.theme, b->theme, errp) != 0)
			return (-1);
		snprintf(ui.theme_arg, sizeof ui.theme_arg, "%s", b->theme);
	}
	setlocale(LC_ALL, "");
	setlocale(LC_NUMERIC, "C");
	if ((s = newterm(NULL, stdout, stdin)) == NULL) {
		xasprintf(errp, "cannot use terminal type '%s'",
		    term != NULL ? term : "");
		return (-1);
	}
	set_term(s);
	ui.b = b;
	ui.running = 1;
	log_fatal_hook = ui_fatal_hook;
	atexit(ui_restore);
	cbreak();
	noecho();
	nonl();
	curs_set(0);
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	/*
	 * No typeahead checks: doupdate would poll stdin every few lines to
	 * abandon a frame when a key is waiting (10 polls a heatmap frame);
	 * keys wait for the loop turn anyway.
	 */
	typeahead(-1);
	set_escdelay(25);
	mousemask(BUTTON1_PRESSED | BUTTON1_CLICKED | BUTTON4_PRESSED
#ifdef BUTTON5_PRESSED
	    | BUTTON5_PRESSED
#endif
	    , NULL);
	mouseinterval(0);

	if (ui.theme_arg[0] == '\0') {
		char *cause;

		if (theme_load(&ui.theme, "default", theme_dir(), &cause) != 0) {
			free(cause);
			theme_default(&ui.theme);
		}
	}
	ui_theme_list();
	ui_apply_theme();

	if (uname(&u) == 0) {
		snprintf(ui.host, sizeof ui.host, "%.63s", u.nodename);
		snprintf(ui.kernel, sizeof ui.kernel, "%.63s", u.release);
	}
	ui_view.col_secs = 1;
	ui_view.col_ticks = ui_layout_col_ticks(1, b->tick_ns);
	ui_view.filter = ui.filter;
	ui.last_ts = b->win.tick_start;
	ui.last_events = b->events;

	ui.redraw_ev = event_new(b->base, -1, 0, ui_redraw_cb, b);
	ui.key_ev = event_new(b->base, STDIN_FILENO, EV_READ | EV_PERSIST,
	    ui_key_cb, b);
	ui.winch_ev = evsignal_new(b->base, SIGWINCH, ui_winch_cb, b);
	if (ui.redraw_ev == NULL || ui.key_ev == NULL || ui.winch_ev == NULL)
		fatalx("cannot create the UI events");
	event_add(ui.key_ev, NULL);
	evsignal_add(ui.winch_ev, NULL);
	for (i = 0; i < nitems(ui_panes); i++) {
		if (ui_panes[i]->collect != NULL)
			ui_panes[i]->collect(b, 0);
	}
	ui_redraw();
	return (0);
}

/* The stream closed a tick: the status line ages, the screen follows. */
static void
ui_sink_tick(__unused struct sink *s, __unused uint64_t ts)
{
	int	 expired = 0;

	if (!ui.running)
		return;
	if (ui.status_ticks > 0 && --ui.status_ticks == 0) {
		ui.status[0] = '\0';
		expired = 1;
	}
	if (!ui_view.paused || expired)
		ui_redraw();
}

/* A display interval is complete: the panes collect the tables. */
static void
ui_sink_report(struct sink *s, __unused uint64_t ts, __unused unsigned nticks)
{
	struct blktop	*b = s->b;
	unsigned	 i;
	uint64_t	 now = b->win.tick_start;

	if (!ui.running)
		return;
	ui.secs = now > ui.last_ts ? (double)(now - ui.last_ts) / 1e9 : 0;
	if (ui.secs > 0)
		ui.evps = (double)(b->events - ui.last_events) / ui.secs;
	for (i = 0; i < nitems(ui_panes); i++) {
		if (ui_panes[i]->collect != NULL && !ui_view.paused)
			ui_panes[i]->collect(b, ui.secs);
	}
	ui.last_ts = now;
	ui.last_events = b->events;
}

/* The source has nothing more: the last frame stays. */
static void
ui_sink_end(__unused struct sink *s)
{
	ui_status("end of the recording (g: from the start)");
}

/* A line from below (src/) for the status bar. */
static void
ui_notice(__unused struct blktop *b, const char *msg)
{
	ui_status("%s", msg);
}

/* The UI as the stream's view: the screen starts with the sinks. */
static int
ui_sink_start(struct sink *s, char **errp)
{
	if (ui_start(s->b, errp) != 0)
		return (-1);
	s->b->notice = ui_notice;
	return (0);
}

/* The terminal back as it was; notices go to stderr again. */
static void
ui_sink_stop(struct sink *s)
{
	s->b->notice = NULL;
	ui_stop();
}

const struct sink_entry sink_ui = {
	.name = "ui",
	.start = ui_sink_start,
	.tick = ui_sink_tick,
	.report = ui_sink_report,
	.end = ui_sink_end,
	.stop = ui_sink_stop,
};

/* Put the terminal back as it was and free the UI. */
void
ui_stop(void)
{
	unsigned	 i;

	if (!ui.running)
		return;
	ui_restore();
	ui.running = 0;
	if (ui.key_ev != NULL)
		event_free(ui.key_ev);
	if (ui.winch_ev != NULL)
		event_free(ui.winch_ev);
	if (ui.redraw_ev != NULL)
		event_free(ui.redraw_ev);
	ui.key_ev = ui.winch_ev = ui.redraw_ev = NULL;
	for (i = 0; i < nitems(ui_panes); i++) {
		if (ui_panes[i]->free != NULL)
			ui_panes[i]->free();
	}
	for (i = 0; i < ui.nthemes; i++)
		free(ui.themes[i]);
	ui.nthemes = 0;
	free(ui.cells);
	ui.cells = NULL;
	ui.ncells = 0;
	ui_draw_free();
}
