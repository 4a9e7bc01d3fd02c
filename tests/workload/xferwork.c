/* xferwork.c: files moved by sendfile, splice and copy_file_range, in sizes the tests know; prints what it did as JSON. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Bytes of each transfer, each its own input file (and output, but for the socket's). */
#define SF_BYTES	300000	/* sendfile, file to file, by an offset pointer */
#define SOCK_BYTES	200000	/* sendfile, file to a socket, by the file's position */
#define SP_BYTES	150000	/* splice, file to a pipe, then the pipe to a file */
#define CFR_BYTES	400000	/* copy_file_range, file to file */
#define CHUNK		65536	/* bytes asked per call (copy_file_range: twice) */

static const char *usage =
    "usage: xferwork prep dir | xferwork [-w] run dir\n"
    "  prep: write the input files (sf.in 300000, sock.in 200000, sp.in 150000,\n"
    "        cfr.in 400000 bytes) with write().\n"
    "  run:  sendfile sf.in to sf.out (an offset pointer) and sock.in to a socket\n"
    "        (a child drains it), splice sp.in (an offset pointer) through a pipe\n"
    "        to sp.out, copy_file_range cfr.in to cfr.out: in calls of at most\n"
    "        65536 bytes (copy_file_range 131072); then print the calls made and\n"
    "        the bytes they returned as one JSON line, with the pipe's and the\n"
    "        socket's inode numbers. No other read or write of a regular file.\n"
    "  -w:   print {\"pid\":N} first and wait for a line on stdin before starting.\n";

/* Calls made and bytes they returned, of one kind. */
struct tally {
	unsigned long long	 calls, bytes;
};

static void
die(const char *what, const char *arg)
{
	fprintf(stderr, "xferwork: %s %s: %s\n", what, arg, strerror(errno));
	exit(1);
}

/* Write n bytes of a pattern to a new file dir/name. */
static void
prep_one(const char *dir, const char *name, size_t n)
{
	char	 path[4096], buf[8192];
	size_t	 i, k;
	int	 fd;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0)
		die("open", path);
	for (i = 0; i < sizeof buf; i++)
		buf[i] = (char)('a' + i % 26);
	for (i = 0; i < n; i += k) {
		k = n - i < sizeof buf ? n - i : sizeof buf;
		if (write(fd, buf, k) != (ssize_t)k)
			die("write", path);
	}
	if (fsync(fd) != 0 || close(fd) != 0)
		die("close", path);
}

/* Open dir/name with flags. */
static int
open_at(const char *dir, const char *name, int flags)
{
	char	 path[4096];
	int	 fd;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	if ((fd = open(path, flags, 0644)) < 0)
		die("open", path);
	return fd;
}

/* sendfile total bytes from in to out, at most CHUNK a call; off: an offset pointer or NULL. */
static void
send_all(int out, int in, off_t *off, size_t total, struct tally *t)
{
	ssize_t	 r;

	while (t->bytes < total) {
		size_t n = total - t->bytes < CHUNK ? total - t->bytes : CHUNK;

		if ((r = sendfile(out, in, off, n)) <= 0)
			die("sendfile", r == 0 ? "(0 bytes)" : "");
		t->calls++;
		t->bytes += (size_t)r;
	}
}

/* Drain sock until EOF, in a child that closes other, the sending end; returns its pid. */
static pid_t
drain(int sock, int other)
{
	char	 buf[16384];
	pid_t	 pid;

	if ((pid = fork()) < 0)
		die("fork", "");
	if (pid > 0)
		return pid;
	close(other);
	while (read(sock, buf, sizeof buf) > 0)
		;
	_exit(0);
}

/* Print one tally as a JSON member. */
static void
print_tally(const char *name, const struct tally *t, int last)
{
	printf("\"%s\":{\"calls\":%llu,\"bytes\":%llu}%s", name, t->calls, t->bytes,
	    last ? "" : ",");
}

