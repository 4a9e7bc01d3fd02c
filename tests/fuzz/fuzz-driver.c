/* fuzz-driver.c: the standalone fuzz driver: load the corpus, run it, then mutate it for a bounded time. */

#include <sys/stat.h>

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "blktop.h"
#include "fuzz.h"
#include "../common/rand.h"

struct fuzz_input	*fuzz_inputs;
size_t			 fuzz_ninputs;
uint64_t		 fuzz_seed;

/* A fast random number. */
uint64_t
fuzz_rand(void)
{
	return (xorshift64(&fuzz_seed));
}

/* Load one file of at most 1 MiB into the corpus. */
void
fuzz_load_file(const char *path)
{
	struct fuzz_input	*in;
	struct stat		 sb;
	FILE			*f;

	if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode) || sb.st_size > 1 << 20)
		return;
	if ((f = fopen(path, "rb")) == NULL)
		fatal("%s", path);
	fuzz_inputs = xreallocarray(fuzz_inputs, fuzz_ninputs + 1,
	    sizeof *fuzz_inputs);
	in = &fuzz_inputs[fuzz_ninputs++];
	in->len = sb.st_size;
	in->data = xmalloc(in->len + 1);
	if (fread(in->data, 1, in->len, f) != in->len)
		fatalx("%s: short read", path);
	fclose(f);
}

/* Load a file, or every file of a directory, into the corpus. */
void
fuzz_load(const char *path)
{
	struct dirent	*de;
	DIR		*d;
	char		*p;

	if ((d = opendir(path)) == NULL) {
		fuzz_load_file(path);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		xasprintf(&p, "%s/%s", path, de->d_name);
		fuzz_load_file(p);
		free(p);
	}
	closedir(d);
}

/*
 * Options -s SEED and -t SECONDS and the target's own, then the corpus (the
 * target's and the files and directories named), each input once, then
 * mutated inputs until the time is up. Exits 0 unless something crashed.
 */
int
fuzz_main(int argc, char **argv, const struct fuzz_target *t)
{
	unsigned char	*buf;
	size_t		 i, len, max = 0, runs = 0;
	double		 seconds = 10;
	time_t		 start;
	char		 opts[32];
	int		 ch;

	fuzz_seed = (uint64_t)time(NULL) * 2654435761u ^ getpid();
	snprintf(opts, sizeof opts, "%ss:t:", t->optstring);
	while ((ch = getopt(argc, argv, opts)) != -1) {
		switch (ch) {
		case 's':
			fuzz_seed = strtoull(optarg, NULL, 0);
			break;
		case 't':
			seconds = strtod(optarg, NULL);
			break;
		default:
			if (t->option == NULL || ch == '?') {
				fprintf(stderr, "usage: %s %s\n", t->name,
				    t->usage);
				return (1);
			}
			if (t->option(ch, optarg))
				return (0);
			break;
		}
	}
	if (fuzz_seed == 0)
		fuzz_seed = 1;
	if (t->load != NULL)
		t->load();
	for (i = optind; i < (size_t)argc; i++)
		fuzz_load(argv[i]);
	if (t->start != NULL)
		t->start();
	printf("%s: %zu inputs, seed %ju, %.0f s\n", t->name, fuzz_ninputs,
	    (uintmax_t)fuzz_seed, seconds);
	for (i = 0; i < fuzz_ninputs; i++) {
		t->one(fuzz_inputs[i].data, fuzz_inputs[i].len);
		if (fuzz_inputs[i].len > max)
			max = fuzz_inputs[i].len;
	}
	max = 2 * max + 4096;
	buf = xmalloc(max);
	start = time(NULL);
	while (difftime(time(NULL), start) < seconds) {
		for (i = 0; i < t->batch; i++) {
			len = t->mutate(&fuzz_inputs[fuzz_rand() % fuzz_ninputs],
			    buf, max);
			t->one(buf, len);
			runs++;
		}
	}
	if (t->end != NULL)
		t->end();
	printf("PASS: %s: %zu runs without a crash\n", t->name, runs);
	free(buf);
	for (i = 0; i < fuzz_ninputs; i++)
		free(fuzz_inputs[i].data);
	free(fuzz_inputs);
	return (0);
}
