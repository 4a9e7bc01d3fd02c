/* test-draw.c: golden tests for the pure drawing functions of src/draw.c. */

#include <math.h>
#include <string.h>

#include "blktop.h"
#include "draw.h"
#include "check.h"

#define MAXCELLS 256

/* Glyphs of rows of cells joined, rows separated by '|'. */
static const char *
test_glyphs(const struct draw_cell *c, unsigned nrows, unsigned ncols)
{
	static char	 buf[MAXCELLS * DRAW_GLYPH_MAX + 64];
	unsigned	 r, i;

	buf[0] = '\0';
	for (r = 0; r < nrows; r++) {
		if (r > 0)
			strcat(buf, "|");
		for (i = 0; i < ncols; i++)
			strcat(buf, c[r * ncols + i].glyph);
	}
	return (buf);
}

/* Foreground levels (fg - base, one digit each) of rows of cells, rows separated by '|'. */
static const char *
test_levels(const struct draw_cell *c, unsigned nrows, unsigned ncols,
    int base)
{
	static char	 buf[MAXCELLS * 2 + 64];
	size_t		 n = 0;
	unsigned	 r, i;
	int		 l;

	for (r = 0; r < nrows; r++) {
		if (r > 0)
			buf[n++] = '|';
		for (i = 0; i < ncols; i++) {
			l = c[r * ncols + i].fg - base;
			buf[n++] = (l >= 0 && l <= 9) ? (char)('0' + l) : '?';
		}
	}
	buf[n] = '\0';
	return (buf);
}

/* Print got when it differs, so a failing golden shows its output. */
static int
test_same(const char *got, const char *want)
{
	if (strcmp(got, want) == 0)
		return (1);
	printf("# got  [%s]\n# want [%s]\n", got, want);
	return (0);
}

/* Bucket to sub-row mapping and the axis labels. */
static void
test_heat_axis(void)
{
	unsigned	 k, s, ok = 1;
	uint64_t	 ns;

	CHECK("heat: bucket 0 (<1us) at the bottom", draw_heat_subrow(0, 16) == 0);
	CHECK("heat: 1us at the bottom",
	    draw_heat_subrow(hist_bucket(1000), 16) == 0);
	CHECK("heat: 5us in sub-row 1 of 16",
	    draw_heat_subrow(hist_bucket(5000), 16) == 1);
	CHECK("heat: 100us in sub-row 4 of 16",
	    draw_heat_subrow(hist_bucket(100000), 16) == 4);
	CHECK("heat: 1ms in sub-row 6 of 16",
	    draw_heat_subrow(hist_bucket(1000000), 16) == 6);
	CHECK("heat: 2ms in sub-row 7 of 16",
	    draw_heat_subrow(hist_bucket(2000000), 16) == 7);
	CHECK("heat: 1s in sub-row 13 of 16",
	    draw_heat_subrow(hist_bucket(1000000000), 16) == 13);
	CHECK("heat: last bucket (>134s) at the top",
	    draw_heat_subrow(HIST_NBUCKETS - 1, 16) == 15);
	CHECK("heat: one sub-row takes everything",
	    draw_heat_subrow(hist_bucket(1000000), 1) == 0);

	/* Every decade lands where its label says, within one sub-row. */
	for (k = 0, ns = 1000; k < 7; k++, ns *= 10) {
		s = draw_heat_subrow(hist_bucket(ns), 32);
		if (s + 1 < k * 32 / 7 || s > k * 32 / 7 + 1)
			ok = 0;
	}
	CHECK("heat: decades at their label's sub-row", ok);

	/* Sub-rows never go down as latency goes up. */
	for (k = 1, ok = 1; k < HIST_NBUCKETS; k++) {
		if (draw_heat_subrow(k, 20) < draw_heat_subrow(k - 1, 20))
			ok = 0;
	}
	CHECK("heat: sub-rows monotonic", ok);

	CHECK("heat label: 8 rows, top 10s", strcmp(draw_heat_label(0, 8),
	    "10s") == 0);
	CHECK("heat label: 8 rows, row 4 1ms", strcmp(draw_heat_label(4, 8),
	    "1ms") == 0);
	CHECK("heat label: 8 rows, bottom 1us", strcmp(draw_heat_label(7, 8),
	    "1us") == 0);
	CHECK("heat label: 4 rows", strcmp(draw_heat_label(0, 4), "1s") == 0 &&
	    strcmp(draw_heat_label(1, 4), "10ms") == 0 &&
	    strcmp(draw_heat_label(2, 4), "100us") == 0 &&
	    strcmp(draw_heat_label(3, 4), "1us") == 0);
	CHECK("heat label: 9 rows leaves row 4 blank",
	    draw_heat_label(4, 9) == NULL &&
	    strcmp(draw_heat_label(5, 9), "1ms") == 0);
	CHECK("heat label: 1 row", strcmp(draw_heat_label(0, 1), "1us") == 0);
	CHECK("heat label: out of range", draw_heat_label(3, 3) == NULL);
}

