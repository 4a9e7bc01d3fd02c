/* mark.c: marks: the socket a live run takes them on, and blktop --mark LABEL, which sends one to each running blktop. */

#include <sys/socket.h>
#include <sys/un.h>

#include <errno.h>
#include <event2/event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "blktop.h"

/*
 * A live run binds two abstract Unix sockets named "@blktop-mark.PID" (no
 * file to create, remove or follow; they go with the process; the kernel
 * keeps one name space per socket type). The datagram socket is a
 * program's: a datagram is one mark, its label 1 to MARK_LABEL_MAX - 1
 * bytes, no NUL, a trailing newline dropped; the kernel tells who sent it.
 * The SOCK_SEQPACKET socket is blktop --mark's: a connection carries one
 * label a packet, and connect() lets the sender learn from the kernel
 * (SO_PEERCRED) the pid and uid of the process that listens, so it hands a
 * label only to the blktop its name claims (doc/privileges.md). Both take
 * marks from root and from the user blktop runs as, no one else.
 */
#define MARK_PREFIX	"blktop-mark."
#define MARK_BURST	64		/* datagrams read per wake-up, at most */
#define MARK_BACKLOG	8		/* senders' connections waiting for accept() */
#define MARK_CONNS	8		/* accepted connections read at once, at most */
#define MARK_CONN_SECS	2		/* an accepted connection's labels awaited this long */
#define MARK_SEND_SECS	2		/* --mark's whole run, at most */
#define MARK_PEERS_MAX	4096		/* blktops one --mark sends to, at most */

/* An accepted connection of a sender, and who the kernel says it is. */
struct mark_conn {
	struct blktop	*b;
	struct event	*ev;
	struct ucred	 cred;
	int		 fd;
};

static struct event	*mark_ev, *mark_accept_ev;
static int		 mark_fd = -1, mark_listen_fd = -1;
static struct mark_conn	 mark_conns[MARK_CONNS];
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

/* Whether the kernel's credentials of a sender are root's or blktop's user's. */
static int
mark_cred_ok(const struct ucred *cred)
{
	return (cred->uid == 0 || cred->uid == geteuid());
}

/*
 * One received label of r bytes (msg_flags from recvmsg), sent by cred: a
 * mark after every event before it, or refused and said.
 */
static void
mark_take(struct blktop *b, struct ev_mark *m, ssize_t r, int msg_flags,
    const struct ucred *cred)
{
	const char	*why;
	size_t		 len = (size_t)r;

	if (!mark_cred_ok(cred)) {
		mark_refuse(b, "from a user who is neither root nor blktop's");
		return;
	}
	if (len > 0 && m->label[len - 1] == '\n')
		len--;
	if ((msg_flags & MSG_TRUNC) || (why = mark_label_bad(m->label, len)) != NULL) {
		mark_refuse(b, (msg_flags & MSG_TRUNC) ? "a label over 127 bytes" : why);
		return;
	}
	m->label[len] = '\0';
	m->type = EV_MARK;
	m->pid = (uint32_t)cred->pid;
	m->uid = cred->uid;
	m->label_len = (uint16_t)len;
	/* The mark comes after everything the kernel handed over before it. */
	b->src->entry->drain(b->src);
	m->ts = source_now();
	stream_event(b, m, EV_MARK_SIZE(len));
	if (b->notice != NULL)
		stream_notice(b, "mark: %s", m->label);
}

/* A label's record, as one packet is received into it. */
union mark_rec {
	struct ev_mark	 m;
	char		 raw[sizeof(struct ev_mark) + MARK_LABEL_MAX + 1];
};

/*
 * Receive one packet into a zeroed rec, never waiting; recvmsg's result,
 * *flagsp its msg_flags, *controllenp (the room of control) the length of
 * the control data received.
 */
static ssize_t
mark_recv(int fd, union mark_rec *rec, void *control, size_t *controllenp, int *flagsp)
{
	struct iovec	 iov;
	struct msghdr	 mh;
	ssize_t		 r;

	memset(rec, 0, sizeof *rec);
	iov.iov_base = rec->m.label;
	iov.iov_len = MARK_LABEL_MAX;
	memset(&mh, 0, sizeof mh);
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = control;
	mh.msg_controllen = *controllenp;
	r = recvmsg(fd, &mh, MSG_DONTWAIT);
	*flagsp = mh.msg_flags;
	*controllenp = r < 0 ? 0 : mh.msg_controllen;
	return (r);
}

