/* test-theme.c: theme parsing, the shipped themes, gradients and colour degradation. */

#include <sys/stat.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blktop.h"
#include "draw.h"
#include "check.h"

/* The themes/ directory of the source tree, wherever the test runs from. */
static const char *
test_themes_dir(void)
{
	static char	 dir[4096];
	const char	*env[] = { "BLKTOP_SRCDIR", "top_srcdir", "srcdir",
			    "abs_top_srcdir" };
	const char	*rel[] = { "themes", "../themes", "../../themes",
			    "../../../themes" };
	const char	*e;
	char		 f[4200];
	struct stat	 sb;
	unsigned	 i, j;

	if ((e = getenv("BLKTOP_THEMES")) != NULL)
		return (e);
	for (i = 0; i < nitems(env); i++) {
		if ((e = getenv(env[i])) == NULL)
			continue;
		for (j = 0; j < nitems(rel); j++) {
			snprintf(dir, sizeof dir, "%s/%s", e, rel[j]);
			snprintf(f, sizeof f, "%s/default.theme", dir);
			if (stat(f, &sb) == 0)
				return (dir);
		}
	}
	for (j = 0; j < nitems(rel); j++) {
		snprintf(f, sizeof f, "%s/default.theme", rel[j]);
		if (stat(f, &sb) == 0)
			return (rel[j]);
	}
	return (NULL);
}

/* Parse a string as a theme; returns the result and keeps the message in *errp. */
static int
test_parse(struct theme *t, const char *text, char **errp)
{
	*errp = NULL;
	return (theme_parse(t, "x.theme", text, strlen(text), errp));
}

/* Check an error message and free it. */
static int
test_cause(char *errp, const char *want)
{
	int	 ok;

	if (errp == NULL)
		return (0);
	ok = strcmp(errp, want) == 0;
	if (!ok)
		printf("# got  [%s]\n# want [%s]\n", errp, want);
	free(errp);
	return (ok);
}

/* Colour values and their formats. */
static void
test_colours(void)
{
	int32_t	 v;

	CHECK("colour: #RRGGBB", theme_parse_colour("#5FafD7", &v) == 0 &&
	    v == 0x5fafd7);
	CHECK("colour: empty is default", theme_parse_colour("", &v) == 0 &&
	    v == THEME_DEFAULT);
	CHECK("colour: #GG is grey", theme_parse_colour("#40", &v) == 0 &&
	    v == 0x404040);
	CHECK("colour: decimal R G B", theme_parse_colour("255 0 128", &v) == 0
	    && v == 0xff0080);
	CHECK("colour: bad hex", theme_parse_colour("#12345g", &v) == -1);
	CHECK("colour: short hex", theme_parse_colour("#12345", &v) == -1);
	CHECK("colour: decimal over 255", theme_parse_colour("256 0 0", &v) == -1);
	CHECK("colour: two numbers", theme_parse_colour("1 2", &v) == -1);
	CHECK("colour: double space", theme_parse_colour("1  2 3", &v) == -1);
	CHECK("colour: names are not colours", theme_parse_colour("red", &v) == -1);
	CHECK("colour: trailing junk", theme_parse_colour("1 2 3x", &v) == -1);
	CHECK("colour: negative", theme_parse_colour("-1 2 3", &v) == -1);

	CHECK("name: plain key", strcmp(theme_colour_name(THEME_LOST),
	    "lost") == 0);
	CHECK("name: heat level", strcmp(theme_colour_name(THEME_HEAT_0 + 3),
	    "heat_3") == 0);
	CHECK("name: iops level", strcmp(theme_colour_name(THEME_IOPS_0 + 9),
	    "iops_9") == 0);
}

/* Gradient interpolation, with and without a mid stop. */
static void
test_gradient(void)
{
	static const int32_t	 grey[9] = { 0x000000, 0x202020, 0x404040,
				     0x606060, 0x808080, 0x9f9f9f, 0xbfbfbf,
				     0xdfdfdf, 0xffffff };
	int32_t			 g[9];

	theme_gradient(0x000000, THEME_DEFAULT, 0xffffff, 9, g);
	CHECK("gradient: black to white", memcmp(g, grey, sizeof g) == 0);
	theme_gradient(0xff0000, 0x00ff00, 0x0000ff, 9, g);
	CHECK("gradient: through mid", g[0] == 0xff0000 && g[2] == 0x808000 &&
	    g[4] == 0x00ff00 && g[6] == 0x008080 && g[8] == 0x0000ff);
	theme_gradient(THEME_DEFAULT, THEME_DEFAULT, 0xffffff, 9, g);
	CHECK("gradient: default start gives defaults", g[0] == THEME_DEFAULT &&
	    g[8] == THEME_DEFAULT);
	theme_gradient(0x102030, THEME_DEFAULT, 0xffffff, 1, g);
	CHECK("gradient: one level is start", g[0] == 0x102030);
}

