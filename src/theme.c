/* theme.c: theme files (btop's theme[key]="#RRGGBB"), gradients and colour degradation. */

#include <sys/stat.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blktop.h"
#include "draw.h"

/* The three gradients a theme defines by start, optional mid and end. */
enum theme_gradient_id {
	THEME_GRAD_HEAT,
	THEME_GRAD_QD,
	THEME_GRAD_IOPS,
	THEME_NGRADS
};

/* Where a file key goes: a plain colour or one stop of a gradient. */
struct theme_key {
	const char	*name;
	int		 colour;	/* enum theme_colour, or -1 for a stop */
	int		 grad;		/* enum theme_gradient_id for a stop */
	int		 stop;		/* 0 start, 1 mid, 2 end */
	const char	*dflt;		/* the default theme's value */
};

/* Every key a theme file may set, with the default theme's value (dark background). */
static const struct theme_key theme_keys[] = {
	{ .name = "main_bg", .colour = THEME_MAIN_BG, .dflt = "" },
	{ .name = "main_fg", .colour = THEME_MAIN_FG, .dflt = "#cccccc" },
	{ .name = "title", .colour = THEME_TITLE, .dflt = "#eeeeee" },
	{ .name = "hi_fg", .colour = THEME_HI_FG, .dflt = "#5fafff" },
	{ .name = "selected_bg", .colour = THEME_SELECTED_BG, .dflt = "#264f78" },
	{ .name = "selected_fg", .colour = THEME_SELECTED_FG, .dflt = "#ffffff" },
	{ .name = "inactive_fg", .colour = THEME_INACTIVE_FG, .dflt = "#6c6c6c" },
	{ .name = "lost", .colour = THEME_LOST, .dflt = "#ff5f5f" },
	{ .name = "read", .colour = THEME_READ, .dflt = "#5fafd7" },
	{ .name = "write", .colour = THEME_WRITE, .dflt = "#ffaf5f" },
	{ .name = "other", .colour = THEME_OTHER, .dflt = "#af87d7" },
	{ .name = "graph_text", .colour = THEME_GRAPH_TEXT, .dflt = "#a8a8a8" },
	{ .name = "div_line", .colour = THEME_DIV_LINE, .dflt = "#444444" },
	{ .name = "heat_start", .colour = -1, .grad = THEME_GRAD_HEAT, .stop = 0,
	  .dflt = "#233b7a" },
	{ .name = "heat_mid", .colour = -1, .grad = THEME_GRAD_HEAT, .stop = 1,
	  .dflt = "#d1495b" },
	{ .name = "heat_end", .colour = -1, .grad = THEME_GRAD_HEAT, .stop = 2,
	  .dflt = "#ffe66d" },
	{ .name = "qd_start", .colour = -1, .grad = THEME_GRAD_QD, .stop = 0,
	  .dflt = "#005f87" },
	{ .name = "qd_mid", .colour = -1, .grad = THEME_GRAD_QD, .stop = 1,
	  .dflt = "" },
	{ .name = "qd_end", .colour = -1, .grad = THEME_GRAD_QD, .stop = 2,
	  .dflt = "#5fd7ff" },
	{ .name = "iops_start", .colour = -1, .grad = THEME_GRAD_IOPS, .stop = 0,
	  .dflt = "#5f8700" },
	{ .name = "iops_mid", .colour = -1, .grad = THEME_GRAD_IOPS, .stop = 1,
	  .dflt = "" },
	{ .name = "iops_end", .colour = -1, .grad = THEME_GRAD_IOPS, .stop = 2,
	  .dflt = "#d7ff5f" },
};

/* First colour of each gradient in struct theme. */
static const enum theme_colour theme_grad_base[THEME_NGRADS] = {
	THEME_HEAT_0, THEME_QD_0, THEME_IOPS_0
};

/* Names of the plain colours, for messages and tests. */
static const char *theme_colour_names[] = {
	"main_bg", "main_fg", "title", "hi_fg", "selected_bg", "selected_fg",
	"inactive_fg", "lost", "read", "write", "other", "graph_text", "div_line"
};

/* The xterm values of the 16 ANSI colours, as most terminals default them. */
static const int32_t theme_ansi[16] = {
	0x000000, 0xcd0000, 0x00cd00, 0xcdcd00, 0x0000ee, 0xcd00cd, 0x00cdcd,
	0xe5e5e5, 0x7f7f7f, 0xff0000, 0x00ff00, 0xffff00, 0x5c5cff, 0xff00ff,
	0x00ffff, 0xffffff
};

