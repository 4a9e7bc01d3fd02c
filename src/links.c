/* links.c: detach the programs of a BPF skeleton all at once. */

#include <bpf/libbpf.h>
#include <pthread.h>

#include "blktop.h"

#define LINKS_THREADS_MAX	64

/* Thread body: destroy one link and clear the skeleton's pointer to it. */
static void *
links_destroy_one(void *arg)
{
	struct bpf_link	**link = arg;

	bpf_link__destroy(*link);
	*link = NULL;
	return (NULL);
}

/*
 * Destroy the links of a skeleton's programs, the skeleton's destroy then
 * finding none. Closing a tracepoint link waits for an RCU grace period
 * (60-70 ms each here): one after the other the 28 of the per-process side
 * made quitting take 2 s. A thread each lets the waits overlap; a link whose
 * thread does not start is destroyed in turn here, and links past the first
 * LINKS_THREADS_MAX are left to the skeleton.
 */
void
links_destroy(struct bpf_object_skeleton *s)
{
	pthread_t			 t[LINKS_THREADS_MAX];
	int				 started[LINKS_THREADS_MAX];
	const struct bpf_prog_skeleton	*p;
	int				 i, n;

	if (s == NULL || s->progs == NULL)
		return;
	n = s->prog_cnt < LINKS_THREADS_MAX ? s->prog_cnt : LINKS_THREADS_MAX;
	for (i = 0; i < n; i++) {
		started[i] = 0;
		p = (const struct bpf_prog_skeleton *)(const void *)
		    ((const char *)s->progs + (size_t)i * (size_t)s->prog_skel_sz);
		if (p->link == NULL || *p->link == NULL)
			continue;
		if (pthread_create(&t[i], NULL, links_destroy_one, p->link) == 0)
			started[i] = 1;
		else
			links_destroy_one(p->link);
	}
	for (i = 0; i < n; i++) {
		if (started[i])
			pthread_join(t[i], NULL);
	}
}
