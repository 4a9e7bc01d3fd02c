/* ui.h: the terminal UI's own declarations, for the files of ui/ and their tests (blktop.h first). */
#ifndef BLKTOP_UI_H
#define BLKTOP_UI_H

#include "draw.h"

/* ui-draw-curses.c: thin ncursesw rendering of draw.c output. */
enum ui_colour_mode {
	UI_COLOUR_AUTO,
	UI_COLOUR_MONO,
	UI_COLOUR_8,
	UI_COLOUR_16,
	UI_COLOUR_256,
	UI_COLOUR_PALETTE,	/* redefine palette entries (can_change_color) */
	UI_COLOUR_DIRECT	/* direct-colour terminfo: pairs take 0xRRGGBB */
};
struct _win_st;				/* ncurses WINDOW, kept opaque here */
enum ui_colour_mode ui_draw_init(const struct theme *, enum ui_colour_mode);
void		 ui_draw_free(void);
void		 ui_draw_begin(void);
void		 ui_term_nomove(void);
const char	*ui_term_unfit(void);
void		 ui_term_leave(void);
void		 ui_draw_flush(void);
int		 ui_draw_flags(void);
void		 ui_draw_set(struct _win_st *, enum theme_colour fg,
		     enum theme_colour bg);
void		 ui_draw_text(struct _win_st *, int y, int x,
		     enum theme_colour fg, enum theme_colour bg, const char *s);
void		 ui_draw_cells(struct _win_st *, int y, int x,
		     const struct draw_cell *, unsigned nrows, unsigned ncols);

/* ui.c: the live terminal UI; ui-keys.c, ui-layout.c and ui-pane-*.c hold its parts. */
struct ui_state;
#define UI_COL_SECS_MAX	60		/* longest time per heatmap column */
enum ui_action {
	UI_QUIT,
	UI_HELP,
	UI_NEXT_PANE,
	UI_PANE_DEV,
	UI_PANE_PROC,
	UI_PANE_FILE,
	UI_UP,
	UI_DOWN,
	UI_PAGE_UP,
	UI_PAGE_DOWN,
	UI_HOME,
	UI_END,
	UI_ENTER,
	UI_BACK,
	UI_SORT_LEFT,
	UI_SORT_RIGHT,
	UI_SORT_INVERT,
	UI_PAUSE,
	UI_ZOOM_OUT,			/* more time per column */
	UI_ZOOM_IN,
	UI_OPS,				/* heatmap of reads, writes or both */
	UI_THEME,
	UI_FILTER,
	UI_RECORD,
	UI_STEP,			/* replay: one tick forward, paused */
	UI_SEEK_BACK,			/* replay: 10 s back */
	UI_SEEK_FWD,
	UI_SEEK_START,
	UI_SEEK_END,
	UI_SLOWER,			/* replay speed halved */
	UI_FASTER,
	UI_REDRAW,			/* repaint the whole terminal */
	UI_GROUP,			/* processes: one row per cgroup, or per process */
	UI_SAVE,			/* write the settings to the config file */
	UI_DEV_VIEW,			/* devices: one line each, or a heatmap each */
	UI_INSIGHTS,			/* the insights, until the next key */
	UI_MAP,				/* offset maps (devices, a drilled file) or latency heatmaps */
	UI_DEPTH,			/* the queue depth screen, until the next key (ui-depth.c) */
	UI_GROUP_JOB,			/* processes: one row per job (the process tree), or per process */
	UI_STACK,			/* the latency stack screen (ui-stack.c) */
	UI_WEAR,			/* the written-and-never-read screen (ui-wear.c) */
	UI_ACTION_MAX
};
/* One key binding: the help screen is generated from the table of these. */
struct ui_key {
	int		 key;		/* character or curses KEY_* code */
	enum ui_action	 action;
};
/* A UI's bindings (ui-keys.c): the defaults, then the config file's key.NAME lines. */
#define UI_KEYS_MAX	512	/* every key code blktop can read (0 to KEY_MAX) once: a binding never fails */
struct ui_keys {
	struct ui_key	 keys[UI_KEYS_MAX];
	unsigned	 n;
};
/* What a key's handler says must be drawn again (htop's Htop_Reaction). */
#define UI_DRAW_FRAME		0x1	/* the frame: the next loop turn draws it */
#define UI_DRAW_TERMINAL	0x2	/* every cell of the terminal, whatever it shows */
/*
 * An action: its name in the config file (key.NAME), its help line and its
 * handler (ui-action.c), run when the pane does not take the key.
 */
