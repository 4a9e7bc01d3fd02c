/* import-block.c: block I/O logs: block_rq_issue's `nsecs, rwbs, bytes, sector, nr_sector` and biosnoop's requests with latency. */

#include <string.h>
#include <zlib.h>

#include "base.h"
#include "replay.h"
#include "capture-file.h"
#include "import.h"

#define IMPORT_MAJOR		4095		/* fake major of imported devices */
#define IMPORT_MAX_DEVS		64

/* A stable fake dev_t for a device name: the same name, the same number. */
static uint32_t
import_block_dev(struct import *im, const char *name)
{
	struct capture_header	*hdr = &im->hdr;
	uint32_t		 minor;
	unsigned		 i;

	for (i = 0; i < hdr->ndevs; i++) {
		if (strcmp(hdr->devs[i].name, name) == 0)
			return (hdr->devs[i].dev);
	}
	if (hdr->ndevs == IMPORT_MAX_DEVS)
		return (0);
	minor = (uint32_t)crc32(0, (const unsigned char *)name, (unsigned)strlen(name)) &
	    ((1u << 20) - 1);
again:
	for (i = 0; i < hdr->ndevs; i++) {
		if (hdr->devs[i].dev == DEV_MKDEV(IMPORT_MAJOR, minor)) {
			minor = (minor + 1) & ((1u << 20) - 1);
			goto again;
		}
	}
	hdr->devs = xreallocarray(hdr->devs, hdr->ndevs + 1, sizeof *hdr->devs);
	hdr->devs[hdr->ndevs].dev = DEV_MKDEV(IMPORT_MAJOR, minor);
	snprintf(hdr->devs[hdr->ndevs].name, DEVNAME_MAX, "%s", name);
	return (hdr->devs[hdr->ndevs++].dev);
}

/* rwbs text ("W", "RA", "FWS", "D", "FF") to op and flags; -1 if it is not one. */
static int
import_block_rwbs(const char *s, uint16_t *op, uint16_t *flags)
{
	*flags = 0;
	if (s[0] == 'F' && s[1] != '\0' && strchr("WRDFN", s[1]) != NULL) {
		*flags |= BLK_F_PREFLUSH;
		s++;
	}
	switch (*s++) {
	case 'W':
		*op = BLK_OP_WRITE;
		break;
	case 'R':
		*op = BLK_OP_READ;
		break;
	case 'D':
		*op = BLK_OP_DISCARD;
		if (*s == 'E') {
			*op = BLK_OP_SECURE_ERASE;
			s++;
		}
		break;
	case 'F':
		*op = BLK_OP_FLUSH;
		break;
	case 'N':
		*op = BLK_OP_OTHER;
		break;
	default:
		return (-1);
	}
	for (; *s != '\0'; s++) {
		switch (*s) {
		case 'F':
			*flags |= BLK_F_FUA;
			break;
		case 'A':
			*flags |= BLK_F_RAHEAD;
			break;
		case 'S':
			*flags |= BLK_F_SYNC;
			break;
		case 'M':
			*flags |= BLK_F_META;
			break;
		default:
			return (-1);
		}
	}
	return (0);
}

/* `nsecs, rwbs, bytes, sector, nr_sector`: an issue without a latency. */
static int
import_block_issue_parse(struct import *im, char *line, void *rec, size_t *lenp,
    uint64_t *tsp, __unused const char **timep, const char **whyp)
{
	struct ev_block	*ev = rec;
	char		*tok[6];
	uint64_t	 ts, bytes, sector, nr;
	uint16_t	 op, flags;
	unsigned	 i;

	if (strchr(line, ',') == NULL || import_field_split(line, ",", tok, 5) != 5) {
		*whyp = "not 5 comma-separated fields";
		return (-1);
	}
	for (i = 0; i < 5; i++)
		tok[i] = import_field_trim(tok[i]);
	if (import_field_u64(tok[0], &ts) != 0 || ts == 0)
		*whyp = "bad nsecs";
	else if (import_block_rwbs(tok[1], &op, &flags) != 0)
		*whyp = "bad rwbs";
	else if (import_field_u64(tok[2], &bytes) != 0 || bytes > UINT32_MAX)
		*whyp = "bad bytes";
	else if (import_field_u64(tok[3], &sector) != 0)
		*whyp = "bad sector";
	else if (import_field_u64(tok[4], &nr) != 0)
		*whyp = "bad nr_sector";
	else
		*whyp = NULL;
	if (*whyp != NULL)
		return (-1);
	memset(ev, 0, sizeof *ev);
	ev->type = EV_BLOCK;
	/* While the format is being found, no device is learned. */
	ev->dev = im->format != NULL ? import_block_dev(im, "imported") : 1;
	ev->ts_start = ev->ts_issue = ev->ts_done = ts;
	ev->sector = sector;
	ev->bytes = (uint32_t)bytes;
	ev->op = op;
	ev->flags = flags | BLK_F_NOLAT | BLK_F_NOSTART;
	*lenp = sizeof *ev;
	*tsp = ts;
	return (0);
}

