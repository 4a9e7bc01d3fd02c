/*
 * window.h: the model of the devices: each device's ring of ticks
 * (model-window.c), the depths its requests found (model-depth.c), and sums
 * over ranges of ticks, the form every view reads. For the model, the sinks
 * and the UI; below the stream, so it knows no struct blktop.
 */
#ifndef BLKTOP_WINDOW_H
#define BLKTOP_WINDOW_H

#include <stddef.h>
#include <stdint.h>

#include "base.h"
#include "event.h"
#include "pattern.h"

/* Operation classes, as iostat groups them. */
enum opclass { OPC_READ, OPC_WRITE, OPC_OTHER, OPC_MAX };

/*
 * Where on the device (the offset map): a request counts in band
 * sector >> map_shift of its device, MAP_BANDS bands from sector 0; the shift
 * grows (older ticks' bands merged in pairs) when a request starts past them.
 */
#define MAP_BANDS	32

/*
 * The depth a request found at its start (requests of its device in flight,
 * itself included), in buckets as fio's "IO depths": 1, 2-3, 4-7, ..., so
 * bucket b holds depths 2^b to 2^(b+1) - 1.
 */
#define QD_NBUCKETS	16

/* One operation class during one tick. */
struct tick_op {
	uint64_t	 ios;
	uint64_t	 timed;		/* of ios, those with times (not BLK_F_NOLAT) */
	uint64_t	 bytes;
	uint64_t	 errors;
	uint64_t	 lat_sum;	/* device time (issue to done), ns */
	uint64_t	 q_sum;		/* queue time (start to issue), ns */
	uint64_t	 lat_min;	/* exact extremes of the timed ones: */
	uint64_t	 lat_max;	/* percentiles stay within them */
	uint64_t	 q_min;
	uint64_t	 q_max;
	uint32_t	 lat[HIST_NBUCKETS];
	uint32_t	 q[HIST_NBUCKETS];
	uint32_t	 size[SIZE_NBUCKETS];
	uint32_t	 band[MAP_BANDS];	/* requests by where they start: devwin.map_shift */
	uint32_t	 qd[QD_NBUCKETS];	/* depths found at start, final in this tick (model-depth.c) */
};

/*
 * One device during one tick. The counts of a tick with requests are a block
 * of OPC_MAX tick_ops from the windows' pool; a tick without any points at
 * windows_idle_ops (all zero, never written), so a device that sits idle
 * costs its ring of these small heads and nothing more.
 */
struct tick {
	uint64_t	 start;		/* stream time (CLOCK_MONOTONIC ns) the tick began */
	uint64_t	 end;		/* 0 while the tick is open */
	uint64_t	 busy_ns;	/* time with a request in flight (iostat io_ticks) */
	uint64_t	 wait_sum;	/* sum of start-to-done of completed requests (aqu-sz) */
	uint32_t	 qd_max;
	uint32_t	 qd_late;	/* requests found in flight past the depth lag (model-depth.c) */
	uint32_t	 in_flight;	/* part_stat's at the tick's last sample (TICK_STAT) */
	uint32_t	 flags;		/* TICK_* */
	struct tick_op	*op;		/* OPC_MAX of them */
};
#define TICK_STAT	0x1	/* busy_ns, wait_sum and in_flight from part_stat samples */
#define TICK_QD		0x2	/* depths from the requests' times (BLK_F_NODEVSTAT) */

/*
 * The depth each request found, from the requests' own start and completion
 * times (model-depth.c): records come at completion, so a request's depth is
 * final at the first tick that closes DEPTH_LAG_NS after its start. Starts
 * and completions after the last cut, each put in order before a walk.
 */
#define DEPTH_LAG_NS	(250 * 1000 * 1000ULL)
#define DEPTH_MAX	(1u << 18)	/* times kept of each kind per device */
struct depth_seq {
	uint64_t	*v;		/* from head: sorted, then as they came (depth-seq.c) */
	unsigned	 head, n, cap;
	unsigned	 sorted;	/* the first sorted of the n are in order */
};
/* Room to sort a sequence's times that came since its last walk (depth-seq.c). */
struct depth_scratch {
	uint64_t	*v, *aux;
	unsigned	 cap;
};
struct depthq {
	struct depth_seq start;		/* start << 2 | opclass of requests not final */
	struct depth_seq done;		/* completions after cut */
	uint64_t	 cut;		/* depths final up to here */
	uint64_t	 inflight;	/* seen in flight at cut */
	struct depthx	*x;		/* at dispatch, latency by depth (model-qdepth.h) */
};

