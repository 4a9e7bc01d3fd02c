/* device.c: kernel dev_t to device names through sysfs, and -D argument parsing. */

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base.h"
#include "window.h"

#define DEVICE_CACHE	(2 * WINDOWS_MAX_DEVS)	/* names of every device the windows keep, and more */

struct device_entry {
	uint32_t	 dev;
	int		 used;
	char		 name[DEVNAME_MAX];
	char		 text[DEVNAME_MAX + 64];	/* name_text's: the name for text outputs
						   (host:name in a run of several hosts) */
};

static struct device_entry	 device_cache[DEVICE_CACHE];
static const char		*device_sysfs = "/sys";

/* Point sysfs lookups at another root (tests use a fake tree). */
void
device_set_sysfs(const char *root)
{
	device_sysfs = root;
}

/* Read the first line of a small sysfs file into buf; -1 if it cannot be read. */
static int
device_read_line(const char *path, char *buf, size_t len)
{
	FILE	*f;
	size_t	 n;

	if ((f = fopen(path, "re")) == NULL)
		return (-1);
	if (fgets(buf, (int)len, f) == NULL) {
		fclose(f);
		return (-1);
	}
	fclose(f);
	n = strcspn(buf, "\n");
	buf[n] = '\0';
	return (0);
}

/* The DEVNAME of a MAJ:MIN from its uevent file, or -1. */
static int
device_sysfs_name(uint32_t dev, char *name, size_t len)
{
	char	 path[PATH_MAX], line[256];
	FILE	*f;
	int	 found = -1;

	snprintf(path, sizeof path, "%s/dev/block/%u:%u/uevent", device_sysfs,
	    DEV_MAJOR(dev), DEV_MINOR(dev));
	if ((f = fopen(path, "re")) == NULL)
		return (-1);
	while (fgets(line, sizeof line, f) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, "DEVNAME=", 8) == 0 && line[8] != '\0' &&
		    strlen(line + 8) < len) {
			memcpy(name, line + 8, strlen(line + 8) + 1);
			found = 0;
			break;
		}
	}
	fclose(f);
	return (found);
}

/* The cache slot of dev, or a free one to fill; NULL when full. */
static struct device_entry *
device_slot(uint32_t dev)
{
	unsigned	 i, h = (dev * 2654435761u) % DEVICE_CACHE;

	for (i = 0; i < DEVICE_CACHE; i++) {
		struct device_entry *e = &device_cache[(h + i) % DEVICE_CACHE];
		if (!e->used || e->dev == dev)
			return (e);
	}
	return (NULL);
}

/* Record the name of a device (replay sets names from the capture's table). */
void
device_set_name(uint32_t dev, const char *name)
{
	struct device_entry	*e;

	if ((e = device_slot(dev)) == NULL)
		return;
	e->used = 1;
	e->dev = dev;
	snprintf(e->name, sizeof e->name, "%s", name);
	name_text(e->text, sizeof e->text, e->name, sizeof e->name);
}

/* Name a device's host in its text (a run of several hosts: host:name). */
void
device_set_host_text(uint32_t dev, const char *host)
{
	struct device_entry	*e;
	char			 text[DEVNAME_MAX];

	if ((e = device_slot(dev)) == NULL || !e->used || e->dev != dev)
		return;
	name_text(text, sizeof text, e->name, sizeof e->name);
	snprintf(e->text, sizeof e->text, "%.63s:%s", host, text);
}

/* The name of a device: from the cache, else sysfs, else "MAJ:MIN". */
const char *
device_name(uint32_t dev)
{
	struct device_entry	*e;
	char			 name[DEVNAME_MAX];

	if ((e = device_slot(dev)) != NULL && e->used)
		return (e->name);
	if (device_sysfs_name(dev, name, sizeof name) != 0)
		snprintf(name, sizeof name, "%u:%u", DEV_MAJOR(dev), DEV_MINOR(dev));
	if (e == NULL) {
		static char	 fallback[DEVNAME_MAX];
		snprintf(fallback, sizeof fallback, "%s", name);
		return (fallback);
	}
	device_set_name(dev, name);
	return (e->name);
}

/*
 * The name of a device as text (name_text: '?' for a control, an invisible
 * character or a bad byte), for -b, the UI and every other text output: a
 * replayed capture or an imported log names its devices as it likes.
 */
const char *
device_text(uint32_t dev)
{
	struct device_entry	*e;
	static char		 fallback[DEVNAME_MAX];
	const char		*name = device_name(dev);

	if ((e = device_slot(dev)) != NULL && e->used && e->dev == dev)
		return (e->text);
	name_text(fallback, sizeof fallback, name, DEVNAME_MAX);
	return (fallback);
}

