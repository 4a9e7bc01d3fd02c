/*
 * report.h: --report, the whole run in columns (sink-report.c) written as
 * JSON or HTML (sink-report-html.c); blktop.h first.
 */
#ifndef BLKTOP_REPORT_H
#define BLKTOP_REPORT_H

#include "draw.h"

/*
 * sink-report.c: the whole run in at most REPORT_COLS_MAX columns per device
 * (adjacent pairs merge when they run out), written at the end as one HTML
 * page (sink-report-html.c) or one JSON object.
 */
#define REPORT_COLS_MAX	720	/* 12 minutes of 1 s ticks before the first merge */
#define REPORT_FILES	32	/* files followed for the timeline */
#define REPORT_DEVS_MAX	64	/* devices with columns of their own (700 KiB each) */
#define REPORT_TOP	10	/* rows of the tables and of the timeline */
#define REPORT_PATH_MAX	256
#define REPORT_ANOMALY_MIN 20	/* timed requests a column needs to be judged */
#define REPORT_ANOMALY_X 3.0	/* p99 over this times the median column p99 */
struct report_col {		/* one device over one column */
	uint64_t	 ios[OPC_MAX];
	uint64_t	 bytes[OPC_MAX];
	uint64_t	 timed;
	uint64_t	 errors;
	uint64_t	 busy_ns;
	uint64_t	 wait_sum;
	uint64_t	 lat_sum;
	uint64_t	 lat_min;	/* of the timed ones; 0 when none */
	uint64_t	 lat_max;
	uint32_t	 qd_max;
	uint32_t	 lat[HIST_NBUCKETS];	/* device time, every operation */
	uint32_t	 band[2][MAP_BANDS];	/* reads, writes by where they start (offset map) */
};
struct report_dev {
	uint32_t	 dev;
	uint32_t	 qd_peak;
	unsigned	 map_shift;	/* a band of its offset map: 1 << map_shift sectors */
	uint64_t	 qd_peak_ts;	/* start of the tick that saw it */
	struct sum	 tot;		/* the whole run */
	struct report_col *cols;	/* REPORT_COLS_MAX */
};
struct report_file {		/* a file on the timeline */
	char		 path[REPORT_PATH_MAX];
	uint64_t	 total;
	uint64_t	*rw;		/* bytes read, written: REPORT_COLS_MAX pairs */
};
struct report_span {		/* columns [first, last] where p99 jumped */
	unsigned	 first, last;
	uint64_t	 p99;		/* the highest column p99 of them */
};
struct report {
	struct report_opts	 opts;		/* as the sink was added with */
	FILE			*f;
	int			 json;
	struct theme		 theme;
	uint64_t		 first_ts, last_ts;	/* stream time covered */
	uint64_t		 ticks;
	unsigned		 ncols, ticks_per_col, ticks_in_col;
	uint64_t		 col_start[REPORT_COLS_MAX];
	uint64_t		 col_end[REPORT_COLS_MAX];
	unsigned		 ndevs;
	struct report_dev	*devs[REPORT_DEVS_MAX];
	unsigned		 ndropped;	/* devices past REPORT_DEVS_MAX: not charted */
	uint64_t		 dropped_requests;	/* their requests */
	uint8_t			 dropped_seen[WINDOWS_MAX_DEVS];	/* by windows index */
	unsigned		 nfiles;
	struct report_file	 files[REPORT_FILES];
};
/* report-col.c */
uint64_t	 report_col_pct(const struct report_col *, double p);
uint64_t	 report_col_median_p99(const struct report *, const struct report_dev *);
unsigned	 report_col_anomalies(const struct report *, const struct report_dev *,
		     struct report_span *, unsigned max);
/* report-hosts.c: a report of several hosts */
struct report_host_sum {	/* one host's devices, summed */
	unsigned	 ndevs;
	uint64_t	 ios[OPC_MAX], bytes[OPC_MAX], errors[OPC_MAX];
};
void		 report_hosts_sum(const struct report *, int host, int all,
		     struct report_host_sum *);
int		 report_hosts_none(const struct report *);
const char	*report_dev_name(uint32_t dev, char *buf, size_t len);
void		 report_hosts_json(FILE *, const struct report *);
/* json-run.c */
void		 json_run_report(FILE *, const struct blktop *, const struct report *);
/* sink-report.c */
size_t		 report_dropped_text(const struct blktop *, const struct report *, char *,
		     size_t);
void		 report_html(FILE *, const struct blktop *, const struct report *);
/* sink-report-html.c: the page; its parts share these. */
#define HTML_NSUB	28	/* heatmap rows: 4 a decade from 1 us to 10 s */
#define HTML_ROW_H	8	/* pixels of a heatmap row */
#define HTML_LEFT	56	/* room for the y axis labels */
#define HTML_BOTTOM	18	/* room for the time labels */
#define HTML_CHART_H	90	/* plot height of a line chart */
#define HTML_WIDTH	960	/* widest plot */
#define HTML_LANE_H	14	/* a file's lane on the timeline */

/* What every chart of one page shares: columns, their width, colours. */
struct html {
	FILE			*f;
	const struct blktop	*b;
	const struct report	*r;
	unsigned		 cw;		/* pixels a column */
	unsigned		 pw;		/* plot width */
	char			 bg[8], fg[8], grid[8], dim[8];
};
void		 html_text(FILE *, const char *);
void		 html_colour(const struct report *, enum theme_colour, const char *fallback, char *out);
const char	*html_trim(const char *);
/* sink-report-depth.c */
void		 report_depth_html(struct html *);
/* sink-report-hosts.c */
void		 report_hosts_html(struct html *);
/* sink-report-tables.c */
void		 report_tables_procs(struct html *);
void		 report_tables_files(struct html *);
void		 report_tables_pattern(struct html *);
void		 report_tables_insights(struct html *);
void		 report_tables_timeline(struct html *);
char		*html_time(const struct blktop *, uint64_t ts, int whole, char *, size_t);
/* sink-report-stack.c */
void		 report_stack_html(struct html *);
void		 report_stack_jobs(struct html *);
/* sink-report-phases.c */
void		 report_html_phases(FILE *, const struct blktop *);

#endif
