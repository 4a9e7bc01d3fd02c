/* ui-draw-curses.c: render draw.c's cells and theme colours into ncursesw windows. */

#include <curses.h>
#include <errno.h>
#include <langinfo.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blktop.h"
#include "ui.h"

/*
 * Colours picked from the theme for the terminal, and the pairs made from
 * them. File-level, as ncurses' own state is: one terminal per process
 * (stdscr, curscr, the colour pairs init_pair made), which every window this
 * file draws on belongs to, and which the UI instance starts and ends
 * (ui_draw_init, ui_draw_free).
 */
static struct {
	enum ui_colour_mode	 mode;
	int			 flags;		/* DRAW_UTF8, DRAW_MONO */
	int			 colour[THEME_NCOLOURS];	/* curses colour, -1 default */
	int			 pair[THEME_NCOLOURS][THEME_NCOLOURS];	/* 0 unset */
	int			 default_fg;
	int			 default_bg;
} ui_draw;

/*
 * Direct painting of the cells of heatmaps and sparklines. ncurses formats a
 * colour escape with tiparm and snprintf for every colour change, and nearly
 * every heatmap cell changes colour: that was half of a device-pane frame.
 * Cells drawn with ui_draw_cells on stdscr are also kept here. Before doupdate
 * they are copied from newscr to curscr, so ncurses takes them as shown and
 * skips them; after it (doupdate leaves the terminal in normal attributes and
 * its cursor where curscr says) they are written with escapes formatted once
 * per theme colour, ending in normal attributes at that cursor again. Only
 * cells that differ from what was painted there before are written: ncurses
 * leaves those alone, as it holds them for shown, and it is kept from moving
 * them by scrolling or shifting (ui_term_nomove).
 */
#define UI_PAINT_ESC	48		/* longest escape kept */
/* Like ui_draw, the one terminal's: what is painted on it, beside curscr. */

static struct {
	int		 on;		/* this terminal can be painted directly */
	int		 fgnum[THEME_NCOLOURS];	/* terminal colour, -1 default */
	int		 bgnum[THEME_NCOLOURS];
	char		 fgesc[THEME_NCOLOURS][UI_PAINT_ESC];
	char		 bgesc[THEME_NCOLOURS][UI_PAINT_ESC];
	char		 op[UI_PAINT_ESC];	/* back to default colours */
	const char	*cup;		/* cursor_address */
	struct draw_cell *grid;		/* rows x cols, the cells of this frame */
	uint8_t		*mark;		/* 1 where grid holds a cell */
	struct draw_cell *shown;	/* rows x cols, the cells painted before */
	uint8_t		*shown_ok;	/* 1 where the terminal still shows them */
	int		 rows, cols, any, shown_any;
	char		*out;
	size_t		 outlen, outsize;
} ui_paint;

/* Choose how to show colours on this terminal, honouring NO_COLOR. */
static enum ui_colour_mode
ui_draw_pick_mode(const struct theme *t)
{
	const char	*e = getenv("NO_COLOR");

	if ((e != NULL && *e != '\0') || !has_colors() || theme_is_mono(t))
		return (UI_COLOUR_MONO);
	if (COLORS >= 0x1000000)
		return (UI_COLOUR_DIRECT);
	if (COLORS >= 256 && can_change_color())
		return (UI_COLOUR_PALETTE);
	if (COLORS >= 256)
		return (UI_COLOUR_256);
	if (COLORS >= 16)
		return (UI_COLOUR_16);
	if (COLORS >= 8)
		return (UI_COLOUR_8);
	return (UI_COLOUR_MONO);
}

/* Palette slot holding rgb, defining a new one from 16 up when needed; -1 when full. */
static int
ui_draw_palette(int32_t rgb, int32_t *slots, int *nslots)
{
	int	 i;

	for (i = 0; i < *nslots; i++) {
		if (slots[i] == rgb)
			return (16 + i);
	}
	if (16 + *nslots >= COLORS || *nslots >= THEME_NCOLOURS)
		return (-1);
	if (init_extended_color(16 + *nslots,
	    (((rgb >> 16) & 0xff) * 1000 + 127) / 255,
	    (((rgb >> 8) & 0xff) * 1000 + 127) / 255,
	    ((rgb & 0xff) * 1000 + 127) / 255) == ERR)
		return (-1);
	slots[*nslots] = rgb;
	return (16 + (*nslots)++);
}

/* Index of screen cell y, x in the paint grids. */
static size_t
ui_paint_at(int y, int x)
{
	return ((size_t)y * (size_t)ui_paint.cols + (size_t)x);
}

