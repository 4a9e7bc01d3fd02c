/* import-vfs.c: vfs read/write logs, `TIMESTAMP [TIME] PID COMM R|W LAT REQUESTED RETURNED FILE`, as EV_RW records. */

#include <string.h>

#include "base.h"
#include "replay.h"
#include "capture-file.h"
#include "import.h"

/* `TIMESTAMP [TIME] PID COMM R|W LAT REQUESTED RETURNED FILE`. */
static int
import_vfs_rw_parse(__unused struct import *im, char *line, void *rec, size_t *lenp,
    uint64_t *tsp, const char **timep, const char **whyp)
{
	struct ev_rw	*ev = rec;
	char		*tok[IMPORT_MAX_TOKENS], *file, *end, *p;
	uint64_t	 ts, pid;
	int64_t		 lat, asked, ret;
	const char	*comm;
	size_t		 plen;
	unsigned	 n, i;
	int		 j;

	if ((j = import_field_lead(line, tok, &n, &ts, timep, &pid, &comm, whyp)) < 0)
		return (-1);
	i = (unsigned)j;
	if (i + 5 > n)
		*whyp = "too few fields";
	else if (strcmp(tok[i], "R") != 0 && strcmp(tok[i], "W") != 0)
		*whyp = "not R or W";
	else if (import_field_s64(tok[i + 1], &lat) != 0)
		*whyp = "bad LAT";
	else if (import_field_s64(tok[i + 2], &asked) != 0 || asked < 0)
		*whyp = "bad REQUESTED";
	else if (import_field_s64(tok[i + 3], &ret) != 0)
		*whyp = "bad RETURNED";
	else
		*whyp = NULL;
	if (*whyp != NULL)
		return (-1);
	/* The file name is the rest of the line, blanks included. */
	file = tok[i + 4];
	for (end = tok[n - 1] + strlen(tok[n - 1]), p = file; p < end; p++) {
		if (*p == '\0')
			*p = ' ';
	}
	if ((plen = strlen(file)) >= VFS_PATH_MAX) {
		*whyp = "FILE longer than 4095 bytes";
		return (-1);
	}
	if (lat < 0)
		lat += (int64_t)1 << 32;	/* 32-bit overflow in the logging script */
	memset(ev, 0, sizeof *ev);
	ev->type = EV_RW;
	ev->ts = ts;
	ev->lat_ns = lat < 0 ? 0 : (uint64_t)lat;
	ev->asked = (uint64_t)asked;
	ev->done = ret > 0 ? (uint64_t)ret : 0;
	ev->pos = -1;
	ev->pid = ev->tgid = (uint32_t)pid;
	ev->error = ret < 0 && ret >= INT32_MIN ? (int32_t)ret : 0;
	ev->fd = -1;
	ev->op = tok[i][0] == 'R' ? BLK_OP_READ : BLK_OP_WRITE;
	ev->sys = tok[i][0] == 'R' ? VFS_SYS_VFS_READ : VFS_SYS_VFS_WRITE;
	ev->ftype = VFS_FT_OTHER;
	ev->path_flags = VFS_PF_AS_PASSED | import_field_name_flags(file);
	ev->path_len = (uint16_t)plen;
	memcpy(ev->comm, comm, strnlen(comm, sizeof ev->comm - 1));	/* ev is zeroed */
	memcpy(ev->path, file, plen);
	ev->path[plen] = '\0';
	*lenp = EV_RW_SIZE(plen);
	*tsp = ts;
	return (0);
}

/* vfs_read and vfs_write calls: FILE is the dentry name (VFS_PF_BASENAME when it has no '/'). */
const struct import_format import_vfs_rw_format = {
	.name = "vfs_rw",
	.sniff = import_sniff_parse,
	.parse = import_vfs_rw_parse,
	.calls = 1,
};
