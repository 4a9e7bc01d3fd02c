/* cgroup.c: a cgroup v2 id (its directory's inode on the cgroup2 file system) to its path, for the views. */
#include <sys/stat.h>

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blktop.h"

/*
 * Find the directory whose inode is id on the file system dev below dirfd (at
 * most depth levels down); its path relative to that root into out. 0 if found.
 */
static int
cgroup_find(int dirfd, const char *rel, uint64_t id, dev_t dev, unsigned depth,
    char *out, size_t outlen)
{
	DIR		*d;
	struct dirent	*de;
	struct stat	 st;
	char		 sub[PATH_MAX];
	int		 fd, found = -1;

	if ((d = fdopendir(dirfd)) == NULL) {
		close(dirfd);
		return (-1);
	}
	while (found != 0 && (de = readdir(d)) != NULL) {
		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		if (fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
		    st.st_dev != dev)
			continue;	/* another file system mounted inside: not ours */
		if ((size_t)snprintf(sub, sizeof sub, "%s/%s", rel, de->d_name) >= sizeof sub)
			continue;
		if ((uint64_t)st.st_ino == id) {
			snprintf(out, outlen, "%s", sub);
			found = 0;
		} else if (depth > 0 && (fd = openat(dirfd, de->d_name,
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) != -1)
			found = cgroup_find(fd, sub, id, dev, depth - 1, out, outlen);
	}
	closedir(d);
	return (found);
}

/* A mountinfo field with its octal escapes (\040 for a space) undone, in place. */
static void
cgroup_unoctal(char *s)
{
	char	*o = s;

	for (; *s != '\0'; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' &&
		    s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0'));
			s += 3;
		} else
			*o++ = *s;
	}
	*o = '\0';
}

/*
 * The cgroup v2 mount point from a mountinfo text (the first cgroup2 mount
 * of the hierarchy's root, else the first cgroup2 mount) into dir, and the
 * path of the cgroup it shows into root ("/" for the hierarchy's root); 0 if
 * there is one. Beside cgroup v1 hierarchies (a hybrid host) only the
 * cgroup2 file system has v2 ids.
 */
int
cgroup_v2_mount(const char *mountinfo, char *dir, size_t dirlen, char *root,
    size_t rootlen)
{
	char		*text, *line, *next, *f[12], *sep, *p;
	unsigned	 n;
	int		 found = -1;

	text = xstrdup(mountinfo);
	for (line = text; line != NULL && *line != '\0'; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		if ((sep = strstr(line, " - ")) == NULL)
			continue;
		*sep = '\0';
		if (strncmp(sep + 3, "cgroup2 ", 8) != 0)
			continue;
		for (n = 0, p = line; n < nitems(f) && (f[n] = strsep(&p, " ")) != NULL; n++)
			;
		if (n < 5)
			continue;
		cgroup_unoctal(f[3]);
		cgroup_unoctal(f[4]);
		if (found == 0 && strcmp(f[3], "/") != 0)
			continue;
		snprintf(dir, dirlen, "%s", f[4]);
		snprintf(root, rootlen, "%s", f[3]);
		found = 0;
		if (strcmp(f[3], "/") == 0)
			break;
	}
	free(text);
	return (found);
}

/* /proc/self/mountinfo's cgroup2 mount, as cgroup_v2_mount; read on every call. */
static int
cgroup_v2_mount_self(char *dir, size_t dirlen, char *root, size_t rootlen)
{
	char	 buf[65536];
	size_t	 n;
	FILE	*f;
	int	 rv;

	if ((f = fopen("/proc/self/mountinfo", "re")) == NULL)
		return (-1);
	n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	rv = cgroup_v2_mount(buf, dir, dirlen, root, rootlen);
	return (rv);
}

/*
 * The path of cgroup id in the cgroup v2 hierarchy ("/" for its root), into
 * out; 0 if found. The directory is looked for on the cgroup2 mount that
 * /proc/self/mountinfo names, by inode and file system both: on a hybrid
 * host a v1 directory can have the same inode number. -1 if the id is not
 * there (a cgroup removed), -2 if no cgroup2 file system is mounted (a v1-only
 * host: names unavailable). A directory walk (8 levels at most): callers cache.
 */
int
cgroup_path(uint64_t id, char *out, size_t len)
{
	char		 dir[PATH_MAX], root[PATH_MAX], rel[PATH_MAX];
	struct stat	 st;
	int		 fd;

	if (cgroup_v2_mount_self(dir, sizeof dir, root, sizeof root) != 0)
		return (-2);
	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		return (-1);
	if (fstat(fd, &st) != 0) {
		close(fd);
		return (-1);
	}
	if ((uint64_t)st.st_ino == id) {
		close(fd);
		snprintf(out, len, "%s", root);
		return (0);
	}
	if (cgroup_find(fd, "", id, st.st_dev, 8, rel, sizeof rel) != 0)
		return (-1);
	snprintf(out, len, "%s%s", strcmp(root, "/") == 0 ? "" : root, rel);
	return (0);
}
