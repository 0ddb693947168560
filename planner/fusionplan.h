/* fusionplan's public API in one include. Installed as
 * PREFIX/include/fusionplan/fusionplan.h (include <fusionplan/fusionplan.h>
 * with the flags of `pkg-config --cflags fusionplan` or the
 * fusionplan::fusionplan CMake target); in the source tree it is
 * planner/app/fusionplan.h. Every function returns an lf_status and sets a
 * message read with lf_last_error(); nothing prints or exits. */
#ifndef LF_FUSIONPLAN_H
#define LF_FUSIONPLAN_H

#include "planner/status.h"
#include "planner/graph.h"
#include "planner/plan.h"
#include "planner/cost/cost.h"
#include "planner/exact/exact.h"
#include "planner/io/plan_export.h"
#include "planner/app/pipeline.h"
#include "planner/app/registry.h"
#include "hwdesc/hw.h"
#include "models/registry.h"
#include "search/partition/search.h"
#include "search/sweep/sweep.h"
#include "splitter/splitter.h"
#include "splitter/proposer_named.h"
#include "planner/app/api/api.h"

/* The library behind each command (docs/library.md): ONNX import, plan files
 * read back and validated, the executor, reports, sweeps and benchmarks,
 * the substitution optimizer, GPU costs and schedules, explainer training. */
#include "planner/io/onnx.h"
#include "planner/io/plan_read.h"
#include "planner/io/exec_files.h"
#include "planner/io/split_dot.h"
#include "planner/exec/exec.h"
#include "planner/exec/exec_bench.h"
#include "planner/exact/curve.h"
#include "planner/residency.h"
#include "planner/util/format.h"
#include "planner/gpu/cache.h"
#include "search/sweep/buffer_sweep.h"
#include "search/sweep/compare.h"
#include "search/sweep/report.h"
#include "search/sweep/curve_report.h"
#include "search/sweep/bench_search.h"
#include "search/sweep/bench_exact.h"
#include "search/sweep/bench_threads.h"
#include "search/subst/job.h"
#include "search/subst/report.h"
#include "search/subst/ocggs_bench.h"
#include "search/subst/subst_bench.h"
#include "search/subst/op_profile.h"
#include "search/subst/gso/gso.h"
#include "search/subst/gso/gso_bench.h"
#include "search/schedule/schedule.h"
#include "search/schedule/report.h"
#include "splitter/split_report.h"
#include "splitter/explain_group.h"
#include "explain/dataset.h"
#include "explain/gnn_training.h"
#include "explain/explainer_training.h"

#endif
