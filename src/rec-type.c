/* rec-type.c: the one table of record types that the stream, replay, merge, dump and model read. */
#include <stddef.h>
#include <string.h>

#include "base.h"
#include "event.h"

/* Whether a record with a path of path_len bytes (and its NUL) fits in len. */
static int
rec_type_path_fits(uint16_t path_len, size_t size, size_t len)
{
	return (path_len < VFS_PATH_MAX && size <= len);
}

/* An open: its path fits. */
static int
rec_type_valid_open(const void *rec, size_t len)
{
	const struct ev_open	*e = rec;

	return (rec_type_path_fits(e->path_len, EV_OPEN_SIZE(e->path_len), len));
}

/* A read or write: its path fits, and it is one of the two. */
static int
rec_type_valid_rw(const void *rec, size_t len)
{
	const struct ev_rw	*e = rec;

	return (rec_type_path_fits(e->path_len, EV_RW_SIZE(e->path_len), len) &&
	    e->op <= BLK_OP_WRITE);
}

/* A page dirtied or faulted: a kind there is. */
static int
rec_type_valid_page(const void *rec, size_t len __unused)
{
	return (((const struct ev_page *)rec)->kind <= PAGE_FAULT);
}

/* A dirtier's pause: one taken (the kernel sends no others). */
static int
rec_type_valid_throttle(const void *rec, size_t len __unused)
{
	return (((const struct ev_throttle *)rec)->pause_ms > 0);
}

/* A process of the tree: a kind there is, a process (pid 0 is the idle task). */
static int
rec_type_valid_task(const void *rec, size_t len __unused)
{
	const struct ev_task	*e = rec;

	return (e->kind <= TASK_FOUND && e->tgid != 0);
}

/* A file operation: an op there is, both paths fit and end in their NULs. */
static int
rec_type_valid_fop(const void *rec, size_t len)
{
	const struct ev_fop	*e = rec;

	return (e->op < FOP_MAX && e->path_len < VFS_PATH_MAX && e->path2_len < VFS_PATH_MAX &&
	    EV_FOP_SIZE(e->path_len, e->path2_len) <= len && e->path[e->path_len] == '\0' &&
	    e->path[e->path_len + 1 + e->path2_len] == '\0');
}

/* A mark: its label fits and ends in its NUL. */
static int
rec_type_valid_mark(const void *rec, size_t len)
{
	const struct ev_mark	*e = rec;

	return (e->label_len > 0 && e->label_len < MARK_LABEL_MAX &&
	    EV_MARK_SIZE(e->label_len) <= len && e->label[e->label_len] == '\0');
}

/* A part_stat sample: no stray bits where the kernel's fields end. */
static int
rec_type_valid_diskstat(const void *rec, size_t len __unused)
{
	return (((const struct ev_diskstat *)rec)->pad == 0);
}

/* Records with a path: the path starts where the header ends (no tail padding). */
_Static_assert(offsetof(struct ev_open, path) == sizeof(struct ev_open), "ev_open padding");
_Static_assert(offsetof(struct ev_rw, path) == sizeof(struct ev_rw), "ev_rw padding");
_Static_assert(offsetof(struct ev_fop, path) == sizeof(struct ev_fop), "ev_fop padding");
_Static_assert(offsetof(struct ev_mark, label) == sizeof(struct ev_mark), "ev_mark padding");

/* Who a record of struct s charges: its process, command and cgroup. */
#define REC_CHARGES(s)							\
	.charges = 1, .tgid_off = offsetof(struct s, tgid),		\
	.comm_off = offsetof(struct s, comm), .cgroup_off = offsetof(struct s, cgroup)

