/* ui.c: the terminal UI as a sink of the stream: start and stop, themes, redraw scheduling, resize, status messages. */

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

/* The panes, in tab order. */
const struct pane_entry *const ui_panes[UI_NPANES] = {
	&ui_pane_dev, &ui_pane_proc, &ui_pane_file
};

struct ui_view ui_view = { .col_secs = 1, .col_ticks = 1, .filter = "" };

/* Everything the screen keeps between frames. */
struct ui_state ui;

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

/* Restore the terminal: after a fatal error, at exit, and on quit. */
static void
ui_restore(void)
{
	if (ui.running && !isendwin()) {
		ui_term_leave();
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
void
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

/* The redraw event: one per loop turn at most. */
static void
ui_redraw_cb(__unused int fd, __unused short what, void *arg)
{
	ui.redraw_pending = 0;
	if (ui.running)
		ui_draw_all(arg);
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
	const char	*term = getenv("TERM"), *why;
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
	if ((why = ui_term_unfit()) != NULL) {
		endwin();
		delscreen(s);
		xasprintf(errp, "the terminal UI cannot run on terminal type '%s': "
		    "%s (use -b or -J for reports)", term != NULL ? term : "", why);
		return (-1);
	}
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
	ui_view.col_ticks = ui_layout_col_ticks(ui_view.col_secs, b->tick_ns);
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
	if (b->config_note[0] != '\0')	/* also on stderr, under the screen */
		ui_status("%s", b->config_note);
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
	.config = ui_config,
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