/* Levels of each axis of the xterm 6x6x6 colour cube. */
static const int theme_cube[6] = { 0x00, 0x5f, 0x87, 0xaf, 0xd7, 0xff };

/* The raw values of every key while a file is read, before gradients are built. */
struct theme_raw {
	int32_t		 colour[THEME_HEAT_0];
	int32_t		 stop[THEME_NGRADS][3];
	int		 seen[THEME_NGRADS][3];
};

/* Value of one hex digit, or -1. */
static int
theme_hex(int c)
{
	if (c >= '0' && c <= '9')
		return (c - '0');
	if (c >= 'a' && c <= 'f')
		return (c - 'a' + 10);
	if (c >= 'A' && c <= 'F')
		return (c - 'A' + 10);
	return (-1);
}

/*
 * Parse a colour value as btop writes them: "" (terminal default), "#RRGGBB",
 * "#GG" (grey) or decimal "R G B". Returns 0, or -1 if it is not one of those.
 */
int
theme_parse_colour(const char *s, int32_t *rgb)
{
	int		 i, h, v[3];
	size_t		 len = strlen(s);
	const char	*p;
	char		*end;
	long		 n;

	if (len == 0) {
		*rgb = THEME_DEFAULT;
		return (0);
	}
	if (s[0] == '#' && (len == 7 || len == 3)) {
		*rgb = 0;
		for (i = 1; i < (int)len; i++) {
			if ((h = theme_hex((unsigned char)s[i])) == -1)
				return (-1);
			*rgb = (*rgb << 4) | h;
		}
		if (len == 3)
			*rgb = *rgb << 16 | *rgb << 8 | *rgb;
		return (0);
	}
	p = s;
	for (i = 0; i < 3; i++) {
		if (!isdigit((unsigned char)*p))
			return (-1);
		errno = 0;
		n = strtol(p, &end, 10);
		if (errno != 0 || n > 255 || end - p > 3)
			return (-1);
		v[i] = (int)n;
		p = end;
		if (i < 2 && *p++ != ' ')
			return (-1);
	}
	if (*p != '\0')
		return (-1);
	*rgb = v[0] << 16 | v[1] << 8 | v[2];
	return (0);
}

/* Name of a colour meaning: the file key, or heat_N / qd_N / iops_N for gradient levels. */
const char *
theme_colour_name(enum theme_colour c)
{
	static char	 buf[16];

	if ((unsigned)c < nitems(theme_colour_names))
		return (theme_colour_names[c]);
	if (c >= THEME_HEAT_0 && c < THEME_QD_0)
		snprintf(buf, sizeof buf, "heat_%d", c - THEME_HEAT_0);
	else if (c >= THEME_QD_0 && c < THEME_IOPS_0)
		snprintf(buf, sizeof buf, "qd_%d", c - THEME_QD_0);
	else if (c >= THEME_IOPS_0 && c < THEME_NCOLOURS)
		snprintf(buf, sizeof buf, "iops_%d", c - THEME_IOPS_0);
	else
		return ("unknown");
	return (buf);
}

/* Mix two channels of 0xRRGGBB colours, i/k of the way from a to b, rounded. */
static int32_t
theme_mix(int32_t a, int32_t b, unsigned i, unsigned k)
{
	int32_t		 out = 0;
	int		 shift, ca, cb;

	for (shift = 16; shift >= 0; shift -= 8) {
		ca = (a >> shift) & 0xff;
		cb = (b >> shift) & 0xff;
		out |= (int32_t)((ca * (int)(k - i) + cb * (int)i +
		    (int)k / 2) / (int)k) << shift;
	}
	return (out);
}

/*
 * Fill n colours from start to end, through mid when it is set (btop's rule);
 * a default start or end gives a gradient of terminal defaults.
 */
void
theme_gradient(int32_t start, int32_t mid, int32_t end, unsigned n,
    int32_t *out)
{
	unsigned	 i, half = (n - 1) / 2;

	for (i = 0; i < n; i++) {
		if (start == THEME_DEFAULT || end == THEME_DEFAULT)
			out[i] = THEME_DEFAULT;
		else if (n == 1)
			out[i] = start;
		else if (mid == THEME_DEFAULT || half == 0)
			out[i] = theme_mix(start, end, i, n - 1);
		else if (i <= half)
			out[i] = theme_mix(start, mid, i, half);
		else
			out[i] = theme_mix(mid, end, i - half, n - 1 - half);
	}
}

