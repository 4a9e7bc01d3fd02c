/* compare.c: --compare: each capture replayed alone in a child, its -J line read back, the figures of both sides and their differences. */

#include <sys/wait.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blktop.h"
#include "compare.h"
#include "fields.h"
#include "json-key.h"
#include "options.h"

/* One figure of an entity's row: its path in the -J object. */
struct cmp_def {
	const char	*path;
	int		 total;		/* 1: grows with the capture's length; 2: a phase's */
	int		 per_io;	/* OP.bytes_per_io: OP.bytes over OP.ios */
};

/* Where each entity's rows are in a -J line, and which figures are read. */
struct cmp_table {
	const char		*array, *key;
	int			 sum;		/* rows of one key summed (processes of one command) */
	const struct cmp_def	*defs;
	unsigned		 ndefs;
};

#define CMP_OP(op) \
	{ op ".ios", 1, 0 }, { op ".bytes", 1, 0 }, { op ".iops", 0, 0 }, \
	{ op ".bytes_per_s", 0, 0 }, { op ".bytes_per_io", 0, 1 }, \
	{ op ".lat_us.p50", 0, 0 }, { op ".lat_us.p90", 0, 0 }, { op ".lat_us.p99", 0, 0 }, \
	{ op ".lat_us.max", 0, 0 }, { op ".lat_us.avg", 0, 0 }, { op ".q_us.p50", 0, 0 }, \
	{ op ".q_us.p99", 0, 0 }
static const struct cmp_def cmp_dev[] = {
	CMP_OP("read"), CMP_OP("write"),
	{ "qd.avg", 0, 0 }, { "qd.max", 0, 0 }, { "util_pct", 0, 0 },
};
/* A process's or file's figures that add up over its rows. */
static const struct cmp_def cmp_proc[] = {
	{ "req_reads", 1, 0 }, { "req_writes", 1, 0 }, { "req_read_bytes", 1, 0 },
	{ "req_write_bytes", 1, 0 }, { "req_depth", 0, 0 }, { "disk_read_bytes", 1, 0 },
	{ "disk_write_bytes", 1, 0 }, { "opens", 1, 0 }, { "call_reads", 1, 0 },
	{ "call_writes", 1, 0 }, { "call_read_bytes", 1, 0 }, { "call_write_bytes", 1, 0 },
};
/* A phase's totals are its own, between its marks: totals whatever the capture's length. */
static const struct cmp_def cmp_phase_dev[] = {
	{ "ios", 2, 0 }, { "read_bytes", 2, 0 }, { "write_bytes", 2, 0 }, { "mb_s", 0, 0 },
	{ "aqu_sz", 0, 0 }, { "await_us.mean", 0, 0 }, { "await_us.p50", 0, 0 },
	{ "await_us.p99", 0, 0 }, { "await_us.max", 0, 0 },
};
static const struct cmp_def cmp_phase[] = { { "duration_s", 2, 0 } };
static const struct cmp_def cmp_insight[] = { { "fired", 0, 0 }, { "figure", 0, 0 } };

#define CMP_N(a)	(sizeof (a) / sizeof (a)[0])
static const struct cmp_table cmp_tables[CMP_NENTITY] = {
	[CMP_DEVICE] = { JK_DEVICES, JK_NAME, 0, cmp_dev, CMP_N(cmp_dev) },
	[CMP_PROCESS] = { JK_PROCESSES, JK_COMM, 1, cmp_proc, CMP_N(cmp_proc) },
	[CMP_FILE] = { JK_FILES, JK_PATH, 1, cmp_proc, CMP_N(cmp_proc) },
	[CMP_PHASE] = { JK_PHASES, JK_LABEL, 0, cmp_phase_dev, CMP_N(cmp_phase_dev) },
	[CMP_INSIGHT] = { JK_INSIGHTS, JK_CODE, 0, cmp_insight, CMP_N(cmp_insight) },
};

const char *const cmp_entity_names[CMP_NENTITY] = {
	JK_DEVICES, JK_PROCESSES, JK_FILES, JK_PHASES, JK_INSIGHTS
};

/*
 * The command line of a compare: with --compare and a "--", what follows
 * the "--" is side B's captures (*bfiles, *nb), cut off before getopt reads
 * the rest; without a "--", *nb is -1. The arguments left to read.
 */
