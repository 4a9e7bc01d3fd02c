/* ui-term.c: what the terminal must be able to do, and what ncurses may not do to it while blktop paints cells itself. */

#include <curses.h>

#include "blktop.h"
#include "ui.h"

#include <term.h>	/* after blktop.h: its capability macros (lines, columns) */

/*
 * Keep ncurses from moving what is on the terminal: no hardware scrolling
 * (its hash-based scroll optimisation could carry painted cells to other
 * rows) and no inserting or deleting characters (shifting them along a row).
 * It rewrites what moved instead, so the cells painted directly stay where
 * they were painted. Changes only this process's copy of the terminal
 * description.
 */
void
ui_term_nomove(void)
{
	if (cur_term == NULL || stdscr == NULL)
		return;
	change_scroll_region = NULL;
	scroll_forward = NULL;
	scroll_reverse = NULL;
	parm_index = NULL;
	parm_rindex = NULL;
	insert_line = NULL;
	parm_insert_line = NULL;
	delete_line = NULL;
	parm_delete_line = NULL;
	idlok(stdscr, FALSE);
	idcok(stdscr, FALSE);
}

/*
 * Why this terminal cannot hold the UI, or NULL: it must move the cursor
 * and clear the screen (TERM=dumb can do neither: every frame ran into the
 * one line and the shell after it).
 */
const char *
ui_term_unfit(void)
{
	if (cur_term == NULL)
		return ("no terminal description");
	if (cursor_address == NULL)
		return ("it cannot move the cursor");
	if (clear_screen == NULL)
		return ("it cannot clear the screen");
	return (NULL);
}

/*
 * Before leaving: a terminal without an alternate screen (vt100) would keep
 * the last frame where the shell goes on; clear it and put the cursor on the
 * first line.
 */
void
ui_term_leave(void)
{
	if (cur_term == NULL || stdscr == NULL || enter_ca_mode != NULL)
		return;
	clear();
	refresh();
}
