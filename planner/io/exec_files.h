/* The reference executor's inputs and outputs as files and text (`fusionplan
 * run`): graph inputs read from TensorProto files, graph outputs written as
 * float32 TensorProto files, and one line of statistics per tensor. */
#ifndef LF_EXEC_FILES_H
#define LF_EXEC_FILES_H

#include <stdint.h>
#include <stdio.h>

#include "planner/exec/exec.h"
#include "planner/graph.h"
#include "planner/status.h"

/* Reads files[k] into the k-th graph input of g (op order); the number of
 * files must equal the number of inputs and each tensor's value count the
 * input's. LF_EINVAL naming the file and input otherwise. */
lf_status lf_exec_read_inputs(lf_exec *ex, const lf_graph *g, const char *const *files, int32_t n);

/* Writes the k-th graph output (op order) of a finished run to files[k] as a
 * rank-4 (N, C, H, W) float32 TensorProto; n must equal the number of
 * outputs. */
lf_status lf_exec_write_outputs(const lf_exec *ex, const lf_graph *g, const char *const *files, int32_t n);

/* "WHAT NAME: shape NxCxHxW  min  max  mean  l2  checksum" (with NaN and
 * Inf counts when there are any) for op v's tensor in a finished run. */
void lf_exec_stats_write(FILE *f, const char *what, const lf_exec *ex, const lf_graph *g, int32_t v);

/* The run's report: with inputs, every graph input's line, then every graph
 * output's. */
void lf_exec_report_write(FILE *f, const lf_exec *ex, const lf_graph *g, int inputs);

#endif
