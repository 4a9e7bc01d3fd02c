/*
 * base.h: what every layer shares and nothing else: the compiler helpers,
 * time units, log.c (fatal, x* allocators), name.c (names as valid UTF-8),
 * device.c (dev_t <-> names) and hist.c (the latency and size buckets all
 * figures are counted in). Any file may include it; it includes nothing of
 * blktop's, so a file that needs no run state (struct blktop, blktop.h) can
 * stop here.
 */
#ifndef BLKTOP_BASE_H
#define BLKTOP_BASE_H

#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#ifndef __unused
#define __unused __attribute__((unused))
#endif
#define __printflike(a, b) __attribute__((format(printf, a, b)))
#define nitems(a) (sizeof(a) / sizeof((a)[0]))

#define NSEC_PER_USEC	1000ULL
#define NSEC_PER_SEC	1000000000ULL

/*
 * Log-linear latency histogram: bucket 0 holds values below 1 us; then for each
 * power of two from 1 us to 2^HIST_POWERS us, HIST_SUB equal sub-buckets; the
 * last bucket holds everything from 2^HIST_POWERS us (134 s) up.
 */
#define HIST_SUB_BITS	3
#define HIST_SUB	(1u << HIST_SUB_BITS)
#define HIST_POWERS	27
#define HIST_NBUCKETS	(2 + HIST_POWERS * HIST_SUB)

/* Request sizes: bucket i holds [512 << (i-1), 512 << i) bytes, bucket 0 below 512. */
#define SIZE_NBUCKETS	18

/* log.c */
extern const char *log_prog;
extern void	(*log_fatal_hook)(void);
void		 fatal(const char *, ...) __printflike(1, 2) __attribute__((noreturn));
void		 fatalx(const char *, ...) __printflike(1, 2) __attribute__((noreturn));
void		 log_warnx(const char *, ...) __printflike(1, 2);
void		*xmalloc(size_t);
void		*xcalloc(size_t, size_t);
void		*xreallocarray(void *, size_t, size_t);
char		*xstrdup(const char *);
int		 xasprintf(char **, const char *, ...) __printflike(2, 3);

/* name.c: names as text that is always valid UTF-8 (doc/blktop.8, NAMES). */
size_t		 name_utf8_char(const char *, size_t, uint32_t *cp);
int		 name_utf8_invisible(uint32_t cp);
size_t		 name_utf8_printable(const char *, size_t);
size_t		 name_text_char(const char *, size_t, int *shown);
size_t		 name_text(char *out, size_t outlen, const char *in, size_t n);
size_t		 name_escape(char *out, size_t outlen, const char *in, size_t n);
uint64_t	 name_hash(const void *, size_t, uint64_t seed);
char		*name_escape_dup(const char *in, size_t n);
char		*name_escape_strict_dup(const char *in, size_t n);
void		 name_json(FILE *, const char *, size_t n);

/* device.c: kernel dev_t <-> names; resolved from sysfs when live, set by replay. */
#define DEVNAME_MAX	32
#define DEV_MAJOR(d)	((uint32_t)(d) >> 20)
#define DEV_MINOR(d)	((uint32_t)(d) & ((1u << 20) - 1))
#define DEV_MKDEV(ma, mi) (((uint32_t)(ma) << 20) | (uint32_t)(mi))
void		 device_set_sysfs(const char *root);
const char	*device_name(uint32_t dev);
const char	*device_text(uint32_t dev);
void		 device_set_name(uint32_t dev, const char *name);
void		 device_set_host_text(uint32_t dev, const char *host);
int		 device_parse(const char *arg, uint32_t *dev, char **errp);
int		 device_whole_disk(uint32_t dev, uint32_t *disk);
char		*device_list_known(void);

/* hist.c */
uint64_t	 hist_bucket_lo(unsigned i);
uint64_t	 hist_bucket_hi(unsigned i);
double		 hist_percentile(const uint64_t *b, uint64_t n, double p, uint64_t min,
		     uint64_t max);
unsigned	 hist_size_bucket(uint64_t bytes);
uint64_t	 hist_size_bucket_lo(unsigned i);

/*
 * The last latency hist_bucket placed (1 us or more) and its bucket: a
 * request's one latency is bucketed by the windows, the depths, the phases
 * and the process tables, each in its own file (the device time and the
 * await are the same where a request waited in no queue); the next three
 * find it here. Per thread (hist.c): a pure function's memo, whoever calls.
 */
extern __thread uint64_t	hist_memo_ns;
extern __thread unsigned	hist_memo_b;

/*
 * Bucket of a latency in ns: 0 below 1 us, then HIST_SUB per power of two.
 * Inline (4-6 per request on the per-record path: a call each was 6% of
 * blktop's samples, perf, fio's libaio job).
 */
static inline unsigned
hist_bucket(uint64_t ns)
{
	uint64_t	 us, lo;
	unsigned	 k, sub;

	if (ns < NSEC_PER_USEC)
		return (0);
	if (ns == hist_memo_ns)
		return (hist_memo_b);
	us = ns / NSEC_PER_USEC;
	k = 63 - __builtin_clzll(us);
	if (k >= HIST_POWERS)
		return (HIST_NBUCKETS - 1);
	lo = NSEC_PER_USEC << k;
	/*
	 * (ns - lo) * HIST_SUB / lo without dividing by a variable (a 64-bit
	 * div, ~40 cycles, twice per request): floor(floor(x / 2^k) / 1000) is
	 * floor(x / (1000 * 2^k)), and dividing by the constant is a multiply.
	 */
	sub = (unsigned)((((ns - lo) << HIST_SUB_BITS) >> k) / NSEC_PER_USEC);
	hist_memo_ns = ns;
	hist_memo_b = 1 + k * HIST_SUB + sub;
	return (hist_memo_b);
}

#endif /* BLKTOP_BASE_H */
