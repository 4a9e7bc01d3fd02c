/* ui-keys.c: the key bindings, their names, and the help screen generated from them and the table of actions. */

#include <curses.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "blktop.h"
#include "ui.h"

#define UI_KEY_ESC	0x1b
#define UI_KEY_TAB	'\t'

/* The bindings of a config file with no key.NAME lines. */
static const struct ui_key ui_keys_default[] = {
	{ 'q', UI_QUIT }, { '?', UI_HELP }, { 'h', UI_HELP }, { KEY_F(1), UI_HELP },
	{ UI_KEY_TAB, UI_NEXT_PANE }, { '1', UI_PANE_DEV }, { '2', UI_PANE_PROC },
	{ '3', UI_PANE_FILE }, { KEY_UP, UI_UP }, { 'k', UI_UP },
	{ KEY_DOWN, UI_DOWN }, { 'j', UI_DOWN }, { KEY_PPAGE, UI_PAGE_UP },
	{ KEY_NPAGE, UI_PAGE_DOWN }, { KEY_HOME, UI_HOME }, { KEY_END, UI_END },
	{ '\n', UI_ENTER }, { KEY_ENTER, UI_ENTER }, { UI_KEY_ESC, UI_BACK },
	{ KEY_BACKSPACE, UI_BACK }, { '<', UI_SORT_LEFT }, { KEY_LEFT, UI_SORT_LEFT },
	{ '>', UI_SORT_RIGHT }, { KEY_RIGHT, UI_SORT_RIGHT }, { 'I', UI_SORT_INVERT },
	{ 'c', UI_GROUP }, { ' ', UI_PAUSE }, { '+', UI_ZOOM_OUT }, { '-', UI_ZOOM_IN },
	{ 'o', UI_OPS }, { 'm', UI_MAP }, { 'v', UI_DEV_VIEW }, { 't', UI_THEME }, { 'L' & 0x1f, UI_REDRAW },
	{ '/', UI_FILTER }, { 'r', UI_RECORD }, { 'W', UI_SAVE }, { '.', UI_STEP },
	{ '[', UI_SEEK_BACK }, { ']', UI_SEEK_FWD }, { 'g', UI_SEEK_START },
	{ 'G', UI_SEEK_END }, { 's', UI_SLOWER }, { 'S', UI_FASTER }, { 'i', UI_INSIGHTS },
	{ 'D', UI_DEPTH },
	{ 'J', UI_GROUP_JOB },
	{ 'L', UI_STACK },
	{ 'N', UI_WEAR },
};

/* A UI's bindings as the defaults, before the config file's key.NAME lines. */
void
ui_keys_init(struct ui_keys *k)
{
	memcpy(k->keys, ui_keys_default, sizeof ui_keys_default);
	k->n = nitems(ui_keys_default);
}

/* The action named so in the config file (key.NAME), or -1. */
int
ui_keys_action(const char *name)
{
	unsigned	 i;

	for (i = 0; i < ui_nactions; i++) {
		if (strcasecmp(ui_actions[i].name, name) == 0)
			return ((int)ui_actions[i].action);
	}
	return (-1);
}

/*
 * Bind keys[0..n) to action a, and only them: its old keys go, and each of
 * these keys leaves the action it was bound to. -1 if the table would be full.
 */
int
ui_keys_bind(struct ui_keys *t, enum ui_action a, const int *keys, unsigned n)
{
	unsigned	 i, j, k, pass;

	for (pass = 0; pass < 2; pass++) {
		for (i = j = 0; i < t->n; i++) {
			for (k = 0; k < n && keys[k] != t->keys[i].key; k++)
				;
			if (t->keys[i].action == a || k < n)
				continue;
			if (pass == 1)
				t->keys[j] = t->keys[i];
			j++;
		}
		if (j + n > UI_KEYS_MAX)	/* the table as it was */
			return (-1);
	}
	t->n = j;
	for (k = 0; k < n; k++) {
		t->keys[t->n].key = keys[k];
		t->keys[t->n++].action = a;
	}
	return (0);
}

/* The action bound to a key, or -1. */
int
ui_keys_lookup(const struct ui_keys *t, int key)
{
	unsigned	 i;

	if (key == '\r')
		key = '\n';
	for (i = 0; i < t->n; i++) {
		if (t->keys[i].key == key)
			return ((int)t->keys[i].action);
	}
	return (-1);
}

/* The names of keys that are not one printable character. */
static const struct {
	int		 key;
	const char	*name;
} ui_key_names[] = {
	{ UI_KEY_TAB, "Tab" }, { '\n', "Enter" }, { KEY_ENTER, "KP-Enter" },
	{ UI_KEY_ESC, "Esc" }, { ' ', "Space" }, { KEY_UP, "Up" },
	{ KEY_DOWN, "Down" }, { KEY_LEFT, "Left" }, { KEY_RIGHT, "Right" },
	{ KEY_PPAGE, "PgUp" }, { KEY_NPAGE, "PgDn" }, { KEY_HOME, "Home" },
	{ KEY_END, "End" }, { KEY_BACKSPACE, "BkSp" },
};

