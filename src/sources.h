/*
 * sources.h: what makes records: a kind of source as a table entry
 * (struct source_entry) and its instance, the live source's hook plan and
 * BPF cost, and source.c, source-live.c and source-replay.c's entry points.
 * For the sources, the stream, main.c and the views' controls; the live
 * source's own parts are in source-live.h, the files a replay reads in
 * replay.h.
 */
#ifndef BLKTOP_SOURCES_H
#define BLKTOP_SOURCES_H

#include <stdint.h>
#include <stdio.h>

struct blktop;
struct source;

/* Hook variants for block requests, chosen by probing or forced. */
enum hook_attach { ATTACH_TP_BTF, ATTACH_RAW_TP, ATTACH_MAX };
enum hook_start { START_IO_START, START_RQ_INSERT, START_ISSUE, START_MAX };

struct hook_plan {
	enum hook_attach attach;
	enum hook_start	 start;
};

/* Run time of BPF programs, as the kernel counts it (source-cost.c). */
struct prog_cost {
	uint64_t	 run_ns;	/* 0 while statistics are off */
	uint64_t	 runs;
	uint64_t	 misses;	/* runs skipped: the program would have nested */
	uint64_t	 paths_reused;	/* read/write records sent without their path, put back */
	uint64_t	 paths_missed;	/* ... whose path user space did not have */
	uint64_t	 batched;	/* records that came in a batch (EV_BATCH) */
};

/* Where a source stands, for the UI's header. */
struct source_status {
	int64_t		 wall_ns;	/* the recording's wall clock at the position */
	uint64_t	 pos_ns;	/* stream time of the position */
	double		 speed;		/* 0 = as fast as possible */
	int		 paused;
	int		 at_end;
};

/*
 * A kind of source (the live kernel, recorded files): a table entry whose
 * callbacks take the instance. The controls are NULL where a source has
 * none: the UI offers what is there and says what is not.
 */
struct source_entry {
	const char	*name;
	int		 own_ticks;	/* its records carry the ticks; else blktop's timer */
	const char	*lost_where;	/* where lost events were lost, for the exit line */
	int		 (*start)(struct source *, char **errp);
	void		 (*drain)(struct source *);	/* hand pending events to the stream */
	void		 (*halt)(struct source *);	/* the run is over: no more records (optional) */
	void		 (*stop)(struct source *);
	int		 (*device)(struct source *, const char *arg, uint32_t *dev,
			     char **errp);		/* a device name as this source knows it */
	void		 (*pause)(struct source *);
	void		 (*step)(struct source *);	/* one tick forward, paused */
	void		 (*seek)(struct source *, double delta_secs);
	void		 (*seek_start)(struct source *);
	void		 (*set_speed)(struct source *, double);
	void		 (*status)(struct source *, struct source_status *);
	int		 (*cost)(struct source *, struct prog_cost *); /* -1: unknown */
};

/* The source of one run: its entry and its own state. */
struct source {
	const struct source_entry *entry;
	struct blktop	*b;
	void		*data;
};

/* source.c: the source of a run, whatever its kind. */
struct source	*source_create(struct blktop *, const struct source_entry *);
void		 source_free(struct source *);
int		 source_device(struct source *, const char *arg, uint32_t *dev,
		     char **errp);
uint64_t	 source_now(void);

/* source-live.c */
extern const struct source_entry source_live;
int		 live_check_privileges(char **errp);
void		 live_print_probe(const struct blktop *, FILE *);
int		 live_parse_hooks(const char *spec, struct hook_plan *, char **errp);

/* source-replay.c: captures and imported text logs, paced, with seek and step. */
#define REPLAY_SPEED_MIN	0.25
#define REPLAY_SPEED_MAX	64.0
extern const struct source_entry source_replay;

#endif /* BLKTOP_SOURCES_H */
