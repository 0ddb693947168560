/* fusionplan's public API in one include. Installed as
 * PREFIX/include/fusionplan/fusionplan.h (include <fusionplan/fusionplan.h>
 * with the flags of `pkg-config --cflags fusionplan` or the
 * fusionplan::fusionplan CMake target); in the source tree it is
 * planner/fusionplan.h. Every function returns an lf_status and sets a
 * message read with lf_last_error(); nothing prints or exits. */
#ifndef LF_FUSIONPLAN_H
#define LF_FUSIONPLAN_H

#include "planner/status.h"
#include "planner/graph.h"
#include "planner/plan.h"
#include "planner/cost/cost.h"
#include "planner/exact/exact.h"
#include "planner/io/plan_export.h"
#include "planner/pipeline.h"
#include "planner/registry.h"
#include "hwdesc/hw.h"
#include "models/registry.h"
#include "search/partition/search.h"
#include "search/sweep/sweep.h"
#include "splitter/splitter.h"
#include "explain/proposer_named.h"
#include "planner/api/api.h"

#endif
