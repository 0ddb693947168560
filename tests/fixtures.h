/* Fixtures shared by the unit tests (cost, plan, exact, search, splitter):
 * the hand-made int8 hardware, cost models over it or over the built-in
 * default, building a graph in one call, and plan equality. Each failed step
 * is a CHECK failure (testlib.h), and the run goes on. */
#ifndef LF_TEST_FIXTURES_H
#define LF_TEST_FIXTURES_H

#include <stdio.h>
#include <string.h>

#include "hwdesc/hw.h"
#include "planner/cost/cost.h"
#include "planner/graph.h"
#include "planner/plan.h"
#include "testlib.h"

/* The hardware of the hand-computed examples: buffer beta, int8
 * activations and weights, 25.6 GB/s. */
static inline lf_hw tf_hw_bytes(int64_t beta)
{
    lf_hw hw = {0};
    snprintf(hw.name, sizeof hw.name, "test");
    snprintf(hw.source, sizeof hw.source, "hand-made");
    hw.buffer_bytes = beta;
    hw.act_bytes = 1;
    hw.weight_bytes = 1;
    hw.dram_bandwidth = 25.6e9;
    return hw;
}

/* A cost model of g on the hand-made hardware (tf_hw_bytes). */
static inline lf_cost_model *tf_model_hand(const lf_graph *g, int64_t beta, const char *scheme)
{
    lf_hw hw = tf_hw_bytes(beta);
    lf_cost_model *cm = NULL;
    CHECK_OK(lf_cost_model_create(&cm, g, &hw, scheme));
    return cm;
}

/* A cost model of g on the built-in default hardware with buffer beta. */
static inline lf_cost_model *tf_model_default(const lf_graph *g, int64_t beta, const char *scheme)
{
    lf_hw hw;
    lf_hw_default(&hw);
    hw.buffer_bytes = beta;
    lf_cost_model *cm = NULL;
    CHECK_OK(lf_cost_model_create(&cm, g, &hw, scheme));
    return cm;
}

/* Builds the graph and frees the builder; NULL (and a failed check) when
 * the graph is refused. */
static inline lf_graph *tf_build(lf_graph_builder *b)
{
    lf_graph *g = NULL;
    CHECK_OK(lf_graph_builder_build(b, &g));
    lf_graph_builder_free(b);
    return g;
}

/* Same partition with the same group numbering. */
static inline int tf_plans_equal(const lf_plan *a, const lf_plan *b)
{
    return a->n_ops == b->n_ops && a->n_groups == b->n_groups &&
           memcmp(a->group_of, b->group_of, (size_t)a->n_ops * sizeof(int32_t)) == 0;
}

#endif
