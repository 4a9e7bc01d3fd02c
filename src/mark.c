/* mark.c: marks: the socket a live run takes them on, and blktop --mark LABEL, which sends one to each running blktop. */

#include <sys/socket.h>
#include <sys/un.h>

#include <errno.h>
#include <event2/event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blktop.h"

/*
 * A live run binds the abstract Unix datagram socket "@blktop-mark.PID"
 * (no file to create, remove or follow; it goes with the process). A
 * datagram is one mark: its label, 1 to MARK_LABEL_MAX - 1 bytes, no NUL, a
 * trailing newline dropped. The kernel tells who sent it: marks are taken
 * from root and from the user blktop runs as, no one else.
 */
#define MARK_PREFIX	"blktop-mark."
#define MARK_BURST	64		/* datagrams read per wake-up, at most */

static struct event	*mark_ev;
static int		 mark_fd = -1;
static uint64_t		 mark_last_refusal;

/* The socket's address: the abstract name of pid; its length in *lenp. */
static void
mark_addr(struct sockaddr_un *sun, socklen_t *lenp, pid_t pid)
{
	int	 n;

	memset(sun, 0, sizeof *sun);
	sun->sun_family = AF_UNIX;
	n = snprintf(sun->sun_path + 1, sizeof sun->sun_path - 1, MARK_PREFIX "%ld", (long)pid);
	*lenp = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
}

/* A label is 1 to MARK_LABEL_MAX - 1 bytes with no NUL; NULL if good, else why not. */
const char *
mark_label_bad(const char *s, size_t len)
{
	if (len == 0)
		return ("an empty label");
	if (len >= MARK_LABEL_MAX)
		return ("a label over 127 bytes");
	if (memchr(s, '\0', len) != NULL)
		return ("a label with a NUL byte");
	return (NULL);
}

/* Say why a datagram was refused, once a second at most (a local user can send many). */
static void
mark_refuse(struct blktop *b, const char *why)
{
	uint64_t	 now = source_now();

	if (mark_last_refusal != 0 && now - mark_last_refusal < NSEC_PER_SEC)
		return;
	mark_last_refusal = now;
	stream_notice(b, "mark refused: %s", why);
}

/* Datagrams are waiting: each good one a mark, after every event before it. */
static void
mark_read_cb(int fd, short what __unused, void *arg)
{
	struct blktop	*b = arg;
	union {
		struct ev_mark	 m;
		char		 raw[sizeof(struct ev_mark) + MARK_LABEL_MAX + 1];
	}		 rec;
	union {
		struct cmsghdr	 h;
		char		 c[CMSG_SPACE(sizeof(struct ucred))];
	}		 cm;
	struct ucred	 cred;
	struct cmsghdr	*c;
	struct iovec	 iov;
	struct msghdr	 mh;
	const char	*why;
	ssize_t		 r;
	size_t		 len;
	int		 n, have;

	for (n = 0; n < MARK_BURST; n++) {
		memset(&rec, 0, sizeof rec);
		iov.iov_base = rec.m.label;
		iov.iov_len = MARK_LABEL_MAX;
		memset(&mh, 0, sizeof mh);
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		mh.msg_control = &cm;
		mh.msg_controllen = sizeof cm;
		if ((r = recvmsg(fd, &mh, MSG_DONTWAIT)) < 0)
			break;
		have = 0;
		for (c = CMSG_FIRSTHDR(&mh); c != NULL; c = CMSG_NXTHDR(&mh, c)) {
			if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS &&
			    c->cmsg_len >= CMSG_LEN(sizeof cred)) {
				memcpy(&cred, CMSG_DATA(c), sizeof cred);
				have = 1;
			}
		}
		if (!have || (cred.uid != 0 && cred.uid != geteuid())) {
			mark_refuse(b, "from a user who is neither root nor blktop's");
			continue;
		}
		len = (size_t)r;
		if (len > 0 && rec.m.label[len - 1] == '\n')
			len--;
		if ((mh.msg_flags & MSG_TRUNC) || (why = mark_label_bad(rec.m.label, len)) != NULL) {
			mark_refuse(b, (mh.msg_flags & MSG_TRUNC) ? "a label over 127 bytes" : why);
			continue;
		}
		rec.m.label[len] = '\0';
		rec.m.type = EV_MARK;
		rec.m.pid = (uint32_t)cred.pid;
		rec.m.uid = cred.uid;
		rec.m.label_len = (uint16_t)len;
		/* The mark comes after everything the kernel handed over before it. */
		b->src->entry->drain(b->src);
		rec.m.ts = source_now();
		stream_event(b, &rec, EV_MARK_SIZE(len));
		if (b->notice != NULL)
			stream_notice(b, "mark: %s", rec.m.label);
	}
}

