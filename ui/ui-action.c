/* ui-action.c: what a key or a click does: the table of actions and their handlers, the filter line, mouse, key dispatch. */

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


/* Leave the loop as SIGINT does, reporting what is pending. */
static int
ui_action_quit(__unused struct blktop *b, __unused enum ui_action a)
{
	raise(SIGTERM);
	return (0);
}

/* The help screen, until the next key. */
static int
ui_action_help(__unused struct blktop *b, __unused enum ui_action a)
{
	ui.help = 1;
	return (UI_DRAW_FRAME);
}

/* The next pane in tab order. */
static int
ui_action_next_pane(__unused struct blktop *b, __unused enum ui_action a)
{
	ui.pane = (ui.pane + 1) % nitems(ui_panes);
	return (UI_DRAW_FRAME);
}

/* One pane by its number: the actions are in tab order. */
static int
ui_action_pane(__unused struct blktop *b, enum ui_action a)
{
	ui.pane = a - UI_PANE_DEV;
	return (UI_DRAW_FRAME);
}

/* Back: the filter cleared, when the pane had nothing to go back from. */
static int
ui_action_back(__unused struct blktop *b, __unused enum ui_action a)
{
	if (ui.filter[0] == '\0')
		return (0);
	ui.filter[0] = '\0';
	ui_status("filter cleared");
	return (UI_DRAW_FRAME);
}

/* Pause: a replay pauses its stream; live, the display stops while collection goes on. */
static int
ui_action_pause(struct blktop *b, __unused enum ui_action a)
{
	struct source_status	 st;

	if (b->src->entry->pause != NULL && b->src->entry->status != NULL) {
		/* A replay pauses the stream itself: nothing to collect. */
		memset(&st, 0, sizeof st);
		b->src->entry->pause(b->src);
		b->src->entry->status(b->src, &st);
		ui_status(st.paused ? "replay paused" : "replay resumed");
		return (UI_DRAW_FRAME);
	}
	ui_view.paused = !ui_view.paused;
	ui_view.pause_nclosed = b->win.nclosed;
	ui_status(ui_view.paused ? "display paused (collection goes on)" :
	    "display resumed");
	return (UI_DRAW_FRAME);
}

/* More (zoom out) or less (zoom in) time per heatmap column. */
static int
ui_action_zoom(struct blktop *b, enum ui_action a)
{
	ui_view.col_secs = ui_layout_zoom(ui_view.col_secs,
	    a == UI_ZOOM_OUT ? 1 : -1);
	ui_view.col_ticks = ui_layout_col_ticks(ui_view.col_secs, b->tick_ns);
	ui_status("%u s per heatmap column", ui_view.col_secs);
	return (UI_DRAW_FRAME);
}

/* The heatmap of all requests, then reads, then writes. */
static int
ui_action_ops(__unused struct blktop *b, __unused enum ui_action a)
{
	ui_view.opmask = ui_view.opmask == 0 ? 1u << OPC_READ :
	    ui_view.opmask == 1u << OPC_READ ? 1u << OPC_WRITE : 0;
	ui_status("heatmap of %s", ui_view.opmask == 0 ? "all requests" :
	    ui_view.opmask == 1u << OPC_READ ? "reads" : "writes");
	return (UI_DRAW_FRAME);
}

/* The next theme of the list. */
static int
ui_action_theme(__unused struct blktop *b, __unused enum ui_action a)
{
	ui_next_theme();
	return (UI_DRAW_FRAME);
}

/* Every cell of the terminal again: whatever else wrote on it goes. */
static int
ui_action_redraw(__unused struct blktop *b, __unused enum ui_action a)
{
	return (UI_DRAW_FRAME | UI_DRAW_TERMINAL);
}

/* The filter line, starting from the filter as it is. */
static int
ui_action_filter(__unused struct blktop *b, __unused enum ui_action a)
{
	ui.editing = 1;
	snprintf(ui.edit, sizeof ui.edit, "%s", ui.filter);
	return (UI_DRAW_FRAME);
}

/* Start or stop recording events to a file. */
static int
ui_action_record(struct blktop *b, __unused enum ui_action a)
{
	char	*msg = NULL;

	if (stream_sink_control(b, "capture", SINK_CTL_TOGGLE, &msg) < 0 && msg == NULL)
		msg = xstrdup("recording is not available");
	if (msg != NULL) {
		ui_status("%s", msg);
		free(msg);
	}
	return (UI_DRAW_FRAME);
}

