/*
 * replay.h: the files a replay reads: one file, a capture or a text log, by
 * its first bytes (replay-file.c), several merged into one stream in time
 * order (source-merge.c), the text-log importer's public face (import.c;
 * import.h has its formats' internals). For source-replay.c, --dump and
 * their tests.
 */
#ifndef BLKTOP_REPLAY_H
#define BLKTOP_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "base.h"

struct blktop;
struct capture_header;

/* -r FILE...: files merged into one replay at most, and source-merge.c's limits. */
#define MERGE_MAX_FILES		64
#define MERGE_MAJOR		4094		/* devices renumbered for a clash */
#define MERGE_GAP_NS		(3600 * NSEC_PER_SEC)	/* longer silences: one tick */
#define MERGE_NAMES_MAX		4096		/* opens kept for the basename join */

/* replay-file.c: one file of a replay, a capture or a text log, by its first bytes. */
struct replay_file;
struct replay_file *replay_file_open(const char *path, int quiet, char **errp);
int		 replay_file_next(struct replay_file *, void *buf, size_t size,
		     size_t *lenp);
const struct capture_header *replay_file_header(struct replay_file *);
void		 replay_file_close(struct replay_file *, uint64_t *skipped,
		     uint64_t *tail_lost);
int		 replay_header_device(const struct capture_header *, const char *arg,
		     uint32_t *dev, char **errp);
const char *const *replay_paths(const struct blktop *, unsigned *np);

/* source-merge.c: the files of one run (-r FILE...) as one stream in time order. */
struct merge;
struct merge_names;
struct merge	*merge_open(const char *const *paths, unsigned n, int quiet,
		     char **errp);
const struct capture_header *merge_header(struct merge *);
unsigned	 merge_nfiles(struct merge *);
const struct capture_header *merge_file_header(struct merge *, unsigned);
void		 merge_set_tick(struct merge *, uint64_t tick_ns);
int		 merge_last_host(struct merge *);
/* source-merge-clock.c */
void		 merge_clock_move(void *rec, size_t len, int64_t delta);
int		 merge_next(struct merge *, void *buf, size_t size, size_t *lenp);
void		 merge_close(struct merge *, int report, uint64_t fed);
struct merge_names *merge_names_create(void);
void		 merge_names_free(struct merge_names *);
void		 merge_names_open(struct merge_names *, const void *rec, size_t len);
int		 merge_names_join(struct merge_names *, const void *rec, size_t len,
		     void *out, size_t size, size_t *outlen);
uint64_t	 merge_names_joined(const struct merge_names *);

/* import.c: text logs of bpftrace scripts as event records. */
struct import;
struct capture_header;
/* What import_open found in a log's lines. */
struct import_counts {
	uint64_t	 records;	/* lines imported (alignment lines: used) */
	uint64_t	 malformed;	/* lines of the format that do not parse */
	unsigned long	 first_malformed; /* the first one's line number, 0 if none */
	uint64_t	 skipped;	/* lines that are no record: bpftrace's own (Attaching,
					   WARNING, ERROR, Lost), headers, blank lines,
					   anonymous mmaps */
	uint64_t	 notes;		/* ... of them bpftrace's WARNING and ERROR lines */
	uint64_t	 lost;		/* events bpftrace said it lost (EV_LOST records) */
};
struct import	*import_open(const char *path, char **errp);
int		 import_next(struct import *, void *buf, size_t size, size_t *lenp);
const struct capture_header *import_header(struct import *);
const struct import_counts *import_counts(const struct import *);
void		 import_close(struct import *);

#endif /* BLKTOP_REPLAY_H */