/* A key's name as the help screen shows it. */
const char *
ui_keys_name(int key, char *buf, size_t len)
{
	unsigned	 i;

	for (i = 0; i < nitems(ui_key_names); i++) {
		if (ui_key_names[i].key == key) {
			snprintf(buf, len, "%s", ui_key_names[i].name);
			return (buf);
		}
	}
	if (key >= KEY_F(1) && key <= KEY_F(12))
		snprintf(buf, len, "F%d", key - KEY_F(0));
	else if (key > 0x20 && key < 0x7f)
		snprintf(buf, len, "%c", key);
	else if (key > 0 && key < 0x20)
		snprintf(buf, len, "^%c", key + '@');
	else
		snprintf(buf, len, "#%d", key);
	return (buf);
}

/* A key from its name as ui_keys_name writes it (or a character), or -1. */
int
ui_keys_parse(const char *s)
{
	unsigned	 i;
	long		 v;
	char		*end;

	for (i = 0; i < nitems(ui_key_names); i++) {
		if (strcasecmp(ui_key_names[i].name, s) == 0)
			return (ui_key_names[i].key);
	}
	if (s[0] != '\0' && s[1] == '\0')
		return (s[0] > 0x20 && s[0] < 0x7f ? s[0] : -1);
	if (s[0] == '^' && s[2] == '\0' && s[1] >= '@' && s[1] <= '_')
		return (s[1] - '@');
	if (s[0] == '^' && s[2] == '\0' && s[1] >= 'a' && s[1] <= 'z')
		return (s[1] - 'a' + 1);
	if ((s[0] == 'F' || s[0] == 'f' || s[0] == '#') && s[1] >= '0' && s[1] <= '9') {
		errno = 0;
		v = strtol(s + 1, &end, 10);
		if (errno != 0 || *end != '\0')
			return (-1);
		if (s[0] != '#')
			return (v >= 1 && v <= 12 ? KEY_F(v) : -1);
		return (v > 0 && v <= KEY_MAX ? (int)v : -1);
	}
	return (-1);
}

/*
 * The keys bound to action a, by their names, space apart, into buf; the
 * number of keys.
 */
unsigned
ui_keys_of(const struct ui_keys *t, enum ui_action a, char *buf, size_t len)
{
	char		 name[16];
	unsigned	 i, n = 0;

	buf[0] = '\0';
	for (i = 0; i < t->n; i++) {
		if (t->keys[i].action != a)
			continue;
		if (n++ > 0)
			strncat(buf, " ", len - strlen(buf) - 1);
		strncat(buf, ui_keys_name(t->keys[i].key, name, sizeof name),
		    len - strlen(buf) - 1);
	}
	return (n);
}

/*
 * The status line's reminder of the main keys, as bound now:
 * "q quit  ? help  Tab pane  Enter drill  Space pause  +/- time  / filter".
 */
void
ui_keys_hints(const struct ui_keys *t, char *buf, size_t len)
{
	static const struct {
		enum ui_action	 action, with;	/* with: a second key, after a '/' */
		const char	*what;
	} hints[] = {
		{ UI_QUIT, UI_ACTION_MAX, "quit" }, { UI_HELP, UI_ACTION_MAX, "help" },
		{ UI_NEXT_PANE, UI_ACTION_MAX, "pane" }, { UI_ENTER, UI_ACTION_MAX, "drill" },
		{ UI_PAUSE, UI_ACTION_MAX, "pause" }, { UI_ZOOM_OUT, UI_ZOOM_IN, "time" },
		{ UI_FILTER, UI_ACTION_MAX, "filter" },
	};
	char		 a[16], b[16];
	unsigned	 i, j;
	size_t		 off = 0;

	buf[0] = '\0';
	for (i = 0; i < nitems(hints) && off < len; i++) {
		a[0] = b[0] = '\0';
		for (j = t->n; j-- > 0;) {	/* the first of its keys */
			if (t->keys[j].action == hints[i].action)
				ui_keys_name(t->keys[j].key, a, sizeof a);
			if (t->keys[j].action == hints[i].with)
				ui_keys_name(t->keys[j].key, b, sizeof b);
		}
		if (a[0] == '\0')
			continue;
		off += (size_t)snprintf(buf + off, len - off, "%s%s%s%s %s",
		    off > 0 ? "  " : "", a, b[0] != '\0' ? "/" : "", b, hints[i].what);
	}
}

/*
 * Write the help text into lines, one per action with a key: its keys, then
 * its help. Returns the number of lines (at most max).
 */
unsigned
ui_keys_help(const struct ui_keys *t, char lines[][96], unsigned max)
{
	char		 keys[48];
	unsigned	 i, n = 0;

	for (i = 0; i < ui_nactions && n < max; i++) {
		if (ui_keys_of(t, ui_actions[i].action, keys, sizeof keys) == 0)
			continue;
		snprintf(lines[n++], 96, "%-16s %s", keys, ui_actions[i].help);
	}
	return (n);
}