/* Fill the raw values from the default theme's table. */
static void
theme_raw_default(struct theme_raw *raw)
{
	const struct theme_key	*k;
	int32_t			 v;
	size_t			 i;

	memset(raw, 0, sizeof *raw);
	for (i = 0; i < nitems(theme_keys); i++) {
		k = &theme_keys[i];
		if (theme_parse_colour(k->dflt, &v) != 0)
			v = THEME_DEFAULT;	/* not reached: the table is valid */
		if (k->colour >= 0)
			raw->colour[k->colour] = v;
		else
			raw->stop[k->grad][k->stop] = v;
	}
}

/* Build a theme from raw values: copy the colours, interpolate the gradients. */
static void
theme_build(struct theme *t, const struct theme_raw *raw)
{
	int32_t		*out;
	int		 g;

	memcpy(t->colour, raw->colour, sizeof raw->colour);
	for (g = 0; g < THEME_NGRADS; g++) {
		out = &t->colour[theme_grad_base[g]];
		/* Level 0 is "nothing here": the background. */
		out[0] = raw->colour[THEME_MAIN_BG];
		theme_gradient(raw->stop[g][0], raw->stop[g][1],
		    raw->stop[g][2], THEME_LEVELS - 1, out + 1);
	}
}

/* Set the built-in default theme. */
void
theme_default(struct theme *t)
{
	struct theme_raw	 raw;

	memset(t, 0, sizeof *t);
	snprintf(t->name, sizeof t->name, "default");
	theme_raw_default(&raw);
	theme_build(t, &raw);
}

/* Copy s into a message-safe buffer: printable ASCII only, bounded. */
static const char *
theme_safe(const char *s, size_t n, char *buf, size_t len)
{
	size_t	 i;

	for (i = 0; i < n && i + 1 < len; i++)
		buf[i] = (s[i] >= 0x20 && s[i] < 0x7f) ? s[i] : '?';
	buf[i] = '\0';
	return (buf);
}

/* Parse one line into key and value; returns 0, 1 for blank/comment, -1 if malformed. */
static int
theme_split(char *line, char **key, char **value)
{
	char	*p = line, *q;

	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == '\0' || *p == '#')
		return (1);
	if (strncmp(p, "theme[", 6) != 0)
		return (-1);
	*key = p += 6;
	while (*p == '_' || isdigit((unsigned char)*p) ||
	    (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z'))
		p++;
	if (*p != ']' || p == *key)
		return (-1);
	*p++ = '\0';
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p++ != '=')
		return (-1);
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p++ != '"')
		return (-1);
	*value = p;
	if ((q = strchr(p, '"')) == NULL)
		return (-1);
	*q++ = '\0';
	while (*q == ' ' || *q == '\t')
		q++;
	if (*q != '\0' && *q != '#')
		return (-1);
	return (0);
}

/*
 * Parse a theme held in memory (len bytes, need not be NUL-terminated). Keys
 * the file does not set keep the default theme's value; a gradient whose start
 * or end is set but whose mid is not goes straight from start to end. Unknown
 * keys are ignored, so btop theme files load too. On error returns -1 with
 * *errp set to one line "file:line: reason" (caller frees) and t untouched.
 */
