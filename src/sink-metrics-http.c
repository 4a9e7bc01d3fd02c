/* sink-metrics-http.c: the metrics endpoint's HTTP/1.1 server: bounded in connections, time and memory. */

#include <sys/socket.h>
#include <sys/queue.h>
#include <netinet/in.h>
#include <event2/buffer.h>
#include <event2/event.h>
#include <errno.h>
#include <malloc.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "blktop.h"

/*
 * What a hostile local client can hold, and for how long (doc/blktop.8,
 * ENDPOINT): a request's head must arrive whole within HTTP_READ_SECS of the
 * connection being ready for it (a byte does not renew the time), its reply
 * must be taken within HTTP_WRITE_SECS; one request at a time per connection
 * (a pipelined one waits in the kernel's buffers, not in ours); at most
 * HTTP_MAX_CONNS connections, and no new reply while the unsent ones hold
 * HTTP_OUT_BUDGET bytes.
 */
#define HTTP_MAX_CONNS		64
#define HTTP_HEAD_MAX		8192
#define HTTP_READ_SECS		10
#define HTTP_WRITE_SECS		10
#define HTTP_LINGER_SECS	2
#define HTTP_OUT_BUDGET		(32u << 20)
#define HTTP_ACCEPT_PAUSE_MS	250	/* accept paused this long when out of fds */
#define HTTP_WARN_SECS		60	/* at most one line a minute about refusals */

enum http_state { HTTP_READING, HTTP_WRITING, HTTP_LINGER };

/* Why connections were refused, each said at most once a minute. */
enum http_refusal { HTTP_REFUSED_FULL, HTTP_REFUSED_FDS, HTTP_REFUSED_BUSY, HTTP_REFUSED_MAX };

struct http_conn {
	struct http_server	*srv;
	int			 fd;
	enum http_state		 state;
	int			 close_after;	/* the reply being written is the last */
	struct event		*rd;
	struct event		*wr;
	struct event		*deadline;
	struct evbuffer		*in;
	struct evbuffer		*out;
	TAILQ_ENTRY(http_conn)	 entry;
};

struct http_server {
	struct blktop		*b;		/* its notices go through b's hook */
	struct event_base	*base;
	int			 fd;
	struct event		*accept_ev;
	struct event		*resume_ev;	/* accept again after running out of fds */
	struct event		*trim_ev;	/* memory back to the system after big replies */
	int			 paused;
	http_handler		 handler;
	void			*arg;
	TAILQ_HEAD(, http_conn)	 conns;
	unsigned		 nconns;
	unsigned		 max_conns;
	struct metrics_http_stats	 st;
	uint64_t		 warned_at[HTTP_REFUSED_MAX];	/* source_now() of each reason's last line */
};


/* A line about refused connections, through the notice hook: once a minute per reason. */
static void
metrics_http_warn(struct http_server *srv, enum http_refusal why, const char *what)
{
	uint64_t	 now = source_now(), refused;

	refused = srv->st.refused_full + srv->st.refused_fds + srv->st.refused_busy;
	if (srv->warned_at[why] != 0 &&
	    now - srv->warned_at[why] < HTTP_WARN_SECS * NSEC_PER_SEC)
		return;
	stream_notice(srv->b, "--listen: %s; %llu connections refused so far (this "
	    "line at most once a minute)", what, (unsigned long long)refused);
	srv->warned_at[why] = now;
}

/* Bind and listen on addr:port (a numeric address or a host name); the socket's fd. */
int
metrics_http_bind(const char *addr, uint16_t port, char **errp)
{
	struct addrinfo	 hints, *res, *ai;
	char		 service[8];
	int		 fd = -1, one = 1, rc, saved = 0;

	memset(&hints, 0, sizeof hints);
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE;
	snprintf(service, sizeof service, "%u", port);
	if ((rc = getaddrinfo(addr, service, &hints, &res)) != 0) {
		xasprintf(errp, "--listen %s:%u: %s", addr, port, gai_strerror(rc));
		return (-1);
	}
	for (ai = res; ai != NULL; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
		    ai->ai_protocol);
		if (fd == -1) {
			saved = errno;
			continue;
		}
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
		/*
		 * The kernel's longest accept queue (net.core.somaxconn caps it):
		 * a flood of connections waits there to be accepted, or to make
		 * room, instead of having its and the scraper's SYNs dropped
		 * (a backlog of 128 under 1000 connecting clients: a scrape got
		 * no answer within 5 s on a loaded 2-CPU machine).
		 */
		if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && listen(fd, SOMAXCONN) == 0)
			break;
		saved = errno;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd == -1)
		xasprintf(errp, "--listen %s:%u: cannot listen: %s", addr, port,
		    strerror(saved));
	return (fd);
}

