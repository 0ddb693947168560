#include "planner/io/json.h"

#include <math.h>

void lf_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    const unsigned char *run = (const unsigned char *)s, *p = run;
    for (;; p++) {
        /* plain characters go out in runs: one fwrite, not one locked fputc each
         * (names make up most of a plan file) */
        if (*p >= 0x20 && *p != '"' && *p != '\\')
            continue;
        fwrite(run, 1, (size_t)(p - run), f);
        run = p + 1;
        switch (*p) {
        case '\0': fputc('"', f); return;
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\r': fputs("\\r", f); break;
        case '\t': fputs("\\t", f); break;
        default: fprintf(f, "\\u%04x", *p);
        }
    }
}

void lf_json_double(FILE *f, double v)
{
    if (!isfinite(v))
        fputs("null", f);
    else
        fprintf(f, "%.10g", v);
}