/* Indexed by enum blktop_ev_type; a type without a name is none of this version's. */
const struct rec_type rec_types[EV_MAX] = {
	[EV_BLOCK] = {
		.name = "block", .min_len = sizeof(struct ev_block), .event = 1,
		.ts_off = offsetof(struct ev_block, ts_done), REC_CHARGES(ev_block),
		.dev_off = { offsetof(struct ev_block, dev), offsetof(struct ev_block, fsdev) },
	},
	[EV_OPEN] = {
		.name = "open", .min_len = sizeof(struct ev_open), .event = 1,
		.ts_off = offsetof(struct ev_open, ts), REC_CHARGES(ev_open),
		.dev_off = { offsetof(struct ev_open, dev) }, .valid = rec_type_valid_open,
	},
	[EV_RW] = {
		.name = "rw", .min_len = sizeof(struct ev_rw), .event = 1,
		.ts_off = offsetof(struct ev_rw, ts), REC_CHARGES(ev_rw),
		.dev_off = { offsetof(struct ev_rw, dev), offsetof(struct ev_rw, rdev) },
		.valid = rec_type_valid_rw,
	},
	[EV_PAGE] = {
		.name = "page", .min_len = EV_PAGE_OLD_SIZE, .full_len = sizeof(struct ev_page),
		.event = 1,
		.ts_off = offsetof(struct ev_page, ts), REC_CHARGES(ev_page),
		.dev_off = { offsetof(struct ev_page, dev) }, .valid = rec_type_valid_page,
	},
	[EV_THROTTLE] = {
		.name = "throttle", .min_len = sizeof(struct ev_throttle), .event = 1,
		.ts_off = offsetof(struct ev_throttle, ts), REC_CHARGES(ev_throttle),
		.valid = rec_type_valid_throttle,
	},
	[EV_TASK] = {
		.name = "task", .min_len = sizeof(struct ev_task),
		.ts_off = offsetof(struct ev_task, ts), .valid = rec_type_valid_task,
	},
	[EV_FOP] = {
		.name = "fop", .min_len = sizeof(struct ev_fop), .event = 1,
		.ts_off = offsetof(struct ev_fop, ts), REC_CHARGES(ev_fop),
		.dev_off = { offsetof(struct ev_fop, dev) }, .valid = rec_type_valid_fop,
	},
	[EV_TICK] = {
		.name = "tick", .min_len = sizeof(struct ev_tick),
		.ts_off = offsetof(struct ev_tick, ts),
	},
	[EV_LOST] = {
		.name = "lost", .min_len = sizeof(struct ev_lost),
		.ts_off = offsetof(struct ev_lost, ts),
	},
	[EV_MARK] = {
		.name = "mark", .min_len = sizeof(struct ev_mark),
		.ts_off = offsetof(struct ev_mark, ts), .valid = rec_type_valid_mark,
	},
	[EV_DISKSTAT] = {
		.name = "diskstat", .min_len = sizeof(struct ev_diskstat),
		.ts_off = offsetof(struct ev_diskstat, ts),
		.dev_off = { offsetof(struct ev_diskstat, dev) }, .valid = rec_type_valid_diskstat,
	},
};

/* The entry of type, or NULL for a type this version does not know (EV_BATCH never reaches the stream). */
const struct rec_type *
rec_type_of(uint32_t type)
{
	if (type >= EV_MAX || rec_types[type].name == NULL)
		return (NULL);
	return (&rec_types[type]);
}

/* The stream time a record happened at; 0 if it is of no known type or too short for its type. */
uint64_t
rec_type_ts(const void *rec, size_t len)
{
	const struct rec_type	*rt;
	uint32_t		 type;
	uint64_t		 ts;

	if (len < sizeof type)
		return (0);
	memcpy(&type, rec, sizeof type);
	if ((rt = rec_type_of(type)) == NULL || len < rt->min_len)
		return (0);
	memcpy(&ts, (const char *)rec + rt->ts_off, sizeof ts);
	return (ts);
}

/* Who a charging record charges (rt->charges): process id, command and cgroup. */
void
rec_type_owner(const struct rec_type *rt, const void *rec, uint32_t *tgid,
    const char **comm, uint64_t *cgroup)
{
	memcpy(tgid, (const char *)rec + rt->tgid_off, sizeof *tgid);
	memcpy(cgroup, (const char *)rec + rt->cgroup_off, sizeof *cgroup);
	*comm = (const char *)rec + rt->comm_off;
}

/* An EV_TICK at ts into buf of size bytes: 1, or -1 if it does not fit. */
int
rec_type_tick(void *buf, size_t size, size_t *lenp, uint64_t ts)
{
	struct ev_tick	 t = { .type = EV_TICK, .ts = ts };

	if (size < sizeof t)
		return (-1);
	memcpy(buf, &t, sizeof t);
	*lenp = sizeof t;
	return (1);
}
