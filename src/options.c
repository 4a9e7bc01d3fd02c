/* options.c: the option table read: --help, the command line, the config file's keys and the one precedence rule. */

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blktop.h"
#include "options.h"

#define OPTIONS_COLUMN	21	/* where --help's text starts */
#define OPTIONS_WIDTH	79

/* Exit 2 with one line: "blktop: ", the message, tail. */
void
options_verror(const char *tail, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", log_prog);
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "%s\n", tail);
	exit(2);
}

/* Exit with a one-line message about a bad command line. */
void
options_error(const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	options_verror(" (blktop --help for usage)", fmt, ap);
}

/* Row e's index: its slot in struct blktop's opt_from. */
static unsigned
options_index(const struct option_entry *e)
{
	return ((unsigned)(e - options_table));
}

/* A row by its long name, NULL if none. */
const struct option_entry *
options_find(const char *name)
{
	unsigned	 i;

	for (i = 0; i < options_table_count; i++) {
		if (options_table[i].name != NULL && strcmp(options_table[i].name, name) == 0)
			return (&options_table[i]);
	}
	return (NULL);
}

/* A row by its config file key, NULL if none. */
static const struct option_entry *
options_find_key(const char *key)
{
	unsigned	 i;

	for (i = 0; i < options_table_count; i++) {
		if (options_table[i].key != NULL && strcasecmp(options_table[i].key, key) == 0)
			return (&options_table[i]);
	}
	return (NULL);
}

/* How messages name row e: -X, else --NAME, else $VARIABLE, else its key. */
const char *
options_name(const struct option_entry *e)
{
	static char	 buf[64];

	if (e->letter != 0)
		snprintf(buf, sizeof buf, "-%c", e->letter);
	else if (e->name != NULL)
		snprintf(buf, sizeof buf, "--%s", e->name);
	else if (e->env != NULL)
		snprintf(buf, sizeof buf, "$%s", e->env);
	else
		snprintf(buf, sizeof buf, "%s", e->key);
	return (buf);
}

/*
 * The precedence rule, the only place it is written: a value from `from`
 * may be taken if no stronger source gave one (command line, then capture,
 * then config file, then default).
 */
static int
options_may(const struct blktop *b, const struct option_entry *e, enum option_from from)
{
	return ((unsigned)from >= b->opt.opt_from[options_index(e)]);
}

/* Take a value from `from` if the rule lets it: 1 if so, and the row remembers from where. */
int
options_wins(struct blktop *b, const struct option_entry *e, enum option_from from)
{
	if (!options_may(b, e, from))
		return (0);
	b->opt.opt_from[options_index(e)] = (uint8_t)from;
	return (1);
}

/* Where row name's value came from. */
enum option_from
options_from(const struct blktop *b, const char *name)
{
	return ((enum option_from)b->opt.opt_from[options_index(options_find(name))]);
}

/* The rule for options that stand together (a process filter): all of them win, or none. */
int
options_wins_all(struct blktop *b, const char *const *names, enum option_from from)
{
	unsigned	 i;

	for (i = 0; names[i] != NULL; i++) {
		if (!options_may(b, options_find(names[i]), from))
			return (0);
	}
	for (i = 0; names[i] != NULL; i++)
		options_wins(b, options_find(names[i]), from);
	return (1);
}

/* A bound as messages and --help write it. */
static const char *
options_bound(double v, char *buf, size_t len)
{
	if (v >= 0x1p63)
		snprintf(buf, len, "%lld", LLONG_MAX);
	else if (v == floor(v) && fabs(v) < 1e15)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%g", v);
	return (buf);
}

/* Read a number of kind (seconds, number, whole) within row e's bounds; -1 with *errp "'ARG' is not ...". */
int
options_number(const struct option_entry *e, enum option_type kind, const char *arg, double *v,
    char **errp)
{
	char		*end, lo[32], hi[32];
	long long	 ll;
	int		 ok;

	errno = 0;
	if (kind == OPTION_WHOLE) {
		ll = strtoll(arg, &end, 10);
		if ((ok = errno == 0 && end != arg && *end == '\0'))
			*v = (double)ll;
		else {
			errno = 0;
			*v = strtod(arg, &end);
			ok = errno == 0 && end != arg && *end == '\0' && isfinite(*v) &&
			    *v == floor(*v);
		}
	} else {
		*v = strtod(arg, &end);
		ok = errno == 0 && end != arg && *end == '\0' && isfinite(*v);
	}
	if (!ok || !(*v >= e->min && *v <= e->max)) {
		xasprintf(errp, "'%s' is not a %s from %s to %s", arg, kind == OPTION_WHOLE ?
		    "whole number" : kind == OPTION_SECS ? "number of seconds" : "number",
		    options_bound(e->min, lo, sizeof lo), options_bound(e->max, hi, sizeof hi));
		return (-1);
	}
	if (e->check != NULL)
		return (e->check(*v, arg, errp));
	return (0);
}