/* A whole disk's last part_stat sample (EV_DISKSTAT), for the next one's deltas. */
struct diskbase {
	uint32_t	 dev;
	uint32_t	 in_flight;
	uint64_t	 ts;
	uint64_t	 io_ticks_ms;
	uint64_t	 queue_ms;
};

/* One device since the start of the run, for the device rules (src/insight.c). */
struct devrun {
	uint64_t	 ios;
	uint64_t	 timed;		/* of ios, those with times */
	uint64_t	 q_sum;		/* their queue time (start to issue), ns */
	uint64_t	 wait_sum;	/* their await (start to done), ns */
	uint64_t	 bytes[BLK_FC_MAX];	/* by whose pages they carried (enum blktop_fclass) */
};

/* The rolling window of one device: a fixed ring of ticks, in step with all others. */
struct devwin {
	uint32_t	 dev;		/* kernel dev_t, major << 20 | minor */
	struct devrun	 run;
	uint64_t	 last_busy;	/* highest cumulative busy_ns seen in an event */
	int		 have_busy;
	unsigned	 map_shift;	/* a band of the offset map is 1 << map_shift sectors */
	struct req_pattern rpat;	/* its requests' access pattern, since first seen (model-reqpat.c) */
	struct req_extra rx;		/* and their commonest sizes and strides, switches */
	struct depthq	 dq;		/* depths not yet final (model-depth.c) */
	struct tick	*ring;		/* nticks entries */
};

/*
 * 1024 devices: more than hosts have, snap loop devices and NVMe namespaces
 * included. Past the cap (or $BLKTOP_MAX_DEVS, for tests) a device's requests
 * are counted and named in "dropped", never stored.
 */
#define WINDOWS_MAX_DEVS	1024
#define WINDOWS_HASH		2048	/* slots of the device lookup, a power of two */
#define WINDOWS_DROP_MAX	64	/* devices past the cap named; the rest as one "other" */
/*
 * Tick counts kept for the history, at most (a block is OPC_MAX tick_ops,
 * 5.5 KiB): past it the oldest history of every device goes first, never the
 * ticks a report still needs (windows.history_cut says how often).
 */
#define WINDOWS_POOL_BYTES	(256u << 20)

/* A device past the cap: how many of its requests went uncounted. */
struct windows_drop {
	uint32_t	 dev;		/* 0: the devices past WINDOWS_DROP_MAX of them */
	uint64_t	 requests;	/* since the windows began */
	uint64_t	 interval;	/* since the last report */
};

/* Slabs of tick counts, taken and given back a block at a time. */
union tick_block {
	union tick_block *next;		/* while free */
	struct tick_op	 op[OPC_MAX];
};

struct windows {
	unsigned	 nticks;	/* ring length, >= 2 */
	uint64_t	 tick_start;	/* start of the open tick */
	uint64_t	 nclosed;	/* ticks closed so far */
	unsigned	 cur;		/* ring index of the open tick: nclosed % nticks */
	unsigned	 span;		/* ticks kept, the open one included: <= nticks */
	unsigned	 min_span;	/* never fewer (a report's ticks and the open one) */
	unsigned	 max_devs;	/* <= WINDOWS_MAX_DEVS */
	unsigned	 ndevs;
	struct devwin	*devs[WINDOWS_MAX_DEVS];	/* only devices -D keeps: the views list them all */
	struct devwin	*last;		/* last device looked up: most events repeat it */
	uint16_t	 slot[WINDOWS_HASH];	/* devs index + 1 by a hash of dev_t, 0 free */
	/* What the device cap cut: */
	uint64_t	 dropped;	/* requests of devices past the cap, since the start */
	uint64_t	 dropped_interval;	/* ... since the last report */
	unsigned	 ndrop;		/* devices in drop[] */
	struct windows_drop drop[WINDOWS_DROP_MAX + 1];	/* the last: "other" */
	/* Tick counts: */
	union tick_block *free;		/* blocks to take */
	void		**slabs;
	unsigned	 nslabs;
	size_t		 nblocks;	/* blocks allocated */
	size_t		 max_blocks;	/* the pool's bound: WINDOWS_POOL_BYTES */
	uint64_t	 history_cut;	/* ticks of history given up to stay in it */
	/* Each whole disk's last part_stat sample, by dev_t (model-depth.c): */
	unsigned	 nbase;
	uint16_t	 base_slot[WINDOWS_HASH];	/* base index + 1 */
	struct diskbase	 base[WINDOWS_MAX_DEVS];
	struct depth_scratch dscratch;	/* the devices' depth sorts share it (model-depth.c) */
};
extern struct tick_op windows_idle_ops[OPC_MAX];

