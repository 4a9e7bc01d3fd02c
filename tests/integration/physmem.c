/* physmem.c: an LD_PRELOAD that makes sysconf(_SC_PHYS_PAGES) say $FAKE_PHYS_MB of memory (trace.sh). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <unistd.h>

/* sysconf as libc's, but physical pages from $FAKE_PHYS_MB: a small machine, on any machine. */
long
sysconf(int name)
{
	static long	(*real)(int);
	const char	*mb = getenv("FAKE_PHYS_MB");

	if (real == NULL)
		real = (long (*)(int))dlsym(RTLD_NEXT, "sysconf");
	if (name == _SC_PHYS_PAGES && mb != NULL)
		return (atol(mb) * 1048576L / real(_SC_PAGESIZE));
	return (real(name));
}
