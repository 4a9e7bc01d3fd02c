/* source-cost.c: what the kernel side of a live source costs: BPF run time and runs of its programs. */

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
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
