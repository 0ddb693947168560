/* ONNX Gemm (with alpha, beta, transposes and a broadcast C) and MatMul
 * (batched, numpy broadcasting of the batch axes, optional transposes), both
 * on top of lf__sgemm. */
#include <stdlib.h>

#include "planner/exec/kernels.h"

lf_status lf__gemm(const float *A, int trans_a, const float *B, int trans_b, const float *C,
                   int64_t c_rows, int64_t c_cols, float alpha, float beta, int64_t M, int64_t N,
                   int64_t K, const lf__unary *act, float *Y, int nt)
{
    lf_status st = lf__sgemm_t(M, N, K, A, trans_a ? M : K, trans_a, B, trans_b ? K : N, trans_b, Y, N, 0, nt);
    if (st != LF_OK)
        return st;
    int has_c = C && beta != 0.0f;
    if (alpha != 1.0f || has_c || (act && act->kind != LF__U_IDENTITY)) {
        int64_t rs = c_rows == 1 ? 0 : c_cols, cs = c_cols == 1 ? 0 : 1;
        for (int64_t i = 0; i < M; i++)
            for (int64_t j = 0; j < N; j++) {
                float v = alpha * Y[i * N + j];
                if (has_c)
                    v += beta * C[i * rs + j * cs];
                Y[i * N + j] = act ? lf__unary_apply1(act, v) : v;
            }
    }
    return LF_OK;
}

/* rows x cols row-major -> cols x rows row-major, for each of `batches`
 * matrices (the fallback kernel reads no transposed operand). */
#ifndef LF_HAVE_BLAS
static float *lf__transposed_copy(const float *x, int64_t batches, int64_t rows, int64_t cols)
{
    float *t = malloc((size_t)(batches * rows * cols) * sizeof *t);
    if (!t)
        return NULL;
    for (int64_t b = 0; b < batches; b++)
        for (int64_t i = 0; i < rows; i++)
            for (int64_t j = 0; j < cols; j++)
                t[b * rows * cols + j * rows + i] = x[b * rows * cols + i * cols + j];
    return t;
}
#endif

typedef struct lf__matmul_job {
    const float *a;
    lf__dims ad;
    const float *b;
    lf__dims bd;
    float *Y;
    lf__dims yd;
    int64_t M, N, K;
    int trans_a, trans_b, inner;
} lf__matmul_job;

/* Products lo..hi-1 of the batch. */
static void lf__matmul_range(void *ctx, int64_t lo, int64_t hi)
{
    const lf__matmul_job *j = ctx;
    int64_t M = j->M, N = j->N, K = j->K;
    for (int64_t t = lo; t < hi; t++) {
        int64_t i0 = t / j->yd.d[1], i1 = t % j->yd.d[1];
        int64_t ab = (j->ad.d[0] == 1 ? 0 : i0) * j->ad.d[1] + (j->ad.d[1] == 1 ? 0 : i1);
        int64_t bb = (j->bd.d[0] == 1 ? 0 : i0) * j->bd.d[1] + (j->bd.d[1] == 1 ? 0 : i1);
        /* Only fails making transposed copies, which the transposes set
         * here never need (OpenBLAS reads them in place; the fallback
         * gets copies made before). */
        (void)lf__sgemm_t(M, N, K, j->a + ab * M * K, j->trans_a ? M : K, j->trans_a, j->b + bb * K * N,
                          j->trans_b ? K : N, j->trans_b, j->Y + t * M * N, N, 0, j->inner);
    }
}

lf_status lf__matmul(const float *A, lf__dims ad, int trans_a, const float *B, lf__dims bd,
                     int trans_b, float *Y, lf__dims yd, int nt)
{
    int64_t M = yd.d[2], N = yd.d[3];
    int64_t K = trans_a ? ad.d[2] : ad.d[3];
    int64_t am = trans_a ? ad.d[3] : ad.d[2], bk = trans_b ? bd.d[3] : bd.d[2];
    int64_t bn = trans_b ? bd.d[2] : bd.d[3];
    if (am != M || bk != K || bn != N)
        return lf_set_error(LF_EGRAPH, "MatMul of %lldx%lld by %lldx%lld cannot give %lldx%lld",
                            (long long)am, (long long)K, (long long)bk, (long long)bn, (long long)M,
                            (long long)N);
    for (int i = 0; i < 2; i++)
        if ((ad.d[i] != yd.d[i] && ad.d[i] != 1) || (bd.d[i] != yd.d[i] && bd.d[i] != 1))
            return lf_set_error(LF_EGRAPH, "MatMul batch axis %d: %lld and %lld do not broadcast to %lld",
                                i, (long long)ad.d[i], (long long)bd.d[i], (long long)yd.d[i]);
    int64_t batches = yd.d[0] * yd.d[1];
    /* One B for every batch and A stored batch after batch (a Linear layer
     * on a sequence-first 197 x 1 x 768 input): the batch is M's rows, one
     * product of batches*M rows instead of batches thin ones. */
    if (batches > 1 && bd.d[0] == 1 && bd.d[1] == 1 && !trans_a && ad.d[0] == yd.d[0] && ad.d[1] == yd.d[1])
        return lf__sgemm_t(batches * M, N, K, A, K, 0, B, trans_b ? K : N, trans_b, Y, N, 0, nt);
#ifdef LF_HAVE_BLAS
    /* OpenBLAS reads transposed operands in place, and its products run one
     * at a time (its lock, k_gemm.c): threads would only wait for it. */
    lf__matmul_job j = {A, ad, B, bd, Y, yd, M, N, K, trans_a, trans_b, 1};
    lf__matmul_range(&j, 0, batches);
    return LF_OK;
#else
    float *ta = NULL, *tb = NULL;
    if (trans_a && !(ta = lf__transposed_copy(A, ad.d[0] * ad.d[1], K, M)))
        return lf_set_error(LF_ENOMEM, "out of memory transposing a MatMul operand");
    if (trans_b && !(tb = lf__transposed_copy(B, bd.d[0] * bd.d[1], N, K))) {
        free(ta);
        return lf_set_error(LF_ENOMEM, "out of memory transposing a MatMul operand");
    }
    const float *a = ta ? ta : A, *b = tb ? tb : B;
    /* Many small products (attention heads) run one per thread; few large
     * ones share their tiles. Either way each element's sum is the same. */
    int outer = batches >= nt ? lf__threads_for(batches * M * N * K, nt) : 1;
    int inner = outer > 1 ? 1 : nt;
    lf__matmul_job j = {a, ad, b, bd, Y, yd, M, N, K, 0, 0, inner};
    lf__parallel(batches, outer, lf__matmul_range, &j);
    free(ta);
    free(tb);
    return LF_OK;
#endif
}
