/* import-life.c: file lifecycle logs (openat, mmap and munmap, close, mkdir/rmdir/unlink) as EV_OPEN and EV_FOP records. */

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "replay.h"
#include "capture-file.h"
#include "import.h"

#define IMPORT_MAPS		4096		/* mmaps remembered for munmap, direct-mapped */
#define IMPORT_MAP_PATH		256		/* longer file names are not remembered */

/* Which sub-format lines of an mmap log are when nothing else tells (im->aux). */
enum import_mmap_sub { IMPORT_SUB_MMAP, IMPORT_SUB_MUNMAP };
/* What the fifth column of a close log is (im->aux). */
enum import_close_col { IMPORT_COL_NONE, IMPORT_COL_RET, IMPORT_COL_FILENAME };

/* An mmap seen, for the munmap of its address. */
struct import_map {
	uint64_t	 addr;
	uint32_t	 pid;
	uint16_t	 len;		/* of path */
	uint16_t	 used;
	char		 path[IMPORT_MAP_PATH];
};

/*
 * "BASENAME PATH", either holding blanks: cut where PATH is BASENAME or ends
 * in "/BASENAME", else at the first blank; where nothing matches a failed call
 * printed no BASENAME (the kernel function that names it never ran) and the
 * whole is PATH. The path; *basep the name ("" if none).
 */
static char *
import_life_split_name(char *rest, int failed, char **basep)
{
	char	*p;
	size_t	 len = strlen(rest), blen, plen;

	for (p = strchr(rest, ' '); p != NULL; p = strchr(p + 1, ' ')) {
		blen = (size_t)(p - rest);
		plen = len - blen - 1;
		if (blen > 0 && plen >= blen &&
		    memcmp(p + 1 + plen - blen, rest, blen) == 0 &&
		    (plen == blen || p[plen - blen] == '/'))
			break;
	}
	if (p == NULL && !failed)
		p = strchr(rest, ' ');
	if (p == NULL) {
		*basep = rest + len;
		return (rest);
	}
	*p = '\0';
	*basep = rest;
	return (p + 1);
}

/* An EV_FOP record with path (plen bytes, no path: VFS_PF_NOPATH) and no path2; its length. */
static size_t
import_life_fop(void *rec, uint16_t op, uint16_t sys, uint64_t ts, uint64_t lat,
    uint32_t pid, const char *path, size_t plen, uint16_t pflags)
{
	struct ev_fop	*ev = rec;

	memset(ev, 0, sizeof *ev);
	ev->type = EV_FOP;
	ev->ts = ts;
	ev->lat_ns = lat;
	ev->pid = ev->tgid = pid;
	ev->fd = -1;
	ev->op = op;
	ev->sys = sys;
	ev->ftype = VFS_FT_NONE;
	ev->path_flags = plen == 0 ? VFS_PF_NOPATH : pflags;
	ev->path_len = (uint16_t)plen;
	memcpy(ev->path, path, plen);
	/* The NULs of path and (empty) path2. */
	memset(ev->path + plen, 0, EV_FOP_SIZE(plen, 0) -
	    offsetof(struct ev_fop, path) - plen);
	return (EV_FOP_SIZE(plen, 0));
}

/* `TIMESTAMP PID FD LAT BASENAME PATH`: an openat, the path as passed. */
static int
import_life_openat_parse(__unused struct import *im, char *line, void *rec, size_t *lenp,
    uint64_t *tsp, __unused const char **timep, const char **whyp)
{
	struct ev_open	*ev = rec;
	char		*tok[4], *rest, *path, *base;
	uint64_t	 ts, lat;
	uint32_t	 pid;
	int32_t		 fd;
	size_t		 plen;

	if (import_field_cut(line, tok, 4, &rest) != 4 || *rest == '\0') {
		*whyp = "too few fields";
		return (-1);
	}
	if (import_field_ts_pid(tok, &ts, &pid, whyp) != 0)
		return (-1);
	if (import_field_s32(tok[2], &fd) != 0) {
		*whyp = "bad FD";
		return (-1);
	}
	if (import_field_lat(tok[3], &lat) != 0) {
		*whyp = "bad LAT";
		return (-1);
	}
	path = import_life_split_name(rest, fd < 0, &base);
	if ((plen = strlen(path)) >= VFS_PATH_MAX) {
		*whyp = "FULLPATH longer than 4095 bytes";
		return (-1);
	}
	memset(ev, 0, sizeof *ev);
	ev->type = EV_OPEN;
	ev->ts = ts;
	ev->lat_ns = lat;
	ev->pid = ev->tgid = pid;
	ev->ret = fd;
	ev->sys = VFS_SYS_OPENAT;
	ev->ftype = fd < 0 ? VFS_FT_NONE : VFS_FT_OTHER;
	ev->path_flags = VFS_PF_AS_PASSED;
	ev->path_len = (uint16_t)plen;
	memcpy(ev->path, path, plen + 1);
	*lenp = EV_OPEN_SIZE(plen);
	*tsp = ts;
	return (0);
}

