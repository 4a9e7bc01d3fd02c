/* test-ui.c: the key table, the generated help and the pure layout functions of the UI. */

#include <curses.h>
#include <string.h>

#include "blktop.h"
#include "../../ui/ui.h"
#include "check.h"

/* The bindings under test: a UI's table, the defaults first (test_keys), then rebound. */
static struct ui_keys kt;

/* Every action has a key and a help line; no key is bound twice; the help lists every key. */
static void
test_keys(void)
{
	char		 lines[64][96], name[16];
	unsigned	 i, j, n, found, a;
	int		 dup = 0, bound[UI_ACTION_MAX] = { 0 }, helped[UI_ACTION_MAX] = { 0 };

	for (i = 0; i < kt.n; i++) {
		bound[kt.keys[i].action] = 1;
		for (j = 0; j < i; j++)
			dup |= kt.keys[i].key == kt.keys[j].key;
	}
	for (i = 0; i < ui_nactions; i++)
		helped[ui_actions[i].action]++;
	CHECK("keys: no key bound twice", !dup);
	for (a = 0; a < UI_ACTION_MAX; a++) {
		if (!bound[a] || helped[a] != 1) {
			printf("action %u: bound %d, help lines %d\n", a,
			    bound[a], helped[a]);
			break;
		}
	}
	CHECK("keys: every action bound, with exactly one help text",
	    a == UI_ACTION_MAX);

	CHECK("lookup q", ui_keys_lookup(&kt, 'q') == UI_QUIT);
	CHECK("lookup ? h F1", ui_keys_lookup(&kt, '?') == UI_HELP &&
	    ui_keys_lookup(&kt, 'h') == UI_HELP && ui_keys_lookup(&kt, KEY_F(1)) == UI_HELP);
	CHECK("lookup Tab 1 2 3", ui_keys_lookup(&kt, '\t') == UI_NEXT_PANE &&
	    ui_keys_lookup(&kt, '1') == UI_PANE_DEV && ui_keys_lookup(&kt, '2') ==
	    UI_PANE_PROC && ui_keys_lookup(&kt, '3') == UI_PANE_FILE);
	CHECK("lookup arrows and j/k", ui_keys_lookup(&kt, KEY_UP) == UI_UP &&
	    ui_keys_lookup(&kt, 'k') == UI_UP && ui_keys_lookup(&kt, KEY_DOWN) == UI_DOWN &&
	    ui_keys_lookup(&kt, 'j') == UI_DOWN);
	CHECK("lookup Enter and CR", ui_keys_lookup(&kt, '\n') == UI_ENTER &&
	    ui_keys_lookup(&kt, '\r') == UI_ENTER);
	CHECK("lookup Esc < > I Space + - t / r",
	    ui_keys_lookup(&kt, 0x1b) == UI_BACK && ui_keys_lookup(&kt, '<') == UI_SORT_LEFT &&
	    ui_keys_lookup(&kt, '>') == UI_SORT_RIGHT && ui_keys_lookup(&kt, 'I') ==
	    UI_SORT_INVERT && ui_keys_lookup(&kt, ' ') == UI_PAUSE &&
	    ui_keys_lookup(&kt, '+') == UI_ZOOM_OUT && ui_keys_lookup(&kt, '-') ==
	    UI_ZOOM_IN && ui_keys_lookup(&kt, 't') == UI_THEME &&
	    ui_keys_lookup(&kt, '/') == UI_FILTER && ui_keys_lookup(&kt, 'r') == UI_RECORD);
	CHECK("lookup unbound", ui_keys_lookup(&kt, 'Z') == -1);

	CHECK("name Tab", strcmp(ui_keys_name('\t', name, sizeof name), "Tab") == 0);
	CHECK("name F1", strcmp(ui_keys_name(KEY_F(1), name, sizeof name), "F1") == 0);
	CHECK("name q", strcmp(ui_keys_name('q', name, sizeof name), "q") == 0);
	CHECK("name Space", strcmp(ui_keys_name(' ', name, sizeof name), "Space") == 0);

	n = ui_keys_help(&kt, lines, 64);
	for (i = 0, found = 0; i < kt.n; i++) {
		ui_keys_name(kt.keys[i].key, name, sizeof name);
		for (j = 0; j < n; j++) {
			/* The keys are the first 16 columns, space separated. */
			char keys[20], *tok, *save;

			snprintf(keys, sizeof keys, "%.16s", lines[j]);
			for (tok = strtok_r(keys, " ", &save); tok != NULL;
			    tok = strtok_r(NULL, " ", &save)) {
				if (strcmp(tok, name) == 0)
					break;
			}
			if (tok != NULL)
				break;
		}
		if (j < n)
			found++;
		else
			printf("key %s missing from the help\n", name);
	}
	CHECK("help lists every key", found == kt.n);
	CHECK("help: one line per action", n == UI_ACTION_MAX);
	CHECK("help line", strncmp(lines[1], "? h F1", 6) == 0 &&
	    strstr(lines[1], "help") != NULL);
}

