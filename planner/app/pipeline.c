/* The library pipeline (pipeline.h): planning a network on a cost model with
 * the search, splitter and proposer named in the configuration, and the
 * whole source → cost model → plan run. */
#include "planner/app/pipeline.h"

#include <stdio.h>
#include <string.h>

#include "splitter/proposer_named.h"
#include "planner/cost/objective.h"
#include "planner/app/registry.h"
#include "planner/exact/separators.h"
#include "planner/util/clock.h"
#include "search/partition/simple.h"
#include "splitter/exact_split.h"

void lf_planner_config_default(lf_planner_config *c)
{
    memset(c, 0, sizeof *c);
    c->search = "greedy";
    c->budget = 2000;
    c->seed = 1;
    c->population = 10;
    c->objectives = 3;
    c->split = "random";
    c->proposer = "all";
    c->k = 3;
    lf_exact_config_default(&c->exact);
}

lf_status lf_planner_config_check(const lf_planner_config *c, int exact_limits_set)
{
    const char *search = c->search ? c->search : "greedy";
    if (c->seed_plans && strcmp(search, "local") != 0 && strcmp(search, "nsga2") != 0)
        return lf_set_error(LF_EINVAL, "--seed-plans applies to --search local or nsga2");
    if (c->best_effort && strcmp(search, "exact") != 0)
        return lf_set_error(LF_EINVAL, "--best-effort applies to --search exact");
    if (c->exact.upper_bound < 0)
        return lf_set_error(LF_EINVAL, "--upper-bound: %lld is negative", (long long)c->exact.upper_bound);
    /* A bound belongs to the exact search: compare_exact's optimum and the
     * seed plans' blocks are other runs, which the caller did not bound. */
    if (c->exact.upper_bound > 0 && strcmp(search, "exact") != 0)
        return lf_set_error(LF_EINVAL, "--upper-bound applies to --search exact");
    if (exact_limits_set && strcmp(search, "exact") != 0 && !c->compare_exact && !c->seed_plans)
        return lf_set_error(LF_EINVAL, "--time-limit, --memory-limit and --max-candidates apply "
                                       "to --search exact, --compare-exact or --seed-plans");
    return LF_OK;
}

/* What one planner run needs besides the configuration. */
typedef struct lf__run {
    lf_cost_model *cm;
    const lf_planner_config *cfg;
    const lf_splitter *splitter;
    lf_planned *out;
} lf__run;

/* Ops per window of the polish that ends a best-effort run, and candidate
 * sets per window, unless --polish says otherwise (then the polish's own
 * default of candidates). A window past its candidates is left as it was,
 * its time lost: RandWire at 256 KB under BRR spends 1.4 s at 100,000, 4.4 s
 * at 300,000 and 9.0 s at 1,000,000 for the same plan, where NasNet-A
 * under LBDF needs 300,000 to reach 77.0 MB (78.6 below) and 24 ops at
 * 1,000,000 reach 71.6 MB in 3.6 s. */
#define LF__BEST_EFFORT_POLISH 20
#define LF__BEST_EFFORT_POLISH_CANDIDATES 300000
/* Ops per window of the breadth-first polish after it (the same candidate
 * sets a window): PP-OCRv4 detection under BRR reaches 16,584,697 B with
 * 128, its best known plan with 160. */
#define LF__BREADTH_FIRST_POLISH 160
/* Its limits: downsets a window (PP-OCRv4's takes 2,350; NasNet-A's wide
 * windows stop there instead of at the candidate sets, 0.2 s each under
 * BRR where 300,000 sets take 1 s) and windows in all; with a deadline,
 * half the time left (piece_polish.c). */
#define LF__BREADTH_FIRST_STATES 5000
#define LF__BREADTH_FIRST_WINDOWS 8

/* --time-limit bounds the whole exact run (issue 41 item 9): one deadline,
 * the limit from the start, is shared by the DP, the certified bounds and
 * the best-effort plan's greedy, NSGA-II and polish. The DP has this share
 * of it; of what the DP leaves, the bounds have LF__BOUNDS_SHARE and the
 * upper bound's improvements the rest (each stops at the deadline). */
#define LF__DP_SHARE 0.75
#define LF__BOUNDS_SHARE 0.5
/* Before the bounds, the pieces between separators of at most
 * LF__SEP_WIDTH tensors that no valid group spans have this share of what
 * the DP left, to be solved exactly (separators.c; NasNet-A at 256 KB under
 * LBDF: the 274 ops after its first 141 in 0.4 s of CPU). */
