/* ui-wear.c: the written-and-never-read screen: what became of the bytes written, by directory, file and process, since the start. */

#include <curses.h>
#include <stdio.h>
#include <string.h>

#include "blktop.h"
#include "fields.h"
#include "json-wear.h"
#include "ui.h"

#define UI_WEAR_ROWS	8	/* directories, files and processes shown, most never read and unread first */
#define UI_WEAR_TOP	64	/* files and processes looked at for them */
#define UI_WEAR_W	12	/* a figure's column */

/* The figures of a file or process, as -J's members of those names (src/field-proc.c's rows). */
static const struct {
	enum proc_field	 field;
	const char	*title;
} ui_wear_cols[] = {
	{ PROCF_WRITTEN, "written" }, { PROCF_READ_BACK, "read_back" },
	{ PROCF_NEVER_READ, "never_read" }, { PROCF_UNREAD, "unread" },
	{ PROCF_CREATES, "creates" }, { PROCF_UNLINKS, "unlinks" },
	{ PROCF_LIFETIMES, "lifetimes" }, { PROCF_LIFETIME, "life_mean_s" },
	{ PROCF_CREATES_S, "creates/s" }, { PROCF_UNLINKS_S, "unlinks/s" },
};

/* The header of a table: its first column's title, then the figures' (directories: 8 and their files). */
static void
ui_wear_head(int y, const struct ui_rect *r, const char *first, int dirs)
{
	char		 line[256];
	unsigned	 i;
	int		 off;

	off = snprintf(line, sizeof line, "%-24s", first);
	for (i = 0; i < (dirs ? 8 : nitems(ui_wear_cols)); i++)
		off += snprintf(line + off, sizeof line - (size_t)off, "%*s", UI_WEAR_W,
		    ui_wear_cols[i].title);
	if (dirs)
		snprintf(line + off, sizeof line - (size_t)off, "%*s", UI_WEAR_W, "files");
	ui_text(stdscr, y, r->x, THEME_INACTIVE_FG, THEME_MAIN_BG, line);
}

/* One row of a file or process: its name (the tail of a long one), its figures, "-" for one it has not. */
static void
ui_wear_row(int y, const struct ui_rect *r, const char *name, const struct field_ctx *x)
{
	const struct field	*f;
	char			 line[256], v[32];
	size_t			 n = strlen(name);
	unsigned		 i;
	int			 off, known;
	double			 d;

	off = snprintf(line, sizeof line, "%-24s", n > 23 ? name + n - 23 : name);
	for (i = 0; i < nitems(ui_wear_cols); i++) {
		f = &proc_fields[ui_wear_cols[i].field];
		if (!(f->ents & x->ent) || (f->need & x->b->have) != f->need)
			snprintf(v, sizeof v, "-");
		else if (f->unit == FIELD_SECS || f->get != NULL) {
			d = field_value(f, x, &known);
			fmt_num(v, sizeof v, 0, f->unit == FIELD_SECS ? f->prec : 0, known, d);
		} else
			snprintf(v, sizeof v, "%llu", (unsigned long long)field_count(f, x));
		off += snprintf(line + off, sizeof line - (size_t)off, "%*s", UI_WEAR_W, v);
	}
	ui_text(stdscr, y, r->x, THEME_MAIN_FG, THEME_MAIN_BG, line);
}

/* Whether counts c have anything of this screen: bytes written, a create or an unlink. */
static int
ui_wear_any(const struct proc_counts *c)
{
	return (c->wear.written + c->creates + c->fops[FOP_UNLINK] != 0);
}