int
compare_split(int argc, char **argv, char ***bfiles, int *nb)
{
	int	 i, seen = 0;

	*bfiles = NULL;
	*nb = -1;
	for (i = 1; i < argc; i++) {
		/* getopt_long takes --comp, --compa, ... as --compare too (--com is --comm's too). */
		if (strlen(argv[i]) >= 6 && strncmp(argv[i], "--compare", strlen(argv[i])) == 0)
			seen = 1;
		else if (strcmp(argv[i], "--") == 0)
			break;
	}
	if (!seen || i == argc)
		return (argc);
	*bfiles = argv + i + 1;
	*nb = argc - i - 1;
	argv[i] = NULL;
	return (i);
}

/* A token's decimals: the precision -J wrote it with. */
static int
cmp_prec(const struct jr_node *n)
{
	const char	*dot = memchr(n->tok, '.', n->len);

	return (dot != NULL ? (int)(n->tok + n->len - dot - 1) : 0);
}

/* A node's text, allocated. */
static char *
cmp_tok(const struct jr_doc *d, int node)
{
	char	*s;

	if (node < 0)
		return (xstrdup("null"));
	s = xmalloc(d->n[node].len + 1);
	memcpy(s, d->n[node].tok, d->n[node].len);
	s[d->n[node].len] = '\0';
	return (s);
}

/* The figure of (entity, key, key2, name), added if new. */
static struct cmp_fig *
cmp_fig(struct compare *c, enum cmp_entity e, const char *key, const char *key2,
    const struct cmp_def *def)
{
	struct cmp_fig	*f;
	unsigned	 i;

	for (i = 0; i < c->nfig; i++) {
		f = &c->fig[i];
		if (f->entity == e && f->name == def->path && strcmp(f->key, key) == 0 &&
		    strcmp(f->key2 != NULL ? f->key2 : "", key2 != NULL ? key2 : "") == 0)
			return (f);
	}
	if (c->nfig == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 64;
		c->fig = xreallocarray(c->fig, c->cap, sizeof *c->fig);
	}
	f = &c->fig[c->nfig++];
	memset(f, 0, sizeof *f);
	f->entity = e;
	f->key = xstrdup(key);
	f->key2 = key2 != NULL ? xstrdup(key2) : NULL;
	f->name = def->path;
	f->total = def->total;
	return (f);
}

/* A figure's value in one row: 1 with *v and *prec, 0 if null or absent. */
static int
cmp_read(const struct jr_doc *d, int row, const struct cmp_def *def, double *v, int *prec)
{
	char	 op[16], path[48];
	double	 ios;
	int	 n;

	if (strcmp(def->path, "fired") == 0) {
		*v = 1;
		*prec = 0;
		return (1);
	}
	if (!def->per_io) {
		n = json_read_get(d, row, def->path);
		if (!json_read_num(d, n, v))
			return (0);
		*prec = cmp_prec(&d->n[n]);
		return (1);
	}
	snprintf(op, sizeof op, "%.*s", (int)strcspn(def->path, "."), def->path);
	snprintf(path, sizeof path, "%s.ios", op);
	if (!json_read_num(d, json_read_get(d, row, path), &ios) || ios == 0)
		return (0);
	snprintf(path, sizeof path, "%s.bytes", op);
	if (!json_read_num(d, json_read_get(d, row, path), v))
		return (0);
	*v /= ios;
	*prec = 1;
	return (1);
}

/* One row's figures into run r of side s. */
static void
cmp_take(struct compare *c, int s, unsigned r, enum cmp_entity e, const char *key,
    const char *key2, const struct jr_doc *d, int row, const struct cmp_def *defs,
    unsigned ndefs, int sum)
{
	struct cmp_fig	*f;
	double		 v;
	unsigned	 i;
	int		 prec;

	for (i = 0; i < ndefs; i++) {
		f = cmp_fig(c, e, key, key2, &defs[i]);
		if (!cmp_read(d, row, &defs[i], &v, &prec))
			continue;
		if (f->s[s].known[r] && sum)
			f->s[s].v[r] += v;
		else if (!f->s[s].known[r])
			f->s[s].v[r] = v;
		f->s[s].known[r] = 1;
		if (prec > f->prec)
			f->prec = prec;
	}
}

