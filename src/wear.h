/*
 * wear.h: bytes written and never read (issue 44, part 4): per file, the
 * byte ranges written and not read back yet, kept in the same bounded
 * interval set as a file's bytes touched (struct pat_touched, pattern.h);
 * per file, process and interval, what became of the bytes written.
 *
 * Definitions (doc/json.md says the same, one line a figure):
 * - written: the bytes write calls with a known offset wrote (each call's
 *   bytes done, an overwrite counted again: what the device is asked to hold).
 * - read back: the bytes of a read with an offset that lie in a range
 *   written earlier in the run and not read back since (each written byte is
 *   read back once at most), before the file was unlinked or truncated.
 * - never read: the bytes of the file's unread ranges when the file is
 *   unlinked, truncated (an open with O_TRUNC for writing) or created anew,
 *   and the unread bytes a later write overwrote.
 * - unread: written, not read back, not settled yet (the file is still
 *   there): what never read would grow by if the run ended now.
 * So written = read back + never read + unread - over, where over counts the
 * bytes of the gaps joined when a file's set went past PAT_EXTENTS ranges
 * (0: every figure exact; else read back, never read and unread may each be
 * over by as much at most).
 * - A file's life: from the open that created it (VFS_PF_CREATED) to the
 *   unlink of its name, both seen; lives counts those, life_ns sums them.
 */
#ifndef BLKTOP_WEAR_H
#define BLKTOP_WEAR_H

#include <stdint.h>

#include "pattern.h"

/* What became of the bytes written: of a file, a process or an interval (struct proc_counts). */
struct wear_counts {
	uint64_t	 written;	/* bytes written by calls with an offset */
	uint64_t	 read_back;	/* of those, read back */
	uint64_t	 never_read;	/* settled: unlinked, truncated or overwritten unread */
	uint64_t	 over;		/* bytes of gaps joined at the cap: 0 exact */
	uint64_t	 lives;		/* files unlinked whose create was seen */
	uint64_t	 life_ns;	/* their create-to-unlink times, summed */
};

/* A file's unread ranges and who wrote them last. 304 + 24 bytes. */
struct file_wear {
	struct pat_touched unread;	/* written, not read back, not settled; .read unused */
	uint64_t	 created_ns;	/* stream ns of the create seen, 0: none since the last unlink */
	uint32_t	 writer;	/* process table entry of the last writer, + 1; 0 none */
	uint32_t	 writer_id;	/* its id then: the entry may hold another since */
};

/* wear.c: the range arithmetic (no allocation, O(PAT_EXTENTS)). */
uint64_t	 wear_cut(struct pat_touched *, int64_t off, uint64_t bytes);
uint64_t	 wear_write(struct file_wear *, int64_t off, uint64_t bytes, uint64_t *overwritten);
uint64_t	 wear_read(struct file_wear *, int64_t off, uint64_t bytes);
uint64_t	 wear_settle(struct file_wear *);

/*
 * model-wear.c: the model's side. A create, truncation or unlink waits in
 * model-pattern.c's ring as an open does (struct model_pending's dir), so
 * that the calls made before it are judged first.
 */
#define MODEL_PENDING_CREATE	3	/* an open that created its file */
#define MODEL_PENDING_TRUNC	4	/* an open with O_TRUNC, for writing, of a regular file */
#define MODEL_PENDING_UNLINK	5	/* an unlink of its name that succeeded */
#define MODEL_PENDING_RENAME_OUT 6	/* a rename from its name: its ranges leave it, */
#define MODEL_PENDING_RENAME_IN	7	/* and come to the new name (the next entry, same time) */
#define MODEL_PENDING_TRUNC_AT	8	/* a truncate or ftruncate that succeeded: off its length */

/* A renamed file's ranges between its two ring entries (struct proc_table's). */
struct wear_moving {
	struct file_wear wear;
	uint64_t	 ts;		/* the rename's: the entry to the new name has the same */
	uint32_t	 tgid;
	uint8_t		 set;
};
struct proc_table;
struct proc_entry;
struct file_entry;
struct model_pending;
void		 model_pattern_life(struct proc_table *, struct proc_entry *, struct file_entry *,
		     uint64_t ts, unsigned kind);
void		 model_pattern_truncate(struct proc_table *, struct proc_entry *, struct file_entry *,
		     uint64_t ts, uint64_t len);
void		 model_wear_access(struct proc_table *, const struct model_pending *);
void		 model_wear_life(struct proc_table *, const struct model_pending *);

#endif
