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
ui_action_quit(__unused struct ui_state *u, __unused enum ui_action a)
{
	raise(SIGTERM);
	return (0);
}

/* The insights (doc/insights.md), until the next key. */
static int
ui_action_insights(struct ui_state *u, __unused enum ui_action a)
{
	u->help = 2;
	return (UI_DRAW_FRAME);
}

/* The queue depth screen (ui-depth.c), until the next key. */
static int
ui_action_depth(struct ui_state *u, __unused enum ui_action a)
{
	u->help = 3;
	return (UI_DRAW_FRAME);
}

/*
 * The latency stack screen (ui-stack.c), until a key other than its own:
 * the process or file selected in its pane first, else all devices and processes.
 */
static int
ui_action_stack(struct ui_state *u, __unused enum ui_action a)
{
	u->help = 4;
	u->stack_scope = ui_stack_scope_selected(u);
	return (UI_DRAW_FRAME);
}

/* The written-and-never-read screen (ui-wear.c), until the next key. */
static int
ui_action_wear(struct ui_state *u, __unused enum ui_action a)
{
	u->help = 5;
	return (UI_DRAW_FRAME);
}

/* The help screen, until the next key. */
static int
ui_action_help(struct ui_state *u, __unused enum ui_action a)
{
	u->help = 1;
	return (UI_DRAW_FRAME);
}

/* The next pane in tab order. */
static int
ui_action_next_pane(struct ui_state *u, __unused enum ui_action a)
{
	u->pane = (u->pane + 1) % nitems(ui_panes);
	return (UI_DRAW_FRAME);
}

/* One pane by its number: the actions are in tab order. */
static int
ui_action_pane(struct ui_state *u, enum ui_action a)
{
	u->pane = a - UI_PANE_DEV;
	return (UI_DRAW_FRAME);
}

/* Back: the filter cleared, when the pane had nothing to go back from. */
static int
ui_action_back(struct ui_state *u, __unused enum ui_action a)
{
	if (u->filter[0] == '\0')
		return (0);
	u->filter[0] = '\0';
	ui_status(u, "filter cleared");
	return (UI_DRAW_FRAME);
}

/* Pause: a replay pauses its stream; live, the display stops while collection goes on. */
static int
ui_action_pause(struct ui_state *u, __unused enum ui_action a)
{
	struct blktop		*b = u->b;
	struct source_status	 st;

	if (b->src->entry->pause != NULL && b->src->entry->status != NULL) {
		/* A replay pauses the stream itself: nothing to collect. */
		memset(&st, 0, sizeof st);
		b->src->entry->pause(b->src);
		b->src->entry->status(b->src, &st);
		ui_status(u, st.paused ? "replay paused" : "replay resumed");
		return (UI_DRAW_FRAME);
	}
	u->view.paused = !u->view.paused;
	u->view.pause_nclosed = b->win.nclosed;
	ui_status(u, u->view.paused ? "display paused (collection goes on)" :
	    "display resumed");
	return (UI_DRAW_FRAME);
}

/* More (zoom out) or less (zoom in) time per heatmap column. */
static int
ui_action_zoom(struct ui_state *u, enum ui_action a)
{
	struct blktop	*b = u->b;

	u->view.col_secs = ui_layout_zoom(u->view.col_secs,
	    a == UI_ZOOM_OUT ? 1 : -1);
	u->view.col_ticks = ui_layout_col_ticks(u->view.col_secs, b->tick_ns);
	ui_status(u, "%u s per heatmap column", u->view.col_secs);
	return (UI_DRAW_FRAME);
}

/* The heatmap of all requests, then reads, then writes. */
static int
ui_action_ops(struct ui_state *u, __unused enum ui_action a)
{
	u->view.opmask = u->view.opmask == 0 ? 1u << OPC_READ :
	    u->view.opmask == 1u << OPC_READ ? 1u << OPC_WRITE : 0;
	ui_status(u, "heatmap of %s", u->view.opmask == 0 ? "all requests" :
	    u->view.opmask == 1u << OPC_READ ? "reads" : "writes");
	return (UI_DRAW_FRAME);
}

/* Offset maps (where on the disk; a drilled file: where in it), or latency heatmaps. */
static int
ui_action_map(struct ui_state *u, __unused enum ui_action a)
{
	u->view.map = !u->view.map;
	ui_status(u, "%s", u->view.map ? "offset maps: devices' requests and a file's calls by "
	    "where they start (o: reads, writes or both)" : "latency heatmaps; a file's size "
	    "histogram");
	return (UI_DRAW_FRAME);
}

