/* Text inside a Graphviz DOT double-quoted string, shared by the plan and
 * split pictures. */
#ifndef LF_DOT_TEXT_H
#define LF_DOT_TEXT_H

#include <stdio.h>

/* Writes s for use between DOT double quotes: a quote or backslash is
 * escaped (a backslash starts DOT escapes such as \n), control characters
 * are dropped (they would break the label's layout). */
void lf_dot_text(FILE *f, const char *s);

#endif
