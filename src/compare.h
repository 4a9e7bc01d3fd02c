/*
 * compare.h: --compare, two runs or two sets of runs side by side
 * (compare.c): each capture replayed alone, in a child of its own, into its
 * own model and -J line (-d 3600: one interval, the whole capture); the
 * figures of devices, processes (by command), files (by path), phases (by
 * mark label and device) and insights read back from those lines, then each
 * figure's spread per side, difference, ratio and significance. Written as
 * -J's "compare" object (json-compare.c), -b's table (compare-text.c) or an
 * HTML page (sink-report-compare.c).
 */
#ifndef BLKTOP_COMPARE_H
#define BLKTOP_COMPARE_H

#include <stdio.h>

#include "json-read.h"

struct blktop;

#define CMP_MAX_RUNS	64	/* a side's captures (MERGE_MAX_FILES) */
#define CMP_SIG_REL	0.05	/* the medians' least difference, of the larger, to count */
#define CMP_COLUMNS	60	/* --report: a heatmap's columns over a capture's length */
#define CMP_LEN_REL	0.10	/* captures longer than another by this: totals as rates */
#define CMP_RULE	"significant when both sides have 2 runs or more, their ranges " \
			"[min, max] do not overlap, and the medians differ by more than the " \
			"range (max - min) of either side and by more than 5% of the larger " \
			"median; single runs have no spread: null"

enum cmp_entity { CMP_DEVICE, CMP_PROCESS, CMP_FILE, CMP_PHASE, CMP_INSIGHT, CMP_NENTITY };

/* One capture of a side: its path, its -J line and that line's nodes. */
struct cmp_run {
	const char	*path;
	char		*line;
	size_t		 len;
	struct jr_doc	 doc;
	double		 duration;	/* its interval_s */
};

/* A side's values of one figure: the spread over its runs. */
struct cmp_side {
	double		 v[CMP_MAX_RUNS];
	unsigned char	 known[CMP_MAX_RUNS];
	unsigned	 n;		/* runs with a value */
	double		 median, min, p95, max;
};

/* One figure of one entity, both sides. */
struct cmp_fig {
	enum cmp_entity	 entity;
	char		*key, *key2;	/* the entity's JSON string tokens (key2: a phase's device) */
	const char	*name;		/* the figure, as -J's path names it */
	int		 total;		/* 1: grows with the capture's length; 2: a phase's */
	int		 prec;		/* decimals, as -J wrote it */
	struct cmp_side	 s[2];
	double		 diff, ratio;
	int		 has_diff, has_ratio;
	int		 significant;	/* 1, 0, -1: null (a side of one run) */
};

struct compare {
	struct cmp_run	 run[2][CMP_MAX_RUNS];
	unsigned	 nrun[2];
	struct cmp_fig	*fig;
	unsigned	 nfig, cap;
	int		 rates;		/* lengths differ: totals compared per second */
	double		 shortest, longest;
	char		*series[2];	/* --report, the UI: each side's first run, -J lines over time */
	size_t		 series_len[2];
	struct jr_doc	*ser[2];	/* those lines parsed (compare-heat.c) */
	unsigned	 nser[2];
};

/*
 * A compared device's latency heatmaps (compare-heat.c): its buckets (those
 * timed in any run, fastest first), each side's share of a column's requests
 * per bucket over time ([x * nb + i]) and per run ([r * nb + i]), and B - A.
 */
#define CMP_HEAT_BUCKETS	256
#define CMP_HEAT_RULE	"B - A per time column when the time columns align (captures of " \
			"like lengths, each side's first run cut into as many columns); " \
			"else per bucket: B's median share of a run's requests less A's"
struct cmp_heat {
	double		 lo[CMP_HEAT_BUCKETS];	/* a bucket's lower bound, us */
	unsigned	 nb;
	unsigned	 nx[2];		/* each side's columns over time */
	double		*time[2];
	unsigned	 ndiff;		/* columns of time_diff: the more of nx[] */
	double		*time_diff;	/* column x: the same fraction of each side's length */
	double		*run[2];
	double		 run_diff[CMP_HEAT_BUCKETS];	/* B's median share less A's */
	int		 aligned;	/* CMP_HEAT_RULE: time_diff is the difference, else run_diff */
};

extern const char *const cmp_entity_names[CMP_NENTITY];

/* compare.c */
int		 compare_split(int argc, char **argv, char ***bfiles, int *nb);
/* Writes a compare as the options ask (compare-out.c's compare_write). */
typedef void	 compare_write_fn(const struct blktop *, const struct compare *);
void		 compare_main(struct blktop *, char **bfiles, int nb, compare_write_fn *,
		     int over_time);
/* compare-out.c */
void		 compare_write(const struct blktop *, const struct compare *);
const char	*compare_note(const struct compare *, char *, size_t);
int		 compare_doubles(const void *, const void *);
unsigned	 compare_group_end(const struct compare *, unsigned);
const char	*compare_basis(const struct compare *, const struct cmp_fig *);
void		 compare_value(FILE *, const struct cmp_fig *, int known, double v);

/* compare-heat.c */
int		 compare_heat(const struct compare *, const char *key, struct cmp_heat *);
void		 compare_heat_free(struct cmp_heat *);
void		 compare_heat_fold(const struct cmp_heat *, const double *m, unsigned nx,
		     unsigned ncols, unsigned nsub, double *out);
void		 compare_heat_series(struct compare *, int side);

/* compare-text.c: a figure's row as cells, for -b and the UI */
enum { CMP_CELL_NAME, CMP_CELL_A, CMP_CELL_B, CMP_CELL_DIFF, CMP_CELL_RATIO, CMP_CELL_SIG,
	CMP_NCELLS };
#define CMP_CELL_LEN	96
void		 compare_cells(const struct compare *, const struct cmp_fig *, int json,
		     char [CMP_NCELLS][CMP_CELL_LEN]);

/* compare-text.c, json-compare.c, sink-report-compare.c */
void		 compare_text(FILE *, const struct compare *);
void		 compare_json(FILE *, const struct compare *);
void		 compare_html(FILE *, const struct compare *);
/* ui/ui-compare.c: the compare on a terminal, main.c's writer without -b, -J or --report */
void		 ui_compare(const struct blktop *, const struct compare *);

#endif
