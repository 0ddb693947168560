/* Writing a float32 TensorProto file (fusionplan run --output), atomically. */
#include <stdlib.h>
#include <string.h>

#include "planner/io/onnx_proto.h"
#include "planner/util/fileio.h"

lf_status lf_onnx_write_tensor(const char *path, const lf_onnx_tensor *t)
{
    if (t->rank < 0 || t->rank > LF_ONNX_MAX_RANK || t->count < 0 || (t->count && !t->data))
        return lf_set_error(LF_EINVAL, "%s: invalid tensor (rank %d, %lld elements)", path, (int)t->rank,
                            (long long)t->count);
    Onnx__TensorProto tp = ONNX__TENSOR_PROTO__INIT;
    int64_t dims[LF_ONNX_MAX_RANK];
    memcpy(dims, t->dims, sizeof dims);
    tp.n_dims = (size_t)t->rank;
    tp.dims = dims;
    tp.has_data_type = 1;
    tp.data_type = LF__OX_FLOAT;
    tp.name = (char *)t->name;
    tp.has_raw_data = 1;
    tp.raw_data.len = (size_t)t->count * sizeof(float);
    tp.raw_data.data = (uint8_t *)t->data;
    size_t len = onnx__tensor_proto__get_packed_size(&tp);
    uint8_t *buf = malloc(len ? len : 1);
    if (!buf)
        return lf_set_error(LF_ENOMEM, "out of memory writing %s", path);
    onnx__tensor_proto__pack(&tp, buf);
    lf_atomic_file af;
    lf_status st = lf_atomic_open(&af, path);
    if (st == LF_OK) {
        if (fwrite(buf, 1, len, af.f) != len) {
            lf_atomic_abort(&af);
            st = lf_set_error(LF_EIO, "%s: write failed", path);
        } else {
            st = lf_atomic_commit(&af);
        }
    }
    free(buf);
    return st;
}
