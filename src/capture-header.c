/* capture-header.c: the capture file header, built by the writer and checked by the reader. */

#include <sys/types.h>

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "base.h"
#include "capture-file.h"
#include "capture.h"

#define FILE_MAGIC		"\x89" "BLKTOP\n"
#define FILE_MAGIC_LEN		8
#define FILE_FIXED_LEN		20	/* magic, major, minor, body length, body CRC */
#define FILE_BODY_MAX		(1024 * 1024)
#define HDR_STR_MAX		65536
#define HDR_DEVS_MAX		4096

/* Append a length-prefixed string to a header being built. */
static u_char *
capture_hdr_putstr(u_char *p, const char *s, size_t max)
{
	size_t	 n = (s == NULL) ? 0 : strnlen(s, max);

	p = capture_putvar(p, n);
	memcpy(p, s, n);
	return (p + n);
}

/* Build the file header; returns its length in a new buffer in *out. */
size_t
capture_header_build(const struct capture_header *hdr, u_char **out)
{
	u_char		*buf, *p, *body;
	size_t		 size, len;
	unsigned	 i, ndevs, nfilter, npids, ncomms, nlabels;

	ndevs = hdr->ndevs > HDR_DEVS_MAX ? HDR_DEVS_MAX : hdr->ndevs;
	nfilter = hdr->nfilter > HDR_DEVS_MAX ? HDR_DEVS_MAX : hdr->nfilter;
	npids = hdr->nfilter_pids > FILTER_MAX_PIDS ? FILTER_MAX_PIDS : hdr->nfilter_pids;
	ncomms = hdr->nfilter_comms > FILTER_MAX_COMMS ? FILTER_MAX_COMMS :
	    hdr->nfilter_comms;
	size = FILE_FIXED_LEN + 1 + 5 * (10 + 4096) + 20 +
	    ndevs * (10 + DEVNAME_MAX) + 10 + HDR_STR_MAX +
	    20 + nfilter * 10 +
	    30 + npids * 10 + ncomms * (10 + BLKTOP_COMM_LEN) +
	    10 + HOST_LABELS_MAX * (20 + HOST_LABEL_KEY_MAX + HOST_LABEL_VALUE_MAX);
	buf = xmalloc(size);
	body = p = buf + FILE_FIXED_LEN;
	*p++ = 1;			/* raw records are little-endian */
	p = capture_hdr_putstr(p, hdr->version, 4096);
	p = capture_hdr_putstr(p, hdr->host, 4096);
	p = capture_hdr_putstr(p, hdr->kernel, 4096);
	p = capture_putvar(p, capture_zigzag((uint64_t)hdr->clock_offset));
	p = capture_putvar(p, hdr->created);
	p = capture_putvar(p, ndevs);
	for (i = 0; i < ndevs; i++) {
		p = capture_putvar(p, hdr->devs[i].dev);
		p = capture_hdr_putstr(p, hdr->devs[i].name, DEVNAME_MAX - 1);
	}
	p = capture_hdr_putstr(p, hdr->plan, HDR_STR_MAX - 1);
	/* Since 1.1: the report interval and the device filter. */
	p = capture_putvar(p, hdr->interval_ns);
	p = capture_putvar(p, nfilter);
	for (i = 0; i < nfilter; i++)
		p = capture_putvar(p, hdr->filter_devs[i]);
	/* Since 2.1: the process filter (--cgroup, -p, -c). */
	p = capture_putvar(p, hdr->filter_cgroup);
	p = capture_putvar(p, npids);
	for (i = 0; i < npids; i++)
		p = capture_putvar(p, hdr->filter_pids[i]);
	p = capture_putvar(p, ncomms);
	for (i = 0; i < ncomms; i++)
		p = capture_hdr_putstr(p, hdr->filter_comms[i], BLKTOP_COMM_LEN - 1);
	/* Since 3.1: the labels. */
	nlabels = hdr->nlabels > HOST_LABELS_MAX ? HOST_LABELS_MAX : hdr->nlabels;
	p = capture_putvar(p, nlabels);
	for (i = 0; i < nlabels; i++) {
		p = capture_hdr_putstr(p, hdr->labels[i].key, HOST_LABEL_KEY_MAX - 1);
		p = capture_hdr_putstr(p, hdr->labels[i].value, HOST_LABEL_VALUE_MAX - 1);
	}
	len = p - body;

	memcpy(buf, FILE_MAGIC, FILE_MAGIC_LEN);
	buf[8] = CAPTURE_VERSION_MAJOR;
	buf[9] = 0;
	buf[10] = CAPTURE_VERSION_MINOR;
	buf[11] = 0;
	capture_put32(buf + 12, len);
	capture_put32(buf + 16, crc32(0, body, len));
	*out = buf;
	return (FILE_FIXED_LEN + len);
}

