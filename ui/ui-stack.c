/* ui-stack.c: the latency stack screen (--stack's histograms side by side and its rules) for all, a device, a process or a file. */

#include <curses.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "blktop.h"
#include "stack.h"
#include "ui.h"

#define UI_STACK_COLS	9	/* histograms side by side at most */
#define UI_STACK_W	9	/* a histogram's column */
#define UI_STACK_LABEL	16	/* the bucket's label, bpftrace's */

/* One histogram of a block: its column's title and its counts. */
struct ui_stack_col {
	const char		*name;
	const struct stack_hist	*h;
};

/*
 * Histograms side by side, a row per bucket from the lowest any has to the
 * highest, then each one's count and mean (the text's and -J's figures).
 * Returns the next free line.
 */
static int
ui_stack_block(int y, const struct ui_rect *r, const char *unit, const struct ui_stack_col *c,
    unsigned n)
{
	char		 line[UI_STACK_LABEL + UI_STACK_COLS * UI_STACK_W + 8], l[48];
	unsigned	 i, s, first = STACK_LOG2, last = 0;
	int		 off;

	for (i = 0; i < n; i++)
		for (s = 1; s < STACK_LOG2; s++)
			if (c[i].h->b[s] != 0) {
				first = s < first ? s : first;
				last = s > last ? s : last;
			}
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

/* The verdict lines of a scope, each as --stack prints it. */
static int
ui_stack_rules(int y, const struct ui_rect *r, char lines[][STACK_LINE], unsigned n)
{
	unsigned	 i;

	for (i = 0; i < n && y < r->y + r->h; i++)
		ui_text(stdscr, y++, r->x, THEME_MAIN_FG, THEME_MAIN_BG, lines[i]);
	return (y);
}

/* The scopes the stack has: all, each device, each process, each file. */
unsigned
ui_stack_nscopes(const struct ui_state *u)
{
	const struct stack	*st = u->b->stack;

	return (st == NULL ? 1 : 1 + st->ndevs + st->nprocs + st->nsfiles);
}

/* A device's (or all devices') request sizes and depths at dispatch. */
static int
ui_stack_sizes(const struct stack_dev *d, int y, const struct ui_rect *r)
{
	const struct ui_stack_col sz[] = {
		{ "kb_r", &d->bs[0] }, { "kb_w", &d->bs[1] }, { "qd_r", &d->qd[0] },
		{ "qd_w", &d->qd[1] },
	};

	return (ui_stack_block(y, r, "KiB | depth", sz, nitems(sz)));
}

/* All devices and processes: the script's figures, its four rules. */
static int
ui_stack_all(const struct stack *st, int y, const struct ui_rect *r)
{
	const struct stack_dev	*a = &st->all;
	const struct stack_proc	*p = &st->procs_all;
	const struct ui_stack_col us[] = {
		{ "q2d_r", &a->q2d[0] }, { "q2d_w", &a->q2d[1] }, { "d2c_r", &a->d2c[0] },
		{ "d2c_w", &a->d2c[1] }, { "vfs_r", &p->vfs[0] }, { "vfs_w", &p->vfs[1] },
		{ "fsync", &p->fsync }, { "wr>fsync", &p->wgap }, { "dirty>fs", &p->dirty },
	};
	struct stack_verdict	 v;
	char			 lines[4][STACK_LINE];

	y = ui_stack_block(y, r, "us", us, nitems(us));
	y = ui_stack_sizes(a, y, r);
	stack_judge(&v, a->q2d, a->d2c, 1, p);
	return (ui_stack_rules(y, r, lines, stack_verdict_lines("all", &v, 1, 1, lines)));
}

/* One device: its block figures, the block layer's two rules. */
static int
ui_stack_dev(const struct stack_dev *d, int y, const struct ui_rect *r)
{
	const struct ui_stack_col us[] = {
		{ "q2d_r", &d->q2d[0] }, { "q2d_w", &d->q2d[1] }, { "d2c_r", &d->d2c[0] },
		{ "d2c_w", &d->d2c[1] },
	};
	struct stack_verdict	 v;
	char			 lines[4][STACK_LINE];

	y = ui_stack_block(y, r, "us", us, nitems(us));
	y = ui_stack_sizes(d, y, r);
	stack_judge(&v, d->q2d, d->d2c, 1, NULL);
	return (ui_stack_rules(y, r, lines, stack_verdict_lines(device_text(d->dev), &v, 1, 0,
	    lines)));
}

/* One process: its calls and its requests (both directions), the calls' two rules. */
static int
ui_stack_proc(const struct stack_proc *p, int y, const struct ui_rect *r)
{
	const struct ui_stack_col us[] = {
		{ "q2d", &p->q2d }, { "d2c", &p->d2c }, { "vfs_r", &p->vfs[0] },
		{ "vfs_w", &p->vfs[1] }, { "fsync", &p->fsync }, { "wr>fsync", &p->wgap },
		{ "dirty>fs", &p->dirty },
	};
	struct stack_verdict	 v;
	char			 lines[4][STACK_LINE], scope[64];

	y = ui_stack_block(y, r, "us", us, nitems(us));
	stack_judge(&v, &p->q2d, &p->d2c, 0, p);
	snprintf(scope, sizeof scope, "%.*s[%u]", BLKTOP_COMM_LEN, p->comm, p->tgid);
	return (ui_stack_rules(y, r, lines, stack_verdict_lines(scope, &v, 0, 1, lines)));
}

/* One file: its fsyncs and the gaps before them, the application's rule. */
static int
ui_stack_file(const struct stack_file *sf, int y, const struct ui_rect *r)
{
	const struct ui_stack_col us[] = {
		{ "fsync", &sf->fsync }, { "wr>fsync", &sf->wgap }, { "dirty>fs", &sf->dirty },
	};
	char			 lines[1][STACK_LINE];

	y = ui_stack_block(y, r, "us", us, nitems(us));
	stack_file_line(lines[0], sizeof lines[0], sf);
	return (ui_stack_rules(y, r, lines, 1));
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
	unsigned		 s = u->stack_scope % ui_stack_nscopes(u), n;
	char			 title[STACK_PATH + 160];
	int			 y = r->y + 2;

	if (st == NULL) {
		ui_text(stdscr, r->y, r->x, THEME_INACTIVE_FG, THEME_MAIN_BG, "no latency stack in "
		    "this run");
		return;
	}
	n = ui_stack_nscopes(u);
	if (s == 0)
		snprintf(title, sizeof title, "all devices and processes");
	else if (s <= st->ndevs)
		snprintf(title, sizeof title, "device %s", device_text(st->devs[s - 1]->dev));
	else if (s <= st->ndevs + st->nprocs)
		snprintf(title, sizeof title, "process %.*s[%u]", BLKTOP_COMM_LEN,
		    st->procs[s - 1 - st->ndevs].comm, st->procs[s - 1 - st->ndevs].tgid);
	else
		snprintf(title, sizeof title, "file %s",
		    st->sfiles[s - 1 - st->ndevs - st->nprocs].path);
	ui_text(stdscr, r->y, r->x, THEME_TITLE, THEME_MAIN_BG, "Latency stack since the start "
	    "(doc/json.md, stack; the sweep runs 1 s behind). Down/Up or the key again: next/"
	    "previous scope; any other key closes it");
	snprintf(title + strlen(title), sizeof title - strlen(title), " (%u of %u)%s", s + 1, n,
	    st->late + st->over != 0 ? "; some came late or found no room (-J: late, over)" : "");
	ui_text(stdscr, r->y + 1, r->x, THEME_HI_FG, THEME_MAIN_BG, title);
	if (s == 0)
		ui_stack_all(st, y, r);
	else if (s <= st->ndevs)
		ui_stack_dev(st->devs[s - 1], y, r);
	else if (s <= st->ndevs + st->nprocs)
		ui_stack_proc(&st->procs[s - 1 - st->ndevs], y, r);
	else
		ui_stack_file(&st->sfiles[s - 1 - st->ndevs - st->nprocs], y, r);
}