/* Store a value read into row e's place. */
static void
options_store(struct options *o, const struct option_entry *e, const char *arg, double v)
{
	char		*at = (e->flags & OPTION_LOCAL) ? (char *)o + e->off : (char *)o->b + e->off;
	long long	 ll;
	int		 i;

	switch (e->type) {
	case OPTION_FLAG:
	case OPTION_COUNT:
		memcpy(&i, at, sizeof i);
		i = e->type == OPTION_FLAG ? 1 : i + 1;
		memcpy(at, &i, sizeof i);
		break;
	case OPTION_SECS:
	case OPTION_NUMBER:
		memcpy(at, &v, sizeof v);
		break;
	case OPTION_WHOLE:
		ll = v >= 0x1p63 ? LLONG_MAX : (long long)v;
		if (e->size == sizeof(int)) {
			i = (int)ll;	/* an unsigned's bounds are within an int's */
			memcpy(at, &i, sizeof i);
		} else
			memcpy(at, &ll, sizeof ll);
		break;
	case OPTION_TEXT:
		memcpy(at, &arg, sizeof arg);
		break;
	case OPTION_CALL:
		break;
	}
}

/*
 * Read arg as row e's value from `from`: checked always, taken if apply and
 * the precedence rule lets it. 0, or -1 with *errp (the row's call names the
 * option; the others' messages leave that to the caller).
 */
static int
options_take(struct options *o, const struct option_entry *e, const char *arg,
    enum option_from from, int apply, char **errp)
{
	double	 v = 0;

	if (e->type == OPTION_CALL) {
		if (!apply || !options_may(o->b, e, from))
			return (0);
		if (e->call(o, e, arg, from, errp) != 0)
			return (-1);
		options_wins(o->b, e, from);
		return (0);
	}
	if ((e->type == OPTION_SECS || e->type == OPTION_NUMBER || e->type == OPTION_WHOLE) &&
	    options_number(e, e->type, arg, &v, errp) != 0)
		return (-1);
	if (apply && options_wins(o->b, e, from))
		options_store(o, e, arg, v);
	return (0);
}

/* Set row e from arg, as options_take. */
int
options_set(struct options *o, const struct option_entry *e, const char *arg,
    enum option_from from, char **errp)
{
	return (options_take(o, e, arg, from, 1, errp));
}

/* A value of the run from a source other than a text (a capture's interval): 1 if taken. */
int
options_offer(struct blktop *b, const char *name, double v, enum option_from from)
{
	struct options			 o = { .b = b };
	const struct option_entry	*e = options_find(name);
	char				 buf[64], *why = NULL;

	snprintf(buf, sizeof buf, "%.17g", v);
	if (options_number(e, e->type, buf, &v, &why) != 0) {
		free(why);
		return (0);
	}
	if (!options_wins(b, e, from))
		return (0);
	options_store(&o, e, buf, v);
	return (1);
}

/* A config key's value (or --insight's) from `from`: 1 if a row has the key, 0 if none, -1 with *errp. */
int
options_key(struct options *o, const char *key, const char *value, enum option_from from,
    char **errp)
{
	const struct option_entry	*e = options_find_key(key);

	if (e == NULL)
		return (0);
	return (options_take(o, e, value, from, 1, errp) != 0 ? -1 : 1);
}

/*
 * A config file's key: 1 if one of the run's (checked, and taken if apply),
 * 0 if not or if the view reads it too, -1 with *errp "'VALUE' is not ...".
 */
int
options_config(struct blktop *b, const char *key, const char *value, int apply, char **errp)
{
	struct options			 o = { .b = b };
	const struct option_entry	*e = options_find_key(key);

	if (e == NULL)
		return (0);
	if (options_take(&o, e, value, OPTION_FROM_CONFIG, apply, errp) != 0)
		return (-1);
	return ((e->flags & OPTION_VIEW) ? 0 : 1);
}

