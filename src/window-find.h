/*
 * window-find.h: a device's window looked up inline (the one looked up last,
 * twice a request), for the model's callers outside model-window.c (which
 * tests its last window itself). Apart from window.h so that model-window.c
 * does not include what calls it back.
 */
#ifndef BLKTOP_WINDOW_FIND_H
#define BLKTOP_WINDOW_FIND_H

#include "window.h"

/* The window of a device, created on its first event. */
static inline struct devwin *
windows_find(struct windows *w, uint32_t dev)
{
	if (w->last != NULL && w->last->dev == dev)
		return (w->last);
	return (windows_find_add(w, dev));
}

#endif /* BLKTOP_WINDOW_FIND_H */