/* Datagrams are waiting: each good one a mark, after every event before it. */
static void
mark_read_cb(int fd, short what __unused, void *arg)
{
	struct blktop	*b = arg;
	union mark_rec	 rec;
	union {
		struct cmsghdr	 h;
		char		 c[CMSG_SPACE(sizeof(struct ucred))];
	}		 cm;
	struct ucred	 cred;
	struct cmsghdr	*c;
	struct msghdr	 mh;
	ssize_t		 r;
	size_t		 clen;
	int		 n, have, flags;

	for (n = 0; n < MARK_BURST; n++) {
		clen = sizeof cm;
		if ((r = mark_recv(fd, &rec, &cm, &clen, &flags)) < 0)
			break;
		/* The control data this packet brought is in cm: a header over it, to walk it. */
		memset(&mh, 0, sizeof mh);
		mh.msg_control = &cm;
		mh.msg_controllen = clen;
		have = 0;
		for (c = CMSG_FIRSTHDR(&mh); c != NULL; c = CMSG_NXTHDR(&mh, c)) {
			if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS &&
			    c->cmsg_len >= CMSG_LEN(sizeof cred)) {
				memcpy(&cred, CMSG_DATA(c), sizeof cred);
				have = 1;
			}
		}
		if (!have) {
			mark_refuse(b, "from a user who is neither root nor blktop's");
			continue;
		}
		mark_take(b, &rec.m, r, flags, &cred);
	}
}

/* Close an accepted connection and free its slot. */
static void
mark_conn_close(struct mark_conn *mc)
{
	if (mc->ev != NULL)
		event_free(mc->ev);
	if (mc->fd != -1)
		close(mc->fd);
	mc->ev = NULL;
	mc->fd = -1;
}

/*
 * Read a connection's waiting packets, each a label: 1 when it is over (the
 * sender closed it, or an error), 0 while it is open with nothing more yet.
 */
static int
mark_conn_read(struct blktop *b, int fd, const struct ucred *cred)
{
	union mark_rec	 rec;
	ssize_t		 r;
	size_t		 clen;
	int		 n, flags;

	for (n = 0; n < MARK_BURST; n++) {
		clen = 0;
		if ((r = mark_recv(fd, &rec, NULL, &clen, &flags)) < 0)
			return (errno != EAGAIN && errno != EINTR);
		if (r == 0)		/* the sender closed it */
			return (1);
		mark_take(b, &rec.m, r, flags, cred);
	}
	return (0);
}

/* A connection in a slot can be read: closed at its end, or when it kept silent MARK_CONN_SECS. */
static void
mark_conn_cb(int fd, short what, void *arg)
{
	struct mark_conn	*mc = arg;

	if ((what & EV_TIMEOUT) || mark_conn_read(mc->b, fd, &mc->cred))
		mark_conn_close(mc);
}

/*
 * Senders connect: read each (its credentials from the kernel), and one not
 * over yet into a free slot; one of another user, or past MARK_CONNS open at
 * once, is closed at once.
 */
static void
mark_accept_cb(int fd, short what __unused, void *arg)
{
	struct blktop		*b = arg;
	struct timeval		 tv = { MARK_CONN_SECS, 0 };
	struct ucred		 cred;
	socklen_t		 clen;
	unsigned		 i;
	int			 n, cfd;

	for (n = 0; n < MARK_BURST; n++) {
		if ((cfd = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) == -1)
			return;
		clen = sizeof cred;
		if (getsockopt(cfd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) != 0 ||
		    !mark_cred_ok(&cred)) {
			mark_refuse(b, "from a user who is neither root nor blktop's");
			close(cfd);
			continue;
		}
		/* A sender sends and closes at once: most are over before they need a slot. */
		if (mark_conn_read(b, cfd, &cred)) {
			close(cfd);
			continue;
		}
		for (i = 0; i < MARK_CONNS && mark_conns[i].fd != -1; i++)
			;
		if (i == MARK_CONNS) {
			mark_refuse(b, "more than 8 senders connected at once");
			close(cfd);
			continue;
		}
		mark_conns[i].b = b;
		mark_conns[i].cred = cred;
		mark_conns[i].fd = cfd;
		mark_conns[i].ev = event_new(b->base, cfd, EV_READ | EV_PERSIST, mark_conn_cb,
		    &mark_conns[i]);
		event_add(mark_conns[i].ev, &tv);
	}
}

