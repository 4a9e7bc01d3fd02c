/* import.h: what the importer's files share (import.c and its formats, import-*.c); include after replay.h and capture-file.h. */

#ifndef IMPORT_H
#define IMPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#define IMPORT_MAX_TOKENS	16
#define IMPORT_PTIME_KEY	40		/* bytes of a TIME whose strptime is remembered */
/* The largest record a line makes. */
#define IMPORT_REC_WORDS	((sizeof(struct ev_rw) + sizeof(struct ev_open) + \
				    sizeof(struct ev_fop) + VFS_PATH_MAX + 2) / 8 + 1)

struct import;

/* The first blank-separated words of a line, for the formats' headers. */
struct import_words {
	const char	*w[7];
	size_t		 l[7];
	unsigned	 n;
};

/*
 * A log format: one per bpftrace script. Detection asks each format's head
 * whether a line is its header or block marker, then each sniff (in table
 * order) whether a line is one of its records; parse makes a line a record.
 */
struct import_format {
	const char	*name;
	int		 life;		/* its records fill the lifecycle fields: "+life" */
	int		 calls;		/* its records fill the read/write call fields: "+calls" */
	int		 no_events;	/* its lines say something of the log, no events */
	/* Whether the line is its header or a block marker; *auxp what it says
	 * (kept in im->aux for parse), *gluedp a record stuck to it, or NULL. */
	int		(*head)(const struct import_words *, int *auxp,
			    const char **gluedp);
	/* Whether a line with no header before it is one of its records; else
	 * *whyp why not (NULL: no word in the message). */
	int		(*sniff)(struct import *, const struct import_format *,
			    char *line, const char **whyp);
	/* The line as a record (*lenp bytes at rec, 0 for none, *tsp its time,
	 * *timep its wall TIME or NULL): 0; 1 for a line that is no record, -1
	 * if malformed (*whyp). */
	int		(*parse)(struct import *, char *line, void *rec, size_t *lenp,
			    uint64_t *tsp, const char **timep, const char **whyp);
	void		(*start)(struct import *);	/* its state in im->data */
	void		(*rewind)(struct import *);	/* forget what lines taught */
	void		(*learn)(struct import *);	/* the record just parsed, first pass */
	/* The clock its lines give: the offset, or -1 with *errp. */
	int		(*clock)(struct import *, int64_t *offp, char **errp);
	void		(*free)(struct import *);
};

/* What a line that is no record is. */
enum import_skip {
	IMPORT_SKIP_QUIET = 1,		/* blank, comment, header, Attaching, marker */
	IMPORT_SKIP_NOTE,		/* bpftrace's WARNING or ERROR: reported */
	IMPORT_SKIP_LOST,		/* "Lost N events": an EV_LOST record */
};

/* An open text log. */
struct import {
	FILE			*f;
	char			*path;
	const struct import_format *format;	/* NULL while it is being found */
	void			*data;		/* the format's own state */
	int			 aux;		/* what its last header said (0: none) */
	char			*rbuf;		/* what was read and not used yet */
	size_t			 roff;
	size_t			 rend;
	char			*line;		/* the line, its first IMPORT_LINE_MAX bytes */
	size_t			 len;		/* its whole length, newline excluded */
	char			*work;		/* a copy of it the parsers cut up */
	char			 why[96];	/* why a line is malformed, if not constant */
	unsigned long		 lineno;
	struct capture_header	 hdr;
	uint64_t		 tick_end;	/* next tick boundary */
	uint64_t		 pend[IMPORT_REC_WORDS];
	size_t			 pend_len;
	uint64_t		 pend_ts;
	int			 have_pend;
	int			 any;		/* a record was returned */
	int			 done;		/* the final tick was returned */
	struct tm		 wall_tm;	/* the last local time converted, */
	time_t			 wall_t;	/* and what mktime made of it */
	int			 have_wall;
	char			 ptime_key[IMPORT_PTIME_KEY]; /* what strptime read last, */
	size_t			 ptime_len;	/* its length (0: none), */
	struct tm		 ptime_tm;	/* and what it made of it */
	enum import_skip	 skip;		/* what the line import_parse passed over is */
	uint64_t		 skip_lost;	/* IMPORT_SKIP_LOST: the events lost */
	uint64_t		 first_ts;	/* the first record's time (after import_open) */
	uint64_t		 last_ts;	/* the last record's: when bpftrace lost events */
	struct import_counts	 counts;
};

/* import.c */
int		 import_sniff_parse(struct import *, const struct import_format *,
		     char *line, const char **whyp);
int		 import_wall(struct import *, const char *s, int64_t *wallp,
		     unsigned *digitsp);

/* import-field.c */
int		 import_field_u64(const char *s, uint64_t *v);
int		 import_field_s64(const char *s, int64_t *v);
int		 import_field_s32(const char *s, int32_t *v);
int		 import_field_lat(const char *s, uint64_t *lat);
int		 import_field_num(const char *s, int octal, uint64_t *v);
int		 import_field_is_hex(const char *s);
int		 import_field_is_time(const char *s);
unsigned	 import_field_split(char *s, const char *sep, char **tok, unsigned max);
unsigned	 import_field_cut(char *line, char **tok, unsigned max, char **restp);
char		*import_field_trim(char *s);
int		 import_field_ts_pid(char **tok, uint64_t *ts, uint32_t *pid,
		     const char **whyp);
int		 import_field_lead(char *line, char **tok, unsigned *np, uint64_t *ts,
		     const char **time, uint64_t *pid, const char **comm,
		     const char **whyp);
uint16_t	 import_field_name_flags(const char *path);
int		 import_field_word(const struct import_words *, unsigned i, const char *s);
int		 import_field_word_lat(const struct import_words *, unsigned i);

/* import-block.c */
extern const struct import_format import_block_issue_format;
extern const struct import_format import_block_bio_format;

/* import-vfs.c */
extern const struct import_format import_vfs_rw_format;

/* import-life.c */
extern const struct import_format import_life_createdel_format;
extern const struct import_format import_life_openat_format;
extern const struct import_format import_life_mmap_format;
extern const struct import_format import_life_close_format;

/* import-align.c */
extern const struct import_format import_align_format;

#endif
