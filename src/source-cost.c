/* source-cost.c: what the kernel side of a live source costs and counts: BPF run time and runs of its programs, per-CPU counters, per-CPU record batches. */

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "blktop.h"
#include "source-live.h"

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

static uint64_t	 cost_read_fails;	/* cost_percpu_sum's reads the kernel refused */
static int	 cost_read_errno;	/* the last one's errno */

/*
 * 0 if every counter read so far worked; else the errno of the last that
 * did not (EPERM: bpf() refused without CAP_BPF, privs_bpf_probe), and
 * *nfailp how many failed.
 */
int
cost_read_error(uint64_t *nfailp)
{
	if (nfailp != NULL)
		*nfailp = cost_read_fails;
	return (cost_read_fails != 0 ? cost_read_errno : 0);
}

/*
 * The sum over CPUs of one entry of a per-CPU array map of u64; 0 if
 * unreadable, counted and kept for cost_read_error: never silent.
 */
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
	} else {
		cost_read_errno = errno;
		cost_read_fails++;
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

/*
 * An object's per-CPU record batches (bpf/batch.h) need a way to send a
 * CPU's batch that no further record sends: the object's flush program, run
 * on that CPU (BPF_F_TEST_RUN_ON_CPU, 5.10+). Returns 1 if it runs there, so
 * the caller may turn the object's batches on; 0 (batches stay off) if not,
 * with BLKTOP_BATCH=0 (every record by itself, to compare), or with more
 * possible CPUs than BATCH_CTL_CPUS.
 */
int
cost_batch_start(struct cost_batch *bc, int prog_fd, int ts_fd, uint64_t age_ns)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts, .flags = BPF_F_TEST_RUN_ON_CPU, .cpu = 0);
	const char	*env = getenv("BLKTOP_BATCH");
	int		 n = libbpf_num_possible_cpus();

	memset(bc, 0, sizeof *bc);
	if ((env != NULL && strcmp(env, "0") == 0) || age_ns == 0 || n <= 0 ||
	    n > BATCH_CTL_CPUS || prog_fd < 0 || ts_fd < 0 ||
	    bpf_prog_test_run_opts(prog_fd, &opts) != 0)
		return (0);
	bc->prog_fd = prog_fd;
	bc->ts_fd = ts_fd;
	bc->age_ns = age_ns;
	bc->ncpus = n;
	return (1);
}

/*
 * Send the batches whose first record waited age_ns or more (every one
 * with force, before a report): one map read, then the flush program on
 * each such CPU. Once per drain, not per record.
 */
void
cost_batch_flush(struct cost_batch *bc, int force)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts, .flags = BPF_F_TEST_RUN_ON_CPU);
	uint64_t	 ts[BATCH_CTL_CPUS], now;
	struct timespec	 t;
	uint32_t	 zero = 0;
	int		 cpu;

	if (bc->ncpus == 0 || bpf_map_lookup_elem(bc->ts_fd, &zero, ts) != 0)
		return;
	clock_gettime(CLOCK_MONOTONIC, &t);	/* bpf_ktime_get_ns()'s clock */
	now = (uint64_t)t.tv_sec * 1000000000ULL + (uint64_t)t.tv_nsec;
	for (cpu = 0; cpu < bc->ncpus; cpu++) {
		if (ts[cpu] == 0 || (!force && now > ts[cpu] && now - ts[cpu] < bc->age_ns))
			continue;
		opts.cpu = (uint32_t)cpu;
		(void)bpf_prog_test_run_opts(bc->prog_fd, &opts);	/* an offline CPU has none */
	}
}