/* The next theme of the list. */
static int
ui_action_theme(struct ui_state *u, __unused enum ui_action a)
{
	ui_next_theme(u);
	return (UI_DRAW_FRAME);
}

/* Every cell of the terminal again: whatever else wrote on it goes. */
static int
ui_action_redraw(__unused struct ui_state *u, __unused enum ui_action a)
{
	return (UI_DRAW_FRAME | UI_DRAW_TERMINAL);
}

/* The filter line, starting from the filter as it is. */
static int
ui_action_filter(struct ui_state *u, __unused enum ui_action a)
{
	u->editing = 1;
	snprintf(u->edit, sizeof u->edit, "%s", u->filter);
	return (UI_DRAW_FRAME);
}

/* Start or stop recording events to a file. */
static int
ui_action_record(struct ui_state *u, __unused enum ui_action a)
{
	struct blktop	*b = u->b;
	char		*msg = NULL;

	if (stream_sink_control(b, "capture", SINK_CTL_TOGGLE, &msg) < 0 && msg == NULL)
		msg = xstrdup("recording is not available");
	if (msg != NULL) {
		ui_status(u, "%s", msg);
		free(msg);
	}
	return (UI_DRAW_FRAME);
}

/* Write the settings to the config file. */
static int
ui_action_save(struct ui_state *u, __unused enum ui_action a)
{
	ui_config_save(u);
	return (UI_DRAW_FRAME);
}

/* Whether the source has the replay controls, with its status before the key in st. */
static int
ui_action_replay(struct ui_state *u, struct source_status *st)
{
	struct blktop			*b = u->b;
	const struct source_entry	*e = b->src->entry;

	if (e->step == NULL || e->seek == NULL || e->seek_start == NULL ||
	    e->set_speed == NULL || e->status == NULL) {
		ui_status(u, "that key is for replays (blktop -r FILE)");
		return (0);
	}
	memset(st, 0, sizeof *st);
	e->status(b->src, st);
	return (1);
}

/* After a replay control: say the speed the replay goes at now. */
static int
ui_action_replay_said(struct ui_state *u, struct source_status *st)
{
	struct blktop	*b = u->b;

	b->src->entry->status(b->src, st);
	if (st->speed == 0)
		ui_status(u, "replay as fast as possible");
	else
		ui_status(u, "replay at %gx%s", st->speed, st->paused ? ", paused" : "");
	return (UI_DRAW_FRAME);
}

/* Replay: one tick forward, paused. */
static int
ui_action_step(struct ui_state *u, __unused enum ui_action a)
{
	struct blktop		*b = u->b;
	struct source_status	 st;

	if (!ui_action_replay(u, &st))
		return (UI_DRAW_FRAME);
	b->src->entry->step(b->src);
	return (ui_action_replay_said(u, &st));
}

/* Replay: 10 s back. */
static int
ui_action_seek_back(struct ui_state *u, __unused enum ui_action a)
{
	struct blktop		*b = u->b;
	struct source_status	 st;

	if (!ui_action_replay(u, &st))
		return (UI_DRAW_FRAME);
	b->src->entry->seek(b->src, -10);
	return (ui_action_replay_said(u, &st));
}

/* Replay: 10 s forward. */
static int
ui_action_seek_fwd(struct ui_state *u, __unused enum ui_action a)
{
	struct blktop		*b = u->b;
	struct source_status	 st;

	if (!ui_action_replay(u, &st))
		return (UI_DRAW_FRAME);
	b->src->entry->seek(b->src, 10);
	return (ui_action_replay_said(u, &st));
}

/* Replay: to the start. */
static int
ui_action_seek_start(struct ui_state *u, __unused enum ui_action a)
{
	struct blktop		*b = u->b;
	struct source_status	 st;

	if (!ui_action_replay(u, &st))
		return (UI_DRAW_FRAME);
	b->src->entry->seek_start(b->src);
	return (ui_action_replay_said(u, &st));
}

/* Replay: to the end. */
static int
ui_action_seek_end(struct ui_state *u, __unused enum ui_action a)
{
	struct blktop		*b = u->b;
	struct source_status	 st;

	if (!ui_action_replay(u, &st))
		return (UI_DRAW_FRAME);
	b->src->entry->seek(b->src, 1e9);
	return (ui_action_replay_said(u, &st));
}

