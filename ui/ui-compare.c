/*
 * ui-compare.c: --compare on a terminal: the compare compare.c built (the
 * numbers -b and -J print), a tab per kind of entity (devices, processes,
 * files, phases, insights) with each figure of A and B side by side, B - A,
 * B / A and whether the difference is larger than the spread, and above a
 * device's rows its latency heatmaps of A, B and B - A (compare-heat.c).
 * Nothing runs but the screen: keys are read in a loop of their own.
 */

#include <curses.h>
#include <locale.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blktop.h"
#include "compare.h"
#include "ui.h"

#define UC_HEAD		0x80000000u	/* a row that is an entity's heading, not a figure */
#define UC_HELP_LINES	48
#define UC_LABEL_W	6		/* the heatmaps' axis labels, "1.2ms" */

/* The compare screen's state: the compare it shows and where the view is. */
struct uc_state {
	const struct compare	*c;
	struct ui_keys		 keys;
	int			 flags;		/* DRAW_UTF8, DRAW_MONO */
	enum cmp_entity		 kind;		/* the tab */
	unsigned		*rows;		/* the tab's rows: a figure's index, or UC_HEAD | its first */
	unsigned		 nrows, sel, top;
	int			 help;
	struct cmp_heat		 heat;		/* the selected device's */
	const char		*heat_key;	/* its key, NULL: none made */
	int			 has_heat;
	struct draw_cell	*cells;
	size_t			 ncells;
};

/* The number of entities of kind e. */
static unsigned
uc_count(const struct compare *c, enum cmp_entity e)
{
	unsigned	 i, j, n = 0;

	for (i = 0; i < c->nfig; i = j) {
		j = compare_group_end(c, i);
		n += c->fig[i].entity == e;
	}
	return (n);
}

/* The tab's rows: each entity of its kind, a heading and its figures that have a value. */
static void
uc_rows(struct uc_state *st)
{
	const struct compare	*c = st->c;
	unsigned		 i, j, k;

	st->nrows = st->sel = st->top = 0;
	for (i = 0; i < c->nfig; i = j) {
		j = compare_group_end(c, i);
		if (c->fig[i].entity != st->kind)
			continue;
		st->rows[st->nrows++] = UC_HEAD | i;
		for (k = i; k < j; k++)
			if (c->fig[k].s[0].n > 0 || c->fig[k].s[1].n > 0)
				st->rows[st->nrows++] = k;
	}
}

/* The figure a row is, or (a heading) the first of its entity's. */
static const struct cmp_fig *
uc_fig(const struct uc_state *st, unsigned row)
{
	return (&st->c->fig[st->rows[row] & ~UC_HEAD]);
}

/* An entity's name, as -b heads its block: "device loop0", "phase "x" loop0". */
static void
uc_entity(const struct cmp_fig *f, char *buf, size_t len)
{
	static const char *const what[CMP_NENTITY] = {
		"device", "process", "file", "phase", "insight"
	};

	snprintf(buf, len, "%s %s%s%s", what[f->entity], f->key, f->key2 != NULL ? " " : "",
	    f->key2 != NULL ? f->key2 : "");
}

/* The selected row's device's heatmaps, made again only when the device changes. */
static void
uc_heat(struct uc_state *st)
{
	const struct cmp_fig	*f;

	if (st->kind != CMP_DEVICE || st->nrows == 0) {
		st->has_heat = 0;
		return;
	}
	f = uc_fig(st, st->sel);
	if (st->heat_key == f->key)
		return;
	if (st->heat_key != NULL)
		compare_heat_free(&st->heat);
	st->heat_key = f->key;
	st->has_heat = compare_heat(st->c, f->key, &st->heat);	/* its -J token, quoted */
}

/* Room for n cells. */
static struct draw_cell *
uc_cells(struct uc_state *st, size_t n)
{
	if (n > st->ncells) {
		st->cells = xreallocarray(st->cells, n, sizeof *st->cells);
		st->ncells = n;
	}
	return (st->cells);
}