/* Write the settings to the config file. */
static int
ui_action_save(struct blktop *b, __unused enum ui_action a)
{
	ui_config_save(b);
	return (UI_DRAW_FRAME);
}

/* Whether the source has the replay controls, with its status before the key in st. */
static int
ui_action_replay(struct blktop *b, struct source_status *st)
{
	const struct source_entry	*e = b->src->entry;

	if (e->step == NULL || e->seek == NULL || e->seek_start == NULL ||
	    e->set_speed == NULL || e->status == NULL) {
		ui_status("that key is for replays (blktop -r FILE)");
		return (0);
	}
	memset(st, 0, sizeof *st);
	e->status(b->src, st);
	return (1);
}

/* After a replay control: say the speed the replay goes at now. */
static int
ui_action_replay_said(struct blktop *b, struct source_status *st)
{
	b->src->entry->status(b->src, st);
	if (st->speed == 0)
		ui_status("replay as fast as possible");
	else
		ui_status("replay at %gx%s", st->speed, st->paused ? ", paused" : "");
	return (UI_DRAW_FRAME);
}

/* Replay: one tick forward, paused. */
static int
ui_action_step(struct blktop *b, __unused enum ui_action a)
{
	struct source_status	 st;

	if (!ui_action_replay(b, &st))
		return (UI_DRAW_FRAME);
	b->src->entry->step(b->src);
	return (ui_action_replay_said(b, &st));
}

/* Replay: 10 s back. */
static int
ui_action_seek_back(struct blktop *b, __unused enum ui_action a)
{
	struct source_status	 st;

	if (!ui_action_replay(b, &st))
		return (UI_DRAW_FRAME);
	b->src->entry->seek(b->src, -10);
	return (ui_action_replay_said(b, &st));
}

/* Replay: 10 s forward. */
static int
ui_action_seek_fwd(struct blktop *b, __unused enum ui_action a)
{
	struct source_status	 st;

	if (!ui_action_replay(b, &st))
		return (UI_DRAW_FRAME);
	b->src->entry->seek(b->src, 10);
	return (ui_action_replay_said(b, &st));
}

/* Replay: to the start. */
static int
ui_action_seek_start(struct blktop *b, __unused enum ui_action a)
{
	struct source_status	 st;

	if (!ui_action_replay(b, &st))
		return (UI_DRAW_FRAME);
	b->src->entry->seek_start(b->src);
	return (ui_action_replay_said(b, &st));
}

/* Replay: to the end. */
static int
ui_action_seek_end(struct blktop *b, __unused enum ui_action a)
{
	struct source_status	 st;

	if (!ui_action_replay(b, &st))
		return (UI_DRAW_FRAME);
	b->src->entry->seek(b->src, 1e9);
	return (ui_action_replay_said(b, &st));
}

/* Replay: half the speed, down to 0.25x; as fast as possible becomes 64x. */
static int
ui_action_slower(struct blktop *b, __unused enum ui_action a)
{
	struct source_status	 st;

	if (!ui_action_replay(b, &st))
		return (UI_DRAW_FRAME);
	b->src->entry->set_speed(b->src, st.speed == 0 ? 64 : st.speed / 2);
	return (ui_action_replay_said(b, &st));
}

/* Replay: twice the speed; past 64x, as fast as possible. */
static int
ui_action_faster(struct blktop *b, __unused enum ui_action a)
{
	struct source_status	 st;

	if (!ui_action_replay(b, &st))
		return (UI_DRAW_FRAME);
	b->src->entry->set_speed(b->src, st.speed == 0 || st.speed >= 64 ? 0 :
	    st.speed * 2);
	return (ui_action_replay_said(b, &st));
}

/*
 * The actions, in the order of the help screen: the config file's name of
 * each (key.NAME = KEYS), its help line and what it does when the pane does
 * not take its key (no handler: the panes' keys). The default keys are
 * ui-keys.c's bindings.
 */