/* Nothing painted is known to be on the terminal any more. */
static void
ui_paint_forget(void)
{
	if (ui_paint.shown_any && ui_paint.shown_ok != NULL)
		memset(ui_paint.shown_ok, 0, (size_t)ui_paint.rows *
		    (size_t)ui_paint.cols);
	ui_paint.shown_any = 0;
}

/* A terminfo string capability of this terminal, NULL if absent or with padding. */
static const char *
ui_paint_cap(const char *name)
{
	const char	*v = tigetstr(name);

	if (v == NULL || v == (const char *)-1 || strstr(v, "$<") != NULL)
		return (NULL);
	return (v);
}

/* Keep a parameterised capability's text for one value in buf; -1 if it does not fit. */
static int
ui_paint_fmt(char *buf, const char *cap, int v)
{
	const char	*e = tiparm(cap, v);

	if (e == NULL || strlen(e) >= UI_PAINT_ESC)
		return (-1);
	snprintf(buf, UI_PAINT_ESC, "%s", e);
	return (0);
}

/*
 * Whether cells can be painted directly in colour mode mode, formatting each
 * theme colour's escapes once, as ncurses would send them; NULL if so, else
 * why not. Not for monochrome, nor for terminals lacking setaf, setab, op or
 * cup, or with magic cookies or padding in them.
 */
static const char *
ui_paint_setup(enum ui_colour_mode mode)
{
	const char	*setaf, *setab, *op;
	int		 c, f, b;

	if (mode == UI_COLOUR_MONO)
		return ("no colours");
	setaf = ui_paint_cap("setaf");
	setab = ui_paint_cap("setab");
	op = ui_paint_cap("op");
	ui_paint.cup = ui_paint_cap("cup");
	if (setaf == NULL || setab == NULL || op == NULL || ui_paint.cup == NULL)
		return ("no setaf, setab, op or cup without padding");
	if (tigetnum("xmc") > 0)
		return ("magic cookie attributes");
	if (strlen(op) >= UI_PAINT_ESC)
		return ("op too long");
	snprintf(ui_paint.op, sizeof ui_paint.op, "%s", op);
	for (c = 0; c < THEME_NCOLOURS; c++) {
		f = ui_draw.colour[c] == -1 ? ui_draw.default_fg : ui_draw.colour[c];
		b = ui_draw.colour[c] == -1 ? ui_draw.default_bg : ui_draw.colour[c];
		ui_paint.fgnum[c] = f;
		ui_paint.bgnum[c] = b;
		if ((f != -1 && ui_paint_fmt(ui_paint.fgesc[c], setaf, f) != 0) ||
		    (b != -1 && ui_paint_fmt(ui_paint.bgesc[c], setab, b) != 0))
			return ("colour escapes too long");
	}
	return (NULL);
}

/*
 * Paint cells directly where the terminal allows (ui_paint_setup), unless
 * BLKTOP_PAINT=ncurses; BLKTOP_PAINT=direct makes it an error when it cannot.
 */
static void
ui_paint_init(enum ui_colour_mode mode)
{
	const char	*e = getenv("BLKTOP_PAINT"), *why;

	ui_paint.on = 0;
	ui_paint_forget();	/* the colours may have changed */
	if (e != NULL && strcmp(e, "ncurses") == 0)
		return;
	if ((why = ui_paint_setup(mode)) == NULL) {
		ui_paint.on = 1;
		ui_term_nomove();
	} else if (e != NULL && strcmp(e, "direct") == 0)
		fatalx("BLKTOP_PAINT=direct: cannot paint this terminal "
		    "directly: %s", why);
}

/*
 * Set up colours for a theme after initscr(): pick the mode (UI_COLOUR_AUTO
 * decides from NO_COLOR, the theme and the terminal) and map every meaning to
 * a terminal colour. Call again after a theme change. Returns the mode used.
 */
