/* sink-metrics-node.c: node_exporter's disk families, read from /proc/diskstats at each scrape. */

#include <sys/utsname.h>
#include <event2/buffer.h>
#include <errno.h>
#include <fcntl.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blktop.h"
#include "sink-metrics-node.h"
#include "stream.h"

/*
 * node_exporter's default --collector.diskstats.device-exclude: partitions of
 * sd, hd, vd, xvd and nvme disks, ram, zram, loop and floppy devices. It
 * applies where no -D was given; -D names the devices served, these included.
 */
#define NODE_DEVICE_EXCLUDE \
	"^(z?ram|loop|fd|(h|s|v|xv)d[a-z]|nvme[0-9]+n[0-9]+p)[0-9]+$"

/* /proc/diskstats' fields after major, minor and name, as many as any kernel has. */
#define NODE_FIELDS	17

/*
 * The families, in node_exporter's order, each one field of /proc/diskstats
 * (Documentation/admin-guide/iostats.rst) with node_exporter's name, type and
 * help text. scale: 1 as counted, 512 sectors to bytes, 1000 milliseconds to
 * seconds (divided). A family is served for a device whose line has its field:
 * discards since 4.18, flushes since 5.5.
 */
static const struct node_family {
	const char	*name, *type, *help;
	unsigned	 scale;
} node_families[NODE_FIELDS] = {
	{ "node_disk_reads_completed_total", "counter",
	  "The total number of reads completed successfully.", 1 },
	{ "node_disk_reads_merged_total", "counter",
	  "The total number of reads merged.", 1 },
	{ "node_disk_read_bytes_total", "counter",
	  "The total number of bytes read successfully.", 512 },
	{ "node_disk_read_time_seconds_total", "counter",
	  "The total number of seconds spent by all reads.", 1000 },
	{ "node_disk_writes_completed_total", "counter",
	  "The total number of writes completed successfully.", 1 },
	{ "node_disk_writes_merged_total", "counter",
	  "The number of writes merged.", 1 },
	{ "node_disk_written_bytes_total", "counter",
	  "The total number of bytes written successfully.", 512 },
	{ "node_disk_write_time_seconds_total", "counter",
	  "This is the total number of seconds spent by all writes.", 1000 },
	{ "node_disk_io_now", "gauge",
	  "The number of I/Os currently in progress.", 1 },
	{ "node_disk_io_time_seconds_total", "counter",
	  "Total seconds spent doing I/Os.", 1000 },
	{ "node_disk_io_time_weighted_seconds_total", "counter",
	  "The weighted # of seconds spent doing I/Os.", 1000 },
	{ "node_disk_discards_completed_total", "counter",
	  "The total number of discards completed successfully.", 1 },
	{ "node_disk_discards_merged_total", "counter",
	  "The total number of discards merged.", 1 },
	{ "node_disk_discarded_sectors_total", "counter",
	  "The total number of sectors discarded successfully.", 1 },
	{ "node_disk_discard_time_seconds_total", "counter",
	  "This is the total number of seconds spent by all discards.", 1000 },
	{ "node_disk_flush_requests_total", "counter",
	  "The total number of flush requests completed successfully", 1 },
	{ "node_disk_flush_requests_time_seconds_total", "counter",
	  "This is the total number of seconds spent by all flush requests.", 1000 },
};

/* One line of /proc/diskstats that is served. */
struct node_disk {
	char		 name[64];
	unsigned	 nfields;
	uint64_t	 v[NODE_FIELDS];
};

struct metrics_node {
	const struct blktop	*b;
	regex_t			 exclude;
	char			*buf;		/* /proc/diskstats, read whole */
	size_t			 bufsz;
	struct node_disk	*disks;
	size_t			 ndisks, maxdisks;
};

/* The state of the node families: node_exporter's exclusion compiled once. */
struct metrics_node *
metrics_node_new(const struct blktop *b)
{
	struct metrics_node	*mn = xcalloc(1, sizeof *mn);

	mn->b = b;
	if (regcomp(&mn->exclude, NODE_DEVICE_EXCLUDE, REG_EXTENDED | REG_NOSUB) != 0)
		fatalx("metrics: node_exporter's device pattern does not compile");
	mn->bufsz = 64 * 1024;
	mn->buf = xmalloc(mn->bufsz);
	return (mn);
}

void
metrics_node_free(struct metrics_node *mn)
{
	if (mn == NULL)
		return;
	regfree(&mn->exclude);
	free(mn->buf);
	free(mn->disks);
	free(mn);
}

/* /proc/diskstats whole into mn->buf, NUL-terminated (grown until it fits); -1 if unreadable. */
static int
metrics_node_read(struct metrics_node *mn)
{
	size_t	 len;
	ssize_t	 n;
	int	 fd;

	for (;;) {
		if ((fd = open("/proc/diskstats", O_RDONLY | O_CLOEXEC)) == -1)
			return (-1);
		len = 0;
		while (len < mn->bufsz - 1 &&
		    (n = read(fd, mn->buf + len, mn->bufsz - 1 - len)) != 0) {
			if (n == -1 && errno == EINTR)
				continue;
			if (n == -1) {
				close(fd);
				return (-1);
			}
			len += (size_t)n;
		}
		close(fd);
		if (len < mn->bufsz - 1)
			break;
		mn->bufsz *= 2;
		mn->buf = xreallocarray(mn->buf, mn->bufsz, 1);
	}
	mn->buf[len] = '\0';
	return (0);
}

