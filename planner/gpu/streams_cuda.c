/* What a stage run (opcost_cuda.c, lf_gpu_stage_latency) and a whole
 * schedule run (schedrun_cuda.c) share: the list of ops prepared on the
 * device, a group's ops enqueued on its stream, and the streams with their
 * end-of-group events (built only with LF_HAVE_CUDA; DESIGN §12). */
#include <string.h>

#include "planner/gpu/oprun_internal.h"

lf_status lf__streams_create(lf__streams *st, int32_t n, const lf__gpu_ctx *base, size_t ws_bytes)
{
    memset(st, 0, sizeof *st);
    if (n < 1 || n > LF__MAX_STREAMS)
        return lf_set_error(LF_EINVAL, "GPU run: %d streams (1 to %d)", (int)n, LF__MAX_STREAMS);
    if (ws_bytes > base->ws_bytes)
        ws_bytes = base->ws_bytes; /* no runner's algorithm needs more */
    cudaError_t e = cudaSuccess;
    const char *what = "stream creation";
    for (int32_t i = 0; i < n && e == cudaSuccess; i++) {
        st->n = i + 1; /* destroy sees the partly made one too */
        st->ctx[i] = *base;
        if (i > 0) { /* stream 0 keeps the profiler's workspace */
            st->ctx[i].workspace = NULL;
            st->ctx[i].ws_bytes = ws_bytes;
            if (ws_bytes > 0 && (e = cudaMalloc(&st->ctx[i].workspace, ws_bytes)) != cudaSuccess) {
                st->ctx[i].workspace = NULL;
                what = "workspace allocation for a stream";
                break;
            }
        }
        /* non-blocking: no implicit synchronisation with the legacy default stream */
        if ((e = cudaStreamCreateWithFlags(&st->s[i], cudaStreamNonBlocking)) != cudaSuccess)
            st->s[i] = NULL;
        else if ((e = cudaEventCreateWithFlags(&st->done[i], cudaEventDisableTiming)) != cudaSuccess)
            st->done[i] = NULL;
    }
    if (e != cudaSuccess) {
        lf__streams_destroy(st);
        return lf_set_error(LF_EIO, "GPU %s failed: %s", what, cudaGetErrorString(e));
    }
    return LF_OK;
}

void lf__streams_destroy(lf__streams *st)
{
    if (st->n > 0) {
        cudaDeviceSynchronize(); /* nothing may still run on them (errors are the caller's already) */
        /* The streams share the profiler's cuDNN and cuBLAS handles, which keep
         * the last stream set on them: point them back at the default stream
         * before that stream is destroyed, or the next cudnnFind... on the
         * handle runs on a dead stream (a crash inside libcuda). */
        cudnnSetStream(st->ctx[0].dnn, NULL);
        if (st->ctx[0].blas)
            st->ctx[0].cublas.set_stream(st->ctx[0].blas, NULL);
    }
    for (int32_t i = 0; i < st->n; i++) {
        if (st->done[i])
            cudaEventDestroy(st->done[i]);
        if (st->s[i])
            cudaStreamDestroy(st->s[i]);
        if (i > 0 && st->ctx[i].workspace)
            cudaFree(st->ctx[i].workspace);
    }
    memset(st, 0, sizeof *st);
}

size_t lf__ops_workspace(const lf__oprun *runs, int32_t n)
{
    size_t ws = 0;
    for (int32_t i = 0; i < n; i++)
        if (runs[i].kind == LF__RUN_CONV && runs[i].algo_ws > ws)
            ws = runs[i].algo_ws;
    return ws;
}

lf_status lf__ops_runnable(const lf_graph *g, const int32_t *ops, int32_t n, const char *what)
{
    for (int32_t i = 0; i < n; i++)
        if (ops[i] < 0 || ops[i] >= g->n_ops || !lf_gpu_op_measurable(g, ops[i]))
            return lf_set_error(LF_EUNSUPPORTED, "%s: op %s cannot be run on the GPU", what,
                                ops[i] >= 0 && ops[i] < g->n_ops && g->ops[ops[i]].name ? g->ops[ops[i]].name
                                                                                         : "(out of range)");
    return LF_OK;
}

lf_status lf__ops_prepare(lf__gpu_ctx *ctx, const lf_graph *g, const int32_t *ops, int32_t n, lf__oprun *runs)
{
    memset(runs, 0, sizeof *runs * (size_t)(n > 0 ? n : 0));
    for (int32_t i = 0; i < n; i++) {
        lf_status st = lf__oprun_prepare(ctx, g, ops[i], &runs[i]); /* releases runs[i] itself on failure */
        if (st) {
            lf__ops_release(runs, i);
            return st;
        }
    }
    return LF_OK;
}

void lf__ops_release(lf__oprun *runs, int32_t n)
{
    for (int32_t i = 0; i < n; i++)
        lf__oprun_release(&runs[i]);
}

lf_status lf__ops_enqueue(lf__gpu_ctx *ctx, lf__oprun *runs, int32_t from, int32_t to, cudaStream_t s)
{
    for (int32_t i = from; i < to; i++) {
        lf_status st = lf__oprun_enqueue(ctx, &runs[i], s);
        if (st)
            return st;
    }
    return LF_OK;
}