/* Every entity's rows of one run. */
static void
cmp_run_figures(struct compare *c, int s, unsigned r)
{
	const struct jr_doc	*d = &c->run[s][r].doc;
	const struct cmp_table	*t;
	char			*key, *key2;
	int			 arr, row, devs, dev;
	unsigned		 e;

	for (e = 0; e < CMP_NENTITY; e++) {
		t = &cmp_tables[e];
		if ((arr = json_read_get(d, 0, t->array)) < 0 || d->n[arr].type != JR_ARR)
			continue;
		for (row = d->n[arr].child; row >= 0; row = d->n[row].next) {
			key = cmp_tok(d, json_read_get(d, row, t->key));
			key2 = e == CMP_INSIGHT ? cmp_tok(d, json_read_get(d, row, JK_NAME)) : NULL;
			if (e == CMP_PHASE)
				cmp_take(c, s, r, e, key, NULL, d, row, cmp_phase,
				    CMP_N(cmp_phase), 0);
			else
				cmp_take(c, s, r, e, key, key2, d, row, t->defs, t->ndefs,
				    t->sum);
			free(key2);
			devs = e == CMP_PHASE ? json_read_get(d, row, JK_DEVICES) : -1;
			for (dev = devs >= 0 ? d->n[devs].child : -1; dev >= 0;
			    dev = d->n[dev].next) {
				key2 = cmp_tok(d, json_read_get(d, dev, JK_NAME));
				cmp_take(c, s, r, e, key, key2, d, dev, t->defs, t->ndefs, 0);
				free(key2);
			}
			free(key);
		}
	}
}

/* qsort's order of doubles. */
int
compare_doubles(const void *a, const void *b)
{
	double	 x = *(const double *)a, y = *(const double *)b;

	return ((x > y) - (x < y));
}

/* A side's spread: median, min, P95 (nearest rank), max of its known values. */
static void
cmp_spread(struct cmp_side *sd, unsigned nrun)
{
	double		 v[CMP_MAX_RUNS];
	unsigned	 i, n = 0;

	for (i = 0; i < nrun; i++)
		if (sd->known[i])
			v[n++] = sd->v[i];
	sd->n = n;
	if (n == 0)
		return;
	qsort(v, n, sizeof v[0], compare_doubles);
	sd->median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	sd->min = v[0];
	sd->max = v[n - 1];
	sd->p95 = v[(unsigned)ceil(0.95 * n) - 1];
}

/* Each figure's spreads, difference, ratio and significance (CMP_RULE). */
static void
cmp_figures(struct compare *c)
{
	struct cmp_fig	*f;
	struct cmp_side	*a, *b;
	double		 d, range;
	unsigned	 i, r;
	int		 s;

	for (i = 0; i < c->nfig; i++) {
		f = &c->fig[i];
		for (s = 0; s < 2; s++) {
			for (r = 0; r < c->nrun[s]; r++) {
				/* An insight that did not fire in a run: 0 there. */
				if (f->entity == CMP_INSIGHT && strcmp(f->name, "fired") == 0 &&
				    !f->s[s].known[r])
					f->s[s].known[r] = 1;
				if (c->rates && f->total == 1 && f->s[s].known[r])
					f->s[s].v[r] /= c->run[s][r].duration;
			}
			cmp_spread(&f->s[s], c->nrun[s]);
		}
		if (c->rates && f->total == 1)
			f->prec = 3;
		a = &f->s[0];
		b = &f->s[1];
		f->significant = -1;
		if (a->n == 0 || b->n == 0)
			continue;
		f->has_diff = 1;
		f->diff = d = b->median - a->median;
		if ((f->has_ratio = a->median != 0))
			f->ratio = b->median / a->median;
		if (a->n < 2 || b->n < 2)
			continue;
		range = fmax(a->max - a->min, b->max - b->min);
		f->significant = (a->max < b->min || b->max < a->min) && fabs(d) > range &&
		    fabs(d) > CMP_SIG_REL * fmax(fabs(a->median), fabs(b->median));
	}
}

/* What the lengths of the captures make of totals, in a sentence. */
const char *
compare_note(const struct compare *c, char *buf, size_t len)
{
	if (c->rates)
		snprintf(buf, len, "captures of different lengths (%.3f s to %.3f s): totals "
		    "compared as rates per second, latencies and depths as distributions",
		    c->shortest, c->longest);
	else
		snprintf(buf, len, "captures of like lengths (%.3f s to %.3f s, within %.0f%%): "
		    "totals compared as totals", c->shortest, c->longest, CMP_LEN_REL * 100);
	return (buf);
}