#define LF__SEP_SHARE 0.15
#define LF__SEP_WIDTH 4


/* The name of a plan that the polish improved (the messages are static
 * strings, so each source has its polished name here). */
static const char *lf__polished(const char *from)
{
    static const char *const names[][2] = {
        {"the block plan", "the block plan, polished"},
        {"the greedy plan", "the greedy plan, polished"},
        {"the DP's best state, completed exactly", "the DP's best state, completed exactly, polished"},
        {"NSGA-II seeded with the DP's best state, completed exactly",
         "NSGA-II seeded with the DP's best state, completed exactly, polished"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(from, names[i][0]) == 0)
            return names[i][1];
    return "NSGA-II seeded with the better of the block and greedy plans, polished";
}

/* Replaces *best (figure *upper: the cost model's objective over fusable
 * ops, DRAM by default) by the greedy plan, then by NSGA-II seeded with the
 * better of the two (with guided edits) and polished by exact sub-solves,
 * where they cost less; *from names the one kept. A failure here only
 * leaves the bound where it was. */
static void lf__better_upper(lf__run *r, double deadline, lf_plan *best, int64_t *upper,
                             const char **from, int *late)
{
    lf_plan cand;
    lf_plan_metrics m;
    if (lf_plan_greedy(r->cm, &cand) == LF_OK) {
        if (lf_plan_metrics_compute(&cand, r->cm, &m) == LF_OK && m.objective < *upper) {
            lf_plan_destroy(best);
            *best = cand;
            *upper = m.objective;
            *from = "the greedy plan";
        } else {
            lf_plan_destroy(&cand);
        }
    }
    /* A seeded search never ends above its seed, and wide graphs, where
     * the blocks run past their limits, are where it helps most (NasNet-A
     * at 256 KB: greedy 175.0 MB, this 98.2 MB). */
    lf_search_config sc;
    lf_search_config_default(&sc);
    sc.algorithm = "nsga2";
    sc.budget = r->cfg->budget;
    sc.seed = r->cfg->seed;
    sc.threads = r->cfg->threads;
    sc.population = r->cfg->population;
    sc.seeds = best;
    sc.n_seeds = 1;
    sc.quiet = 1;
    sc.guided = 1;
    sc.deadline = deadline;
    lf_search_result res;
    if (deadline > 0 && lf_now_seconds() >= deadline) {
        *late = 1; /* neither NSGA-II nor the polish: the greedy plan is all there was time for */
        return;
    }
    lf_status sst = lf_search_run(r->cm, &sc, &res);
    *late |= sst == LF_OK && res.plans_proposed < sc.budget;
    if (sst == LF_OK && res.metrics.objective < *upper &&
        lf_plan_copy(&cand, &res.best) == LF_OK) {
        lf_plan_destroy(best);
        *best = cand;
        *upper = res.metrics.objective;
        *from = strcmp(*from, "the DP's best state, completed exactly") == 0
                    ? "NSGA-II seeded with the DP's best state, completed exactly"
                    : "NSGA-II seeded with the better of the block and greedy plans";
    }
    if (sst == LF_OK)
        lf_search_result_destroy(&res);
    /* Exact sub-solves of short runs of groups (NasNet-A at 256 KB under
     * LBDF: 78.6 -> 77.0 MB in 0.4 s, windows of 24 ops 71.6 MB in 2.4 s;
     * windows of 32 ops take 25 s). */
    lf_polish_config pc;
    lf_polish_stats ps;
    lf_polish_config_default(&pc);
    if (r->cfg->polish > 0) {
        pc.window_ops = r->cfg->polish;
    } else {
        pc.window_ops = LF__BEST_EFFORT_POLISH;
        pc.max_candidates = LF__BEST_EFFORT_POLISH_CANDIDATES;
    }
    pc.deadline = deadline;
    if (lf_plan_copy(&cand, best) != LF_OK)
        return;
    lf_status pst = lf_exact_polish(r->cm, &pc, &cand, &ps);
    *late |= pst == LF_OK && ps.out_of_time;
    if (pst == LF_OK && ps.dram_after < *upper) {
        lf_plan_destroy(best);
        *best = cand;
        *upper = ps.dram_after;
        *from = lf__polished(*from);
    } else {
        lf_plan_destroy(&cand);
    }
}

/* The polish of windows of a breadth-first order of the groups
 * (lf_polish_config.breadth_first) of up to LF__BREADTH_FIRST_POLISH ops: a
 * side group that the first-op order keeps far from the group it reads is
 * re-planned with it and the chain between (the run PP-OCRv4 needs holds
 * 115 ops; a chain's DP is cheap). Only runs where a group moved are
 * solved, within the limits above. */
static void lf__breadth_first_config(lf_polish_config *pc)
{
    lf_polish_config_default(pc);
    pc->window_ops = LF__BREADTH_FIRST_POLISH;
    pc->max_candidates = LF__BEST_EFFORT_POLISH_CANDIDATES;
    pc->max_states = LF__BREADTH_FIRST_STATES;
    pc->max_windows = LF__BREADTH_FIRST_WINDOWS;
    pc->breadth_first = 1;
}

/* Without a deadline: that polish on *best (figure *upper), on a copy (a
 * failure leaves *best). */
static void lf__breadth_first_polish(lf__run *r, lf_plan *best, int64_t *upper)
{
    lf_polish_config pc;
    lf_polish_stats ps;
    lf__breadth_first_config(&pc);
    lf_plan cand;
    if (lf_plan_copy(&cand, best) != LF_OK)
        return;
    if (lf_exact_polish(r->cm, &pc, &cand, &ps) == LF_OK && ps.dram_after < *upper) {
        lf_plan_destroy(best);
        *best = cand;
        *upper = ps.dram_after;
    } else {
        lf_plan_destroy(&cand);
    }
}

/* Past a limit, certified bounds on the optimum (lf_exact_bounds_compute,
 * under the same limits): the message gives them, never a silent plan; with
 * best_effort the best plan found is the result, its bounds beside it. */
static lf_status lf__plan_exact(lf__run *r)
{
    lf_exact_config ec = r->cfg->exact, dp;
    double limit = ec.time_limit_s;
    if (limit > 0) {
        double now = lf_now_seconds();
        if (ec.deadline <= 0 || now + limit < ec.deadline)
            ec.deadline = now + limit;
    }
    dp = ec; /* the DP stops at its share (its messages name the whole limit) */
    if (limit > 0)
        dp.deadline -= limit * (1 - LF__DP_SHARE);
    /* A stopped DP still proves a lower bound (frontier.c). It and the
     * certified bounds below are figures of the cost model's objective:
     * DRAM bytes, or fJ and fs (floors proven in bytes and priced:
     * lf_cost_objective_dram_floor). */
    lf_plan_objective obj = lf_cost_objective(r->cm);
    dp.lower_bound = 1;
    /* A stopped DP also completes its best reached state into a plan. */
    lf_plan completed; /* its group_of stays NULL unless a plan is built (a plan of no
                          fusable ops has the figure 0) */
    memset(&completed, 0, sizeof completed);
    dp.upper_plan = &completed;
    lf_status st = lf_exact_plan(r->cm, &dp, &r->out->plan, &r->out->exact_stats);
    if (st != LF_ELIMIT) {
        lf_plan_destroy(&completed);
        return st;
    }
    char why[512];
    snprintf(why, sizeof why, "%s", lf_last_error());
    lf__hard_pieces hp;
    lf_exact_config hc = ec;
    if (ec.deadline > 0) {
        double now = lf_now_seconds(), share = (ec.deadline - now) * LF__SEP_SHARE;
        hc.time_limit_s = share > 1e-9 ? share : 1e-9;
        hc.deadline = now + hc.time_limit_s;
    }
    if (lf__hard_pieces_solve(r->cm, &hc, LF__SEP_WIDTH, &hp) != LF_OK)
        memset(&hp, 0, sizeof hp);
    int32_t hp_solved = hp.solved, hp_pieces = hp.pieces; /* for the messages */
    if (hp.pieces > 1 && hp.solved == hp.pieces) {
        /* Every plan is a union of plans of the pieces: the solved pieces'
         * optima together are the optimum. */
        lf_plan_destroy(&completed);
        lf_plan_destroy(&r->out->plan);
        r->out->plan = hp.plan;
        memset(&hp.plan, 0, sizeof hp.plan);
        lf__hard_pieces_free(&hp);
        snprintf(r->out->bound_note, sizeof r->out->bound_note,
                 "proven optimal: %d pieces between separators no valid group spans, each solved "
                 "exactly (the whole DP stopped at a limit)", hp_pieces);
        return LF_OK;
    }
    lf_plan best;
    lf_exact_bounds b;
    /* The bounds have their share of what the DP left (all of the rest of
     * the limit when it stopped early because its pace was hopeless:
     * NasNet-A), half for the blocks and half for the windows. */
    lf_exact_config bc = ec;
    /* With pieces solved and others open, the open pieces' own windows
     * (lf__hard_pieces_lower) take half of that share. */
    /* Their windows are DRAM floors of each piece's own graph (its own cost
     * model, the default objective): used under DRAM only. */
    int open_pieces = hp.solved > 0 && hp.solved < hp.pieces && obj == LF_PLAN_OBJ_DRAM;
    if (ec.deadline > 0) {
        double now = lf_now_seconds(), share = (ec.deadline - now) * LF__BOUNDS_SHARE * (open_pieces ? 0.5 : 1);
        bc.time_limit_s = share > 1e-9 ? share : 1e-9;
        if (share < ec.deadline - now)
            bc.deadline = now + share;
    }
    if (lf_exact_bounds_certify_spare(r->cm, &bc, 0, &best, &b) != LF_OK) {
        lf_plan_destroy(&completed);
        lf__hard_pieces_free(&hp);
        return lf_set_error(LF_ELIMIT, "%s", why);
    }
    /* The stopped DP's own bound (frontier.c; PP-OCRv4 detection at 256 KB:
     * tighter than the windows') counts where it is the larger. */
    int64_t dp_lower = r->out->exact_stats.lower;
    if (dp_lower > b.lower)
        b.lower = dp_lower;
    /* The solved pieces' optima and the open pieces' windows (NasNet-A at
     * 256 KB under LBDF: 32.8 MB exact after op 140, windows of the first
     * 141 ops 28.9 MB, against 57.7 MB from the whole graph's windows). */
    int64_t pieces_lower = 0;
    if (open_pieces) {
        lf_exact_config pc = ec;
        if (ec.deadline > 0) {
            double now = lf_now_seconds(), share = (ec.deadline - now) * LF__BOUNDS_SHARE;
            pc.time_limit_s = share > 1e-9 ? share : 1e-9;
            if (share < ec.deadline - now)
                pc.deadline = now + share;
        }
        if (lf__hard_pieces_lower(r->cm, &hp, &pc, &pieces_lower) != LF_OK || pieces_lower <= b.lower)
            pieces_lower = 0;
        else
            b.lower = pieces_lower;
    }
    /* A block past the limits keeps its ops apart in the block plan; the
     * greedy plan and a seeded search do better there (RandWire at 256 KB:
     * 45.2 MB for the blocks, 15.1 MB greedy). */
    const char *upper_from = "the block plan";
    /* The DP's best reached state with the rest solved exactly (complete.c;
     * PP-OCRv4 detection at 256 KB: far below the searches' plans). */
    if (completed.group_of) {
        lf_plan_metrics cm_;
        if (lf_plan_metrics_compute(&completed, r->cm, &cm_) == LF_OK && cm_.objective < b.upper) {
            lf_plan_destroy(&best);
            best = completed;
            b.upper = cm_.objective;
            upper_from = "the DP's best state, completed exactly";
        } else {
            lf_plan_destroy(&completed);
        }
    }
    int late = 0;
    lf__better_upper(r, ec.deadline, &best, &b.upper, &upper_from, &late);
    /* Runs of a breadth-first order of the groups, those where a group
     * moved up to follow the group it reads (PP-OCRv4 detection at 256 KB
     * under BRR: the neck conv 190-192 after the backbone group holding its
     * input 171 re-plans six backbone groups with it, 16.81 -> 16.58 MB in
     * 0.1 s; the first-op order puts thirteen groups between them). With a
     * deadline it runs inside the open pieces' polish below, once its
     * narrowest pass has ended (where that pass does not end, NasNet-A and
     * RandWire under BRR, it would take that pass's time: RandWire 11.97 ->
     * 12.03 MB when it ran here). */
    lf_polish_config bfs;
    lf__breadth_first_config(&bfs);
    int64_t before_bfs = b.upper;
    char bfs_from[256];
    if (ec.deadline <= 0) {
        lf__breadth_first_polish(r, &best, &b.upper);
        if (b.upper < before_bfs) {
            snprintf(bfs_from, sizeof bfs_from, "%.200s, re-planned breadth-first", upper_from);
            upper_from = bfs_from;
        }
    }
    /* The solved pieces' optima replace what the plan does there. */
    int64_t before_pieces = b.upper;
    char pieces_from[256];
    if (lf__hard_pieces_apply(r->cm, &hp, &best, &b.upper) == LF_OK && b.upper < before_pieces) {
        /* Short: the limit's message has LF_MESSAGE_MAX characters in all. */
        snprintf(pieces_from, sizeof pieces_from, "%.230s, separators", upper_from);
        upper_from = pieces_from;
    }
    /* The rest of the time polishes the open pieces alone, with wider
     * windows as it goes (NasNet-A at 256 KB under LBDF: its first 141 ops),
     * or the whole plan when no piece is solved (NasNet-A under BRR). */
    int64_t before_polish = b.upper;
    int32_t open_window = 0, given_up = 0;
    char polished_from[320];
    int32_t bfs_improved = 0;
    if (lf__hard_pieces_polish(r->cm, &hp, ec.deadline, &best, &b.upper, &open_window, &given_up,
                               ec.deadline > 0 ? &bfs : NULL, &bfs_improved) == LF_OK &&
        b.upper < before_polish) {
        const char *what = hp_solved > 0 ? "open pieces" : "the whole plan";
        const char *how = bfs_improved ? ", breadth-first too" : "";
        /* The widest pass's windows whose solve gave up (its pace past the
         * time left) are named: without them "44-op windows" read as every
         * window solved (PP-OCRv4 BRR 10 s runs ending at 16,661,545 B). */
        char given[24] = "";
        if (given_up > 0)
            snprintf(given, sizeof given, ", %d given up", (int)given_up);
        if (open_window > 0)
            snprintf(polished_from, sizeof polished_from, "%.200s, %s polished (%d-op windows%s%s)", upper_from,
                     what, open_window, given, how);
        else /* the deadline cut even the narrowest pass short */
            snprintf(polished_from, sizeof polished_from, "%.230s, %s polished (until the deadline%s)",
                     upper_from, what, how);
        upper_from = polished_from;
    }
    lf__hard_pieces_free(&hp);
    char time_note[160] = "";
    if (limit > 0)
        snprintf(time_note, sizeof time_note, " (DP %g s of the %g s limit%s%s)", limit * LF__DP_SHARE,
                 limit, b.out_of_time ? "; bounds cut short by it" : "",
                 late ? "; upper bound's search cut short by it" : "");
    char lower_from[128];
    if (pieces_lower > 0 && pieces_lower == b.lower)
        snprintf(lower_from, sizeof lower_from, "separators %d/%d, windows", hp_solved, hp_pieces);
    else if (dp_lower > 0 && dp_lower == b.lower)
        snprintf(lower_from, sizeof lower_from, "the DP's frontier");
    else if (b.lower_balance > b.lower_windows && b.lower_balance >= b.lower_blocks)
        snprintf(lower_from, sizeof lower_from, "balanced cuts between cut ops");
    else if (b.lower_windows >= b.lower_blocks)
        snprintf(lower_from, sizeof lower_from,
                 "windows of %d ops%s, %d halved past the limits, %d of %d solved", b.window_ops,
                 b.windows_grown ? " (cheap ones grown)" : "", b.windows_halved, b.windows_solved, b.windows);
    else
        snprintf(lower_from, sizeof lower_from, "blocks");
    if (!r->cfg->best_effort) {
        lf_plan_destroy(&best);
        return lf_set_error(LF_ELIMIT,
                            "%s%s; certified bounds: the optimum (%s over fusable ops) is in "
                            "[%lld, %lld] %s (upper: %s; lower: %s), a plan at the upper bound is within "
                            "%.2f%% of it (%d blocks, %d solved exactly)",
                            why, time_note, obj == LF_PLAN_OBJ_DRAM ? "DRAM" : lf_plan_objective_name(obj),
                            (long long)b.lower, (long long)b.upper, lf_plan_objective_unit(obj), upper_from,
                            lower_from, lf_exact_bounds_gap(&b), b.blocks, b.blocks_exact);
    }
    lf_plan_destroy(&r->out->plan);
    r->out->plan = best;
    r->out->search = "exact-best-effort"; /* not "exact": exports mark that one optimal */
    r->out->lower_bound = b.lower;
    snprintf(r->out->bound_note, sizeof r->out->bound_note,
             "%s; lower bound from %s; %d blocks, %d solved exactly%s", upper_from, lower_from, b.blocks,
             b.blocks_exact, time_note);
    return LF_OK;
}

static lf_status lf__plan_search(lf__run *r)
{
    const lf_planner_config *c = r->cfg;
    lf_search_config sc;
    lf_search_config_default(&sc);
    sc.algorithm = c->search;
    sc.budget = c->budget;
    sc.seed = c->seed;
    sc.threads = c->threads;
    sc.population = c->population;
    sc.objectives = c->objectives;
    sc.splitter = r->splitter;
    sc.trace = c->trace;
    sc.progress = c->progress;
    sc.progress_user = c->progress_user;
    lf_plan seeds[8];
    int32_t n_seeds = 0;
    lf_status st = LF_OK;
    for (const char *p = c->seed_plans; st == LF_OK && p && *p;) {
        size_t len = strcspn(p, ",");
        if (n_seeds == (int32_t)(sizeof seeds / sizeof *seeds)) {
            st = lf_set_error(LF_EINVAL, "at most 8 seed plans");
        } else if (len == 6 && strncmp(p, "greedy", len) == 0) {
            if ((st = lf_plan_greedy(r->cm, &seeds[n_seeds])) == LF_OK)
                n_seeds++;
        } else if (len == 6 && strncmp(p, "blocks", len) == 0) {
            lf_exact_bounds b;
            if ((st = lf_exact_bounds_compute(r->cm, &c->exact, 0, &seeds[n_seeds], &b)) == LF_OK)
                n_seeds++;
        } else {
            st = lf_set_error(LF_EINVAL, "unknown seed plan '%.*s' (known: greedy, blocks)",
                              (int)len, p);
        }
        p += len + (p[len] == ',');
    }
    sc.seeds = seeds;
    sc.n_seeds = n_seeds;
    sc.guided = c->guided;
    if (st == LF_OK)
        st = lf_search_run(r->cm, &sc, &r->out->search_result);
    if (st == LF_OK)
        st = lf_plan_copy(&r->out->plan, &r->out->search_result.best);
    for (int32_t i = 0; i < n_seeds; i++)
        lf_plan_destroy(&seeds[i]);
    return st;
}

/* How the pipeline runs each kind of row of the search table
 * (search/partition/searches.def). */
static lf_status lf__plan_direct(lf__run *r)
{
    return lf_search_find(r->cfg->search)->plan(r->cm, &r->out->plan);
}

static lf_status (*const lf__by_kind[])(lf__run *r) = {
    [LF_SEARCH_KIND_PLAN] = lf__plan_direct,
    [LF_SEARCH_KIND_BUDGET] = lf__plan_search,
    [LF_SEARCH_KIND_EXACT] = lf__plan_exact,
};

/* The splitter the heuristic searches repair invalid groups with; NULL for
 * the random split (the searches' default). */
static lf_status lf__open_splitter(lf_cost_model *cm, const lf_planner_config *c,
                                   lf_named_proposer *np, lf_splitter **sp)
{
    *sp = NULL;
    if (strcmp(c->split, "exact") == 0)
        return lf_splitter_exact_create(sp, LF_EXACT_SPLIT_DEFAULT_CANDIDATES);
    if (strcmp(c->split, "tree") != 0)
        return LF_OK;
    lf_status st = lf_named_proposer_open(np, c->proposer, cm, c->gnn_weights, c->pg_weights,
                                          c->rg_weights);
    if (st != LF_OK)
        return st;
    lf_tree_options opt;
    lf_tree_options_default(&opt);
    opt.cost_continue = c->split_continue;
    return lf_splitter_tree_create(sp, np->proposer, c->k, &opt);
}

/* Fills NULL names from the defaults and checks names and combinations
 * (numbers are the search's to check: a population of 0 is an error, not a
 * default). */
static lf_status lf__resolve(const lf_planner_config *in, lf_planner_config *c,
                             const lf_search_entry **planner)
{
    lf_planner_config d;
    lf_planner_config_default(&d);
    *c = *in;
    if (!c->search)
        c->search = d.search;
    if (!c->split)
        c->split = d.split;
    if (!c->proposer)
        c->proposer = d.proposer;
    lf_status st;
    if ((st = lf_name_check(LF_NAMES_SEARCH, c->search)) != LF_OK ||
        (st = lf_name_check(LF_NAMES_SPLIT, c->split)) != LF_OK ||
        (st = lf_name_check(LF_NAMES_PROPOSER, c->proposer)) != LF_OK ||
        (st = lf_named_proposer_check(c->proposer)) != LF_OK)
        return st;
    *planner = lf_search_find(c->search);
    int heuristic = (*planner)->kind == LF_SEARCH_KIND_BUDGET;
    char budgeted[128];
    lf_names_format(LF_NAMES_HEURISTIC, budgeted, sizeof budgeted);
    if (!heuristic && strcmp(c->split, "random") != 0)
        return lf_set_error(LF_EINVAL, "a split applies to the searches %s", budgeted);
    if (c->split_continue && strcmp(c->split, "tree") != 0)
        return lf_set_error(LF_EINVAL, "the split continuation applies to the tree splitter");
    if (!heuristic && (c->seed_plans || c->guided))
        return lf_set_error(LF_EINVAL, "seed plans and guided edits apply to the searches %s", budgeted);
    if (c->polish != 0 && (c->polish < 2 || (strcmp(c->search, "exact") == 0 && !c->best_effort)))
        return lf_set_error(LF_EINVAL, c->polish < 2 ? "a polish window needs at least 2 ops, got %d"
                                                     : "polish applies to greedy, layer, random, "
                                                       "local and nsga2, and to exact's best effort "
                                                       "(exact is optimal already)",
                            (int)c->polish);
    lf_plan_objective o = lf_plan_objective_from_name(c->objective);
    if (o == LF_PLAN_OBJ_COUNT)
        return lf_set_error(LF_EINVAL, "unknown objective '%.40s' (use dram, energy or latency)",
                            c->objective);
    if (heuristic && c->budget < 1)
        return lf_set_error(LF_EINVAL, "search budget must be at least 1 plan, got %lld",
                            (long long)c->budget);
    return LF_OK;
}

lf_status lf_plan_network(lf_cost_model *cm, const lf_planner_config *cfg, lf_planned *out)
{
    memset(out, 0, sizeof *out);
    out->exact_dram = -1;
    out->exact_objective = -1;
    out->budget = -1;
    lf_planner_config c;
    const lf_search_entry *pi;
    lf_status st = lf__resolve(cfg, &c, &pi);
    if (st != LF_OK)
        return st;
    if ((st = lf_cost_set_objective(cm, lf_plan_objective_from_name(c.objective))) != LF_OK)
        return st;
    out->search = pi->name;
    out->heuristic = pi->kind == LF_SEARCH_KIND_BUDGET;
    if (out->heuristic) {
        out->seed = c.seed;
        out->budget = c.budget;
    }
    lf_named_proposer np;
    memset(&np, 0, sizeof np);
    lf_splitter *sp = NULL;
    if (out->heuristic) {
        st = lf__open_splitter(cm, &c, &np, &sp);
        snprintf(out->split_name, sizeof out->split_name, "%s", sp ? sp->name : "random");
    }
    if (st == LF_OK) {
        lf__run run = {cm, &c, sp, out};
        double t0 = lf_now_seconds();
        st = lf__by_kind[pi->kind](&run);
        /* (exact's best effort polishes its upper bound itself) */
        if (st == LF_OK && c.polish > 0 && strcmp(c.search, "exact") != 0) {
            lf_polish_config pc;
            lf_polish_config_default(&pc);
            pc.window_ops = c.polish;
            st = lf_exact_polish(cm, &pc, &out->plan, &out->polish);
        }
        out->wall_s = lf_now_seconds() - t0;
    }
    /* A measurement, not part of planning: after the clock stopped. */
    if (st == LF_OK && sp && c.split_gap && strcmp(c.split, "tree") == 0)
        st = lf_splitter_tree_measure_gaps(sp, cm);
    if (st == LF_OK && sp && lf_splitter_tree_stats(sp, &out->tree_stats) == LF_OK)
        out->have_tree_stats = 1;
    lf_splitter_free(sp);
    lf_named_proposer_close(&np);
    if (st == LF_OK) {
        lf_plan_canonicalize(&out->plan);
        st = lf_plan_check(&out->plan, cm);
    }
    if (st == LF_OK)
        st = lf_plan_metrics_compute(&out->plan, cm, &out->metrics);
    if (st != LF_OK)
        return st;
    if (strcmp(out->search, "exact") == 0) {
        out->exact_dram = out->metrics.dram_fusable; /* the plan is the optimum: no second run */
        out->exact_objective = out->metrics.objective;
    } else if (c.compare_exact) {
        /* One deadline for the optimum and its fallback bound, as for
         * --search exact: the DP has its share, the certificate the rest. */
        lf_exact_config xc = c.exact, dp;
        double limit = xc.time_limit_s;
        if (limit > 0) {
            double now = lf_now_seconds();
            if (xc.deadline <= 0 || now + limit < xc.deadline)
                xc.deadline = now + limit;
        }
        dp = xc;
        if (limit > 0)
            dp.deadline -= limit * (1 - LF__DP_SHARE);
        dp.lower_bound = 1;
        lf_plan opt;
        lf_plan_metrics mo;
        lf_exact_stats xst;
        lf_status xs = lf_exact_plan(cm, &dp, &opt, &xst);
        if (xs == LF_OK && lf_plan_metrics_compute(&opt, cm, &mo) == LF_OK) {
            out->exact_dram = mo.dram_fusable;
            out->exact_objective = mo.objective;
        } else {
            snprintf(out->exact_error, sizeof out->exact_error, "%s", lf_last_error());
        }
        if (xs == LF_OK)
            lf_plan_destroy(&opt);
        /* Past a limit, a certified lower bound still bounds the gap from
         * above (never a silent heuristic). */
        lf_exact_bounds b;
        if (xs == LF_ELIMIT) {
            double now = lf_now_seconds();
            if (xc.deadline > 0)
                xc.time_limit_s = xc.deadline - now > 1e-3 ? xc.deadline - now : 1e-3;
        }
        if (xs == LF_ELIMIT && lf_exact_bounds_certify(cm, &xc, &opt, &b) == LF_OK) {
            lf_plan_destroy(&opt);
            out->lower_bound = b.lower > xst.lower ? b.lower : xst.lower;
        }
    }
    return LF_OK;
}

void lf_planned_destroy(lf_planned *r)
{
    lf_plan_destroy(&r->plan);
    lf_search_result_destroy(&r->search_result);
    memset(r, 0, sizeof *r);
    r->exact_dram = -1;
    r->exact_objective = -1;
}

void lf_pipeline_config_default(lf_pipeline_config *c)
{
    memset(c, 0, sizeof *c);
    lf_hw_default(&c->hw);
    c->scheme = "lbdf";
    lf_planner_config_default(&c->planner);
}

lf_status lf_pipeline_open(lf_pipeline *p, const lf_pipeline_config *cfg)
{
    memset(p, 0, sizeof *p);
    p->result.exact_dram = -1;
    p->result.exact_objective = -1;
    const char *scheme = cfg->scheme ? cfg->scheme : "lbdf";
    lf_status st = lf_name_check(LF_NAMES_SCHEME, scheme);
    if (st == LF_OK)
        st = lf_model_source_load(&cfg->source, &p->graph, NULL);
    if (st == LF_OK)
        st = lf_cost_model_create(&p->cm, p->graph, &cfg->hw, scheme);
    if (st == LF_OK)
        p->model_name = cfg->source.onnx ? p->graph->name : lf_model_source_name(&cfg->source);
    if (st == LF_OK)
        p->onnx_source = cfg->source.onnx;
    return st;
}

lf_status lf_pipeline_run(lf_pipeline *p, const lf_pipeline_config *cfg)
{
    lf_status st = lf_pipeline_open(p, cfg);
    return st == LF_OK ? lf_plan_network(p->cm, &cfg->planner, &p->result) : st;
}

lf_status lf_pipeline_save(lf_pipeline *p, const char *path, const char *format, int pareto)
{
    const lf_planned *r = &p->result;
    lf_plan_meta meta = {p->model_name,
                         r->search,
                         r->heuristic ? r->seed : 0,
                         r->heuristic ? r->budget : -1,
                         pareto ? r->search_result.n_pareto : 0,
                         pareto ? r->search_result.pareto : NULL,
                         p->onnx_source,
                         p->residency};
    if (format && !lf_name_known(LF_NAMES_EXPORTER, format))
        return lf_name_check(LF_NAMES_EXPORTER, format);
    return lf_plan_save(path, format, &r->plan, p->cm, &meta);
}

void lf_pipeline_close(lf_pipeline *p)
{
    lf_planned_destroy(&p->result);
    lf_cost_model_free(p->cm);
    lf_graph_free(p->graph);
    memset(p, 0, sizeof *p);
}
