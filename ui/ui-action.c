/* ui-action.c: what a key or a click does: actions, replay controls, the filter line, mouse, key dispatch. */

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
	case UI_SAVE:
		ui_config_save(b);
		break;
	case UI_THEME:
		ui_next_theme();
		break;
	case UI_FILTER:
		ui.editing = 1;
		snprintf(ui.edit, sizeof ui.edit, "%s", ui.filter);
		break;
	case UI_RECORD:
		if (stream_sink_control(b, "capture", SINK_CTL_TOGGLE, &msg) < 0 && msg == NULL)
			msg = xstrdup("recording is not available");
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
void
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