const struct ui_action_info ui_actions[] = {
	{ UI_QUIT, "quit", "quit", ui_action_quit, 0 },
	{ UI_HELP, "help", "this help (any key closes it)", ui_action_help, 0 },
	{ UI_NEXT_PANE, "next_pane", "next pane", ui_action_next_pane, 0 },
	{ UI_PANE_DEV, "pane_devices", "devices pane", ui_action_pane, 0 },
	{ UI_PANE_PROC, "pane_processes", "processes pane", ui_action_pane, 0 },
	{ UI_PANE_FILE, "pane_files", "files pane", ui_action_pane, 0 },
	{ UI_UP, "up", "select the row above", NULL, 0 },
	{ UI_DOWN, "down", "select the row below", NULL, 0 },
	{ UI_PAGE_UP, "page_up", "page up", NULL, 0 },
	{ UI_PAGE_DOWN, "page_down", "page down", NULL, 0 },
	{ UI_HOME, "home", "first row", NULL, 0 },
	{ UI_END, "end", "last row", NULL, 0 },
	{ UI_ENTER, "enter", "drill down: device fills the pane, process details",
	    NULL, 0 },
	{ UI_BACK, "back", "back from a drill-down, clear the filter",
	    ui_action_back, 0 },
	{ UI_SORT_LEFT, "sort_left", "sort by the column to the left", NULL, 0 },
	{ UI_SORT_RIGHT, "sort_right", "sort by the column to the right", NULL, 0 },
	{ UI_SORT_INVERT, "sort_invert", "invert the sort order", NULL, 0 },
	{ UI_GROUP, "group", "processes: group by cgroup, or back to one row per "
	    "process", NULL, 0 },
	{ UI_PAUSE, "pause", "pause the display (collection goes on)",
	    ui_action_pause, 0 },
	{ UI_ZOOM_OUT, "zoom_out", "more time per heatmap column (up to 60 s)",
	    ui_action_zoom, 0 },
	{ UI_ZOOM_IN, "zoom_in", "less time per heatmap column (down to 1 s)",
	    ui_action_zoom, 0 },
	{ UI_OPS, "ops", "heatmap of reads, writes or both", ui_action_ops, 0 },
	{ UI_DEV_VIEW, "devices_view", "devices: one line each (overview), or a "
	    "heatmap each", NULL, 0 },
	{ UI_THEME, "theme", "next theme", ui_action_theme, 0 },
	{ UI_REDRAW, "redraw", "repaint the whole screen", ui_action_redraw, 0 },
	{ UI_FILTER, "filter", "filter by device, process name or path",
	    ui_action_filter, 0 },
	/* Its own message would go at once: the key keeps the status line. */
	{ UI_RECORD, "record", "record events to a file", ui_action_record, 1 },
	{ UI_SAVE, "save", "write these settings to the config file",
	    ui_action_save, 0 },
	{ UI_STEP, "step", "replay: one tick forward (pauses)", ui_action_step, 0 },
	{ UI_SEEK_BACK, "seek_back", "replay: 10 s back", ui_action_seek_back, 0 },
	{ UI_SEEK_FWD, "seek_forward", "replay: 10 s forward", ui_action_seek_fwd, 0 },
	{ UI_SEEK_START, "seek_start", "replay: to the start", ui_action_seek_start, 0 },
	{ UI_SEEK_END, "seek_end", "replay: to the end", ui_action_seek_end, 0 },
	{ UI_SLOWER, "slower", "replay: half the speed (down to 0.25x)",
	    ui_action_slower, 0 },
	{ UI_FASTER, "faster", "replay: twice the speed (up to 64x, then as fast "
	    "as possible)", ui_action_faster, 0 },
};
const unsigned ui_nactions = nitems(ui_actions);

/* One key typed into the filter line. */
static int
ui_edit_key(int key, int is_code)
{
	size_t		 len = strlen(ui.edit);
	char		 mb[MB_LEN_MAX];
	mbstate_t	 st;
	size_t		 n;

	if (!is_code && (key == '\n' || key == '\r')) {
		snprintf(ui.filter, sizeof ui.filter, "%s", ui.edit);
		ui.editing = 0;
		return (UI_DRAW_FRAME);
	}
	if (!is_code && key == 0x1b) {
		ui.editing = 0;
		return (UI_DRAW_FRAME);
	}
	if ((is_code && key == KEY_BACKSPACE) || (!is_code && (key == 0x7f ||
	    key == 0x08))) {
		/* Drop one whole UTF-8 character. */
		while (len > 0 && (ui.edit[len - 1] & 0xc0) == 0x80)
			len--;
		if (len > 0)
			len--;
		ui.edit[len] = '\0';
		return (UI_DRAW_FRAME);
	}
	if (is_code || key < 0x20 || key == 0x7f)
		return (UI_DRAW_FRAME);
	memset(&st, 0, sizeof st);
	if ((n = wcrtomb(mb, (wchar_t)key, &st)) == (size_t)-1)
		return (UI_DRAW_FRAME);
	if (len + n < sizeof ui.edit) {
		memcpy(ui.edit + len, mb, n);
		ui.edit[len + n] = '\0';
	}
	return (UI_DRAW_FRAME);
}