/* The slot of a mapping in the table of mmaps seen. */
static struct import_map *
import_life_map_slot(struct import *im, uint32_t pid, uint64_t addr)
{
	struct import_map	*maps = im->data;
	uint64_t		 h = (addr >> 12) ^ ((uint64_t)pid * 2654435761u);

	return (&maps[(h ^ (h >> 17)) & (IMPORT_MAPS - 1)]);
}

/*
 * `TIMESTAMP PID FD ADDRESS LAT FILENAME` (mmap) or `TIMESTAMP PID ADDRESS
 * LEN LAT` (munmap). 1: an anonymous mapping, no record.
 */
static int
import_life_mmap_parse(struct import *im, char *line, void *rec, size_t *lenp,
    uint64_t *tsp, __unused const char **timep, const char **whyp)
{
	struct ev_fop		*ev = rec;
	struct import_map	*m;
	char			*tok[5], *rest;
	uint64_t		 ts, lat = 0, addr = 0, len = 0;
	uint32_t		 pid;
	int32_t			 fd = -1;
	size_t			 plen = 0;
	int			 munmap;

	if (import_field_cut(line, tok, 5, &rest) != 5) {
		*whyp = "too few fields";
		return (-1);
	}
	if (import_field_ts_pid(tok, &ts, &pid, whyp) != 0)
		return (-1);
	*tsp = ts;
	if (import_field_is_hex(tok[3]) || tok[2][0] == '-')
		munmap = 0;
	else if (import_field_is_hex(tok[2]))
		munmap = 1;
	else
		munmap = im->aux == IMPORT_SUB_MUNMAP;
	if (munmap) {
		if (*rest != '\0')
			*whyp = "munmap: too many fields";
		else if (import_field_num(tok[2], 0, &addr) != 0)
			*whyp = "munmap: bad ADDRESS";
		else if (import_field_u64(tok[3], &len) != 0)
			*whyp = "munmap: bad LEN";
		else if (import_field_lat(tok[4], &lat) != 0)
			*whyp = "munmap: bad LAT";
		if (*whyp != NULL)
			return (-1);
		m = import_life_map_slot(im, pid, addr);
		if (m->used && m->pid == pid && m->addr == addr) {
			*lenp = import_life_fop(rec, FOP_MUNMAP, VFS_SYS_MUNMAP, ts, lat, pid,
			    m->path, m->len, import_field_name_flags(m->path));
			ev->ftype = VFS_FT_OTHER;
			m->used = 0;
		} else {
			*lenp = import_life_fop(rec, FOP_MUNMAP, VFS_SYS_MUNMAP, ts, lat, pid,
			    "", 0, 0);
		}
		ev->addr = addr;
		ev->len = len;
		return (0);
	}
	if (import_field_s32(tok[2], &fd) != 0)
		*whyp = "mmap: bad FD";
	else if (import_field_num(tok[3], 0, &addr) != 0)
		*whyp = "mmap: bad ADDRESS";
	else if (import_field_lat(tok[4], &lat) != 0)
		*whyp = "mmap: bad LAT";
	else if ((plen = strlen(rest)) >= VFS_PATH_MAX)
		*whyp = "mmap: FILENAME longer than 4095 bytes";
	if (*whyp != NULL)
		return (-1);
	if (fd < 0)
		return (1);
	if (strcmp(rest, "-") == 0)
		plen = 0;		/* the script did not know the fd's file */
	*lenp = import_life_fop(rec, FOP_MMAP, VFS_SYS_MMAP, ts, lat, pid, rest, plen,
	    import_field_name_flags(rest));
	ev->fd = fd;
	ev->ftype = VFS_FT_OTHER;
	if (addr >= (uint64_t)-4095) {
		ev->error = (int32_t)(int64_t)addr;	/* the call failed: -errno */
		return (0);
	}
	ev->addr = addr;
	if (plen > 0 && plen < IMPORT_MAP_PATH) {
		m = import_life_map_slot(im, pid, addr);
		m->used = 1;
		m->pid = pid;
		m->addr = addr;
		m->len = (uint16_t)plen;
		memcpy(m->path, rest, plen + 1);
	}
	return (0);
}