/* Count to heat level on a log scale. */
static void
test_heat_level(void)
{
	CHECK("level: 0 is empty", draw_heat_level(0, 1000) == 0);
	CHECK("level: 1 of 1000 is 1", draw_heat_level(1, 1000) == 1);
	CHECK("level: 2 of 1000 is 2", draw_heat_level(2, 1000) == 2);
	CHECK("level: 10 of 1000 is 4", draw_heat_level(10, 1000) == 4);
	CHECK("level: 100 of 1000 is 6", draw_heat_level(100, 1000) == 6);
	CHECK("level: 999 of 1000 is 9", draw_heat_level(999, 1000) == 9);
	CHECK("level: max is top", draw_heat_level(1000, 1000) ==
	    THEME_LEVELS - 1);
	CHECK("level: above max clamps", draw_heat_level(5000, 1000) ==
	    THEME_LEVELS - 1);
	CHECK("level: max 1", draw_heat_level(1, 1) == THEME_LEVELS - 1);
}

/*
 * Heatmap colours against draw_heat_level for every count up to a few maxima
 * and near the level boundaries of large ones: each column's lower half holds
 * the count, its upper half the maximum.
 */
static void
test_heatmap_levels(void)
{
	static const uint64_t	 maxes[] = { 1, 2, 3, 7, 10, 100, 999, 1000, 4097,
				     123456789, 1ULL << 40, UINT64_MAX / 3 };
	static uint64_t		 sub[2 * 4200];
	static struct draw_cell	 c[4200];
	uint64_t		 max, v;
	unsigned		 m, n, i, bad = 0;

	for (m = 0; m < nitems(maxes); m++) {
		max = maxes[m];
		for (n = 0; n < 4200; n++) {
			if (max <= 4000)
				v = n <= max ? n : max;
			else	/* around max^(j/64) for j = 0..63, and max itself */
				v = (uint64_t)pow((double)max, (n / 64) / 64.0) +
				    (n % 64) - 32;
			if (v > max)
				v = max;
			sub[2 * n] = v;
			sub[2 * n + 1] = max;
		}
		draw_heatmap_sub(sub, 4200, 1, DRAW_UTF8, c);
		for (i = 0; i < 4200; i++) {
			if (c[i].bg != THEME_HEAT_0 +
			    (int)draw_heat_level(sub[2 * i], max) ||
			    c[i].fg != THEME_HEAT_0 + THEME_LEVELS - 1) {
				if (bad++ < 3)
					printf("# max %llu count %llu: bg %d fg %d\n",
					    (unsigned long long)max,
					    (unsigned long long)sub[2 * i],
					    c[i].bg - THEME_HEAT_0,
					    c[i].fg - THEME_HEAT_0);
			}
		}
	}
	CHECK("heatmap levels: thresholds agree with draw_heat_level", bad == 0);
}

/* draw_heatmap_sub from six latency histograms, as the panes sum them. */
static void
test_heatmap_hists(uint64_t (*h)[HIST_NBUCKETS], unsigned nrows, int flags,
    struct draw_cell *c)
{
	static uint64_t	 sub[6 * 2 * 4];
	unsigned	 i;

	for (i = 0; i < 6; i++)
		draw_heat_column(h[i], 2 * nrows, sub + i * 2 * nrows);
	draw_heatmap_sub(sub, 6, nrows, flags, c);
}

