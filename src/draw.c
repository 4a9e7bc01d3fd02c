/* draw.c: pure drawing (heatmap, sparklines, numbers, paths) into cells and strings. */

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "draw.h"

/* Density ramp for heat levels and ASCII sparklines: index = level, 0 is empty. */
static const char draw_ascii_ramp[] = " .:-=+*#%@";

/* Lower block elements, index = eighths filled. */
static const char *draw_blocks[9] = {
	" ", "\u2581", "\u2582", "\u2583", "\u2584", "\u2585", "\u2586",
	"\u2587", "\u2588"
};

/* Braille dot bits filling a column from the bottom: left (1,2,3,7) and right (4,5,6,8). */
static const unsigned draw_braille_left[5] = { 0x00, 0x40, 0x44, 0x46, 0x47 };
static const unsigned draw_braille_right[5] = { 0x00, 0x80, 0xa0, 0xb0, 0xb8 };

/* Heatmap axis labels, one per decade from DRAW_HEAT_LO_NS. */
static const char *draw_heat_labels[DRAW_HEAT_LABELS] = {
	"1us", "10us", "100us", "1ms", "10ms", "100ms", "1s", "10s"
};

#define DRAW_UPPER_HALF	"\u2580"
#define DRAW_LOWER_HALF	"\u2584"

/* Set a cell's glyph (cut to fit) and colours; once per cell per frame, so no snprintf. */
static void
draw_cell_set(struct draw_cell *c, const char *glyph, int fg, int bg)
{
	size_t	 n = 0;

	while (n < sizeof c->glyph - 1 && glyph[n] != '\0')
		n++;
	memcpy(c->glyph, glyph, n);
	c->glyph[n] = '\0';
	c->fg = (uint8_t)fg;
	c->bg = (uint8_t)bg;
}

/*
 * Sub-row (0 = bottom) of a latency bucket in a heatmap nsub sub-rows high
 * that covers 1 us .. 10 s on a log scale; the bucket's geometric middle picks
 * the sub-row, and buckets outside the axis stick to its ends.
 */
unsigned
draw_heat_subrow(unsigned bucket, unsigned nsub)
{
	double	 lo, hi, pos;

	if (nsub == 0)
		return (0);
	lo = (double)hist_bucket_lo(bucket);
	hi = (double)hist_bucket_hi(bucket);
	if (lo < (double)DRAW_HEAT_LO_NS)
		return (0);
	pos = log10(sqrt(lo * hi) / (double)DRAW_HEAT_LO_NS) / DRAW_HEAT_DECADES;
	if (pos <= 0)
		return (0);
	if (pos >= 1)
		return (nsub - 1);
	return ((unsigned)(pos * nsub));
}

/* Sum one latency histogram (HIST_NBUCKETS counts) into nsub heatmap sub-rows. */
void
draw_heat_column(const uint64_t *hist, unsigned nsub, uint64_t *cells)
{
	static unsigned	 map[HIST_NBUCKETS], map_nsub;
	unsigned	 i;

	if (nsub == 0)
		return;
	if (map_nsub != nsub) {
		for (i = 0; i < HIST_NBUCKETS; i++)
			map[i] = draw_heat_subrow(i, nsub);
		map_nsub = nsub;
	}
	memset(cells, 0, nsub * sizeof *cells);
	for (i = 0; i < HIST_NBUCKETS; i++)
		cells[map[i]] += hist[i];
}

/*
 * Heat level (0 .. THEME_LEVELS - 1) of a count: 0 only when empty, then log
 * scale relative to the largest count shown, so 1 is level 1 and max the top.
 */
unsigned
draw_heat_level(uint64_t count, uint64_t max)
{
	double		 f;
	unsigned	 level;

	if (count == 0)
		return (0);
	if (max <= 1 || count >= max)
		return (THEME_LEVELS - 1);
	f = log((double)count) / log((double)max);
	level = 1 + (unsigned)((THEME_LEVELS - 2) * f + 0.5);
	if (level > THEME_LEVELS - 1)
		level = THEME_LEVELS - 1;
	return (level);
}

