/* feed.h: for the unit tests that drive the stream: records to feed (a read call, a mark), and reading what the sinks wrote. */
#ifndef BLKTOP_TEST_FEED_H
#define BLKTOP_TEST_FEED_H

#include <stdio.h>
#include <stdlib.h>
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

/* How many times needle occurs in s. */
static inline unsigned
feed_count(const char *s, const char *needle)
{
	unsigned	 n = 0;

	while ((s = strstr(s, needle)) != NULL) {
		n++;
		s += strlen(needle);
	}
	return (n);
}

/* The number after the first "key": in buf, or -1 if it is not there. */
static inline long long
feed_field(const char *buf, const char *key)
{
	char		 pat[64];
	const char	*p;

	snprintf(pat, sizeof pat, "\"%s\":", key);
	if ((p = strstr(buf, pat)) == NULL)
		return (-1);
	return (strtoll(p + strlen(pat), NULL, 10));
}

/* The whole file at path, NUL-terminated; NULL if it cannot be opened. */
static inline char *
feed_slurp(const char *path)
{
	FILE	*f = fopen(path, "r");
	char	*buf;
	size_t	 len = 0, cap = 65536, n;

	if (f == NULL)
		return (NULL);
	/* Doubled, not grown by a block: test-trace's 30 MB trace was 480 copies. */
	buf = xmalloc(cap + 1);
	while ((n = fread(buf + len, 1, cap - len, f)) > 0) {
		len += n;
		if (len == cap) {
			cap *= 2;
			buf = xreallocarray(buf, cap + 1, 1);
		}
	}
	buf[len] = '\0';
	fclose(f);
	return (buf);
}

#endif