/* One directory's (or all files') figures: the report's "wear" members, no rates. */
static void
ui_wear_dir(int y, const struct ui_rect *r, const char *name, const struct wear_dir *d)
{
	char	 line[256], life[32];
	size_t	 n = strlen(name);

	fmt_num(life, sizeof life, 0, 6, d->lives > 0, d->lives > 0 ?
	    (double)d->life_ns / (double)d->lives / 1e9 : 0);
	snprintf(line, sizeof line, "%-24s%*llu%*llu%*llu%*llu%*llu%*llu%*llu%*s%*llu",
	    n > 23 ? name + n - 23 : name, UI_WEAR_W, (unsigned long long)d->written, UI_WEAR_W,
	    (unsigned long long)d->read_back, UI_WEAR_W, (unsigned long long)d->never_read,
	    UI_WEAR_W, (unsigned long long)d->unread, UI_WEAR_W, (unsigned long long)d->creates,
	    UI_WEAR_W, (unsigned long long)d->unlinks, UI_WEAR_W, (unsigned long long)d->lives,
	    UI_WEAR_W, life, UI_WEAR_W, (unsigned long long)d->files);
	ui_text(stdscr, y, r->x, THEME_MAIN_FG, THEME_MAIN_BG, line);
}

/*
 * Bytes written and never read since the start (src/wear.h): over every file
 * the table holds and by directory (the last column: files), then the files
 * and the processes with the most never read bytes (of those that wrote,
 * created or unlinked a file), each figure as -J's
 * member of that name (bytes exact).
 */
void
ui_draw_wear(const struct ui_state *u, const struct ui_rect *r)
{
	const struct blktop	*b = u->b;
	const struct proc_entry	*pe[UI_WEAR_TOP];
	const struct file_entry	*fe[UI_WEAR_TOP];
	struct field_ctx	 x = { .b = b, .whole = 1 };
	struct wear_walk	*w = wear_walk_new(b);
	char			 path[VFS_PATH_MAX], name[BLKTOP_COMM_LEN + 16];
	unsigned		 i, k, n;
	int			 y = r->y + 2, bottom = r->y + r->h;

	ui_text(stdscr, r->y, r->x, THEME_TITLE, THEME_MAIN_BG, "Written and never read since "
	    "the start (doc/json.md, wear; bytes; any key closes it)");
	if (w == NULL) {
		ui_text(stdscr, y, r->x, THEME_INACTIVE_FG, THEME_MAIN_BG, "no file calls here "
		    "(unavailable: vfs)");
		return;
	}
	ui_wear_head(y++, r, "directory", 1);
	ui_wear_dir(y++, r, "all", &w->all);
	for (i = 0; i < w->ndirs && i < UI_WEAR_ROWS && y < bottom; i++) {
		/* In a run of several hosts, "host:dir", as a file's name. */
		snprintf(path, sizeof path, "%s%s%s",
		    w->dirs[i].host != HOST_NONE ? host_name(w->dirs[i].host) : "",
		    w->dirs[i].host != HOST_NONE ? ":" : "",
		    w->dirs[i].dir[0] != '\0' ? w->dirs[i].dir : "/");
		ui_wear_dir(y++, r, path, &w->dirs[i]);
	}
	wear_walk_free(w);
	y++;
	n = top_files(b->procs, PROC_KEY_NEVER_READ, 1, fe, UI_WEAR_TOP);
	if (y + 1 < bottom)
		ui_wear_head(y++, r, "file", 0);
	x.ent = FIELD_FILE;
	for (i = k = 0; i < n && k < UI_WEAR_ROWS && y < bottom; i++) {
		x.fe = fe[i];
		x.pe = NULL;
		x.c = proc_file_counts(b->procs, fe[i], 1);
		if (!ui_wear_any(x.c))
			continue;
		k++;
		model_file_path(b->procs, fe[i], path, sizeof path);
		ui_wear_row(y++, r, path, &x);
	}
	y++;
	n = top_procs(b->procs, PROC_KEY_NEVER_READ, 1, pe, UI_WEAR_TOP);
	if (y + 1 < bottom)
		ui_wear_head(y++, r, "process", 0);
	x.ent = FIELD_PROC;
	x.fe = NULL;
	for (i = k = 0; i < n && k < UI_WEAR_ROWS && y < bottom; i++) {
		x.pe = pe[i];
		x.c = proc_entry_counts(b->procs, pe[i], 1);
		if (!ui_wear_any(x.c))
			continue;
		k++;
		snprintf(name, sizeof name, "%u %.*s", pe[i]->id, BLKTOP_COMM_LEN, pe[i]->comm);
		ui_wear_row(y++, r, name, &x);
	}
}