/* A side's heatmap over time (nx columns of shares) as heat cells, ncols by nrows at y, x. */
static void
uc_heat_side(struct uc_state *st, int y, int x, const double *m, unsigned nx, unsigned ncols,
    unsigned nrows)
{
	double		*fold;
	uint64_t	*sub;
	unsigned	 nsub = 2 * nrows, i;

	if (nx == 0 || ncols == 0)
		return;
	if (ncols > nx)
		ncols = ncols / nx * nx;	/* each column as wide as the others */
	fold = xcalloc((size_t)ncols * nsub, sizeof *fold);
	sub = xcalloc((size_t)ncols * nsub, sizeof *sub);
	compare_heat_fold(&st->heat, m, nx, ncols, nsub, fold);
	/* Shares as parts per million: draw.c's heat levels take counts. */
	for (i = 0; i < ncols * nsub; i++)
		sub[i] = (uint64_t)(fold[i] * 1e6 + 0.5);
	draw_heatmap_sub(sub, ncols, nrows, st->flags, uc_cells(st, (size_t)ncols * nrows));
	ui_draw_cells(stdscr, y, x, st->cells, nrows, ncols);
	free(fold);
	free(sub);
}

/* A difference's cell: B's larger share in the write colour, A's in the read colour, by size. */
static void
uc_diff_cell(const struct uc_state *st, struct draw_cell *cell, double v, double top)
{
	static const char *const utf8[4] = { " ", "\xe2\x96\x91", "\xe2\x96\x92", "\xe2\x96\x93" };
	static const char *const pos[4] = { " ", ".", "+", "#" }, *const neg[4] = {
		" ", ".", "-", "=" };
	unsigned	 lv = top > 0 ? (unsigned)(3 * (v < 0 ? -v : v) / top + 0.999) : 0;

	if (lv > 3)
		lv = 3;
	snprintf(cell->glyph, sizeof cell->glyph, "%s", (st->flags & DRAW_UTF8) &&
	    !(st->flags & DRAW_MONO) ? utf8[lv] : v > 0 ? pos[lv] : neg[lv]);
	cell->fg = v > 0 ? THEME_WRITE : THEME_READ;
	cell->bg = THEME_MAIN_BG;
}

/*
 * B - A (CMP_HEAT_RULE): per time column where the columns align, else a
 * figure per row of buckets, B's median share of a run's requests less A's.
 */
static void
uc_heat_diff(struct uc_state *st, int y, int x, unsigned ncols, unsigned nrows)
{
	const struct cmp_heat	*h = &st->heat;
	double			*fold, top = 0, v;
	char			 num[32];
	unsigned		 nsub = 2 * nrows, i, r, cx;

	if (!h->aligned) {
		fold = xcalloc(nsub, sizeof *fold);
		compare_heat_fold(h, h->run_diff, 1, 1, nsub, fold);
		for (r = 0; r < nrows; r++) {
			v = fold[2 * (nrows - 1 - r)] + fold[2 * (nrows - 1 - r) + 1];
			if (v == 0)
				continue;
			snprintf(num, sizeof num, "%+.4f", v);
			ui_text(stdscr, y + (int)r, x, v > 0 ? THEME_WRITE : THEME_READ,
			    THEME_MAIN_BG, num);
		}
		free(fold);
		return;
	}
	if (h->ndiff == 0 || ncols == 0)
		return;
	if (ncols > h->ndiff)
		ncols = ncols / h->ndiff * h->ndiff;
	fold = xcalloc((size_t)ncols * nsub, sizeof *fold);
	compare_heat_fold(h, h->time_diff, h->ndiff, ncols, nsub, fold);
	uc_cells(st, (size_t)ncols * nrows);
	for (i = 0; i < ncols * nsub; i++)
		top = fold[i] < 0 ? (-fold[i] > top ? -fold[i] : top) : fold[i] > top ? fold[i] : top;
	for (r = 0; r < nrows; r++) {
		for (cx = 0; cx < ncols; cx++) {
			i = cx * nsub + 2 * (nrows - 1 - r);
			uc_diff_cell(st, &st->cells[r * ncols + cx], fold[i] + fold[i + 1], top);
		}
	}
	ui_draw_cells(stdscr, y, x, st->cells, nrows, ncols);
	free(fold);
}

