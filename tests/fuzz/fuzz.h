/* fuzz.h: the standalone fuzz driver both fuzz targets share: corpus, mutation loop, options. */

#ifndef TESTS_FUZZ_FUZZ_H
#define TESTS_FUZZ_FUZZ_H

#include <stddef.h>
#include <stdint.h>

/* One corpus input. */
struct fuzz_input {
	unsigned char	*data;
	size_t		 len;
};

/*
 * A fuzz target as the driver runs it: its options beyond -s and -t, the
 * inputs it loads itself, one run, and its mutation of an input.
 */
struct fuzz_target {
	const char	*name;		/* "fuzz-capture" */
	const char	*usage;		/* the options and arguments after -s, -t */
	const char	*optstring;	/* its own getopt letters, "" for none */
	int		(*option)(int, const char *);	/* 1: done, exit 0 */
	void		(*load)(void);	/* before the files named: may be NULL */
	void		(*start)(void);	/* once the corpus is loaded: may be NULL */
	void		(*end)(void);	/* after the last run: may be NULL */
	void		(*one)(const uint8_t *, size_t);
	size_t		(*mutate)(const struct fuzz_input *, unsigned char *,
			    size_t);
	unsigned	 batch;		/* runs between looks at the clock */
};

extern struct fuzz_input	*fuzz_inputs;
extern size_t			 fuzz_ninputs;
extern uint64_t			 fuzz_seed;

uint64_t	fuzz_rand(void);
void		fuzz_load_file(const char *);
void		fuzz_load(const char *);
int		fuzz_main(int, char **, const struct fuzz_target *);

#endif
