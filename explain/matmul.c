/* Small dense kernels for the GNN. The matrices are at most a few hundred
 * rows by 128 columns, so a plain loop order whose innermost loop runs along
 * contiguous rows (and vectorizes) is enough; no BLAS. Zero entries of the
 * left operand are skipped: after a ReLU about half of them are zero, and
 * skipping an exact zero does not change the result. Every kernel sums in a
 * fixed order, which the training's determinism relies on. */
#include "explain/layers.h"
#include "explain/vector_clones.h"

#include <stdlib.h>
#include <string.h>

/* Eight floats, and the same read or written at any float-aligned address
 * (a view for loads and stores, never passed by value: that would change the
 * ABI between the clones). Dereferencing it is one unaligned vector move;
 * a memcpy was split into two 16-byte halves under the generic tuning. */
typedef float lf__v8 __attribute__((vector_size(32)));
typedef float lf__v8u __attribute__((vector_size(32), aligned(4), may_alias));

/* Room a term list needs past k: the SSE2 scan stores four indices at once. */
enum { LF__TERMS_SLACK = 4 };

#if defined(__SSE2__)
#include <emmintrin.h>
/* For a 4-bit mask, the positions of its set bits (then padding) and their
 * number. */
static const int32_t lf__bit_pos[16][4] __attribute__((aligned(16))) = {
    {0, 0, 0, 0}, {0, 0, 0, 0}, {1, 0, 0, 0}, {0, 1, 0, 0}, {2, 0, 0, 0}, {0, 2, 0, 0},
    {1, 2, 0, 0}, {0, 1, 2, 0}, {3, 0, 0, 0}, {0, 3, 0, 0}, {1, 3, 0, 0}, {0, 1, 3, 0},
    {2, 3, 0, 0}, {0, 2, 3, 0}, {1, 2, 3, 0}, {0, 1, 2, 3}};
static const int32_t lf__bit_count[16] = {0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4};
#endif

/* Lists the p with a[p] != 0 in ascending order into terms (k +
 * LF__TERMS_SLACK entries); returns how many. Without a branch per element:
 * after a ReLU the zeros fall at random, and a branch on each mispredicts
 * half the time (this scan cost more than the products it saves). */
__attribute__((always_inline)) static inline int32_t lf__nonzeros(const float *a, int32_t k,
                                                                  int32_t *terms)
{
    int32_t nt = 0, p = 0;
#if defined(__SSE2__)
    const __m128 zero = _mm_setzero_ps();
    for (; p + 4 <= k; p += 4) {
        int bits = _mm_movemask_ps(_mm_cmpneq_ps(_mm_loadu_ps(a + p), zero));
        __m128i at = _mm_add_epi32(_mm_set1_epi32(p),
                                   _mm_load_si128((const __m128i *)lf__bit_pos[bits]));
        _mm_storeu_si128((__m128i *)(terms + nt), at);
        nt += lf__bit_count[bits];
    }
#endif
    for (; p < k; p++) {
        terms[nt] = p;
        nt += a[p] != 0.0f;
    }
    return nt;
}

/* Row i, columns j .. j+8*NV-1 of C += A B over row i's own non-zero terms:
 * the NV vectors of C stay in registers over the whole sum, and no row pays
 * for another row's non-zeros (after a ReLU, rows are ~88% zeros, but which
 * ones differs from row to row: a block of four rows shares only a fifth of
 * its zeros). Each element gets its terms one multiply and one add at a
 * time in ascending p, skipping zeros: lf_mm_nn_ref's sums, bit for bit. */
#define LF__ROW_KERNEL(NV)                                                                        \
    __attribute__((always_inline)) static inline void lf__mm_row_##NV(                          \
        int32_t n, const float *ai, const float *b, const float *init, float *ci,               \
        const int32_t *terms, int32_t n_terms)                                                   \
    {                                                                                            \
        lf__v8 x[NV];                                                                            \
        for (int v = 0; v < NV; v++) {                                                           \
            if (init)                                                                            \
                x[v] = *(const lf__v8u *)(init + 8 * v);                                         \
            else                                                                                 \
                x[v] = (lf__v8){0};                                                              \
        }                                                                                        \
        for (int32_t t = 0; t < n_terms; t++) {                                                  \
            int32_t p = terms[t];                                                                \
            float s = ai[p];                                                                     \
            const lf__v8u *bp = (const lf__v8u *)(b + (int64_t)p * n);                           \
            for (int v = 0; v < NV; v++)                                                         \
                x[v] += s * bp[v];                                                               \
        }                                                                                        \
        for (int v = 0; v < NV; v++)                                                             \
            *(lf__v8u *)(ci + 8 * v) = x[v];                                                     \
    }
