/* Internal to the CUDA profiler (opcost_cuda.c, oprun_cuda.c, streams_cuda.c,
 * schedrun_cuda.c): one op of a graph prepared to run alone on the device
 * (buffers, descriptors, the convolution algorithm), then enqueued on any
 * stream as often as needed; the profiler itself; streams and op lists
 * shared by stage and schedule runs. */
#ifndef LF_GPU_OPRUN_INTERNAL_H
#define LF_GPU_OPRUN_INTERNAL_H

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include "planner/gpu/opcost.h"
#include "planner/graph.h"
#include "planner/status.h"
#include "planner/util/hashmap.h"
#include "planner/util/mutex.h"

/* cuBLAS through dlopen (cublas_load.c): the entry points fusionplan calls. */
typedef cublasStatus_t (*lf__cublas_create_fn)(cublasHandle_t *handle);
typedef cublasStatus_t (*lf__cublas_destroy_fn)(cublasHandle_t handle);
typedef cublasStatus_t (*lf__cublas_stream_fn)(cublasHandle_t handle, cudaStream_t stream);
typedef cublasStatus_t (*lf__cublas_sgemm_fn)(cublasHandle_t handle, cublasOperation_t ta, cublasOperation_t tb,
                                              int m, int n, int k, const float *alpha, const float *A, int lda,
                                              const float *B, int ldb, const float *beta, float *C, int ldc);
typedef cublasStatus_t (*lf__cublas_batched_fn)(cublasHandle_t handle, cublasOperation_t ta, cublasOperation_t tb,
                                                int m, int n, int k, const float *alpha, const float *A, int lda,
                                                long long int strideA, const float *B, int ldb,
                                                long long int strideB, const float *beta, float *C, int ldc,
                                                long long int strideC, int batchCount);
typedef const char *(*lf__cublas_string_fn)(cublasStatus_t status);

typedef struct lf__cublas {
    void *lib;
    lf__cublas_create_fn create;
    lf__cublas_destroy_fn destroy;
    lf__cublas_stream_fn set_stream;
    lf__cublas_sgemm_fn sgemm;
    lf__cublas_batched_fn sgemm_batched;
    lf__cublas_string_fn status_string;
} lf__cublas;

/* Loads libcublas.so.MAJOR (the runpath, then the toolkit's folder found at
 * configure time); LF_ENOSYS with dlerror's reason when it cannot. */
lf_status lf__cublas_open(lf__cublas *b);
void lf__cublas_close(lf__cublas *b); /* safe on a zeroed or failed one */

/* Library handles shared by the runners of one profiler, and a convolution
 * workspace. Concurrent streams must not share a workspace: some cuDNN
 * algorithms keep precomputed indices there, which another kernel would
 * overwrite, so each stream of a stage gets its own (lf__streams). */
typedef struct lf__gpu_ctx {
    cudnnHandle_t dnn;
    lf__cublas cublas;
    cublasHandle_t blas;
    void *workspace;
    size_t ws_bytes;
    /* The algorithm cudnnFind... chose for each convolution configuration
     * (lf__conv_choice values; NULL: no memo). Finding one runs every
     * algorithm, milliseconds a convolution: a measured DOS search prepares
     * the same convolutions in thousands of stages. */
    lf_strmap *conv_algos;
} lf__gpu_ctx;

typedef struct lf__conv_choice {
    cudnnConvolutionFwdAlgo_t algo;
    size_t ws;
} lf__conv_choice;

#define LF__RUN_MAX_BUFS 70 /* operands (Concat: up to 64) + output + BatchNorm/bias extras */
#define LF__RUN_MAX_DESCS 4

typedef enum lf__run_kind {
    LF__RUN_CONV = 1,
    LF__RUN_GEMM,
    LF__RUN_MATMUL,
    LF__RUN_BATCHNORM,
    LF__RUN_ACTIVATION,
    LF__RUN_SQRT,
    LF__RUN_BINARY,
    LF__RUN_POOL,
    LF__RUN_SOFTMAX,
    LF__RUN_CONCAT
} lf__run_kind;