/* Axis label for text row (0 = top) of a heatmap nrows high, or NULL; labels never share a row. */
const char *
draw_heat_label(unsigned row, unsigned nrows)
{
	unsigned	 k, sub, r, nsub = 2 * nrows, taken = (unsigned)-1;

	if (row >= nrows)
		return (NULL);
	for (k = 0; k < DRAW_HEAT_LABELS; k++) {
		sub = k * nsub / DRAW_HEAT_DECADES;
		if (sub >= nsub)
			sub = nsub - 1;
		r = nrows - 1 - sub / 2;
		if (r == taken)
			continue;
		taken = r;
		if (r == row)
			return (draw_heat_labels[k]);
	}
	return (NULL);
}

/*
 * The smallest count of each heat level 1 .. THEME_LEVELS - 1 (thr[level])
 * under max: the level of a count is then the number of thresholds it
 * reaches, with draw_heat_level's exact boundaries and no logarithm per cell.
 */
static void
draw_heat_thresholds(uint64_t max, uint64_t *thr)
{
	uint64_t	 t;
	unsigned	 k;

	thr[0] = 0;
	for (k = 1; k < THEME_LEVELS; k++) {
		/* level >= k from count max^((k - 1.5) / (levels - 2)); then exact. */
		t = k <= 1 || max <= 1 ? 1 : (uint64_t)ceil(pow((double)max,
		    ((double)k - 1.5) / (THEME_LEVELS - 2)));
		if (t > max)
			t = max;
		if (t < 1)
			t = 1;
		while (t > 1 && draw_heat_level(t - 1, max) >= k)
			t--;
		while (t < max && draw_heat_level(t, max) < k)
			t++;
		thr[k] = t;
	}
}

/* Level of count from thresholds made by draw_heat_thresholds. */
static unsigned
draw_heat_level_thr(uint64_t count, const uint64_t *thr)
{
	unsigned	 level = 0;

	if (count == 0)
		return (0);
	while (level + 1 < THEME_LEVELS && count >= thr[level + 1])
		level++;
	return (level);
}

/*
 * Draw a latency heatmap from ncols columns of 2 * nrows sub-row counts (as
 * draw_heat_column makes them, column 0 on the left, oldest first) into
 * nrows x ncols cells, row 0 at the top. With UTF-8 and colour each text row
 * holds two sub-rows as half blocks (upper half fg, lower half bg); otherwise
 * each cell is the denser of its two sub-rows drawn from an ASCII density
 * ramp. Colours are THEME_HEAT_0 + level, scaled to the largest count.
 */
void
draw_heatmap_sub(const uint64_t *sub, unsigned ncols, unsigned nrows, int flags,
    struct draw_cell *out)
{
	struct draw_cell *cell;
	uint64_t	 max = 0, thr[THEME_LEVELS];
	size_t		 i, n = (size_t)ncols * 2 * nrows;
	unsigned	 nsub = 2 * nrows, c, r, up, lo, lv;
	char		 ramp[2];

	if (ncols == 0 || nrows == 0)
		return;
	for (i = 0; i < n; i++) {
		if (sub[i] > max)
			max = sub[i];
	}
	draw_heat_thresholds(max, thr);
	for (r = 0; r < nrows; r++) {
		for (c = 0; c < ncols; c++) {
			i = (size_t)c * nsub + 2 * (nrows - 1 - r);
			lo = draw_heat_level_thr(sub[i], thr);
			up = draw_heat_level_thr(sub[i + 1], thr);
			cell = &out[(size_t)r * ncols + c];
			if ((flags & DRAW_UTF8) && !(flags & DRAW_MONO)) {
				if (up == 0 && lo == 0)
					draw_cell_set(cell, " ", THEME_MAIN_FG,
					    THEME_HEAT_0);
				else if (up == 0)
					draw_cell_set(cell, DRAW_LOWER_HALF,
					    THEME_HEAT_0 + lo, THEME_HEAT_0);
				else
					draw_cell_set(cell, DRAW_UPPER_HALF,
					    THEME_HEAT_0 + up, THEME_HEAT_0 + lo);
				continue;
			}
			lv = up > lo ? up : lo;
			ramp[0] = draw_ascii_ramp[lv];
			ramp[1] = '\0';
			draw_cell_set(cell, ramp, (flags & DRAW_MONO) ?
			    THEME_MAIN_FG : THEME_HEAT_0 + lv, THEME_HEAT_0);
		}
	}
}

