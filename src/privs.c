/* privs.c: once the source has started, keep nothing of root but the fds it opened. */

#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <linux/capability.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/bpf.h>

#include "blktop.h"

#define PRIVS_CAP_MAX	63	/* capabilities a newer kernel may know beyond our headers */
#define PRIVS_CAP_BPF	39	/* CAP_BPF, 5.8+: older headers have none */

/*
 * An id from SUDO_UID/SUDO_GID as sudo writes it: canonical decimal (digits
 * only, no leading zero: "01001" is not 1001 to every reader), less than
 * (uid_t)-1.
 */
static int
privs_id(const char *s, unsigned long *v)
{
	char	*end;

	if (s == NULL || *s < '0' || *s > '9' || (s[0] == '0' && s[1] != '\0'))
		return (-1);
	errno = 0;
	*v = strtoul(s, &end, 10);
	if (errno != 0 || *end != '\0' || *v >= UINT32_MAX)
		return (-1);
	return (0);
}

/*
 * Root started through sudo: the user and group who ran sudo (0), none
 * (1: not root, no SUDO_UID, or SUDO_UID 0, sudo from a root shell: blktop
 * stays root), or -1 with *errp when SUDO_UID or SUDO_GID is not a user's:
 * not canonical decimal, or a uid the password database does not know
 * (4294967294, 99999 where there is no such user). doc/blktop.8, PRIVILEGES.
 */
int
privs_sudo_ids(uid_t *uidp, gid_t *gidp, char **errp)
{
	const char	*u = getenv("SUDO_UID"), *g = getenv("SUDO_GID");
	unsigned long	 su, sg;

	if (errp != NULL)
		*errp = NULL;
	if (getuid() != 0 || geteuid() != 0 || u == NULL || strcmp(u, "0") == 0)
		return (1);
	if (privs_id(u, &su) != 0 || privs_id(g, &sg) != 0 || getpwuid((uid_t)su) == NULL) {
		if (errp != NULL)
			xasprintf(errp, "SUDO_UID '%.16s' SUDO_GID '%.16s': not a user's ids "
			    "(canonical decimal, a user of the password database): refusing to "
			    "go on as root", u, g != NULL ? g : "");
		return (-1);
	}
	*uidp = (uid_t)su;
	*gidp = (gid_t)sg;
	return (0);
}

/* Started through sudo and still root: the user who ran sudo, 0; else -1. */
int
privs_sudo_uid(uid_t *uidp)
{
	gid_t	 gid;

	return (privs_sudo_ids(uidp, &gid, NULL) == 0 ? 0 : -1);
}

/*
 * Open a file the user named (-t THEME) as that user: started through sudo
 * and still root, the open runs with the effective ids and only the group of
 * SUDO_UID/SUDO_GID, so root never reads for the user what the user may not
 * (and an error never shows a line of it). Otherwise a plain open.
 */
int
privs_open_user(const char *path, int flags)
{
	uid_t		 su;
	gid_t		 groups[64], g;
	int		 ngroups, fd, saved;

	if (privs_sudo_ids(&su, &g, NULL) != 0)
		return (open(path, flags));
	if ((ngroups = getgroups((int)nitems(groups), groups)) == -1)
		return (-1);
	if (setgroups(1, &g) != 0 || setegid(g) != 0 || seteuid(su) != 0) {
		saved = errno;
		fd = -1;
	} else {
		fd = open(path, flags);
		saved = errno;
	}
	if (seteuid(0) != 0 || setegid(0) != 0 || setgroups((size_t)ngroups, groups) != 0)
		fatal("cannot take back root after opening %s", path);
	errno = saved;
	return (fd);
}

/* The effective, permitted and inheritable sets, all empty. */
static int
privs_capset_none(void)
{
	struct __user_cap_header_struct	 hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct	 data[2];

	memset(data, 0, sizeof data);
	return ((int)syscall(SYS_capset, &hdr, data));
}

/*
 * The effective and permitted sets: only capability keep (-1: none), the
 * inheritable set empty.
 */
static int
privs_capset_only(int keep)
{
	struct __user_cap_header_struct	 hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct	 data[2];

	if (keep < 0)
		return (privs_capset_none());
	memset(data, 0, sizeof data);
	data[keep / 32].effective = data[keep / 32].permitted = 1u << (keep % 32);
	return ((int)syscall(SYS_capset, &hdr, data));
}

/*
 * Whether the effective and permitted sets hold anything but capability
 * keep (-1: anything at all), or lack keep.
 */
static int
privs_caps_left(int keep)
{
	struct __user_cap_header_struct	 hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct	 data[2];
	uint32_t			 want[2] = { 0, 0 };

	if (syscall(SYS_capget, &hdr, data) != 0)
		return (1);
	if (keep >= 0)
		want[keep / 32] = 1u << (keep % 32);
	return (data[0].effective != want[0] || data[1].effective != want[1] ||
	    data[0].permitted != want[0] || data[1].permitted != want[1]);
}

