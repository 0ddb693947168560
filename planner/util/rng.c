/* xoshiro256** (Blackman and Vigna, "Scrambled linear pseudorandom number
 * generators", 2018) seeded through splitmix64. Everything that decides a
 * plan uses only 64-bit integer arithmetic, so sequences are bit-identical on
 * every platform; only lf_rng_uniform/lf_rng_normal touch floating point. */
#include "planner/util/rng.h"

#include <math.h>

/* The splitmix64 output function: a bijection on 64-bit words with full
 * avalanche. Being a bijection is what lets lf_rng_mix stay injective in
 * each argument separately. */
static uint64_t lf__fmix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* splitmix64: a Weyl sequence with step 2^64/phi passed through fmix64. */
static uint64_t lf__splitmix64(uint64_t *x)
{
    *x += 0x9e3779b97f4a7c15ull;
    return lf__fmix64(*x);
}

static uint64_t lf__rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t lf_rng_mix(uint64_t a, uint64_t b)
{
    /* b is hashed before the xor so that related pairs such as (a, b) and
     * (b, a) or (a + 1, b - 1) give unrelated results. For a fixed b the result
     * is a bijection of a and vice versa, so distinct stream ids of one seed
     * never share a starting state. */
    return lf__fmix64(a ^ lf__fmix64(b + 0x9e3779b97f4a7c15ull));
}

void lf_rng_seed(lf_rng *r, uint64_t seed, uint64_t stream)
{
    /* Four consecutive splitmix64 outputs are distinct (fmix64 is a bijection
     * on distinct counters), so the state can never be all zero, the one
     * state xoshiro must avoid. */
    uint64_t x = lf_rng_mix(seed, stream);
    for (int i = 0; i < 4; i++)
        r->s[i] = lf__splitmix64(&x);
}

uint64_t lf_rng_next(lf_rng *r)
{
    uint64_t *s = r->s;
    const uint64_t result = lf__rotl(s[1] * 5, 7) * 9;
    const uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = lf__rotl(s[3], 45);
    return result;
}

uint32_t lf_rng_below(lf_rng *r, uint32_t n)
{
    if (n == 0)
        return 0;
    /* Lemire's multiply-and-reject ("Fast random integer generation in an
     * interval", 2019): the high word of x * n is uniform in [0, n) once the
     * low words that would over-represent some values are rejected. The
     * modulo runs only on the rare path. Uses the high 32 bits of the output,
     * which are the best-mixed. */
    uint64_t m = (lf_rng_next(r) >> 32) * (uint64_t)n;
    uint32_t low = (uint32_t)m;
    if (low < n) {
        const uint32_t threshold = (uint32_t)(-n) % n; /* 2^32 mod n */
        while (low < threshold) {
            m = (lf_rng_next(r) >> 32) * (uint64_t)n;
            low = (uint32_t)m;
        }
    }
    return (uint32_t)(m >> 32);
}

double lf_rng_uniform(lf_rng *r)
{
    /* The top 53 bits scaled by 2^-53: exact in a double, never 1.0. */
    return (double)(lf_rng_next(r) >> 11) * 0x1.0p-53;
}

int lf_rng_bernoulli(lf_rng *r, double p)
{
    /* uniform < p is 0 for p <= 0 and 1 for p >= 1, and one draw is consumed
     * either way so later draws do not depend on p. */
    return lf_rng_uniform(r) < p;
}

double lf_rng_normal(lf_rng *r)
{
    /* Marsaglia's polar method rather than Box-Muller: it needs only sqrt
     * (correctly rounded by IEEE 754) and log, not sin/cos, whose results vary
     * more between libm versions. The second variate is discarded because the
     * generator struct has no room to cache it; the cost is one extra draw. */
    for (;;) {
        const double u = 2.0 * lf_rng_uniform(r) - 1.0;
        const double v = 2.0 * lf_rng_uniform(r) - 1.0;
        const double s = u * u + v * v;
        if (s > 0.0 && s < 1.0)
            return u * sqrt(-2.0 * log(s) / s);
    }
}

void lf_rng_shuffle_i32(lf_rng *r, int32_t *v, int32_t n)
{
    /* Fisher-Yates from the back: position i swaps with a uniform j <= i. */
    for (int32_t i = n - 1; i > 0; i--) {
        const int32_t j = (int32_t)lf_rng_below(r, (uint32_t)i + 1u);
        const int32_t tmp = v[i];
        v[i] = v[j];
        v[j] = tmp;
    }
}