static int
run(const char *dir)
{
	struct tally	 sf = { 0 }, sock = { 0 }, spin = { 0 }, spout = { 0 }, cfr = { 0 };
	int		 in, out, sv[2], p[2], status;
	off_t		 off = 0;
	loff_t		 spoff = 0;
	struct stat	 pst, sst;
	ssize_t		 r;
	pid_t		 child;

	/* sendfile, file to file, from an offset of its own: the file position stays 0. */
	in = open_at(dir, "sf.in", O_RDONLY);
	out = open_at(dir, "sf.out", O_WRONLY | O_CREAT | O_TRUNC);
	send_all(out, in, &off, SF_BYTES, &sf);
	close(in);
	close(out);

	/* sendfile to a socket: the socket is not a file blktop traces by default. */
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
		die("socketpair", "");
	child = drain(sv[1], sv[0]);
	close(sv[1]);
	in = open_at(dir, "sock.in", O_RDONLY);
	send_all(sv[0], in, NULL, SOCK_BYTES, &sock);
	if (fstat(sv[0], &sst) != 0)
		die("fstat", "socket");
	close(in);
	close(sv[0]);
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		die("waitpid", "drain");

	/* splice through a pipe: each chunk into the pipe (from an offset of its own), then all of it out. */
	if (pipe(p) != 0 || fstat(p[0], &pst) != 0)
		die("pipe", "");
	in = open_at(dir, "sp.in", O_RDONLY);
	out = open_at(dir, "sp.out", O_WRONLY | O_CREAT | O_TRUNC);
	while (spin.bytes < SP_BYTES) {
		size_t n = SP_BYTES - spin.bytes < CHUNK ? SP_BYTES - spin.bytes : CHUNK;
		unsigned long long left;

		if ((r = splice(in, &spoff, p[1], NULL, n, 0)) <= 0)
			die("splice", "in");
		spin.calls++;
		spin.bytes += (size_t)r;
		for (left = (size_t)r; left > 0; left -= (size_t)r) {
			if ((r = splice(p[0], NULL, out, NULL, left, 0)) <= 0)
				die("splice", "out");
			spout.calls++;
			spout.bytes += (size_t)r;
		}
	}
	close(in);
	close(out);
	close(p[0]);
	close(p[1]);

	/* copy_file_range by the files' positions. */
	in = open_at(dir, "cfr.in", O_RDONLY);
	out = open_at(dir, "cfr.out", O_WRONLY | O_CREAT | O_TRUNC);
	while (cfr.bytes < CFR_BYTES) {
		size_t n = CFR_BYTES - cfr.bytes < 2 * CHUNK ? CFR_BYTES - cfr.bytes : 2 * CHUNK;

		if ((r = copy_file_range(in, NULL, out, NULL, n, 0)) <= 0)
			die("copy_file_range", r == 0 ? "(0 bytes)" : "");
		cfr.calls++;
		cfr.bytes += (size_t)r;
	}
	close(in);
	close(out);

	printf("{\"pid\":%d,", (int)getpid());
	print_tally("sendfile", &sf, 0);
	print_tally("sendfile_sock", &sock, 0);
	print_tally("splice_in", &spin, 0);
	print_tally("splice_out", &spout, 0);
	print_tally("copy_file_range", &cfr, 0);
	printf("\"pipe_ino\":%llu,\"sock_ino\":%llu}\n", (unsigned long long)pst.st_ino,
	    (unsigned long long)sst.st_ino);
	return fflush(stdout) == 0 ? 0 : 1;
}

int
main(int argc, char **argv)
{
	char	 line[64];
	int	 wait = 0;

	if (argc == 3 && strcmp(argv[1], "prep") == 0) {
		prep_one(argv[2], "sf.in", SF_BYTES);
		prep_one(argv[2], "sock.in", SOCK_BYTES);
		prep_one(argv[2], "sp.in", SP_BYTES);
		prep_one(argv[2], "cfr.in", CFR_BYTES);
		return 0;
	}
	if (argc > 1 && strcmp(argv[1], "-w") == 0) {
		wait = 1;
		argc--;
		argv++;
	}
	if (argc != 3 || strcmp(argv[1], "run") != 0) {
		fputs(usage, stderr);
		return 2;
	}
	if (wait) {
		printf("{\"pid\":%d}\n", (int)getpid());
		fflush(stdout);
		if (fgets(line, sizeof line, stdin) == NULL)
			return 1;
	}
	return run(argv[2]);
}
