/*
 * host.h: the hosts of a run (host.c): each file's host name and labels
 * (--hostname, --label), which host a device belongs to, and which host the
 * record now passing through the stream came from. For the capture header,
 * the merge, the replay and the outputs that name a host.
 */
#ifndef BLKTOP_HOST_H
#define BLKTOP_HOST_H

#include <stdint.h>
#include <stdio.h>

#define HOST_MAX		64	/* hosts in one run (= MERGE_MAX_FILES) */
#define HOST_NAME_MAX_LEN	64	/* a host name, NUL included */
#define HOST_LABELS_MAX		16	/* --label pairs */
#define HOST_LABEL_KEY_MAX	32	/* a label's key, NUL included */
#define HOST_LABEL_VALUE_MAX	128	/* a label's value, NUL included */
#define HOST_NONE		(-1)	/* a device or record of no known host */

/* A --label KEY=VALUE pair. */
struct host_label {
	char	 key[HOST_LABEL_KEY_MAX];
	char	 value[HOST_LABEL_VALUE_MAX];
};

/* host.c */
int		 host_label_parse(const char *arg, struct host_label *, char **errp);
int		 host_name_check(const char *name, char **errp);
void		 host_reset(void);
int		 host_add(const char *name, const struct host_label *, unsigned nlabels);
unsigned	 host_count(void);
const char	*host_name(int);
const struct host_label *host_labels(int, unsigned *nlabels);
void		 host_set_dev(uint32_t dev, int);
int		 host_of_dev(uint32_t dev);
void		 host_set_current(int);
int		 host_current(void);

#endif /* BLKTOP_HOST_H */