/* Read a header string into a new NUL-terminated copy. */
static int
capture_hdr_getstr(const u_char **pp, const u_char *end, size_t max,
    char **sp)
{
	uint64_t	 n;

	if (capture_getvar(pp, end, &n) != 0 || n > max ||
	    n > (uint64_t)(end - *pp) || memchr(*pp, '\0', n) != NULL)
		return (-1);
	*sp = xmalloc(n + 1);
	memcpy(*sp, *pp, n);
	(*sp)[n] = '\0';
	*pp += n;
	return (0);
}

/* Read the fields minor version 1 appended: interval and device filter. */
static int
capture_hdr_get_1_1(const u_char **pp, const u_char *end,
    struct capture_header *hdr)
{
	uint64_t	 v, nfilter, i;

	if (capture_getvar(pp, end, &hdr->interval_ns) != 0 ||
	    capture_getvar(pp, end, &nfilter) != 0 || nfilter > HDR_DEVS_MAX)
		return (-1);
	if (nfilter != 0)
		hdr->filter_devs = xcalloc(nfilter, sizeof *hdr->filter_devs);
	for (i = 0; i < nfilter; i++) {
		if (capture_getvar(pp, end, &v) != 0 || v > UINT32_MAX)
			return (-1);
		hdr->filter_devs[hdr->nfilter++] = v;
	}
	return (0);
}

/* Read the fields minor version 2.1 appended: the process filter. */
static int
capture_hdr_get_2_1(const u_char **pp, const u_char *end,
    struct capture_header *hdr)
{
	uint64_t	 v, n, i;
	char		*comm;

	if (capture_getvar(pp, end, &hdr->filter_cgroup) != 0 ||
	    capture_getvar(pp, end, &n) != 0 || n > FILTER_MAX_PIDS)
		return (-1);
	for (i = 0; i < n; i++) {
		if (capture_getvar(pp, end, &v) != 0 || v == 0 || v > UINT32_MAX)
			return (-1);
		hdr->filter_pids[hdr->nfilter_pids++] = (uint32_t)v;
	}
	if (capture_getvar(pp, end, &n) != 0 || n > FILTER_MAX_COMMS)
		return (-1);
	for (i = 0; i < n; i++) {
		if (capture_hdr_getstr(pp, end, BLKTOP_COMM_LEN - 1, &comm) != 0)
			return (-1);
		if (comm[0] == '\0') {
			free(comm);
			return (-1);
		}
		memcpy(hdr->filter_comms[hdr->nfilter_comms++], comm, strlen(comm) + 1);
		free(comm);
	}
	hdr->has_procs = 1;
	return (0);
}

/* Read the fields minor version 3.1 appended: the labels, each KEY=VALUE as --label takes it. */
static int
capture_hdr_get_3_1(const u_char **pp, const u_char *end,
    struct capture_header *hdr)
{
	struct host_label	*l;
	uint64_t		 n, i;
	char			*key, *value, *arg, *err = NULL;
	int			 bad;

	if (capture_getvar(pp, end, &n) != 0 || n > HOST_LABELS_MAX)
		return (-1);
	for (i = 0; i < n; i++) {
		if (capture_hdr_getstr(pp, end, HOST_LABEL_KEY_MAX - 1, &key) != 0)
			return (-1);
		if (capture_hdr_getstr(pp, end, HOST_LABEL_VALUE_MAX - 1, &value) != 0) {
			free(key);
			return (-1);
		}
		xasprintf(&arg, "%s=%s", key, value);
		l = &hdr->labels[hdr->nlabels];
		bad = host_label_parse(arg, l, &err) != 0;
		free(err);
		free(arg);
		free(key);
		free(value);
		if (bad)
			return (-1);
		hdr->nlabels++;
	}
	return (0);
}

/* Free what a reader's header holds. */
void
capture_header_free(struct capture_header *hdr)
{
	free(hdr->version);
	free(hdr->host);
	free(hdr->kernel);
	free(hdr->plan);
	free(hdr->devs);
	free(hdr->filter_devs);
}

