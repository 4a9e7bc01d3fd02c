/*
 * draw.h: colours by meaning (theme.c) and drawing into cells and strings
 * (draw.c), no curses: for the UI (ui/) and the HTML report; base.h first.
 */
#ifndef BLKTOP_DRAW_H
#define BLKTOP_DRAW_H

/* theme.c: colours by meaning; a theme file maps each meaning to #RRGGBB. */
#define THEME_LEVELS	10		/* entries per gradient; level 0 = empty */
#define THEME_DEFAULT	(-1)		/* the terminal's own fg or bg colour */
#define THEME_NAME_MAX	64
#define THEME_FILE_MAX	(64 * 1024)	/* larger theme files are refused */
#define THEME_LINE_MAX	512		/* longer lines are refused */
#define THEME_ARG_MAX	256		/* longest -t name or path */
#ifdef BLKTOP_THEMEDIR
#define THEME_DIR	BLKTOP_THEMEDIR		/* set by Makefile.am */
#else
#define THEME_DIR	"/usr/local/share/blktop/themes"
#endif
enum theme_colour {
	THEME_MAIN_BG,
	THEME_MAIN_FG,
	THEME_TITLE,
	THEME_HI_FG,
	THEME_SELECTED_BG,
	THEME_SELECTED_FG,
	THEME_INACTIVE_FG,
	THEME_LOST,
	THEME_READ,
	THEME_WRITE,
	THEME_OTHER,
	THEME_GRAPH_TEXT,
	THEME_DIV_LINE,
	THEME_HEAT_0,				/* heat level n is THEME_HEAT_0 + n */
	THEME_QD_0 = THEME_HEAT_0 + THEME_LEVELS,
	THEME_IOPS_0 = THEME_QD_0 + THEME_LEVELS,
	THEME_NCOLOURS = THEME_IOPS_0 + THEME_LEVELS
};
struct theme {
	char		 name[THEME_NAME_MAX];
	int32_t		 colour[THEME_NCOLOURS];	/* 0xRRGGBB or THEME_DEFAULT */
};
void		 theme_default(struct theme *);
int		 theme_load(struct theme *, const char *name_or_path,
		     const char *dir, char **errp);
int		 theme_parse(struct theme *, const char *file, const char *buf,
		     size_t len, char **errp);
int		 theme_parse_colour(const char *s, int32_t *rgb);
const char	*theme_dir(void);
int		 theme_option(struct theme *, const char *name_or_path, char **errp);
const char	*theme_colour_name(enum theme_colour);
int		 theme_is_mono(const struct theme *);
void		 theme_gradient(int32_t start, int32_t mid, int32_t end,
		     unsigned n, int32_t *out);
int		 theme_rgb_to_256(int32_t rgb);
int		 theme_rgb_to_ansi(int32_t rgb, int ncolours);

/* draw.c: pure drawing into cells and strings, no curses. */
#define DRAW_UTF8	0x1		/* locale can show UTF-8 glyphs */
#define DRAW_MONO	0x2		/* no colours: levels shown by glyph density */
#define DRAW_GLYPH_MAX	8
#define DRAW_HEAT_LABELS 8		/* "1us" .. "10s" */
#define DRAW_HEAT_LO_NS	1000ULL		/* bottom of the heatmap axis, 1 us */
#define DRAW_HEAT_DECADES 7		/* 1 us .. 10 s */
#define DRAW_LABEL_WIDTH 5		/* widest axis label, "100us" */
#define DRAW_COUNT_WIDTH 4		/* "999", "1.2k", "123M" */
#define DRAW_LAT_WIDTH	5		/* "850ns", "1.2us", "123ms", "1.2s" */
enum draw_spark_style { DRAW_SPARK_BRAILLE, DRAW_SPARK_BLOCK, DRAW_SPARK_ASCII };
struct draw_cell {
	char		 glyph[DRAW_GLYPH_MAX];	/* UTF-8 or ASCII, NUL-terminated */
	uint8_t		 fg;			/* enum theme_colour */
	uint8_t		 bg;			/* enum theme_colour */
};
unsigned	 draw_heat_subrow(unsigned bucket, unsigned nsub);
void		 draw_heat_column(const uint64_t *hist, unsigned nsub,
		     uint64_t *cells);
unsigned	 draw_heat_level(uint64_t count, uint64_t max);
const char	*draw_heat_label(unsigned row, unsigned nrows);
void		 draw_heatmap_sub(const uint64_t *sub, unsigned ncols,
		     unsigned nrows, int flags, struct draw_cell *out);
void		 draw_spark(const uint64_t *vals, unsigned nvals, uint64_t max,
		     enum draw_spark_style, unsigned height,
		     enum theme_colour base, struct draw_cell *out);
unsigned	 draw_spark_width(unsigned nvals, enum draw_spark_style);
char		*draw_fmt_count(char *buf, size_t len, uint64_t v);
char		*draw_fmt_bytes(char *buf, size_t len, uint64_t v);
char		*draw_fmt_lat(char *buf, size_t len, uint64_t ns);
size_t		 draw_path(char *out, size_t outlen, const char *path,
		     unsigned width, int flags);
unsigned	 draw_text_width(const char *s);

#endif
