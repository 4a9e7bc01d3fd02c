/* options.h: the run's options as one table: command line, capture, config file and defaults. */

#ifndef OPTIONS_H
#define OPTIONS_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

struct blktop;
struct source;

/* Where a value came from; a value is taken only from a source at least as strong as its own. */
enum option_from {
	OPTION_FROM_DEFAULT,	/* the table's default, or the environment's */
	OPTION_FROM_CONFIG,	/* the config file (the UI's runs only) */
	OPTION_FROM_CAPTURE,	/* the recording a replay reads */
	OPTION_FROM_COMMAND,	/* the command line */
};

/* How a row's argument is read (the row's bounds apply to the numbers). */
enum option_type {
	OPTION_FLAG,		/* no argument: the int is set to 1 */
	OPTION_COUNT,		/* no argument: the int counts its uses (-vv) */
	OPTION_SECS,		/* a double, a number of seconds */
	OPTION_NUMBER,		/* a double */
	OPTION_WHOLE,		/* a whole number, into an int, unsigned, long or uint64_t */
	OPTION_TEXT,		/* a string, kept as given */
	OPTION_CALL,		/* the row's own call reads it */
};

/* -d's bounds: its row, and --compare's replays (one interval a capture, or a column's). */
#define OPTION_INTERVAL_MIN	0.01
#define OPTION_INTERVAL_MAX	3600

/* Row flags. */
#define OPTION_LOCAL	0x1	/* its value is in struct options (main's), not struct blktop */
#define OPTION_ALONE	0x2	/* used alone: a synopsis line of its own */
#define OPTION_REPEAT	0x4	/* may be given more than once ("..." in the synopsis) */
#define OPTION_VIEW	0x8	/* its config key is the view's too (the view reads it as well) */
#define OPTION_BOUNDS	0x10	/* --help says the bounds */

/* What main() alone reads of the command line. */
struct options {
	struct blktop	*b;
	const char	*config_path;	/* --config */
	int		 no_config;	/* --no-config */
	const char	*theme;		/* -t */
	const char	*mark_label;	/* --mark */
	const char	*listen;	/* --listen, checked by main */
	double		 history;	/* --history, seconds */
	int		 sort_key;	/* -o: enum proc_key */
	int		 probe;		/* --probe */
	int		 compare;	/* --compare (compare.h) */
	int		 compare_ui;	/* --compare without -b, -J or --report: the UI shows it */
	int		 headless;	/* --headless */
	int		 help, version;	/* -h, --version */
	int		 nopts;		/* options given */
};

struct option_entry;
typedef int (*option_call)(struct options *, const struct option_entry *, const char *arg,
		    enum option_from, char **errp);

/* One option: its names, argument, bounds, default, config key and help. */
struct option_entry {
	const char	*name;		/* --NAME; NULL: a config key or variable only */
	int		 letter;	/* -X, 0 for none */
	const char	*arg;		/* the argument's name in --help, NULL: none */
	enum option_type type;
	double		 min, max;	/* bounds of a number */
	const char	*def;		/* the default, read as an argument would be; NULL: none */
	const char	*key;		/* its config file key, NULL: none */
	const char	*env;		/* an environment variable that sets its default */
	size_t		 off, size;	/* where its value is (struct blktop, or options if LOCAL) */
	option_call	 call;		/* OPTION_CALL's reader; its message names the option */
	int		 (*check)(double, const char *arg, char **errp);	/* more than bounds */
	const char	*(*words)(unsigned);	/* the words it takes, listed by --help; NULL past them */
	int		 flags;		/* OPTION_* */
	const char	*help;		/* --help's text, wrapped there */
};

/* options-table.c */
extern const struct option_entry options_table[];
extern const unsigned options_table_count;

/* options.c */
void		 options_defaults(struct options *, struct blktop *);
int		 options_parse(struct options *, int argc, char **argv);
void		 options_usage(FILE *);
void __attribute__((noreturn)) __printflike(1, 2)
		 options_error(const char *, ...);
void __attribute__((noreturn)) __printflike(2, 0)
		 options_verror(const char *tail, const char *, va_list);
const char	*options_name(const struct option_entry *);
int		 options_number(const struct option_entry *, enum option_type, const char *,
		     double *, char **errp);
int		 options_key(struct options *, const char *key, const char *value,
		     enum option_from, char **errp);
enum option_from options_from(const struct blktop *, const char *name);
int		 options_wins_all(struct blktop *, const char *const *names, enum option_from);
int		 options_wins(struct blktop *, const struct option_entry *, enum option_from);
const struct option_entry *options_find(const char *name);
int		 options_set(struct options *, const struct option_entry *, const char *arg,
		     enum option_from, char **errp);
int		 options_offer(struct blktop *, const char *name, double v, enum option_from);
int		 options_config(struct blktop *, const char *key, const char *value, int apply,
		     char **errp);
int		 options_resolve_devs(struct blktop *, struct source *, char **errp);
void		 options_check(struct options *);
int		 options_use_config(const struct options *);
void		 options_finish(struct options *);

#endif