/*
 * A live run: take marks on @blktop-mark.PID, both sockets. A name another
 * process holds, or any other failure, is said and the run goes on without
 * marks.
 */
void
mark_listen(struct blktop *b)
{
	struct sockaddr_un	 sun;
	socklen_t		 len;
	unsigned		 i;
	int			 on = 1;

	for (i = 0; i < MARK_CONNS; i++)
		mark_conns[i].fd = -1;
	mark_addr(&sun, &len, getpid());
	if ((mark_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0)) == -1 ||
	    setsockopt(mark_fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on) == -1 ||
	    bind(mark_fd, (struct sockaddr *)&sun, len) == -1 ||
	    (mark_listen_fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC,
	    0)) == -1 ||
	    bind(mark_listen_fd, (struct sockaddr *)&sun, len) == -1 ||
	    listen(mark_listen_fd, MARK_BACKLOG) == -1) {
		if (errno == EADDRINUSE)
			stream_notice(b, "mark socket @%s is taken by another process: marks off",
			    sun.sun_path + 1);
		else
			stream_notice(b, "mark socket @%s: %s: marks off", sun.sun_path + 1,
			    strerror(errno));
		mark_close();
		return;
	}
	mark_ev = event_new(b->base, mark_fd, EV_READ | EV_PERSIST, mark_read_cb, b);
	event_add(mark_ev, NULL);
	mark_accept_ev = event_new(b->base, mark_listen_fd, EV_READ | EV_PERSIST,
	    mark_accept_cb, b);
	event_add(mark_accept_ev, NULL);
}

/* Close the sockets and every accepted connection. */
void
mark_close(void)
{
	unsigned	 i;

	for (i = 0; i < MARK_CONNS; i++) {
		if (mark_conns[i].ev != NULL)	/* a slot in use has its event */
			mark_conn_close(&mark_conns[i]);
	}
	if (mark_ev != NULL)
		event_free(mark_ev);
	if (mark_accept_ev != NULL)
		event_free(mark_accept_ev);
	if (mark_fd != -1)
		close(mark_fd);
	if (mark_listen_fd != -1)
		close(mark_listen_fd);
	mark_ev = mark_accept_ev = NULL;
	mark_fd = mark_listen_fd = -1;
}

#define MARK_ACCEPTCON	0x10000		/* /proc/net/unix's flag of a listening socket */

/*
 * The pid of a line of /proc/net/unix naming @blktop-mark.PID, 0 if none;
 * its type in *typep, SOCK_SEQPACKET only for the listening socket (the
 * connections accepted on it carry its name too).
 */
static long
mark_line_pid(const char *line, unsigned *typep)
{
	const char	*p;
	char		*end;
	unsigned	 flags, type, st;
	long		 pid;

	if ((p = strstr(line, " @" MARK_PREFIX)) == NULL ||
	    sscanf(line, "%*s %*s %*s %x %x %x", &flags, &type, &st) != 3)
		return (0);
	p += strlen(" @" MARK_PREFIX);
	errno = 0;
	pid = strtol(p, &end, 10);
	if (errno != 0 || end == p || (*end != '\n' && *end != '\0') || pid <= 0 ||
	    pid > INT32_MAX)
		return (0);
	*typep = type == SOCK_SEQPACKET && !(flags & MARK_ACCEPTCON) ? 0 : type;
	return (pid);
}

