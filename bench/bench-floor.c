/*
 * bench-floor.c: attach some of floor.bpf.o's do-nothing programs and stay
 * attached until SIGINT or SIGTERM. Stands in for blktop in the run-*.sh
 * benchmarks (BLKTOP=bench/bench-floor), so the kernel's own cost of a hook
 * is measured the same way as blktop's.
 *
 * usage: bench-floor OBJ block|min|vfs-tp|vfs-btf|vfs-parts|vfs-clock|vfs-file|async-min|async-agg|async-blk|async-blk-c|kio|aio-blk|hooks-empty|async-blk-nc [ignored options...]
 * (min: a plain hash-based per-request tracer, its records drained every 10 ms;
 * vfs-parts: a clock read at a read()'s entry and exit, one 113-byte record;
 * vfs-clock: the clock reads only; vfs-file: vfs-parts plus the fd's struct file
 * and its inode pointer in the record; async-min: min plus one record and one latency
 * per io_uring call, by a hash of its request; async-agg: min plus the hash and
 * a per-CPU count, bytes and latency bucket per call, no record; async-blk:
 * one record per io_uring request, the call's file, offset and start handed
 * from io_uring_submit_req to block_io_start in a per-CPU slot, no completion
 * program; async-blk-c: async-blk and an io_uring_complete program that exits
 * early for calls a block request carried; kio: block_io_start reads the
 * kiocb through the request's bio, no async program; aio-blk: kio and a clock
 * read at io_submit's entry, no user memory read; hooks-empty: min and empty
 * programs on io_uring_submit_req, io_uring_complete and io_submit's entry;
 * async-blk-nc: async-blk without the submission's clock read. See floor.bpf.c.)
 * Prints one JSON line ({"lost": 0}) once attached, as blktop -J would.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

static volatile sig_atomic_t stop;
static unsigned long long nrecords;

/* Ring-buffer callback of the min set: count and drop. */
static int
on_record(void *ctx, void *data, size_t size)
{
	(void)ctx;
	(void)data;
	(void)size;
	nrecords++;
	return 0;
}

static void
on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* Whether program name belongs to set. */
static int
in_set(const char *name, const char *set)
{
	static const char *const block[] = { "floor_io_start", "floor_rq_issue",
	    "floor_rq_complete", NULL };
	static const char *const min[] = { "min_io_start", "min_rq_issue",
	    "min_rq_complete", NULL };
	static const char *const vfs_tp[] = { "floor_tp_enter_read", "floor_tp_exit_read", NULL };
	static const char *const vfs_btf[] = { "floor_sys_enter", "floor_sys_exit", NULL };
	static const char *const vfs_parts[] = { "parts_tp_enter_read", "parts_tp_exit_read", NULL };
	static const char *const vfs_clock[] = { "parts_tp_enter_read", "clock_tp_exit_read", NULL };
	static const char *const async_min[] = { "min_io_start", "min_rq_issue",
	    "min_rq_complete", "min_uring_submit", "min_uring_complete", NULL };
	static const char *const vfs_file[] = { "file_tp_enter_read", "file_tp_exit_read", NULL };
	static const char *const async_agg[] = { "min_io_start", "min_rq_issue",
	    "min_rq_complete", "min_uring_submit", "agg_uring_complete", NULL };
	static const char *const async_blk[] = { "blk_io_start", "blk_rq_issue",
	    "blk_rq_complete", "blk_uring_submit", NULL };
	static const char *const async_blk_c[] = { "blk_io_start", "blk_rq_issue",
	    "blk_rq_complete", "blk_uring_submit", "blk_uring_complete", NULL };
	static const char *const kio[] = { "kio_io_start", "blk_rq_issue",
	    "blk_rq_complete", NULL };
	static const char *const aio_blk[] = { "aio_io_start", "blk_rq_issue",
	    "blk_rq_complete", "blk_aio_submit", NULL };
	static const char *const hooks_empty[] = { "min_io_start", "min_rq_issue",
	    "min_rq_complete", "floor_uring_submit", "floor_uring_complete", "floor_aio_submit", NULL };
	static const char *const async_blk_nc[] = { "blk_io_start", "blk_rq_issue",
	    "blk_rq_complete", "blk_uring_submit_nc", NULL };
	const char *const *names;

	if (strcmp(set, "block") == 0)
		names = block;
	else if (strcmp(set, "min") == 0)
		names = min;
	else if (strcmp(set, "vfs-tp") == 0)
		names = vfs_tp;
	else if (strcmp(set, "vfs-btf") == 0)
		names = vfs_btf;
	else if (strcmp(set, "vfs-parts") == 0)
		names = vfs_parts;
	else if (strcmp(set, "vfs-clock") == 0)
		names = vfs_clock;
	else if (strcmp(set, "async-min") == 0)
		names = async_min;
	else if (strcmp(set, "vfs-file") == 0)
		names = vfs_file;
	else if (strcmp(set, "async-agg") == 0)
		names = async_agg;
	else if (strcmp(set, "async-blk") == 0)
		names = async_blk;
	else if (strcmp(set, "async-blk-c") == 0)
		names = async_blk_c;
	else if (strcmp(set, "kio") == 0)
		names = kio;
	else if (strcmp(set, "aio-blk") == 0)
		names = aio_blk;
	else if (strcmp(set, "hooks-empty") == 0)
		names = hooks_empty;
	else if (strcmp(set, "async-blk-nc") == 0)
		names = async_blk_nc;
	else
		return -1;
	for (; *names; names++)
		if (strcmp(*names, name) == 0)
			return 1;
	return 0;
}