enum ui_colour_mode
ui_draw_init(const struct theme *t, enum ui_colour_mode mode)
{
	int32_t		 slots[THEME_NCOLOURS], rgb;
	int		 nslots = 0, c, n;
	const char	*cs = nl_langinfo(CODESET);

	memset(ui_draw.pair, 0, sizeof ui_draw.pair);
	ui_draw.flags = 0;
	if (cs != NULL && (strcmp(cs, "UTF-8") == 0 || strcmp(cs, "utf8") == 0))
		ui_draw.flags |= DRAW_UTF8;

	/*
	 * COLORS is only known once start_color has run; default colours keep
	 * pair 0 (and "" in themes) the terminal's own instead of white on black.
	 */
	ui_draw.default_fg = COLOR_WHITE;
	ui_draw.default_bg = COLOR_BLACK;
	if (has_colors()) {
		start_color();
		if (use_default_colors() == OK)
			ui_draw.default_fg = ui_draw.default_bg = -1;
	}
	if (mode == UI_COLOUR_AUTO)
		mode = ui_draw_pick_mode(t);
	if (mode != UI_COLOUR_MONO && !has_colors())
		mode = UI_COLOUR_MONO;
	ui_draw.mode = mode;
	if (mode == UI_COLOUR_MONO) {
		ui_draw.flags |= DRAW_MONO;
		ui_paint_init(mode);
		return (mode);
	}

	for (c = 0; c < THEME_NCOLOURS; c++) {
		rgb = t->colour[c];
		if (rgb == THEME_DEFAULT) {
			ui_draw.colour[c] = -1;
			continue;
		}
		switch (mode) {
		case UI_COLOUR_DIRECT:
			n = rgb;
			break;
		case UI_COLOUR_PALETTE:
			if ((n = ui_draw_palette(rgb, slots, &nslots)) == -1)
				n = theme_rgb_to_256(rgb);
			break;
		case UI_COLOUR_256:
			n = theme_rgb_to_256(rgb);
			break;
		case UI_COLOUR_16:
			n = theme_rgb_to_ansi(rgb, 16);
			break;
		default:
			n = theme_rgb_to_ansi(rgb, 8);
			break;
		}
		ui_draw.colour[c] = n;
	}
	ui_paint_init(mode);
	return (mode);
}

/* Free what the drawing functions keep between frames. */
void
ui_draw_free(void)
{
	free(ui_paint.grid);
	free(ui_paint.mark);
	free(ui_paint.shown);
	free(ui_paint.shown_ok);
	free(ui_paint.out);
	ui_paint.grid = ui_paint.shown = NULL;
	ui_paint.mark = ui_paint.shown_ok = NULL;
	ui_paint.out = NULL;
	ui_paint.rows = ui_paint.cols = ui_paint.any = ui_paint.shown_any = 0;
	ui_paint.outlen = ui_paint.outsize = 0;
}

/* DRAW_UTF8 and DRAW_MONO as they apply to this terminal, for draw.c. */
int
ui_draw_flags(void)
{
	return (ui_draw.flags);
}

/* Attributes standing in for colours on a monochrome terminal. */
static attr_t
ui_draw_mono_attr(enum theme_colour fg, enum theme_colour bg)
{
	if (bg == THEME_SELECTED_BG || fg == THEME_SELECTED_FG)
		return (A_REVERSE);
	if (fg == THEME_TITLE || fg == THEME_HI_FG || fg == THEME_LOST)
		return (A_BOLD);
	if (fg == THEME_INACTIVE_FG || fg == THEME_DIV_LINE)
		return (A_DIM);
	return (A_NORMAL);
}

/* The pair for a fg and bg meaning, allocated on first use; 0 if none is left. */
static int
ui_draw_pair(enum theme_colour fg, enum theme_colour bg)
{
	int	*p, f, b;

	if ((unsigned)fg >= THEME_NCOLOURS || (unsigned)bg >= THEME_NCOLOURS)
		return (0);
	p = &ui_draw.pair[fg][bg];
	if (*p == 0) {
		f = ui_draw.colour[fg];
		b = ui_draw.colour[bg];
		if (f == -1)
			f = ui_draw.default_fg;
		if (b == -1)
			b = ui_draw.default_bg;
		*p = alloc_pair(f, b);
		if (*p <= 0)
			*p = -1;
	}
	return (*p == -1 ? 0 : *p);
}

/* The attributes and colour pair (0 for none) that show a fg and bg meaning. */
static void
ui_draw_style(enum theme_colour fg, enum theme_colour bg, attr_t *attr, int *pair)
{
	*attr = A_NORMAL;
	*pair = 0;
	if (ui_draw.mode == UI_COLOUR_MONO)
		*attr = ui_draw_mono_attr(fg, bg);
	else
		*pair = ui_draw_pair(fg, bg);
}

/* Set a window's drawing colours to a fg and bg meaning. */
void
ui_draw_set(WINDOW *win, enum theme_colour fg, enum theme_colour bg)
{
	attr_t	 attr;
	int	 pair;

	ui_draw_style(fg, bg, &attr, &pair);
	wattr_set(win, attr, (short)(pair > 0x7fff ? 0 : pair), &pair);
}