/*
 * Whether a device is served: with -D, those whose samples the stream keeps
 * (its verdict on the line as a record), else all but node_exporter's
 * exclusions.
 */
static int
metrics_node_wanted(struct metrics_node *mn, unsigned major, unsigned minor,
    const char *name)
{
	struct ev_diskstat	 ev = { .type = EV_DISKSTAT, .dev = DEV_MKDEV(major, minor) };

	if (mn->b->opt.ndevs != 0)
		return ((stream_keep(mn->b, &rec_types[EV_DISKSTAT], &ev) & STREAM_KEEP_DEV) != 0);
	return (regexec(&mn->exclude, name, 0, NULL, 0) != 0);
}

/* The served lines of /proc/diskstats into mn->disks. */
static void
metrics_node_parse(struct metrics_node *mn)
{
	struct node_disk	*d;
	char			*line, *next, *end, *tok, *save;
	unsigned		 major, minor, f;
	char			 name[64];

	mn->ndisks = 0;
	for (line = mn->buf; *line != '\0'; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		else
			next = line + strlen(line);
		if (sscanf(line, "%u %u %63s", &major, &minor, name) != 3 ||
		    !metrics_node_wanted(mn, major, minor, name))
			continue;
		if (mn->ndisks == mn->maxdisks) {
			mn->maxdisks = mn->maxdisks == 0 ? 16 : mn->maxdisks * 2;
			mn->disks = xreallocarray(mn->disks, mn->maxdisks, sizeof *mn->disks);
		}
		d = &mn->disks[mn->ndisks];
		memcpy(d->name, name, sizeof d->name);
		d->nfields = 0;
		strtok_r(line, " \t", &save);	/* major */
		strtok_r(NULL, " \t", &save);	/* minor */
		strtok_r(NULL, " \t", &save);	/* name */
		for (f = 0; f < NODE_FIELDS && (tok = strtok_r(NULL, " \t", &save)) != NULL; f++) {
			d->v[f] = strtoull(tok, &end, 10);
			if (*end != '\0')
				break;
		}
		d->nfields = f;
		if (d->nfields >= 11)	/* every kernel since 2.6 has 11 */
			mn->ndisks++;
	}
}

/*
 * A value as node_exporter computes it (the float64 of the count times the
 * scale: ms times 0.001), in the fewest digits that read back to the same
 * double, so Prometheus stores the very sample node_exporter's would give.
 */
static void
metrics_node_value(struct evbuffer *out, uint64_t v, unsigned scale)
{
	double	 x = scale == 1000 ? (double)v * 0.001 : (double)v * scale;
	char	 s[32];
	int	 prec;

	for (prec = 15; prec < 17; prec++) {
		snprintf(s, sizeof s, "%.*g", prec, x);
		if (strtod(s, NULL) == x)
			break;
	}
	if (prec == 17)
		snprintf(s, sizeof s, "%.17g", x);
	evbuffer_add_printf(out, " %s\n", s);
}

/* node_uname_info: what node-mixin's dashboards list their instances by. */
static void
metrics_node_uname(struct evbuffer *out, int om)
{
	struct utsname	 u;
	const struct {
		const char	*label, *value;
	} l[] = {
		{ "domainname", u.domainname }, { "machine", u.machine },
		{ "nodename", u.nodename }, { "release", u.release },
		{ "sysname", u.sysname }, { "version", u.version },
	};
	unsigned	 i;

	if (uname(&u) != 0)
		return;
	metrics_family(out, om, "node_uname_info", "gauge",
	    "Labeled system information as provided by the uname system call.");
	evbuffer_add_printf(out, "node_uname_info{");
	for (i = 0; i < nitems(l); i++) {
		evbuffer_add_printf(out, "%s%s=\"", i ? "," : "", l[i].label);
		metrics_label(out, l[i].value);
		evbuffer_add(out, "\"", 1);
	}
	evbuffer_add_printf(out, "} 1\n");
}

/*
 * The node families as node_exporter's diskstats collector writes them, from
 * the same file read at the scrape: the same values on the same host.
 * Nothing if unreadable.
 */
void
metrics_node_write(struct metrics_node *mn, struct evbuffer *out, int om)
{
	const struct node_family	*nf;
	struct node_disk		*d;
	unsigned			 f;
	size_t				 i;
	int				 any;

	metrics_node_uname(out, om);
	if (metrics_node_read(mn) != 0)
		return;
	metrics_node_parse(mn);
	for (f = 0; f < NODE_FIELDS; f++) {
		nf = &node_families[f];
		any = 0;
		for (i = 0; i < mn->ndisks; i++) {
			d = &mn->disks[i];
			if (f >= d->nfields)
				continue;
			if (!any++)
				metrics_family(out, om, nf->name, nf->type, nf->help);
			evbuffer_add_printf(out, "%s{device=\"", nf->name);
			metrics_label(out, d->name);
			evbuffer_add(out, "\"}", 2);
			metrics_node_value(out, d->v[f], nf->scale);
		}
	}
}
