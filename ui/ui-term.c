/* ui-term.c: what ncurses may not do to the terminal while blktop paints cells itself. */

#include <curses.h>

#include "blktop.h"

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