/*
 * The character of a cell's glyph (draw.c's tables: one character, UTF-8 or
 * ASCII); '?' if malformed. Decoded here: the multibyte path of waddstr
 * (mbrtowc, iconv) cost a third of a heatmap frame.
 */
static wchar_t
ui_draw_wc(const char *glyph)
{
	uint32_t	 cp;

	if (glyph[0] == '\0')
		return (L' ');
	if (name_utf8_char(glyph, strlen(glyph), &cp) == 0)
		return (L'?');
	return ((wchar_t)cp);
}

/* Draw a string (already made safe, e.g. by draw_path) at y, x in the given colours. */
void
ui_draw_text(WINDOW *win, int y, int x, enum theme_colour fg,
    enum theme_colour bg, const char *s)
{
	ui_draw_set(win, fg, bg);
	mvwaddstr(win, y, x, s);
	wattr_set(win, A_NORMAL, 0, NULL);
}

/* Start a frame: no cells kept yet; the grid follows the screen's size. */
void
ui_draw_begin(void)
{
	size_t	 n;

	if (!ui_paint.on)
		return;
	if (ui_paint.rows != LINES || ui_paint.cols != COLS) {
		n = (size_t)(LINES > 0 ? LINES : 0) * (size_t)(COLS > 0 ? COLS : 0);
		free(ui_paint.grid);
		free(ui_paint.mark);
		free(ui_paint.shown);
		free(ui_paint.shown_ok);
		ui_paint.grid = n > 0 ? xcalloc(n, sizeof *ui_paint.grid) : NULL;
		ui_paint.shown = n > 0 ? xcalloc(n, sizeof *ui_paint.shown) : NULL;
		ui_paint.mark = n > 0 ? xcalloc(n, 1) : NULL;
		ui_paint.shown_ok = n > 0 ? xcalloc(n, 1) : NULL;
		ui_paint.rows = n > 0 ? LINES : 0;
		ui_paint.cols = n > 0 ? COLS : 0;
		ui_paint.shown_any = 0;
	}
	if (ui_paint.any && ui_paint.mark != NULL)
		memset(ui_paint.mark, 0, (size_t)ui_paint.rows * (size_t)ui_paint.cols);
	ui_paint.any = 0;
}

/*
 * Keep a cell drawn on stdscr at y, x for direct painting; wc is what ncurses
 * was given. Not the last line: writing its last column could scroll.
 */
static void
ui_paint_keep(int y, int x, const struct draw_cell *cell, wchar_t wc)
{
	struct draw_cell	*g;
	size_t			 i;

	if (!ui_paint.on || ui_paint.mark == NULL || y < 0 || x < 0 ||
	    y >= ui_paint.rows - 1 || x >= ui_paint.cols)
		return;
	i = ui_paint_at(y, x);
	g = &ui_paint.grid[i];
	*g = *cell;
	if (wc == L' ' || wc == L'?')
		snprintf(g->glyph, sizeof g->glyph, "%c", (char)wc);
	else
		g->glyph[sizeof g->glyph - 1] = '\0';
	ui_paint.mark[i] = 1;
	ui_paint.any = 1;
}

/* Append n bytes to the paint buffer. */
static void
ui_paint_put(const char *s, size_t n)
{
	if (ui_paint.outlen + n > ui_paint.outsize) {
		ui_paint.outsize = (ui_paint.outlen + n) * 2;
		ui_paint.out = xreallocarray(ui_paint.out, ui_paint.outsize, 1);
	}
	memcpy(ui_paint.out + ui_paint.outlen, s, n);
	ui_paint.outlen += n;
}

/* Append the cursor movement to y, x. */
static void
ui_paint_goto(int y, int x)
{
	const char	*e = tiparm(ui_paint.cup, y, x);

	if (e != NULL)
		ui_paint_put(e, strlen(e));
}

