/* Small dense kernels for the GNN. The matrices are at most a few hundred
 * rows by 128 columns, so a plain loop order whose innermost loop runs along
 * contiguous rows (and vectorizes) is enough; no BLAS. Zero entries of the
 * left operand are skipped: after a ReLU about half of them are zero, and
 * skipping an exact zero does not change the result. Every kernel sums in a
 * fixed order, which the training's determinism relies on. */
#include "explain/layers.h"

#include <stdlib.h>
#include <string.h>

/* An AVX2 copy of each kernel next to the baseline one, picked at load time
 * where the CPU has it. Only the vector width differs: every element is
 * still one multiply and one add in the same order (ISO C mode keeps the
 * compiler from fusing them, and the AVX2 target has no FMA), so both copies
 * give bit-identical results. */
/* Not with clang: clang 14 accepts the attribute but emits no symbol for the
 * resolver, so programs that call these functions do not link. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__) && \
    defined(__has_attribute)
#if __has_attribute(target_clones)
#define LF_VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#endif
#endif
#ifndef LF_VECTOR_CLONES
#define LF_VECTOR_CLONES
#endif

/* Eight floats; unaligned loads and stores go through memcpy (macros, not
 * functions: a vector passed by value would change the ABI between the
 * clones). */
typedef float lf__v8 __attribute__((vector_size(32)));
#define LF__LD(v, p) memcpy(&(v), (p), sizeof(lf__v8))
#define LF__ST(p, v) memcpy((p), &(v), sizeof(lf__v8))

/* Rows i .. i+3, columns j .. j+15 of C += A B, the 4 x 16 block of C held
 * in registers over the whole sum instead of loaded and stored once per
 * term. Each element still gets its terms one multiply and one add at a
 * time in ascending p, so the sums are the plain loop's. A term is skipped
 * only when all four rows' a[.][p] are zero; a row that alone has a zero
 * adds 0 * b, which changes nothing but the sign of a zero sum. */
__attribute__((always_inline))
static inline void lf__mm_nn_4x16(int32_t n, int32_t k, const float *a, const float *b, float *c,
                                  int32_t i, int32_t j, const int32_t *terms, int32_t n_terms)
{
    const float *a0 = a + (int64_t)i * k, *a1 = a0 + k, *a2 = a1 + k, *a3 = a2 + k;
    float *c0 = c + (int64_t)i * n + j, *c1 = c0 + n, *c2 = c1 + n, *c3 = c2 + n;
    lf__v8 x00, x01, x10, x11, x20, x21, x30, x31, b0, b1;
    LF__LD(x00, c0);
    LF__LD(x01, c0 + 8);
    LF__LD(x10, c1);
    LF__LD(x11, c1 + 8);
    LF__LD(x20, c2);
    LF__LD(x21, c2 + 8);
    LF__LD(x30, c3);
    LF__LD(x31, c3 + 8);
    (void)k;
    for (int32_t t = 0; t < n_terms; t++) {
        int32_t p = terms[t];
        float s0 = a0[p], s1 = a1[p], s2 = a2[p], s3 = a3[p];
        const float *bp = b + (int64_t)p * n + j;
        LF__LD(b0, bp);
        LF__LD(b1, bp + 8);
        x00 += s0 * b0;
        x01 += s0 * b1;
        x10 += s1 * b0;
        x11 += s1 * b1;
        x20 += s2 * b0;
        x21 += s2 * b1;
        x30 += s3 * b0;
        x31 += s3 * b1;
    }
    LF__ST(c0, x00);
    LF__ST(c0 + 8, x01);
    LF__ST(c1, x10);
    LF__ST(c1 + 8, x11);
    LF__ST(c2, x20);
    LF__ST(c2 + 8, x21);
    LF__ST(c3, x30);
    LF__ST(c3 + 8, x31);
}

LF_VECTOR_CLONES
void lf_mm_nn(int32_t m, int32_t n, int32_t k, const float *a, const float *b, float *c,
              int accumulate)
{
    if (!accumulate)
        memset(c, 0, sizeof(float) * (size_t)m * (size_t)n);
    enum { MAX_TERMS = 512 };
    int32_t terms[MAX_TERMS];
    /* Operands after a ReLU are mostly zeros: each block of four rows lists
     * once the terms p where one of its rows is non-zero, and every column
     * block of those rows walks that list. */
    int32_t m4 = k <= MAX_TERMS ? m - m % 4 : 0, n16 = n - n % 16;
    for (int32_t i = 0; i < m4 && n16 > 0; i += 4) {
        const float *a0 = a + (int64_t)i * k;
        int32_t nt = 0;
        for (int32_t p = 0; p < k; p++)
            if (a0[p] != 0.0f || a0[k + p] != 0.0f || a0[2 * k + p] != 0.0f ||
                a0[3 * (int64_t)k + p] != 0.0f)
                terms[nt++] = p;
        for (int32_t j = 0; j < n16; j += 16)
            lf__mm_nn_4x16(n, k, a, b, c, i, j, terms, nt);
    }
    /* What the blocks leave: the last columns of the blocked rows, then the
     * last rows, by the plain row-update loop. */
    for (int32_t i = 0; i < m; i++) {
        int32_t j0 = i < m4 && n16 > 0 ? n16 : 0;
        if (j0 == n)
            continue;
        float *ci = c + (int64_t)i * n;
        const float *ai = a + (int64_t)i * k;
        for (int32_t p = 0; p < k; p++) {
            float s = ai[p];
            if (s == 0.0f)
                continue;
            const float *bp = b + (int64_t)p * n;
            for (int32_t j = j0; j < n; j++)
                ci[j] += s * bp[j];
        }
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
