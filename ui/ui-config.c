/* ui-config.c: the view's settings in the config file: taken before the view starts, written by W. */

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "blktop.h"
#include "config-file.h"
#include "ui.h"

#define UI_CONFIG_TEXT_MAX	8192
#define UI_CONFIG_KEYS_MAX	16	/* keys in one key.NAME line */

/* heatmap.ops values, by the opmask they stand for. */
static const struct {
	const char	*name;
	unsigned	 opmask;
} ui_config_ops[] = {
	{ "all", 0 }, { "reads", 1u << OPC_READ }, { "writes", 1u << OPC_WRITE },
};

/* devices.view values, by ui_pane_dev_view's number. */
static const char *const ui_config_views[] = { "auto", "lines", "heatmaps" };

/*
 * The table pane whose settings "NAME.what" are: its defaults (their columns
 * check a value), or NULL; its table in u into *tab (NULL if u is).
 */
static const struct ui_tab *
ui_config_tab(struct ui_state *u, const char *key, size_t len,
    struct ui_tab **tab)
{
	unsigned	 i;

	for (i = 0; i < nitems(ui_panes); i++) {
		if (ui_panes[i]->tab != NULL && strlen(ui_panes[i]->name) == len &&
		    strncasecmp(ui_panes[i]->name, key, len) == 0) {
			*tab = u != NULL ? ui_panes[i]->tab(&u->panes[i]) : NULL;
			return (ui_panes[i]->tab_default());
		}
	}
	return (NULL);
}

/* A table's column by its header name, or -1. */
static int
ui_config_col(const struct ui_tab *t, const char *name, size_t len)
{
	int	 c;

	for (c = 0; c < t->ncols; c++) {
		if (strlen(t->cols[c].name) == len &&
		    strncasecmp(t->cols[c].name, name, len) == 0)
			return (c);
	}
	return (-1);
}

/*
 * Split value into words (apart by any of seps): fn(arg, word, len) for
 * each, stopping at the first that returns -1. The number of words, or -1.
 */
static int
ui_config_words(const char *value, const char *seps,
    int (*fn)(void *, const char *, size_t), void *arg)
{
	const char	*p = value, *w;
	int		 n = 0;

	for (;;) {
		while (*p != '\0' && strchr(seps, *p) != NULL)
			p++;
		if (*p == '\0')
			return (n);
		for (w = p; *p != '\0' && strchr(seps, *p) == NULL; p++)
			;
		if (fn(arg, w, (size_t)(p - w)) != 0)
			return (-1);
		n++;
	}
}

/* What ui_config_words' callbacks fill: shown columns, or keys. */
struct ui_config_list {
	const struct ui_tab *tab;
	uint32_t	 shown;
	int		 keys[UI_CONFIG_KEYS_MAX];
	unsigned	 nkeys;
	char		 bad[48];	/* the word refused */
};

/* A word of a columns list: a column shown. */
static int
ui_config_col_word(void *arg, const char *w, size_t len)
{
	struct ui_config_list	*l = arg;
	int			 c;

	if ((c = ui_config_col(l->tab, w, len)) < 0 || c >= 32) {
		snprintf(l->bad, sizeof l->bad, "%.*s", (int)len, w);
		return (-1);
	}
	l->shown |= 1u << c;
	return (0);
}

/* A word of a key list: a key. */
static int
ui_config_key_word(void *arg, const char *w, size_t len)
{
	struct ui_config_list	*l = arg;
	char			 name[16];
	unsigned		 i;
	int			 key;

	snprintf(l->bad, sizeof l->bad, "%.*s", (int)len, w);
	if (len >= sizeof name || l->nkeys == UI_CONFIG_KEYS_MAX)
		return (-1);
	memcpy(name, w, len);
	name[len] = '\0';
	if ((key = ui_keys_parse(name)) < 0)
		return (-1);
	for (i = 0; i < l->nkeys && l->keys[i] != key; i++)
		;
	if (i == l->nkeys)
		l->keys[l->nkeys++] = key;
	return (0);
}

/* The columns a table shows: "all", or their names (into tab unless NULL). */
static int
ui_config_columns(const struct ui_tab *t, struct ui_tab *tab, const char *value,
    char **errp)
{
	struct ui_config_list	 l = { .tab = t };
	uint32_t		 all = t->ncols >= 32 ? UINT32_MAX : (1u << t->ncols) - 1;
	int			 n;

	if (strcasecmp(value, "all") == 0) {
		l.shown = all;
	} else if ((n = ui_config_words(value, " \t,", ui_config_col_word, &l)) < 0) {
		xasprintf(errp, "no column '%s' (a name from the table's header, or all)",
		    l.bad);
		return (-1);
	}
	if (tab != NULL)
		tab->hidden = all & ~l.shown;
	return (1);
}