/* Nearest xterm-256 and ANSI colours for known values. */
static void
test_degrade(void)
{
	CHECK("256: black", theme_rgb_to_256(0x000000) == 16);
	CHECK("256: white", theme_rgb_to_256(0xffffff) == 231);
	CHECK("256: red", theme_rgb_to_256(0xff0000) == 196);
	CHECK("256: exact cube 5f87af", theme_rgb_to_256(0x5f87af) == 67);
	CHECK("256: grey 808080", theme_rgb_to_256(0x808080) == 244);
	CHECK("256: grey 080808", theme_rgb_to_256(0x080808) == 232);
	CHECK("256: grey eeeeee", theme_rgb_to_256(0xeeeeee) == 255);
	CHECK("256: near cube 123456", theme_rgb_to_256(0x123456) == 23);
	CHECK("256: near cube ffe66d", theme_rgb_to_256(0xffe66d) == 221);
	CHECK("256: default stays default",
	    theme_rgb_to_256(THEME_DEFAULT) == -1);

	CHECK("16: black", theme_rgb_to_ansi(0x000000, 16) == 0);
	CHECK("16: bright red", theme_rgb_to_ansi(0xff0000, 16) == 9);
	CHECK("16: dark red", theme_rgb_to_ansi(0xcd0000, 16) == 1);
	CHECK("16: white", theme_rgb_to_ansi(0xffffff, 16) == 15);
	CHECK("16: grey", theme_rgb_to_ansi(0x808080, 16) == 8);
	CHECK("16: blue", theme_rgb_to_ansi(0x0000ff, 16) == 4);
	CHECK("16: orange to dark yellow", theme_rgb_to_ansi(0xffaf5f, 16) == 3);
	CHECK("8: bright red", theme_rgb_to_ansi(0xff0000, 8) == 1);
	CHECK("8: white", theme_rgb_to_ansi(0xffffff, 8) == 7);
	CHECK("16: default stays default",
	    theme_rgb_to_ansi(THEME_DEFAULT, 16) == -1);
}

/* The built-in default theme. */
static void
test_default(void)
{
	struct theme	 t;

	theme_default(&t);
	CHECK("default: name", strcmp(t.name, "default") == 0);
	CHECK("default: main_fg", t.colour[THEME_MAIN_FG] == 0xcccccc);
	CHECK("default: main_bg is the terminal's",
	    t.colour[THEME_MAIN_BG] == THEME_DEFAULT);
	CHECK("default: heat level 0 is the background",
	    t.colour[THEME_HEAT_0] == THEME_DEFAULT);
	CHECK("default: heat start, mid, end",
	    t.colour[THEME_HEAT_0 + 1] == 0x233b7a &&
	    t.colour[THEME_HEAT_0 + 5] == 0xd1495b &&
	    t.colour[THEME_HEAT_0 + 9] == 0xffe66d);
	CHECK("default: qd has no mid", t.colour[THEME_QD_0 + 1] == 0x005f87 &&
	    t.colour[THEME_QD_0 + 5] == 0x309bc3 &&
	    t.colour[THEME_QD_0 + 9] == 0x5fd7ff);
	CHECK("default: not mono", !theme_is_mono(&t));
}