/* Unsent reply bytes of every connection. */
static size_t
metrics_http_out_pending(const struct http_server *srv)
{
	const struct http_conn	*c;
	size_t			 n = 0;

	TAILQ_FOREACH(c, &srv->conns, entry)
		n += evbuffer_get_length(c->out);
	return (n);
}

/* Give freed heap back to the system, once a second at most. */
static void
metrics_http_trim_cb(int fd __unused, short what __unused, void *arg __unused)
{
	malloc_trim(0);
}

/* A connection goes: its fd, its events, its buffers. */
static void
metrics_http_conn_free(struct http_conn *c)
{
	struct http_server	*srv = c->srv;
	struct timeval		 tv = { 1, 0 };
	size_t			 held;

	held = evbuffer_get_length(c->out) + evbuffer_get_length(c->in);
	TAILQ_REMOVE(&srv->conns, c, entry);
	srv->nconns--;
	event_free(c->rd);
	event_free(c->wr);
	event_free(c->deadline);
	evbuffer_free(c->in);
	evbuffer_free(c->out);
	close(c->fd);
	free(c);
	if (held > 65536 && !evtimer_pending(srv->trim_ev, NULL))
		evtimer_add(srv->trim_ev, &tv);
	/* A free fd again: accept at once rather than after the pause. */
	if (srv->paused) {
		srv->paused = 0;
		event_del(srv->resume_ev);
		event_add(srv->accept_ev, NULL);
	}
}

/* Arm the connection's deadline: secs from now, whatever bytes arrive meanwhile. */
static void
metrics_http_conn_deadline(struct http_conn *c, int secs)
{
	struct timeval	 tv = { secs, 0 };

	evtimer_add(c->deadline, &tv);
}

/* Ready for the next request: read, with a fresh deadline. */
static void
metrics_http_conn_reading(struct http_conn *c)
{
	c->state = HTTP_READING;
	event_del(c->wr);
	event_add(c->rd, NULL);
	metrics_http_conn_deadline(c, HTTP_READ_SECS);
	/* A pipelined request may be whole in the buffer already. */
	if (evbuffer_get_length(c->in) > 0)
		event_active(c->rd, EV_READ, 0);
}

/*
 * The last reply is out: no more from us, and what the client still sends is
 * read and thrown away until it closes (or HTTP_LINGER_SECS), so that the
 * kernel does not answer its bytes with a reset that could destroy the tail
 * of the reply before the client read it.
 */
static void
metrics_http_conn_linger(struct http_conn *c)
{
	c->state = HTTP_LINGER;
	shutdown(c->fd, SHUT_WR);
	event_del(c->wr);
	event_add(c->rd, NULL);
	metrics_http_conn_deadline(c, HTTP_LINGER_SECS);
}

/* Write what the socket takes; at the end of a reply, the next request or the close. */
static void
metrics_http_conn_write_cb(int fd, short what __unused, void *arg)
{
	struct http_conn	*c = arg;

	while (evbuffer_get_length(c->out) > 0) {
		if (evbuffer_write(c->out, fd) <= 0) {
			if (errno == EAGAIN || errno == EINTR)
				return;
			metrics_http_conn_free(c);	/* the client went away */
			return;
		}
	}
	if (c->close_after)
		metrics_http_conn_linger(c);
	else
		metrics_http_conn_reading(c);
}

/* Start sending the reply in c->out. */
static void
metrics_http_conn_writing(struct http_conn *c)
{
	c->state = HTTP_WRITING;
	event_del(c->rd);
	metrics_http_conn_deadline(c, HTTP_WRITE_SECS);
	event_add(c->wr, NULL);
}

