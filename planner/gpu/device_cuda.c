/* Device query through the CUDA runtime and cuDNN (built only with LF_HAVE_CUDA). */
#include "planner/gpu/device.h"

#include <cuda_runtime_api.h>
#include <cudnn.h>
#include <stdio.h>
#include <string.h>

int lf_gpu_built(void) { return 1; }

lf_status lf_gpu_count(int32_t *count)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    *count = 0;
    if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver)
        return LF_OK;
    if (e != cudaSuccess)
        return lf_set_error(LF_EIO, "CUDA device count failed: %s", cudaGetErrorString(e));
    *count = n;
    return LF_OK;
}

lf_status lf_gpu_query(int32_t index, lf_gpu_info *info)
{
    int32_t n = 0;
    lf_status st = lf_gpu_count(&n);
    if (st != LF_OK)
        return st;
    if (index < 0 || index >= n)
        return lf_set_error(LF_ENOTFOUND, "no GPU with index %d (%d visible)", (int)index, (int)n);
    struct cudaDeviceProp p;
    cudaError_t e = cudaGetDeviceProperties(&p, index);
    if (e != cudaSuccess)
        return lf_set_error(LF_EIO, "CUDA device %d query failed: %s", (int)index,
                            cudaGetErrorString(e));
    memset(info, 0, sizeof *info);
    snprintf(info->name, sizeof info->name, "%s", p.name);
    info->index = index;
    info->memory_bytes = (int64_t)p.totalGlobalMem;
    info->multiprocessors = p.multiProcessorCount;
    info->cc_major = p.major;
    info->cc_minor = p.minor;
    info->cudnn_version = (int32_t)cudnnGetVersion();
    int rv = 0;
    cudaRuntimeGetVersion(&rv);
    info->runtime_version = rv;
    int dv = 0;
    cudaDriverGetVersion(&dv);
    info->driver_version = dv;
    const unsigned char *u = (const unsigned char *)p.uuid.bytes;
    snprintf(info->uuid, sizeof info->uuid,
             "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1],
             u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
    return LF_OK;
}
