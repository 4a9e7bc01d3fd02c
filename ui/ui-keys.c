/* ui-keys.c: the one table of key bindings, from which the help screen is generated. */

#include <curses.h>
#include <string.h>

#include "blktop.h"

#define UI_KEY_ESC	0x1b
#define UI_KEY_TAB	'\t'

/* Every binding; a NULL help puts the key on the line of the binding above. */
const struct ui_key ui_keys[] = {
	{ 'q',		UI_QUIT,	"quit" },
	{ '?',		UI_HELP,	"this help (any key closes it)" },
	{ 'h',		UI_HELP,	NULL },
	{ KEY_F(1),	UI_HELP,	NULL },
	{ UI_KEY_TAB,	UI_NEXT_PANE,	"next pane" },
	{ '1',		UI_PANE_DEV,	"devices pane" },
	{ '2',		UI_PANE_PROC,	"processes pane" },
	{ '3',		UI_PANE_FILE,	"files pane" },
	{ KEY_UP,	UI_UP,		"select the row above" },
	{ 'k',		UI_UP,		NULL },
	{ KEY_DOWN,	UI_DOWN,	"select the row below" },
	{ 'j',		UI_DOWN,	NULL },
	{ KEY_PPAGE,	UI_PAGE_UP,	"page up" },
	{ KEY_NPAGE,	UI_PAGE_DOWN,	"page down" },
	{ KEY_HOME,	UI_HOME,	"first row" },
	{ KEY_END,	UI_END,		"last row" },
	{ '\n',		UI_ENTER,	"drill down: device fills the pane, process details" },
	{ KEY_ENTER,	UI_ENTER,	NULL },
	{ UI_KEY_ESC,	UI_BACK,	"back from a drill-down, clear the filter" },
	{ KEY_BACKSPACE, UI_BACK,	NULL },
	{ '<',		UI_SORT_LEFT,	"sort by the column to the left" },
	{ KEY_LEFT,	UI_SORT_LEFT,	NULL },
	{ '>',		UI_SORT_RIGHT,	"sort by the column to the right" },
	{ KEY_RIGHT,	UI_SORT_RIGHT,	NULL },
	{ 'I',		UI_SORT_INVERT,	"invert the sort order" },
	{ 'c',		UI_GROUP,	"processes: group by cgroup, or back to one row per process" },
	{ ' ',		UI_PAUSE,	"pause the display (collection goes on)" },
	{ '+',		UI_ZOOM_OUT,	"more time per heatmap column (up to 60 s)" },
	{ '-',		UI_ZOOM_IN,	"less time per heatmap column (down to 1 s)" },
	{ 'o',		UI_OPS,		"heatmap of reads, writes or both" },
	{ 't',		UI_THEME,	"next theme" },
	{ 'L' & 0x1f,	UI_REDRAW,	"repaint the whole screen" },
	{ '/',		UI_FILTER,	"filter by device, process name or path" },
	{ 'r',		UI_RECORD,	"record events to a file" },
	{ '.',		UI_STEP,	"replay: one tick forward (pauses)" },
	{ '[',		UI_SEEK_BACK,	"replay: 10 s back" },
	{ ']',		UI_SEEK_FWD,	"replay: 10 s forward" },
	{ 'g',		UI_SEEK_START,	"replay: to the start" },
	{ 'G',		UI_SEEK_END,	"replay: to the end" },
	{ 's',		UI_SLOWER,	"replay: half the speed (down to 0.25x)" },
	{ 'S',		UI_FASTER,	"replay: twice the speed (up to 64x, then as fast as possible)" },
};
const unsigned ui_nkeys = nitems(ui_keys);

/* The action bound to a key, or -1. */
int
ui_keys_lookup(int key)
{
	unsigned	 i;

	if (key == '\r')
		key = '\n';
	for (i = 0; i < ui_nkeys; i++) {
		if (ui_keys[i].key == key)
			return ((int)ui_keys[i].action);
	}
	return (-1);
}

/* A key's name as the help screen shows it. */
const char *
ui_keys_name(int key, char *buf, size_t len)
{
	static const struct {
		int		 key;
		const char	*name;
	} names[] = {
		{ UI_KEY_TAB, "Tab" }, { '\n', "Enter" }, { KEY_ENTER, "KP-Enter" },
		{ UI_KEY_ESC, "Esc" }, { ' ', "Space" }, { KEY_UP, "Up" },
		{ KEY_DOWN, "Down" }, { KEY_LEFT, "Left" }, { KEY_RIGHT, "Right" },
		{ KEY_PPAGE, "PgUp" }, { KEY_NPAGE, "PgDn" }, { KEY_HOME, "Home" },
		{ KEY_END, "End" }, { KEY_BACKSPACE, "BkSp" },
	};
	unsigned	 i;

	for (i = 0; i < nitems(names); i++) {
		if (names[i].key == key) {
			snprintf(buf, len, "%s", names[i].name);
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

/*
 * Write the help text into lines, one per action: the keys joined by commas,
 * then the help. Returns the number of lines (at most max).
 */
unsigned
ui_keys_help(char lines[][96], unsigned max)
{
	char		 keys[48], name[16];
	unsigned	 i, j, n = 0;

	for (i = 0; i < ui_nkeys && n < max; i++) {
		if (ui_keys[i].help == NULL)
			continue;
		keys[0] = '\0';
		for (j = i; j < ui_nkeys; j++) {
			if (j > i && ui_keys[j].help != NULL)
				break;
			if (j > i)
				strncat(keys, " ", sizeof keys - strlen(keys) - 1);
			strncat(keys, ui_keys_name(ui_keys[j].key, name,
			    sizeof name), sizeof keys - strlen(keys) - 1);
		}
		snprintf(lines[n++], 96, "%-16s %s", keys, ui_keys[i].help);
	}
	return (n);
}
