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
#include "config-file.h"
#include "ui.h"

/* The panes, in tab order. */
const struct pane_entry *const ui_panes[UI_NPANES] = {
	&ui_pane_dev, &ui_pane_proc, &ui_pane_file
};

/*
 * The UI running, for the two hooks that take no argument: log_fatal_hook
 * and atexit must put the terminal back as it was. NULL when none runs.
 */
static struct ui_state *ui_running;

/* Compare two theme names for qsort. */
static int
ui_theme_cmp(const void *a, const void *b)
{
	return (strcmp(*(char *const *)a, *(char *const *)b));
}

/* The themes 't' cycles through: -t first, "default", then every other file of the theme dir. */
static void
ui_theme_list(struct ui_state *u)
{
	DIR		*d;
	struct dirent	*de;
	size_t		 len;
	unsigned	 first;

	if (u->theme_arg[0] != '\0')
		u->themes[u->nthemes++] = xstrdup(u->theme_arg);
	if (u->theme_arg[0] == '\0' || strcmp(u->theme_arg, "default") != 0)
		u->themes[u->nthemes++] = xstrdup("default");
	first = u->nthemes;
	if ((d = opendir(theme_dir())) == NULL)
		return;
	while ((de = readdir(d)) != NULL && u->nthemes < UI_THEMES_MAX) {
		len = strlen(de->d_name);
		if (len <= 6 || de->d_name[0] == '.' ||
		    strcmp(de->d_name + len - 6, ".theme") != 0)
			continue;
		de->d_name[len - 6] = '\0';
		if (strcmp(de->d_name, "default") == 0 ||
		    strcmp(de->d_name, u->theme_arg) == 0)
			continue;
		u->themes[u->nthemes++] = xstrdup(de->d_name);
	}
	closedir(d);
	qsort(u->themes + first, u->nthemes - first, sizeof *u->themes,
	    ui_theme_cmp);
}

/* Set a message for the status line; it goes after a few ticks. */
void
ui_status(struct ui_state *u, const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	vsnprintf(u->status, sizeof u->status, fmt, ap);
	va_end(ap);
	u->status_ticks = UI_STATUS_TICKS;
	ui_redraw(u);
}

/* Schedule one redraw at the end of this loop turn, whoever asks and however often. */
void
ui_redraw(struct ui_state *u)
{
	if (!u->running || u->redraw_pending)
		return;
	u->redraw_pending = 1;
	event_active(u->redraw_ev, EV_TIMEOUT, 1);
}

/* A UI's state of a pane, by its entry. */
void *
ui_pane_data(struct ui_state *u, const struct pane_entry *entry)
{
	unsigned	 i;

	for (i = 0; i < nitems(ui_panes) && u->panes[i].entry != entry; i++)
		;
	if (i == nitems(ui_panes))
		fatalx("no pane %s in this UI", entry->name);
	return (u->panes[i].data);
}

/* The number of closed ticks the view shows: frozen while paused. */
uint64_t
ui_view_nclosed(const struct ui_state *u)
{
	const struct blktop	*b = u->b;


	if (u->view.paused && u->view.pause_nclosed <= b->win.nclosed)
		return (u->view.pause_nclosed);
	return (b->win.nclosed);
}

/* Restore the terminal: after a fatal error, at exit, and on quit. */
static void
ui_restore(struct ui_state *u)
{
	if (u->running && !isendwin()) {
		ui_term_leave();
		endwin();
		fflush(stdout);
	}
}

/* log_fatal_hook: the message must land on a normal screen. */
static void
ui_fatal_hook(void)
{
	if (ui_running == NULL)
		return;
	ui_restore(ui_running);
	ui_running->running = 0;
}

/* At exit: the terminal as it was, if a UI still runs. */
static void
ui_exit_hook(void)
{
	if (ui_running != NULL)
		ui_restore(ui_running);
}

/* Set the screen's background to the theme's main colours (the UI's and ui-compare.c's). */
void
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
ui_apply_theme(struct ui_state *u)
{
	enum ui_colour_mode	 mode;

	mode = ui_draw_init(&u->theme, UI_COLOUR_AUTO);
	u->view.flags = ui_draw_flags();
	u->view.heat_coarse = mode == UI_COLOUR_8 || mode == UI_COLOUR_16;
	ui_background();
}

