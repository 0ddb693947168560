/* An attention group's steps in the figure of energy or latency
 * (planner/exact/curve_steps.c), the fast way the staircase takes, against
 * the direct one: on random transformers (GPT-2 with a causal mask, BERT,
 * Llama 3 with grouped query heads, a few tokens and one or two blocks) and
 * random groups of consecutive ops,
 * - lf_cost_group_attn, which says from the ops alone that a group prices as
 *   an attention group, agrees with lf_cost_eval_at's attn at its steps;
 * - lf__steps_attention_group, which prices such a group without walking its
 *   DRAM steps, gives lf__steps_objective's steps after that walk;
 * - at every buffer of the range, its staircase says the least figure that
 *   lf_cost_eval_at and lf_cost_objective_value give at any buffer from the
 *   range's smallest up to there (the staircase keeps falls only). */
#include <stdlib.h>
#include <string.h>

#include "hwdesc/hw.h"
#include "models/registry.h"
#include "planner/cost/cost.h"
#include "planner/cost/objective.h"
#include "planner/exact/curve_steps.h"
#include "testlib.h"

static uint64_t rng = 0x2545f4914f6cdd1dull;

static int64_t rnd(int64_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (int64_t)(rng % (uint64_t)n);
}

/* The staircase's figure at buffer beta: the last step needing less. */
static int64_t stair_at(const lf_cost_step *st, int32_t n, int64_t beta)
{
    int64_t v = INT64_MAX;
    for (int32_t k = 0; k < n && st[k].need < beta; k++)
        v = st[k].f_d;
    return v;
}

static int same_steps(const lf_cost_step *a, int32_t na, const lf_cost_step *b, int32_t nb)
{
    if (na != nb)
        return 0;
    for (int32_t k = 0; k < na; k++)
        if (a[k].need != b[k].need || a[k].f_d != b[k].f_d)
            return 0;
    return 1;
}

/* One group [first, first + n) of g's ops under cm, priced over [lo, hi]. */
static void check_group(lf_cost_model *cm, const lf_graph *g, int32_t first, int32_t n, int64_t lo, int64_t hi,
                        int32_t *groups, int32_t *buffers)
{
    int32_t members[64];
    lf_bitset set;
    lf_bitset_init(&set, g->n_ops);
    for (int32_t i = 0; i < n; i++) {
        members[i] = first + i;
        lf_bitset_set(&set, first + i);
    }
    static lf_cost_step walk[LF_COST_MAX_STEPS], fast[LF_COST_MAX_STEPS];
    static lf_group_cost at[LF_COST_MAX_STEPS];
    int32_t nw = 0, nf = 0;
    int priced = 0;
    lf_status st = lf_cost_steps_priced(cm, &set, hi, lo, walk, at, LF_COST_MAX_STEPS, &nw, &priced);
    lf_bitset_destroy(&set);
    if (st != LF_OK) /* not a group (an input op among them, say) */
        return;
    int attn = lf_cost_group_attn(cm, members, n);
    for (int32_t k = 0; k < nw; k++) {
        lf_group_cost gc;
        CHECK_OK(lf_cost_eval_at(cm, members, n, walk[k].need + 1, &gc));
        CHECK_EQ_I64(gc.attn != 0, attn);
    }
    if (!attn)
        return;
    (*groups)++;
    CHECK_OK(lf__steps_objective(cm, members, n, -1, 0, lo, hi, walk, priced ? at : NULL, &nw));
    CHECK_OK(lf__steps_attention_group(cm, members, n, lo, hi, fast, &nf));
    CHECK(same_steps(walk, nw, fast, nf));
    int64_t least = INT64_MAX;
    int32_t bad = 0;
    for (int64_t beta = lo; beta <= hi; beta++) {
        lf_group_cost gc;
        CHECK_OK(lf_cost_eval_at(cm, members, n, beta, &gc));
        int64_t v = gc.valid ? lf_cost_objective_value(cm, members, n, &gc) : INT64_MAX;
        least = v < least ? v : least;
        bad += stair_at(fast, nf, beta) != least;
        (*buffers)++;
    }
    CHECK_EQ_I64(bad, 0);
}

