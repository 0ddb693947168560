/* The import report (internal constructor side; readers use planner/io/onnx.h). */
#ifndef LF_ONNX_REPORT_H
#define LF_ONNX_REPORT_H

#include "planner/io/onnx.h"

lf_onnx_report *lf__onnx_report_create(void);
/* Appends one rewrite line; silently drops it when out of memory (the
 * report is informational and must never fail an import). */
void lf__onnx_report_add(lf_onnx_report *r, lf_onnx_rewrite kind, const char *node, const char *why);
/* Records which IR op computes a graph output of the file. */
void lf__onnx_report_output(lf_onnx_report *r, const char *onnx_name, const char *ir_name);
/* Records the values of a graph output folded to a constant (a copy). */
lf_status lf__onnx_report_constant(lf_onnx_report *r, const char *onnx_name, const float *data, int64_t count);
void lf__onnx_report_set_file(lf_onnx_report *r, int64_t opset, int32_t nodes);

#endif