/* A key.NAME line: the keys of an action, bound in u's table (u NULL: checked only). */
static int
ui_config_keys(struct ui_state *u, const char *name, const char *value,
    char **errp)
{
	struct ui_config_list	 l = { .nkeys = 0 };
	int			 a;

	if ((a = ui_keys_action(name)) < 0) {
		xasprintf(errp, "no action '%s' (blktop(8), KEYS, names them)", name);
		return (-1);
	}
	if (ui_config_words(value, " \t", ui_config_key_word, &l) <= 0) {
		xasprintf(errp, "'%s' is not a key (a character, ^X, F1-F12, Tab, "
		    "Enter, Esc, Space, Up, Down, Left, Right, PgUp, PgDn, Home, "
		    "End, BkSp; at most %d)", l.bad, UI_CONFIG_KEYS_MAX);
		return (-1);
	}
	if (u != NULL &&
	    ui_keys_bind(&u->keys, (enum ui_action)a, l.keys, l.nkeys) != 0) {
		xasprintf(errp, "too many key bindings");
		return (-1);
	}
	return (1);
}

/*
 * sink_ui's config callback: the view's keys of the config file (blktop(8),
 * CONFIG FILE), taken into the UI's state data unless it is NULL. A -t on the
 * command line wins over the theme.
 */
int
ui_config(__unused struct blktop *b, void *data, const char *key, const char *value,
    char **errp)
{
	struct ui_state	*u = data;
	int		 apply = u != NULL;
	struct theme	 t;
	const struct ui_tab *def;
	struct ui_tab	*tab;
	const char	*dot = strchr(key, '.');
	char		*end;
	unsigned	 i;
	long		 v;

	if (strcasecmp(key, "theme") == 0) {
		if (theme_option(&t, value, errp) != 0)
			return (-1);
		if (apply && u->opts.theme == NULL)
			u->opts.theme = value;
		return (1);
	}
	if (strcasecmp(key, "pane") == 0) {
		for (i = 0; i < nitems(ui_panes); i++) {
			if (strcasecmp(ui_panes[i]->name, value) == 0)
				break;
		}
		if (i == nitems(ui_panes)) {
			xasprintf(errp, "no pane '%s' (devices, processes or files)", value);
			return (-1);
		}
		if (apply)
			u->pane = i;
		return (1);
	}
	if (strcasecmp(key, "heatmap.column_seconds") == 0) {
		errno = 0;
		v = strtol(value, &end, 10);
		if (errno != 0 || *end != '\0' || v < 1 || v > 60 ||
		    ui_layout_zoom((unsigned)v, 0) != (unsigned)v) {
			xasprintf(errp, "'%s' is not 1, 2, 5, 10, 15, 30 or 60", value);
			return (-1);
		}
		if (apply)
			u->view.col_secs = (unsigned)v;
		return (1);
	}
	if (strcasecmp(key, "devices.view") == 0) {
		for (i = 0; i < nitems(ui_config_views); i++) {
			if (strcasecmp(ui_config_views[i], value) == 0)
				break;
		}
		if (i == nitems(ui_config_views)) {
			xasprintf(errp, "'%s' is not auto, lines or heatmaps", value);
			return (-1);
		}
		if (apply)
			ui_pane_dev_view(u, (int)i);
		return (1);
	}
	if (strcasecmp(key, "heatmap.ops") == 0) {
		for (i = 0; i < nitems(ui_config_ops); i++) {
			if (strcasecmp(ui_config_ops[i].name, value) == 0)
				break;
		}
		if (i == nitems(ui_config_ops)) {
			xasprintf(errp, "'%s' is not all, reads or writes", value);
			return (-1);
		}
		if (apply)
			u->view.opmask = ui_config_ops[i].opmask;
		return (1);
	}
	if (dot == NULL)
		return (0);
	if (strncasecmp(key, "key.", 4) == 0)
		return (ui_config_keys(u, key + 4, value, errp));
	if ((def = ui_config_tab(u, key, (size_t)(dot - key), &tab)) == NULL)
		return (0);
	if (strcasecmp(dot, ".sort") == 0) {
		if ((i = (unsigned)ui_config_col(def, value, strlen(value))) >= 32) {
			xasprintf(errp, "no column '%s' (a name from the table's header)",
			    value);
			return (-1);
		}
		if (apply)
			tab->sortcol = (int)i;
		return (1);
	}
	if (strcasecmp(dot, ".order") == 0) {
		if (strcasecmp(value, "normal") != 0 && strcasecmp(value, "inverted") != 0) {
			xasprintf(errp, "'%s' is not normal or inverted", value);
			return (-1);
		}
		if (apply)
			tab->invert = strcasecmp(value, "inverted") == 0;
		return (1);
	}
	if (strcasecmp(dot, ".columns") == 0)
		return (ui_config_columns(def, tab, value, errp));
	return (0);
}

/* Append to the text; 0 while it fits. */
static int __printflike(3, 4)
ui_config_put(char *buf, size_t *off, const char *fmt, ...)
{
	va_list	 ap;
	int	 n;

	if (*off >= UI_CONFIG_TEXT_MAX)
		return (-1);
	va_start(ap, fmt);
	n = vsnprintf(buf + *off, UI_CONFIG_TEXT_MAX - *off, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= UI_CONFIG_TEXT_MAX - *off) {
		*off = UI_CONFIG_TEXT_MAX;
		return (-1);
	}
	*off += (size_t)n;
	return (0);
}

