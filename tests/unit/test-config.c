/* test-config.c: the config file's parser, reader and writer (src/config.c). */

#include <sys/stat.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blktop.h"
#include "config-file.h"
#include "fields.h"
#include "options.h"
#include "check.h"
#include "../common/rand.h"

static struct config	 c;

/* Parse text (len bytes); 0 or -1, the error in why (freed by the next call). */
static int
parse(const char *text, size_t len, char **why)
{
	free(*why);
	*why = NULL;
	return (config_parse(&c, text, len, why));
}

/* The value of key, or NULL. */
static const char *
value(const char *key)
{
	unsigned	 i;

	for (i = 0; i < c.nitems; i++) {
		if (strcmp(c.items[i].key, key) == 0)
			return (c.items[i].value);
	}
	return (NULL);
}

static void
test_parse(void)
{
	const char	*good = "# comment\n\n  theme = light  \r\n"
	    "interval=0.5\n\tkey.quit = x F10\nTHEME = mono\n   # indented comment\n"
	    "processes.columns = PID, COMMAND r/s\nlast = no newline";
	char		*why = NULL, big[CONFIG_VALUE_MAX + 32];
	char		*many;
	unsigned	 i;
	size_t		 off;

	CHECK("parse: a good file", parse(good, strlen(good), &why) == 0 &&
	    c.nitems == 5);
	CHECK("parse: a key met twice: the later value, one item",
	    value("theme") != NULL && strcmp(value("theme"), "mono") == 0);
	CHECK("parse: spaces and CR around the value go",
	    strcmp(value("interval"), "0.5") == 0 &&
	    strcmp(value("key.quit"), "x F10") == 0);
	CHECK("parse: the line of a setting", c.items[2].line == 5);
	CHECK("parse: a last line with no newline",
	    strcmp(value("last"), "no newline") == 0);
	CHECK("parse: empty text", parse("", 0, &why) == 0 && c.nitems == 0);

	CHECK("parse: no '='", parse("# a\ntheme light\n", 16, &why) == -1 &&
	    strcmp(why, "line 2: not KEY = VALUE") == 0);
	CHECK("parse: no key", parse("= x\n", 4, &why) == -1 &&
	    strcmp(why, "line 1: not KEY = VALUE") == 0);
	CHECK("parse: a bad character in the key", parse("th/eme = x", 10, &why) == -1);
	CHECK("parse: no value", parse("theme =  \n", 10, &why) == -1 &&
	    strcmp(why, "line 1: theme has no value") == 0);
	CHECK("parse: a NUL byte", parse("theme = a\0b\n", 12, &why) == -1 &&
	    strstr(why, "NUL") != NULL);
	memset(big, 'v', sizeof big);
	memcpy(big, "k = ", 4);
	CHECK("parse: a value too long", parse(big, sizeof big, &why) == -1 &&
	    strstr(why, "a value longer than") != NULL);
	memset(big, 'k', sizeof big);
	memcpy(big + CONFIG_KEY_MAX + 1, " = v", 4);
	CHECK("parse: a key too long", parse(big, CONFIG_KEY_MAX + 5, &why) == -1 &&
	    strstr(why, "a key longer than") != NULL);
	many = malloc(CONFIG_ITEMS_MAX * 16 + 16);
	for (i = 0, off = 0; i < CONFIG_ITEMS_MAX; i++)
		off += (size_t)sprintf(many + off, "k%u = %u\n", i, i);
	CHECK("parse: as many settings as allowed", parse(many, off, &why) == 0 &&
	    c.nitems == CONFIG_ITEMS_MAX);
	off += (size_t)sprintf(many + off, "k%u = %u\n", i, i);
	CHECK("parse: one more", parse(many, off, &why) == -1 &&
	    strstr(why, "more than") != NULL);
	free(many);
	free(why);
}

