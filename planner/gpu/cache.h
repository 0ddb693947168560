/* The persistent cache of measured GPU op times (DESIGN §12).
 *
 * One text file under the user's cache folder holds the times of every device
 * that has been profiled, in blocks: a device line (GPU name and UUID,
 * compute capability, driver, CUDA runtime and cuDNN versions) followed by
 * the op lines measured on exactly that device (op configuration key from
 * lf_gpu_op_key, median seconds). A cache answers only for the device it is
 * bound to (lf_gpu_cache_use): the blocks of other devices, or of the same
 * GPU under another driver or cuDNN, are kept when the file is written back
 * but never used. The format is in docs/gpu.md.
 *
 * Plain C: the file format, loading, storing and the device check need no
 * GPU, so they build and are tested everywhere. */
#ifndef LF_GPU_CACHE_H
#define LF_GPU_CACHE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "planner/gpu/device.h"
#include "planner/status.h"

/* Everything a measured time depends on besides the op itself. */
typedef struct lf_gpu_device_key {
    char name[256];            /* "NVIDIA H100 80GB HBM3": printable, no tab */
    char uuid[48];             /* "GPU-..." */
    int32_t cc_major, cc_minor;
    int32_t driver_version, runtime_version, cudnn_version;
} lf_gpu_device_key;

/* The key of a queried device (control characters of its name become '?'). */
void lf_gpu_device_key_of(const lf_gpu_info *info, lf_gpu_device_key *key);
/* 1 when every field is equal. */
int lf_gpu_device_key_equal(const lf_gpu_device_key *a, const lf_gpu_device_key *b);
/* "NAME (UUID, cc 9.0, driver 13000, CUDA 13000, cuDNN 91000)" for messages and tables. */
void lf_gpu_device_key_format(const lf_gpu_device_key *key, char *buf, size_t cap);

/* The cache file: $XDG_CACHE_HOME/fusionplan/gpu-op-times.txt, or
 * ~/.cache/fusionplan/gpu-op-times.txt when XDG_CACHE_HOME is unset or not
 * absolute. LF_ENOTFOUND when neither it nor HOME is set; LF_ERANGE when the
 * path does not fit. */
lf_status lf_gpu_cache_default_path(char *buf, size_t cap);

/* Largest cache file read, and the longest op key. */
#define LF_GPU_CACHE_MAX_BYTES (64 << 20)
#define LF_GPU_OP_KEY_MAX 2048

typedef struct lf_gpu_cache lf_gpu_cache;

lf_status lf_gpu_cache_create(lf_gpu_cache **c);
void lf_gpu_cache_free(lf_gpu_cache *c); /* NULL is fine */

/* Reads a cache file into c (which must be empty). A missing file is an
 * empty cache; a malformed one is LF_EPARSE with one line "PATH:LINE: why"
 * and leaves c empty. */
lf_status lf_gpu_cache_load(lf_gpu_cache *c, const char *path);
/* The same from text in memory; origin names it in messages. */
lf_status lf_gpu_cache_load_text(lf_gpu_cache *c, const char *text, size_t len, const char *origin);
/* Creates a cache and loads the file at path, or at the default path when
 * path is NULL; used (cap bytes) receives the path read. On failure *c is
 * NULL. */
lf_status lf_gpu_cache_open(lf_gpu_cache **c, const char *path, char *used, size_t cap);

/* Writes every block (entries sorted by key, so the file does not depend on
 * the order of measurements) atomically, creating the folders above it. */
lf_status lf_gpu_cache_store(const lf_gpu_cache *c, const char *path);

/* The file's text, as store writes it, to any stream. */
lf_status lf_gpu_cache_write(const lf_gpu_cache *c, FILE *f);

/* Binds the cache to a device: lookups and insertions then concern its block
 * only (created empty when the file had none). */
lf_status lf_gpu_cache_use(lf_gpu_cache *c, const lf_gpu_device_key *dev);

/* The bound device's time for an op key: 1 and *seconds when cached, 0 when
 * not (or when no device is bound). */
int lf_gpu_cache_get(const lf_gpu_cache *c, const char *op_key, double *seconds);
/* Records (or replaces) a time for the bound device. LF_EINVAL without a
 * bound device, for a key the file format cannot hold, or a time that is not
 * finite and in [1e-12, 3600] s. */
lf_status lf_gpu_cache_put(lf_gpu_cache *c, const char *op_key, double seconds);

/* Devices in the cache (file order, then bound ones), and entries per device. */
int32_t lf_gpu_cache_n_devices(const lf_gpu_cache *c);
const lf_gpu_device_key *lf_gpu_cache_device(const lf_gpu_cache *c, int32_t i);
int32_t lf_gpu_cache_n_entries(const lf_gpu_cache *c, int32_t device);
/* Entries of the bound device, or -1 when none is bound. */
int32_t lf_gpu_cache_bound_entries(const lf_gpu_cache *c);

#endif
