/* Thousands separators for the reports (tables of bytes). */
#include "planner/util/format.h"

#include <inttypes.h>
#include <stdio.h>

char *lf_format_commas(int64_t v, char *buf, size_t len)
{
    if (!len)
        return buf;
    char digits[32];
    /* The magnitude as unsigned, so INT64_MIN has one too. */
    uint64_t mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    int n = snprintf(digits, sizeof digits, "%" PRIu64, mag);
    size_t o = 0;
    if (v < 0 && o + 1 < len)
        buf[o++] = '-';
    for (int i = 0; i < n && o + 1 < len; i++) {
        buf[o++] = digits[i];
        if ((n - i - 1) % 3 == 0 && i + 1 < n && o + 1 < len)
            buf[o++] = ',';
    }
    buf[o] = '\0';
    return buf;
}
