/*
 * proc.h: the model of processes and files: the bounded process and file
 * tables fed by the stream (model-proc.c, model-file.c), their access
 * patterns (model-pattern.c, model-reqpat.c) and the top-N queries the
 * views ask (model-top.c). The tables' layout stays private to model-*.c
 * (model.h). For the model, the sinks and the UI.
 */
#ifndef BLKTOP_PROC_H
#define BLKTOP_PROC_H

#include <stddef.h>
#include <stdint.h>

#include "base.h"
#include "event.h"
#include "pattern.h"
#include "wear.h"

struct blktop;

/*
 * model-*.c: the model, bounded per-process and per-file tables fed by the stream (see
 * proc_mem_bound for the memory).
 */
/* model-proc.c */
#define PROC_DEF_PROCS		4096	/* default cap on tracked processes (threads) */
#define PROC_DEF_FILES		16384	/* default cap on tracked files */
#define PROC_MAX_ENTRIES	(1u << 24)
#define PROC_FILE_PIDS		8	/* distinct tgids remembered per file */
#define PROC_CHUNK_SIZE		64	/* paths are stored in chunks of this size... */
#define PROC_CHUNKS_PER_FILE	2	/* ...this many per file in the pool: longer paths evict */
#define PROC_INO_WAYS		4	/* files by inode: ways per set, 2 slots per file */
enum proc_key {
	PROC_KEY_READ_BYTES,		/* block bytes read */
	PROC_KEY_WRITE_BYTES,
	PROC_KEY_READ_IOS,		/* block read requests */
	PROC_KEY_WRITE_IOS,
	PROC_KEY_VFS_READ_BYTES,	/* bytes done by read-family calls */
	PROC_KEY_VFS_WRITE_BYTES,
	PROC_KEY_VFS_READS,		/* read-family calls */
	PROC_KEY_VFS_WRITES,
	PROC_KEY_OPENS,			/* opens, failed ones included */
	PROC_KEY_LAT,			/* time in I/O: call latencies + device time, ns */
	PROC_KEY_DISK_READ_BYTES,	/* bytes read from a device on its behalf */
	PROC_KEY_DISK_WRITE_BYTES,	/* bytes written on its behalf, writeback included */
	PROC_KEY_NEVER_READ,		/* bytes written and never read (wear.h) */
	PROC_KEY_MAX
};
/* Counters of a process or file over one interval or since first seen; [0] read, [1] write. */
struct proc_counts {
	uint64_t	 blk_ios[2];	/* block requests completed (processes only) */
	uint64_t	 blk_bytes[2];
	uint64_t	 blk_lat_sum;	/* device time, issue to done, ns */
	uint64_t	 blk_wait_sum;	/* start to done, ns: the depth it kept, integrated (req_depth) */
	uint64_t	 blk_depth_max;	/* the most of its requests in flight at once (a maximum; model-pdepth.c) */
	uint64_t	 vfs_calls[2];	/* read/write family calls */
	uint64_t	 vfs_bytes[2];	/* bytes done */
	uint64_t	 vfs_asked[2];	/* bytes asked */
	uint64_t	 vfs_errors;
	uint64_t	 vfs_lat_sum;	/* ns */
	uint64_t	 vfs_lat_max;
	uint64_t	 opens;
	uint64_t	 open_fails;
	/*
	 * Bytes that reached the device on its behalf, whatever the path: page
	 * cache fills (read misses, readahead, mmap faults), writeback of the
	 * pages it dirtied (charged to the dirtier, not the flusher), direct I/O.
	 */
	uint64_t	 disk_bytes[2];
	uint64_t	 disk_ios[2];	/* files: block requests that carried its pages */
	uint64_t	 fill_bytes;	/* disk reads into the page cache (of disk_bytes[0]) */
	uint64_t	 direct_read_bytes;	/* of vfs_bytes[0]: what O_DIRECT reads returned, from the device */
	uint64_t	 wb_bytes;	/* processes: writeback others did for it (of disk_bytes[1]) */
	uint64_t	 dirtied_bytes;	/* page-cache bytes it dirtied */
	uint64_t	 mmap_faults;	/* faults served by a file mapping */
	uint64_t	 throttles;	/* processes: pauses the kernel made it take for dirtying pages */
	uint64_t	 throttle_ms;	/* ... and their length, ms */
	uint64_t	 uring_calls[2];	/* of vfs_calls: io_uring reads, writes */
	uint64_t	 aio_calls[2];	/* of vfs_calls: libaio reads, writes */
	/* Lifecycle (EV_FOP; creates also from opens that made their file). */
	uint64_t	 fops[FOP_MAX];	/* calls by enum blktop_fop, failed ones included */
	uint64_t	 creates;	/* opens that created the file, mknods */
	uint64_t	 fop_errors;	/* lifecycle calls that failed */
	uint64_t	 fop_lat_sum;	/* ns, lifecycle calls */
	struct wear_counts wear;	/* what became of the bytes written (wear.h) */
};
/* An interval's latencies of a process or file: 32-bit buckets, how many, the exact extremes. */
struct proc_hist {
	uint64_t		 n;
	uint64_t		 min;		/* 0 when n is 0 */
	uint64_t		 max;
	uint32_t		 b[HIST_NBUCKETS];
};
/* A process (tgid, threads folded in) or, in the per-thread view, a thread. */
struct proc_entry {
	uint32_t		 id;		/* tgid, or tid when by_thread; its host's above PROC_ID_HOST_SHIFT */
	uint32_t		 tgid;
	char			 comm[BLKTOP_COMM_LEN];	/* main thread's when folded */
	uint64_t		 cgroup;
	uint64_t		 first_ts;	/* stream time first and last seen */
	uint64_t		 last_ts;
	uint64_t		 epoch;		/* interval iv and the histograms belong to */
	struct proc_counts	 iv;		/* use proc_entry_counts() */
	struct proc_counts	 tot;
	struct proc_hist	 blk_lat;	/* interval: device latency */
	struct proc_hist	 vfs_lat;	/* interval: read/write call latency */
	struct pattern		 pat;		/* its calls' access pattern, since first seen */
	uint32_t		 dslot;		/* its model-pdepth.c slot + 1, 0: none */
	int			 host;		/* its host (host.h) in a run of several, else HOST_NONE */
};
/*
 * In a run of several hosts (captures merged), a process is its host's: its
 * id carries host + 1 above the pid (Linux's pids stay below 2^22), so that
 * pid 1234 of one host is never folded into pid 1234 of another.
 */
