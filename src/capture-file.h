/*
 * capture-file.h: what the rest of blktop sees of a capture file
 * (doc/capture-format.md): its header, the writer, the flight recorder and
 * the reader. For the capture sink, the replay, the importer (which fills a
 * header) and main.c; the chunk format itself stays in capture.h, for
 * capture-*.c only.
 */
#ifndef BLKTOP_CAPTURE_FILE_H
#define BLKTOP_CAPTURE_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "base.h"
#include "event.h"
#include "host.h"

/*
 * capture-*.c: capture files (doc/capture-format.md): capture-encode.c builds
 * chunks, capture-write.c writes a file, capture-flight.c keeps the last
 * seconds as chunks, capture-read.c reads, capture-header.c is the file header.
 */
#define CAPTURE_VERSION_MAJOR	3	/* 3.0: BLK_F_NODEVSTAT records carry no inflight, busy */
#define CAPTURE_VERSION_MAJOR_OLDEST 1	/* the oldest major read */
#define CAPTURE_VERSION_MINOR	1	/* 2.1: the process filter in the header (3.x: always);
					   3.1: the labels */
#define CAPTURE_REC_MAX		16384	/* longest record a capture stores */

/* A device named in a capture header. */
struct capture_dev {
	uint32_t	 dev;		/* kernel dev_t, major << 20 | minor */
	char		 name[DEVNAME_MAX];
};

/* What a capture file says about where and how it was recorded. */
struct capture_header {
	unsigned		 major;		/* set by the reader */
	unsigned		 minor;
	char			*version;	/* blktop version that wrote it */
	char			*host;		/* uname's nodename, or --hostname */
	int			 has_host;	/* a capture naming its host (an imported log
						   names none); not written, set by the readers */
	unsigned		 nlabels;	/* --label KEY=VALUE pairs (since 3.1) */
	struct host_label	 labels[HOST_LABELS_MAX];
	char			*kernel;	/* uname -r */
	char			*plan;		/* probe plan */
	int64_t			 clock_offset;	/* wall ns = CLOCK_MONOTONIC ns + this */
	int			 has_clock;	/* clock_offset is known: a capture whose header
						   was read and says one (not 0), a log with
						   dates in its TIME column, a clock alignment
						   log; not written, set by the readers */
	uint64_t		 created;	/* wall ns when recording began */
	unsigned		 ndevs;
	struct capture_dev	*devs;
	uint64_t		 interval_ns;	/* -d in ns; 0 = neither it nor the filter
						   recorded (1.0 file: see the plan) */
	unsigned		 nfilter;	/* -D devices, 0 = all */
	uint32_t		*filter_devs;	/* their kernel dev_t; NULL if nfilter 0 */
	/*
	 * The process filter the model applied (since 2.1): what it took of
	 * the records, so that a replay takes the same. has_procs: recorded.
	 */
	int			 has_procs;
	uint64_t		 filter_cgroup;	/* --cgroup id, 0 = any */
	unsigned		 nfilter_pids;	/* -p */
	uint32_t		 filter_pids[FILTER_MAX_PIDS];
	unsigned		 nfilter_comms;	/* -c */
	char			 filter_comms[FILTER_MAX_COMMS][BLKTOP_COMM_LEN];
};

/* What a reader met: "replayed N events; skipped K damaged chunks; lost B bytes". */
struct capture_stats {
	uint64_t	 records;	/* records returned */
	uint64_t	 chunks;	/* chunks decoded */
	uint64_t	 skipped;	/* damaged chunks or runs of garbage skipped */
	uint64_t	 skipped_bytes;
	uint64_t	 tail_lost;	/* bytes at the end holding no whole chunk */
	const char	*header_damage;	/* why the file header was passed over, or NULL */
	int		 shrunk;	/* the file shrank while it was read */
};

/* capture-header.c */
size_t		 capture_header_build(const struct capture_header *, uint8_t **out);
const char	*capture_header_parse(struct capture_header *, const uint8_t *base,
		     size_t size, size_t *lenp);
void		 capture_header_free(struct capture_header *);
int		 capture_header_is_magic(const uint8_t *base, size_t size);
int		 capture_header_near_magic(const uint8_t *base, size_t size);

/* capture-write.c */
struct capture;
void __printflike(2, 3) capture_seterr(char **errp, const char *fmt, ...);
void		 capture_write_chunk(void *, const uint8_t *, size_t, uint64_t);
int64_t		 capture_clock_offset(void);
struct capture	*capture_create(const char *, const struct capture_header *,
		     char **errp);
int		 capture_add(struct capture *, const void *rec, size_t len);
int		 capture_flush(struct capture *);
const char	*capture_error(struct capture *);
void		 capture_writer_stats(struct capture *, uint64_t *records,
		     uint64_t *chunks, uint64_t *bytes);
int		 capture_close(struct capture *);

/* capture-flight.c */
struct capture_flight;
struct capture_flight *capture_flight_init(unsigned seconds, size_t max_bytes);
void		 capture_flight_add(struct capture_flight *, const void *rec,
		     size_t len);
void		 capture_flight_tick(struct capture_flight *, uint64_t now);
void		 capture_flight_usage(struct capture_flight *, size_t *bytes,
		     unsigned *chunks);
void		 capture_flight_free(struct capture_flight *);
struct capture	*capture_create_from_flight(const char *,
		     const struct capture_header *, struct capture_flight *,
		     char **errp);

/* capture-read.c */
struct capture_reader;
struct capture_reader *capture_open(const char *, char **errp);
struct capture_reader *capture_open_mem(const void *, size_t, char **errp);
int		 capture_next(struct capture_reader *, void *buf, size_t size,
		     size_t *lenp);
const struct capture_header *capture_reader_header(struct capture_reader *);
const struct capture_stats *capture_reader_stats(struct capture_reader *);
void		 capture_reader_close(struct capture_reader *);

#endif /* BLKTOP_CAPTURE_FILE_H */
