/* config.c: the config file: KEY = VALUE lines, read as the user who ran blktop, written by the view. */

#include <sys/stat.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blktop.h"
#include "config-file.h"
#include "options.h"

/*
 * Where the config file is: $XDG_CONFIG_HOME/blktop/blktoprc, else
 * ~/.config/blktop/blktoprc, where ~ is, started through sudo, the home of
 * the user who ran sudo (whom blktop becomes once attached), else $HOME or
 * the password file's home. -1 with *errp if there is no home to be found.
 */
int
config_default_path(char *buf, size_t len, char **errp)
{
	const char	*xdg = getenv("XDG_CONFIG_HOME"), *home = NULL;
	struct passwd	*pw;
	uid_t		 su;
	int		 n;

	if (xdg != NULL && xdg[0] == '/') {
		n = snprintf(buf, len, "%s/blktop/blktoprc", xdg);
	} else {
		if (privs_sudo_uid(&su) == 0) {
			if ((pw = getpwuid(su)) != NULL)
				home = pw->pw_dir;
		} else if ((home = getenv("HOME")) == NULL || home[0] != '/') {
			home = (pw = getpwuid(getuid())) != NULL ? pw->pw_dir : NULL;
		}
		if (home == NULL || home[0] != '/') {
			xasprintf(errp, "no home directory for the config file: "
			    "set XDG_CONFIG_HOME or use --config FILE");
			return (-1);
		}
		n = snprintf(buf, len, "%s/.config/blktop/blktoprc", home);
	}
	if (n < 0 || (size_t)n >= len) {
		xasprintf(errp, "the config file's path is too long");
		return (-1);
	}
	return (0);
}

/* Set an item, the later of two equal keys winning. */
static int
config_set(struct config *c, const char *key, size_t klen, const char *value,
    size_t vlen, unsigned line)
{
	struct config_item	*it;
	unsigned		 i;
	size_t			 k;

	for (i = 0; i < c->nitems; i++) {
		if (strlen(c->items[i].key) == klen &&
		    strncasecmp(c->items[i].key, key, klen) == 0)
			break;
	}
	if (i == CONFIG_ITEMS_MAX)
		return (-1);
	it = &c->items[i];
	for (k = 0; k < klen; k++)	/* keys are the same in any case */
		it->key[k] = (char)tolower((unsigned char)key[k]);
	it->key[klen] = '\0';
	memcpy(it->value, value, vlen);
	it->value[vlen] = '\0';
	it->line = line;
	if (i == c->nitems)
		c->nitems++;
	return (0);
}

/*
 * Parse a config file's text: "KEY = VALUE" lines, blank lines and lines
 * starting with '#'. A key is letters, digits, '.', '_' and '-'; the value
 * is the rest of the line, spaces around it dropped. On a line that is not
 * one of these, -1 with *errp "line N: why".
 */
int
config_parse(struct config *c, const char *text, size_t len, char **errp)
{
	const char	*p = text, *end = text + len, *eol, *k, *ke, *v, *ve;
	unsigned	 line = 0;

	c->nitems = 0;
	while (p < end) {
		line++;
		if ((eol = memchr(p, '\n', (size_t)(end - p))) == NULL)
			eol = end;
		if (memchr(p, '\0', (size_t)(eol - p)) != NULL) {
			xasprintf(errp, "line %u: a NUL byte: not a text file", line);
			return (-1);
		}
		k = p;
		ve = eol;
		p = eol < end ? eol + 1 : end;
		while (k < ve && isspace((unsigned char)*k))
			k++;
		while (ve > k && isspace((unsigned char)ve[-1]))
			ve--;
		if (k == ve || *k == '#')
			continue;
		for (ke = k; ke < ve && (isalnum((unsigned char)*ke) ||
		    *ke == '.' || *ke == '_' || *ke == '-'); ke++)
			;
		for (v = ke; v < ve && (*v == ' ' || *v == '\t'); v++)
			;
		if (ke == k || v == ve || *v != '=') {
			xasprintf(errp, "line %u: not KEY = VALUE", line);
			return (-1);
		}
		for (v++; v < ve && isspace((unsigned char)*v); v++)
			;
		if (v == ve) {
			xasprintf(errp, "line %u: %.*s has no value", line,
			    (int)(ke - k) > CONFIG_KEY_MAX ? CONFIG_KEY_MAX : (int)(ke - k), k);
			return (-1);
		}
		if (ke - k >= CONFIG_KEY_MAX || ve - v >= CONFIG_VALUE_MAX) {
			xasprintf(errp, "line %u: %s longer than %d characters", line,
			    ke - k >= CONFIG_KEY_MAX ? "a key" : "a value",
			    ke - k >= CONFIG_KEY_MAX ? CONFIG_KEY_MAX - 1 : CONFIG_VALUE_MAX - 1);
			return (-1);
		}
		if (config_set(c, k, (size_t)(ke - k), v, (size_t)(ve - v), line) != 0) {
			xasprintf(errp, "line %u: more than %d settings", line,
			    CONFIG_ITEMS_MAX);
			return (-1);
		}
	}
	return (0);
}