struct ui_action_info {
	enum ui_action	 action;
	const char	*name;
	const char	*help;
	int		(*fn)(struct ui_state *, enum ui_action);	/* UI_DRAW_*, or NULL */
	int		 keep_status;	/* its key leaves the status message */
};
struct ui_rect {
	int		 y, x, h, w;
};
/*
 * A table column, everything about it in one row of its pane's table
 * (htop's Process_fields): header, width, how it sorts and how it prints.
 */
struct ui_col {
	const char	*name;
	int		 width;		/* 0: takes what is left */
	int		 left;		/* left-aligned */
	int		 ascending;	/* sorted smallest first */
	int		 by_name;	/* sorted by the row's name, A to Z */
	enum proc_key	 key;		/* top_procs's rows worth keeping, sorted by it */
	size_t		 off;		/* where its field is in the row */
	double		(*value)(const struct ui_col *, const void *row);	/* NULL: the uint64_t at off */
	void		(*fmt)(const struct ui_col *, const void *row, double secs,
			    char *, size_t);	/* secs: the interval the row covers */
};
struct _win_st;
/* A pane of one UI (tmux's window_mode_entry): its entry and its own state. */
struct ui_pane {
	const struct pane_entry *entry;
	struct ui_state	*u;
	void		*data;		/* the entry's init made it */
};
/*
 * A kind of pane: its callbacks; init makes a UI's state of it (its
 * defaults), collect runs at the end of every display interval.
 */
struct pane_entry {
	const char	*name;
	const char	*title;		/* tab text */
	void		*(*init)(void);
	void		 (*free)(void *);
	void		 (*collect)(struct ui_pane *, double secs);
	void		 (*draw)(struct ui_pane *, struct _win_st *,
			     const struct ui_rect *);
	int		 (*key)(struct ui_pane *, enum ui_action);	/* 1 if used */
	void		 (*click)(struct ui_pane *, const struct ui_rect *,
			     int y, int x);
	/* A table pane's sort and columns (NULL for others), and their defaults. */
	struct ui_tab	*(*tab)(struct ui_pane *);
	const struct ui_tab *(*tab_default)(void);	/* its defaults (columns made) */
	/* The row selected or drilled into: a process's pid in *id, or a file's path; 0 if none. */
	int		 (*selected)(struct ui_pane *, uint64_t *id, const char **path);
};
/* What every pane needs to know of the view: set by ui.c, read by panes (ui_state's view). */
struct ui_view {
	int		 paused;
	uint64_t	 pause_nclosed;	/* windows.nclosed when paused */
	unsigned	 col_secs;	/* time per heatmap column, seconds */
	unsigned	 col_ticks;	/* ticks per heatmap column */
	unsigned	 opmask;	/* 1 << OPC_READ | ..., 0 for all */
	int		 map;		/* devices: the offset map, not the latency heatmap */
	int		 flags;		/* DRAW_UTF8, DRAW_MONO */
	int		 heat_coarse;	/* 8/16 colours: heat levels as glyphs */
	const char	*filter;	/* "" for none */
};
extern const struct pane_entry ui_pane_dev, ui_pane_proc, ui_pane_file;
void		 ui_redraw(struct ui_state *);
void		*ui_pane_data(struct ui_state *, const struct pane_entry *);
void		 ui_frame(struct ui_state *, int pane);
void		 ui_draw_depth(const struct ui_state *, const struct ui_rect *);	/* ui-depth.c */
void		 ui_draw_stack(const struct ui_state *, const struct ui_rect *);	/* ui-stack.c */
unsigned	 ui_stack_nscopes(const struct ui_state *);
unsigned	 ui_stack_scope_selected(struct ui_state *);
void		 ui_draw_wear(const struct ui_state *, const struct ui_rect *);	/* ui-wear.c */
void		 ui_status(struct ui_state *, const char *, ...) __printflike(2, 3);
void		 ui_text(struct _win_st *, int y, int x, enum theme_colour fg,
		     enum theme_colour bg, const char *);
