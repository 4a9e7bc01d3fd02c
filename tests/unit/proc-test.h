/*
 * proc-test.h: for the unit tests of the model's process and file tables
 * (test-proc.c, test-proc-io.c): records to add, entries to find.
 */
#ifndef BLKTOP_TEST_PROC_H
#define BLKTOP_TEST_PROC_H

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "blktop.h"
#include "model.h"
#include "check.h"

/* An event record with room for its path. */
union rec {
	struct ev_rw	 rw;
	struct ev_open	 open;
	char		 raw[sizeof(struct ev_rw) + VFS_PATH_MAX];
};

static uint64_t now = 1000;

/* A read/write call's record of bytes on path, into r; its length. */
static inline size_t
rw_rec(union rec *r, uint32_t pid, uint32_t tgid, const char *comm, const char *path,
    int write, uint64_t bytes, uint64_t lat)
{
	size_t		len = strlen(path);

	memset(r, 0, sizeof(struct ev_rw));
	r->rw.type = EV_RW;
	r->rw.ts = now++;
	r->rw.lat_ns = lat;
	r->rw.pid = pid;
	r->rw.tgid = tgid;
	r->rw.op = write ? BLK_OP_WRITE : BLK_OP_READ;
	r->rw.sys = write ? VFS_SYS_WRITE : VFS_SYS_READ;
	r->rw.ftype = VFS_FT_REG;
	r->rw.asked = bytes;
	r->rw.done = bytes;
	strncpy(r->rw.comm, comm, sizeof(r->rw.comm) - 1);
	r->rw.path_len = len;
	memcpy(r->rw.path, path, len + 1);
	return (EV_RW_SIZE(len));
}

/* Feed one read/write call to the tables. */
static inline int
add_rw(struct proc_table *t, uint32_t pid, uint32_t tgid, const char *comm, const char *path,
    int write, uint64_t bytes, uint64_t lat)
{
	union rec	r;
	size_t		len = rw_rec(&r, pid, tgid, comm, path, write, bytes, lat);

	return proc_add(t, &r, len);
}

/* Feed one open. */
static inline int
add_open(struct proc_table *t, uint32_t tgid, const char *path, int ret)
{
	union rec	r;
	size_t		len = strlen(path);

	memset(&r, 0, sizeof(struct ev_open));
	r.open.type = EV_OPEN;
	r.open.ts = now++;
	r.open.pid = r.open.tgid = tgid;
	r.open.ret = ret;
	r.open.ftype = ret < 0 ? VFS_FT_NONE : VFS_FT_REG;
	strcpy(r.open.comm, "opener");
	r.open.path_len = len;
	memcpy(r.open.path, path, len + 1);
	return proc_add(t, &r, EV_OPEN_SIZE(len));
}

/* Feed one block request. */
static inline void
add_block(struct proc_table *t, uint32_t pid, uint32_t tgid, const char *comm, int write,
    uint32_t bytes, uint64_t lat)
{
	struct ev_block b;

	memset(&b, 0, sizeof(b));
	b.type = EV_BLOCK;
	b.ts_start = now;
	b.ts_issue = now;
	b.ts_done = now + lat;
	now++;
	b.pid = pid;
	b.tgid = tgid;
	b.op = write ? BLK_OP_WRITE : BLK_OP_READ;
	b.bytes = bytes;
	strncpy(b.comm, comm, sizeof(b.comm) - 1);
	proc_add(t, &b, sizeof(b));
}

/* The process entry with this id, or NULL (through the total top). */
static inline const struct proc_entry *
find_proc(struct proc_table *t, uint32_t id)
{
	const struct proc_entry	*top[1024];
	unsigned		 n, i;

	n = top_procs(t, PROC_KEY_OPENS, 1, top, nitems(top));
	for (i = 0; i < n; i++) {
		if (top[i]->id == id)
			return top[i];
	}
	return NULL;
}

/* The file entry with this path, or NULL. */
static inline const struct file_entry *
find_file(struct proc_table *t, const char *path)
{
	static const struct file_entry	*top[1024];
	char				 buf[VFS_PATH_MAX];
	unsigned			 n, i;

	n = top_files(t, PROC_KEY_OPENS, 1, top, nitems(top));
	for (i = 0; i < n; i++) {
		model_file_path(t, top[i], buf, sizeof(buf));
		if (strcmp(buf, path) == 0)
			return top[i];
	}
	return NULL;
}

/* Resident set size in bytes. */
static inline size_t
rss(void)
{
	FILE	*f = fopen("/proc/self/statm", "r");
	long	 size = 0, res = 0;

	if (f == NULL)
		return 0;
	if (fscanf(f, "%ld %ld", &size, &res) != 2)
		res = 0;
	fclose(f);
	return (size_t)res * (size_t)sysconf(_SC_PAGESIZE);
}

#endif /* BLKTOP_TEST_PROC_H */