/* Load the next theme of the list. */
void
ui_next_theme(struct ui_state *u)
{
	struct theme	 t;
	char		*cause;
	unsigned	 i;

	for (i = 1; i <= u->nthemes; i++) {
		const char *name = u->themes[(u->theme_idx + i) % u->nthemes];

		if (strcmp(name, "default") == 0 &&
		    theme_load(&t, name, theme_dir(), &cause) != 0) {
			free(cause);
			theme_default(&t);
		} else if (theme_load(&t, name, theme_dir(), &cause) != 0) {
			ui_status(u, "theme %s: %s", name, cause);
			free(cause);
			continue;
		}
		u->theme_idx = (u->theme_idx + i) % u->nthemes;
		u->theme = t;
		ui_apply_theme(u);
		ui_status(u, "theme %s", u->theme.name);
		return;
	}
}

/* The redraw event: one per loop turn at most. */
static void
ui_redraw_cb(__unused int fd, __unused short what, void *arg)
{
	struct ui_state	*u = arg;

	u->redraw_pending = 0;
	if (u->running)
		ui_draw_all(u);
}

/* Follow the terminal's new size. */
static void
ui_resize(struct ui_state *u)
{
	struct winsize	 ws;

	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 &&
	    ws.ws_col > 0)
		resizeterm(ws.ws_row, ws.ws_col);
	clearok(curscr, TRUE);
	ui_redraw(u);
}

/* SIGWINCH. */
static void
ui_winch_cb(__unused int sig, __unused short what, void *arg)
{
	ui_resize(arg);
}

/*
 * Start the UI on the terminal: curses, theme, colours, and the key, resize
 * and redraw events on b->base. Returns -1 with *errp when there is no usable
 * terminal.
 */
static int
ui_start(struct ui_state *u, struct blktop *b, char **errp)
{
	struct utsname	 un;
	SCREEN		*s;
	const char	*term = getenv("TERM"), *why;
	unsigned	 i;

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		xasprintf(errp, "the terminal UI needs a terminal: use -b or -J "
		    "for reports");
		return (-1);
	}
	if (u->opts.theme != NULL) {
		if (theme_option(&u->theme, u->opts.theme, errp) != 0)
			return (-1);
		snprintf(u->theme_arg, sizeof u->theme_arg, "%s", u->opts.theme);
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
	u->running = 1;
	ui_running = u;
	log_fatal_hook = ui_fatal_hook;
	atexit(ui_exit_hook);
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

	if (u->theme_arg[0] == '\0') {
		char *cause;

		if (theme_load(&u->theme, "default", theme_dir(), &cause) != 0) {
			free(cause);
			theme_default(&u->theme);
		}
	}
	ui_theme_list(u);
	ui_apply_theme(u);

	if (uname(&un) == 0) {
		snprintf(u->host, sizeof u->host, "%.63s", un.nodename);
		snprintf(u->kernel, sizeof u->kernel, "%.63s", un.release);
	}
	u->view.col_ticks = ui_layout_col_ticks(u->view.col_secs, b->tick_ns);
	u->view.filter = u->filter;
	u->last_ts = b->win.tick_start;
	u->last_events = b->events;

	u->redraw_ev = event_new(b->base, -1, 0, ui_redraw_cb, u);
	u->key_ev = event_new(b->base, STDIN_FILENO, EV_READ | EV_PERSIST,
	    ui_key_cb, u);
	u->winch_ev = evsignal_new(b->base, SIGWINCH, ui_winch_cb, u);
	if (u->redraw_ev == NULL || u->key_ev == NULL || u->winch_ev == NULL)
		fatalx("cannot create the UI events");
	event_add(u->key_ev, NULL);
	evsignal_add(u->winch_ev, NULL);
	for (i = 0; i < nitems(ui_panes); i++) {
		if (ui_panes[i]->collect != NULL)
			ui_panes[i]->collect(&u->panes[i], 0);
	}
	if (u->opts.config_note[0] != '\0')	/* also on stderr, under the screen */
		ui_status(u, "%s", u->opts.config_note);
	ui_redraw(u);
	return (0);
}