/* Print one word of --help at *col, on a new line at indent if it would pass the width. */
static void
options_word(FILE *f, int *col, int indent, const char *w, size_t n)
{
	if (*col > indent && *col + 1 + (int)n > OPTIONS_WIDTH) {
		fprintf(f, "\n%*s", indent, "");
		*col = indent;
	} else if (*col > indent) {
		fputc(' ', f);
		(*col)++;
	}
	fprintf(f, "%.*s", (int)n, w);
	*col += (int)n;
}

/* Print text's words at *col, wrapped. */
static void
options_words(FILE *f, int *col, int indent, const char *text)
{
	size_t	 n;

	for (;;) {
		text += strspn(text, " \n");
		if ((n = strcspn(text, " \n")) == 0)
			break;
		options_word(f, col, indent, text, n);
		text += n;
	}
}

/* The synopsis: the options with a letter, then the long ones, then those used alone. */
static void
options_synopsis(FILE *f)
{
	const struct option_entry	*e;
	char				 w[96];
	unsigned			 i, pass;
	int				 col = 14, n = 0;

	fprintf(f, "usage: blktop [-");
	for (i = 0; i < options_table_count; i++) {
		if (options_table[i].letter != 0 && options_table[i].arg == NULL)
			n += fprintf(f, "%c", options_table[i].letter);
	}
	col += fprintf(f, "]") + n + 2;
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < options_table_count; i++) {
			e = &options_table[i];
			if (e->name == NULL || (e->flags & OPTION_ALONE) || (pass == 0 ?
			    e->letter == 0 || e->arg == NULL : e->letter != 0))
				continue;
			if (pass == 0)
				snprintf(w, sizeof w, "[-%c %s]%s", e->letter, e->arg,
				    (e->flags & OPTION_REPEAT) ? "..." : "");
			else
				snprintf(w, sizeof w, "[--%s%s%s]%s", e->name, e->arg ? " " : "",
				    e->arg ? e->arg : "", (e->flags & OPTION_REPEAT) ? "..." : "");
			options_word(f, &col, 14, w, strlen(w));
		}
	}
	fprintf(f, "\n");
	for (i = 0; i < options_table_count; i++) {
		e = &options_table[i];
		if (e->flags & OPTION_ALONE)
			fprintf(f, "       blktop --%s%s%s\n", e->name, e->arg ? " " : "",
			    e->arg ? e->arg : "");
	}
}

/* --help: the synopsis and one entry per option, all from the table. */
void
options_usage(FILE *f)
{
	const struct option_entry	*e;
	const char			*w;
	char				 lo[32], hi[32], more[160];
	unsigned			 i, k;
	int				 col;

	options_synopsis(f);
	for (i = 0; i < options_table_count; i++) {
		if ((e = &options_table[i])->name == NULL)
			continue;
		col = e->letter != 0 ? fprintf(f, "  -%c, ", e->letter) : fprintf(f, "      ");
		col += fprintf(f, "--%s%s%s", e->name, e->arg ? " " : "", e->arg ? e->arg : "");
		if (col >= OPTIONS_COLUMN) {
			fprintf(f, "\n");
			col = 0;
		}
		fprintf(f, "%*s", OPTIONS_COLUMN - col, "");
		col = OPTIONS_COLUMN;
		options_words(f, &col, OPTIONS_COLUMN, e->help);
		for (k = 0; e->words != NULL && (w = e->words(k)) != NULL; k++)
			options_word(f, &col, OPTIONS_COLUMN, w, strlen(w));
		more[0] = '\0';
		if (e->def != NULL)
			snprintf(more, sizeof more, "(default %s%s", e->def,
			    (e->flags & OPTION_BOUNDS) ? ";" : ")");
		if (e->flags & OPTION_BOUNDS)
			snprintf(more + strlen(more), sizeof more - strlen(more), "%s%s to %s)",
			    e->def != NULL ? " " : "(", options_bound(e->min, lo, sizeof lo),
			    options_bound(e->max, hi, sizeof hi));
		options_words(f, &col, OPTIONS_COLUMN, more);
		fprintf(f, "\n");
	}
}