/* Replay: half the speed, down to 0.25x; as fast as possible becomes 64x. */
static int
ui_action_slower(struct ui_state *u, __unused enum ui_action a)
{
	struct blktop		*b = u->b;
	struct source_status	 st;

	if (!ui_action_replay(u, &st))
		return (UI_DRAW_FRAME);
	b->src->entry->set_speed(b->src, st.speed == 0 ? 64 : st.speed / 2);
	return (ui_action_replay_said(u, &st));
}

/* Replay: twice the speed; past 64x, as fast as possible. */
static int
ui_action_faster(struct ui_state *u, __unused enum ui_action a)
{
	struct blktop		*b = u->b;
	struct source_status	 st;

	if (!ui_action_replay(u, &st))
		return (UI_DRAW_FRAME);
	b->src->entry->set_speed(b->src, st.speed == 0 || st.speed >= 64 ? 0 :
	    st.speed * 2);
	return (ui_action_replay_said(u, &st));
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
	{ UI_ENTER, "enter", "drill down: device fills the pane, process or file details",
	    NULL, 0 },
	{ UI_BACK, "back", "back from a drill-down, clear the filter",
	    ui_action_back, 0 },
	{ UI_SORT_LEFT, "sort_left", "sort by the column to the left", NULL, 0 },
	{ UI_SORT_RIGHT, "sort_right", "sort by the column to the right", NULL, 0 },
	{ UI_SORT_INVERT, "sort_invert", "invert the sort order", NULL, 0 },
	{ UI_GROUP, "group", "processes: group by cgroup, or back to one row per "
	    "process", NULL, 0 },
	{ UI_GROUP_JOB, "group_job", "processes: group by job (the process tree: "
	    "the ancestor below the shell, or --job), or back to one row per process", NULL, 0 },
	{ UI_PAUSE, "pause", "pause the display (collection goes on)",
	    ui_action_pause, 0 },
	{ UI_ZOOM_OUT, "zoom_out", "more time per heatmap column (up to 60 s)",
	    ui_action_zoom, 0 },
	{ UI_ZOOM_IN, "zoom_in", "less time per heatmap column (down to 1 s)",
	    ui_action_zoom, 0 },
	{ UI_OPS, "ops", "heatmap of reads, writes or both", ui_action_ops, 0 },
	{ UI_MAP, "devices_map", "offset maps (where on the disk; a file's drill-down: where "
	    "in the file) or latency heatmaps", ui_action_map, 0 },
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
	{ UI_INSIGHTS, "insights", "the insights: what the rules find wrong, each with "
	    "its rule (any key closes them)", ui_action_insights, 0 },
	{ UI_DEPTH, "depth", "queue depth: the depths each device's requests found at start "
	    "and dispatch, and the latency by depth (any key closes it)", ui_action_depth, 0 },
	{ UI_STACK, "stack", "the latency stack (--stack's histograms side by side, its rules): "
	    "all, then each device, process and file (Down/Up; any other key closes it)",
	    ui_action_stack, 0 },
	{ UI_WEAR, "never_read", "written and never read: bytes written, read back, never read; "
	    "churn and lifetimes by directory, file and process (any key closes it)",
	    ui_action_wear, 0 },
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
ui_edit_key(struct ui_state *u, int key, int is_code)
{
	size_t		 len = strlen(u->edit);
	char		 mb[MB_LEN_MAX];
	mbstate_t	 st;
	size_t		 n;

	if (!is_code && (key == '\n' || key == '\r')) {
		snprintf(u->filter, sizeof u->filter, "%s", u->edit);
		u->editing = 0;
		return (UI_DRAW_FRAME);
	}
	if (!is_code && key == 0x1b) {
		u->editing = 0;
		return (UI_DRAW_FRAME);
	}
	if ((is_code && key == KEY_BACKSPACE) || (!is_code && (key == 0x7f ||
	    key == 0x08))) {
		/* Drop one whole UTF-8 character. */
		while (len > 0 && (u->edit[len - 1] & 0xc0) == 0x80)
			len--;
		if (len > 0)
			len--;
		u->edit[len] = '\0';
		return (UI_DRAW_FRAME);
	}
	if (is_code || key < 0x20 || key == 0x7f)
		return (UI_DRAW_FRAME);
	memset(&st, 0, sizeof st);
	if ((n = wcrtomb(mb, (wchar_t)key, &st)) == (size_t)-1)
		return (UI_DRAW_FRAME);
	if (len + n < sizeof u->edit) {
		memcpy(u->edit + len, mb, n);
		u->edit[len + n] = '\0';
	}
	return (UI_DRAW_FRAME);
}

/* A mouse event: tabs switch panes, the wheel moves, clicks in a pane select. */
static int
ui_mouse(struct ui_state *u)
{
	MEVENT		 me;
	unsigned	 i;
	const struct ui_rect *r = &u->pane_rect;

	if (getmouse(&me) != OK)
		return (UI_DRAW_FRAME);
	if (u->help) {
		u->help = 0;
		return (UI_DRAW_FRAME);
	}
	if (me.bstate & BUTTON4_PRESSED) {
		ui_panes[u->pane]->key(&u->panes[u->pane], UI_UP);
		return (UI_DRAW_FRAME);
	}
#ifdef BUTTON5_PRESSED
	if (me.bstate & BUTTON5_PRESSED) {
		ui_panes[u->pane]->key(&u->panes[u->pane], UI_DOWN);
		return (UI_DRAW_FRAME);
	}
#endif
	if (!(me.bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED |
	    BUTTON1_RELEASED)))
		return (UI_DRAW_FRAME);
	if (me.y == 1) {
		for (i = 0; i < nitems(ui_panes); i++) {
			if (me.x >= u->tabs_x[i] && me.x < u->tabs_x[i + 1])
				u->pane = i;
		}
		return (UI_DRAW_FRAME);
	}
	if (me.y >= r->y && me.y < r->y + r->h && ui_panes[u->pane]->click != NULL)
		ui_panes[u->pane]->click(&u->panes[u->pane], r, me.y, me.x);
	return (UI_DRAW_FRAME);
}