/*
 * Read and parse the config file at path, opened as the user who ran blktop
 * (privs_open_user: root never reads for the user what the user may not).
 * 1 if there is no such file, 0 if read, -1 with *errp "PATH: why" if it
 * cannot be read or parsed.
 */
int
config_read(struct config *c, const char *path, char **errp)
{
	struct stat	 sb;
	char		*buf, *why = NULL;
	size_t		 len = 0;
	ssize_t		 n;
	int		 fd, rc = -1;

	c->nitems = 0;
	fd = privs_open_user(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd == -1 && errno == ENOENT)
		return (1);
	if (fd == -1) {
		xasprintf(errp, "%s: %s", path, strerror(errno));
		return (-1);
	}
	if (fstat(fd, &sb) == -1 || !S_ISREG(sb.st_mode)) {
		xasprintf(errp, "%s: not a regular file", path);
		close(fd);
		return (-1);
	}
	/* One byte more than allowed, to notice a file that grew. */
	buf = xmalloc(CONFIG_FILE_MAX + 1);
	while (len < CONFIG_FILE_MAX + 1) {
		n = read(fd, buf + len, CONFIG_FILE_MAX + 1 - len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	if (n == -1)
		xasprintf(errp, "%s: %s", path, strerror(errno));
	else if (len > CONFIG_FILE_MAX)
		xasprintf(errp, "%s: larger than %d bytes", path, CONFIG_FILE_MAX);
	else if (config_parse(c, buf, len, &why) != 0)
		xasprintf(errp, "%s: %s", path, why);
	else
		rc = 0;
	free(why);
	free(buf);
	close(fd);
	return (rc);
}

/* Make a directory 0700 unless it is there. */
static int
config_mkdir(const char *path, size_t len)
{
	char	 dir[PATH_MAX];

	if (len == 0 || len >= sizeof dir)
		return (0);
	memcpy(dir, path, len);
	dir[len] = '\0';
	if (mkdir(dir, 0700) == -1 && errno != EEXIST)
		return (-1);
	return (0);
}

/*
 * Write text as the config file at path: into a new file (0600, created
 * beside it, never through a link) then renamed over it, so that a reader
 * sees the old file or the new one, whole. The file's directory and the one
 * above it are made if missing (~/.config/blktop). -1 with *errp on failure,
 * the old file left as it was.
 */
int
config_write(const char *path, const char *text, char **errp)
{
	char		 tmp[PATH_MAX];
	const char	*slash;
	size_t		 len = strlen(text), off = 0;
	ssize_t		 n;
	int		 fd, saved, ok;

	if ((slash = strrchr(path, '/')) != NULL) {
		const char *up = slash;

		while (up > path && up[-1] != '/')
			up--;
		if (up > path)
			config_mkdir(path, (size_t)(up - path - 1));
		if (config_mkdir(path, (size_t)(slash - path)) != 0) {
			xasprintf(errp, "%.*s: %s", (int)(slash - path), path,
			    strerror(errno));
			return (-1);
		}
	}
	if (snprintf(tmp, sizeof tmp, "%s.XXXXXX", path) >= (int)sizeof tmp) {
		xasprintf(errp, "%s: path too long", path);
		return (-1);
	}
	if ((fd = mkostemp(tmp, O_CLOEXEC)) == -1) {
		xasprintf(errp, "%s: %s", path, strerror(errno));
		return (-1);
	}
	n = 0;
	while (off < len) {
		n = write(fd, text + off, len - off);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		off += (size_t)n;
	}
	ok = off == len && fsync(fd) == 0;
	saved = off < len && n == 0 ? ENOSPC : errno;
	if (close(fd) != 0 && ok) {
		ok = 0;
		saved = errno;
	}
	if (ok && rename(tmp, path) != 0) {
		ok = 0;
		saved = errno;
	}
	if (!ok) {
		unlink(tmp);
		xasprintf(errp, "%s: %s", path, strerror(saved));
		return (-1);
	}
	return (0);
}

/*
 * The file's values stay referenced once taken (the theme, the record dir),
 * and the view takes its own at its start (config_apply).
 */
static struct config config_file;
static int config_taken;	/* config_load found every value good */

/*
 * Threshold i of the insights (the option table's insight.* rows) as a
 * config line into buf ("insight.KEY = VALUE\n", commented out at its
 * default), for the view's W; NULL past the last. The values read back as
 * themselves (%.17g).
 */
const char *
config_insight_line(const struct blktop *b, unsigned i, char *buf, size_t len)
{
	const struct option_entry	*e;
	const char			*at, *def;
	unsigned			 k;
	uint64_t			 u;
	double				 v;

	for (k = 0; k < options_table_count; k++) {
		e = &options_table[k];
		if (e->key != NULL && strncmp(e->key, "insight.", 8) == 0 && i-- == 0)
			break;
	}
	if (k == options_table_count)
		return (NULL);
	at = (const char *)b + e->off;
	def = (const char *)&insight_defaults + (e->off - offsetof(struct blktop, opt.insight));
	if (e->type == OPTION_WHOLE) {
		memcpy(&u, at, sizeof u);
		snprintf(buf, len, "%s%s = %llu\n", memcmp(at, def, sizeof u) == 0 ? "# " : "",
		    e->key, (unsigned long long)u);
	} else {
		memcpy(&v, at, sizeof v);
		snprintf(buf, len, "%s%s = %.17g\n", memcmp(at, def, sizeof v) == 0 ? "# " : "",
		    e->key, v);
	}
	return (buf);
}

/*
 * Why a value would not read back from a config file as itself (a newline
 * would start a line of its own, spaces at its ends are dropped), or NULL.
 */
const char *
config_value_why(const char *v)
{
	size_t	 n = strlen(v), i;

	if (n == 0)
		return ("it is empty");
	if (n >= CONFIG_VALUE_MAX)
		return ("it is longer than the 199 bytes a value may have");
	for (i = 0; i < n; i++) {
		if ((unsigned char)v[i] < 0x20 || v[i] == 0x7f)
			return ("it holds a control character (a newline, a tab)");
	}
	if (v[0] == ' ' || v[n - 1] == ' ')
		return ("it begins or ends with a space");
	return (NULL);
}

/*
 * Take the view's settings from its config file (path, or the default one
 * if NULL) where the command line said nothing: the view's own keys go to
 * its config callback. A file that cannot be read or parsed, or a bad value,
 * leaves every default, with one line; so does an unknown key, passed over.
 * The line goes to stderr and into the view's options (config_note). -1
 * with *errp only if the file named by --config is not there.
 */
int
config_load(struct blktop *b, const char *path, const struct sink_entry *view,
    char **errp)
{
	struct ui_opts		*vo = &b->opt.ui_opts;
	struct config_item	*it;
	char			*why = NULL, *bad = NULL;
	unsigned		 i, unknown = 0, first = 0;
	int			 apply, r;

	*errp = NULL;
	if (path == NULL && config_default_path(vo->config_path,
	    sizeof vo->config_path, &why) != 0) {
		snprintf(vo->config_note, sizeof vo->config_note, "%s", why);
		free(why);
		vo->config_path[0] = '\0';
		return (0);
	}
	if (path != NULL)
		snprintf(vo->config_path, sizeof vo->config_path, "%s", path);
	r = config_read(&config_file, vo->config_path, &why);
	if (r == 1 && path != NULL) {
		xasprintf(errp, "--config: %s: no such file", path);
		return (-1);
	}
	if (r == 1)
		return (0);
	if (r != 0) {
		snprintf(vo->config_note, sizeof vo->config_note, "%s; using the defaults", why);
		free(why);
		log_warnx("%s", vo->config_note);
		return (0);
	}
	for (apply = 0; apply < 2 && bad == NULL; apply++) {
		for (i = 0; i < config_file.nitems && bad == NULL; i++) {
			it = &config_file.items[i];
			r = options_config(b, it->key, it->value, apply, &why);
			/* The view's own keys are taken at its start, into its state. */
			if (r == 0 && view->config != NULL)
				r = apply ? 1 : view->config(b, NULL, it->key, it->value, &why);
			if (r < 0) {
				xasprintf(&bad, "%s:%u: %s: %s; using the defaults",
				    vo->config_path, it->line, it->key, why);
				free(why);
			} else if (r == 0 && !apply && unknown++ == 0) {
				first = i;
			}
		}
	}
	config_taken = bad == NULL;
	if (bad != NULL) {
		snprintf(vo->config_note, sizeof vo->config_note, "%s", bad);
		free(bad);
	} else if (unknown > 0) {
		it = &config_file.items[first];
		if (unknown == 1)
			xasprintf(&bad, "%s:%u: unknown key '%s', passed over",
			    vo->config_path, it->line, it->key);
		else
			xasprintf(&bad, "%s:%u: unknown key '%s' and %u more, passed over",
			    vo->config_path, it->line, it->key, unknown - 1);
		snprintf(vo->config_note, sizeof vo->config_note, "%s", bad);
		free(bad);
	}
	if (vo->config_note[0] != '\0')
		log_warnx("%s", vo->config_note);
	return (0);
}

/*
 * The view's settings of the config file that config_load took, into the
 * view's state (s->data): at its start, in the file's order. Nothing if the
 * file was not read or a value was bad (the view keeps its defaults).
 */
void
config_apply(struct sink *s)
{
	struct config_item	*it;
	char			*why;
	unsigned		 i;

	if (!config_taken || s->entry->config == NULL)
		return;
	for (i = 0; i < config_file.nitems; i++) {
		it = &config_file.items[i];
		if (s->entry->config(s->b, s->data, it->key, it->value, &why) < 0)
			free(why);	/* checked by config_load: not seen */
	}
}