/* The one-record-per-request sets' counters (floor.bpf.c's .bss), on stderr. */
static void
print_counts(struct bpf_object *obj)
{
	static const char *const names[] = { "blk_hit", "blk_miss", "blk_miss_pid", "blk_cont", "blk_spilled",
	    "blk_cdone", "kio_uring", "kio_aio", "kio_none" };
	struct bpf_map *m = bpf_object__find_map_by_name(obj, ".bss");
	const struct btf *btf = bpf_object__btf(obj);
	const struct btf_var_secinfo *v;
	const struct btf_type *t;
	unsigned char buf[4096];
	__u32 zero = 0;
	int id, i, j;

	if (!m || !btf || bpf_map__value_size(m) > sizeof buf ||
	    bpf_map__lookup_elem(m, &zero, sizeof zero, buf, bpf_map__value_size(m), 0) != 0)
		return;
	if ((id = btf__find_by_name_kind(btf, ".bss", BTF_KIND_DATASEC)) < 0)
		return;
	t = btf__type_by_id(btf, id);
	v = btf_var_secinfos(t);
	for (i = 0; i < btf_vlen(t); i++, v++) {
		const char *nm = btf__name_by_offset(btf, btf__type_by_id(btf, v->type)->name_off);

		for (j = 0; j < (int)(sizeof names / sizeof *names); j++)
			if (strcmp(nm, names[j]) == 0 && v->size == 8)
				fprintf(stderr, "bench-floor: %s %llu\n", nm,
				    *(unsigned long long *)(buf + v->offset));
	}
}

int
main(int argc, char **argv)
{
	struct bpf_object *obj;
	struct bpf_program *prog;
	struct bpf_link *links[8];
	struct ring_buffer *rb = NULL;
	int n = 0, err;

	if (argc < 3 || in_set("", argv[2]) < 0) {
		fprintf(stderr, "usage: bench-floor OBJ block|min|vfs-tp|vfs-btf|vfs-parts|vfs-clock|vfs-file|async-min|async-agg|async-blk|async-blk-c|kio|aio-blk|hooks-empty|async-blk-nc\n");
		return 2;
	}
	libbpf_set_print(NULL);
	obj = bpf_object__open_file(argv[1], NULL);
	if (!obj) {
		fprintf(stderr, "bench-floor: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	bpf_object__for_each_program(prog, obj)
		bpf_program__set_autoload(prog, in_set(bpf_program__name(prog), argv[2]) == 1);
	if ((err = bpf_object__load(obj)) != 0) {
		fprintf(stderr, "bench-floor: load: %s\n", strerror(-err));
		return 1;
	}
	bpf_object__for_each_program(prog, obj) {
		if (!bpf_program__autoload(prog) || n == (int)(sizeof links / sizeof *links))
			continue;
		if (!(links[n] = bpf_program__attach(prog))) {
			fprintf(stderr, "bench-floor: attach %s: %s\n", bpf_program__name(prog),
			    strerror(errno));
			return 1;
		}
		n++;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	printf("{\"lost\": 0, \"attached\": %d}\n", n);
	fflush(stdout);
	if ((strcmp(argv[2], "min") == 0 || strcmp(argv[2], "vfs-parts") == 0 ||
	    strcmp(argv[2], "vfs-file") == 0 ||
	    strcmp(argv[2], "async-min") == 0 || strcmp(argv[2], "async-agg") == 0 ||
	    strcmp(argv[2], "async-blk") == 0 || strcmp(argv[2], "async-blk-c") == 0 ||
	    strcmp(argv[2], "kio") == 0 || strcmp(argv[2], "aio-blk") == 0 ||
	    strcmp(argv[2], "hooks-empty") == 0 || strcmp(argv[2], "async-blk-nc") == 0) &&
	    !(rb = ring_buffer__new(
	    bpf_map__fd(bpf_object__find_map_by_name(obj, "min_rb")), on_record, NULL, NULL))) {
		fprintf(stderr, "bench-floor: ring buffer: %s\n", strerror(errno));
		return 1;
	}
	while (!stop) {
		if (!rb) {
			pause();
			continue;
		}
		ring_buffer__consume(rb);
		usleep(10000);
	}
	if (rb) {
		ring_buffer__consume(rb);
		fprintf(stderr, "bench-floor: %llu records\n", nrecords);
		ring_buffer__free(rb);
	}
	print_counts(obj);
	while (n > 0)
		bpf_link__destroy(links[--n]);
	bpf_object__close(obj);
	return 0;
}
