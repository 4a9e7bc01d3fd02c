/*
 * metrics.h: the --listen endpoint's HTTP/1.1 server (sink-metrics-http.c),
 * bounded against hostile clients, for sink-metrics.c, which serves the
 * counters through it, and main.c, which binds its socket before privileges
 * are dropped.
 */
#ifndef BLKTOP_METRICS_H
#define BLKTOP_METRICS_H

#include <stdint.h>

struct blktop;

/* sink-metrics-http.c: the endpoint's HTTP/1.1 server, bounded against hostile clients. */
struct evbuffer;
struct http_request {
	int		 head;		/* HEAD: the reply's headers only */
	const char	*path;		/* the request target as sent */
	const char	*accept;	/* the Accept header, NULL if none */
};
struct http_reply {
	int		 status;
	const char	*reason;
	const char	*type;		/* Content-Type, NULL for none */
	const char	*extra;		/* more header lines, each ending in \r\n, or NULL */
	struct evbuffer	*body;		/* filled by the handler, even for HEAD */
};
struct metrics_http_stats {
	uint64_t	 accepted;
	uint64_t	 requests;	/* answered, errors included */
	uint64_t	 timed_out;	/* closed at a deadline */
	uint64_t	 refused_full;	/* at the connection cap: an idle one closed, or a 503 */
	uint64_t	 refused_fds;	/* accept() out of file descriptors */
	uint64_t	 refused_busy;	/* over the output budget */
};
struct http_server;
struct event_base;
typedef void	(*http_handler)(void *, const struct http_request *, struct http_reply *);
int		 metrics_http_bind(const char *addr, uint16_t port, char **errp);
struct http_server *metrics_http_start(struct blktop *, int fd, unsigned max_conns,
		     http_handler, void *);
const struct metrics_http_stats *metrics_http_stats(const struct http_server *);
unsigned	 metrics_http_nconns(const struct http_server *);
void		 metrics_http_free(struct http_server *);

#endif /* BLKTOP_METRICS_H */
