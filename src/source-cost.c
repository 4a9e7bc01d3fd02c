/* source-cost.c: what the kernel side of a live source costs and counts: BPF run time and runs of its programs, per-CPU counters. */

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blktop.h"

/*
 * Add the run time, runs and skipped runs of an object's loaded programs to
 * *st. The run time and runs stay 0 unless statistics are on (cost_enable).
 */
void
cost_add_object(struct bpf_object *obj, struct prog_cost *st)
{
	struct bpf_program	*p;
	struct bpf_prog_info	 info;
	uint32_t		 len;

	if (obj == NULL)
		return;
	bpf_object__for_each_program(p, obj) {
		if (bpf_program__fd(p) < 0)
			continue;
		memset(&info, 0, sizeof info);
		len = sizeof info;
		if (bpf_obj_get_info_by_fd(bpf_program__fd(p), &info, &len) != 0)
			continue;
		st->run_ns += info.run_time_ns;
		st->runs += info.run_cnt;
		st->misses += info.recursion_misses;
	}
}

/* The sum over CPUs of one entry of a per-CPU array map of u64; 0 if unreadable. */
uint64_t
cost_percpu_sum(int map_fd, uint32_t key)
{
	static int	 ncpus;
	uint64_t	*vals, total = 0;
	int		 i;

	if (ncpus <= 0 && (ncpus = libbpf_num_possible_cpus()) <= 0)
		return (0);
	vals = xcalloc((size_t)ncpus, sizeof *vals);
	if (bpf_map_lookup_elem(map_fd, &key, vals) == 0) {
		for (i = 0; i < ncpus; i++)
			total += vals[i];
	}
	free(vals);
	return (total);
}

/*
 * Turn the kernel's run-time statistics on for as long as the returned fd
 * is open (BPF_ENABLE_STATS: closed at exit, they go off again unless
 * someone else holds them on); -1 if the kernel refuses.
 */
int
cost_enable(void)
{
	return (bpf_enable_stats(BPF_STATS_RUN_TIME));
}
