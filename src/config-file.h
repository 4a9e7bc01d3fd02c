/*
 * config-file.h: the config file, KEY = VALUE lines (config.c), for the option
 * table that reads it (options.c), the sinks and views whose settings it
 * holds, and main.c.
 */
#ifndef BLKTOP_CONFIG_FILE_H
#define BLKTOP_CONFIG_FILE_H

#include <stddef.h>

struct blktop;
struct sink;

/* config.c: the config file, KEY = VALUE lines (doc/blktop.8, FILES). */
#define CONFIG_FILE_MAX		(64 * 1024)
#define CONFIG_ITEMS_MAX	128
#define CONFIG_KEY_MAX		40
#define CONFIG_VALUE_MAX	200
struct config_item {
	char		 key[CONFIG_KEY_MAX];
	char		 value[CONFIG_VALUE_MAX];
	unsigned	 line;
};
struct config {
	unsigned	 nitems;
	struct config_item items[CONFIG_ITEMS_MAX];
};
int		 config_default_path(char *, size_t, char **errp);
int		 config_parse(struct config *, const char *, size_t, char **errp);
int		 config_read(struct config *, const char *path, char **errp);
int		 config_write(const char *path, const char *text, char **errp);
const char	*config_insight_line(const struct blktop *, unsigned, char *, size_t);
const char	*config_value_why(const char *);
struct sink_entry;
void		 config_apply(struct sink *);
int		 config_load(struct blktop *, const char *path,
		     const struct sink_entry *view, char **errp);

#endif /* BLKTOP_CONFIG_FILE_H */
