/* ui-header.c: the frame around the panes: header with tabs, status line, help, and the frame itself. */

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
#include "fields.h"
#include "ui.h"


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
ui_draw_header(struct ui_state *u)
{
	struct blktop	*b = u->b;
	struct source_status st;
	const char	*rec;
	char		 buf[512], when[16];
	time_t		 t;
	struct tm	 tm;
	int		 x, room;
	size_t		 n;
	unsigned	 i;

	t = (time_t)(((int64_t)b->win.tick_start + b->mono_to_wall) /
	    (int64_t)NSEC_PER_SEC);
	localtime_r(&t, &tm);
	strftime(when, sizeof when, "%H:%M:%S", &tm);
	x = ui_put(0, 0, THEME_TITLE, "blktop ");
	snprintf(buf, sizeof buf, "%s %s  %s  %s  interval %gs  column %us  ",
	    u->host, u->kernel, b->src != NULL ? b->src->entry->name : "?", when,
	    b->opt.interval, u->view.col_secs);
	x = ui_put(0, x, THEME_MAIN_FG, buf);
	snprintf(buf, sizeof buf, "%.0f ev/s  ", u->evps);
	x = ui_put(0, x, THEME_MAIN_FG, buf);
	if (b->lost_unknown != NULL)	/* the kernel's counters unreadable: unknown, not 0 */
		snprintf(buf, sizeof buf, "lost ?");
	else
		snprintf(buf, sizeof buf, "lost %llu", (unsigned long long)b->lost);
	x = ui_put(0, x, b->lost > 0 || b->lost_unknown != NULL ? THEME_LOST : THEME_MAIN_FG, buf);
	if ((rec = stream_sink_status(b, "capture")) != NULL) {
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
	if (u->view.paused)
		ui_put(0, x + 2, THEME_LOST, "PAUSED");

	x = 0;
	for (i = 0; i < nitems(ui_panes); i++) {
		u->tabs_x[i] = x;
		snprintf(buf, sizeof buf, " %u %s ", i + 1, ui_panes[i]->title);
		ui_text(stdscr, 1, x, i == u->pane ? THEME_SELECTED_FG :
		    THEME_INACTIVE_FG, i == u->pane ? THEME_SELECTED_BG :
		    THEME_MAIN_BG, buf);
		x += (int)strlen(buf) + 1;
	}
	u->tabs_x[i] = x;
	/*
	 * What blktop itself costs, its CPU and its BPF programs ("-": unknown),
	 * in fixed widths so the line does not jitter, then the plan, as much
	 * of it as the line has room for (a merged run's is every file's).
	 */
	if (b->self.valid && b->self.have_bpf)
		snprintf(buf, sizeof buf, " cpu %5.1f%% bpf %5.1f%%  plan ",
		    b->self.cpu_pct, b->self.bpf_pct);
	else if (b->self.valid)
		snprintf(buf, sizeof buf, " cpu %5.1f%% bpf     -  plan ", b->self.cpu_pct);
	else
		snprintf(buf, sizeof buf, " cpu     - bpf     -  plan ");
	n = strlen(buf);
	room = COLS - x - 1 - (int)n;
	if (room > 0) {
		snprintf(buf + n, sizeof buf - n, "%.*s", room,
		    b->plan_text[0] != '\0' ? b->plan_text : "-");
		ui_put(1, COLS - (int)strlen(buf), THEME_GRAPH_TEXT, buf);
	}
}

/*
 * What a cap cut since the start, short ("dropped 6 dev, evicted 12 proc 40
 * file, history 46s"; ? says it in full), into buf; its length.
 */
static size_t
ui_status_cut(const struct blktop *b, char *buf, size_t size)
{
	const struct windows	*w = &b->win;
	struct proc_stats	 st;
	size_t			 n = 0;

	buf[0] = '\0';
	if (w->dropped > 0)
		n += (size_t)snprintf(buf + n, size - n, " dropped %u dev",
		    w->ndrop + (w->drop[WINDOWS_DROP_MAX].requests > 0));
	if (b->procs != NULL && n < size) {
		proc_stats(b->procs, &st);
		if (st.procs_evicted + st.files_evicted > 0)
			n += (size_t)snprintf(buf + n, size - n, "%s evicted %llu proc %llu file",
			    n ? "," : "", (unsigned long long)st.procs_evicted,
			    (unsigned long long)st.files_evicted);
	}
	if (w->history_cut > 0 && w->span < w->nticks && n < size)
		n += (size_t)snprintf(buf + n, size - n, "%s history %.0fs", n ? "," : "",
		    (double)(w->span - 1) * (double)b->tick_ns / 1e9);
	return (n < size ? n : size - 1);
}

/*
 * The bottom line: the filter being typed, a message, or the main keys; at
 * its right, what a cap cut and what this source cannot tell ("n/a: aio
 * munmap"; ? says why).
 */
static void
ui_draw_status(const struct ui_state *u)
{
	const struct blktop	*b = u->b;
	char			 buf[256], na[192];
	int			 y = LINES - 1;
	size_t			 n;
	unsigned		 i;

	n = ui_status_cut(b, na, sizeof na);
	for (i = 0; i < HAVE_NBITS; i++) {
		if (source_have_na(b, have_table[i].bit)[0] != '\0' && n < sizeof na)
			n += (size_t)snprintf(na + n, sizeof na - n, "%s %s",
			    strstr(na, " n/a:") == NULL ? " n/a:" : "", have_table[i].name);
	}
	if (na[0] != '\0' && (int)strlen(na) < COLS)
		ui_put(y, COLS - (int)strlen(na), THEME_LOST, na);

	if (u->editing) {
		snprintf(buf, sizeof buf, "filter: %s_  (Enter apply, Esc cancel)",
		    u->edit);
		ui_put(y, 0, THEME_HI_FG, buf);
		return;
	}
	if (u->status[0] != '\0') {
		ui_put(y, 0, THEME_HI_FG, u->status);
		return;
	}
	ui_keys_hints(&u->keys, buf, sizeof buf);
	if (u->filter[0] != '\0')
		snprintf(buf + strlen(buf), sizeof buf - strlen(buf), ": %s", u->filter);
	ui_put(y, 0, THEME_INACTIVE_FG, buf);
}

/* The help screen, generated from the key table. */
static void
ui_draw_help(const struct ui_state *u, const struct ui_rect *r)
{
	const struct blktop	*b = u->b;
	char			 lines[64][96];
	unsigned		 n, i, col, ncolumns, per;

	n = ui_keys_help(&u->keys, lines, nitems(lines));
	if (n < nitems(lines)) {
		char	 cut[1024];

		if (fmt_dropped(b, 0, cut, sizeof cut) > 0)
			snprintf(lines[n++], sizeof lines[0], "cut: %.88s", cut);
	}
	if (n < nitems(lines) && b->win.history_cut > 0 && b->win.span < b->win.nticks)
		snprintf(lines[n++], sizeof lines[0], "cut: history %.0f s of %.0f (256 MiB of "
		    "counts)", (double)(b->win.span - 1) * (double)b->tick_ns / 1e9,
		    (double)(b->win.nticks - 1) * (double)b->tick_ns / 1e9);
	for (i = 0; i < HAVE_NBITS && n < nitems(lines); i++) {
		const char *why = source_have_na(b, have_table[i].bit);

		if (why[0] != '\0')
			snprintf(lines[n++], sizeof lines[0], "n/a %-7s %.80s", have_table[i].name,
			    why);
	}
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

/* The insights screen: what the rules find over the whole run, highest first (doc/insights.md). */
static void
ui_draw_insights(const struct ui_state *u, const struct ui_rect *r)
{
	const struct blktop	*b = u->b;
	struct insight		 in[INSIGHT_MAX];
	char			 fig[160], rule[200], name[VFS_PATH_MAX], line[1024];
	uint64_t		 more = 0;
	unsigned		 n = 0, i;
	int			 y = r->y + 2;

	ui_put(r->y, r->x, THEME_TITLE, "Insights since the start (any key closes them; "
	    "doc/insights.md has the rules)");
	n = insight_scan(b, in, INSIGHT_MAX, &more);
	if (b->procs == NULL || !(b->have & HAVE_VFS))
		ui_text(stdscr, y++, r->x, THEME_INACTIVE_FG, THEME_MAIN_BG,
		    "no read/write calls are traced: only the device rules judge");
	if (n == 0)
		ui_text(stdscr, y, r->x, THEME_INACTIVE_FG, THEME_MAIN_BG, "no rule fired");
	/* Three lines each: what and where, the figure and rule, the advice. */
	for (i = 0; i < n && y + 2 < r->y + r->h; i++) {
		const struct insight_rule *ru = in[i].rule;

		ru->text(&b->opt.insight, &in[i], fig, sizeof fig, rule, sizeof rule);
		fmt_insight_name(b->procs, &in[i], name, sizeof name);
		snprintf(line, sizeof line, "%-4s %-10s %.990s", insight_level_name(ru->level),
		    ru->code, name);
		ui_text(stdscr, y++, r->x, ru->level == INSIGHT_HIGH ? THEME_LOST : THEME_TITLE,
		    THEME_MAIN_BG, line);
		snprintf(line, sizeof line, "     %s (rule: %s)", fig, rule);
		ui_text(stdscr, y++, r->x, THEME_MAIN_FG, THEME_MAIN_BG, line);
		snprintf(line, sizeof line, "     %s", ru->advice);
		ui_text(stdscr, y++, r->x, THEME_INACTIVE_FG, THEME_MAIN_BG, line);
	}
	if (i < n || more > 0) {
		snprintf(line, sizeof line, "... %llu more", (unsigned long long)(n - i + more));
		ui_text(stdscr, r->y + r->h - 1, r->x, THEME_INACTIVE_FG, THEME_MAIN_BG, line);
	}
}

/* Draw the whole screen once. */
void
ui_draw_all(struct ui_state *u)
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
	ui_draw_header(u);
	r.y = 2;
	r.x = 0;
	r.h = LINES - 3;
	r.w = COLS;
	u->pane_rect = r;
	if (u->help == 5)
		ui_draw_wear(u, &r);
	else if (u->help == 4)
		ui_draw_stack(u, &r);
	else if (u->help == 3)
		ui_draw_depth(u, &r);
	else if (u->help == 2)
		ui_draw_insights(u, &r);
	else if (u->help)
		ui_draw_help(u, &r);
	else
		ui_panes[u->pane]->draw(&u->panes[u->pane], stdscr, &r);
	ui_draw_status(u);
	ui_draw_flush();
	u->frames++;
}

/* Draw one frame now, of a pane by its tab index or the current one (-1): for benchmarks. */
void
ui_frame(struct ui_state *u, int pane)
{
	if (pane >= 0 && pane < (int)nitems(ui_panes))
		u->pane = (unsigned)pane;
	if (u->running)
		ui_draw_all(u);
}
