/* Minimal test helpers: each test executable calls its test functions from
 * main and returns lf_test_result(). A failed check prints file:line and the
 * values and marks the run failed, but the run goes on so that one report
 * shows every failure. */
#ifndef LF_TESTLIB_H
#define LF_TESTLIB_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "planner/status.h"

static int lf_test_failures;
static int lf_test_checks;

#define CHECK(cond)                                                                     \
    do {                                                                                \
        lf_test_checks++;                                                               \
        if (!(cond)) {                                                                  \
            lf_test_failures++;                                                         \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);    \
        }                                                                               \
    } while (0)

#define CHECK_EQ_I64(a, b)                                                              \
    do {                                                                                \
        long long lf_a_ = (long long)(a), lf_b_ = (long long)(b);                       \
        lf_test_checks++;                                                               \
        if (lf_a_ != lf_b_) {                                                           \
            lf_test_failures++;                                                         \
            fprintf(stderr, "%s:%d: %s == %s failed: %lld != %lld\n", __FILE__,         \
                    __LINE__, #a, #b, lf_a_, lf_b_);                                    \
        }                                                                               \
    } while (0)

#define CHECK_NEAR(a, b, tol)                                                           \
    do {                                                                                \
        double lf_a_ = (double)(a), lf_b_ = (double)(b);                                \
        lf_test_checks++;                                                               \
        if (!(lf_a_ - lf_b_ <= (tol) && lf_b_ - lf_a_ <= (tol))) {                      \
            lf_test_failures++;                                                         \
            fprintf(stderr, "%s:%d: %s ~ %s failed: %.9g vs %.9g (tol %g)\n", __FILE__, \
                    __LINE__, #a, #b, lf_a_, lf_b_, (double)(tol));                     \
        }                                                                               \
    } while (0)

#define CHECK_STR(a, b)                                                                 \
    do {                                                                                \
        const char *lf_a_ = (a), *lf_b_ = (b);                                          \
        lf_test_checks++;                                                               \
        if (!lf_a_ || !lf_b_ || strcmp(lf_a_, lf_b_) != 0) {                            \
            lf_test_failures++;                                                         \
            fprintf(stderr, "%s:%d: %s == %s failed: \"%s\" != \"%s\"\n", __FILE__,     \
                    __LINE__, #a, #b, lf_a_ ? lf_a_ : "(null)", lf_b_ ? lf_b_ : "(null)"); \
        }                                                                               \
    } while (0)

/* Checks that an lf_status call succeeded and prints the library's message if not. */
#define CHECK_OK(expr)                                                                  \
    do {                                                                                \
        lf_status lf_s_ = (expr);                                                       \
        lf_test_checks++;                                                               \
        if (lf_s_ != LF_OK) {                                                           \
            lf_test_failures++;                                                         \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #expr,        \
                    lf_last_error());                                                   \
        }                                                                               \
    } while (0)

static inline int lf_test_result(void)
{
    if (lf_test_failures) {
        fprintf(stderr, "%d of %d checks failed\n", lf_test_failures, lf_test_checks);
        return 1;
    }
    printf("%d checks passed\n", lf_test_checks);
    return 0;
}

#endif
