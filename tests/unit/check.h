/* check.h: the tiny assertion layer every C unit test uses; tests/run counts its lines. */
#ifndef CHECK_H
#define CHECK_H

#include <stdio.h>
#include <stdlib.h>

static int check_failed;

/* Report one named check as PASS or FAIL; tests/run counts these lines. */
#define CHECK(name, cond) do {						\
	if (cond)							\
		printf("PASS: %s\n", (name));				\
	else {								\
		printf("FAIL: %s (%s:%d: %s)\n", (name), __FILE__,	\
		    __LINE__, #cond);					\
		check_failed++;						\
	}								\
} while (0)

#define CHECK_EXIT() return (check_failed ? 1 : 0)

#endif
