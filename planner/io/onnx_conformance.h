/* Running ONNX's conformance test data (libonnx-testdata) through the
 * importer and the reference executor. */
#ifndef LF_ONNX_CONFORMANCE_H
#define LF_ONNX_CONFORMANCE_H

#include <stdint.h>

#include "planner/io/onnx.h"

enum { LF_CONF_PASS = 0, LF_CONF_FAIL = 1, LF_CONF_UNSUPPORTED = 2 };

typedef struct lf_conf_case {
    char name[200];   /* folder name, e.g. test_conv_with_strides_padding */
    char op[200];     /* the model's op types in file order, e.g. "Conv" or "Conv+Relu" */
    int32_t status;   /* LF_CONF_* */
    double max_err;   /* largest |a - b| seen */
    char why[400];    /* the failure or the reason it is unsupported */
} lf_conf_case;

typedef struct lf_conf_result {
    lf_conf_case *cases;
    int32_t n, cap;
} lf_conf_result;

/* Appends one case per <dir>/<case>/model.onnx (sorted by name) to res
 * (zero-initialise it first; several folders may be appended). */
lf_status lf_onnx_conformance(const char *dir, lf_conf_result *res);
void lf_conf_result_free(lf_conf_result *res);

#endif