static void test_random_transformers(void)
{
    const char *nets[3] = {"gpt2", "bert_base", "llama3_8b"};
    const char *schemes[2] = {"brr", "lbdf"};
    const lf_plan_objective objs[2] = {LF_PLAN_OBJ_ENERGY, LF_PLAN_OBJ_LATENCY};
    int32_t groups = 0, buffers = 0;
    for (int round = 0; round < 12; round++) {
        lf_graph *g = NULL;
        lf_model_options opt = {0, 1};
        lf_model_seq_options so = {(int32_t)(8 + rnd(40)), (int32_t)(1 + rnd(2)), LF_PHASE_PREFILL, 0};
        CHECK_OK(lf_model_build_seq(nets[round % 3], &opt, &so, &g));
        if (!g)
            continue;
        lf_hw hw;
        lf_hw_default(&hw);
        hw.buffer_bytes = (int64_t)1 << 22;
        lf_cost_model *cm = NULL;
        CHECK_OK(lf_cost_model_create(&cm, g, &hw, schemes[rnd(2)]));
        if (cm)
            CHECK_OK(lf_cost_set_objective(cm, objs[rnd(2)]));
        for (int t = 0; cm && t < 40; t++) {
            int32_t n = (int32_t)(1 + rnd(24)), first = (int32_t)rnd(g->n_ops);
            if (first + n > g->n_ops)
                n = g->n_ops - first;
            /* a range of a few thousand buffers from a random smallest */
            int64_t lo = 64 + rnd(1 << 16), hi = lo + 1 + rnd(3000);
            check_group(cm, g, first, n, lo, hi, &groups, &buffers);
        }
        lf_cost_model_free(cm);
        lf_graph_free(g);
    }
    /* enough attention groups seen to mean something */
    CHECK(groups >= 50);
    CHECK(buffers >= 50000);
}

/* The staircase's store keeps groups up to the bytes it is given and no
 * more (curve_ranges.c gives it a quarter of the memory limit): 16 KB hold
 * some of 200 small entries, each kept one read back as it was put, and
 * the store then says it is full; a megabyte holds them all. */
static void test_store_limit(void)
{
    lf_steps_store *m = NULL;
    CHECK(lf_steps_store_create(&m, 16384) == LF_OK);
    if (!m)
        return;
    lf_bitset key;
    CHECK(lf_bitset_init(&key, 64) == LF_OK);
    int32_t kept = 0;
    for (int32_t i = 0; i < 200; i++) {
        lf_bitset_clear_all(&key);
        lf_bitset_set(&key, i % 64);
        lf_bitset_set(&key, (i / 64 + i % 64 + 1) % 64);
        lf_cost_step steps[2] = {{100 + i, 1000 + i}, {200 + i, 900 + i}}, got[4];
        int32_t n = 0;
        CHECK(lf_steps_store_put(m, &key, i, steps, 4, 2) == LF_OK);
        if (lf_steps_store_get(m, &key, i, got, 4, &n)) {
            kept++;
            CHECK(n == 2 && got[0].need == 100 + i && got[1].f_d == 900 + i);
        }
    }
    CHECK(kept > 0 && kept < 200);
    CHECK(lf_steps_store_full(m));
    lf_bitset_destroy(&key);
    lf_steps_store_free(m);
    CHECK(lf_steps_store_create(&m, 1 << 20) == LF_OK);
    if (!m)
        return;
    CHECK(lf_bitset_init(&key, 64) == LF_OK);
    kept = 0;
    for (int32_t i = 0; i < 200; i++) {
        lf_bitset_clear_all(&key);
        lf_bitset_set(&key, i % 64);
        lf_cost_step steps[1] = {{100 + i, 1000 + i}}, got[2];
        int32_t n = 0;
        CHECK(lf_steps_store_put(m, &key, i, steps, 2, 1) == LF_OK);
        kept += lf_steps_store_get(m, &key, i, got, 2, &n) && n == 1 && got[0].f_d == 1000 + i;
    }
    CHECK(kept == 200 && !lf_steps_store_full(m));
    lf_bitset_destroy(&key);
    lf_steps_store_free(m);
}

int main(void)
{
    test_random_transformers();
    test_store_limit();
    return lf_test_result();
}