void		 ui_heatmap(struct ui_state *, struct _win_st *, int y, int x,
		     unsigned nrows, unsigned ncols, const uint64_t *hists,
		     const uint8_t *marks, int map_shift);
int		 ui_filter_match(const struct ui_state *, const char *);
unsigned	 ui_table(const struct ui_state *, struct _win_st *, const struct ui_rect *,
		     const struct ui_col *, unsigned ncols, uint32_t hidden, unsigned nrows,
		     unsigned sel, unsigned *top, int sortcol, int invert,
		     void (*)(unsigned, unsigned, char *, size_t, void *), void *);
uint64_t	 ui_view_nclosed(const struct ui_state *);

/* ui.c and the files it is split into: ui-widget.c, ui-header.c, ui-action.c. */
#define UI_MIN_W	40		/* smaller than this: "terminal too small" */
#define UI_MIN_H	8
#define UI_STATUS_TICKS	5		/* a status message stays this many ticks */
#define UI_THEMES_MAX	32
#define UI_FILTER_MAX	64
#define UI_NPANES	3
struct event;
extern const struct pane_entry *const ui_panes[UI_NPANES];	/* tab order */

/*
 * Everything the screen keeps between frames: one instance, made when the UI
 * sink starts (its s->data) and freed when it stops.
 */
struct ui_state {
	struct blktop	*b;
	struct ui_opts	 opts;		/* as the sink was added with; the config's theme */
	struct ui_view	 view;
	struct ui_keys	 keys;
	struct ui_pane	 panes[UI_NPANES];	/* in tab order, as ui_panes */
	int		 running;
	struct event	*key_ev;
	struct event	*winch_ev;
	struct event	*redraw_ev;
	int		 redraw_pending;
	unsigned	 pane;
	int		 help;		/* 1: the keys; 2: the insights; 3: the depths; 4: the stack;
					   5: written and never read (until the next key) */
	unsigned	 stack_scope;	/* the stack screen's: 0 all, then devices, processes, files */
	int		 editing;	/* the filter is being typed */
	char		 filter[UI_FILTER_MAX];
	char		 edit[UI_FILTER_MAX];
	char		 status[160];
	unsigned	 status_ticks;
	struct theme	 theme;
	char		 theme_arg[THEME_ARG_MAX];	/* -t, "" for none */
	char		*themes[UI_THEMES_MAX];	/* names or paths 't' cycles through */
	unsigned	 nthemes;
	unsigned	 theme_idx;
	unsigned	 ticks;		/* ticks since the last display interval */
	uint64_t	 last_ts;	/* stream time of the last interval end */
	uint64_t	 last_events;
	double		 evps;		/* events per second over the last interval */
	double		 secs;		/* length of the last interval */
	char		 host[80];
	char		 kernel[80];
	int		 tabs_x[UI_NPANES + 1];	/* tab columns on the tab row */
	struct ui_rect	 pane_rect;
	struct draw_cell *cells;	/* heatmap cells, reused */
	size_t		 ncells;
	uint64_t	 frames;
};
void		 ui_next_theme(struct ui_state *);
void		 ui_background(void);

/* ui-config.c: the view's settings in the config file. */
int		 ui_config(struct blktop *, void *, const char *key, const char *value,
		     char **errp);
int		 ui_config_text(struct ui_state *, char *, size_t);
void		 ui_config_save(struct ui_state *);
void		 ui_draw_all(struct ui_state *);
void		 ui_key_cb(int fd, short what, void *arg);
extern const struct ui_action_info ui_actions[];	/* ui-action.c, in help order */
extern const unsigned ui_nactions;

