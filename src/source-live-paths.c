/* source-live-paths.c: the path cache's user-space half: paths sent once per file, put back into the records sent without them. */
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "event.h"
#include "sources.h"
#include "source-live.h"

/*
 * The paths of the kernel's path slots (bpf/vfs.bpf.c vfs_pslots): each full
 * read/write record naming a slot leaves its path here, and a record sent
 * without one (VFS_PF_CACHED) gets it back before the stream sees it. Each
 * path is also kept by its inode (the second half of live_paths_slots, at
 * VFS_PSLOTS + live_paths_ino_slot()): a CPU's batch of records (EV_BATCH)
 * can arrive after other CPUs' full records gave their slot to other files,
 * many times over where files are opened and closed in a row (a freed struct
 * file is reused at once, and with it its slot). Of an inode with two names
 * (hard links), that table has the name sent last.
 */
struct live_paths_slot {
	uint64_t	 ino;
	uint32_t	 dev;
	uint16_t	 flags;		/* VFS_PF_TRUNC, _DELETED, _UNREACHABLE, _PSEUDO of the walk */
	uint16_t	 len;		/* < VFS_PSLOT_PATH (an empty slot: dev 0, no file's) */
	char		 path[VFS_PSLOT_PATH];
};
static struct live_paths_slot	*live_paths_slots;
static union {
	struct ev_rw	 ev;
	char		 buf[EV_RW_SIZE(VFS_PATH_MAX)];
} live_paths_whole;			/* the record handed on */
static uint64_t			 live_paths_nmisses;	/* records whose path was not here */
static uint64_t			 live_paths_nreused;	/* records whose path was put back */

/* BLKTOP_PATH_CACHE=0: every record with its path, walked per call (to compare); else the slots. */
void
live_paths_start(void)
{
	const char	*pc = getenv("BLKTOP_PATH_CACHE");

	if (live_paths_slots == NULL && (pc == NULL || strcmp(pc, "0") != 0))
		live_paths_slots = xcalloc(2 * VFS_PSLOTS, sizeof *live_paths_slots);
}

/* Whether the kernel may send records without their path (live_paths_start kept slots). */
int
live_paths_on(void)
{
	return (live_paths_slots != NULL);
}

/* Free the slots: every record comes whole, or not at all. */
void
live_paths_stop(void)
{
	free(live_paths_slots);
	live_paths_slots = NULL;
}

/* Records whose path was put back, and those whose path was not here, into *st. */
void
live_paths_cost(struct prog_cost *st)
{
	st->paths_reused += live_paths_nreused;
	st->paths_missed += live_paths_nmisses;
}

/* An inode's place in the second half of live_paths_slots. */
static unsigned
live_paths_ino_slot(uint64_t ino, uint32_t dev)
{
	return (unsigned)(((ino ^ (uint64_t)dev << 40) * 0x9E3779B97F4A7C15ULL) >> 40) &
	    (VFS_PSLOTS - 1);
}

/* What a full record with a path slot sent: the slot's path from now on. */
static void
live_paths_keep(uint16_t slot, uint64_t ino, uint32_t dev, uint16_t pflags, const char *path,
    uint16_t len)
{
	struct live_paths_slot	*ps = &live_paths_slots[slot - 1];

	if (len >= VFS_PSLOT_PATH)
		return;
	ps->ino = ino;
	ps->dev = dev;
	ps->flags = pflags & (VFS_PF_TRUNC | VFS_PF_DELETED | VFS_PF_UNREACHABLE | VFS_PF_PSEUDO);
	ps->len = len;
	memcpy(ps->path, path, len);
	live_paths_slots[VFS_PSLOTS + live_paths_ino_slot(ino, dev)] = *ps;
}

/*
 * Copy a slot's path (len < VFS_PSLOT_PATH) into a record's (VFS_PATH_MAX
 * bytes) in whole 64-byte pieces: a copy of a length known only here was
 * compiled to rep movsq, whose start-up was most of live_paths_put's time
 * (perf, fio's libaio job).
 */