/* Write the kept cells after doupdate, leaving attributes and cursor as ncurses left them. */
static void
ui_paint_cells(void)
{
	const struct draw_cell	*g;
	struct draw_cell	*was;
	size_t			 i, off = 0;
	ssize_t			 n;
	int			 y, x, cy, cx, f, b, curf = -1, curb = -1, coloured = 0;
	int			 next;		/* x where the cursor is, -1 unknown */

	ui_paint.outlen = 0;
	for (y = 0; y < ui_paint.rows; y++) {
		next = -1;
		for (x = 0; x < ui_paint.cols; x++) {
			i = ui_paint_at(y, x);
			g = &ui_paint.grid[i];
			was = &ui_paint.shown[i];
			if (!ui_paint.mark[i]) {
				ui_paint.shown_ok[i] = 0;	/* ncurses' now */
				continue;
			}
			if (ui_paint.shown_ok[i] && was->fg == g->fg &&
			    was->bg == g->bg && strcmp(was->glyph, g->glyph) == 0)
				continue;
			*was = *g;
			ui_paint.shown_ok[i] = 1;
			ui_paint.shown_any = 1;
			if (next != x)
				ui_paint_goto(y, x);
			next = x + 1;
			f = g->fg < THEME_NCOLOURS ? ui_paint.fgnum[g->fg] : -1;
			b = g->bg < THEME_NCOLOURS ? ui_paint.bgnum[g->bg] : -1;
			if ((f == -1 && curf != -1) || (b == -1 && curb != -1)) {
				ui_paint_put(ui_paint.op, strlen(ui_paint.op));
				curf = curb = -1;
			}
			if (f != curf) {
				ui_paint_put(ui_paint.fgesc[g->fg],
				    strlen(ui_paint.fgesc[g->fg]));
				curf = f;
				coloured = 1;
			}
			if (b != curb) {
				ui_paint_put(ui_paint.bgesc[g->bg],
				    strlen(ui_paint.bgesc[g->bg]));
				curb = b;
				coloured = 1;
			}
			ui_paint_put(g->glyph, strlen(g->glyph));
		}
	}
	if (ui_paint.outlen == 0)
		return;		/* nothing changed: the cursor has not moved */
	if (coloured)
		ui_paint_put(ui_paint.op, strlen(ui_paint.op));
	getyx(curscr, cy, cx);
	ui_paint_goto(cy, cx);
	while (off < ui_paint.outlen) {
		n = write(STDOUT_FILENO, ui_paint.out + off, ui_paint.outlen - off);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		off += (size_t)n;
	}
	/* Cut short (a non-blocking terminal, or gone): ncurses repaints it all next. */
	if (off < ui_paint.outlen) {
		ui_paint_forget();
		clearok(curscr, TRUE);
	}
}

/*
 * End a frame: what ui_draw_begin started. stdscr goes to the terminal, the
 * kept cells written directly (see ui_paint).
 */
void
ui_draw_flush(void)
{
	int	 y, x, x0;

	wnoutrefresh(stdscr);
	/* A cleared screen is repainted whole by ncurses anyway. */
	if (!ui_paint.on || !ui_paint.any || is_cleared(curscr) ||
	    is_cleared(newscr)) {
		ui_paint_forget();
		doupdate();
		return;
	}
	for (y = 0; y < ui_paint.rows; y++) {
		for (x = 0; x < ui_paint.cols; x++) {
			if (!ui_paint.mark[ui_paint_at(y, x)])
				continue;
			for (x0 = x; x < ui_paint.cols &&
			    ui_paint.mark[ui_paint_at(y, x)]; x++)
				;
			copywin(newscr, curscr, y, x0, y, x0, y, x - 1, FALSE);
		}
	}
	doupdate();
	ui_paint_cells();
}

/* Draw nrows x ncols cells at y, x, clipped to the window. */
void
ui_draw_cells(WINDOW *win, int y, int x, const struct draw_cell *cells,
    unsigned nrows, unsigned ncols)
{
	const struct draw_cell	*cell;
	int			 maxy = getmaxy(win), maxx = getmaxx(win), pair;
	unsigned		 r, c;
	wchar_t			 wc[2] = { 0, 0 };
	attr_t			 attr;
	cchar_t			 cc;

	for (r = 0; r < nrows && y + (int)r < maxy; r++) {
		if (y + (int)r < 0)
			continue;
		for (c = 0; c < ncols && x + (int)c < maxx; c++) {
			if (x + (int)c < 0)
				continue;
			cell = &cells[(size_t)r * ncols + c];
			wc[0] = ui_draw_wc(cell->glyph);
			ui_draw_style(cell->fg, cell->bg, &attr, &pair);
			setcchar(&cc, wc, attr, (short)(pair > 0x7fff ? 0 : pair), &pair);
			mvwadd_wch(win, y + (int)r, x + (int)c, &cc);
			if (win == stdscr)
				ui_paint_keep(y + (int)r, x + (int)c, cell, wc[0]);
		}
	}
	wattr_set(win, A_NORMAL, 0, NULL);
}
