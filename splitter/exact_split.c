/* The exact splitter (`--split exact`, issue 17 item 5): the optimal split
 * of the invalid group (lf_exact_split, DESIGN §7), which minimises the parts'
 * total F_D, where that optimum is found within a candidate limit; past the
 * limit it gives up and the search falls back to the random split (counted
 * as a fallback). Only the candidate limit applies, never a time or memory
 * limit: those depend on the machine and on what other threads left in the
 * memo, and the split must be a function of the group alone (determinism
 * with any thread count). */
#include <stdlib.h>

#include "planner/exact/exact.h"
#include "splitter/exact_split.h"

typedef struct lf__xs {
    int64_t max_candidates;
} lf__xs;

static lf_status lf__exact_split(const lf_splitter *s, lf_cost_model *cm, const lf_bitset *group,
                                 uint64_t seed, lf_split_result *res)
{
    (void)seed;
    const lf__xs *xs = s->ctx;
    lf_split_result_reset(res);
    lf_exact_config cfg;
    lf_exact_config_default(&cfg);
    cfg.max_candidates = xs->max_candidates;
    cfg.time_limit_s = 0;
    cfg.memory_limit = 0;
    lf_plan parts;
    int64_t dram = 0;
    lf_exact_stats st_x;
    lf_status st = lf_exact_split(cm, group, &cfg, &parts, &dram, &st_x);
    res->cost_queries = st_x.groups;
    if (st == LF_ELIMIT)
        return LF_OK; /* no parts: the search runs the random split */
    if (st != LF_OK)
        return st;
    for (int32_t gi = 0; gi < parts.n_groups && st == LF_OK; gi++) {
        lf_bitset *part = NULL;
        if ((st = lf_split_result_add(res, &part)) != LF_OK)
            break;
        for (int32_t v = 0; v < parts.n_ops; v++)
            if (parts.group_of[v] == gi)
                lf_bitset_set(part, v);
    }
    lf_plan_destroy(&parts);
    if (st != LF_OK)
        return st;
    lf_split_result_sort(res);
    res->rectified = 1;
    return LF_OK;
}

static void lf__exact_free(lf_splitter *s)
{
    if (!s)
        return;
    free(s->ctx);
    free(s);
}

lf_status lf_splitter_exact_create(lf_splitter **out, int64_t max_candidates)
{
    *out = NULL;
    if (max_candidates < 1)
        return lf_set_error(LF_EINVAL, "exact splitter: the candidate limit must be positive");
    lf_splitter *s = calloc(1, sizeof *s);
    lf__xs *xs = calloc(1, sizeof *xs);
    if (!s || !xs) {
        free(s);
        free(xs);
        return lf_set_error(LF_ENOMEM, "out of memory creating the exact splitter");
    }
    xs->max_candidates = max_candidates;
    s->name = "exact";
    s->split = lf__exact_split;
    s->free = lf__exact_free;
    s->ctx = xs;
    *out = s;
    return LF_OK;
}