/* The status line and headers before a body of len bytes. */
static void
metrics_http_head(struct evbuffer *out, int status, const char *reason, const char *type,
    const char *extra, size_t len, int close_after)
{
	evbuffer_add_printf(out, "HTTP/1.1 %d %s\r\n", status, reason);
	if (type != NULL)
		evbuffer_add_printf(out, "Content-Type: %s\r\n", type);
	evbuffer_add_printf(out, "Content-Length: %zu\r\nCache-Control: no-store\r\n"
	    "%sConnection: %s\r\n\r\n", len, extra != NULL ? extra : "",
	    close_after ? "close" : "keep-alive");
}

/* An error reply with a one-line body; the connection closes after it. */
static void
metrics_http_error(struct http_conn *c, int status, const char *reason, const char *extra)
{
	char	 body[128];
	int	 n;

	n = snprintf(body, sizeof body, "%d %s\n", status, reason);
	c->close_after = 1;
	metrics_http_head(c->out, status, reason, "text/plain; charset=utf-8", extra, (size_t)n, 1);
	evbuffer_add(c->out, body, (size_t)n);
	metrics_http_conn_writing(c);
}

/*
 * The value of header name in the head (lines ending in \n, \r stripped by
 * the caller), into val; 0 if present.
 */
static int
metrics_http_header(char *const *lines, unsigned nlines, const char *name, char *val,
    size_t len)
{
	size_t		 n = strlen(name);
	const char	*v;
	unsigned	 i;

	for (i = 1; i < nlines; i++) {
		if (strncasecmp(lines[i], name, n) != 0 || lines[i][n] != ':')
			continue;
		for (v = lines[i] + n + 1; *v == ' ' || *v == '\t'; v++)
			;
		snprintf(val, len, "%s", v);
		return (0);
	}
	return (-1);
}

/* Whether a Connection header value lists token (comma-separated, any case). */
static int
metrics_http_has_token(const char *value, const char *token)
{
	size_t		 n = strlen(token);
	const char	*p = value;

	while (*p != '\0') {
		while (*p == ' ' || *p == '\t' || *p == ',')
			p++;
		if (strncasecmp(p, token, n) == 0 &&
		    (p[n] == '\0' || p[n] == ',' || p[n] == ' ' || p[n] == '\t'))
			return (1);
		while (*p != '\0' && *p != ',')
			p++;
	}
	return (0);
}

/* One whole request head of len bytes at the front of c->in: answer it. */
static void
metrics_http_conn_request(struct http_conn *c, size_t len)
{
	struct http_server	*srv = c->srv;
	struct http_request	 req;
	struct http_reply	 rep;
	char			*head, *lines[64], *p, *q, *method, *target, *version;
	char			 val[256], accept[256];
	unsigned		 nlines = 0;
	size_t			 bodylen;
	int			 http11, keep;

	head = xmalloc(len + 1);
	evbuffer_remove(c->in, head, len);
	head[len] = '\0';
	for (p = head; *p != '\0' && nlines < nitems(lines); p = q) {
		if ((q = strchr(p, '\n')) == NULL)
			break;
		*q++ = '\0';
		if (q - 2 >= p && q[-2] == '\r')
			q[-2] = '\0';
		if (*p == '\0')
			break;
		lines[nlines++] = p;
	}
	method = nlines > 0 ? strtok_r(lines[0], " ", &p) : NULL;
	target = method != NULL ? strtok_r(NULL, " ", &p) : NULL;
	version = target != NULL ? strtok_r(NULL, " ", &p) : NULL;
	if (version == NULL || strtok_r(NULL, " ", &p) != NULL ||
	    strncmp(version, "HTTP/1.", 7) != 0 || (version[7] != '0' &&
	    version[7] != '1') || version[8] != '\0' || nlines == nitems(lines)) {
		free(head);
		metrics_http_error(c, 400, "Bad Request", NULL);
		return;
	}
	http11 = version[7] == '1';
	if (metrics_http_header(lines, nlines, "Connection", val, sizeof val) == 0)
		keep = http11 ? !metrics_http_has_token(val, "close") : metrics_http_has_token(val, "keep-alive");
	else
		keep = http11;
	memset(&req, 0, sizeof req);
	req.head = strcmp(method, "HEAD") == 0;
	req.path = target;
	if (metrics_http_header(lines, nlines, "Accept", accept, sizeof accept) == 0)
		req.accept = accept;
	if (!req.head && strcmp(method, "GET") != 0) {
		free(head);
		metrics_http_error(c, 405, "Method Not Allowed", "Allow: GET, HEAD\r\n");
		return;
	}
	if ((metrics_http_header(lines, nlines, "Content-Length", val, sizeof val) == 0 &&
	    strcmp(val, "0") != 0) ||
	    metrics_http_header(lines, nlines, "Transfer-Encoding", val, sizeof val) == 0) {
		free(head);
		metrics_http_error(c, 413, "Payload Too Large", NULL);	/* no request has a body */
		return;
	}
	if (metrics_http_out_pending(srv) >= HTTP_OUT_BUDGET) {
		free(head);
		srv->st.refused_busy++;
		metrics_http_warn(srv, HTTP_REFUSED_BUSY, "replies not taken by their clients hold the output budget");
		metrics_http_error(c, 503, "Service Unavailable", "Retry-After: 1\r\n");
		return;
	}
	memset(&rep, 0, sizeof rep);
	if ((rep.body = evbuffer_new()) == NULL)
		fatalx("evbuffer_new");
	srv->handler(srv->arg, &req, &rep);
	free(head);
	bodylen = evbuffer_get_length(rep.body);
	c->close_after = !keep || rep.status >= 400;
	metrics_http_head(c->out, rep.status, rep.reason, rep.type, rep.extra, bodylen,
	    c->close_after);
	if (!req.head)
		evbuffer_add_buffer(c->out, rep.body);
	evbuffer_free(rep.body);
	srv->st.requests++;
	metrics_http_conn_writing(c);
}

