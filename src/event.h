/*
 * event.h: the records as the stream sees them: the record types' table
 * (rec-type.c, the one place that knows each type's layout), the HAVE_* bits
 * of what a source's records can tell (source.c names them), and the process
 * filter's bound. Over bpf/blktop-abi.h (the ev_* records themselves); for
 * the sources, the stream, the model, the capture and the sinks alike.
 */
#ifndef BLKTOP_EVENT_H
#define BLKTOP_EVENT_H

#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

#include "../bpf/blktop-abi.h"
#include "base.h"

struct blktop;

/* -p pids the process filter keeps, at most (the -D and -c bounds: blktop-abi.h). */
#define FILTER_MAX_PIDS	64	/* at most VFS_MAX_TGIDS */

/* rec-type.c: the one table of record types; no other file switches on a record's type. */
struct rec_type {
	const char	*name;		/* "block", "open", ...: --dump's type column */
	size_t		 min_len;	/* its fixed part: a shorter record is malformed */
	size_t		 full_len;	/* 0, or a fixed size it grew to: shorter ones are zero-filled */
	size_t		 ts_off;	/* where its CLOCK_MONOTONIC ns time (uint64_t) is */
	int		 event;		/* counted as an event (ticks and losses are not) */
	int		 charges;	/* has a process, command and cgroup to charge */
	size_t		 tgid_off;	/* those fields, if charges */
	size_t		 comm_off;
	size_t		 cgroup_off;
	size_t		 dev_off[2];	/* its kernel dev_t fields (uint32_t), 0 past the last */
	int		(*valid)(const void *rec, size_t len);	/* more than min_len; NULL: nothing */
};
extern const struct rec_type rec_types[EV_MAX];
const struct rec_type *rec_type_of(uint32_t type);
uint64_t	 rec_type_ts(const void *rec, size_t len);
void		 rec_type_owner(const struct rec_type *, const void *rec, uint32_t *tgid,
		     const char **comm, uint64_t *cgroup);
int		 rec_type_tick(void *buf, size_t size, size_t *lenp, uint64_t ts);

/* What a source's records can tell (struct blktop.have); a field without it is null, not 0. */
#define HAVE_NBITS	12		/* the HAVE_* bits (below) */
#define HAVE_FILES	0x1		/* block records name their file (live, captures 2.x) */
#define HAVE_DIRTY	0x2		/* page-dirty records (VFS_PAGES_DIRTY loaded) */
#define HAVE_FAULT	0x4		/* page-fault records (VFS_PAGES_FAULT loaded) */
#define HAVE_VFS	0x8		/* read/write call records */
#define HAVE_URING	0x10		/* io_uring read/write records */
#define HAVE_AIO	0x20		/* libaio read/write records */
#define HAVE_LIFE	0x40		/* lifecycle records (EV_FOP) and created opens */
#define HAVE_MUNMAP	0x80		/* munmaps among them (bpf_find_vma: 5.17) */
#define HAVE_FSYNC	0x100		/* fsync and fdatasync among them (live, captures since fsyncs were traced) */
#define HAVE_THROTTLE	0x200		/* dirtiers' pauses (VFS_PAGES_THROTTLE loaded) */
#define HAVE_TASK	0x400		/* the process tree: EV_TASK records (VFS_PAGES_TASK loaded) */
#define HAVE_TRUNCATE	0x800		/* truncate and ftruncate among the lifecycle records (live, captures since they were traced) */
/* A HAVE_* bit's name and what it tells (source.c). */
struct have_entry {
	unsigned	 bit;
	const char	*name;
	const char	*what;
};
extern const struct have_entry have_table[HAVE_NBITS];
const char	*source_have_na(const struct blktop *, unsigned bit);
void		 source_have_set_na(struct blktop *, unsigned bit, const char *fmt, ...)
		     __printflike(3, 4);
size_t		 source_have_na_list(const struct blktop *, char *, size_t);

#endif /* BLKTOP_EVENT_H */
