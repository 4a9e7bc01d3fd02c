/* model-qdepth.h: the depth each request found at dispatch, and its latency by the depth it found at start (model-depth.c). */

#ifndef MODEL_QDEPTH_H
#define MODEL_QDEPTH_H

#include <stdint.h>

/*
 * The requests that found one depth bucket at their start: their count,
 * bytes and total latency (start to done, iostat's await), its log-linear
 * histogram with exact extremes (percentiles stay within them).
 */
struct qd_lat {
	uint64_t	 n;
	uint64_t	 bytes;
	uint64_t	 sum;
	uint64_t	 min;
	uint64_t	 max;
	uint64_t	 hist[HIST_NBUCKETS];
};

/* What the depths that became final over a span of ticks add up to. */
struct qd_acc {
	uint64_t	 disp[QD_NBUCKETS];	/* depths found at dispatch, fio's buckets */
	uint64_t	 ndisp;
	uint32_t	 disp_max;
	struct qd_lat	*lat[QD_NBUCKETS];	/* by depth found at start; allocated at first use */
};

/*
 * A device's part past struct depthq: each pending start's latency and bytes
 * (parallel to start.v), the dispatches not yet final (put in order before
 * each walk, depth-seq.c), with the completions of depthq.done walked a
 * second time; and what the final ones added up to since the last report
 * (iv) and, up to the last report, since the windows began (run: iv goes
 * into it at each report and at the end). While every dispatch came at its
 * start (no queue time), the dispatches are the starts, and the starts' walk
 * counts them: issue is kept from the first that does not
 * (depth_issue_apart).
 */
struct depthx {
	uint64_t	*aux;		/* start.v's: latency ns << QDX_BYTES_BITS | bytes / 512 */
	unsigned	 auxcap;
	struct depth_seq issue;		/* dispatch times of requests not final (issue_apart) */
	uint64_t	 issue_inflight;	/* dispatched and not completed at cut (issue_apart) */
	int		 issue_apart;	/* a dispatch came after its start: issue is kept */
	struct qd_acc	 iv;
	struct qd_acc	 run;
};
#define QDX_BYTES_BITS	24		/* bytes / 512: 8 GiB a request */

/* model-depth.c */
void		 depth_interval(struct depthq *);
void		 depth_fold(struct windows *);
const struct qd_acc *depth_acc(const struct devwin *, int run);


#endif
