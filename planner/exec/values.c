/* Values the graph does not carry: constants without data and graph inputs
 * nobody set, drawn from a stream seeded by (seed, tensor name); and the
 * statistics and checksum `fusionplan run` prints. */
#include <math.h>
#include <string.h>

#include "planner/exec/exec.h"
#include "planner/util/rng.h"

int64_t lf_shape_count(lf_shape s)
{
    return s.n * s.c * s.h * s.w;
}

static uint64_t lf__fnv1a(const void *p, size_t n, uint64_t h)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

#define LF__FNV_OFFSET 0xcbf29ce484222325ull

void lf_exec_fill(uint64_t seed, const char *name, lf_value_role role, int64_t fan_in, float *out,
                  int64_t count)
{
    lf_rng r;
    lf_rng_seed(&r, seed, lf__fnv1a(name ? name : "", name ? strlen(name) : 0, LF__FNV_OFFSET));
    double lo = -1.0, hi = 1.0;
    switch (role) {
    case LF_VALUE_WEIGHT: {
        /* Variance 1/fan_in: a ReLU halves the signal's power and a residual
         * add doubles it, so deep networks neither vanish nor overflow. */
        double b = sqrt(3.0 / (double)(fan_in > 0 ? fan_in : 1));
        lo = -b;
        hi = b;
        break;
    }
    case LF_VALUE_BIAS:
        lo = -0.1;
        hi = 0.1;
        break;
    case LF_VALUE_SCALE:
    case LF_VALUE_VARIANCE:
        lo = 0.5;
        hi = 1.5;
        break;
    case LF_VALUE_INDEX: /* token ids: whole numbers below the table's rows */
        for (int64_t i = 0; i < count; i++)
            out[i] = (float)lf_rng_below(&r, (uint32_t)(fan_in > 0 ? fan_in : 1));
        return;
    default:
        break;
    }
    for (int64_t i = 0; i < count; i++)
        out[i] = (float)(lo + (hi - lo) * lf_rng_uniform(&r));
}

uint64_t lf_exec_checksum(const float *data, int64_t count)
{
    return lf__fnv1a(data, (size_t)count * sizeof *data, LF__FNV_OFFSET);
}

void lf_tensor_stats_of(const float *data, int64_t count, lf_tensor_stats *s)
{
    memset(s, 0, sizeof *s);
    s->count = count;
    s->min = INFINITY;
    s->max = -INFINITY;
    double sum = 0.0, sq = 0.0;
    int64_t finite = 0;
    for (int64_t i = 0; i < count; i++) {
        float v = data[i];
        if (isnan(v)) {
            s->n_nan++;
            continue;
        }
        if (isinf(v)) {
            s->n_inf++;
            continue;
        }
        finite++;
        sum += v;
        sq += (double)v * v;
        if (v < s->min)
            s->min = v;
        if (v > s->max)
            s->max = v;
    }
    if (!finite)
        s->min = s->max = NAN;
    s->mean = finite ? sum / (double)finite : NAN;
    s->l2 = sqrt(sq);
    s->checksum = lf_exec_checksum(data, count);
}
