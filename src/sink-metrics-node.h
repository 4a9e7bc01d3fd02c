/* sink-metrics-node.h: node_exporter's disk families on blktop's metrics endpoint (--metrics-node-names). */

#ifndef SINK_METRICS_NODE_H
#define SINK_METRICS_NODE_H

struct evbuffer;
struct blktop;
struct metrics_node;

/* sink-metrics.c */
void			 metrics_label(struct evbuffer *, const char *);
void			 metrics_family(struct evbuffer *, int, const char *,
			     const char *, const char *);

/* sink-metrics-node.c */
struct metrics_node	*metrics_node_new(const struct blktop *);
void			 metrics_node_write(struct metrics_node *, struct evbuffer *, int);
void			 metrics_node_free(struct metrics_node *);

#endif