/* The heatmaps of the selected device: A, B and B - A side by side; the rows they took. */
static int
uc_draw_heat(struct uc_state *st, int y, int avail)
{
	const struct cmp_heat	*h = &st->heat;
	char			 label[64], lat[16];
	unsigned		 nrows, w, r, b0;
	int			 x;

	if (!st->has_heat || avail < 8)
		return (0);
	nrows = (h->nb + 1) / 2;
	if ((int)nrows > avail / 3)
		nrows = (unsigned)avail / 3;
	if (nrows < 2)
		nrows = 2;
	w = (unsigned)(COLS - UC_LABEL_W - 4) / 3;
	ui_text(stdscr, y, UC_LABEL_W, THEME_TITLE, THEME_MAIN_BG, "A over time");
	ui_text(stdscr, y, UC_LABEL_W + (int)w + 2, THEME_TITLE, THEME_MAIN_BG, "B over time");
	ui_text(stdscr, y, UC_LABEL_W + 2 * ((int)w + 2), THEME_TITLE, THEME_MAIN_BG,
	    h->aligned ? "B - A per time column" : "B - A per bucket (runs' median share)");
	/* Each row's fastest bucket, on every other row. */
	for (r = 0; r < nrows; r += 2) {
		b0 = (unsigned)(((uint64_t)2 * (nrows - 1 - r) * h->nb + 2 * nrows - 1) /
		    (2 * nrows));
		if (b0 >= h->nb)
			continue;
		snprintf(label, sizeof label, "%s", draw_fmt_lat(lat, sizeof lat,
		    (uint64_t)(h->lo[b0] * 1000)));
		ui_text(stdscr, y + 1 + (int)r, 0, THEME_GRAPH_TEXT, THEME_MAIN_BG, label);
	}
	x = UC_LABEL_W;
	uc_heat_side(st, y + 1, x, h->time[0], h->nx[0], w, nrows);
	x += (int)w + 2;
	uc_heat_side(st, y + 1, x, h->time[1], h->nx[1], w, nrows);
	x += (int)w + 2;
	uc_heat_diff(st, y + 1, x, w, nrows);
	return ((int)nrows + 2);
}

/* The widths of the table's columns: the widest cell of the tab's rows, at least the title. */
static void
uc_widths(const struct uc_state *st, int *w)
{
	static const char *const titles[CMP_NCELLS] = { "figure", "A", "B", "B-A", "B/A", "sig" };
	char		 cell[CMP_NCELLS][CMP_CELL_LEN];
	unsigned	 r, k;

	for (k = 0; k < CMP_NCELLS; k++)
		w[k] = (int)strlen(titles[k]);
	for (r = 0; r < st->nrows; r++) {
		if (st->rows[r] & UC_HEAD)
			continue;
		compare_cells(st->c, uc_fig(st, r), 1, cell);
		for (k = 0; k < CMP_NCELLS; k++)
			if ((int)strlen(cell[k]) > w[k])
				w[k] = (int)strlen(cell[k]);
	}
}

