/* json-wear.h: the run's "wear" object (json-wear.c): bytes written and never read, by directory. */
#ifndef BLKTOP_JSON_WEAR_H
#define BLKTOP_JSON_WEAR_H

#include <stdio.h>

#define WEAR_DIRS	256	/* directories told apart at a report (3/4 of them used at most) */
#define WEAR_DIRS_SHOWN	32	/* listed, most never read and unread bytes first */

struct blktop;
void		 json_wear_run(FILE *, const struct blktop *, double secs);

#endif