/* A file's whole text, NUL-ended. */
static char *
cmp_slurp(FILE *f, size_t *len)
{
	char	*s = NULL;
	size_t	 cap = 0, n;

	*len = 0;
	rewind(f);
	do {
		if (cap - *len < 65536)
			s = xreallocarray(s, (cap = cap * 2 + 65536), 1);
		n = fread(s + *len, 1, cap - *len - 1, f);
		*len += n;
	} while (n > 0);
	s[*len] = '\0';
	return (s);
}

/* Exit with one line: the child's first line of error, or what went wrong. */
static void __attribute__((noreturn))
cmp_fail(const char *path, FILE *errf, const char *why)
{
	char	*msg;
	size_t	 len;

	msg = errf != NULL ? cmp_slurp(errf, &len) : xstrdup("");
	msg[strcspn(msg, "\n")] = '\0';
	if (*msg != '\0')
		fprintf(stderr, "%s\n", msg);
	else
		fprintf(stderr, "%s: --compare: %s: %s\n", log_prog, path, why);
	exit(1);
}

/*
 * One capture replayed alone: in the child, the run set up as
 * `-r PATH -J -d DELAY` writing to out (the caller goes on to run it); in
 * the parent, its lines read back into *text. 1 in the child.
 */
static int
cmp_replay(struct blktop *b, const char *path, double delay, char **text, size_t *len)
{
	FILE	*out, *errf;
	pid_t	 pid;
	int	 st;

	if ((out = tmpfile()) == NULL || (errf = tmpfile()) == NULL)
		fatal("tmpfile");
	fflush(stdout);
	fflush(stderr);
	if ((pid = fork()) == -1)
		fatal("fork");
	if (pid == 0) {
		dup2(fileno(errf), STDERR_FILENO);
		b->opt.replay_files[0] = path;
		b->opt.nreplay_files = 1;
		free((char *)(uintptr_t)b->opt.replay_path);	/* options_replay_name's */
		b->opt.replay_path = path;
		b->opt.batch = b->opt.batch_opts.json = 1;
		b->opt.batch_opts.out = out;
		/* As -d on the command line: it wins over the capture's own interval. */
		options_offer(b, "delay", delay, OPTION_FROM_COMMAND);
		b->opt.report_opts.path = NULL;
		b->opt.trace_opts.path = NULL;
		b->opt.capture_opts.record_path = NULL;
		b->opt.metrics_opts.listen_port = 0;
		return (1);
	}
	if (waitpid(pid, &st, 0) == -1)
		fatal("waitpid");
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		cmp_fail(path, errf, "its replay failed");
	*text = cmp_slurp(out, len);
	if (*len == 0)
		cmp_fail(path, errf, "no report (nothing in the capture)");
	fclose(out);
	fclose(errf);
	return (0);
}

/* A run's one -J line (-d 3600: the whole capture) parsed; exits with one line if it is not one. */
static void
cmp_run_line(struct cmp_run *run)
{
	char	*err, *nl;

	if ((nl = strchr(run->line, '\n')) != NULL && nl[1] != '\0')
		cmp_fail(run->path, NULL, "longer than 3600 s: --compare reads captures of up to "
		    "an hour, one -J interval each");
	if (nl != NULL)
		*nl = '\0';
	run->len = strlen(run->line);
	if (json_read_parse(&run->doc, run->line, run->len, &err) != 0 ||
	    !json_read_num(&run->doc, json_read_get(&run->doc, 0, JK_INTERVAL_S), &run->duration))
		cmp_fail(run->path, NULL, "its -J line cannot be read");
}

/* Everything the compare holds. */
static void
cmp_free(struct compare *c)
{
	unsigned	 i, r;
	int		 s;

	for (s = 0; s < 2; s++) {
		for (r = 0; r < c->nrun[s]; r++) {
			free(c->run[s][r].line);
			json_read_free(&c->run[s][r].doc);
		}
	}
	for (i = 0; i < c->nfig; i++) {
		free(c->fig[i].key);
		free(c->fig[i].key2);
	}
	free(c->fig);
	for (s = 0; s < 2; s++) {
		for (r = 0; r < c->nser[s]; r++)
			json_read_free(&c->ser[s][r]);
		free(c->ser[s]);
		free(c->series[s]);
	}
	free(c);
}

/* Exit with one line about the command line of a compare. */
static void __attribute__((noreturn))
cmp_usage(const char *why)
{
	fprintf(stderr, "%s: --compare: %s (--compare A B, or --compare A1 A2 ... -- "
	    "B1 B2 ...)\n", log_prog, why);
	exit(2);
}