/* The heatmap in its three looks on the same six columns. */
static void
test_heatmap(void)
{
	static uint64_t		 h[6][HIST_NBUCKETS];
	struct draw_cell	 c[4 * 6];

	h[0][hist_bucket(5000)] = 1;
	h[1][hist_bucket(100000)] = 10;
	h[2][hist_bucket(1000000)] = 100;
	h[3][hist_bucket(100000)] = 100;
	h[3][hist_bucket(2000000)] = 1000;
	h[4][0] = 5;
	h[5][HIST_NBUCKETS - 1] = 3;

	test_heatmap_hists(h, 4, DRAW_UTF8, c);
	CHECK("heatmap utf8: glyphs", test_same(test_glyphs(c, 4, 6),
	    "     \u2580|      | \u2584\u2580\u2580  |\u2584   \u2584 "));
	CHECK("heatmap utf8: fg levels", test_same(test_levels(c, 4, 6,
	    THEME_HEAT_0), "?????2|??????|?469??|1???3?"));
	CHECK("heatmap utf8: both halves", c[2 * 6 + 3].fg == THEME_HEAT_0 + 9 &&
	    c[2 * 6 + 3].bg == THEME_HEAT_0 + 6);
	CHECK("heatmap utf8: upper only has empty bg",
	    c[2 * 6 + 2].bg == THEME_HEAT_0);
	CHECK("heatmap utf8: empty cell", c[6].fg == THEME_MAIN_FG &&
	    c[6].bg == THEME_HEAT_0);

	test_heatmap_hists(h, 4, 0, c);
	CHECK("heatmap ascii: glyphs", test_same(test_glyphs(c, 4, 6),
	    "     :|      | =*@  |.   - "));
	CHECK("heatmap ascii: fg levels", test_same(test_levels(c, 4, 6,
	    THEME_HEAT_0), "000002|000000|046900|100030"));

	test_heatmap_hists(h, 4, DRAW_UTF8 | DRAW_MONO, c);
	CHECK("heatmap mono: glyphs", test_same(test_glyphs(c, 4, 6),
	    "     :|      | =*@  |.   - "));
	CHECK("heatmap mono: no colour", c[2 * 6 + 3].fg == THEME_MAIN_FG);
}

/* Sparklines for a fixed ramp of 17 values, in every style. */
static void
test_spark(void)
{
	static const uint64_t	 v[17] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
				     11, 12, 13, 14, 15, 16 };
	static const uint64_t	 big[4] = { UINT64_MAX, UINT64_MAX / 2, 1, 0 };
	static const uint64_t	 flat[3] = { 0, 0, 0 };
	struct draw_cell	 c[2 * 17];

	CHECK("spark: braille width", draw_spark_width(17,
	    DRAW_SPARK_BRAILLE) == 9);
	CHECK("spark: block width", draw_spark_width(17,
	    DRAW_SPARK_BLOCK) == 17);

	draw_spark(v, 17, 0, DRAW_SPARK_BRAILLE, 1, THEME_QD_0, c);
	CHECK("spark braille: glyphs", test_same(test_glyphs(c, 1, 9),
	    "\u2880\u28c0\u28e0\u28e4\u28f4\u28f6\u28fe\u28ff\u2847"));
	CHECK("spark braille: levels", test_same(test_levels(c, 1, 9,
	    THEME_QD_0), "113366999"));

	draw_spark(v, 17, 0, DRAW_SPARK_BLOCK, 1, THEME_QD_0, c);
	CHECK("spark block: glyphs", test_same(test_glyphs(c, 1, 17),
	    " \u2581\u2581\u2582\u2582\u2583\u2583\u2584\u2584\u2585\u2585"
	    "\u2586\u2586\u2587\u2587\u2588\u2588"));
	CHECK("spark block: levels", test_same(test_levels(c, 1, 17,
	    THEME_QD_0), "01122334455667799"));
	CHECK("spark block: bg is main bg", c[5].bg == THEME_MAIN_BG);

	draw_spark(v, 17, 0, DRAW_SPARK_ASCII, 1, THEME_QD_0, c);
	CHECK("spark ascii: glyphs", test_same(test_glyphs(c, 1, 17),
	    " .::--==+**##%%@@"));

	draw_spark(v, 17, 0, DRAW_SPARK_BLOCK, 2, THEME_IOPS_0, c);
	CHECK("spark block 2 rows: glyphs", test_same(test_glyphs(c, 2, 17),
	    "         \u2581\u2582\u2583\u2584\u2585\u2586\u2587\u2588|"
	    " \u2581\u2582\u2583\u2584\u2585\u2586\u2587\u2588\u2588\u2588"
	    "\u2588\u2588\u2588\u2588\u2588\u2588"));
	CHECK("spark block 2 rows: levels", test_same(test_levels(c, 2, 17,
	    THEME_IOPS_0), "01122334455667789|01122334455667789"));

	draw_spark(v, 17, 0, DRAW_SPARK_BRAILLE, 2, THEME_IOPS_0, c);
	CHECK("spark braille 2 rows: glyphs", test_same(test_glyphs(c, 2, 9),
	    "    \u2880\u28e0\u28f4\u28fe\u2847|"
	    "\u2880\u28e0\u28f4\u28fe\u28ff\u28ff\u28ff\u28ff\u2847"));

	draw_spark(v, 17, 8, DRAW_SPARK_BLOCK, 1, THEME_QD_0, c);
	CHECK("spark: fixed max clamps", test_same(test_glyphs(c, 1, 17),
	    " \u2581\u2582\u2583\u2584\u2585\u2586\u2587\u2588\u2588\u2588"
	    "\u2588\u2588\u2588\u2588\u2588\u2588"));

	draw_spark(big, 4, 0, DRAW_SPARK_BLOCK, 1, THEME_QD_0, c);
	CHECK("spark: huge values, tiny ones still show",
	    test_same(test_glyphs(c, 1, 4), "\u2588\u2584\u2581 "));

	draw_spark(flat, 3, 0, DRAW_SPARK_BRAILLE, 1, THEME_QD_0, c);
	CHECK("spark: all zero is blank", test_same(test_glyphs(c, 1, 2),
	    "  "));
}