#define PROC_ID_HOST_SHIFT	23
#define PROC_ID_PID(id)		((id) & ((1u << PROC_ID_HOST_SHIFT) - 1))
/* Pid of host (HOST_NONE: a run of one) as the model's ids: the host's bits above it. */
#define PROC_ID_OF(pid, host)	((host) >= 0 ? PROC_ID_PID(pid) | \
				    (uint32_t)((host) + 1) << PROC_ID_HOST_SHIFT : (pid))
/*
 * A file, by path (pseudo ones as pipe:[ino], socket:[ino],
 * anon_inode:[eventfd], memfd:NAME); in a run of several hosts, by host and path.
 */
struct file_entry {
	uint64_t		 hash;		/* private to model-file.c */
	uint64_t		 ino;
	uint64_t		 first_ts;
	uint64_t		 last_ts;
	uint64_t		 epoch;
	struct proc_counts	 iv;		/* use proc_file_counts() */
	struct proc_counts	 tot;
	struct proc_hist	 lat;		/* interval: read/write call latency */
	struct proc_hist	 blk_lat;	/* interval: device latency of its requests */
	struct pattern		 pat;		/* its calls' access pattern, since first seen */
	struct pat_touched	 touched;	/* the byte ranges its reads covered, since first seen */
	struct file_wear	 wear;		/* the ranges written, not read back (wear.h) */
	struct req_pattern	 rpat;		/* the requests that carried its pages, since first seen */
	uint32_t		 pids[PROC_FILE_PIDS];	/* tgids that touched it */
	uint32_t		 dirtier;	/* process (table id) that last dirtied it, 0 if none */
	uint32_t		 map;		/* private to model-pattern.c: its offset map + 1, 0 none */
	uint8_t			 npids;
	uint8_t			 pids_more;	/* more than PROC_FILE_PIDS did */
	uint16_t		 ftype;		/* enum blktop_vfs_ftype, last seen */
	uint16_t		 path_flags;	/* VFS_PF_*, last seen */
	uint16_t		 path_len;
	int16_t			 host;		/* its host (host.h) in a run of several, else HOST_NONE */
	uint32_t		 dev;
	uint32_t		 chunk;		/* private to model-file.c */
};
struct proc_stats {
	unsigned	 procs, max_procs, files, max_files;
	uint64_t	 procs_evicted, files_evicted;
	uint64_t	 procs_evicted_interval, files_evicted_interval;	/* since the last report */
	unsigned	 chunks_used, nchunks;
	uint64_t	 bad;		/* malformed records refused by proc_add(_typed) */
	uint64_t	 pairs_evicted;	/* (process, file) positions dropped for room (model-pattern.c) */
	uint64_t	 pattern_early;	/* calls judged before their 0.3 s: the ring was full */
	uint64_t	 pattern_late;	/* calls judged out of order: after a later one */
	uint64_t	 pattern_gone;	/* calls not judged: their file left the table first */
	uint64_t	 maps_reused;	/* files' offset maps given to another file (model-pattern.c) */
	unsigned	 pairs;		/* positions the table holds */
	int		 by_thread;
};
struct proc_table;		/* private to model-*.c (model.h) */
struct proc_table *proc_create(unsigned max_procs, unsigned max_files, int by_thread);
void		 proc_set_host(struct proc_table *, int host);
void		 proc_free(struct proc_table *);
size_t		 proc_mem_bound(unsigned max_procs, unsigned max_files);
int		 proc_add(struct proc_table *, const void *rec, size_t len);
int		 proc_add_typed(struct proc_table *, const struct rec_type *,
		     const void *rec, size_t len);
