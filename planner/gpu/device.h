/* GPU device query. Built against the CUDA runtime when the toolkit and cuDNN
 * are found (LF_CUDA=AUTO or ON); otherwise a stub answers LF_ENOSYS, so the
 * project builds and runs its tests without a GPU. */
#ifndef LF_GPU_DEVICE_H
#define LF_GPU_DEVICE_H

#include <stdint.h>

#include "planner/status.h"

typedef struct lf_gpu_info {
    char name[256];
    int32_t index;
    int64_t memory_bytes;
    int32_t multiprocessors;
    int32_t cc_major, cc_minor;
    int32_t cudnn_version;     /* e.g. 90100, 0 when unknown */
    int32_t runtime_version;   /* CUDA runtime, e.g. 13000 */
    int32_t driver_version;    /* CUDA driver API version, e.g. 13000 */
    char uuid[48];             /* "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", as nvidia-smi prints it */
} lf_gpu_info;

/* 1 when the library was built with CUDA support. */
int lf_gpu_built(void);

/* Number of visible devices; LF_ENOSYS without CUDA support. */
lf_status lf_gpu_count(int32_t *count);

/* Properties of device `index`; LF_ENOSYS without CUDA, LF_ENOTFOUND for a bad index. */
lf_status lf_gpu_query(int32_t index, lf_gpu_info *info);

#endif