/* Table number formats, fixed width. */
static void
test_fmt(void)
{
	static const struct {
		uint64_t	 v;
		const char	*count, *bytes, *lat;
	} t[] = {
		{ 0, "   0", "   0", "  0ns" },
		{ 1, "   1", "   1", "  1ns" },
		{ 999, " 999", " 999", "999ns" },
		{ 1000, "1.0k", "1.0K", "1.0us" },
		{ 1234, "1.2k", "1.2K", "1.2us" },
		{ 1260, "1.3k", "1.2K", "1.3us" },
		{ 9940, "9.9k", "9.7K", "9.9us" },
		{ 9960, " 10k", "9.7K", " 10us" },
		{ 123456, "123k", "121K", "123us" },
		{ 999400, "999k", "976K", "999us" },
		{ 999600, "1.0M", "976K", "1.0ms" },
		{ 1048576, "1.0M", "1.0M", "1.0ms" },
		{ 3400000, "3.4M", "3.2M", "3.4ms" },
		{ 123456789, "123M", "118M", "123ms" },
		{ 1200000000ULL, "1.2G", "1.1G", " 1.2s" },
		{ 59000000000ULL, " 59G", " 55G", "  59s" },
		{ 999400000000ULL, "999G", "931G", " 999s" },
		{ 1000000000000ULL, "1.0T", "931G", "  17m" },
		{ 7200000000000ULL, "7.2T", "6.5T", " 120m" },
		{ UINT64_MAX, " 18E", " 16E", "9999h" },
	};
	char		 buf[32], name[64];
	unsigned	 i;

	for (i = 0; i < nitems(t); i++) {
		snprintf(name, sizeof name, "fmt count %llu",
		    (unsigned long long)t[i].v);
		CHECK(name, test_same(draw_fmt_count(buf, sizeof buf, t[i].v),
		    t[i].count));
		snprintf(name, sizeof name, "fmt bytes %llu",
		    (unsigned long long)t[i].v);
		CHECK(name, test_same(draw_fmt_bytes(buf, sizeof buf, t[i].v),
		    t[i].bytes));
		snprintf(name, sizeof name, "fmt lat %llu",
		    (unsigned long long)t[i].v);
		CHECK(name, test_same(draw_fmt_lat(buf, sizeof buf, t[i].v),
		    t[i].lat));
	}
	CHECK("fmt: small buffer truncates safely",
	    strcmp(draw_fmt_count(buf, 3, 1234), "1.") == 0);
}

