/*
 * insight.h: named findings over the model, Drishti's idea with blktop's
 * data (doc/insights.md): each rule has a stable code, a level, a subject
 * (file, process), the figure it measured, the rule and its threshold as
 * text, and a one-line recommendation.
 */
#ifndef BLKTOP_INSIGHT_H
#define BLKTOP_INSIGHT_H

#include <stdint.h>
#include <stdio.h>

enum insight_level { INSIGHT_INFO, INSIGHT_WARN, INSIGHT_HIGH };
enum insight_subject { INSIGHT_FILE, INSIGHT_PROC, INSIGHT_DEVICE };

/* The thresholds (the config file's insight.* keys). */
struct insight_conf {
	uint64_t	 min_calls;	/* small-io: a file's calls, over it; random-io: its random calls of one direction, over it */
	uint64_t	 small_bytes;	/* a Darshan bin edge: calls up to it are small */
	double		 small_share;	/* small-io: share of the calls that are small, over it */
	double		 random_share;	/* random-io: share of the calls with an offset not sequential, over it */
	uint64_t	 storm_opens;	/* open-storm: opens of a process since first seen, at least */
	double		 storm_ratio;	/* ...and opens per read/write call, over it */
	double		 reread_factor;	/* re-read: bytes read over this many times the bytes touched */
	uint64_t	 reread_bytes;	/* re-read, re-read-from-disk, cache-served: bytes read again, at least */
	double		 misaligned_share;	/* misaligned-direct: share of a file's O_DIRECT calls misaligned, over it */
	uint64_t	 fsync_calls;	/* fsync-heavy: fsyncs of a process, at least */
	double		 fsync_ratio;	/* ...and fsyncs per write call, over it */
	uint64_t	 min_requests;	/* a device's requests before the device rules judge it */
	double		 queue_share;	/* queue-saturated: share of the await spent queued, over it */
	double		 meta_share;	/* metadata-heavy: share of the bytes metadata or journal, over it */
	uint64_t	 wb_pause_ms;	/* writeback-storm: a process's pauses for dirtying, ms, at least */
	double		 wb_pause_share;	/* ...and over this share of its time */
};

struct blktop;
struct devwin;
struct file_entry;
struct proc_entry;
struct proc_table;

/* One finding. The entry is valid until the next event goes into the model. */
struct insight {
	const struct insight_rule	*rule;
	const struct file_entry		*file;	/* INSIGHT_FILE */
	const struct proc_entry		*proc;	/* INSIGHT_PROC */
	const struct devwin		*dev;	/* INSIGHT_DEVICE */
	double				 figure;	/* the share or ratio measured */
	uint64_t			 n;	/* the calls (opens, requests) it was measured on */
};

struct insight_rule {
	const char		*code;
	enum insight_level	 level;
	enum insight_subject	 subject;
	/* Fills figure and n; 1 if the rule fires. */
	int			(*fire)(const struct insight_conf *, const void *entry,
				    double *figure, uint64_t *n);
	/* The figure and the rule with its thresholds, as text. */
	void			(*text)(const struct insight_conf *, const struct insight *,
				    char *figure, size_t, char *rule, size_t);
	const char		*advice;
	unsigned		 need;	/* HAVE_* bits the source must have for it to judge */
};

#define INSIGHT_MAX	64	/* findings one scan reports at most, highest level first */

extern const struct insight_conf insight_defaults;
extern const struct insight_rule insight_rules[];
extern const unsigned insight_nrules;

unsigned	 insight_scan(const struct blktop *, struct insight *, unsigned max,
		     uint64_t *more);
const char	*insight_level_name(enum insight_level);
int		 insight_small_edge(uint64_t);

#endif