/* The figures' table from y to the last row but one. */
static void
uc_draw_table(struct uc_state *st, int y)
{
	static const char *const titles[CMP_NCELLS] = { "figure", "A", "B", "B-A", "B/A", "sig" };
	char		 cell[CMP_NCELLS][CMP_CELL_LEN], line[1024], name[320];
	int		 w[CMP_NCELLS], n, visible = LINES - 1 - (y + 1);
	unsigned	 r, k;
	size_t		 off;

	if (visible <= 0)
		return;
	uc_widths(st, w);
	for (k = 0, off = 0; k < CMP_NCELLS && off < sizeof line; k++, off += (size_t)n)
		n = snprintf(line + off, sizeof line - off, k == 0 ? "  %-*s" : " %*s", w[k],
		    titles[k]);
	ui_text(stdscr, y, 0, THEME_TITLE, THEME_MAIN_BG, line);
	st->top = ui_layout_scroll(st->sel, st->top, (unsigned)visible, st->nrows);
	for (r = st->top; r < st->nrows && (int)(r - st->top) < visible; r++) {
		if (st->rows[r] & UC_HEAD) {
			uc_entity(uc_fig(st, r), name, sizeof name);
			snprintf(line, sizeof line, "%s", name);
		} else {
			compare_cells(st->c, uc_fig(st, r), 1, cell);
			for (k = 0, off = 0; k < CMP_NCELLS && off < sizeof line;
			    k++, off += (size_t)n)
				n = snprintf(line + off, sizeof line - off, k == 0 ? "  %-*s" :
				    " %*s", w[k], cell[k]);
		}
		ui_text(stdscr, y + 1 + (int)(r - st->top), 0, r == st->sel ? THEME_SELECTED_FG :
		    st->rows[r] & UC_HEAD ? THEME_HI_FG : THEME_MAIN_FG, r == st->sel ?
		    THEME_SELECTED_BG : THEME_MAIN_BG, line);
	}
}

/* A side's captures in a few words: its one file, or its count of runs. */
static void
uc_side(const struct compare *c, int s, char *buf, size_t len)
{
	if (c->nrun[s] == 1)
		snprintf(buf, len, "%s: %s (%.3f s)", s ? "B" : "A", c->run[s][0].path,
		    c->run[s][0].duration);
	else
		snprintf(buf, len, "%s: %u runs, %s ...", s ? "B" : "A", c->nrun[s],
		    c->run[s][0].path);
}

/* Text from row y on, its lines broken at spaces to the screen's width; the row after it. */
static int
uc_wrap(int y, const char *text)
{
	char		 line[512];
	const char	*p = text;
	size_t		 n, w = COLS > 1 ? (size_t)COLS - 1 : 1;

	while (*p != '\0' && y < LINES) {
		n = strlen(p);
		if (n > w) {
			for (n = w; n > 0 && p[n] != ' '; n--)
				;
			if (n == 0)
				n = w;
		}
		snprintf(line, sizeof line, "%.*s", (int)(n < sizeof line ? n : sizeof line - 1), p);
		ui_text(stdscr, y++, 0, THEME_HI_FG, THEME_MAIN_BG, line);
		p += n;
		while (*p == ' ')
			p++;
	}
	return (y);
}

/* The help screen: the keys that work here, then what the screen shows and the rules. */
static void
uc_draw_help(const struct uc_state *st)
{
	static const enum ui_action acts[] = {
		UI_QUIT, UI_HELP, UI_NEXT_PANE, UI_PANE_DEV, UI_PANE_PROC, UI_PANE_FILE,
		UI_INSIGHTS, UI_UP, UI_DOWN, UI_PAGE_UP, UI_PAGE_DOWN, UI_HOME, UI_END, UI_REDRAW,
	};
	static const char *const what[] = {
		"The compare screen (blktop --compare A B, or A1 A2 ... -- B1 B2 ...):",
		"each capture replayed alone, its figures as --compare -b and -J give them.",
		"A tab per kind: devices, processes (by command), files (by path),",
		"phases (by mark label) and insights; a row per figure: A, B, B-A, B/A",
		"and sig. Sets: each side's median [min..max] of its runs; sig YES when",
		"the difference is larger than the spread (the rule below), - for one run.",
		"Above a device's rows: its latency buckets (fastest at the bottom) over",
		"each side's first run, colour the bucket's share of a column's requests,",
		"and B - A: the write colour where B has the larger share, the read",
		"colour where A has.",
	};
	char		 keys[48], line[160], note[256];
	unsigned	 i, n = 0;
	int		 y = 2;

	ui_text(stdscr, 0, 0, THEME_TITLE, THEME_MAIN_BG, "Compare: keys (any key closes "
	    "this help)");
	for (i = 0; i < nitems(acts); i++) {
		if (ui_keys_of(&st->keys, acts[i], keys, sizeof keys) == 0)
			continue;
		for (n = 0; n < ui_nactions && ui_actions[n].action != acts[i]; n++)
			;
		snprintf(line, sizeof line, "%-16s %s", keys, acts[i] == UI_NEXT_PANE ?
		    "next tab" : acts[i] == UI_PANE_DEV ? "devices" : acts[i] == UI_PANE_PROC ?
		    "processes" : acts[i] == UI_PANE_FILE ? "files" : acts[i] == UI_INSIGHTS ?
		    "insights" : n < ui_nactions ? ui_actions[n].help : "");
		ui_text(stdscr, y++, 0, THEME_MAIN_FG, THEME_MAIN_BG, line);
	}
	y++;
	for (i = 0; i < nitems(what); i++)
		ui_text(stdscr, y++, 0, THEME_MAIN_FG, THEME_MAIN_BG, what[i]);
	y = uc_wrap(y + 1, "sig: " CMP_RULE);
	y = uc_wrap(y + 1, "heatmap: " CMP_HEAT_RULE);
	uc_wrap(y + 1, compare_note(st->c, note, sizeof note));
}