int
theme_parse(struct theme *t, const char *file, const char *buf, size_t len,
    char **errp)
{
	struct theme_raw	 raw;
	const struct theme_key	*k;
	char			 line[THEME_LINE_MAX + 1], safe[64];
	char			*key, *value;
	const char		*p = buf, *end = buf + len, *nl, *raw_line;
	size_t			 n, i;
	unsigned		 lineno = 0;
	int32_t			 v;
	int			 g, r;

	if (len > THEME_FILE_MAX) {
		xasprintf(errp, "%s: theme file too large (over %d bytes)",
		    file, THEME_FILE_MAX);
		return (-1);
	}
	theme_raw_default(&raw);
	while (p < end) {
		lineno++;
		if ((nl = memchr(p, '\n', end - p)) == NULL)
			nl = end;
		n = nl - p;
		if (n > 0 && p[n - 1] == '\r')
			n--;
		if (n > THEME_LINE_MAX) {
			xasprintf(errp, "%s:%u: line too long (over %d bytes)",
			    file, lineno, THEME_LINE_MAX);
			return (-1);
		}
		if (memchr(p, '\0', n) != NULL) {
			xasprintf(errp, "%s:%u: NUL byte in theme file",
			    file, lineno);
			return (-1);
		}
		memcpy(line, p, n);
		line[n] = '\0';
		raw_line = p;
		p = nl + 1;

		if ((r = theme_split(line, &key, &value)) == 1)
			continue;
		if (r == -1) {
			xasprintf(errp, "%s:%u: expected theme[key]=\"#RRGGBB\": "
			    "%s", file, lineno, theme_safe(raw_line, n, safe,
			    sizeof safe));
			return (-1);
		}
		for (i = 0; i < nitems(theme_keys); i++) {
			if (strcmp(theme_keys[i].name, key) == 0)
				break;
		}
		if (i == nitems(theme_keys))
			continue;
		k = &theme_keys[i];
		if (theme_parse_colour(value, &v) != 0) {
			xasprintf(errp, "%s:%u: bad colour \"%s\" for %s "
			    "(want \"#RRGGBB\")", file, lineno,
			    theme_safe(value, strlen(value), safe, 24), k->name);
			return (-1);
		}
		if (k->colour >= 0)
			raw.colour[k->colour] = v;
		else {
			raw.stop[k->grad][k->stop] = v;
			raw.seen[k->grad][k->stop] = 1;
		}
	}
	for (g = 0; g < THEME_NGRADS; g++) {
		if ((raw.seen[g][0] || raw.seen[g][2]) && !raw.seen[g][1])
			raw.stop[g][1] = THEME_DEFAULT;
	}
	memset(t, 0, sizeof *t);
	theme_build(t, &raw);
	return (0);
}

/* Read a whole theme file, refusing anything but a regular file of bounded size. */
static char *
theme_read(const char *path, size_t *lenp, char **errp)
{
	struct stat	 sb;
	char		*buf;
	size_t		 len = 0;
	ssize_t		 n;
	int		 fd;

	fd = privs_open_user(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd == -1) {
		xasprintf(errp, "%s: %s", path, strerror(errno));
		return (NULL);
	}
	if (fstat(fd, &sb) == -1 || !S_ISREG(sb.st_mode)) {
		xasprintf(errp, "%s: not a regular file", path);
		close(fd);
		return (NULL);
	}
	if (sb.st_size > THEME_FILE_MAX) {
		xasprintf(errp, "%s: theme file too large (over %d bytes)",
		    path, THEME_FILE_MAX);
		close(fd);
		return (NULL);
	}
	/* One byte more than allowed, to notice a file that grew. */
	buf = xmalloc(THEME_FILE_MAX + 1);
	while (len < THEME_FILE_MAX + 1) {
		n = read(fd, buf + len, THEME_FILE_MAX + 1 - len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			xasprintf(errp, "%s: %s", path, strerror(errno));
			free(buf);
			close(fd);
			return (NULL);
		}
		if (n == 0)
			break;
		len += n;
	}
	close(fd);
	*lenp = len;
	return (buf);
}

/*
 * Load a theme by name (NAME.theme in dir, THEME_DIR if dir is NULL) or by
 * path (anything with a '/'). On failure returns -1 with a one-line *errp and
 * leaves t alone: the caller keeps or falls back to theme_default.
 */
int
theme_load(struct theme *t, const char *name_or_path, const char *dir,
    char **errp)
{
	struct theme	 nt;
	char		*path, *buf, safe[THEME_NAME_MAX];
	const char	*base, *p;
	size_t		 len, blen;
	int		 r;

	if (dir == NULL)
		dir = THEME_DIR;
	if (strchr(name_or_path, '/') != NULL)
		path = xstrdup(name_or_path);
	else {
		for (p = name_or_path; *p != '\0'; p++) {
			if (!isalnum((unsigned char)*p) && *p != '-' &&
			    *p != '_' && *p != '.')
				break;
		}
		len = strlen(name_or_path);
		if (*p != '\0' || len == 0 || len >= THEME_NAME_MAX ||
		    name_or_path[0] == '.') {
			xasprintf(errp, "bad theme name: %s", theme_safe(
			    name_or_path, len, safe, sizeof safe));
			return (-1);
		}
		if (len > 6 && strcmp(name_or_path + len - 6, ".theme") == 0)
			xasprintf(&path, "%s/%s", dir, name_or_path);
		else
			xasprintf(&path, "%s/%s.theme", dir, name_or_path);
	}
	if ((buf = theme_read(path, &len, errp)) == NULL) {
		free(path);
		return (-1);
	}
	r = theme_parse(&nt, path, buf, len, errp);
	free(buf);
	if (r == 0) {
		/* The name is the file's base name without ".theme". */
		base = (p = strrchr(path, '/')) != NULL ? p + 1 : path;
		blen = strlen(base);
		if (blen > 6 && strcmp(base + blen - 6, ".theme") == 0)
			blen -= 6;
		theme_safe(base, blen, nt.name, sizeof nt.name);
		*t = nt;
	}
	free(path);
	return (r);
}