void		 proc_add_block(struct proc_table *, const void *rec);
/* model-pdepth.c: a process's requests in flight at once. */
#define PDEPTH_SLOTS	32		/* processes whose pending requests are kept */
#define PDEPTH_MAX	(1u << 15)	/* times kept of each kind per process */
void		 pdepth_add(struct proc_table *, struct proc_entry *, uint64_t start, uint64_t done);
void		 pdepth_cut(struct proc_table *, uint64_t cut, int final);
void		 pdepth_free(struct proc_table *);
void		 proc_add_open(struct proc_table *, const void *rec);
void		 proc_add_rw(struct proc_table *, const void *rec);
void		 proc_add_page(struct proc_table *, const void *rec);
void		 proc_add_fop(struct proc_table *, const void *rec);
void		 proc_interval(struct proc_table *);
const struct proc_counts *proc_sum(const struct proc_table *);
const struct proc_counts *proc_entry_counts(const struct proc_table *,
		     const struct proc_entry *, int total);
const struct proc_counts *proc_file_counts(const struct proc_table *,
		     const struct file_entry *, int total);
const struct proc_hist *proc_entry_hist(const struct proc_table *,
		     const struct proc_entry *, int block);
const struct proc_hist *proc_file_hist(const struct proc_table *,
		     const struct file_entry *, int block);
double		 proc_hist_pct(const struct proc_hist *, double p);
uint64_t	 proc_entry_lat(const struct proc_table *, const struct proc_entry *,
		     int block, double p);