/* Whether a file's first size bytes are the magic's (an empty file's are: too short to say otherwise). */
int
capture_header_is_magic(const u_char *base, size_t size)
{
	return (memcmp(base, FILE_MAGIC, size < FILE_MAGIC_LEN ? size :
	    FILE_MAGIC_LEN) == 0);
}

/* Whether a file starts with the magic or something two flipped bits from it. */
int
capture_header_near_magic(const u_char *base, size_t size)
{
	unsigned	 i, bits = 0;

	if (size < FILE_FIXED_LEN)
		return (0);
	for (i = 0; i < FILE_MAGIC_LEN; i++)
		bits += (unsigned)__builtin_popcount((u_char)(base[i] ^ (u_char)FILE_MAGIC[i]));
	return (bits <= 2);
}

/*
 * Check and parse the file header at base (size bytes in all) into hdr; the
 * error is a short phrase. *lenp is the header's length, where chunks begin.
 */
const char *
capture_header_parse(struct capture_header *hdr, const u_char *base,
    size_t size, size_t *lenp)
{
	const u_char		*p, *end;
	uint32_t		 len;
	uint64_t		 v, ndevs, i;
	char			*name;
	unsigned		 major, minor;

	if (size == 0)
		return ("empty file");
	if (!capture_header_is_magic(base, size))
		return ("not a blktop capture file");
	if (size < FILE_FIXED_LEN)
		return ("truncated header");
	major = capture_get16(base + 8);
	minor = capture_get16(base + 10);
	hdr->major = major;
	hdr->minor = minor;
	if (major < CAPTURE_VERSION_MAJOR_OLDEST || major > CAPTURE_VERSION_MAJOR)
		return ("unsupported capture format version");
	len = capture_get32(base + 12);
	if (len > FILE_BODY_MAX)
		return ("damaged header (impossible length)");
	if (size - FILE_FIXED_LEN < len)
		return ("truncated header");
	p = base + FILE_FIXED_LEN;
	end = p + len;
	if (crc32(0, p, len) != capture_get32(base + 16))
		return ("damaged header (CRC mismatch)");

	if (p == end)
		return ("damaged header");
	if (*p++ != 1)
		return ("capture written on a big-endian host");
	if (capture_hdr_getstr(&p, end, 4096, &hdr->version) != 0 ||
	    capture_hdr_getstr(&p, end, 4096, &hdr->host) != 0 ||
	    capture_hdr_getstr(&p, end, 4096, &hdr->kernel) != 0 ||
	    capture_getvar(&p, end, &v) != 0)
		return ("damaged header");
	hdr->clock_offset = (int64_t)capture_unzigzag(v);
	/* A writer always knows its clock: 0 is a capture of a log that had none. */
	hdr->has_clock = hdr->clock_offset != 0;
	if (capture_getvar(&p, end, &hdr->created) != 0 ||
	    capture_getvar(&p, end, &ndevs) != 0 || ndevs > HDR_DEVS_MAX)
		return ("damaged header");
	hdr->devs = xcalloc(ndevs, sizeof *hdr->devs);
	for (i = 0; i < ndevs; i++) {
		if (capture_getvar(&p, end, &v) != 0 || v > UINT32_MAX ||
		    capture_hdr_getstr(&p, end, DEVNAME_MAX - 1, &name) != 0)
			return ("damaged header");
		hdr->devs[i].dev = v;
		memcpy(hdr->devs[i].name, name, strlen(name) + 1);
		free(name);
		hdr->ndevs++;
	}
	if (capture_hdr_getstr(&p, end, HDR_STR_MAX - 1, &hdr->plan) != 0)
		return ("damaged header");
	if ((major > 1 || minor >= 1) && capture_hdr_get_1_1(&p, end, hdr) != 0)
		return ("damaged header");
	if ((major > 2 || (major == 2 && minor >= 1)) &&
	    capture_hdr_get_2_1(&p, end, hdr) != 0)
		return ("damaged header");
	if ((major > 3 || (major == 3 && minor >= 1)) &&
	    capture_hdr_get_3_1(&p, end, hdr) != 0)
		return ("damaged header");
	hdr->has_host = hdr->host[0] != '\0';
	/* Fields a later minor version appends are skipped. */
	*lenp = FILE_FIXED_LEN + len;
	return (NULL);
}