/* Middle shortening of paths, sanitising included. */
static void
test_path(void)
{
	static const struct {
		const char	*path;
		unsigned	 width;
		int		 flags;
		const char	*want;
	} t[] = {
		{ "/very/long/path/to/some/file.txt", 40, DRAW_UTF8,
		  "/very/long/path/to/some/file.txt" },
		{ "/very/long/path/to/some/file.txt", 23, DRAW_UTF8,
		  "/very/.../some/file.txt" },
		{ "/very/long/path/to/some/file.txt", 28, DRAW_UTF8,
		  "/very/.../to/some/file.txt" },
		{ "/very/long/path/to/some/file.txt", 13, DRAW_UTF8,
		  "/.../file.txt" },
		{ "/very/long/path/to/some/file.txt", 8, DRAW_UTF8,
		  "/v...txt" },
		{ "/very/long/path/to/some/file.txt", 3, DRAW_UTF8, "txt" },
		{ "/very/long/path/to/some/file.txt", 0, DRAW_UTF8, "" },
		{ "/home/user/project/src/ui/draw.c", 28, DRAW_UTF8,
		  "/home/user/.../src/ui/draw.c" },
		{ "relative/dir/name/x.c", 18, DRAW_UTF8, "relative/.../x.c" },
		{ "relative/dir/name/x.c", 8, DRAW_UTF8, ".../x.c" },
		{ "/averyveryverylongfilenamewithoutdirs.txt", 18, DRAW_UTF8,
		  "/averyv...dirs.txt" },
		{ "/a/b\x1b[31m/c\xff.txt", 40, DRAW_UTF8, "/a/b?[31m/c?.txt" },
		{ "/a/b\xc2\x9b" "31m", 40, DRAW_UTF8, "/a/b?31m" },
		{ "/usr/share/caf\xc3\xa9/na\xc3\xafve/\xe6\x97\xa5\xe6\x9c\xac"
		  "\xe8\xaa\x9e.txt", 27, DRAW_UTF8,
		  "/usr/.../caf\xc3\xa9/na\xc3\xafve/\xe6\x97\xa5\xe6\x9c\xac"
		  "\xe8\xaa\x9e.txt" },
		{ "/usr/share/caf\xc3\xa9/na\xc3\xafve/\xe6\x97\xa5\xe6\x9c\xac"
		  "\xe8\xaa\x9e.txt", 13, DRAW_UTF8,
		  "/.../\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e.txt" },
		{ "/\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\xe6\x97\xa5\xe6\x9c\xac"
		  "\xe8\xaa\x9e", 5, DRAW_UTF8,
		  "/...\xe8\xaa\x9e" },
		{ "/usr/share/caf\xc3\xa9/x", 40, 0, "/usr/share/caf?/x" },
		{ "/truncated\xe6\x97", 40, DRAW_UTF8, "/truncated??" },
	};
	char		 buf[128], name[96];
	unsigned	 i;
	size_t		 w;

	for (i = 0; i < nitems(t); i++) {
		w = draw_path(buf, sizeof buf, t[i].path, t[i].width,
		    t[i].flags);
		snprintf(name, sizeof name, "path %u width %u", i, t[i].width);
		CHECK(name, test_same(buf, t[i].want) &&
		    w == draw_text_width(t[i].want) && w <= t[i].width);
	}
	w = draw_path(buf, 6, "/very/long/path/to/some/file.txt", 23,
	    DRAW_UTF8);
	CHECK("path: output buffer too small stays terminated",
	    strlen(buf) < 6);
	draw_path(buf, 5, "/\xe6\x97\xa5\xe6\x9c\xac", 40, DRAW_UTF8);
	CHECK("path: never cuts inside a character",
	    strcmp(buf, "/\xe6\x97\xa5") == 0);
	CHECK("text width counts characters",
	    draw_text_width("na\xc3\xafve") == 5);
}

int
main(void)
{
	test_heat_axis();
	test_heat_level();
	test_heatmap();
	test_heatmap_levels();
	test_spark();
	test_fmt();
	test_path();
	CHECK_EXIT();
}