static void	 ui_stop(struct ui_state *);
static void	 ui_free(struct ui_state *);

/* The stream closed a tick: the status line ages, the screen follows. */
static void
ui_sink_tick(struct sink *s, __unused uint64_t ts)
{
	struct ui_state	*u = s->data;
	int		 expired = 0;

	if (!u->running)
		return;
	if (u->status_ticks > 0 && --u->status_ticks == 0) {
		u->status[0] = '\0';
		expired = 1;
	}
	if (!u->view.paused || expired)
		ui_redraw(u);
}

/* A display interval is complete: the panes collect the tables. */
static void
ui_sink_report(struct sink *s, __unused uint64_t ts, __unused unsigned nticks)
{
	struct ui_state	*u = s->data;
	struct blktop	*b = s->b;
	unsigned	 i;
	uint64_t	 now = b->win.tick_start;

	if (!u->running)
		return;
	u->secs = now > u->last_ts ? (double)(now - u->last_ts) / 1e9 : 0;
	if (u->secs > 0)
		u->evps = (double)(b->events - u->last_events) / u->secs;
	for (i = 0; i < nitems(ui_panes); i++) {
		if (ui_panes[i]->collect != NULL && !u->view.paused)
			ui_panes[i]->collect(&u->panes[i], u->secs);
	}
	u->last_ts = now;
	u->last_events = b->events;
}

/* The source has nothing more: the last frame stays. */
static void
ui_sink_end(struct sink *s)
{
	ui_status(s->data, "end of the recording (g: from the start)");
}

/* A line from below (src/) for the status bar. */
static void
ui_notice(void *arg, const char *msg)
{
	ui_status(arg, "%s", msg);
}

/*
 * The UI as the stream's view: its state made and the config file's settings
 * taken into it, then the screen starts with the sinks.
 */
static int
ui_sink_start(struct sink *s, char **errp)
{
	struct ui_state	*u;
	unsigned	 i;

	u = s->data = xcalloc(1, sizeof *u);
	u->b = s->b;
	u->opts = *(const struct ui_opts *)s->opts;
	u->view.col_secs = 1;
	u->view.col_ticks = 1;
	ui_keys_init(&u->keys);
	for (i = 0; i < nitems(ui_panes); i++) {
		u->panes[i].entry = ui_panes[i];
		u->panes[i].u = u;
		u->panes[i].data = ui_panes[i]->init();
	}
	config_apply(s);
	if (ui_start(u, s->b, errp) != 0) {
		ui_free(u);
		s->data = NULL;
		return (-1);
	}
	s->b->notice = ui_notice;
	s->b->notice_arg = u;
	return (0);
}

/* The terminal back as it was; notices go to stderr again. */
static void
ui_sink_stop(struct sink *s)
{
	s->b->notice = NULL;
	s->b->notice_arg = NULL;
	if (s->data == NULL)
		return;
	ui_stop(s->data);
	ui_free(s->data);
	s->data = NULL;
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

/* Put the terminal back as it was and free what the screen held. */
static void
ui_stop(struct ui_state *u)
{
	if (!u->running)
		return;
	ui_restore(u);
	u->running = 0;
	ui_running = NULL;
	if (u->key_ev != NULL)
		event_free(u->key_ev);
	if (u->winch_ev != NULL)
		event_free(u->winch_ev);
	if (u->redraw_ev != NULL)
		event_free(u->redraw_ev);
	u->key_ev = u->winch_ev = u->redraw_ev = NULL;
	ui_draw_free();
}

/* Free the UI's state, the screen stopped. */
static void
ui_free(struct ui_state *u)
{
	unsigned	 i;

	for (i = 0; i < nitems(ui_panes); i++) {
		if (u->panes[i].data != NULL)
			ui_panes[i]->free(u->panes[i].data);
	}
	for (i = 0; i < u->nthemes; i++)
		free(u->themes[i]);
	free(u->cells);
	free(u);
}