/* Cells across a sparkline of nvals values: braille packs two values per cell. */
unsigned
draw_spark_width(unsigned nvals, enum draw_spark_style style)
{
	if (style == DRAW_SPARK_BRAILLE)
		return ((nvals + 1) / 2);
	return (nvals);
}

/* Height of v in steps out of total when max is full height; nonzero values get at least 1. */
static unsigned
draw_spark_steps(uint64_t v, uint64_t max, unsigned total)
{
	if (v == 0 || max == 0)
		return (0);
	if (v >= max)
		return (total);
	/* Scale down together so v * total cannot overflow. */
	while (max > UINT64_MAX / total) {
		max >>= 1;
		v >>= 1;
	}
	v = (v * total + max - 1) / max;
	return (v == 0 ? 1 : (unsigned)v);
}

/* Colour level (1 .. THEME_LEVELS - 1) of a sparkline column steps out of total high. */
static unsigned
draw_spark_level(unsigned steps, unsigned total)
{
	if (steps == 0)
		return (0);
	if (total <= 1)
		return (THEME_LEVELS - 1);
	return (1 + (steps - 1) * (THEME_LEVELS - 2) / (total - 1));
}

/* Steps of one column falling in text row b (0 = bottom) of cap steps each. */
static unsigned
draw_spark_fill(unsigned steps, unsigned b, unsigned cap)
{
	if (steps <= b * cap)
		return (0);
	steps -= b * cap;
	return (steps > cap ? cap : steps);
}

/*
 * Draw nvals values as a sparkline height rows high and draw_spark_width()
 * cells wide, row 0 at the top, scaled so max (the largest value when 0) is
 * full height. Braille has 4 steps per row and two values per cell, blocks 8,
 * ASCII 9. Each column's colour is base + its level, base being THEME_QD_0 or
 * THEME_IOPS_0.
 */
void
draw_spark(const uint64_t *vals, unsigned nvals, uint64_t max,
    enum draw_spark_style style, unsigned height, enum theme_colour base,
    struct draw_cell *out)
{
	unsigned	 width = draw_spark_width(nvals, style), cap, total;
	unsigned	 c, r, b, s0, s1, f0, f1, bits;
	char		 glyph[DRAW_GLYPH_MAX];
	const char	*g;

	if (height == 0 || nvals == 0)
		return;
	if (max == 0) {
		for (c = 0; c < nvals; c++) {
			if (vals[c] > max)
				max = vals[c];
		}
	}
	switch (style) {
	case DRAW_SPARK_BRAILLE:
		cap = 4;
		break;
	case DRAW_SPARK_BLOCK:
		cap = 8;
		break;
	default:
		cap = 9;
		break;
	}
	total = cap * height;
	for (c = 0; c < width; c++) {
		if (style == DRAW_SPARK_BRAILLE) {
			s0 = draw_spark_steps(vals[2 * c], max, total);
			s1 = 2 * c + 1 < nvals ?
			    draw_spark_steps(vals[2 * c + 1], max, total) : 0;
		} else {
			s0 = draw_spark_steps(vals[c], max, total);
			s1 = 0;
		}
		for (r = 0; r < height; r++) {
			b = height - 1 - r;
			f0 = draw_spark_fill(s0, b, cap);
			f1 = draw_spark_fill(s1, b, cap);
			g = glyph;
			if (style == DRAW_SPARK_BRAILLE) {
				bits = draw_braille_left[f0] |
				    draw_braille_right[f1];
				if (bits == 0) {
					glyph[0] = ' ';
					glyph[1] = '\0';
				} else {
					/* U+2800 + bits, three bytes of UTF-8. */
					glyph[0] = (char)0xe2;
					glyph[1] = (char)(0xa0 | (bits >> 6));
					glyph[2] = (char)(0x80 | (bits & 0x3f));
					glyph[3] = '\0';
				}
			} else if (style == DRAW_SPARK_BLOCK)
				g = draw_blocks[f0];
			else {
				glyph[0] = draw_ascii_ramp[f0];
				glyph[1] = '\0';
			}
			draw_cell_set(&out[(size_t)r * width + c], g,
			    base + draw_spark_level(s0 > s1 ? s0 : s1, total),
			    THEME_MAIN_BG);
		}
	}
}