/* The operation a create/delete log's FUNCTION field names, or -1. */
static int
import_life_createdel_op(const char *s)
{
	if (strcmp(s, "mkdir()") == 0)
		return (FOP_MKDIR);
	if (strcmp(s, "rmdir()") == 0)
		return (FOP_RMDIR);
	if (strcmp(s, "unlink()") == 0)
		return (FOP_UNLINK);
	return (-1);
}

/*
 * `TIMESTAMP [TIME] PID [TID] mkdir() MODE LAT PATH`, `... rmdir() LAT PATH`,
 * `... unlink() LAT BASENAME PATH`.
 */
static int
import_life_createdel_parse(__unused struct import *im, char *line, void *rec,
    size_t *lenp, uint64_t *tsp, __unused const char **timep, const char **whyp)
{
	struct ev_fop	*ev = rec;
	char		*tok[5], *arg[2], *p = line, *path, *base;
	uint64_t	 ts, lat, mode = 0;
	uint32_t	 pid, tid;
	unsigned	 n, i = 1, nargs;
	size_t		 plen;
	int		 op;

	for (n = 0;; n++) {
		if (n == nitems(tok) || import_field_cut(p, &tok[n], 1, &p) != 1) {
			*whyp = "no mkdir(), rmdir() or unlink()";
			return (-1);
		}
		if ((op = import_life_createdel_op(tok[n])) != -1)
			break;
	}
	if (n > 1 && import_field_is_time(tok[1]))
		i = 2;
	if (n < i + 1 || n > i + 2) {
		*whyp = "not TIMESTAMP PID before the call";
		return (-1);
	}
	tok[1] = tok[i];
	if (import_field_ts_pid(tok, &ts, &pid, whyp) != 0)
		return (-1);
	tid = pid;
	if (n == i + 2) {
		tok[1] = tok[i + 1];
		if (import_field_ts_pid(tok, &ts, &tid, whyp) != 0) {
			*whyp = "bad TID";
			return (-1);
		}
	}
	nargs = op == FOP_MKDIR ? 2 : 1;
	if (import_field_cut(p, arg, nargs, &p) != nargs || *p == '\0') {
		*whyp = "too few fields";
		return (-1);
	}
	if (op == FOP_MKDIR && (import_field_num(arg[0], 1, &mode) != 0 || mode > UINT32_MAX)) {
		*whyp = "bad MODE";
		return (-1);
	}
	if (import_field_lat(arg[nargs - 1], &lat) != 0) {
		*whyp = "bad LAT";
		return (-1);
	}
	path = op == FOP_UNLINK ? import_life_split_name(p, 0, &base) : p;
	if ((plen = strlen(path)) >= VFS_PATH_MAX) {
		*whyp = "path longer than 4095 bytes";
		return (-1);
	}
	*tsp = ts;
	*lenp = import_life_fop(rec, (uint16_t)op, op == FOP_MKDIR ? VFS_SYS_MKDIR :
	    op == FOP_RMDIR ? VFS_SYS_RMDIR : VFS_SYS_UNLINK, ts, lat, tid, path,
	    plen, VFS_PF_AS_PASSED);
	ev->tgid = pid;
	ev->mode = (uint32_t)mode;
	return (0);
}