/* The replay's name in reports: its file, or its files joined by commas. */
static void
options_replay_name(struct blktop *b)
{
	char		*name, *s;
	unsigned	 i;

	if (b->opt.nreplay_files == 0)
		return;
	name = xstrdup(b->opt.replay_files[0]);
	for (i = 1; i < b->opt.nreplay_files; i++) {
		xasprintf(&s, "%s, %s", name, b->opt.replay_files[i]);
		free(name);
		name = s;
	}
	b->opt.replay_path = name;	/* for the whole run */
}

/* The defaults of every row (the table's, then the environment's), and what has none. */
void
options_defaults(struct options *o, struct blktop *b)
{
	const struct option_entry	*e;
	const char			*env;
	char				*err;
	unsigned			 i;

	memset(o, 0, sizeof *o);
	o->b = b;
	b->opt.metrics_opts.listen_fd = -1;
	b->opt.batch_opts.out = stdout;
	b->opt.capture_opts.flight_secs = -1;	/* options_finish: by the kind of run */
	b->opt.insight = insight_defaults;		/* insight.c's */
	b->opt.speed = -1;				/* the replay's: by the kind of run */
	for (i = 0; i < options_table_count; i++) {
		e = &options_table[i];
		if (e->def != NULL && options_set(o, e, e->def, OPTION_FROM_DEFAULT, &err) != 0)
			fatalx("the default of %s: %s", options_name(e), err);
		if (e->env != NULL && (env = getenv(e->env)) != NULL && *env != '\0' &&
		    options_set(o, e, env, OPTION_FROM_DEFAULT, &err) != 0)
			options_error("$%s: %s", e->env, err);
	}
}

/*
 * The command line, through the table's long options and letters; the
 * arguments that are not options are more files of a replay. Exits with
 * one line on an error. --mark stands alone: then nothing else is read.
 */
int
options_parse(struct options *o, int argc, char **argv)
{
	struct option			 longopts[OPTIONS_MAX + 1];
	char				 shorts[2 * OPTIONS_MAX + 2], *p = shorts, *err;
	const struct option_entry	*e;
	unsigned			 i, n = 0;
	int				 ch;

	*p++ = ':';
	for (i = 0; i < options_table_count; i++) {
		if ((e = &options_table[i])->name == NULL)
			continue;
		longopts[n++] = (struct option){ e->name, e->arg != NULL ? required_argument :
		    no_argument, NULL, e->letter != 0 ? e->letter : 256 + (int)i };
		if (e->letter != 0) {
			*p++ = (char)e->letter;
			if (e->arg != NULL)
				*p++ = ':';
		}
	}
	*p = '\0';
	memset(&longopts[n], 0, sizeof longopts[n]);
	opterr = 0;
	while ((ch = getopt_long(argc, argv, shorts, longopts, NULL)) != -1) {
		if (ch == ':')
			options_error("%s needs an argument", argv[optind - 1]);
		for (i = 0, e = NULL; i < options_table_count && e == NULL; i++) {
			if (options_table[i].name != NULL && (ch >= 256 ? ch - 256 == (int)i :
			    options_table[i].letter == ch))
				e = &options_table[i];
		}
		if (e == NULL)
			options_error("unknown option '%s'", argv[optind - 1]);
		o->nopts++;
		if (options_set(o, e, optarg, OPTION_FROM_COMMAND, &err) != 0) {
			if (e->type == OPTION_CALL)
				options_error("%s", err);
			options_error("%s: %s", options_name(e), err);
		}
	}
	/* A compare is a report, shown in the UI on a terminal unless -b, -J or --report asks. */
	if (o->compare) {
		o->compare_ui = !o->b->opt.batch && o->b->opt.report_opts.path == NULL &&
		    isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
		o->b->opt.batch = 1;
	}
	if (o->mark_label != NULL) {
		if (o->nopts != 1 || optind != argc)
			options_error("--mark LABEL takes no other option or argument");
		return (0);
	}
	if (optind != argc && o->b->opt.nreplay_files == 0 && !o->compare)
		options_error("unexpected argument '%s'", argv[optind]);
	for (; optind < argc; optind++) {
		if (options_set(o, options_find("read"), argv[optind], OPTION_FROM_COMMAND,
		    &err) != 0)
			options_error("%s", err);
	}
	options_replay_name(o->b);
	return (0);
}

