/* Staging rows of zero-copy views in the windows' parts (window_views.c).
 * Internal to planner/exact. */
#ifndef LF_EXACT_WINDOW_VIEWS_H
#define LF_EXACT_WINDOW_VIEWS_H

#include "planner/exact/downsets.h"

/* 1 when x's set being grown (in a window's DP over universe U) is part of
 * no valid group: a view in it whose tensor leaves every group holding the
 * set holds a staging row the monotone floor leaves out, and with it the
 * floor reaches beta. */
int lf__win_view_staged(const lf__exact *x);

#endif