/* `TIMESTAMP PID FD LAT [RET|FILENAME]`: a close. */
static int
import_life_close_parse(struct import *im, char *line, void *rec, size_t *lenp,
    uint64_t *tsp, __unused const char **timep, const char **whyp)
{
	struct ev_fop	*ev = rec;
	char		*tok[4], *rest;
	uint64_t	 ts, lat;
	uint32_t	 pid;
	int32_t		 fd, ret = 0;
	size_t		 plen = 0;

	if (import_field_cut(line, tok, 4, &rest) != 4) {
		*whyp = "too few fields";
		return (-1);
	}
	if (import_field_ts_pid(tok, &ts, &pid, whyp) != 0)
		return (-1);
	if (import_field_s32(tok[2], &fd) != 0)
		*whyp = "bad FD";
	else if (import_field_lat(tok[3], &lat) != 0)
		*whyp = "bad LAT";
	else if (im->aux == IMPORT_COL_FILENAME) {
		if ((plen = strlen(rest)) >= VFS_PATH_MAX)
			*whyp = "FILENAME longer than 4095 bytes";
	} else if (*rest != '\0' && import_field_s32(rest, &ret) != 0)
		*whyp = im->aux == IMPORT_COL_RET ? "bad RET" : "too many fields";
	if (*whyp != NULL)
		return (-1);
	*tsp = ts;
	*lenp = import_life_fop(rec, FOP_CLOSE, VFS_SYS_CLOSE, ts, lat, pid, rest, plen,
	    import_field_name_flags(rest));
	ev->fd = fd;
	ev->error = ret < 0 ? ret : 0;
	if (plen > 0)
		ev->ftype = VFS_FT_OTHER;
	return (0);
}

/* A create/delete log's header (a CALL or FUNCTION column) or block marker. */
static int
import_life_createdel_head(const struct import_words *w, __unused int *auxp,
    __unused const char **gluedp)
{
	if (w->n == 1)
		return (import_field_word(w, 0, "mkdir():") ||
		    import_field_word(w, 0, "rmdir():") ||
		    import_field_word(w, 0, "unlink():"));
	if (w->n < 2 || !import_field_word(w, 0, "TIMESTAMP"))
		return (0);
	return ((w->n >= 5 && import_field_word(w, 1, "TIME") &&
	    import_field_word(w, 2, "PID") && import_field_word(w, 3, "TID") &&
	    import_field_word(w, 4, "FUNCTION")) ||
	    (w->n >= 4 && import_field_word(w, 1, "PID") &&
	    (import_field_word(w, 2, "CALL") || import_field_word(w, 2, "FUNCTION"))));
}

/* Whether a line that is no other format's names one of the three calls. */
static int
import_life_createdel_sniff(__unused struct import *im,
    __unused const struct import_format *fmt, char *line, const char **whyp)
{
	*whyp = NULL;
	return (strstr(line, " mkdir() ") != NULL || strstr(line, " rmdir() ") != NULL ||
	    strstr(line, " unlink() ") != NULL);
}

/* `TIMESTAMP PID FD LAT(ns) FILENAME FULLPATH`, the record after it on the same line (*gluedp). */
static int
import_life_openat_head(const struct import_words *w, __unused int *auxp,
    const char **gluedp)
{
	if (w->n < 6 || !import_field_word(w, 0, "TIMESTAMP") ||
	    !import_field_word(w, 1, "PID") || !import_field_word(w, 2, "FD") ||
	    !import_field_word_lat(w, 3) || !import_field_word(w, 4, "FILENAME") ||
	    w->l[5] < 8 || memcmp(w->w[5], "FULLPATH", 8) != 0)
		return (0);
	/* The script prints no newline after its header. */
	if (w->l[5] > 8 || w->n > 6)
		*gluedp = w->w[5] + 8;
	return (1);
}

