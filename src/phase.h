/*
 * phase.h: marks and the phases between them (model-phase.c), and mark.c,
 * which takes marks into a live run (blktop --mark). For the model, the
 * sinks that write phases (-J, --report, --trace), the UI and main.c.
 */
#ifndef BLKTOP_PHASE_H
#define BLKTOP_PHASE_H

#include <stddef.h>
#include <stdint.h>

#include "event.h"
#include "window.h"

struct blktop;

/* model-phase.c: marks and the phases between them. */
#define PHASE_DEVS	16		/* devices with figures per phase */
#define PHASE_MAX	256		/* closed phases kept (the oldest go first) */
#define MARK_RING	256		/* marks kept for the views */
struct mark {
	uint64_t	 ts;
	uint32_t	 pid;
	char		 label[MARK_LABEL_MAX];
};
struct phase_dev {			/* one device over one phase; NAN where nothing is behind */
	uint32_t	 dev;
	uint64_t	 ios, timed;
	uint64_t	 bytes[OPC_MAX];
	double		 secs, mb_s, aqu;
	double		 mean_us, p50_us, p90_us, p99_us, max_us;	/* await: start to completion */
};
struct phase {
	uint64_t	 start, end;	/* stream time */
	uint64_t	 seq;		/* closed phases before it */
	int		 has_label;	/* 0: the run's start, before any mark */
	int		 ended;		/* the open phase was closed at the run's end */
	uint32_t	 pid;		/* who sent its mark */
	char		 label[MARK_LABEL_MAX];
	unsigned	 ndevs;
	uint64_t	 devs_dropped;	/* requests of devices past PHASE_DEVS */
	struct phase_dev devs[PHASE_DEVS];
};
struct phase_table;
struct phase_table *phase_create(uint64_t ts);
void		 phase_free(struct phase_table *);
void		 phase_reset(struct phase_table *, uint64_t ts);
void		 phase_add_block(struct phase_table *, const struct ev_block *);
void		 phase_add_mark(struct phase_table *, const struct ev_mark *);
void		 phase_end(struct phase_table *, uint64_t ts);
void		 phase_interval(struct phase_table *);
unsigned	 phase_count(const struct phase_table *, int interval, uint64_t *first);
const struct phase *phase_get(const struct phase_table *, uint64_t seq);
uint64_t	 phase_dropped(const struct phase_table *);
uint64_t	 phase_unlisted(const struct phase_table *, int interval);
unsigned	 phase_marks(const struct phase_table *, int interval, uint64_t *first);
const struct mark *phase_mark(const struct phase_table *, uint64_t seq);
uint64_t	 phase_marks_unlisted(const struct phase_table *, int interval);

/* mark.c: marks into a live run, blktop --mark. */
void		 mark_listen(struct blktop *);
void		 mark_close(void);
int		 mark_send(const char *label);
const char	*mark_label_bad(const char *, size_t);

#endif /* BLKTOP_PHASE_H */