/* Whether capability cap is in the permitted set. */
static int
privs_permitted(int cap)
{
	struct __user_cap_header_struct	 hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct	 data[2];

	if (syscall(SYS_capget, &hdr, data) != 0)
		return (0);
	return ((data[cap / 32].permitted & (1u << (cap % 32))) != 0);
}

/*
 * Whether bpf() on an fd held works without any capability: a child drops
 * every capability, looks up key 0 of a one-entry array map created here and
 * says by its exit status (0: it works; 1: refused, EPERM; 2: another error,
 * its errno in *errnop). Linux 5.10 refuses every bpf() command to a caller
 * without CAP_BPF or CAP_SYS_ADMIN while kernel.unprivileged_bpf_disabled is
 * set (Debian's default is 2); from 5.19 (c8644cd0efe7, "bpf: refine
 * kernel.unprivileged_bpf_disabled behaviour") only loads and map creation
 * are. Probed, never assumed from a version. -1 if
 * the probe itself could not run (no map: not privileged), *errnop set.
 */
/* The bpf() system call itself: privs.c is in the core (the unit tests), which links no libbpf. */
static int
privs_sys_bpf(int cmd, union bpf_attr *a)
{
	return ((int)syscall(SYS_bpf, cmd, a, sizeof *a));
}

int
privs_bpf_probe(int *errnop)
{
	union bpf_attr	 a;
	uint32_t	 key = 0;
	uint64_t	 val;
	pid_t		 pid;
	int		 fd, st, e;

	*errnop = 0;
	memset(&a, 0, sizeof a);
	a.map_type = BPF_MAP_TYPE_ARRAY;
	a.key_size = sizeof key;
	a.value_size = sizeof val;
	a.max_entries = 1;
	if ((fd = privs_sys_bpf(BPF_MAP_CREATE, &a)) < 0) {
		*errnop = errno;
		return (-1);
	}
	if ((pid = fork()) == -1) {
		*errnop = errno;
		close(fd);
		return (-1);
	}
	if (pid == 0) {
		if (privs_capset_none() != 0)
			_exit(3);
		memset(&a, 0, sizeof a);
		a.map_fd = (uint32_t)fd;
		a.key = (uint64_t)(uintptr_t)&key;
		a.value = (uint64_t)(uintptr_t)&val;
		if (privs_sys_bpf(BPF_MAP_LOOKUP_ELEM, &a) == 0)
			_exit(0);
		e = errno;
		_exit(e == EPERM ? 1 : e > 0 && e < 120 ? 10 + e : 2);
	}
	close(fd);
	while (waitpid(pid, &st, 0) == -1)
		if (errno != EINTR) {
			*errnop = errno;
			return (-1);
		}
	if (!WIFEXITED(st) || WEXITSTATUS(st) == 3) {
		*errnop = ECHILD;
		return (-1);
	}
	if (WEXITSTATUS(st) >= 10) {
		*errnop = WEXITSTATUS(st) - 10;
		return (2);
	}
	if (WEXITSTATUS(st) == 1)
		*errnop = EPERM;
	return (WEXITSTATUS(st) == 1 ? 1 : WEXITSTATUS(st) == 0 ? 0 : 2);
}

static int	 privs_want_bpf;	/* privs_keep_bpf: the drop probes bpf() */
static int	 privs_kept_cap = -1;	/* what the drop kept: CAP_BPF, CAP_SYS_ADMIN, -1 */
static char	 privs_why[256];

/*
 * The live source goes on using bpf() on its fds (counters, batch flushes)
 * after the drop: privs_drop probes whether that works without a
 * capability, and keeps the one it needs where it does not.
 */
void
privs_keep_bpf(void)
{
	privs_want_bpf = 1;
}

/*
 * The capability privs_drop kept (CAP_BPF 39, CAP_SYS_ADMIN 21), or -1;
 * *whyp: why, or why none (NULL: bpf() was not asked for).
 */
int
privs_kept(const char **whyp)
{
	*whyp = privs_why[0] != '\0' ? privs_why : NULL;
	return (privs_kept_cap);
}

/* kernel.unprivileged_bpf_disabled as the kernel says it, or "?". */
static void
privs_ubd(char *buf, size_t len)
{
	FILE	*f = fopen("/proc/sys/kernel/unprivileged_bpf_disabled", "re");

	snprintf(buf, len, "?");
	if (f != NULL) {
		if (fgets(buf, (int)len, f) == NULL)
			snprintf(buf, len, "?");
		buf[strcspn(buf, "\n")] = '\0';
		fclose(f);
	}
}

/*
 * What to keep through the drop: -1 (nothing: bpf() on an fd held works
 * without a capability, or was not asked for), CAP_BPF where the kernel
 * knows it and it is permitted, else CAP_SYS_ADMIN. Says why in privs_why.
 * Before the bounding set is emptied.
 */
