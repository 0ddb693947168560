/* cuBLAS, loaded when the first profiler opens instead of at program start
 * (built only with LF_HAVE_CUDA). libcublas pulls in libcublasLt, half a
 * gigabyte whose relocation costs every fusionplan process about 0.7 s at
 * start-up; only `profile` and the measured time objective need it. The
 * function pointer types are checked against cublas_v2.h at compile time,
 * without referencing the symbols. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "planner/gpu/oprun_internal.h"

#define LF__STR2(x) #x
#define LF__STR(x) LF__STR2(x)
#define LF__CUBLAS_SONAME "libcublas.so." LF__STR(CUBLAS_VER_MAJOR)

/* Compile-time signature checks: sizeof does not evaluate its operand. */
static inline int lf__chk_create(lf__cublas_create_fn f) { return f != NULL; }
static inline int lf__chk_destroy(lf__cublas_destroy_fn f) { return f != NULL; }
static inline int lf__chk_stream(lf__cublas_stream_fn f) { return f != NULL; }
static inline int lf__chk_sgemm(lf__cublas_sgemm_fn f) { return f != NULL; }
static inline int lf__chk_batched(lf__cublas_batched_fn f) { return f != NULL; }
static inline int lf__chk_string(lf__cublas_string_fn f) { return f != NULL; }
enum {
    LF__CUBLAS_TYPES_MATCH = sizeof(lf__chk_create(cublasCreate_v2)) + sizeof(lf__chk_destroy(cublasDestroy_v2)) +
                             sizeof(lf__chk_stream(cublasSetStream_v2)) + sizeof(lf__chk_sgemm(cublasSgemm_v2)) +
                             sizeof(lf__chk_batched(cublasSgemmStridedBatched)) +
                             sizeof(lf__chk_string(cublasGetStatusString))
};

static void *lf__sym(void *lib, const char *name, int *missing)
{
    void *p = dlsym(lib, name);
    if (!p)
        *missing = 1;
    return p;
}

lf_status lf__cublas_open(lf__cublas *b)
{
    memset(b, 0, sizeof *b);
    const char *tried[] = {LF__CUBLAS_SONAME,
#ifdef LF_CUBLAS_DIR
                           LF_CUBLAS_DIR "/" LF__CUBLAS_SONAME,
#endif
                           "libcublas.so"};
    for (size_t i = 0; i < sizeof tried / sizeof tried[0] && !b->lib; i++)
        b->lib = dlopen(tried[i], RTLD_NOW | RTLD_LOCAL);
    if (!b->lib) {
        const char *why = dlerror();
        return lf_set_error(LF_ENOSYS, "cuBLAS could not be loaded (%s): %s", LF__CUBLAS_SONAME, why ? why : "?");
    }
    int missing = 0;
    /* POSIX: a data pointer from dlsym converts to a function pointer through memcpy */
    void *p[6] = {lf__sym(b->lib, "cublasCreate_v2", &missing), lf__sym(b->lib, "cublasDestroy_v2", &missing),
                  lf__sym(b->lib, "cublasSetStream_v2", &missing), lf__sym(b->lib, "cublasSgemm_v2", &missing),
                  lf__sym(b->lib, "cublasSgemmStridedBatched", &missing),
                  lf__sym(b->lib, "cublasGetStatusString", &missing)};
    if (missing) {
        lf__cublas_close(b);
        return lf_set_error(LF_ENOSYS, "cuBLAS (%s) lacks a function fusionplan needs", LF__CUBLAS_SONAME);
    }
    memcpy(&b->create, &p[0], sizeof p[0]);
    memcpy(&b->destroy, &p[1], sizeof p[1]);
    memcpy(&b->set_stream, &p[2], sizeof p[2]);
    memcpy(&b->sgemm, &p[3], sizeof p[3]);
    memcpy(&b->sgemm_batched, &p[4], sizeof p[4]);
    memcpy(&b->status_string, &p[5], sizeof p[5]);
    return LF_OK;
}

void lf__cublas_close(lf__cublas *b)
{
    if (b->lib)
        dlclose(b->lib);
    memset(b, 0, sizeof *b);
}