/* Theme text: good, partial, foreign and broken. */
static void
test_parse_text(void)
{
	struct theme	 t, d;
	char		*errp;
	char		 big[THEME_LINE_MAX + 64];

	theme_default(&d);

	CHECK("parse: good", test_parse(&t,
	    "# a comment\n"
	    "\n"
	    "  theme[main_fg]=\"#102030\"   # trailing comment\r\n"
	    "theme[lost] = \"#ff0000\"\n"
	    "theme[heat_start]=\"#000000\"\n"
	    "theme[heat_end]=\"#ffffff\"\n"
	    "theme[selected_bg]=\"\"", &errp) == 0);
	CHECK("parse: value set", t.colour[THEME_MAIN_FG] == 0x102030 &&
	    t.colour[THEME_LOST] == 0xff0000);
	CHECK("parse: empty value is default",
	    t.colour[THEME_SELECTED_BG] == THEME_DEFAULT);
	CHECK("parse: missing key takes the default",
	    t.colour[THEME_READ] == d.colour[THEME_READ] &&
	    t.colour[THEME_DIV_LINE] == d.colour[THEME_DIV_LINE]);
	CHECK("parse: start and end without mid go straight",
	    t.colour[THEME_HEAT_0 + 1] == 0x000000 &&
	    t.colour[THEME_HEAT_0 + 5] == 0x808080 &&
	    t.colour[THEME_HEAT_0 + 9] == 0xffffff);
	CHECK("parse: untouched gradient is the default's",
	    memcmp(&t.colour[THEME_QD_0], &d.colour[THEME_QD_0],
	    THEME_LEVELS * sizeof (int32_t)) == 0);

	CHECK("parse: empty file is the default theme",
	    test_parse(&t, "", &errp) == 0 &&
	    memcmp(t.colour, d.colour, sizeof t.colour) == 0);

	CHECK("parse: btop theme with unknown keys", test_parse(&t,
	    "theme[main_bg]=\"#00\"\n"
	    "theme[cpu_box]=\"#556d59\"\n"
	    "theme[cpu_start]=\"#77ca9b\"\n"
	    "theme[title]=\"#ee\"\n", &errp) == 0 &&
	    t.colour[THEME_MAIN_BG] == 0 && t.colour[THEME_TITLE] == 0xeeeeee &&
	    t.colour[THEME_HEAT_0] == 0);

	theme_default(&t);
	t.colour[THEME_MAIN_FG] = 0x123456;
	CHECK("parse: missing quotes fails", test_parse(&t,
	    "# ok\ntheme[main_fg]=\"#ffffff\"\ntheme[title]=#ffffff\n",
	    &errp) == -1 && test_cause(errp,
	    "x.theme:3: expected theme[key]=\"#RRGGBB\": theme[title]=#ffffff"));
	CHECK("parse: failure leaves the theme alone",
	    t.colour[THEME_MAIN_FG] == 0x123456);
	CHECK("parse: bad colour names line and key", test_parse(&t,
	    "theme[main_fg]=\"#fff\"\ntheme[read]=\"#12345g\"\n", &errp) == -1
	    && test_cause(errp,
	    "x.theme:1: bad colour \"#fff\" for main_fg (want \"#RRGGBB\")"));
	CHECK("parse: garbage line", test_parse(&t,
	    "\n\nhello world\n", &errp) == -1 && test_cause(errp,
	    "x.theme:3: expected theme[key]=\"#RRGGBB\": hello world"));
	CHECK("parse: junk after value", test_parse(&t,
	    "theme[read]=\"#ffffff\" x\n", &errp) == -1 && test_cause(errp,
	    "x.theme:1: expected theme[key]=\"#RRGGBB\": theme[read]=\"#ffffff\" x"));
	CHECK("parse: unterminated quote", test_parse(&t,
	    "theme[read]=\"#ffffff\n", &errp) == -1 && test_cause(errp,
	    "x.theme:1: expected theme[key]=\"#RRGGBB\": theme[read]=\"#ffffff"));
	CHECK("parse: empty key", test_parse(&t, "theme[]=\"\"\n", &errp) == -1
	    && test_cause(errp,
	    "x.theme:1: expected theme[key]=\"#RRGGBB\": theme[]=\"\""));
	CHECK("parse: escape sequences are not echoed", test_parse(&t,
	    "theme[read]=\"\x1b[2J\"\n", &errp) == -1 && test_cause(errp,
	    "x.theme:1: bad colour \"?[2J\" for read (want \"#RRGGBB\")"));

	memset(big, 'a', sizeof big);
	memcpy(big, "# x\n#", 5);
	big[sizeof big - 1] = '\0';
	CHECK("parse: long line", test_parse(&t, big, &errp) == -1 &&
	    test_cause(errp, "x.theme:2: line too long (over 512 bytes)"));
	CHECK("parse: NUL byte", theme_parse(&t, "x.theme",
	    "theme[read]=\"\"\n#\0x\n", 18, &errp) == -1 && test_cause(errp,
	    "x.theme:2: NUL byte in theme file"));
	CHECK("parse: too large", theme_parse(&t, "x.theme", big,
	    THEME_FILE_MAX + 1, &errp) == -1 && test_cause(errp,
	    "x.theme: theme file too large (over 65536 bytes)"));
}

