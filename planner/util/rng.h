/* Seedable random numbers with independent streams.
 *
 * Deterministic across platforms and thread counts: a stream is a pure
 * function of (seed, stream id), so per-plan or per-group streams can be
 * derived without touching any shared generator. */
#ifndef LF_RNG_H
#define LF_RNG_H

#include <stdint.h>

typedef struct lf_rng {
    uint64_t s[4];
} lf_rng;

/* Seeds the generator for stream `stream` of `seed`. Different (seed, stream)
 * pairs give statistically independent sequences. */
void lf_rng_seed(lf_rng *r, uint64_t seed, uint64_t stream);

/* Derives a stream id from several integers (for example a plan index and a
 * group hash), so callers need not invent their own mixing. */
uint64_t lf_rng_mix(uint64_t a, uint64_t b);

uint64_t lf_rng_next(lf_rng *r);            /* 64 uniform bits */
uint32_t lf_rng_below(lf_rng *r, uint32_t n); /* uniform in [0, n), unbiased; 0 when n == 0 */
double lf_rng_uniform(lf_rng *r);          /* uniform in [0, 1) with 53 bits */
int lf_rng_bernoulli(lf_rng *r, double p); /* 1 with probability p */
double lf_rng_normal(lf_rng *r);           /* standard normal */
void lf_rng_shuffle_i32(lf_rng *r, int32_t *v, int32_t n); /* Fisher-Yates */

#endif
