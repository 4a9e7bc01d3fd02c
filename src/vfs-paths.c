/* vfs-paths.c: the user-space half of the path cache: paths sent once per file, put back into the records sent without them. */
#include <stdlib.h>
#include <string.h>

#include "blktop.h"

/*
 * The paths of the kernel's path slots (bpf/vfs.bpf.c vfs_pslots): each full
 * read/write record naming a slot leaves its path here, and a record sent
 * without one (VFS_PF_CACHED) gets it back before the stream sees it. Each
 * path is also kept by its inode (vfs_pslots[VFS_PSLOTS + vfs_paths_ino_slot()]):
 * a CPU's batch of records (EV_BATCH) can arrive after other CPUs' full
 * records gave their slot to other files, many times over where files are
 * opened and closed in a row (a freed struct file is reused at once, and
 * with it its slot). Of an inode with two names (hard links), that table
 * has the name sent last.
 */
struct vfs_pslot {
	uint64_t	 ino;
	uint32_t	 dev;
	uint16_t	 flags;		/* VFS_PF_TRUNC, _DELETED, _UNREACHABLE, _PSEUDO of the walk */
	uint16_t	 len;		/* < VFS_PSLOT_PATH (an empty slot: dev 0, no file's) */
	char		 path[VFS_PSLOT_PATH];
};
static struct vfs_pslot	*vfs_pslots;
static union {
	struct ev_rw	 ev;
	char		 buf[EV_RW_SIZE(VFS_PATH_MAX)];
} vfs_whole;					/* the record handed on */
static uint64_t		 vfs_nmisses;		/* records whose path was not here */
static uint64_t		 vfs_nreused;		/* records whose path was put back */

/* BLKTOP_PATH_CACHE=0: every record with its path, walked per call (to compare); else the slots. */
void
vfs_paths_start(void)
{
	const char	*pc = getenv("BLKTOP_PATH_CACHE");

	if (vfs_pslots == NULL && (pc == NULL || strcmp(pc, "0") != 0))
		vfs_pslots = xcalloc(2 * VFS_PSLOTS, sizeof *vfs_pslots);
}

/* Whether the kernel may send records without their path (vfs_paths_start kept slots). */
int
vfs_paths_on(void)
{
	return (vfs_pslots != NULL);
}

/* Free the slots: every record comes whole, or not at all. */
void
vfs_paths_stop(void)
{
	free(vfs_pslots);
	vfs_pslots = NULL;
}

/* Records whose path was put back, and those whose path was not here, into *st. */
void
vfs_paths_cost(struct prog_cost *st)
{
	st->paths_reused += vfs_nreused;
	st->paths_missed += vfs_nmisses;
}

/* An inode's place in the second half of vfs_pslots. */
static unsigned
vfs_paths_ino_slot(uint64_t ino, uint32_t dev)
{
	return (unsigned)(((ino ^ (uint64_t)dev << 40) * 0x9E3779B97F4A7C15ULL) >> 40) &
	    (VFS_PSLOTS - 1);
}

/* What a full record with a path slot sent: the slot's path from now on. */
static void
vfs_paths_keep(uint16_t slot, uint64_t ino, uint32_t dev, uint16_t pflags, const char *path,
    uint16_t len)
{
	struct vfs_pslot	*ps = &vfs_pslots[slot - 1];

	if (len >= VFS_PSLOT_PATH)
		return;
	ps->ino = ino;
	ps->dev = dev;
	ps->flags = pflags & (VFS_PF_TRUNC | VFS_PF_DELETED | VFS_PF_UNREACHABLE | VFS_PF_PSEUDO);
	ps->len = len;
	memcpy(ps->path, path, len);
	vfs_pslots[VFS_PSLOTS + vfs_paths_ino_slot(ino, dev)] = *ps;
}

/*
 * The path of a record sent without it (VFS_PF_CACHED) from its slot, into
 * path (*lenp, *pflags); else none, and every path is asked for again.
 */