/* Seconds since an earlier CLOCK_MONOTONIC reading. */
static double
mark_since(const struct timespec *t0)
{
	struct timespec	 t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return ((double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9);
}

/* Say why connect() or send() to blktop pid failed (errno): 1 its queue is full, 2 else. */
static int
mark_send_failed(long pid)
{
	if (errno == EAGAIN) {
		fprintf(stderr, "%s: --mark: blktop %ld is not reading marks\n", log_prog, pid);
		return (1);
	}
	fprintf(stderr, "%s: --mark: blktop %ld: %s\n", log_prog, pid, strerror(errno));
	return (2);
}

/*
 * Send label to the blktop of pid through its SOCK_SEQPACKET socket, never
 * waiting: connect(), then the kernel's word (SO_PEERCRED) that the process
 * listening is pid itself and runs as this user or root, then the label.
 * 0 sent; 1 not reading (its queue full: stopped, or busy); 2 not a blktop
 * that proves it, or gone; each said.
 */
static int
mark_send_one(long pid, const char *label)
{
	struct sockaddr_un	 sun;
	struct ucred		 cred;
	socklen_t		 len, clen = sizeof cred;
	int			 fd, rc = 0;

	mark_addr(&sun, &len, (pid_t)pid);
	if ((fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0)) == -1) {
		fprintf(stderr, "%s: --mark: socket: %s\n", log_prog, strerror(errno));
		return (2);
	}
	if (connect(fd, (struct sockaddr *)&sun, len) == -1)
		rc = mark_send_failed(pid);
	else if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) != 0) {
		fprintf(stderr, "%s: --mark: blktop %ld: SO_PEERCRED: %s\n", log_prog, pid,
		    strerror(errno));
		rc = 2;
	} else if ((long)cred.pid != pid || (cred.uid != geteuid() && cred.uid != 0)) {
		fprintf(stderr, "%s: --mark: @%s is held by pid %ld of uid %lu, not a blktop of "
		    "pid %ld of this user or root: not sent\n", log_prog, sun.sun_path + 1,
		    (long)cred.pid, (unsigned long)cred.uid, pid);
		rc = 2;
	} else if (send(fd, label, strlen(label), MSG_DONTWAIT | MSG_NOSIGNAL) == -1)
		rc = mark_send_failed(pid);
	else
		printf("mark sent to blktop %ld\n", pid);
	close(fd);
	return (rc);
}

/*
 * blktop --mark LABEL: send the label to every blktop taking marks (their
 * sockets are in /proc/net/unix) that proves it is one, and say to which and
 * which did not take it; never waits on one, MARK_SEND_SECS in all at most.
 * Through sudo, as the user who ran sudo (privs_drop). 0 if one took it at
 * least.
 */
int
mark_send(const char *label)
{
	static long		 peers[MARK_PEERS_MAX];
	struct timespec		 t0;
	FILE			*f;
	char			 line[512], *err;
	const char		*why;
	long			 pid;
	unsigned		 type, npeers = 0, i, left = 0;
	int			 sent = 0, failed = 0;
	uid_t			 uid;

	if ((why = mark_label_bad(label, strlen(label))) != NULL) {
		fprintf(stderr, "%s: --mark: %s\n", log_prog, why);
		return (2);
	}
	if (privs_drop(&uid, &err) != 0) {
		fprintf(stderr, "%s: --mark: %s\n", log_prog, err);
		return (1);
	}
	if ((f = fopen("/proc/net/unix", "re")) == NULL) {
		fprintf(stderr, "%s: --mark: /proc/net/unix: %s\n", log_prog, strerror(errno));
		return (1);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (fgets(line, sizeof line, f) != NULL) {
		if ((pid = mark_line_pid(line, &type)) == 0 || type != SOCK_SEQPACKET)
			continue;
		if (npeers == MARK_PEERS_MAX || mark_since(&t0) > MARK_SEND_SECS) {
			left++;
			continue;
		}
		peers[npeers++] = pid;
		if (mark_send_one(pid, label) == 0)
			sent++;
		else
			failed++;
	}
	/* A datagram name alone: no blktop of this one's make, nothing to prove it. */
	rewind(f);
	while (fgets(line, sizeof line, f) != NULL) {
		if ((pid = mark_line_pid(line, &type)) == 0 || type != SOCK_DGRAM)
			continue;
		for (i = 0; i < npeers && peers[i] != pid; i++)
			;
		if (i < npeers || npeers == MARK_PEERS_MAX)
			continue;
		fprintf(stderr, "%s: --mark: @" MARK_PREFIX "%ld has no socket to prove it is a "
		    "blktop: not sent\n", log_prog, pid);
		failed++;
	}
	fclose(f);
	if (left > 0)
		fprintf(stderr, "%s: --mark: %u more blktop sockets not tried (over %d s or %d "
		    "blktops)\n", log_prog, left, MARK_SEND_SECS, MARK_PEERS_MAX);
	if (sent == 0 && failed == 0 && left == 0)
		fprintf(stderr, "%s: --mark: no running blktop takes marks (only a live run does)\n",
		    log_prog);
	return (sent > 0 ? 0 : 1);
}