typedef struct lf__oprun {
    lf__run_kind kind;
    void *buf[LF__RUN_MAX_BUFS]; /* device memory, owned */
    int32_t n_buf;
    void *out;                   /* one of buf */
    cudnnTensorDescriptor_t t[LF__RUN_MAX_DESCS];
    cudnnFilterDescriptor_t w;
    cudnnConvolutionDescriptor_t conv;
    cudnnActivationDescriptor_t act; /* conv and Gemm epilogue, or the activation op */
    cudnnPoolingDescriptor_t pool;
    cudnnOpTensorDescriptor_t optensor;
    cudnnConvolutionFwdAlgo_t algo;
    size_t algo_ws;
    float alpha2;                /* binary ops: B's factor (-1 for Sub) */
    int32_t has_bias;
    int32_t softmax_mode, softmax_algo;
    double epsilon;
    /* cuBLAS: C = op(A) x op(B), batched */
    int32_t m, n, k, batch, lda, ldb;
    long long stride_a, stride_b;
    cublasOperation_t op_a, op_b;
    /* Concat along channels: copies of n rows */
    int32_t n_parts;
    size_t part_bytes[64], part_offset[64], row_bytes, rows;
} lf__oprun;

/* Prepares op v (which lf_gpu_op_measurable accepts): allocates and fills
 * its operands, creates descriptors, picks the conv algorithm with
 * cudnnFindConvolutionForwardAlgorithmEx. r is released on failure. */
lf_status lf__oprun_prepare(lf__gpu_ctx *ctx, const lf_graph *g, int32_t v, lf__oprun *r);
/* Enqueues one run of the op on stream s. */
lf_status lf__oprun_enqueue(lf__gpu_ctx *ctx, lf__oprun *r, cudaStream_t s);
/* Frees everything; safe on a zeroed or partly prepared runner. */
void lf__oprun_release(lf__oprun *r);

/* A merged stage (DESIGN §12, IOS's merge): the convolutions convs[0 .. n),
 * which read one tensor with one stride (the scheduler's merge rule, checked
 * there), as one convolution whose output channels are theirs side by side
 * and whose kernel and padding are the largest; *epi gets the activation op
 * `epilogue` run once over the merged output (epilogue < 0: none, *epi stays
 * zeroed). Both are released on failure. */
lf_status lf__oprun_prepare_merged(lf__gpu_ctx *ctx, const lf_graph *g, const int32_t *convs, int32_t n,
                                   int32_t epilogue, lf__oprun *conv, lf__oprun *epi);

/* The profiler (opcost.h), shared by the files that launch on its device:
 * one op and one stage (opcost_cuda.c), a whole schedule (schedrun_cuda.c). */
struct lf_gpu_profiler {
    int32_t device;
    lf_gpu_device_key key;
    lf_gpu_cache *cache;
    lf__gpu_ctx ctx;
    cudaStream_t stream; /* the launching stream: forks, joins and timing events */
    cudaEvent_t start, stop;
    lf_mutex lock;
    int locked_init;
};

/* streams_cuda.c: what a stage and a schedule share. */
#define LF__MAX_STREAMS 64 /* groups per stage */

/* Non-blocking streams, each with a timing-free event recorded when its
 * group of a stage is done and the context its runners are enqueued with:
 * the profiler's handles, and for stream 0 its workspace, for the others
 * one of their own. */
typedef struct lf__streams {
    int32_t n;
    cudaStream_t s[LF__MAX_STREAMS];
    cudaEvent_t done[LF__MAX_STREAMS];
    lf__gpu_ctx ctx[LF__MAX_STREAMS];
} lf__streams;

/* Creates n (1 .. LF__MAX_STREAMS) streams, their events and, for streams
 * 1 .. n-1, workspaces of ws_bytes (the largest algo_ws of the runners they
 * will run; at most base->ws_bytes); on failure those made are destroyed. */
lf_status lf__streams_create(lf__streams *st, int32_t n, const lf__gpu_ctx *base, size_t ws_bytes);
/* Waits for the device, then destroys them and frees their workspaces;
 * safe on a zeroed or failed set. */
void lf__streams_destroy(lf__streams *st);
/* The largest convolution workspace of runs[0 .. n). */
size_t lf__ops_workspace(const lf__oprun *runs, int32_t n);

/* LF_EUNSUPPORTED naming the op unless every ops[i] is an op of g that the
 * profiler runs (lf_gpu_op_measurable); `what` starts the message. */
lf_status lf__ops_runnable(const lf_graph *g, const int32_t *ops, int32_t n, const char *what);
/* Prepares ops[0 .. n) into runs[0 .. n) (zeroed first); on failure the
 * prepared ones are released. */
lf_status lf__ops_prepare(lf__gpu_ctx *ctx, const lf_graph *g, const int32_t *ops, int32_t n, lf__oprun *runs);
void lf__ops_release(lf__oprun *runs, int32_t n); /* safe on zeroed runners */
/* Enqueues runs[from .. to) one after another on stream s: one group. */
lf_status lf__ops_enqueue(lf__gpu_ctx *ctx, lf__oprun *runs, int32_t from, int32_t to, cudaStream_t s);

#endif