/*
 * Read what the client sent, up to one request head; a half-closed client
 * whose request is whole still gets its reply in full.
 */
static void
metrics_http_conn_read_cb(int fd, short what __unused, void *arg)
{
	struct http_conn	*c = arg;
	struct evbuffer_ptr	 end;
	size_t			 have = evbuffer_get_length(c->in);
	int			 n = 1, eof = 0;

	if (c->state == HTTP_LINGER) {
		char	 junk[4096];

		while ((n = (int)read(fd, junk, sizeof junk)) > 0)
			;
		if (n == 0 || (errno != EAGAIN && errno != EINTR))
			metrics_http_conn_free(c);
		return;
	}
	if (have <= HTTP_HEAD_MAX) {
		n = evbuffer_read(c->in, fd, (int)(HTTP_HEAD_MAX + 1 - have));
		if (n == 0)
			eof = 1;
		else if (n < 0 && errno != EAGAIN && errno != EINTR) {
			metrics_http_conn_free(c);
			return;
		}
	}
	end = evbuffer_search(c->in, "\r\n\r\n", 4, NULL);
	if (end.pos != -1) {
		metrics_http_conn_request(c, (size_t)end.pos + 4);
		return;
	}
	end = evbuffer_search(c->in, "\n\n", 2, NULL);
	if (end.pos != -1) {
		metrics_http_conn_request(c, (size_t)end.pos + 2);
		return;
	}
	if (evbuffer_get_length(c->in) > HTTP_HEAD_MAX) {
		metrics_http_error(c, 431, "Request Header Fields Too Large", NULL);
		return;
	}
	if (eof)
		metrics_http_conn_free(c);	/* gone before a whole request: nothing to answer */
}

/* A deadline passed: the request did not come, or the reply was not taken. */
static void
metrics_http_conn_deadline_cb(int fd __unused, short what __unused, void *arg)
{
	struct http_conn	*c = arg;

	c->srv->st.timed_out++;
	metrics_http_conn_free(c);
}

/* Refuse a connection over the cap at once: a 503 if the socket takes it, then close. */
static void
metrics_http_refuse(int fd)
{
	static const char	 msg[] = "HTTP/1.1 503 Service Unavailable\r\n"
	    "Content-Length: 0\r\nRetry-After: 1\r\nConnection: close\r\n\r\n";
	ssize_t			 n;

	n = send(fd, msg, sizeof msg - 1, MSG_DONTWAIT | MSG_NOSIGNAL);
	(void)n;
	close(fd);
}

/* Out of file descriptors: stop accepting for a while (a free fd resumes it). */
static void
metrics_http_resume_cb(int fd __unused, short what __unused, void *arg)
{
	struct http_server	*srv = arg;

	srv->paused = 0;
	event_add(srv->accept_ev, NULL);
}