LF__ROW_KERNEL(8)
LF__ROW_KERNEL(4)
LF__ROW_KERNEL(1)

/* Row i of C = Init + A B over its terms, every column: 64, 32 and 8 at a
 * time. Init is the row the sums start from (ci itself to accumulate, the
 * bias, or NULL for zeros; read before ci is written). Columns past the last
 * multiple of 8 (n = 35: the first layer's width) are redone as the last 8
 * columns, started again from Init's values (saved in `keep`): the columns
 * the two passes share get the same bits twice, and no column goes through
 * a scalar loop. */
__attribute__((always_inline)) static inline void lf__mm_row(int32_t n, const float *ai,
                                                             const float *b, const float *init,
                                                             float *ci, const int32_t *terms,
                                                             int32_t nt)
{
    float keep[8];
    if (n % 8 != 0 && n > 8) {
        if (init)
            memcpy(keep, init + n - 8, sizeof keep);
        else
            memset(keep, 0, sizeof keep);
    }
    int32_t j = 0;
    for (; j + 64 <= n; j += 64)
        lf__mm_row_8(n, ai, b + j, init ? init + j : NULL, ci + j, terms, nt);
    if (j + 32 <= n) {
        lf__mm_row_4(n, ai, b + j, init ? init + j : NULL, ci + j, terms, nt);
        j += 32;
    }
    for (; j + 8 <= n; j += 8)
        lf__mm_row_1(n, ai, b + j, init ? init + j : NULL, ci + j, terms, nt);
    if (j < n && n > 8) {
        lf__mm_row_1(n, ai, b + n - 8, keep, keep, terms, nt);
        memcpy(ci + n - 8, keep, sizeof keep);
    } else {
        for (; j < n; j++) {
            float x = init ? init[j] : 0.0f;
            for (int32_t t = 0; t < nt; t++)
                x += ai[terms[t]] * b[(int64_t)terms[t] * n + j];
            ci[j] = x;
        }
    }
}

enum { LF__MAX_TERMS = 512 };

/* C = Init + A B, Init the rows of C (accumulate), every row `bias`, or
 * zeros (both NULL). */
__attribute__((always_inline)) static inline void lf__mm(int32_t m, int32_t n, int32_t k,
                                                         const float *a, const float *b,
                                                         const float *bias, int accumulate,
                                                         float *c)
{
    int32_t terms[LF__MAX_TERMS + LF__TERMS_SLACK];
    for (int32_t i = 0; i < m; i++) {
        const float *ai = a + (int64_t)i * k;
        float *ci = c + (int64_t)i * n;
        const float *init = accumulate ? ci : bias;
        int32_t nt = lf__nonzeros(ai, k, terms);
        if (nt > 0)
            lf__mm_row(n, ai, b, init, ci, terms, nt);
        else if (!init)
            memset(ci, 0, sizeof(float) * (size_t)n);
        else if (init != ci)
            memcpy(ci, init, sizeof(float) * (size_t)n);
    }
}

LF_VECTOR_CLONES
void lf_mm_nn(int32_t m, int32_t n, int32_t k, const float *a, const float *b, float *c,
              int accumulate)
{
    if (k > LF__MAX_TERMS)
        lf_mm_nn_ref(m, n, k, a, b, c, accumulate);
    else
        lf__mm(m, n, k, a, b, NULL, accumulate, c);
}

LF_VECTOR_CLONES
void lf_mm_nn_bias(int32_t m, int32_t n, int32_t k, const float *a, const float *b,
                   const float *bias, float *c)
{
    if (k > LF__MAX_TERMS) {
        for (int32_t i = 0; i < m; i++)
            memcpy(c + (int64_t)i * n, bias, sizeof(float) * (size_t)n);
        lf_mm_nn_ref(m, n, k, a, b, c, 1);
    } else {
        lf__mm(m, n, k, a, b, bias, 0, c);
    }
}

