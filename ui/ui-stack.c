/* ui-stack.c: the latency stack screen (--stack's histograms side by side and its rules) for all, a device, a process or a file. */

#include <curses.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "blktop.h"
#include "stack.h"
#include "ui.h"

#define UI_STACK_W	9	/* a histogram's column */
#define UI_STACK_LABEL	16	/* the bucket's label, bpftrace's */

/*
 * Histograms side by side, a row per bucket from the lowest any has to the
 * highest, then each one's count and mean (the text's and -J's figures).
 * Returns the next free line.
 */
static int
ui_stack_block(int y, const struct ui_rect *r, const char *unit, const struct stack_col *c,
    unsigned n)
{
	char		 line[UI_STACK_LABEL + STACK_COLS * UI_STACK_W + 8], l[48];
	unsigned	 i, s, first, last;
	int		 off;

	if (n == 0)
		return (y);
	if (!stack_cols_span(c, n, &first, &last))
		first = last + 1;
	off = snprintf(line, sizeof line, "%-*s", UI_STACK_LABEL, unit);
	for (i = 0; i < n; i++)
		off += snprintf(line + off, sizeof line - (size_t)off, "%*s", UI_STACK_W, c[i].name);
	ui_text(stdscr, y++, r->x, THEME_INACTIVE_FG, THEME_MAIN_BG, line);
	for (s = first; s <= last && y < r->y + r->h - 2; s++) {
		stack_hist_label(l, sizeof l, s);
		off = snprintf(line, sizeof line, "%-*s", UI_STACK_LABEL, l);
		for (i = 0; i < n; i++)
			off += snprintf(line + off, sizeof line - (size_t)off, "%*" PRIu64,
			    UI_STACK_W, c[i].h->b[s]);
		ui_text(stdscr, y++, r->x, THEME_MAIN_FG, THEME_MAIN_BG, line);
	}
	off = snprintf(line, sizeof line, "%-*s", UI_STACK_LABEL, "n");
	for (i = 0; i < n; i++)
		off += snprintf(line + off, sizeof line - (size_t)off, "%*" PRIu64, UI_STACK_W,
		    c[i].h->n);
	ui_text(stdscr, y++, r->x, THEME_TITLE, THEME_MAIN_BG, line);
	off = snprintf(line, sizeof line, "%-*s", UI_STACK_LABEL, "mean");
	for (i = 0; i < n; i++) {
		if (c[i].h->n > 0)
			snprintf(l, sizeof l, "%.1f", stack_hist_mean(c[i].h));
		else
			snprintf(l, sizeof l, "-");
		off += snprintf(line + off, sizeof line - (size_t)off, "%*s", UI_STACK_W, l);
	}
	ui_text(stdscr, y++, r->x, THEME_TITLE, THEME_MAIN_BG, line);
	return (y + 1);
}

/* The scopes the stack has: all, each device, each process, each file. */
unsigned
ui_stack_nscopes(const struct ui_state *u)
{
	return (u->b->stack == NULL ? 1 : stack_nscopes(u->b->stack));
}

/*
 * The scope of the current pane's selection: the process or file selected
 * or drilled into, where the stack has it; else 0, all (the devices pane).
 */
unsigned
ui_stack_scope_selected(struct ui_state *u)
{
	const struct stack	*st = u->b->stack;
	const struct pane_entry	*e = ui_panes[u->pane];
	const char		*path = NULL;
	uint64_t		 id = 0;
	unsigned		 i;

	if (st == NULL || e->selected == NULL || !e->selected(&u->panes[u->pane], &id, &path))
		return (0);
	/* A process's id and a file's (host + 1) carry its host in a run of several hosts. */
	for (i = 0; i < st->nprocs && path == NULL; i++)
		if (st->procs[i].tgid == PROC_ID_PID(id) &&
		    st->procs[i].host == (int)(id >> PROC_ID_HOST_SHIFT) - 1)
			return (1 + st->ndevs + i);
	for (i = 0; i < st->nsfiles && path != NULL; i++)
		if (strcmp(st->sfiles[i].path, path) == 0 && st->sfiles[i].host == (int)id - 1)
			return (1 + st->ndevs + st->nprocs + i);
	return (0);
}

/*
 * The latency stack since the start, as -J's "stack" object has it (the
 * sweep's lag behind: what started in the last second waits for its depth
 * and gap): scope u->stack_scope, 0 all, then the devices, the processes,
 * the files, in the order the stack met them.
 */
void
ui_draw_stack(const struct ui_state *u, const struct ui_rect *r)
{
	const struct stack	*st = u->b->stack;
	struct stack_col	 c[STACK_COLS];
	unsigned		 s = u->stack_scope % ui_stack_nscopes(u), i, n;
	char			 title[STACK_PATH + 160], lines[4][STACK_LINE];
	int			 y = r->y + 2;

	if (st == NULL) {
		ui_text(stdscr, r->y, r->x, THEME_INACTIVE_FG, THEME_MAIN_BG, "no latency stack in "
		    "this run");
		return;
	}
	ui_text(stdscr, r->y, r->x, THEME_TITLE, THEME_MAIN_BG, "Latency stack since the start "
	    "(doc/json.md, stack; the sweep runs 1 s behind). Down/Up or the key again: next/"
	    "previous scope; any other key closes it");
	stack_scope_name(st, s, title, sizeof title);
	snprintf(title + strlen(title), sizeof title - strlen(title), " (%u of %u)%s", s + 1,
	    stack_nscopes(st), st->late + st->over != 0 ? "; some came late or found no room "
	    "(-J: late, over)" : "");
	ui_text(stdscr, r->y + 1, r->x, THEME_HI_FG, THEME_MAIN_BG, title);
	y = ui_stack_block(y, r, "us", c, stack_cols(st, s, 0, c));
	y = ui_stack_block(y, r, "KiB | depth", c, stack_cols(st, s, 1, c));
	n = stack_scope_rules(st, s, lines);
	for (i = 0; i < n && y < r->y + r->h; i++)
		ui_text(stdscr, y++, r->x, THEME_MAIN_FG, THEME_MAIN_BG, lines[i]);
}