static int
privs_choose(void)
{
	char	 ubd[16];
	int	 r, e, cap;

	privs_why[0] = '\0';
	if (!privs_want_bpf)
		return (-1);
	privs_ubd(ubd, sizeof ubd);
	r = privs_bpf_probe(&e);
	if (r == 0) {
		snprintf(privs_why, sizeof privs_why, "no capability kept: bpf() on a map "
		    "fd held works without one here (kernel.unprivileged_bpf_disabled=%s)", ubd);
		return (-1);
	}
	if (r != 1) {
		snprintf(privs_why, sizeof privs_why, "no capability kept: the bpf() probe "
		    "%s: %s", r == -1 ? "could not run" : "failed otherwise than refused",
		    strerror(e));
		return (-1);
	}
	/* CAP_BPF (5.8+): PR_CAPBSET_READ says EINVAL where the kernel has none. */
	cap = prctl(PR_CAPBSET_READ, PRIVS_CAP_BPF, 0, 0, 0) >= 0 &&
	    privs_permitted(PRIVS_CAP_BPF) ? PRIVS_CAP_BPF : CAP_SYS_ADMIN;
	if (!privs_permitted(cap)) {
		snprintf(privs_why, sizeof privs_why, "no capability kept: bpf() without "
		    "one is refused here (kernel.unprivileged_bpf_disabled=%s) but neither "
		    "CAP_BPF nor CAP_SYS_ADMIN is permitted: kernel counters unreadable", ubd);
		return (-1);
	}
	snprintf(privs_why, sizeof privs_why, "%s kept (only): this kernel refuses "
	    "bpf() on a map fd held to a process without it (before 5.19, with "
	    "kernel.unprivileged_bpf_disabled=%s), and the counters and batch "
	    "flushes need it", cap == PRIVS_CAP_BPF ? "CAP_BPF" : "CAP_SYS_ADMIN", ubd);
	return (cap);
}

/* --probe: what a live run keeps through the drop, and why (privs_choose). */
void
privs_print_probe(FILE *f)
{
	privs_want_bpf = 1;
	(void)privs_choose();
	fprintf(f, "privileges: after attaching, %s\n", privs_why);
}

/*
 * Started through sudo as root: become the user who ran sudo (SUDO_UID,
 * SUDO_GID, that user's groups). In every case drop every capability, empty
 * the bounding and ambient sets and set no_new_privs: the ring buffer, maps
 * and links are used through fds already open, which need none -- except
 * where the kernel refuses bpf() on them without CAP_BPF (Linux 5.10 with
 * kernel.unprivileged_bpf_disabled set, privs_bpf_probe) and the live source
 * asked (privs_keep_bpf): there CAP_BPF (CAP_SYS_ADMIN where the kernel has
 * no CAP_BPF) stays effective and permitted, nothing else. Files created
 * from here on (captures) belong to that user. *uidp is the user.
 */
int
privs_drop(uid_t *uidp, char **errp)
{
	struct passwd	*pw;
	uid_t		 uid = getuid();
	gid_t		 gid = getgid();
	int		 cap, change, keep;

	if ((change = privs_sudo_ids(&uid, &gid, errp)) == -1)
		return (-1);
	change = change == 0;
	privs_kept_cap = keep = privs_choose();
	/* Out of the bounding set first: dropping it needs CAP_SETPCAP. */
	for (cap = 0; cap <= PRIVS_CAP_MAX; cap++) {
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno == EINVAL)
			break;
	}
	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	/* setresuid from root empties the permitted set but for this. */
	if (keep >= 0 && prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) != 0) {
		xasprintf(errp, "cannot keep %s: %s", keep == PRIVS_CAP_BPF ? "CAP_BPF" :
		    "CAP_SYS_ADMIN", strerror(errno));
		return (-1);
	}
	if (change) {
		pw = getpwuid(uid);
		if ((pw != NULL ? initgroups(pw->pw_name, gid) :
		    setgroups(1, &gid)) != 0 ||
		    setresgid(gid, gid, gid) != 0 || setresuid(uid, uid, uid) != 0) {
			xasprintf(errp, "cannot become uid %lu gid %lu: %s",
			    (unsigned long)uid, (unsigned long)gid, strerror(errno));
			return (-1);
		}
	}
	if (privs_capset_only(keep) != 0 || privs_caps_left(keep) ||
	    (keep >= 0 && prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0) != 0) ||
	    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
		xasprintf(errp, "cannot drop capabilities: %s", strerror(errno));
		return (-1);
	}
	if (change && (setuid(0) == 0 || geteuid() == 0)) {
		xasprintf(errp, "root could be taken back after dropping it");
		return (-1);
	}
	*uidp = uid;
	return (0);
}
