/* DOT-quoted text (dot_text.h). */
#include "planner/io/dot_text.h"

void lf_dot_text(FILE *f, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fputc('\\', f);
        if (*p >= 0x20)
            fputc(*p, f);
    }
}