/* What options ask of each other, once all are read; exits with one line. */
void
options_check(struct options *o)
{
	struct blktop	*b = o->b;

	if (b->opt.dump_opts.format != 0 && b->opt.replay_path == NULL)
		options_error("--dump and --format need -r FILE");
	if (b->opt.dump_opts.format != 0 && b->opt.report_opts.path != NULL)
		options_error("--dump prints rows, --report a summary: one or the other");
	if (b->opt.speed >= 0 && b->opt.replay_path == NULL)
		options_error("--speed needs -r FILE");
	if (b->opt.trace_opts.path == NULL && (b->opt.trace_opts.offset_ns != 0 ||
	    options_from(b, "trace-max") == OPTION_FROM_COMMAND))
		options_error("--trace-offset and --trace-max need --trace FILE");
	if (b->opt.trace_opts.path != NULL && b->opt.dump_opts.format != 0)
		options_error("--dump prints rows, --trace writes a file: one or the other");
	/* A replay for a report or trace alone needs no screen and no pacing. */
	if ((b->opt.report_opts.path != NULL || b->opt.trace_opts.path != NULL) &&
	    b->opt.replay_path != NULL && !b->opt.batch) {
		o->headless = 1;
		if (b->opt.speed < 0)
			b->opt.speed = 0;
	}
	if (o->headless && b->opt.metrics_opts.listen_port == 0 &&
	    b->opt.capture_opts.record_path == NULL && b->opt.report_opts.path == NULL &&
	    b->opt.trace_opts.path == NULL)
		options_error("--headless needs --listen, -w, --report or --trace: it would do "
		    "nothing");
	if (o->headless && b->opt.batch)
		options_error("--headless prints no reports: not with -b or -J");
	if (b->opt.metrics_opts.node_names && b->opt.metrics_opts.listen_port == 0)
		options_error("--metrics-node-names adds to the metrics endpoint: give --listen too");
	if (o->config_path != NULL && (o->headless || b->opt.batch))
		options_error("--config is the UI's: not with -b, -J or --headless");
}

/* Whether the run reads the config file: the UI's runs, unless --no-config. */
int
options_use_config(const struct options *o)
{
	const struct blktop	*b = o->b;

	return (!o->no_config && !o->headless && !b->opt.batch && b->opt.dump_opts.format == 0 &&
	    !o->probe);
}

/*
 * What depends on the kind of run, once the command line and the config
 * file are read: the defaults no row can give, and each sink's options.
 */
void
options_finish(struct options *o)
{
	struct blktop	*b = o->b;

	b->opt.batch_opts.sort_key = b->opt.report_opts.sort_key = o->sort_key;
	/* Batch mode has no `r`: a flight recorder only serves a trigger there. */
	if (b->opt.capture_opts.flight_secs < 0)
		b->opt.capture_opts.flight_secs = b->opt.batch && b->opt.capture_opts.trigger == NULL ?
		    0 : CAPTURE_FLIGHT_DEFAULT;
	/* Only the UI shows history: reports keep the ticks of one report. */
	if (options_wins(b, options_find("history"), OPTION_FROM_DEFAULT))
		o->history = b->opt.batch || o->headless ? 0 : 600;
	b->opt.report_opts.announce = b->opt.verbose || o->headless;
	b->opt.report_opts.ends_run = o->headless && b->opt.metrics_opts.listen_port == 0;
	b->opt.trace_opts.announce = b->opt.report_opts.announce;
	b->opt.trace_opts.ends_run = b->opt.report_opts.ends_run;
	/* -t colours the view; without it, the config file's theme does. */
	b->opt.ui_opts.theme = o->theme;
	b->opt.ui_opts.capture = &b->opt.capture_opts;
}

/*
 * The -D arguments as devices, each once, named as the run's source names
 * them (a recording's table; with no source, this host's): resolved here
 * alone, for a live run before it loads, for a replay once its files are open.
 */
int
options_resolve_devs(struct blktop *b, struct source *src, char **errp)
{
	unsigned	 i, d;

	b->opt.ndevs = 0;
	for (i = 0; i < b->opt.ndev_args; i++) {
		if (source_device(src, b->opt.dev_args[i], &b->opt.devs[b->opt.ndevs], errp) != 0)
			return (-1);
		for (d = 0; d < b->opt.ndevs && b->opt.devs[d] != b->opt.devs[b->opt.ndevs]; d++)
			;
		if (d == b->opt.ndevs)
			b->opt.ndevs++;
	}
	return (0);
}