/* True if the heat gradient has no distinct colours (levels must then be glyphs). */
int
theme_is_mono(const struct theme *t)
{
	unsigned	 i;

	for (i = 2; i < THEME_LEVELS; i++) {
		if (t->colour[THEME_HEAT_0 + i] != t->colour[THEME_HEAT_0 + 1])
			return (0);
	}
	return (1);
}

/* Squared distance between two 0xRRGGBB colours. */
static int
theme_dist(int32_t a, int32_t b)
{
	int	 dr = ((a >> 16) & 0xff) - ((b >> 16) & 0xff);
	int	 dg = ((a >> 8) & 0xff) - ((b >> 8) & 0xff);
	int	 db = (a & 0xff) - (b & 0xff);

	return (dr * dr + dg * dg + db * db);
}

/* Index of the nearest cube level to one channel value. */
static int
theme_cube_index(int v)
{
	if (v < 48)
		return (0);
	if (v < 115)
		return (1);
	return ((v - 35) / 40);
}

/*
 * Nearest xterm-256 colour (16..255: the cube and the grey ramp; 0..15 are
 * left out because users redefine them). THEME_DEFAULT stays -1.
 */
int
theme_rgb_to_256(int32_t rgb)
{
	int	 r, g, b, qr, qg, qb, cube, grey, gi, avg;

	if (rgb == THEME_DEFAULT)
		return (-1);
	r = (rgb >> 16) & 0xff;
	g = (rgb >> 8) & 0xff;
	b = rgb & 0xff;
	qr = theme_cube_index(r);
	qg = theme_cube_index(g);
	qb = theme_cube_index(b);
	cube = theme_cube[qr] << 16 | theme_cube[qg] << 8 | theme_cube[qb];
	if (cube == rgb)
		return (16 + 36 * qr + 6 * qg + qb);

	avg = (r + g + b) / 3;
	if (avg > 238)
		gi = 23;
	else
		gi = avg < 8 ? 0 : (avg - 3) / 10;
	grey = 8 + 10 * gi;
	grey = grey << 16 | grey << 8 | grey;

	if (theme_dist(grey, rgb) < theme_dist(cube, rgb))
		return (232 + gi);
	return (16 + 36 * qr + 6 * qg + qb);
}

/* Nearest of the first ncolours (8 or 16) ANSI colours; THEME_DEFAULT stays -1. */
int
theme_rgb_to_ansi(int32_t rgb, int ncolours)
{
	int	 i, best = 0, d, bestd = -1;

	if (rgb == THEME_DEFAULT)
		return (-1);
	if (ncolours > 16)
		ncolours = 16;
	if (ncolours < 1)
		ncolours = 8;
	for (i = 0; i < ncolours; i++) {
		d = theme_dist(theme_ansi[i], rgb);
		if (bestd == -1 || d < bestd) {
			bestd = d;
			best = i;
		}
	}
	return (best);
}

/* Where themes live: $BLKTOP_THEMEDIR (a build tree) or the installed ones. */
const char *
theme_dir(void)
{
	const char	*d = getenv("BLKTOP_THEMEDIR");

	return (d != NULL && *d != '\0' ? d : THEME_DIR);
}

/* Load the theme -t names, by name from theme_dir() or by path; *errp says why not. */
int
theme_option(struct theme *t, const char *name_or_path, char **errp)
{
	if (strlen(name_or_path) >= THEME_ARG_MAX) {
		xasprintf(errp, "theme name too long");
		return (-1);
	}
	return (theme_load(t, name_or_path, theme_dir(), errp));
}