/* ui-keys.c: the one table of key bindings (struct ui_keys, above). */
void		 ui_keys_init(struct ui_keys *);
int		 ui_keys_lookup(const struct ui_keys *, int key);
int		 ui_keys_action(const char *name);
int		 ui_keys_bind(struct ui_keys *, enum ui_action, const int *keys, unsigned n);
int		 ui_keys_parse(const char *name);
unsigned	 ui_keys_of(const struct ui_keys *, enum ui_action, char *buf, size_t len);
const char	*ui_keys_name(int key, char *buf, size_t len);
unsigned	 ui_keys_help(const struct ui_keys *, char lines[][96], unsigned max);
void		 ui_keys_hints(const struct ui_keys *, char *, size_t);

/* ui-layout.c: pure layout and formatting for the panes. */
unsigned	 ui_layout_cols(const struct ui_col *, unsigned ncols, uint32_t hidden,
		     int width, int *widths);
unsigned	 ui_layout_dev_rows(unsigned ndevs, int height, int zoomed,
		     unsigned *heat_rows, unsigned *spark_rows);
unsigned	 ui_layout_scroll(unsigned sel, unsigned top, unsigned visible,
		     unsigned n);
#define UI_LAYOUT_LINE_MIN	59	/* the narrowest line of the devices' overview */
unsigned	 ui_layout_dev_lines(unsigned n, int width, int height,
		     unsigned *ncolumns, int *w);
int		 ui_pane_dev_view(struct ui_state *, int);
/* ui-dev-cols.c: a device's columns in the devices pane (line: one line each). */
struct dev_colref;
struct dev_ctx;
void		 ui_dev_cols_head(const struct dev_colref *, unsigned n, int line, char *,
		     size_t);
void		 ui_dev_cols_cells(const struct dev_ctx *, const struct dev_colref *,
		     unsigned n, int line, char *, size_t);
void		 ui_fit(const struct ui_state *, char *, size_t, const char *, int w,
		     int left);
unsigned	 ui_layout_col_ticks(unsigned col_secs, uint64_t tick_ns);
unsigned	 ui_layout_zoom(unsigned col_secs, int dir);
char		*ui_layout_rate(char *buf, size_t len, double v);
char		*ui_layout_pct(char *buf, size_t len, double v);
int		 ui_layout_match(const char *s, const char *filter);
int		 ui_layout_table_key(enum ui_action, unsigned *sel, unsigned nrows,
		     int *sortcol, int ncols, int *invert);

/*
 * ui-tab.c: a table pane's order and selection. The pane keeps its rows (an
 * array of rowsize bytes each) and says how to compare, filter and keep one.
 */
struct ui_tab {
	unsigned	*order;		/* rows passing the filter, in order */
	unsigned	 norder;
	int		 sortcol;
	int		 invert;
	uint32_t	 hidden;	/* 1 << column: not shown (config file) */
	unsigned	 sel;		/* in order */
	unsigned	 top;		/* first row shown */
	const struct ui_col *cols;
	int		 ncols;
	size_t		 rowsize;
	int		(*tie)(const void *, const void *);	/* equal in the sort column */
	const char	*(*name)(const void *);	/* what the / filter matches */
	int		(*kept)(const void *owner, const void *row);	/* the row remembered as selected */
	void		(*remember)(void *owner, unsigned row);	/* note a row's identity */
	void		*owner;		/* the pane's state, for kept and remember */
};
void		 ui_tab_order(const struct ui_state *, struct ui_tab *, void *rows,
		     unsigned nrows, int sort);
int		 ui_tab_key(struct ui_state *, struct ui_tab *, enum ui_action, void *rows,
		     unsigned nrows);
int		 ui_tab_click(const struct ui_tab *, const struct ui_rect *, int y);
double		 ui_tab_opens(const struct ui_col *, const void *row);
void		 ui_tab_fmt_rate(const struct ui_col *, const void *, double, char *, size_t);
void		 ui_tab_fmt_mb(const struct ui_col *, const void *, double, char *, size_t);
void		 ui_tab_fmt_pct(const struct ui_col *, const void *, double, char *, size_t);
void		 ui_tab_fmt_str(const struct ui_col *, const void *, double, char *, size_t);
void		 ui_tab_lat(const struct ui_col *, const void *, const uint64_t *n,
		     char *, size_t);

#endif