uint64_t	 proc_file_lat(const struct proc_table *, const struct file_entry *, double p);
uint64_t	 proc_file_blk_lat(const struct proc_table *, const struct file_entry *, double p);
double		 proc_cache_hit_pct(unsigned have, const struct proc_counts *);
void		 proc_stats(const struct proc_table *, struct proc_stats *);

/* model-reqpat.c */
struct reqpat	*reqpat_create(void);
void		 reqpat_free(struct reqpat *);
void		 reqpat_reset(struct reqpat *);
void		 reqpat_stats(const struct reqpat *, uint64_t *early, uint64_t *late);
void		 reqpat_add(struct blktop *, const struct ev_block *, uint32_t file, uint64_t fhash);
void		 reqpat_flush(struct blktop *, uint64_t upto);

/* model-pattern.c */
size_t		 model_pattern_size(unsigned max_files);
void		 model_pattern_init(struct proc_table *, unsigned max_files);
void		 model_pattern_free(struct proc_table *);
const struct pat_map *model_file_map(const struct proc_table *, const struct file_entry *);
void		 model_pattern_add(struct proc_table *, struct proc_entry *, struct file_entry *,
		     const struct ev_rw *);
void		 model_pattern_access(struct proc_table *, struct proc_entry *, struct file_entry *,
		     uint64_t ts, uint64_t lat_ns, int64_t off, uint64_t bytes, enum pat_dir);
void		 model_pattern_open(struct proc_table *, struct proc_entry *, struct file_entry *,
		     uint64_t ts);
int64_t		 model_fault_offset(const struct ev_page *);
void		 proc_file_req_add(struct proc_table *, uint32_t file, uint64_t fhash, enum pat_dir,
		     uint64_t off, uint64_t bytes);
uint32_t	 proc_block_file_last(const struct proc_table *, uint64_t *fhash);
void		 model_pattern_flush(struct proc_table *, uint64_t upto);
void		 model_pattern_begin(struct proc_table *, uint64_t ts);
#define MODEL_PATTERN_DELAY_NS	300000000ULL	/* > the live source's drain period (100 ms) x 2 */
#define MODEL_PATTERN_STEP_NS	1000000ULL	/* judged as the stream's time moves on by this */
#define MODEL_PATTERN_REORDER	4096	/* a call moves back past this many later ones at most */

/* model-file.c */
size_t		 model_file_table_size(unsigned max_files);
void		 model_file_table_init(struct proc_table *, unsigned max_files);
void		 model_file_table_free(struct proc_table *);
struct file_entry *model_file_event(struct proc_table *, const char *path, uint16_t len,
		     uint16_t pflags, uint16_t ftype, uint64_t ino, uint32_t tgid, uint64_t ts);
struct file_entry *model_file_by_ino(struct proc_table *, uint32_t dev, uint64_t ino,
		     uint64_t ts);
struct file_entry *model_file_named(struct proc_table *, const char *name, uint64_t ts);
void		 model_file_add_pid(struct file_entry *, uint32_t tgid);
void		 model_file_set_ino(struct proc_table *, struct file_entry *, uint32_t dev,
		     uint64_t ino);
const struct file_entry *model_file_find(struct proc_table *, const char *path, int host);
size_t		 model_file_path(const struct proc_table *, const struct file_entry *,
		     char *buf, size_t len);

/* model-top.c */
#define PROC_TOP_MAX	10000	/* most entries one top call returns: --top's bound */
unsigned	 top_procs(const struct proc_table *, enum proc_key, int total,
		     const struct proc_entry **out, unsigned n);
unsigned	 top_files(const struct proc_table *, enum proc_key, int total,
		     const struct file_entry **out, unsigned n);
void		 top_each_file(const struct proc_table *,
		     void (*)(void *, const struct file_entry *), void *);
void		 top_each(const struct proc_table *,
		     void (*)(void *, const struct proc_entry *), void *);

#endif /* BLKTOP_PROC_H */