/* A mouse event: tabs switch panes, the wheel moves, clicks in a pane select. */
static int
ui_mouse(struct blktop *b)
{
	MEVENT		 me;
	unsigned	 i;
	const struct ui_rect *r = &ui.pane_rect;

	if (getmouse(&me) != OK)
		return (UI_DRAW_FRAME);
	if (ui.help) {
		ui.help = 0;
		return (UI_DRAW_FRAME);
	}
	if (me.bstate & BUTTON4_PRESSED) {
		ui_panes[ui.pane]->key(b, UI_UP);
		return (UI_DRAW_FRAME);
	}
#ifdef BUTTON5_PRESSED
	if (me.bstate & BUTTON5_PRESSED) {
		ui_panes[ui.pane]->key(b, UI_DOWN);
		return (UI_DRAW_FRAME);
	}
#endif
	if (!(me.bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED |
	    BUTTON1_RELEASED)))
		return (UI_DRAW_FRAME);
	if (me.y == 1) {
		for (i = 0; i < nitems(ui_panes); i++) {
			if (me.x >= ui.tabs_x[i] && me.x < ui.tabs_x[i + 1])
				ui.pane = i;
		}
		return (UI_DRAW_FRAME);
	}
	if (me.y >= r->y && me.y < r->y + r->h && ui_panes[ui.pane]->click != NULL)
		ui_panes[ui.pane]->click(b, r, me.y, me.x);
	return (UI_DRAW_FRAME);
}

/*
 * One key from the terminal: the pane's if it takes it, else its action's
 * handler from the table. Returns what must be drawn again (UI_DRAW_*).
 */
static int
ui_key(struct blktop *b, int key, int is_code)
{
	const struct ui_action_info	*ai;
	unsigned			 i;
	int				 a, draw = 0;

	if (is_code && key == KEY_RESIZE)
		return (0);	/* resizeterm() queued it: already handled */
	if (is_code && key == KEY_MOUSE)
		return (ui_mouse(b));
	if (ui.editing)
		return (ui_edit_key(key, is_code));
	if (ui.help) {
		/* Any key closes the help; q still quits. */
		ui.help = 0;
		if (!is_code && key == 'q')
			ui_action_quit(b, UI_QUIT);
		return (UI_DRAW_FRAME);
	}
	if ((!is_code && key > 0x7f) || (a = ui_keys_lookup(key)) == -1)
		return (0);
	for (i = 0; i < ui_nactions && ui_actions[i].action != (enum ui_action)a; i++)
		;
	if (i == ui_nactions)
		return (0);
	ai = &ui_actions[i];
	if (ui.status_ticks > 0 && ui.status[0] != '\0' && !ai->keep_status) {
		ui.status[0] = '\0';
		draw = UI_DRAW_FRAME;
	}
	if (ui_panes[ui.pane]->key(b, ai->action))
		return (UI_DRAW_FRAME);
	if (ai->fn != NULL)
		draw |= ai->fn(b, ai->action);
	return (draw);
}

/* stdin is readable: every key waiting, then one redraw if one asked for it. */
void
ui_key_cb(int fd, __unused short what, void *arg)
{
	struct blktop	*b = arg;
	wint_t		 wch;
	int		 r, avail = 0, draw = 0;

	/* Readable with nothing to read: the terminal is gone. */
	if (ioctl(fd, FIONREAD, &avail) == 0 && avail == 0) {
		ui_action_quit(b, UI_QUIT);
		event_del(ui.key_ev);
		return;
	}
	while ((r = wget_wch(stdscr, &wch)) != ERR)
		draw |= ui_key(b, (int)wch, r == KEY_CODE_YES);
	if (draw & UI_DRAW_TERMINAL)
		clearok(curscr, TRUE);
	if (draw & UI_DRAW_FRAME)
		ui_redraw();
}