static void
live_paths_copy(char *to, const char *from, uint16_t len)
{
	unsigned	 o;

	_Static_assert(VFS_PSLOT_PATH % 64 == 0 && VFS_PSLOT_PATH <= VFS_PATH_MAX, "whole pieces");
	for (o = 0; o < len; o += 64)
		memcpy(to + o, from + o, 64);
}

/*
 * The path of a record sent without it (VFS_PF_CACHED) from its slot, into
 * path (*lenp, *pflags); else none, and every path is asked for again.
 */
static void
live_paths_put(uint16_t slot, uint64_t ino, uint32_t dev, char *path, uint16_t *lenp,
    uint16_t *pflags)
{
	struct live_paths_slot	*ps = &live_paths_slots[slot - 1];

	*pflags &= ~VFS_PF_CACHED;
	if (ps->dev != dev || ps->ino != ino)
		/* A record batched behind others: its path by its inode. */
		ps = &live_paths_slots[VFS_PSLOTS + live_paths_ino_slot(ino, dev)];
	if (ps->len < VFS_PSLOT_PATH && ps->dev == dev && ps->ino == ino) {
		live_paths_nreused++;
		live_paths_copy(path, ps->path, ps->len);
		*lenp = ps->len;
		*pflags |= ps->flags;
	} else {
		/*
		 * Lost with a lost record, or its slot taken meanwhile: all paths
		 * again. Not for a direct async call named at its requests
		 * (VFS_PF_KIO): no traced call of its file may follow to send it.
		 */
		live_paths_nmisses++;
		if (!(*pflags & VFS_PF_KIO))
			live_vfs_paths_stale();
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
live_paths_record(const void *rec, size_t *lenp)
{
	const struct ev_rw	*e = rec;
	const struct ev_open	*o = rec;
	const struct ev_fop	*fo = rec;
	struct ev_rw		*w = &live_paths_whole.ev;
	struct ev_fop		*wf = (struct ev_fop *)live_paths_whole.buf;
	uint32_t		 type;

	if (live_paths_slots == NULL || *lenp < sizeof type)
		return (rec);
	memcpy(&type, rec, sizeof type);
	if (type == EV_OPEN) {
		if (*lenp < sizeof *o || o->slot == 0 || o->slot > VFS_PSLOTS ||
		    *lenp < EV_OPEN_SIZE(o->path_len))
			return (rec);
		live_paths_keep(o->slot, o->ino, o->dev, o->path_flags, o->path, o->path_len);
		memcpy(live_paths_whole.buf, o, EV_OPEN_SIZE(o->path_len));
		((struct ev_open *)live_paths_whole.buf)->slot = 0;
		return (live_paths_whole.buf);
	}
	if (type == EV_FOP) {
		if (*lenp < sizeof *fo || fo->slot == 0 || fo->slot > VFS_PSLOTS ||
		    !(fo->path_flags & VFS_PF_CACHED) || fo->path_len != 0 || fo->path2_len != 0)
			return (rec);
		memcpy(wf, fo, sizeof *wf);
		wf->slot = 0;
		live_paths_put(fo->slot, fo->ino, fo->dev, wf->path, &wf->path_len,
		    &wf->path_flags);
		wf->path[wf->path_len + 1] = '\0';	/* path2: empty */
		*lenp = EV_FOP_SIZE(wf->path_len, 0);
		return (wf);
	}
	if (*lenp < sizeof *e || type != EV_RW || e->slot == 0 ||
	    e->slot > VFS_PSLOTS || *lenp < EV_RW_SIZE(e->path_len))
		return (rec);
	if (!(e->path_flags & VFS_PF_CACHED)) {
		live_paths_keep(e->slot, e->ino, e->dev, e->path_flags, e->path, e->path_len);
		memcpy(w, e, EV_RW_SIZE(e->path_len));
		w->slot = 0;
		return (w);
	}
	memcpy(w, e, sizeof *w);
	w->slot = 0;
	live_paths_put(e->slot, e->ino, e->dev, w->path, &w->path_len, &w->path_flags);
	*lenp = EV_RW_SIZE(w->path_len);
	return (w);
}