/* Key names read back as the keys they name; key.NAME lines rebind, the help follows. */
static void
test_rebind(void)
{
	char		 name[16], lines[64][96], keys[96];
	unsigned	 i, n, back = 0;
	int		 k[3];

	for (i = 0; i < kt.n; i++) {
		ui_keys_name(kt.keys[i].key, name, sizeof name);
		if (ui_keys_parse(name) == kt.keys[i].key)
			back++;
		else
			printf("key %s does not read back\n", name);
	}
	CHECK("names: every bound key's name reads back as the key",
	    back == kt.n);
	CHECK("names: ^X, F12, #300, f5, space", ui_keys_parse("^X") == 0x18 &&
	    ui_keys_parse("F12") == KEY_F(12) && ui_keys_parse("#300") == 300 &&
	    ui_keys_parse("f5") == KEY_F(5) && ui_keys_parse("SPACE") == ' ');
	CHECK("names: refused", ui_keys_parse("F13") == -1 &&
	    ui_keys_parse("F0") == -1 && ui_keys_parse("Ctrl") == -1 &&
	    ui_keys_parse("^") == '^' && ui_keys_parse("^1") == -1 &&
	    ui_keys_parse("#0") == -1 && ui_keys_parse("#99999999999999999999") == -1 &&
	    ui_keys_parse("") == -1 && ui_keys_parse("\x01") == -1);
	CHECK("actions by name", ui_keys_action("quit") == UI_QUIT &&
	    ui_keys_action("SEEK_FORWARD") == UI_SEEK_FWD &&
	    ui_keys_action("save") == UI_SAVE && ui_keys_action("nope") == -1);

	ui_keys_hints(&kt, keys, sizeof keys);
	CHECK("hints: the default keys", strcmp(keys, "q quit  ? help  Tab pane  "
	    "Enter drill  Space pause  +/- time  / filter") == 0);
	/* quit on x and F10 only; then t (the theme's) to help. */
	k[0] = 'x';
	k[1] = KEY_F(10);
	CHECK("rebind quit", ui_keys_bind(&kt, UI_QUIT, k, 2) == 0 &&
	    ui_keys_lookup(&kt, 'x') == UI_QUIT && ui_keys_lookup(&kt, KEY_F(10)) == UI_QUIT &&
	    ui_keys_lookup(&kt, 'q') == -1);
	k[0] = 't';
	CHECK("rebind help to t: the theme loses t", ui_keys_bind(&kt, UI_HELP, k, 1) == 0 &&
	    ui_keys_lookup(&kt, 't') == UI_HELP && ui_keys_lookup(&kt, '?') == -1 &&
	    ui_keys_of(&kt, UI_THEME, keys, sizeof keys) == 0);
	CHECK("keys of quit", ui_keys_of(&kt, UI_QUIT, keys, sizeof keys) == 2 &&
	    strcmp(keys, "x F10") == 0);
	ui_keys_hints(&kt, keys, sizeof keys);
	CHECK("hints follow", strncmp(keys, "x quit  t help  Tab pane", 24) == 0);
	n = ui_keys_help(&kt, lines, 64);
	CHECK("help follows: quit on x F10, help on t, no line for the theme",
	    n == UI_ACTION_MAX - 1 && strncmp(lines[0], "x F10 ", 6) == 0 &&
	    strstr(lines[0], "quit") != NULL && strncmp(lines[1], "t ", 2) == 0 &&
	    strstr(lines[1], "help") != NULL);
	for (i = 0, n = 0; i < kt.n; i++) {
		unsigned j;

		for (j = 0; j < i; j++)
			n += kt.keys[i].key == kt.keys[j].key;
	}
	CHECK("no key twice after rebinding", n == 0);

	/* Every action on 16 keys of its own, over and over: never full. */
	{
		unsigned a2, round, fails = 0, code = 1;
		int many[16];

		for (round = 0; round < 4; round++) {
			for (a2 = 0; a2 < UI_ACTION_MAX; a2++) {
				for (i = 0; i < 16; i++) {
					many[i] = (int)code;
					code = code % KEY_MAX + 1;
				}
				fails += ui_keys_bind(&kt, (enum ui_action)a2, many, 16) != 0;
			}
		}
		for (i = 0, n = 0; i < kt.n; i++) {
			unsigned j;

			for (j = 0; j < i; j++)
				n += kt.keys[i].key == kt.keys[j].key;
		}
		CHECK("bind: 16 keys for every action, 4 rounds over every key code: "
		    "no failure, no key twice, the last binding holds", fails == 0 &&
		    n == 0 && kt.n <= UI_KEYS_MAX &&
		    ui_keys_lookup(&kt, many[15]) == UI_ACTION_MAX - 1);
	}
}