/* Aggregate over a range of ticks, with 64-bit histogram counts. */
struct sum_op {
	uint64_t	 ios;
	uint64_t	 timed;		/* of ios, those in the latency histograms */
	uint64_t	 bytes;
	uint64_t	 errors;
	uint64_t	 lat_sum;
	uint64_t	 q_sum;
	uint64_t	 lat_min;	/* of the timed ones; 0 when none */
	uint64_t	 lat_max;
	uint64_t	 q_min;
	uint64_t	 q_max;
	uint64_t	 lat[HIST_NBUCKETS];
	uint64_t	 q[HIST_NBUCKETS];
	uint64_t	 size[SIZE_NBUCKETS];
	uint64_t	 qd[QD_NBUCKETS];
};

struct sum {
	uint64_t	 dur_ns;	/* time covered by the summed ticks */
	uint64_t	 busy_ns;
	uint64_t	 wait_sum;
	uint64_t	 qd_late;
	uint32_t	 in_flight;	/* the newest tick's sample */
	uint32_t	 flags;		/* TICK_* of any tick summed */
	uint32_t	 qd_max;
	unsigned	 nticks;
	struct sum_op	 op[OPC_MAX];
};

/*
 * Extremes of timed figures into a sum of them: the least of those timed
 * (*min of the have timed so far, min of ohave more), and the most. The one
 * rule of the windows' sums (model-window.c) and the report's columns.
 */
static inline void
windows_extremes_add(uint64_t *min, uint64_t *max, uint64_t have, uint64_t omin,
    uint64_t omax, uint64_t ohave)
{
	if (ohave != 0 && (have == 0 || omin < *min))
		*min = omin;
	if (omax > *max)
		*max = omax;
}

/* model-window.c */
enum opclass	 window_opclass(unsigned op);
void		 windows_init(struct windows *, unsigned nticks, uint64_t now);
void		 windows_limit(struct windows *, unsigned max_devs, unsigned min_span,
		     size_t pool_bytes);
void		 windows_interval(struct windows *);
void		 windows_free(struct windows *);
struct devwin	*windows_find_add(struct windows *, uint32_t dev);

void		 windows_add_block(struct windows *, const struct ev_block *);
struct tick_op	*windows_take(struct windows *);
/* model-depth.c */
void		 depth_add(struct windows *, struct devwin *, struct tick *,
		     const struct ev_block *, unsigned opclass);
void		 depth_cut(struct windows *, struct devwin *, struct tick *, uint64_t cut);
void		 depth_free(struct depthq *);
void		 depth_flush(struct windows *);
void		 depth_add_diskstat(struct windows *, const struct ev_diskstat *);
const struct diskbase *depth_diskbase(const struct windows *, uint32_t dev);
void		 windows_band_merge(uint32_t *band, unsigned k);
void		 windows_tick(struct windows *, uint64_t now);
const struct devwin *windows_get(const struct windows *, uint32_t dev);
const struct tick *windows_tick_at(const struct windows *, const struct devwin *,
		     unsigned ago);
void		 windows_sum(const struct windows *, const struct devwin *,
		     unsigned first_ago, unsigned count, struct sum *);
void		 windows_sum_tick(struct sum *, const struct tick *);

#endif /* BLKTOP_WINDOW_H */