/* A live run: take marks on @blktop-mark.PID. A failure is said and the run goes on without marks. */
void
mark_listen(struct blktop *b)
{
	struct sockaddr_un	 sun;
	socklen_t		 len;
	int			 on = 1;

	mark_addr(&sun, &len, getpid());
	if ((mark_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0)) == -1 ||
	    setsockopt(mark_fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on) == -1 ||
	    bind(mark_fd, (struct sockaddr *)&sun, len) == -1) {
		stream_notice(b, "marks: cannot bind @%s: %s; blktop --mark cannot reach this run",
		    sun.sun_path + 1, strerror(errno));
		if (mark_fd != -1)
			close(mark_fd);
		mark_fd = -1;
		return;
	}
	mark_ev = event_new(b->base, mark_fd, EV_READ | EV_PERSIST, mark_read_cb, b);
	event_add(mark_ev, NULL);
}

void
mark_close(void)
{
	if (mark_ev != NULL)
		event_free(mark_ev);
	if (mark_fd != -1)
		close(mark_fd);
	mark_ev = NULL;
	mark_fd = -1;
}

/*
 * blktop --mark LABEL: send the label to every blktop taking marks (their
 * sockets are in /proc/net/unix); say to which. 0 if one took it at least.
 */
int
mark_send(const char *label)
{
	struct sockaddr_un	 sun;
	socklen_t		 len;
	FILE			*f;
	char			 line[512], *p, *end;
	const char		*why;
	long			 pid;
	int			 fd, sent = 0, failed = 0;

	if ((why = mark_label_bad(label, strlen(label))) != NULL) {
		fprintf(stderr, "%s: --mark: %s\n", log_prog, why);
		return (2);
	}
	if ((f = fopen("/proc/net/unix", "re")) == NULL) {
		fprintf(stderr, "%s: --mark: /proc/net/unix: %s\n", log_prog, strerror(errno));
		return (1);
	}
	if ((fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)) == -1) {
		fprintf(stderr, "%s: --mark: socket: %s\n", log_prog, strerror(errno));
		fclose(f);
		return (1);
	}
	while (fgets(line, sizeof line, f) != NULL) {
		if ((p = strstr(line, " @" MARK_PREFIX)) == NULL)
			continue;
		p += strlen(" @" MARK_PREFIX);
		errno = 0;
		pid = strtol(p, &end, 10);
		if (errno != 0 || end == p || (*end != '\n' && *end != '\0') || pid <= 0)
			continue;
		mark_addr(&sun, &len, (pid_t)pid);
		if (sendto(fd, label, strlen(label), 0, (struct sockaddr *)&sun, len) == -1) {
			fprintf(stderr, "%s: --mark: blktop %ld: %s\n", log_prog, pid, strerror(errno));
			failed++;
			continue;
		}
		printf("mark sent to blktop %ld\n", pid);
		sent++;
	}
	fclose(f);
	close(fd);
	if (sent == 0 && failed == 0)
		fprintf(stderr, "%s: --mark: no running blktop takes marks (only a live run does)\n",
		    log_prog);
	return (sent > 0 ? 0 : 1);
}