/*
 * Format v right-aligned in width columns with one decimal below 10 units
 * ("1.2k") and none above ("123k"), choosing the unit after rounding.
 */
static char *
draw_fmt_scaled(char *buf, size_t len, uint64_t v, double base,
    const char *const *units, unsigned nunits, int width)
{
	double		 unit = 1, x;
	uint64_t	 tenths, whole;
	unsigned	 i;
	char		 tmp[32] = "";

	for (i = 0; i < nunits; i++) {
		x = (double)v / unit;
		tenths = (uint64_t)(x * 10 + 0.5);
		whole = (uint64_t)(x + 0.5);
		if (i == 0 && v < 1000) {
			snprintf(tmp, sizeof tmp, "%llu%s",
			    (unsigned long long)v, units[0]);
			break;
		}
		if (i > 0 && tenths < 100) {
			snprintf(tmp, sizeof tmp, "%llu.%llu%s",
			    (unsigned long long)(tenths / 10),
			    (unsigned long long)(tenths % 10), units[i]);
			break;
		}
		if (i > 0 && (whole < 1000 || i == nunits - 1)) {
			snprintf(tmp, sizeof tmp, "%llu%s",
			    (unsigned long long)whole, units[i]);
			break;
		}
		unit *= base;
	}
	snprintf(buf, len, "%*s", width, tmp);
	return (buf);
}

/* Format a count in DRAW_COUNT_WIDTH columns: "999", "1.2k", "123M". */
char *
draw_fmt_count(char *buf, size_t len, uint64_t v)
{
	static const char *const units[] = { "", "k", "M", "G", "T", "P", "E" };

	return (draw_fmt_scaled(buf, len, v, 1000, units, nitems(units),
	    DRAW_COUNT_WIDTH));
}

/* Format bytes in DRAW_COUNT_WIDTH columns, powers of 1024: "512", "1.2K", "123M". */
char *
draw_fmt_bytes(char *buf, size_t len, uint64_t v)
{
	static const char *const units[] = { "", "K", "M", "G", "T", "P", "E" };

	return (draw_fmt_scaled(buf, len, v, 1024, units, nitems(units),
	    DRAW_COUNT_WIDTH));
}

/* Format a latency in ns in DRAW_LAT_WIDTH columns: "850ns", "1.2us", "123ms", "1.2s", "16m". */
char *
draw_fmt_lat(char *buf, size_t len, uint64_t ns)
{
	static const char *const units[] = { "ns", "us", "ms", "s" };
	uint64_t	 s, whole;

	if (ns < 1000 * NSEC_PER_SEC - NSEC_PER_SEC / 2) {
		return (draw_fmt_scaled(buf, len, ns, 1000, units,
		    nitems(units), DRAW_LAT_WIDTH));
	}
	s = ns / NSEC_PER_SEC + (ns % NSEC_PER_SEC >= NSEC_PER_SEC / 2);
	if ((whole = (s + 30) / 60) < 1000)
		snprintf(buf, len, "%*llum", DRAW_LAT_WIDTH - 1,
		    (unsigned long long)whole);
	else if ((whole = (s + 1800) / 3600) < 10000)
		snprintf(buf, len, "%*lluh", DRAW_LAT_WIDTH - 1,
		    (unsigned long long)whole);
	else
		snprintf(buf, len, "%*s", DRAW_LAT_WIDTH, "9999h");
	return (buf);
}

/* Columns taken by a string, counting each UTF-8 character (or stray byte) as one. */
unsigned
draw_text_width(const char *s)
{
	const unsigned char	*p = (const unsigned char *)s;
	size_t			 n = strlen(s), l;
	unsigned		 w = 0;

	while (n > 0) {
		if ((l = name_utf8_char((const char *)p, n, NULL)) == 0)
			l = 1;
		p += l;
		n -= l;
		w++;
	}
	return (w);
}