/* Table columns fit left to right; the flexible one takes the rest. */
static void
test_cols(void)
{
	static const struct ui_col cols[] = {
		{ .name = "A", .width = 5 }, { .name = "B", .width = 6 },
		{ .name = "PATH", .width = 0, .left = 1 }, { .name = "C", .width = 4 },
	};
	int	 w[4];

	CHECK("cols: all fit", ui_layout_cols(cols, 4, 0, 80, w) == 4 &&
	    w[0] == 5 && w[1] == 6 && w[3] == 4 && w[2] == 80 - 5 - 6 - 4 - 3);
	CHECK("cols: narrow keeps 8 for the path", ui_layout_cols(cols, 4, 0, 24,
	    w) == 3 && w[0] == 5 && w[1] == 6 && w[3] == 0 && w[2] == 11);
	CHECK("cols: very narrow: only the path", ui_layout_cols(cols, 4, 0, 10,
	    w) == 1 && w[0] == 0 && w[2] == 10);
	CHECK("cols: stop at the first that does not fit",
	    ui_layout_cols(cols, 2, 0, 8, w) == 1 && w[0] == 5 && w[1] == 0);
}

/* Device blocks: as many as fit, heatmaps shrinking to 4 rows first. */
static void
test_dev_lines(void)
{
	unsigned	 k, n;
	int		 w;

	n = ui_layout_dev_lines(64, 120, 46, &k, &w);
	CHECK("dev lines: 64 devices at 120x46 in 2 columns of 32, 59 wide",
	    n == 32 && k == 2 && w == 59);
	n = ui_layout_dev_lines(64, 160, 46, &k, &w);
	CHECK("dev lines: at 160 wide, 2 columns of 79", n == 32 && k == 2 && w == 79);
	n = ui_layout_dev_lines(32, 120, 46, &k, &w);
	CHECK("dev lines: 32 fit in one column, full width", n == 32 && k == 1 && w == 120);
	n = ui_layout_dev_lines(64, 100, 46, &k, &w);
	CHECK("dev lines: too narrow for 2: one column of 64, scrolled",
	    n == 64 && k == 1 && w == 100);
	n = ui_layout_dev_lines(64, 200, 10, &k, &w);
	CHECK("dev lines: at most as many columns as the width holds (3 at 200)",
	    n == 22 && k == 3 && w == 66);
	CHECK("dev lines: none, or no room", ui_layout_dev_lines(0, 120, 46, &k, &w) == 0 &&
	    ui_layout_dev_lines(5, 120, 0, &k, &w) == 0);
}

static void
test_dev_rows(void)
{
	unsigned	 heat, spark, n;

	n = ui_layout_dev_rows(1, 45, 0, &heat, &spark);
	CHECK("dev rows: one device fills", n == 1 && spark == 4 &&
	    heat == 45 - 1 - 8);
	n = ui_layout_dev_rows(3, 45, 0, &heat, &spark);
	CHECK("dev rows: three of 15", n == 3 && heat == 12 && spark == 1);
	n = ui_layout_dev_rows(2, 45, 0, &heat, &spark);
	CHECK("dev rows: two share the height", n == 2 && heat == 19 && spark == 1);
	n = ui_layout_dev_rows(16, 56, 0, &heat, &spark);
	CHECK("dev rows: sixteen scroll at 4 rows", n == 8 && heat == 4 &&
	    spark == 1);
	n = ui_layout_dev_rows(16, 56, 1, &heat, &spark);
	CHECK("dev rows: zoomed", n == 1 && heat == 56 - 1 - 8);
	n = ui_layout_dev_rows(4, 5, 0, &heat, &spark);
	CHECK("dev rows: summary lines only", n == 4 && heat == 0);
	n = ui_layout_dev_rows(1, 6, 0, &heat, &spark);
	CHECK("dev rows: tiny", n == 1 && spark == 0 && heat == 5);
	CHECK("dev rows: none", ui_layout_dev_rows(0, 40, 0, &heat, &spark) == 0);
}

