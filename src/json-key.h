/* json-key.h: the JSON keys that members of different objects share, each spelt once here (issue 43). */
#ifndef BLKTOP_JSON_KEY_H
#define BLKTOP_JSON_KEY_H

/*
 * A key that one object alone has is written where that object is
 * (json.c, json-run.c, a field table's row). A common word that several
 * objects have, or a section that compare.c reads back from -J, is one
 * line here, and every writer and reader names it by its macro, so that no
 * key's text is in two .c files (tests/golden/json-keys.py --check).
 */
#define JK_AVG		"avg"		/* a latency summary's mean, a device's mean depth */
#define JK_BYTES	"bytes"		/* a device operation's (field-dev.c), a dump row's */
#define JK_CGROUP	"cgroup"	/* a process's (field-proc.c), a dump row's */
#define JK_CODE		"code"		/* an insight's, a compared insight's (json-compare.c) */
#define JK_COMM		"comm"		/* a process's (field-proc.c), a compared process's */
#define JK_COUNT	"count"		/* a histogram bucket's, a cap's dropped entries */
#define JK_COLUMNS	"columns"	/* an offset map's columns, the report's */
#define JK_DEVICE	"device"	/* the stack's device, a compared phase's device */
#define JK_DEVICES	"devices"	/* an interval's, the report's, a phase's, the stack's */
#define JK_DURATION_S	"duration_s"	/* a phase's, the report's, the wear's, a compare side's */
#define JK_FIGURE	"figure"	/* an insight's figure, a compared figure's name */
#define JK_FILES	"files"		/* the top files, a table's size, the wear's, the stack's */
#define JK_HOST		"host"		/* a device's, process's or file's host (field-dev.c), a dump row's */
#define JK_INSIGHTS	"insights"	/* written by json.c, read back by compare.c */
#define JK_INTERVAL_S	"interval_s"	/* an interval's length (json-run.c), read back by compare.c */
#define JK_LABEL	"label"		/* a mark's, a phase's, a compared phase's */
#define JK_LABELS	"labels"	/* a host's labels (report-hosts.c), a dump row's */
#define JK_LATE		"late"		/* depths made late (json.c), the stack's late records */
#define JK_LO_US	"lo_us"		/* a latency bucket's low edge (json-dev.c), read back by compare-heat.c */
#define JK_MAX		"max"		/* a summary's, a device's depth, a cap's bound */
#define JK_MEAN		"mean"		/* a latency summary's, a stack histogram's */
#define JK_MIN		"min"		/* a latency summary's, a compared figure's spread */
#define JK_NAME		"name"		/* a device's name, an insight's subject's */
#define JK_PATH		"path"		/* a file's (field-file.c), a compared file's */
#define JK_PHASES	"phases"	/* written by json-run.c, read back by compare.c */
#define JK_PID		"pid"		/* a process's (field-proc.c), a dump row's */
#define JK_PIDS		"pids"		/* a file's processes, a job's members */
#define JK_PROCESSES	"processes"	/* the top processes, a cap's table, the stack's */
#define JK_PROCS	"procs"		/* a file's process count, the process table's size */
#define JK_RULE		"rule"		/* an insight's rule, the compare's significance rule */
#define JK_START	"start"		/* a phase's, an anomaly's, an offset map's, the report's */
#define JK_TGID		"tgid"		/* a process's (field-proc.c), a dump row's */
#define JK_TS		"ts"		/* an interval's, a mark's (json-run.c), a dump row's */

/* "KEY": in a format string. */
#define JK(k)		"\"" k "\":"

#endif
