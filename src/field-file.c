/* field-file.c: the file's field table: its columns in the UI's files pane, -b's files table and the report's, and its own JSON keys. */

#include <stddef.h>

#include "blktop.h"
#include "draw.h"
#include "fields.h"
#include "json-key.h"

/*
 * A file's fields, in the UI's order. Where a file shares a process's
 * counter (struct proc_counts), .proc names its row of proc_fields: its JSON
 * key, its value and its unit come from there (json_file writes those rows);
 * here, what a file's views call it. A new column of a file's views: one row
 * here, the view's list of rows, and how the view prints it.
 */
const struct file_field file_fields[FILEF_MAX] = {
	[FILEF_CALL_READS] = { PROCF_CALL_READS, .top_key = PROC_KEY_VFS_READS,
	    .b = { "reads", 8 }, .ui = { "rcall/s", 7 }, .html = "reads" },
	[FILEF_CALL_WRITES] = { PROCF_CALL_WRITES, .top_key = PROC_KEY_VFS_WRITES,
	    .b = { "writes", 8 }, .ui = { "wcall/s", 7 }, .html = "writes" },
	[FILEF_CALL_READ_BYTES] = { PROCF_CALL_READ_BYTES, .top_key = PROC_KEY_VFS_READ_BYTES,
	    .b = { "rd_bytes", 10 }, .ui = { "rMB/s", 6 }, .html = "read" },
	[FILEF_CALL_WRITE_BYTES] = { PROCF_CALL_WRITE_BYTES,
	    .top_key = PROC_KEY_VFS_WRITE_BYTES, .b = { "wr_bytes", 10 }, .ui = { "wMB/s", 6 },
	    .html = "written" },
	[FILEF_DISK_READ_BYTES] = { PROCF_DISK_READ_BYTES, .top_key = PROC_KEY_DISK_READ_BYTES,
	    .b = { "dsk_rd_B", 10 }, .ui = { "drMB/s", 6 }, .html = "disk read" },
	[FILEF_DISK_WRITE_BYTES] = { PROCF_DISK_WRITE_BYTES,
	    .top_key = PROC_KEY_DISK_WRITE_BYTES, .b = { "dsk_wr_B", 10 },
	    .ui = { "dwMB/s", 6 }, .html = "disk written" },
	[FILEF_CACHE_HIT] = { PROCF_CACHE_HIT, .top_key = PROC_KEY_VFS_READ_BYTES,
	    .ui = { "hit%", 4 } },
	[FILEF_SEQ] = { -1, .top_key = PROC_KEY_VFS_READS, .b = { "seq%", 4 },
	    .ui = { "seq%", 4 },
	    .help = "sequential share of its judged calls, since first seen (doc/json.md)" },
	[FILEF_SIZE] = { -1, .top_key = PROC_KEY_VFS_READS, .b = { "size", 10 },
	    .ui = { "size", 5 }, .help = "its commonest call size, since first seen" },
	[FILEF_OPENS] = { PROCF_OPENS, .top_key = PROC_KEY_OPENS, .b = { "opens", 6 },
	    .ui = { "open/s", 6 }, .html = "opens" },
	[FILEF_P50] = { -1, .top_key = PROC_KEY_LAT, .b = { "lat_p50", 9 },
	    .ui = { "p50", DRAW_LAT_WIDTH }, .help = "its calls' median time, us" },
	[FILEF_P99] = { -1, .top_key = PROC_KEY_LAT, .b = { "lat_p99", 9 },
	    .ui = { "p99", DRAW_LAT_WIDTH }, .help = "its calls' 99th percentile time, us" },
	[FILEF_PIDS] = { -1, JK_PIDS, .top_key = PROC_KEY_LAT, .b = { "PIDS", -23 },
	    .ui = { "PIDS", 13 }, .help = "the processes that touched it (the first few)" },
	[FILEF_PATH] = { -1, JK_PATH, .top_key = PROC_KEY_LAT, .b = { "PATH", 0 },
	    .ui = { "PATH", 0 }, .html = "file", .help = "its path" },
};

/* A file field's JSON key: its own, or its process row's. */
const char *
file_field_key(unsigned i)
{
	const struct file_field	*r = &file_fields[i];

	return (r->key != NULL ? r->key : proc_fields[r->proc].key);
}

/* Its title in the report's table: its own, or its process row's. */
const char *
file_field_html(unsigned i)
{
	const struct file_field	*r = &file_fields[i];

	return (r->html != NULL ? r->html : proc_fields[r->proc].html);
}

/*
 * -b's header of the columns cols (n): right-aligned numbers a space apart,
 * two spaces before the first left-aligned name, the last one unpadded.
 */
void
file_field_b_head(FILE *f, const unsigned *cols, unsigned n)
{
	const struct field_col	*c;
	unsigned		 i;
	int			 named = 0;

	for (i = 0; i < n; i++) {
		c = &file_fields[cols[i]].b;
		if (i > 0)
			fputs(c->width < 0 && !named ? "  " : " ", f);
		if (c->width < 0)
			named = 1;
		fprintf(f, "%*s", c->width, c->title);
	}
	fputc('\n', f);
}
