/* Tiny helpers for writing JSON by hand with stable formatting (plans, graph
 * dumps and reports must be byte-identical across runs). */
#ifndef LF_JSON_H
#define LF_JSON_H

#include <stdio.h>

/* Writes s as a JSON string literal with the required escapes. */
void lf_json_string(FILE *f, const char *s);

/* Writes a double with ten significant digits, or null when not finite. */
void lf_json_double(FILE *f, double v);

#endif