/* An `mmap():` or `munmap():` marker or either block's header: which (*auxp). */
static int
import_life_mmap_head(const struct import_words *w, int *auxp,
    __unused const char **gluedp)
{
	if (w->n == 1 && (import_field_word(w, 0, "mmap():") ||
	    import_field_word(w, 0, "munmap():"))) {
		*auxp = import_field_word(w, 0, "mmap():") ? IMPORT_SUB_MMAP :
		    IMPORT_SUB_MUNMAP;
		return (1);
	}
	if (w->n < 5 || !import_field_word(w, 0, "TIMESTAMP") ||
	    !import_field_word(w, 1, "PID"))
		return (0);
	if (w->n == 6 && import_field_word(w, 2, "FD") &&
	    import_field_word(w, 3, "ADDRESS") && import_field_word_lat(w, 4) &&
	    import_field_word(w, 5, "FILENAME")) {
		*auxp = IMPORT_SUB_MMAP;
		return (1);
	}
	if (w->n == 5 && import_field_word(w, 2, "ADDRESS") &&
	    import_field_word(w, 3, "LEN") && import_field_word_lat(w, 4)) {
		*auxp = IMPORT_SUB_MUNMAP;
		return (1);
	}
	return (0);
}

/* The table of mmaps seen, for the munmaps' names. */
static void
import_life_mmap_start(struct import *im)
{
	im->data = xcalloc(IMPORT_MAPS, sizeof(struct import_map));
}

/* Forget the mmaps seen: the log is read again. */
static void
import_life_mmap_rewind(struct import *im)
{
	memset(im->data, 0, IMPORT_MAPS * sizeof(struct import_map));
}

/* Free the table of mmaps seen. */
static void
import_life_mmap_free(struct import *im)
{
	free(im->data);
}

/* `TIMESTAMP PID FD LAT(ns) [RET|FILENAME]`: what the fifth column is (*auxp). */
static int
import_life_close_head(const struct import_words *w, int *auxp,
    __unused const char **gluedp)
{
	if (w->n < 4 || !import_field_word(w, 0, "TIMESTAMP") ||
	    !import_field_word(w, 1, "PID") || !import_field_word(w, 2, "FD") ||
	    !import_field_word_lat(w, 3))
		return (0);
	if (w->n == 4)
		*auxp = IMPORT_COL_NONE;
	else if (w->n == 5 && import_field_word(w, 4, "RET"))
		*auxp = IMPORT_COL_RET;
	else if (w->n == 5 && import_field_word(w, 4, "FILENAME"))
		*auxp = IMPORT_COL_FILENAME;
	else
		return (0);
	return (1);
}

/*
 * `nsecs pid mkdir() mode lat path`, `nsecs pid rmdir() lat path`, `nsecs pid
 * unlink() lat basename path`, found from a header with a CALL or FUNCTION
 * column, a `mkdir():` marker or the first line naming one of the three
 * calls: EV_FOP by name (no return value: error 0). MODE is decimal as the
 * script prints it (%hu); with a leading 0, octal.
 */
const struct import_format import_life_createdel_format = {
	.name = "create_delete",
	.life = 1,
	.head = import_life_createdel_head,
	.sniff = import_life_createdel_sniff,
	.parse = import_life_createdel_parse,
};

/* openat calls, the path as passed (FD < 0: failed, no basename printed): EV_OPEN. */
const struct import_format import_life_openat_format = {
	.name = "openat",
	.life = 1,
	.head = import_life_openat_head,
	.parse = import_life_openat_parse,
};

/*
 * An `mmap():` block, `TIMESTAMP PID FD ADDRESS LAT(ns) FILENAME`, and a
 * `munmap():` block, `TIMESTAMP PID ADDRESS LEN LAT(ns)`, in any order, lines
 * of both interleaved (the script prints both headers at BEGIN): a hex
 * ADDRESS tells one from the other, else the last marker or header. EV_FOP
 * FOP_MMAP (anonymous mappings, FD < 0, are skipped as the kernel side skips
 * them; FILENAME "-": not known) and FOP_MUNMAP, named after the mmap of the
 * same pid and address earlier in the log.
 */
const struct import_format import_life_mmap_format = {
	.name = "mmap",
	.life = 1,
	.head = import_life_mmap_head,
	.parse = import_life_mmap_parse,
	.start = import_life_mmap_start,
	.rewind = import_life_mmap_rewind,
	.free = import_life_mmap_free,
};

/* close calls: EV_FOP FOP_CLOSE. */
const struct import_format import_life_close_format = {
	.name = "close",
	.life = 1,
	.head = import_life_close_head,
	.parse = import_life_close_parse,
};