/* Scrolling, zoom steps, ticks per column, rates and the filter. */
static void
test_misc(void)
{
	char	 buf[16];

	CHECK("scroll: visible stays", ui_layout_scroll(5, 0, 10, 100) == 0);
	CHECK("scroll: down", ui_layout_scroll(15, 0, 10, 100) == 6);
	CHECK("scroll: up", ui_layout_scroll(3, 6, 10, 100) == 3);
	CHECK("scroll: end", ui_layout_scroll(99, 95, 10, 100) == 90);
	CHECK("scroll: short list", ui_layout_scroll(2, 5, 10, 4) == 0);

	CHECK("zoom: 1 -> 2", ui_layout_zoom(1, 1) == 2);
	CHECK("zoom: 60 stays", ui_layout_zoom(60, 1) == 60);
	CHECK("zoom: 1 stays", ui_layout_zoom(1, -1) == 1);
	CHECK("zoom: 10 -> 5", ui_layout_zoom(10, -1) == 5);
	CHECK("zoom: 3 -> 5", ui_layout_zoom(3, 1) == 5);

	CHECK("col ticks: 1 s of 1 s", ui_layout_col_ticks(1, NSEC_PER_SEC) == 1);
	CHECK("col ticks: 5 s of 250 ms", ui_layout_col_ticks(5,
	    NSEC_PER_SEC / 4) == 20);
	CHECK("col ticks: never 0", ui_layout_col_ticks(1, 0) == 1);

	CHECK("rate 0", strcmp(ui_layout_rate(buf, sizeof buf, 0), "     0") == 0);
	CHECK("rate 12.3", strcmp(ui_layout_rate(buf, sizeof buf, 12.34), "  12.3") == 0);
	CHECK("rate 1234", strcmp(ui_layout_rate(buf, sizeof buf, 1234), "  1234") == 0);
	CHECK("rate 12.3k", strcmp(ui_layout_rate(buf, sizeof buf, 12345), " 12.3k") == 0);
	CHECK("rate 123M", strcmp(ui_layout_rate(buf, sizeof buf, 123e6), "  123M") == 0);

	CHECK("match: empty", ui_layout_match("fio", ""));
	CHECK("match: case", ui_layout_match("/var/Log/x", "log"));
	CHECK("match: no", !ui_layout_match("fio", "dd"));
	CHECK("match: longer filter", !ui_layout_match("fi", "fio"));
}

int
main(void)
{
	ui_keys_init(&kt);
	test_keys();
	test_rebind();
	test_cols();
	test_dev_rows();
	test_dev_lines();
	test_misc();
	/* The keys all tables share. */
	{
		unsigned sel = 0;
		int col = 0, inv = 0;

		CHECK("table: up at the top stays", ui_layout_table_key(UI_UP, &sel, 5, &col, 3, &inv) && sel == 0);
		ui_layout_table_key(UI_DOWN, &sel, 5, &col, 3, &inv);
		CHECK("table: down moves", sel == 1);
		ui_layout_table_key(UI_PAGE_DOWN, &sel, 5, &col, 3, &inv);
		CHECK("table: page down stops at the last row", sel == 4);
		ui_layout_table_key(UI_DOWN, &sel, 5, &col, 3, &inv);
		CHECK("table: down at the bottom stays", sel == 4);
		ui_layout_table_key(UI_PAGE_UP, &sel, 5, &col, 3, &inv);
		CHECK("table: page up stops at the first row", sel == 0);
		ui_layout_table_key(UI_END, &sel, 0, &col, 3, &inv);
		CHECK("table: end of an empty table is row 0", sel == 0);
		ui_layout_table_key(UI_SORT_LEFT, &sel, 5, &col, 3, &inv);
		CHECK("table: sort column wraps left", col == 2);
		ui_layout_table_key(UI_SORT_RIGHT, &sel, 5, &col, 3, &inv);
		CHECK("table: and right", col == 0);
		ui_layout_table_key(UI_SORT_INVERT, &sel, 5, &col, 3, &inv);
		CHECK("table: invert", inv == 1);
		CHECK("table: other actions are not its", !ui_layout_table_key(UI_QUIT, &sel, 5, &col, 3, &inv));
	}
	CHECK_EXIT();
}