/* Write a temporary file with the given bytes; returns its path (static). */
static const char *
test_tmpfile(const char *text, size_t len)
{
	static char	 path[64];
	int		 fd;

	snprintf(path, sizeof path, "/tmp/test-theme.XXXXXX");
	if ((fd = mkstemp(path)) == -1)
		return (NULL);
	if (write(fd, text, len) != (ssize_t)len) {
		close(fd);
		return (NULL);
	}
	close(fd);
	return (path);
}

/* The shipped theme files and loading from disk. */
static void
test_load(void)
{
	static const char	*names[] = { "default", "light", "viridis",
				     "mono" };
	struct theme		 t, d;
	const char		*dir = test_themes_dir(), *path;
	char			*errp = NULL, *big, want[4400];
	unsigned		 i;
	int			 r;

	theme_default(&d);
	CHECK("load: themes directory found", dir != NULL);
	if (dir == NULL)
		return;
	for (i = 0; i < nitems(names); i++) {
		r = theme_load(&t, names[i], dir, &errp);
		snprintf(want, sizeof want, "load: %s.theme", names[i]);
		CHECK(want, r == 0 && strcmp(t.name, names[i]) == 0);
		if (r != 0) {
			printf("# %s\n", errp);
			free(errp);
		}
	}
	CHECK("load: default.theme is the built-in default",
	    theme_load(&t, "default.theme", dir, &errp) == 0 &&
	    memcmp(t.colour, d.colour, sizeof t.colour) == 0);
	CHECK("load: mono is mono", theme_load(&t, "mono", dir, &errp) == 0 &&
	    theme_is_mono(&t) && t.colour[THEME_SELECTED_BG] == THEME_DEFAULT);
	CHECK("load: light is not mono", theme_load(&t, "light", dir,
	    &errp) == 0 && !theme_is_mono(&t) &&
	    t.colour[THEME_MAIN_BG] == 0xffffff);
	CHECK("load: viridis gradient", theme_load(&t, "viridis", dir,
	    &errp) == 0 && t.colour[THEME_HEAT_0 + 1] == 0x440154 &&
	    t.colour[THEME_HEAT_0 + 5] == 0x21918c &&
	    t.colour[THEME_HEAT_0 + 9] == 0xfde725);

	snprintf(want, sizeof want, "%s/nosuch.theme: No such file or directory",
	    dir);
	CHECK("load: missing theme", theme_load(&t, "nosuch", dir,
	    &errp) == -1 && test_cause(errp, want));
	CHECK("load: bad name", theme_load(&t, ".hidden", dir, &errp) == -1 &&
	    test_cause(errp, "bad theme name: .hidden"));
	CHECK("load: name with escape", theme_load(&t, "a\x1b" "b", dir,
	    &errp) == -1 && test_cause(errp, "bad theme name: a?b"));
	CHECK("load: directory refused", theme_load(&t, "/tmp/", dir,
	    &errp) == -1 && test_cause(errp, "/tmp/: not a regular file"));
	CHECK("load: device refused", theme_load(&t, "/dev/zero", dir,
	    &errp) == -1 && test_cause(errp, "/dev/zero: not a regular file"));

	path = test_tmpfile("theme[write]=\"#010203\"\n", 23);
	CHECK("load: by path", path != NULL && theme_load(&t, path, NULL,
	    &errp) == 0 && t.colour[THEME_WRITE] == 0x010203 &&
	    strncmp(t.name, "test-theme.", 11) == 0);
	if (path != NULL)
		unlink(path);

	path = test_tmpfile("theme[write]=\"#010203\"\ntheme[read]=\"#01\"x\n",
	    strlen("theme[write]=\"#010203\"\ntheme[read]=\"#01\"x\n"));
	if (path != NULL) {
		snprintf(want, sizeof want, "%s:2: expected theme[key]="
		    "\"#RRGGBB\": theme[read]=\"#01\"x", path);
		CHECK("load: broken file names file:line", theme_load(&t, path,
		    NULL, &errp) == -1 && test_cause(errp, want));
		unlink(path);
	}

	big = calloc(1, THEME_FILE_MAX + 2);
	memset(big, '#', THEME_FILE_MAX + 1);
	path = big != NULL ? test_tmpfile(big, THEME_FILE_MAX + 1) : NULL;
	if (path != NULL) {
		snprintf(want, sizeof want, "%s: theme file too large "
		    "(over 65536 bytes)", path);
		CHECK("load: large file refused", theme_load(&t, path, NULL,
		    &errp) == -1 && test_cause(errp, want));
		unlink(path);
	}
	free(big);
}

int
main(void)
{
	test_colours();
	test_gradient();
	test_degrade();
	test_default();
	test_parse_text();
	test_load();
	CHECK_EXIT();
}