/* Append bytes to out if they fit, keeping room for the NUL; once one does not, none do. */
static void
draw_put(char *out, size_t outlen, size_t *used, const char *s, size_t n)
{
	if (*used + n >= outlen) {
		*used = outlen;
		return;
	}
	memcpy(out + *used, s, n);
	*used += n;
	out[*used] = '\0';
}

/*
 * Copy path into out, made safe for the terminal (control characters and bad
 * UTF-8 become '?', and so does any non-ASCII without DRAW_UTF8) and fitted to
 * width columns by cutting the middle: the last component is kept, then whole
 * components are added alternately from the start and the end while they fit
 * ("/very/long/.../file.txt"). A last component too wide is cut in its own
 * middle. Returns the columns used.
 */
size_t
draw_path(char *out, size_t outlen, const char *path, unsigned width,
    int flags)
{
	const unsigned char	*p = (const unsigned char *)path;
	size_t			 n = strlen(path), l, *at, nch = 0, used = 0;
	size_t			 i, head, tail, ncol;
	char			*s;
	int			 grow;

	if (outlen == 0)
		return (0);
	out[0] = '\0';

	/* Sanitise into s, recording where each character starts. */
	s = xmalloc(n + 1);
	at = xcalloc(n + 1, sizeof *at);
	for (i = 0; n > 0; nch++) {
		at[nch] = i;
		l = name_utf8_char((const char *)p, n, NULL);
		/*
		 * The one test of every text output (name_text's): controls
		 * can drive the terminal, bidi overrides and zero-width
		 * characters would make one name read as another.
		 */
		if (l == 0 || (l > 1 && !(flags & DRAW_UTF8)) ||
		    name_utf8_printable((const char *)p, n) == 0) {
			s[i++] = '?';
			l = l == 0 ? 1 : l;
		} else {
			memcpy(s + i, p, l);
			i += l;
		}
		p += l;
		n -= l;
	}
	at[nch] = i;
	s[i] = '\0';

#define CH(k) (s + at[k])
#define CHLEN(a, b) (at[b] - at[a])
	if (nch <= width) {
		for (i = 0; i < nch; i++)
			draw_put(out, outlen, &used, CH(i), CHLEN(i, i + 1));
		ncol = nch;
		goto done;
	}
	if (width < 5) {
		/* No room for a useful ellipsis: the end says the most. */
		for (i = nch - width; i < nch; i++)
			draw_put(out, outlen, &used, CH(i), CHLEN(i, i + 1));
		ncol = width;
		goto done;
	}

	/* tail: first character kept at the end; head: characters kept at the start. */
	for (tail = nch; tail > 0 && *CH(tail - 1) != '/'; tail--)
		;
	if (tail == 0 || nch - tail + 1 + 3 > width) {
		head = (width - 3) / 2;
		tail = nch - (width - 3 - head);
	} else {
		tail--;
		head = 0;
		grow = 1;
		while (grow) {
			grow = 0;
			/* One more component at the start: up to the next '/'. */
			for (i = head; i < tail && *CH(i) != '/'; i++)
				;
			if (i < tail && (i + 1) + 3 + (nch - tail) <= width) {
				head = i + 1;
				grow = 1;
			}
			/* One more at the end: back to the previous '/'. */
			for (i = tail; i > head && *CH(i - 1) != '/'; i--)
				;
			if (i > head && head + 3 + (nch - (i - 1)) <= width) {
				tail = i - 1;
				grow = 1;
			}
		}
	}
	for (i = 0; i < head; i++)
		draw_put(out, outlen, &used, CH(i), CHLEN(i, i + 1));
	draw_put(out, outlen, &used, "...", 3);
	for (i = tail; i < nch; i++)
		draw_put(out, outlen, &used, CH(i), CHLEN(i, i + 1));
	ncol = head + 3 + (nch - tail);
#undef CH
#undef CHLEN

done:
	free(at);
	free(s);
	return (ncol);
}