LF_VECTOR_CLONES
void lf_mm_nn_pair(int32_t m, int32_t k, const float *a, int32_t n1, const float *b1, float *c1,
                   int32_t n2, const float *b2, float *c2)
{
    if (k > LF__MAX_TERMS) {
        lf_mm_nn_ref(m, n1, k, a, b1, c1, 0);
        lf_mm_nn_ref(m, n2, k, a, b2, c2, 0);
        return;
    }
    int32_t terms[LF__MAX_TERMS + LF__TERMS_SLACK];
    for (int32_t i = 0; i < m; i++) {
        const float *ai = a + (int64_t)i * k;
        float *r1 = c1 + (int64_t)i * n1, *r2 = c2 + (int64_t)i * n2;
        int32_t nt = lf__nonzeros(ai, k, terms);
        if (nt == 0) {
            memset(r1, 0, sizeof(float) * (size_t)n1);
            memset(r2, 0, sizeof(float) * (size_t)n2);
            continue;
        }
        lf__mm_row(n1, ai, b1, NULL, r1, terms, nt);
        lf__mm_row(n2, ai, b2, NULL, r2, terms, nt);
    }
}

/* The plain row-update form, kept as the reference the blocked kernel is
 * tested against (tests/test_gnn.c). */
void lf_mm_nn_ref(int32_t m, int32_t n, int32_t k, const float *a, const float *b, float *c,
                  int accumulate)
{
    if (!accumulate)
        memset(c, 0, sizeof(float) * (size_t)m * (size_t)n);
    for (int32_t i = 0; i < m; i++) {
        float *ci = c + (int64_t)i * n;
        const float *ai = a + (int64_t)i * k;
        for (int32_t p = 0; p < k; p++) {
            float s = ai[p];
            if (s == 0.0f)
                continue;
            const float *bp = b + (int64_t)p * n;
            for (int32_t j = 0; j < n; j++)
                ci[j] += s * bp[j];
        }
    }
}

LF_VECTOR_CLONES
void lf_mm_tn_acc(int32_t m, int32_t n, int32_t k, const float *a, const float *b, float *c)
{
    for (int32_t i = 0; i < m; i++) {
        const float *ai = a + (int64_t)i * k;
        const float *bi = b + (int64_t)i * n;
        for (int32_t p = 0; p < k; p++) {
            float s = ai[p];
            if (s == 0.0f)
                continue;
            float *cp = c + (int64_t)p * n;
            for (int32_t j = 0; j < n; j++)
                cp[j] += s * bi[j];
        }
    }
}

/* In square tiles: a plain element loop writes (or reads) with a stride of
 * a whole row, one cache line per element, and would cost more than the
 * product it prepares when the left operand has few rows (a small group). */
void lf_mm_transpose(int32_t rows, int32_t cols, const float *b, float *bt)
{
    enum { TILE = 16 };
    for (int32_t p0 = 0; p0 < rows; p0 += TILE) {
        int32_t p1 = p0 + TILE < rows ? p0 + TILE : rows;
        for (int32_t j0 = 0; j0 < cols; j0 += TILE) {
            int32_t j1 = j0 + TILE < cols ? j0 + TILE : cols;
            for (int32_t p = p0; p < p1; p++)
                for (int32_t j = j0; j < j1; j++)
                    bt[(int64_t)j * rows + p] = b[(int64_t)p * cols + j];
        }
    }
}

LF_VECTOR_CLONES
void lf_mm_nt(int32_t m, int32_t n, int32_t k, const float *a, const float *b, float *c)
{
    /* c[i][p] = sum_j a[i][j] b[p][j], summed over j in ascending order, as
     * row updates c[i][:] += a[i][j] * b^T[j][:]: contiguous, vectorizable,
     * and zero entries of a (half of a gradient after a ReLU) are skipped.
     * b^T is built once per call; without memory the same sums read b with
     * a stride, so the result is the same either way. */
    float *bt = malloc(sizeof(float) * (size_t)n * (size_t)k);
    if (bt)
        lf_mm_transpose(k, n, b, bt);
    for (int32_t i = 0; i < m; i++) {
        const float *ai = a + (int64_t)i * n;
        float *ci = c + (int64_t)i * k;
        memset(ci, 0, sizeof(float) * (size_t)k);
        for (int32_t j = 0; j < n; j++) {
            float s = ai[j];
            if (s == 0.0f)
                continue;
            if (bt) {
                const float *bj = bt + (int64_t)j * k;
                for (int32_t p = 0; p < k; p++)
                    ci[p] += s * bj[p];
            } else {
                for (int32_t p = 0; p < k; p++)
                    ci[p] += s * b[(int64_t)p * n + j];
            }
        }
    }
    free(bt);
}
