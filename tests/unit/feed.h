/* feed.h: records for the unit tests that drive the stream: a read call, a mark. */
#ifndef BLKTOP_TEST_FEED_H
#define BLKTOP_TEST_FEED_H

#include <string.h>

/* An event record with room for its path or label. */
union feed_rec {
	struct ev_rw	 rw;
	struct ev_mark	 mark;
	char		 raw[sizeof(struct ev_rw) + VFS_PATH_MAX];
};

/* Feed one 4 KiB read call of pid on path at ts (inode 100 + pid, no offset). */
static inline void
feed_read(struct blktop *b, uint64_t ts, uint32_t pid, const char *path)
{
	union feed_rec	 r;
	size_t		 len = strlen(path);

	memset(&r, 0, sizeof r.rw);
	r.rw.type = EV_RW;
	r.rw.ts = ts;
	r.rw.lat_ns = 1000;
	r.rw.pid = r.rw.tgid = pid;
	r.rw.op = BLK_OP_READ;
	r.rw.sys = VFS_SYS_READ;
	r.rw.ftype = VFS_FT_REG;
	r.rw.asked = r.rw.done = 4096;
	r.rw.pos = -1;
	r.rw.ino = 100 + pid;
	strcpy(r.rw.comm, "reader");
	r.rw.path_len = (uint16_t)len;
	memcpy(r.rw.path, path, len + 1);
	stream_event(b, &r, EV_RW_SIZE(len));
}

/* Feed one mark labelled label at ts, from pid 42. */
static inline void
feed_mark(struct blktop *b, uint64_t ts, const char *label)
{
	union feed_rec	 r;
	size_t		 len = strlen(label);

	memset(&r, 0, sizeof r.mark + len + 1);
	r.mark.type = EV_MARK;
	r.mark.ts = ts;
	r.mark.pid = 42;
	r.mark.label_len = (uint16_t)len;
	memcpy(r.mark.label, label, len + 1);
	stream_event(b, &r, EV_MARK_SIZE(len));
}

#endif