/* A key on the stack screen: its own key, Down or Right the next scope, Up or Left the one before; 0 for others. */
static int
ui_stack_key(struct ui_state *u, int key, int is_code)
{
	unsigned	 n = ui_stack_nscopes(u);
	int		 a = ui_keys_lookup(&u->keys, key);

	if ((!is_code && key > 0x7f) || a == -1)
		return (0);
	if (a == UI_STACK || a == UI_DOWN || a == UI_SORT_RIGHT)
		u->stack_scope = (u->stack_scope + 1) % n;
	else if (a == UI_UP || a == UI_SORT_LEFT)
		u->stack_scope = (u->stack_scope + n - 1) % n;
	else
		return (0);
	return (1);
}

/*
 * One key from the terminal: the pane's if it takes it, else its action's
 * handler from the table. Returns what must be drawn again (UI_DRAW_*).
 */
static int
ui_key(struct ui_state *u, int key, int is_code)
{
	const struct ui_action_info	*ai;
	unsigned			 i;
	int				 a, draw = 0;

	if (is_code && key == KEY_RESIZE)
		return (0);	/* resizeterm() queued it: already handled */
	if (is_code && key == KEY_MOUSE)
		return (ui_mouse(u));
	if (u->editing)
		return (ui_edit_key(u, key, is_code));
	if (u->help == 4 && ui_stack_key(u, key, is_code))
		return (UI_DRAW_FRAME);
	if (u->help) {
		/* Any key closes the help; q still quits. */
		u->help = 0;
		if (!is_code && key == 'q')
			ui_action_quit(u, UI_QUIT);
		return (UI_DRAW_FRAME);
	}
	if ((!is_code && key > 0x7f) || (a = ui_keys_lookup(&u->keys, key)) == -1)
		return (0);
	for (i = 0; i < ui_nactions && ui_actions[i].action != (enum ui_action)a; i++)
		;
	if (i == ui_nactions)
		return (0);
	ai = &ui_actions[i];
	if (u->status_ticks > 0 && u->status[0] != '\0' && !ai->keep_status) {
		u->status[0] = '\0';
		draw = UI_DRAW_FRAME;
	}
	if (ui_panes[u->pane]->key(&u->panes[u->pane], ai->action))
		return (UI_DRAW_FRAME);
	if (ai->fn != NULL)
		draw |= ai->fn(u, ai->action);
	return (draw);
}

/* stdin is readable: every key waiting, then one redraw if one asked for it. */
void
ui_key_cb(int fd, __unused short what, void *arg)
{
	struct ui_state	*u = arg;
	wint_t		 wch;
	int		 r, avail = 0, draw = 0;

	/* Readable with nothing to read: the terminal is gone. */
	if (ioctl(fd, FIONREAD, &avail) == 0 && avail == 0) {
		ui_action_quit(u, UI_QUIT);
		event_del(u->key_ev);
		return;
	}
	while ((r = wget_wch(stdscr, &wch)) != ERR)
		draw |= ui_key(u, (int)wch, r == KEY_CODE_YES);
	if (draw & UI_DRAW_TERMINAL)
		clearok(curscr, TRUE);
	if (draw & UI_DRAW_FRAME)
		ui_redraw(u);
}
