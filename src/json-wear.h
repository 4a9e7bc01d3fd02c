/* json-wear.h: the run's "wear" object (json-wear.c): bytes written and never read, by directory. */
#ifndef BLKTOP_JSON_WEAR_H
#define BLKTOP_JSON_WEAR_H

#include <stdint.h>
#include <stdio.h>

#define WEAR_DIRS	256	/* directories told apart at a report (3/4 of them used at most) */
#define WEAR_DIRS_SHOWN	32	/* listed, most never read and unread bytes first */

/* A directory's figures, or the whole table's. */
struct wear_dir {
	char		*dir;		/* NULL: a free slot */
	int		 host;		/* its files' host in a run of several hosts, else HOST_NONE */
	uint64_t	 files, written, read_back, never_read, unread, over;
	uint64_t	 creates, unlinks, lives, life_ns;
};

/* The run's figures, over the files of the table and by directory. */
struct wear_walk {
	const struct proc_table	*t;
	struct wear_dir		 all;
	struct wear_dir		 dirs[WEAR_DIRS];	/* sorted by wear_walk_new: ndirs first */
	unsigned		 ndirs;
	uint64_t		 dirs_more;	/* files of directories past 3/4 of WEAR_DIRS */
	char			 path[4096];
};

struct blktop;
struct html;
struct proc_table;
struct wear_walk *wear_walk_new(const struct blktop *);
void		 wear_walk_free(struct wear_walk *);
void		 json_wear_run(FILE *, const struct blktop *, double secs);
/* sink-report-wear.c */
void		 report_wear_html(struct html *, double secs);

#endif
