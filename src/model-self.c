/* model-self.c: what blktop itself costs over a report: its CPU time, its BPF programs' run time, its event rate. */

#include <sys/resource.h>
#include <string.h>

#include "blktop.h"

static struct {
	int		 have;
	uint64_t	 wall_ns;
	uint64_t	 cpu_ns;
	uint64_t	 events;
	struct prog_cost bpf;
	int		 have_bpf;
} self_prev;

/* User and system CPU time of the whole process (every thread), in ns. */
static uint64_t
self_cpu_ns(void)
{
	struct rusage	 ru;

	if (getrusage(RUSAGE_SELF, &ru) != 0)
		return (0);
	return ((uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * NSEC_PER_SEC +
	    (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * NSEC_PER_USEC);
}

/* Forget the last sample: the next report measures from now. */
void
self_reset(struct blktop *b)
{
	memset(&self_prev, 0, sizeof self_prev);
	memset(&b->self, 0, sizeof b->self);
	self_sample(b);
}

/*
 * Measure since the last sample into b->self: called once a report, before
 * the sinks read it. The BPF figures are there only while the source knows
 * them (a live source with the kernel's statistics on).
 */
void
self_sample(struct blktop *b)
{
	struct self_cost	*sc = &b->self;
	struct prog_cost	 bpf;
	uint64_t		 wall, cpu, ev;
	int			 have_bpf;
	double			 secs;

	wall = source_now();
	cpu = self_cpu_ns();
	ev = b->events;
	memset(&bpf, 0, sizeof bpf);
	have_bpf = b->src != NULL && b->src->entry->cost != NULL &&
	    b->src->entry->cost(b->src, &bpf) == 0;
	if (self_prev.have && wall > self_prev.wall_ns) {
		secs = (double)(wall - self_prev.wall_ns) / 1e9;
		memset(sc, 0, sizeof *sc);
		sc->valid = 1;
		sc->secs = secs;
		sc->cpu_pct = cpu > self_prev.cpu_ns ?
		    (double)(cpu - self_prev.cpu_ns) / 1e9 / secs * 100.0 : 0;
		sc->events = ev - self_prev.events;
		sc->events_per_s = (double)sc->events / secs;
		sc->have_bpf = have_bpf && self_prev.have_bpf &&
		    bpf.run_ns >= self_prev.bpf.run_ns && bpf.runs >= self_prev.bpf.runs;
		if (sc->have_bpf) {
			sc->bpf_ns = bpf.run_ns - self_prev.bpf.run_ns;
			sc->bpf_runs = bpf.runs - self_prev.bpf.runs;
			sc->bpf_pct = (double)sc->bpf_ns / 1e9 / secs * 100.0;
			sc->paths_reused = bpf.paths_reused - self_prev.bpf.paths_reused;
			sc->paths_missed = bpf.paths_missed - self_prev.bpf.paths_missed;
			sc->batched = bpf.batched - self_prev.bpf.batched;
		}
	}
	self_prev.have = 1;
	self_prev.wall_ns = wall;
	self_prev.cpu_ns = cpu;
	self_prev.events = ev;
	self_prev.bpf = bpf;
	self_prev.have_bpf = have_bpf;
}
