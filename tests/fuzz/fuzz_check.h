/* Shared checks of the fuzz harnesses: a failure's message is one line that
 * starts where it should; anything else is a finding (abort, so libFuzzer
 * and the replay driver both report it with the input). */
#ifndef LF_FUZZ_CHECK_H
#define LF_FUZZ_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/status.h"

#define LF_FUZZ_REQUIRE(cond)                                                          \
    do {                                                                               \
        if (!(cond)) {                                                                 \
            fprintf(stderr, "fuzz finding: %s:%d: %s\n", __FILE__, __LINE__, #cond);   \
            abort();                                                                   \
        }                                                                              \
    } while (0)

/* One printable line, no longer than the message buffer, starting with `prefix`. */
static inline void lf_fuzz_check_message(const char *prefix)
{
    const char *m = lf_last_error();
    LF_FUZZ_REQUIRE(m && m[0]);
    LF_FUZZ_REQUIRE(strlen(m) < LF_MESSAGE_MAX);
    for (const unsigned char *p = (const unsigned char *)m; *p; p++)
        LF_FUZZ_REQUIRE(*p >= 0x20 && *p != 0x7f);
    LF_FUZZ_REQUIRE(strncmp(m, prefix, strlen(prefix)) == 0);
}

#endif