/* One frame. */
static void
uc_draw(struct uc_state *st)
{
	char		 line[512], a[200], b[200], note[256];
	unsigned	 e;
	int		 x, y, used;

	ui_draw_begin();
	erase();
	if (COLS < UI_MIN_W || LINES < UI_MIN_H) {
		ui_text(stdscr, 0, 0, THEME_LOST, THEME_MAIN_BG, "too small");
		ui_draw_flush();
		return;
	}
	if (st->help) {
		uc_draw_help(st);
		ui_draw_flush();
		return;
	}
	uc_side(st->c, 0, a, sizeof a);
	uc_side(st->c, 1, b, sizeof b);
	snprintf(line, sizeof line, "blktop compare  %s  %s", a, b);
	ui_text(stdscr, 0, 0, THEME_TITLE, THEME_MAIN_BG, line);
	ui_text(stdscr, 1, 0, THEME_INACTIVE_FG, THEME_MAIN_BG, compare_note(st->c, note,
	    sizeof note));
	for (e = 0, x = 0; e < CMP_NENTITY; e++) {
		snprintf(line, sizeof line, " %s (%u) ", cmp_entity_names[e],
		    uc_count(st->c, e));
		ui_text(stdscr, 2, x, e == st->kind ? THEME_SELECTED_FG : THEME_MAIN_FG,
		    e == st->kind ? THEME_SELECTED_BG : THEME_MAIN_BG, line);
		x += (int)strlen(line) + 1;
	}
	y = 3;
	uc_heat(st);
	used = uc_draw_heat(st, y, LINES - y - 4);
	uc_draw_table(st, y + used);
	ui_text(stdscr, LINES - 1, 0, THEME_INACTIVE_FG, THEME_MAIN_BG, st->c->nrun[0] > 1 ||
	    st->c->nrun[1] > 1 ? "sets: median [min..max]; sig: the difference past the spread "
	    "(? for the rule)  q quit  Tab kind" : "q quit  ? help  Tab kind  Up/Down rows");
	ui_draw_flush();
}