/* `TIMESTAMP [TIME] PID COMM DONEPID DONECOMM DISK T [SECTOR] BYTES LAT`. */
static int
import_block_bio_parse(struct import *im, char *line, void *rec, size_t *lenp,
    uint64_t *tsp, const char **timep, const char **whyp)
{
	struct ev_block	*ev = rec;
	char		*tok[IMPORT_MAX_TOKENS];
	uint64_t	 ts, pid, donepid, bytes, lat, sector = 0;
	const char	*comm;
	unsigned	 n, i, left;
	int		 j;

	if ((j = import_field_lead(line, tok, &n, &ts, timep, &pid, &comm, whyp)) < 0)
		return (-1);
	i = (unsigned)j;
	left = n - i;				/* DONEPID DONECOMM DISK T [SECTOR] BYTES LAT */
	if (left != 6 && left != 7) {
		*whyp = "wrong number of fields";
		return (-1);
	}
	if (import_field_u64(tok[i], &donepid) != 0) {
		*whyp = "bad DONEPID";
		return (-1);
	}
	memset(ev, 0, sizeof *ev);
	if (strcmp(tok[i + 3], "1") == 0 || strcmp(tok[i + 3], "W") == 0)
		ev->op = BLK_OP_WRITE;
	else if (strcmp(tok[i + 3], "0") == 0 || strcmp(tok[i + 3], "R") == 0)
		ev->op = BLK_OP_READ;
	else {
		*whyp = "bad T (not 0, 1, R or W)";
		return (-1);
	}
	if (left == 7 && import_field_u64(tok[i + 4], &sector) != 0)
		*whyp = "bad SECTOR";
	else if (import_field_u64(tok[n - 2], &bytes) != 0 || bytes > UINT32_MAX)
		*whyp = "bad BYTES";
	else if (import_field_u64(tok[n - 1], &lat) != 0)
		*whyp = "bad LAT";
	else if (strlen(tok[i + 2]) >= DEVNAME_MAX)
		*whyp = "DISK name too long";
	else
		*whyp = NULL;
	if (*whyp != NULL)
		return (-1);
	ev->type = EV_BLOCK;
	/* While the format is being found, no device is learned. */
	ev->dev = im->format != NULL ? import_block_dev(im, tok[i + 2]) : 1;
	if (ev->dev == 0) {
		*whyp = "more than 64 disks";
		return (-1);
	}
	ev->ts_done = ts;
	ev->ts_issue = ev->ts_start = lat < ts ? ts - lat : 0;
	ev->sector = sector;
	ev->bytes = (uint32_t)bytes;
	ev->pid = ev->tgid = (uint32_t)pid;
	ev->flags = BLK_F_NOSTART;
	memcpy(ev->comm, comm, strnlen(comm, sizeof ev->comm - 1));	/* ev is zeroed */
	*lenp = sizeof *ev;
	*tsp = ts;
	return (0);
}

/*
 * `nsecs, rwbs, bytes, sector, nr_sector`, a bpftrace printf on
 * tracepoint:block:block_rq_issue: issue times only, no latency, no device.
 */
const struct import_format import_block_issue_format = {
	.name = "block_rq_issue",
	.sniff = import_sniff_parse,
	.parse = import_block_issue_parse,
};

/*
 * `TIMESTAMP [TIME] PID COMM DONEPID DONECOMM DISK T [SECTOR] BYTES LAT`,
 * start and done probes keyed by request: TIMESTAMP at completion, T 0 =
 * read, 1 = write, LAT in ns.
 */
const struct import_format import_block_bio_format = {
	.name = "biosnoop",
	.sniff = import_sniff_parse,
	.parse = import_block_bio_parse,
};