/* The settings of the view as they are now, as a config file; -1 if too long. */
int
ui_config_text(struct ui_state *u, char *buf, size_t len)
{
	const struct blktop	*b = u->b;
	const struct capture_opts *cap = u->opts.capture;
	struct ui_tab		*t;
	char			 keys[UI_CONFIG_KEYS_MAX * 12], line[96];
	size_t			 off = 0;
	unsigned		 i;
	int			 c;

	if (len < UI_CONFIG_TEXT_MAX)
		return (-1);
	ui_config_put(buf, &off, "# blktop's settings, written by blktop %s (key W).\n"
	    "# KEY = VALUE; blktop(8), CONFIG FILE, tells them. Options given on the\n"
	    "# command line win; -b, -J and --headless runs do not read this file.\n",
	    PACKAGE_VERSION);
	ui_config_put(buf, &off, "theme = %s\n", u->nthemes > 0 ?
	    u->themes[u->theme_idx] : "default");
	ui_config_put(buf, &off, "interval = %g\n", b->opt.interval);
	ui_config_put(buf, &off, "pane = %s\n", ui_panes[u->pane]->name);
	ui_config_put(buf, &off, "devices.view = %s\n",
	    ui_config_views[ui_pane_dev_view(u, -1) % nitems(ui_config_views)]);
	ui_config_put(buf, &off, "heatmap.column_seconds = %u\n", u->view.col_secs);
	for (i = 0; i < nitems(ui_config_ops) &&
	    ui_config_ops[i].opmask != u->view.opmask; i++)
		;
	ui_config_put(buf, &off, "heatmap.ops = %s\n",
	    i < nitems(ui_config_ops) ? ui_config_ops[i].name : "all");
	for (i = 0; i < nitems(ui_panes); i++) {
		if (ui_panes[i]->tab == NULL)
			continue;
		t = ui_panes[i]->tab(&u->panes[i]);
		ui_config_put(buf, &off, "%s.sort = %s\n%s.order = %s\n%s.columns =",
		    ui_panes[i]->name, t->cols[t->sortcol].name, ui_panes[i]->name,
		    t->invert ? "inverted" : "normal", ui_panes[i]->name);
		if (t->hidden == 0)
			ui_config_put(buf, &off, " all");
		for (c = 0; t->hidden != 0 && c < t->ncols && c < 32; c++) {
			if (!(t->hidden >> c & 1))
				ui_config_put(buf, &off, " %s", t->cols[c].name);
		}
		ui_config_put(buf, &off, "\n");
	}
	if (cap->flight_secs >= 0)
		ui_config_put(buf, &off, "flight = %d\n", cap->flight_secs);
	else
		ui_config_put(buf, &off, "# flight = 30\n");
	/* A value that would not read back as itself is left out (ui_config_save says so). */
	if (cap->record_dir != NULL && config_value_why(cap->record_dir) == NULL)
		ui_config_put(buf, &off, "record_dir = %s\n", cap->record_dir);
	else
		ui_config_put(buf, &off, "# record_dir = .\n");
	ui_config_put(buf, &off, "# The insights' thresholds (doc/insights.md):\n");
	for (i = 0; config_insight_line(b, i, line, sizeof line) != NULL; i++)
		ui_config_put(buf, &off, "%s", line);
	ui_config_put(buf, &off, "# Keys: key.ACTION = KEY..., space apart; a key "
	    "named here leaves any other action.\n");
	for (i = 0; i < ui_nactions; i++) {
		if (ui_keys_of(&u->keys, ui_actions[i].action, keys, sizeof keys) == 0)
			ui_config_put(buf, &off, "# key.%s = (none)\n", ui_actions[i].name);
		else
			ui_config_put(buf, &off, "key.%s = %s\n", ui_actions[i].name, keys);
	}
	return (off < UI_CONFIG_TEXT_MAX ? 0 : -1);
}

/* W: write the settings to the config file, as the user blktop runs as. */
void
ui_config_save(struct ui_state *u)
{
	const struct ui_opts	*o = &u->opts;
	char			*buf, *err;
	const char		*why;

	if (o->config_path[0] == '\0') {
		ui_status(u, "no config file: %s", o->config_note[0] != '\0' ?
		    o->config_note : "--no-config");
		return;
	}
	buf = xmalloc(UI_CONFIG_TEXT_MAX);
	if (ui_config_text(u, buf, UI_CONFIG_TEXT_MAX) != 0)
		ui_status(u, "settings too long for the config file");
	else if (config_write(o->config_path, buf, &err) != 0) {
		ui_status(u, "cannot write the settings: %s", err);
		free(err);
	} else if (o->capture->record_dir != NULL &&
	    (why = config_value_why(o->capture->record_dir)) != NULL)
		ui_status(u, "settings written to %s, but not the record directory: %s",
		    o->config_path, why);
	else
		ui_status(u, "settings written to %s", o->config_path);
	free(buf);
}