/* A key: 0 to leave. */
static int
uc_key(struct uc_state *st, int ch)
{
	int		 a = ui_keys_lookup(&st->keys, ch);
	unsigned	 page = LINES > 10 ? (unsigned)LINES / 2 : 1, e;

	if (st->help) {
		st->help = 0;
		return (1);
	}
	if (ch == KEY_RESIZE || a == UI_REDRAW) {
		clearok(curscr, TRUE);
		return (1);
	}
	e = st->kind;
	switch (a) {
	case UI_QUIT:
		return (0);
	case UI_HELP:
		st->help = 1;
		break;
	case UI_NEXT_PANE:
		do
			e = (e + 1) % CMP_NENTITY;
		while (e != st->kind && uc_count(st->c, e) == 0);
		break;
	case UI_PANE_DEV:
		e = CMP_DEVICE;
		break;
	case UI_PANE_PROC:
		e = CMP_PROCESS;
		break;
	case UI_PANE_FILE:
		e = CMP_FILE;
		break;
	case UI_INSIGHTS:
		e = CMP_INSIGHT;
		break;
	case UI_UP:
	case UI_DOWN:
	case UI_PAGE_UP:
	case UI_PAGE_DOWN:
	case UI_HOME:
	case UI_END:
		if (st->nrows == 0)
			break;
		if (a == UI_UP || a == UI_PAGE_UP)
			st->sel = st->sel > (a == UI_UP ? 1 : page) ? st->sel - (a == UI_UP ? 1 :
			    page) : 0;
		else if (a == UI_DOWN || a == UI_PAGE_DOWN)
			st->sel = st->sel + (a == UI_DOWN ? 1 : page) < st->nrows ? st->sel +
			    (a == UI_DOWN ? 1 : page) : st->nrows - 1;
		else
			st->sel = a == UI_HOME ? 0 : st->nrows - 1;
		break;
	default:
		break;
	}
	if (e != st->kind) {
		st->kind = e;
		uc_rows(st);
	}
	return (1);
}

/* SIGINT, SIGTERM or SIGHUP while the compare shows: leave as q does. */
static volatile sig_atomic_t uc_quit;

static void
uc_signal(__unused int sig)
{
	uc_quit = 1;
}

/* log_fatal_hook: the message must land on a normal screen. */
static void
uc_fatal_hook(void)
{
	if (!isendwin())
		endwin();
}

/*
 * --compare on a terminal (compare_write_fn): the compare shown until q; on
 * no usable terminal, as -b's table instead.
 */
void
ui_compare(const struct blktop *b, const struct compare *c)
{
	static const int signos[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa;
	struct uc_state	 st;
	struct theme	 t;
	unsigned	 i;
	SCREEN		*s;
	char		*err;
	int		 ch;

	memset(&st, 0, sizeof st);
	st.c = c;
	ui_keys_init(&st.keys);
	if (b->opt.ui_opts.theme != NULL ? theme_option(&t, b->opt.ui_opts.theme, &err) != 0 :
	    theme_load(&t, "default", theme_dir(), &err) != 0) {
		free(err);
		theme_default(&t);
	}
	setlocale(LC_ALL, "");
	setlocale(LC_NUMERIC, "C");
	if ((s = newterm(NULL, stdout, stdin)) == NULL || (set_term(s), ui_term_unfit()) != NULL) {
		if (s != NULL) {
			endwin();
			delscreen(s);
		}
		compare_text(stdout, c);
		return;
	}
	log_fatal_hook = uc_fatal_hook;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = uc_signal;	/* no SA_RESTART: getch returns at once */
	for (i = 0; i < nitems(signos); i++)
		sigaction(signos[i], &sa, NULL);
	cbreak();
	noecho();
	nonl();
	curs_set(0);
	keypad(stdscr, TRUE);
	set_escdelay(25);
	ui_draw_init(&t, UI_COLOUR_AUTO);
	st.flags = ui_draw_flags();
	ui_background();
	timeout(1000);
	st.rows = xcalloc(c->nfig * 2 + 1, sizeof *st.rows);
	st.kind = CMP_DEVICE;
	if (uc_count(c, CMP_DEVICE) == 0)
		uc_key(&st, '\t');
	uc_rows(&st);
	do {
		uc_draw(&st);
		ch = getch();
	} while (!uc_quit && (ch == ERR || uc_key(&st, ch)));
	ui_term_leave();
	endwin();
	delscreen(s);
	log_fatal_hook = NULL;
	ui_draw_free();
	if (st.heat_key != NULL)
		compare_heat_free(&st.heat);
	free(st.rows);
	free(st.cells);
}
