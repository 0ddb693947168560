/* Checked int64 arithmetic for sizes and shapes that come from files: a
 * hostile model can put INT64_MAX into any dimension, step or pad, and
 * signed overflow is undefined behaviour. Each helper stores the exact
 * result and returns 1, or returns 0 when it does not fit (with *r then
 * unspecified). Built on the compiler's overflow builtins (GCC, Clang). */
#ifndef LF_CHECKED_H
#define LF_CHECKED_H

#include <stdint.h>

static inline int lf_add_i64(int64_t a, int64_t b, int64_t *r) { return !__builtin_add_overflow(a, b, r); }
static inline int lf_sub_i64(int64_t a, int64_t b, int64_t *r) { return !__builtin_sub_overflow(a, b, r); }
static inline int lf_mul_i64(int64_t a, int64_t b, int64_t *r) { return !__builtin_mul_overflow(a, b, r); }

/* ceil(a / b) for a >= 0, b > 0, without the a + b - 1 that overflows. */
static inline int64_t lf_ceil_div_i64(int64_t a, int64_t b) { return a / b + (a % b != 0); }

#endif
