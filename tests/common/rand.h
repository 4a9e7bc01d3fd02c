/* rand.h: xorshift64, the tests' and benchmarks' one deterministic random number generator. */

#ifndef TESTS_COMMON_RAND_H
#define TESTS_COMMON_RAND_H

#include <stdint.h>

/* The next number of the sequence in *state (never 0: a state of 0 stays 0). */
static inline uint64_t
xorshift64(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return (*state);
}

#endif