/*
 * --compare: every capture replayed in a child of its own; returns in each
 * child (to run as a replay), never in the parent, which writes the compare
 * by out (compare-out.c: as the options ask) and exits.
 */
void
compare_main(struct blktop *b, char **bfiles, int nb, compare_write_fn *out, int over_time)
{
	struct compare	*c = xcalloc(1, sizeof *c);
	const char	*a[MERGE_MAX_FILES];
	unsigned	 na = b->opt.nreplay_files, i, r;
	int		 s;

	if (b->opt.capture_opts.record_path != NULL || b->opt.metrics_opts.listen_port != 0 ||
	    b->opt.trace_opts.path != NULL || b->opt.batch_opts.stack || b->opt.dump_opts.format != 0)
		cmp_usage("-w, --listen, --trace, --stack and --dump are a run's, not a compare's");
	memcpy(a, b->opt.replay_files, na * sizeof a[0]);
	if (nb < 0) {
		if (na != 2)
			cmp_usage("two captures, or two sets apart by --");
		na = 1;
		bfiles = (char **)&a[1];
		nb = 1;
	}
	if (na == 0 || nb == 0)
		cmp_usage(na == 0 ? "no capture before --" : "no capture after --");
	if (nb > CMP_MAX_RUNS)
		cmp_usage("at most 64 captures a side");
	c->nrun[0] = na;
	c->nrun[1] = (unsigned)nb;
	for (i = 0; i < na; i++)
		c->run[0][i].path = a[i];
	for (i = 0; i < (unsigned)nb; i++)
		c->run[1][i].path = bfiles[i];
	for (s = 0; s < 2; s++)
		for (r = 0; r < c->nrun[s]; r++)
			if (cmp_replay(b, c->run[s][r].path, OPTION_INTERVAL_MAX, &c->run[s][r].line,
			    &c->run[s][r].len)) {
				cmp_free(c);
				return;
			}
	for (s = 0; s < 2; s++) {
		for (r = 0; r < c->nrun[s]; r++) {
			cmp_run_line(&c->run[s][r]);
			if (s == 0 && r == 0)
				c->shortest = c->longest = c->run[0][0].duration;
			c->shortest = fmin(c->shortest, c->run[s][r].duration);
			c->longest = fmax(c->longest, c->run[s][r].duration);
			cmp_run_figures(c, s, r);
		}
	}
	c->rates = c->longest > c->shortest * (1 + CMP_LEN_REL);
	cmp_figures(c);
	/* The heatmaps over time (report, UI): each side's first run again, in CMP_COLUMNS intervals. */
	for (s = 0; s < 2 && (over_time || b->opt.report_opts.path != NULL); s++) {
		if (cmp_replay(b, c->run[s][0].path, fmin(OPTION_INTERVAL_MAX, fmax(OPTION_INTERVAL_MIN,
		    c->run[s][0].duration / CMP_COLUMNS)), &c->series[s], &c->series_len[s])) {
			cmp_free(c);
			return;
		}
		compare_heat_series(c, s);
	}
	out(b, c);
	cmp_free(c);
	fflush(stdout);
	exit(ferror(stdout) ? 1 : 0);
}

/* The end of the group of figures (one entity's row) that starts at i. */
unsigned
compare_group_end(const struct compare *c, unsigned i)
{
	const struct cmp_fig	*f = &c->fig[i];
	unsigned		 j;

	for (j = i + 1; j < c->nfig; j++) {
		if (c->fig[j].entity != f->entity || strcmp(c->fig[j].key, f->key) != 0 ||
		    (c->fig[j].key2 == NULL) != (f->key2 == NULL) ||
		    (f->key2 != NULL && strcmp(c->fig[j].key2, f->key2) != 0))
			break;
	}
	return (j);
}

/* A value of figure f with its precision, or null. */
void
compare_value(FILE *out, const struct cmp_fig *f, int known, double v)
{
	json_val(out, known, f->prec, v);
}

/*
 * A figure's basis: "total", "per_s" (a capture's total over its length,
 * when lengths differ) or "rate" (a rate or a distribution's figure).
 */
const char *
compare_basis(const struct compare *c, const struct cmp_fig *f)
{
	return (!f->total ? "rate" : c->rates && f->total == 1 ? "per_s" : "total");
}
