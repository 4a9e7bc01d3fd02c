/* host.c: the hosts of a run: names and labels, each device's host, the host of the record passing. */

#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "host.h"

#define HOST_DEVS_MAX		4096	/* devices given a host (= a header's) */

struct host_entry {
	char			 name[HOST_NAME_MAX_LEN];
	unsigned		 nlabels;
	struct host_label	 labels[HOST_LABELS_MAX];
};

static struct host_entry	 host_table[HOST_MAX];
static unsigned			 host_n;
static struct {
	uint32_t	 dev;
	int		 host;
} host_devs[HOST_DEVS_MAX];
static unsigned			 host_ndevs;
static int			 host_now = HOST_NONE;

/* Whether s is 1 to max - 1 printable ASCII characters, none of them in bad. */
static int
host_text_ok(const char *s, size_t max, const char *bad)
{
	size_t	 i, n = strnlen(s, max);

	if (n == 0 || n == max)
		return (0);
	for (i = 0; i < n; i++) {
		if (s[i] <= ' ' || s[i] > '~' || strchr(bad, s[i]) != NULL)
			return (0);
	}
	return (1);
}

/* Check a --hostname: 1 to 63 printable characters, no blank, no ':' (host:dev), no quote. */
int
host_name_check(const char *name, char **errp)
{
	if (host_text_ok(name, HOST_NAME_MAX_LEN, ":\"\\,;="))
		return (0);
	xasprintf(errp, "--hostname: '%s' is not a host name (1 to %d printable "
	    "characters, none of space : \" \\ , ; =)", name, HOST_NAME_MAX_LEN - 1);
	return (-1);
}

/* Parse a --label KEY=VALUE: a key of letters, digits, _ and -, a value of printable characters. */
int
host_label_parse(const char *arg, struct host_label *l, char **errp)
{
	const char	*eq = strchr(arg, '=');
	size_t		 k, i;

	if (eq == NULL || (k = (size_t)(eq - arg)) == 0 || k >= HOST_LABEL_KEY_MAX)
		goto bad;
	for (i = 0; i < k; i++) {
		if (!(arg[i] == '_' || arg[i] == '-' || (arg[i] >= 'a' && arg[i] <= 'z') ||
		    (arg[i] >= 'A' && arg[i] <= 'Z') || (arg[i] >= '0' && arg[i] <= '9')))
			goto bad;
	}
	if (!host_text_ok(eq + 1, HOST_LABEL_VALUE_MAX, "\"\\,;="))
		goto bad;
	memset(l, 0, sizeof *l);
	memcpy(l->key, arg, k);
	snprintf(l->value, sizeof l->value, "%s", eq + 1);
	return (0);
bad:
	xasprintf(errp, "--label: '%s' is not KEY=VALUE (a key of 1 to %d letters, digits, "
	    "_ or -; a value of 1 to %d printable characters, none of space \" \\ , ; =)",
	    arg, HOST_LABEL_KEY_MAX - 1, HOST_LABEL_VALUE_MAX - 1);
	return (-1);
}

/* Forget every host (a new run). */
void
host_reset(void)
{
	host_n = host_ndevs = 0;
	host_now = HOST_NONE;
}

/* The index of the host of this name, added with its labels if new; HOST_NONE when full. */
int
host_add(const char *name, const struct host_label *labels, unsigned nlabels)
{
	struct host_entry	*h;
	unsigned		 i;

	for (i = 0; i < host_n; i++) {
		if (strncmp(host_table[i].name, name, HOST_NAME_MAX_LEN - 1) == 0)
			return ((int)i);
	}
	if (host_n == HOST_MAX)
		return (HOST_NONE);
	h = &host_table[host_n];
	snprintf(h->name, sizeof h->name, "%s", name);
	h->nlabels = nlabels > HOST_LABELS_MAX ? HOST_LABELS_MAX : nlabels;
	if (h->nlabels != 0)
		memcpy(h->labels, labels, h->nlabels * sizeof *labels);
	return ((int)host_n++);
}

/* How many hosts the run has. */
unsigned
host_count(void)
{
	return (host_n);
}

/* A host's name, NULL for none. */
const char *
host_name(int i)
{
	return (i < 0 || (unsigned)i >= host_n ? NULL : host_table[i].name);
}

/* A host's labels (none for no host). */
const struct host_label *
host_labels(int i, unsigned *nlabels)
{
	if (i < 0 || (unsigned)i >= host_n) {
		*nlabels = 0;
		return (NULL);
	}
	*nlabels = host_table[i].nlabels;
	return (host_table[i].labels);
}

/* Say which host a device is of. */
void
host_set_dev(uint32_t dev, int host)
{
	unsigned	 i;

	for (i = 0; i < host_ndevs && host_devs[i].dev != dev; i++)
		;
	if (i == HOST_DEVS_MAX)
		return;
	host_devs[i].dev = dev;
	host_devs[i].host = host;
	if (i == host_ndevs)
		host_ndevs++;
}

/* The host of a device, HOST_NONE if not known. */
int
host_of_dev(uint32_t dev)
{
	unsigned	 i;

	for (i = 0; i < host_ndevs; i++) {
		if (host_devs[i].dev == dev)
			return (host_devs[i].host);
	}
	return (HOST_NONE);
}

/* Say which host the record now passing came from. */
void
host_set_current(int host)
{
	host_now = host;
}

/* The host of the record now passing, HOST_NONE if not known. */
int
host_current(void)
{
	return (host_now);
}