/* Parse "MAJ:MIN" strictly; 0 on success. */
static int
device_parse_majmin(const char *s, uint32_t *dev)
{
	unsigned long	 ma, mi;
	char		*end;

	if (!isdigit((unsigned char)*s))
		return (-1);
	errno = 0;
	ma = strtoul(s, &end, 10);
	if (errno != 0 || *end != ':' || !isdigit((unsigned char)end[1]))
		return (-1);
	mi = strtoul(end + 1, &end, 10);
	if (errno != 0 || *end != '\0' || ma >= (1u << 12) || mi >= (1u << 20))
		return (-1);
	*dev = DEV_MKDEV(ma, mi);
	return (0);
}

/* If dev is a partition, the dev_t of its whole disk; else dev itself. */
int
device_whole_disk(uint32_t dev, uint32_t *disk)
{
	char	 path[PATH_MAX], real[PATH_MAX], line[64];
	char	*slash;

	*disk = dev;
	snprintf(path, sizeof path, "%s/dev/block/%u:%u/partition", device_sysfs,
	    DEV_MAJOR(dev), DEV_MINOR(dev));
	if (access(path, F_OK) != 0)
		return (0);
	snprintf(path, sizeof path, "%s/dev/block/%u:%u", device_sysfs,
	    DEV_MAJOR(dev), DEV_MINOR(dev));
	if (realpath(path, real) == NULL || (slash = strrchr(real, '/')) == NULL)
		return (-1);
	snprintf(slash, sizeof real - (size_t)(slash - real), "/dev");
	if (device_read_line(real, line, sizeof line) != 0 ||
	    device_parse_majmin(line, disk) != 0)
		return (-1);
	return (0);
}

/*
 * Parse a -D argument (a name such as loop0 or nvme0n1, or MAJ:MIN) into the
 * dev_t of its whole disk. On error *errp holds a one-line message.
 */
int
device_parse(const char *arg, uint32_t *dev, char **errp)
{
	char	 path[PATH_MAX], line[64], *known;
	const char *name = arg;

	*errp = NULL;
	if (strncmp(name, "/dev/", 5) == 0)
		name += 5;
	if (device_parse_majmin(name, dev) == 0) {
		snprintf(path, sizeof path, "%s/dev/block/%s", device_sysfs, name);
		if (access(path, F_OK) != 0)
			goto unknown;
		return (device_whole_disk(*dev, dev) == 0 ? 0 : -1);
	}
	if (*name == '\0' || strchr(name, '/') != NULL || strcmp(name, "..") == 0 ||
	    strcmp(name, ".") == 0 || strlen(name) >= DEVNAME_MAX)
		goto unknown;
	snprintf(path, sizeof path, "%s/class/block/%s/dev", device_sysfs, name);
	if (device_read_line(path, line, sizeof line) != 0 ||
	    device_parse_majmin(line, dev) != 0)
		goto unknown;
	if (device_whole_disk(*dev, dev) != 0)
		goto unknown;
	return (0);

unknown:
	known = device_list_known();
	xasprintf(errp, "unknown device '%s' (known: %s)", arg, known);
	free(known);
	return (-1);
}

/* Compare two strings for qsort. */
static int
device_cmp(const void *a, const void *b)
{
	return (strcmp(*(char *const *)a, *(char *const *)b));
}

/* A space-separated, sorted list of the whole disks in sysfs, for error messages. */
char *
device_list_known(void)
{
	char		 path[PATH_MAX], **names = NULL, *out;
	DIR		*d;
	struct dirent	*de;
	size_t		 n = 0, len = 1, i;

	snprintf(path, sizeof path, "%s/block", device_sysfs);
	if ((d = opendir(path)) != NULL) {
		while ((de = readdir(d)) != NULL && n < 4096) {
			if (de->d_name[0] == '.')
				continue;
			names = xreallocarray(names, n + 1, sizeof *names);
			names[n++] = xstrdup(de->d_name);
			len += strlen(de->d_name) + 1;
		}
		closedir(d);
	}
	if (n == 0)
		return (xstrdup("none"));
	qsort(names, n, sizeof *names, device_cmp);
	out = xcalloc(1, len);
	for (i = 0; i < n; i++) {
		if (i > 0)
			strcat(out, " ");
		strcat(out, names[i]);
		free(names[i]);
	}
	free(names);
	return (out);
}