static void
test_files(void)
{
	char		 dir[] = "/tmp/test-config-XXXXXX", path[PATH_MAX], other[PATH_MAX];
	char		*why = NULL, buf[64];
	struct stat	 sb;
	struct dirent	*de;
	DIR		*d;
	int		 fd, n;

	if (mkdtemp(dir) == NULL) {
		CHECK("files: a temporary directory", 0);
		return;
	}
	snprintf(path, sizeof path, "%s/cfg/blktop/blktoprc", dir);
	CHECK("read: no file", config_read(&c, path, &why) == 1);
	CHECK("write: makes the directories and the file",
	    config_write(path, "theme = light\n", &why) == 0 &&
	    stat(path, &sb) == 0 && S_ISREG(sb.st_mode));
	CHECK("write: the file is 0600", (sb.st_mode & 07777) == 0600);
	snprintf(other, sizeof other, "%s/cfg/blktop", dir);
	CHECK("write: its directory is 0700", stat(other, &sb) == 0 &&
	    (sb.st_mode & 07777) == 0700);
	CHECK("read: what was written", config_read(&c, path, &why) == 0 &&
	    c.nitems == 1 && strcmp(value("theme"), "light") == 0);
	CHECK("write: over the old file", config_write(path, "pane = files\n", &why) == 0 &&
	    config_read(&c, path, &why) == 0 && c.nitems == 1 &&
	    strcmp(value("pane"), "files") == 0);

	/* A link where the file goes is replaced, never written through. */
	snprintf(other, sizeof other, "%s/target", dir);
	fd = open(other, O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (fd != -1)
		close(fd);
	unlink(path);
	CHECK("write: replaces a link, leaves its target", symlink(other, path) == 0 &&
	    config_write(path, "pane = files\n", &why) == 0 &&
	    lstat(path, &sb) == 0 && S_ISREG(sb.st_mode) &&
	    stat(other, &sb) == 0 && sb.st_size == 0);
	unlink(other);

	/* Not regular files: refused at once, a FIFO without blocking. */
	snprintf(other, sizeof other, "%s/fifo", dir);
	CHECK("read: a FIFO is refused", mkfifo(other, 0600) == 0 &&
	    config_read(&c, other, &why) == -1 && strstr(why, "not a regular file") != NULL);
	unlink(other);
	free(why);
	why = NULL;
	snprintf(other, sizeof other, "%s/cfg", dir);
	CHECK("read: a directory is refused", config_read(&c, other, &why) == -1);
	free(why);
	why = NULL;

	/* Larger than allowed. */
	snprintf(other, sizeof other, "%s/big", dir);
	fd = open(other, O_WRONLY | O_CREAT | O_EXCL, 0600);
	CHECK("read: a file too large", fd != -1 &&
	    ftruncate(fd, CONFIG_FILE_MAX + 1) == 0 && close(fd) == 0 &&
	    config_read(&c, other, &why) == -1 && strstr(why, "larger than") != NULL);
	unlink(other);
	free(why);
	why = NULL;

	/* A write into a directory that cannot be: the error names it. */
	snprintf(other, sizeof other, "%s/file/x/blktoprc", dir);
	snprintf(buf, sizeof buf, "%s/file", dir);
	fd = open(buf, O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (fd != -1)
		close(fd);
	CHECK("write: under a file: an error, nothing made",
	    config_write(other, "a = b\n", &why) == -1 && why != NULL);
	unlink(buf);
	snprintf(other, sizeof other, "%s/cfg/blktop", dir);
	n = 0;
	if ((d = opendir(other)) != NULL) {
		while ((de = readdir(d)) != NULL)
			n += de->d_name[0] != '.';
		closedir(d);
	}
	CHECK("write: no temporary file left beside the config", n == 1);
	free(why);

	snprintf(other, sizeof other, "rm -rf '%s'", dir);
	if (system(other) != 0)
		printf("could not remove %s\n", dir);
}

/*
 * Random text (a fixed seed): the parser ends on each, with 0 or one "line N:"
 * error, every item inside its bounds. ASan and UBSan watch the rest.
 */
static void
test_random(void)
{
	static const char	 any[] = "ab.=_-# \t\r\n\0\x01\xff=k";
	static const char	 text_only[] = "ab.=_-#  \t\n\n=kv";
	static char		 text[4096];
	uint64_t		 x = 0x2545f4914f6cdd1dULL;
	char			*why = NULL;
	unsigned		 i, j, n, len, ok = 0, errs = 0, bad = 0;

	for (i = 0; i < 20000; i++) {
		len = (unsigned)(xorshift64(&x) % (i % 4 == 1 ? 64 : sizeof text));
		for (j = 0; j < len; j++) {
			xorshift64(&x);
			text[j] = i % 2 ? text_only[x % (sizeof text_only - 1)] :
			    any[x % (sizeof any - 1)];
		}
		if (parse(text, len, &why) == 0) {
			ok++;
			for (n = 0; n < c.nitems; n++)
				bad += strlen(c.items[n].key) >= CONFIG_KEY_MAX ||
				    strlen(c.items[n].value) >= CONFIG_VALUE_MAX ||
				    c.items[n].value[0] == '\0';
		} else {
			errs++;
			bad += why == NULL || strncmp(why, "line ", 5) != 0;
		}
	}
	free(why);
	printf("random: %u parsed, %u refused\n", ok, errs);
	CHECK("random text: every file parsed or refused with its line, items in bounds",
	    bad == 0 && ok + errs == 20000);
}

/*
 * W writes a value only if it reads back as itself: a newline or another
 * control character in --record-dir must never become a line of its own.
 */
static void
test_value_why(void)
{
	static const char *bad[] = { "/tmp/x\nkey.quit = z", "/tmp/x\r", "a\tb", " /tmp",
	    "/tmp ", "\x7f", "" };
	static const char *good[] = { "/tmp/x", "/tmp/caf\xc3\xa9", "#x", "a = b",
	    "/tmp/\xe2\x80\xae" };
	char		 text[512], longv[CONFIG_VALUE_MAX + 1], *why = NULL;
	unsigned	 i, nbad = 0, ngood = 0;

	for (i = 0; i < nitems(bad); i++)
		nbad += config_value_why(bad[i]) != NULL;
	CHECK("value: a newline, CR, tab, DEL, spaces at the ends, empty: each refused",
	    nbad == nitems(bad));
	for (i = 0; i < nitems(good); i++) {
		snprintf(text, sizeof text, "record_dir = %s\n", good[i]);
		ngood += config_value_why(good[i]) == NULL &&
		    parse(text, strlen(text), &why) == 0 && c.nitems == 1 &&
		    strcmp(value("record_dir"), good[i]) == 0;
	}
	CHECK("value: what is taken reads back as itself", ngood == nitems(good));
	memset(longv, 'a', sizeof longv);
	longv[CONFIG_VALUE_MAX - 1] = '\0';
	snprintf(text, sizeof text, "record_dir = %s\n", longv);
	CHECK("value: 199 bytes taken and read back", config_value_why(longv) == NULL &&
	    parse(text, strlen(text), &why) == 0 && strcmp(value("record_dir"), longv) == 0);
	longv[CONFIG_VALUE_MAX - 1] = 'a';
	longv[CONFIG_VALUE_MAX] = '\0';
	CHECK("value: 200 bytes refused", config_value_why(longv) != NULL);
	free(why);
}

static struct blktop	 tb;

/* A fresh run with the table's defaults. */
static struct options *
fresh(void)
{
	static struct options	 o;

	memset(&tb, 0, sizeof tb);
	options_defaults(&o, &tb);
	return (&o);
}

/*
 * The one precedence rule: command line, then capture, then config file,
 * then default, whatever order they come in.
 */
static void
test_precedence(void)
{
	struct options	*o;
	char		*why = NULL;

	o = fresh();
	CHECK("options: -d's default is 1", tb.opt.interval == 1);
	CHECK("options: the config file's interval over the default",
	    options_config(&tb, "interval", "5", 1, &why) == 1 && tb.opt.interval == 5);
	CHECK("options: the capture's interval over the config file's",
	    options_offer(&tb, "delay", 3, OPTION_FROM_CAPTURE) == 1 && tb.opt.interval == 3);
	CHECK("options: a config file read after the capture does not undo it",
	    options_config(&tb, "interval", "7", 1, &why) == 1 && tb.opt.interval == 3);
	CHECK("options: -d over the capture's, given after it",
	    options_set(o, options_find("delay"), "2", OPTION_FROM_COMMAND, &why) == 0 &&
	    tb.opt.interval == 2);
	CHECK("options: the capture's interval does not undo -d",
	    options_offer(&tb, "delay", 4, OPTION_FROM_CAPTURE) == 0 && tb.opt.interval == 2);
	CHECK("options: where -d's value came from",
	    options_from(&tb, "delay") == OPTION_FROM_COMMAND);

	/* --insight was overridden by the config file's insight.* until the table. */
	o = fresh();
	CHECK("options: --insight min_calls=7",
	    options_set(o, options_find("insight"), "min_calls=7", OPTION_FROM_COMMAND,
	    &why) == 0 && tb.opt.insight.min_calls == 7);
	CHECK("options: the config file's insight.min_calls does not undo --insight",
	    options_config(&tb, "insight.min_calls", "5", 1, &why) == 1 &&
	    tb.opt.insight.min_calls == 7);
	CHECK("options: the config file's insight.small_share where --insight said nothing",
	    options_config(&tb, "INSIGHT.small_share", "0.25", 1, &why) == 1 &&
	    tb.opt.insight.small_share == 0.25);

	/* -p, -c and --cgroup stand together against the recording's filter. */
	o = fresh();
	{
		static const char *const	 filter[] = { "pid", "comm", "cgroup", NULL };

		CHECK("options: no process filter given: the recording's is taken",
		    options_wins_all(&tb, filter, OPTION_FROM_CAPTURE) == 1);
		o = fresh();
		CHECK("options: -c given: the recording's filter is not taken",
		    options_set(o, options_find("comm"), "dd", OPTION_FROM_COMMAND, &why) == 0 &&
		    options_wins_all(&tb, filter, OPTION_FROM_CAPTURE) == 0);
	}
	free(why);
}

/* Bounds are the table's: the command line, the config file and a capture meet the same. */
static void
test_bounds(void)
{
	struct options	*o = fresh();
	char		*why = NULL;

	CHECK("bounds: the config file's interval 0 refused, the table's bounds said",
	    options_config(&tb, "interval", "0", 0, &why) == -1 &&
	    strcmp(why, "'0' is not a number of seconds from 0.01 to 3600") == 0);
	free(why);
	why = NULL;
	CHECK("bounds: a capture's interval past 3600 s passed over",
	    options_offer(&tb, "delay", 5000, OPTION_FROM_CAPTURE) == 0 && tb.opt.interval == 1);
	CHECK("bounds: checking a config line does not take it",
	    options_config(&tb, "interval", "9", 0, &why) == 1 && tb.opt.interval == 1);
	CHECK("bounds: flight is whole seconds",
	    options_config(&tb, "flight", "1.5", 0, &why) == -1 &&
	    strstr(why, "whole number from 0 to 3600") != NULL);
	free(why);
	why = NULL;
	CHECK("bounds: insight.small_bytes a Darshan edge",
	    options_config(&tb, "insight.small_bytes", "4000", 0, &why) == -1 &&
	    strstr(why, "Darshan") != NULL);
	free(why);
	why = NULL;
	CHECK("bounds: --top 10001 refused", options_set(o, options_find("top"), "10001",
	    OPTION_FROM_COMMAND, &why) == -1 &&
	    strcmp(why, "'10001' is not a whole number from 1 to 10000") == 0);
	free(why);
	why = NULL;
	CHECK("keys: one that is no option's is left to the view",
	    options_config(&tb, "pane", "files", 1, &why) == 0);
	CHECK("keys: theme is the view's too, and colours the report",
	    options_config(&tb, "theme", "light", 1, &why) == 0 &&
	    tb.opt.report_opts.theme != NULL && strcmp(tb.opt.report_opts.theme, "light") == 0);
}

/* The command line through the generated long options and letters. */
static void
test_command_line(void)
{
	struct options	*o = fresh();
	char		*argv[] = { "blktop", "-Jd", "0.5", "--top", "5", "--sort=opens",
			    "--insight", "storm_opens=9", "-D", "sda", "-vv", NULL };

	optind = 0;
	options_parse(o, (int)nitems(argv) - 1, argv);
	CHECK("command line: -J is batch JSON", tb.opt.batch && tb.opt.batch_opts.json);
	CHECK("command line: -d 0.5 from a group of letters", tb.opt.interval == 0.5);
	CHECK("command line: --top 5", tb.opt.batch_opts.top == 5);
	CHECK("command line: --sort=opens", o->sort_key == PROC_KEY_OPENS);
	CHECK("command line: --insight", tb.opt.insight.storm_opens == 9);
	CHECK("command line: -D kept to be named by the source",
	    tb.opt.ndev_args == 1 && strcmp(tb.opt.dev_args[0], "sda") == 0);
	CHECK("command line: -vv", tb.opt.verbose == 2);
	CHECK("command line: untouched rows keep their defaults",
	    tb.opt.max_procs == PROC_DEF_PROCS && tb.opt.max_files == PROC_DEF_FILES &&
	    tb.opt.trace_opts.max_bytes == (uint64_t)TRACE_MAX_DEFAULT_MB << 20);
}

/* --help: every row with a name, its letter, the sort keys and thresholds, from the table. */
static void
test_usage(void)
{
	char		*text = NULL, want[64];
	size_t		 len = 0;
	FILE		*f = open_memstream(&text, &len);
	unsigned	 i, missing = 0, lines = 0;
	int		 k;

	options_usage(f);
	fclose(f);
	for (i = 0; i < options_table_count; i++) {
		if (options_table[i].name == NULL)
			continue;
		if (options_table[i].letter != 0)
			snprintf(want, sizeof want, "  -%c, --%s", options_table[i].letter,
			    options_table[i].name);
		else
			snprintf(want, sizeof want, "      --%s", options_table[i].name);
		missing += strstr(text, want) == NULL;
	}
	CHECK("--help: a line for every option", missing == 0);
	for (k = 0; k < PROC_KEY_MAX; k++)
		missing += strstr(text, field_key_name((int)k)) == NULL;
	CHECK("--help: -o lists every sort key", missing == 0);
	CHECK("--help: --insight lists the thresholds", strstr(text, "wb_pause_share") != NULL &&
	    strstr(text, "min_calls") != NULL);
	for (i = 0, k = 0; text[i] != '\0'; i++) {
		if (text[i] != '\n')
			continue;
		lines++;
		if (i - (unsigned)k > 80)
			missing++;
		k = (int)i + 1;
	}
	CHECK("--help: no line past 80 columns", missing == 0 && lines > 60);
	free(text);
}

/* The thresholds as W writes them: commented out at their default. */
static void
test_insight_lines(void)
{
	char	 line[96];
	char	*why = NULL;

	fresh();
	CHECK("W: a threshold at its default is commented out",
	    strncmp(config_insight_line(&tb, 0, line, sizeof line), "# insight.min_calls = ",
	    22) == 0);
	options_config(&tb, "insight.min_calls", "123", 1, &why);
	CHECK("W: a threshold set is written as it is",
	    strcmp(config_insight_line(&tb, 0, line, sizeof line),
	    "insight.min_calls = 123\n") == 0);
	CHECK("W: every threshold, then NULL", config_insight_line(&tb, 16, line,
	    sizeof line) == NULL && config_insight_line(&tb, 15, line, sizeof line) != NULL);
}

int
main(void)
{
	test_parse();
	test_value_why();
	test_random();
	test_files();
	test_precedence();
	test_bounds();
	test_command_line();
	test_usage();
	test_insight_lines();
	CHECK_EXIT();
}