static void
vfs_paths_put(uint16_t slot, uint64_t ino, uint32_t dev, char *path, uint16_t *lenp,
    uint16_t *pflags)
{
	struct vfs_pslot	*ps = &vfs_pslots[slot - 1];

	*pflags &= ~VFS_PF_CACHED;
	if (ps->dev != dev || ps->ino != ino)
		ps = &vfs_pslots[VFS_PSLOTS + vfs_paths_ino_slot(ino, dev)];	/* batched behind */
	if (ps->len < VFS_PSLOT_PATH && ps->dev == dev && ps->ino == ino) {
		vfs_nreused++;
		memcpy(path, ps->path, ps->len);
		*lenp = ps->len;
		*pflags |= ps->flags;
	} else {
		/* Lost with a lost record, or its slot taken meanwhile: all paths again. */
		vfs_nmisses++;
		vfs_paths_stale();
		*lenp = 0;
		*pflags |= VFS_PF_NOPATH;
	}
	path[*lenp] = '\0';
}

/*
 * A record of the ring buffer as the stream takes it: whole, the path put
 * back into a read/write, close or map the kernel sent without it, the
 * path of an open or read that filled a slot kept. No allocation, no system
 * call; the result is valid until the next call. Anything else, or a record
 * too short for what it says, is handed on as it is (the stream judges it).
 */
const void *
vfs_paths_record(const void *rec, size_t *lenp)
{
	const struct ev_rw	*e = rec;
	const struct ev_open	*o = rec;
	const struct ev_fop	*fo = rec;
	struct ev_rw		*w = &vfs_whole.ev;
	struct ev_fop		*wf = (struct ev_fop *)vfs_whole.buf;
	uint32_t		 type;

	if (vfs_pslots == NULL || *lenp < sizeof type)
		return (rec);
	memcpy(&type, rec, sizeof type);
	if (type == EV_OPEN) {
		if (*lenp < sizeof *o || o->slot == 0 || o->slot > VFS_PSLOTS ||
		    *lenp < EV_OPEN_SIZE(o->path_len))
			return (rec);
		vfs_paths_keep(o->slot, o->ino, o->dev, o->path_flags, o->path, o->path_len);
		memcpy(vfs_whole.buf, o, EV_OPEN_SIZE(o->path_len));
		((struct ev_open *)vfs_whole.buf)->slot = 0;
		return (vfs_whole.buf);
	}
	if (type == EV_FOP) {
		if (*lenp < sizeof *fo || fo->slot == 0 || fo->slot > VFS_PSLOTS ||
		    !(fo->path_flags & VFS_PF_CACHED) || fo->path_len != 0 || fo->path2_len != 0)
			return (rec);
		memcpy(wf, fo, sizeof *wf);
		wf->slot = 0;
		vfs_paths_put(fo->slot, fo->ino, fo->dev, wf->path, &wf->path_len, &wf->path_flags);
		wf->path[wf->path_len + 1] = '\0';	/* path2: empty */
		*lenp = EV_FOP_SIZE(wf->path_len, 0);
		return (wf);
	}
	if (*lenp < sizeof *e || type != EV_RW || e->slot == 0 ||
	    e->slot > VFS_PSLOTS || *lenp < EV_RW_SIZE(e->path_len))
		return (rec);
	if (!(e->path_flags & VFS_PF_CACHED)) {
		vfs_paths_keep(e->slot, e->ino, e->dev, e->path_flags, e->path, e->path_len);
		memcpy(w, e, EV_RW_SIZE(e->path_len));
		w->slot = 0;
		return (w);
	}
	memcpy(w, e, sizeof *w);
	w->slot = 0;
	vfs_paths_put(e->slot, e->ino, e->dev, w->path, &w->path_len, &w->path_flags);
	*lenp = EV_RW_SIZE(w->path_len);
	return (w);
}