/* New connections: each gets its deadline; over the cap, a 503 and the close. */
static void
metrics_http_accept_cb(int lfd, short what __unused, void *arg)
{
	struct http_server	*srv = arg;
	struct http_conn	*c;
	struct timeval		 tv = { 0, HTTP_ACCEPT_PAUSE_MS * 1000 };
	unsigned		 i;
	int			 fd;

	for (i = 0; i < 64; i++) {
		fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd == -1) {
			if (errno == EAGAIN || errno == EINTR || errno == ECONNABORTED)
				return;
			if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
			    errno == ENOMEM) {
				srv->st.refused_fds++;
				srv->paused = 1;
				event_del(srv->accept_ev);
				evtimer_add(srv->resume_ev, &tv);
				metrics_http_warn(srv, HTTP_REFUSED_FDS, "out of file descriptors, accepting "
				    "paused until one is free");
				return;
			}
			metrics_http_warn(srv, HTTP_REFUSED_FDS, strerror(errno));
			return;
		}
		if (srv->nconns >= srv->max_conns) {
			/*
			 * At the cap, the longest-waiting connection that has
			 * sent no whole request makes room: a scraper asks at
			 * once, so clients that only hold connections open
			 * cannot keep it out. With every connection answering,
			 * the newcomer gets a 503.
			 */
			TAILQ_FOREACH(c, &srv->conns, entry) {
				if (c->state == HTTP_READING)
					break;
			}
			srv->st.refused_full++;
			metrics_http_warn(srv, HTTP_REFUSED_FULL, "connections at their cap");
			if (c == NULL) {
				metrics_http_refuse(fd);
				continue;
			}
			metrics_http_conn_free(c);
		}
		c = xcalloc(1, sizeof *c);
		c->srv = srv;
		c->fd = fd;
		c->in = evbuffer_new();
		c->out = evbuffer_new();
		c->rd = event_new(srv->base, fd, EV_READ | EV_PERSIST, metrics_http_conn_read_cb, c);
		c->wr = event_new(srv->base, fd, EV_WRITE | EV_PERSIST, metrics_http_conn_write_cb, c);
		c->deadline = evtimer_new(srv->base, metrics_http_conn_deadline_cb, c);
		if (c->in == NULL || c->out == NULL || c->rd == NULL || c->wr == NULL ||
		    c->deadline == NULL)
			fatalx("cannot set up a connection");
		TAILQ_INSERT_TAIL(&srv->conns, c, entry);
		srv->nconns++;
		srv->st.accepted++;
		metrics_http_conn_reading(c);
	}
}

/*
 * Serve on the listening socket fd (metrics_http_bind's) in b's event loop, answering
 * through handler; lines about refused connections go to b's notice hook.
 */
struct http_server *
metrics_http_start(struct blktop *b, int fd, unsigned max_conns, http_handler handler, void *arg)
{
	struct event_base	*base = b->base;
	struct http_server	*srv;

	srv = xcalloc(1, sizeof *srv);
	srv->b = b;
	srv->base = base;
	srv->fd = fd;
	srv->handler = handler;
	srv->arg = arg;
	srv->max_conns = max_conns != 0 && max_conns < HTTP_MAX_CONNS ? max_conns :
	    HTTP_MAX_CONNS;
	TAILQ_INIT(&srv->conns);
	srv->accept_ev = event_new(srv->base, fd, EV_READ | EV_PERSIST, metrics_http_accept_cb, srv);
	srv->resume_ev = evtimer_new(srv->base, metrics_http_resume_cb, srv);
	srv->trim_ev = evtimer_new(srv->base, metrics_http_trim_cb, srv);
	if (srv->accept_ev == NULL || srv->resume_ev == NULL || srv->trim_ev == NULL)
		fatalx("cannot set up the HTTP server");
	event_add(srv->accept_ev, NULL);
	return (srv);
}

/* The server's counters so far. */
const struct metrics_http_stats *
metrics_http_stats(const struct http_server *srv)
{
	return (&srv->st);
}

/* Connections open now. */
unsigned
metrics_http_nconns(const struct http_server *srv)
{
	return (srv->nconns);
}

/* Every connection closed, the socket too. */
void
metrics_http_free(struct http_server *srv)
{
	while (!TAILQ_EMPTY(&srv->conns))
		metrics_http_conn_free(TAILQ_FIRST(&srv->conns));
	event_free(srv->accept_ev);
	event_free(srv->resume_ev);
	event_free(srv->trim_ev);
	close(srv->fd);
	free(srv);
}
