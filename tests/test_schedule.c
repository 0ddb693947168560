/* search/schedule: DOS against brute force over every stage partition on
 * random small DAGs, the merge rule, the block decomposition, a
 * hand-computed merged-conv latency, a custom latency backend, schedule
 * validity and determinism on inception_v3, bad options. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hwdesc/hw.h"
#include "models/randwire.h"
#include "models/registry.h"
#include "planner/util/rng.h"
#include "planner/gpu/device.h"
#include "search/schedule/measured.h"
#include "search/schedule/report.h"
#include "search/schedule/schedule.h"
#include "search/schedule/schedule_internal.h"
#include "testlib.h"

/* ---- graphs ------------------------------------------------------------ */

static int32_t add_input(lf_graph_builder *b, const char *name, int c, int h)
{
    lf_attrs a;
    memset(&a, 0, sizeof a);
    a.batch = 1, a.in_c = c, a.in_h = h, a.in_w = h;
    return lf_graph_builder_add(b, LF_OP_INPUT, name, &a, NULL, 0);
}

/* kh x kw conv, stride s, padding top/left/bottom/right, groups, dilation. */
static int32_t add_conv(lf_graph_builder *b, const char *name, const char *in, int cout, int kh, int kw, int s,
                        int pt, int pl, int pb, int pr, int groups, int dil)
{
    lf_attrs a;
    memset(&a, 0, sizeof a);
    a.out_channels = cout, a.kh = kh, a.kw = kw, a.sh = s, a.sw = s;
    a.pad_top = pt, a.pad_left = pl, a.pad_bottom = pb, a.pad_right = pr;
    a.groups = groups, a.dh = dil, a.dw = dil;
    const char *ins[1] = {in};
    return lf_graph_builder_add(b, LF_OP_CONV, name, &a, ins, 1);
}

static int32_t add_op(lf_graph_builder *b, lf_op_type t, const char *name, const char *x, const char *y)
{
    const char *ins[2] = {x, y};
    lf_attrs a;
    memset(&a, 0, sizeof a);
    if (t == LF_OP_MAXPOOL)
        a.kh = a.kw = 3, a.sh = a.sw = 1, a.pad_top = a.pad_left = a.pad_bottom = a.pad_right = 1;
    return lf_graph_builder_add(b, t, name, &a, ins, y ? 2 : 1);
}

/* A random DAG of `units` scheduling units over an 8 x 8 x 8 input: convs
 * (1x1, 3x3, 5x5, 1x3, 3x1, centred padding so every map stays 8 x 8 and
 * many share an input and can merge; some followed by a ReLU that becomes
 * their epilogue), max pools, adds and concats of earlier tensors. */
static lf_graph *random_dag(uint64_t seed, int units)
{
    lf_rng r;
    lf_rng_seed(&r, seed, 14);
    lf_graph_builder *b = NULL;
    if (lf_graph_builder_create(&b, "rand"))
        return NULL;
    add_input(b, "x", 8, 8);
    char names[16][16];
    int c8[16], n = 1; /* tensors so far; c8: has 8 channels */
    strcpy(names[0], "x");
    c8[0] = 1;
    for (int u = 0; u < units; u++) {
        char nm[16];
        snprintf(nm, sizeof nm, "u%d", u);
        int kind = (int)lf_rng_below(&r, 10), src = (int)lf_rng_below(&r, (uint32_t)n);
        if (kind < 6 || n < 2) {
            static const int kh[5] = {1, 3, 5, 1, 3}, kw[5] = {1, 3, 5, 3, 1};
            int k = (int)lf_rng_below(&r, 5);
            add_conv(b, nm, names[src], 8, kh[k], kw[k], 1, kh[k] / 2, kw[k] / 2, kh[k] / 2, kw[k] / 2, 1, 1);
            if (lf_rng_below(&r, 2)) {
                char rl[16];
                snprintf(rl, sizeof rl, "r%d", u);
                add_op(b, LF_OP_RELU, rl, nm, NULL);
                strcpy(nm, rl);
            }
            c8[n] = 1;
        } else if (kind == 6) {
            add_op(b, LF_OP_MAXPOOL, nm, names[src], NULL);
            c8[n] = c8[src];
        } else {
            int other = (int)lf_rng_below(&r, (uint32_t)n);
            if (other == src)
                other = (src + 1) % n;
            if (kind < 9 && c8[src] && c8[other]) {
                add_op(b, LF_OP_ADD, nm, names[src], names[other]);
                c8[n] = 1;
            } else {
                add_op(b, LF_OP_CONCAT, nm, names[src], names[other]);
                c8[n] = 0;
            }
        }
        strcpy(names[n++], nm);
    }
    lf_graph *g = NULL;
    lf_status s = lf_graph_builder_build(b, &g);
    lf_graph_builder_free(b);
    if (s)
        fprintf(stderr, "random_dag %llu: %s\n", (unsigned long long)seed, lf_last_error());
    return s ? NULL : g;
}

/* ---- brute force over every stage partition ------------------------------ */

typedef struct brute {
    lf__sched *x;
    int n;
    uint32_t pred[16], succ[16];
    double best;
    int64_t sequences;
} brute;

/* Groups of concurrent stage t (each unit's preds done or in t, checked by the
 * caller): its weakly connected components must be chains of at most r
 * units, at most s of them. Fills units/start in execution order. */
static int chain_groups(const brute *bf, uint32_t t, int32_t *units, int32_t *start)
{
    int ng = 0, k = 0;
    for (int i = 0; i < bf->n; i++) {
        if (!((t >> i) & 1))
            continue;
        uint32_t pin = bf->pred[i] & t, sin = bf->succ[i] & t;
        if ((pin & (pin - 1)) || (sin & (sin - 1)))
            return -1; /* two predecessors or successors inside the stage: no chain */
    }
    uint32_t seen = 0;
    for (int i = 0; i < bf->n; i++) {
        if (!((t >> i) & 1) || (bf->pred[i] & t))
            continue;
        start[ng++] = k;
        int len = 0;
        for (int j = i; j >= 0;) {
            units[k++] = j;
            seen |= 1u << j;
            len++;
            uint32_t nx = bf->succ[j] & t;
            j = nx ? __builtin_ctz(nx) : -1;
        }
        if (len > bf->x->o.max_group_ops)
            return -1;
    }
    start[ng] = k;
    if (seen != t || ng > bf->x->o.max_groups)
        return -1;
    return ng;
}

static void brute_rec(brute *bf, uint32_t done, double cost)
{
    uint32_t all = (1u << bf->n) - 1, rest = all & ~done;
    if (!rest) {
        bf->sequences++;
        if (cost < bf->best)
            bf->best = cost;
        return;
    }
    for (uint32_t t = rest; t; t = (t - 1) & rest) {
        int ok = 1;
        for (int i = 0; i < bf->n && ok; i++)
            if (((t >> i) & 1) && (bf->pred[i] & ~(done | t)))
                ok = 0;
        if (!ok)
            continue;
        int32_t units[16], start[17];
        for (int strategy = 0; strategy < 2; strategy++) {
            int ng;
            if (strategy == LF_SCHED_CONCURRENT) {
                ng = chain_groups(bf, t, units, start);
                if (ng > 1 && !bf->x->o.concurrent)
                    ng = -1;
                if (ng == 1 && !bf->x->o.concurrent && (t & (t - 1)))
                    ng = -1;
            } else {
                ng = 0;
                for (int i = 0; i < bf->n; i++)
                    if ((t >> i) & 1)
                        start[ng] = ng, units[ng++] = i;
                start[ng] = ng;
                int indep = 1;
                for (int i = 0; i < bf->n; i++)
                    if (((t >> i) & 1) && (bf->pred[i] & t))
                        indep = 0;
                if (!bf->x->o.merge || !indep || !lf__merge_ok(bf->x, units, ng))
                    ng = -1;
            }
            if (ng < 1)
                continue;
            double lat;
            if (lf__stage_latency(bf->x, (lf_sched_strategy)strategy, units, start, ng, &lat))
                return;
            brute_rec(bf, done | t, cost + lat);
        }
    }
}

static double brute_force(lf__sched *x, int64_t *sequences)
{
    brute bf;
    memset(&bf, 0, sizeof bf);
    bf.x = x;
    bf.n = x->n;
    for (int i = 0; i < x->n; i++) {
        for (int k = x->pred_start[i]; k < x->pred_start[i + 1]; k++)
            bf.pred[i] |= 1u << x->pred[k];
        for (int k = x->succ_start[i]; k < x->succ_start[i + 1]; k++)
            bf.succ[i] |= 1u << x->succ[k];
    }
    bf.best = INFINITY;
    brute_rec(&bf, 0, 0.0);
    *sequences = bf.sequences;
    return bf.best;
}

/* Every unit exactly once, dependencies respected (a predecessor in an
 * earlier stage or earlier in the same group), merged stages legal, and
 * the total the sum of the stages. */
static int schedule_valid(const lf_graph *g, const lf_schedule *s, const lf_sched_options *o)
{
    lf__sched x;
    if (lf__sched_init(&x, g, o, NULL)) {
        lf__sched_teardown(&x);
        return 0;
    }
    int ok = 1;
    int32_t *stage_of = malloc(sizeof(int32_t) * (size_t)x.n), *pos = malloc(sizeof(int32_t) * (size_t)x.n);
    int32_t *group_of = malloc(sizeof(int32_t) * (size_t)x.n);
    for (int32_t u = 0; u < x.n; u++)
        stage_of[u] = -1;
    double total = 0.0;
    for (int32_t i = 0; i < s->n_stages; i++) {
        total += s->latency_s[i];
        int32_t munits[64], nm = 0;
        for (int32_t j = s->stage_start[i]; j < s->stage_start[i + 1]; j++)
            for (int32_t k = s->group_start[j]; k < s->group_start[j + 1]; k++) {
                int32_t u = x.unit_of[s->ops[s->op_start[k]]];
                if (u < 0 || stage_of[u] >= 0 || x.u[u].op != s->ops[s->op_start[k]])
                    ok = 0;
                else
                    stage_of[u] = i, pos[u] = k, group_of[u] = j;
                if (nm < 64 && u >= 0)
                    munits[nm++] = u;
            }
        if (s->strategy[i] == LF_SCHED_MERGE && !lf__merge_ok(&x, munits, nm))
            ok = 0;
    }
    for (int32_t u = 0; u < x.n && ok; u++) {
        if (stage_of[u] < 0) {
            ok = 0;
            break;
        }
        for (int32_t k = x.pred_start[u]; k < x.pred_start[u + 1]; k++) {
            int32_t p = x.pred[k];
            if (stage_of[p] > stage_of[u] ||
                (stage_of[p] == stage_of[u] && (group_of[p] != group_of[u] || pos[p] > pos[u])))
                ok = 0;
        }
    }
    if (fabs(total - s->latency_total_s) > 1e-12 * (1 + total))
        ok = 0;
    free(stage_of);
    free(pos);
    free(group_of);
    lf__sched_teardown(&x);
    return ok;
}

static void test_brute_force(void)
{
    struct {
        int r, s, merge, concurrent;
    } knobs[] = {{3, 8, 1, 1}, {1, 8, 1, 1}, {2, 2, 1, 1}, {3, 8, 0, 1}, {3, 8, 1, 0}, {2, 1, 1, 1}};
    int graphs = 0, merged_wins = 0, concurrent_wins = 0;
    for (uint64_t seed = 1; seed <= 60; seed++) {
        int units = 2 + (int)(seed % 6); /* 2..7 */
        lf_graph *g = random_dag(seed, units);
        CHECK(g != NULL);
        if (!g)
            continue;
        graphs++;
        for (size_t k = 0; k < sizeof knobs / sizeof knobs[0]; k++) {
            lf_sched_options o;
            lf_sched_options_default(&o);
            o.max_group_ops = knobs[k].r, o.max_groups = knobs[k].s;
            o.merge = knobs[k].merge, o.concurrent = knobs[k].concurrent;
            lf__sched x;
            CHECK_OK(lf__sched_init(&x, g, &o, NULL));
            CHECK_EQ_I64(x.n, units);
            int64_t seqs = 0;
            double best = brute_force(&x, &seqs);
            lf__sched_teardown(&x);
            lf_sched_result r;
            CHECK_OK(lf_sched_run(g, &o, &r));
            CHECK(seqs >= 1);
            CHECK_NEAR(r.dos.latency_total_s, best, 1e-12 * best);
            CHECK(r.dos.latency_total_s <= r.sequential.latency_total_s * (1 + 1e-12));
            CHECK(schedule_valid(g, &r.dos, &o));
            CHECK(schedule_valid(g, &r.greedy, &o));
            CHECK(schedule_valid(g, &r.sequential, &o));
            if (k == 0) {
                for (int32_t i = 0; i < r.dos.n_stages; i++) {
                    merged_wins += r.dos.strategy[i] == LF_SCHED_MERGE;
                    concurrent_wins += r.dos.stage_start[i + 1] - r.dos.stage_start[i] > 1;
                }
            }
            lf_sched_result_destroy(&r);
        }
        lf_graph_free(g);
    }
    CHECK_EQ_I64(graphs, 60);
    /* the random graphs exercise both strategies */
    CHECK(merged_wins > 0);
    CHECK(concurrent_wins > 0);
}

/* ---- the merge rule ------------------------------------------------------ */

static void test_merge_rule(void)
{
    lf_graph_builder *b = NULL;
    CHECK_OK(lf_graph_builder_create(&b, "merge"));
    add_input(b, "x", 8, 10);
    add_input(b, "y", 8, 10);
    add_conv(b, "c1", "x", 8, 1, 1, 1, 0, 0, 0, 0, 1, 1);
    add_conv(b, "c3", "x", 8, 3, 3, 1, 1, 1, 1, 1, 1, 1);
    add_conv(b, "c5", "x", 4, 5, 5, 1, 2, 2, 2, 2, 1, 1);
    add_conv(b, "c13", "x", 8, 1, 3, 1, 0, 1, 0, 1, 1, 1);
    add_conv(b, "c31", "x", 8, 3, 1, 1, 1, 0, 1, 0, 1, 1);
    add_conv(b, "c3s2", "x", 8, 3, 3, 2, 1, 1, 1, 1, 1, 1);
    add_conv(b, "c3p0", "x", 8, 3, 3, 1, 0, 0, 0, 0, 1, 1);
    add_conv(b, "c2", "x", 8, 2, 2, 1, 0, 0, 1, 1, 1, 1);
    add_conv(b, "c3g", "x", 8, 3, 3, 1, 1, 1, 1, 1, 2, 1);
    add_conv(b, "c3d", "x", 8, 3, 3, 1, 2, 2, 2, 2, 1, 2);
    add_conv(b, "c3r", "x", 8, 3, 3, 1, 1, 1, 1, 1, 1, 1);
    add_op(b, LF_OP_RELU, "c3r.relu", "c3r", NULL);
    add_conv(b, "c1r", "x", 8, 1, 1, 1, 0, 0, 0, 0, 1, 1);
    add_op(b, LF_OP_RELU, "c1r.relu", "c1r", NULL);
    add_conv(b, "c3y", "y", 8, 3, 3, 1, 1, 1, 1, 1, 1, 1);
    add_conv(b, "c3off", "x", 8, 3, 3, 1, 0, 0, 2, 2, 1, 1); /* same size, kernel off-centre */
    lf_graph *g = NULL;
    CHECK_OK(lf_graph_builder_build(b, &g));
    lf_graph_builder_free(b);
    if (!g)
        return;
    lf_sched_options o;
    lf_sched_options_default(&o);
    lf__sched x;
    CHECK_OK(lf__sched_init(&x, g, &o, NULL));
    CHECK_EQ_I64(x.n, 14); /* 14 convs; the two ReLUs are epilogues */
#define U(name) x.unit_of[lf_graph_find(g, name)]
    struct {
        const char *a, *b, *c;
        int ok;
    } cases[] = {
        {"c1", "c3", NULL, 1},     {"c1", "c3", "c5", 1},    {"c13", "c31", NULL, 1}, {"c1", "c13", "c31", 1},
        {"c1r", "c3r", NULL, 1},   {"c3", "c3s2", NULL, 0},  {"c3", "c3p0", NULL, 0}, {"c3", "c2", NULL, 0},
        {"c3", "c3g", NULL, 0},    {"c3", "c3d", NULL, 0},   {"c3", "c3r", NULL, 0},  {"c1", "c1r", NULL, 0},
        {"c3", "c3y", NULL, 0},    {"c3", "c3off", NULL, 0}, {"c3", NULL, NULL, 0},   {"c3", "c3", NULL, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int32_t us[3], n = 0;
        us[n++] = U(cases[i].a);
        if (cases[i].b)
            us[n++] = U(cases[i].b);
        if (cases[i].c)
            us[n++] = U(cases[i].c);
        int got = lf__merge_ok(&x, us, n);
        if (got != cases[i].ok)
            fprintf(stderr, "merge case %d (%s %s %s): %d, expected %d\n", (int)i, cases[i].a,
                    cases[i].b ? cases[i].b : "", cases[i].c ? cases[i].c : "", got, cases[i].ok);
        CHECK_EQ_I64(got, cases[i].ok);
    }
    /* The merged {c1, c3}: a 3 x 3 conv, 8 -> 16 channels on 10 x 10, no
     * bias: 2 x 100 x 16 x 8 x 9 = 230,400 FLOPs; (800 in + 1,600 out +
     * 1,152 weights) x 4 = 14,208 bytes; default roofline (15.7 TFLOP/s,
     * 900 GB/s, 5 us a launch): bandwidth-bound. */
    int32_t m2[2] = {U("c1"), U("c3")}, start[3] = {0, 1, 2};
    double lat = 0;
    CHECK_OK(lf__stage_latency(&x, LF_SCHED_MERGE, m2, start, 2, &lat));
    CHECK_NEAR(lat, fmax(230400.0 / 15.7e12, 14208.0 / 900e9) + 5e-6, 1e-15);
    /* Both side by side: the longer group, at least the stage's total work
     * plus one launch. c1: 12,800 FLOPs, (800 + 800 + 64) x 4 bytes; c3:
     * 115,200 FLOPs, (800 + 800 + 576) x 4 bytes. */
    double conc = 0;
    CHECK_OK(lf__stage_latency(&x, LF_SCHED_CONCURRENT, m2, start, 2, &conc));
    double t1 = fmax(12800.0 / 15.7e12, (800.0 + 800 + 64) * 4 / 900e9) + 5e-6;
    double t3 = fmax(115200.0 / 15.7e12, (800.0 + 800 + 576) * 4 / 900e9) + 5e-6;
    double tot = fmax((12800.0 + 115200) / 15.7e12, (1664.0 + 2176) * 4 / 900e9) + 5e-6;
    CHECK_NEAR(conc, fmax(fmax(t1, t3), tot), 1e-15);
#undef U
    lf__sched_teardown(&x);
    lf_graph_free(g);
}

/* ---- block decomposition ------------------------------------------------- */

static void test_blocks(void)
{
    lf_graph_builder *b = NULL;
    CHECK_OK(lf_graph_builder_create(&b, "blocks"));
    add_input(b, "x", 4, 8);
    add_conv(b, "a", "x", 4, 3, 3, 1, 1, 1, 1, 1, 1, 1);
    add_conv(b, "b", "a", 4, 1, 1, 1, 0, 0, 0, 0, 1, 1);
    add_conv(b, "c", "a", 4, 3, 3, 1, 1, 1, 1, 1, 1, 1);
    add_op(b, LF_OP_ADD, "d", "b", "c");
    add_op(b, LF_OP_RELU, "d.relu", "d", NULL); /* epilogue of d */
    add_conv(b, "e", "d.relu", 4, 1, 1, 1, 0, 0, 0, 0, 1, 1);
    add_conv(b, "f", "e", 4, 1, 1, 1, 0, 0, 0, 0, 1, 1);
    add_conv(b, "g", "e", 4, 1, 1, 1, 0, 0, 0, 0, 1, 1);
    add_op(b, LF_OP_ADD, "h", "f", "g");
    lf_graph *g = NULL;
    CHECK_OK(lf_graph_builder_build(b, &g));
    lf_graph_builder_free(b);
    lf_sched_options o;
    lf_sched_options_default(&o);
    lf__sched x;
    if (g) {
        CHECK_OK(lf__sched_init(&x, g, &o, NULL));
        CHECK_EQ_I64(x.n, 8);
        uint8_t cut[8];
        int32_t start[9];
        int32_t nb = lf__sched_blocks(&x, cut, start);
        /* units a b c d e f g h: cuts a, d, e, h; blocks [a] [b c] [d e] [f g] [h]
         * (the run of cuts d, e stays one block) */
        uint8_t want_cut[8] = {1, 0, 0, 1, 1, 0, 0, 1};
        int32_t want_start[6] = {0, 1, 3, 5, 7, 8};
        CHECK_EQ_I64(nb, 5);
        CHECK(memcmp(cut, want_cut, 8) == 0);
        CHECK(nb == 5 && memcmp(start, want_start, sizeof want_start) == 0);
        lf__sched_teardown(&x);
        lf_graph_free(g);
    }
    /* A skip edge spans b and c; a second source (k) after a keeps a and d
     * from being cuts: only the final add is. */
    CHECK_OK(lf_graph_builder_create(&b, "skip"));
    add_input(b, "x", 4, 8);
    add_conv(b, "a", "x", 4, 3, 3, 1, 1, 1, 1, 1, 1, 1);
    add_conv(b, "b", "a", 4, 1, 1, 1, 0, 0, 0, 0, 1, 1);
    add_conv(b, "c", "b", 4, 1, 1, 1, 0, 0, 0, 0, 1, 1);
    add_op(b, LF_OP_ADD, "d", "a", "c");
    add_conv(b, "k", "x", 4, 1, 1, 1, 0, 0, 0, 0, 1, 1);
    add_op(b, LF_OP_ADD, "e", "d", "k");
    g = NULL;
    CHECK_OK(lf_graph_builder_build(b, &g));
    lf_graph_builder_free(b);
    if (g) {
        CHECK_OK(lf__sched_init(&x, g, &o, NULL));
        uint8_t cut[6];
        int32_t start[7];
        int32_t nb = lf__sched_blocks(&x, cut, start);
        CHECK_EQ_I64(x.n, 6);
        CHECK_EQ_I64(nb, 2);
        CHECK(cut[5] == 1 && cut[0] == 0 && cut[3] == 0 && cut[1] == 0);
        CHECK(start[0] == 0 && start[1] == 5 && start[2] == 6);
        lf__sched_teardown(&x);
        lf_graph_free(g);
    }
}

/* ---- backends, the knobs, validity and determinism ---------------------- */

static int calls;
static lf_status one_per_stage(void *ctx, const lf_sched_stage_view *v, double *seconds)
{
    (void)ctx;
    (void)v;
    calls++;
    *seconds = 1.0;
    return LF_OK;
}

static void test_custom_backend(void)
{
    /* A chain of seven convs: with every stage costing 1, DOS needs
     * ceil(7 / r) stages (one group of r chained convs each). */
    lf_graph_builder *b = NULL;
    CHECK_OK(lf_graph_builder_create(&b, "chain"));
    add_input(b, "x", 4, 8);
    char prev[16] = "x";
    for (int i = 0; i < 7; i++) {
        char nm[16];
        snprintf(nm, sizeof nm, "c%d", i);
        add_conv(b, nm, prev, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1);
        strcpy(prev, nm);
    }
    lf_graph *g = NULL;
    CHECK_OK(lf_graph_builder_build(b, &g));
    lf_graph_builder_free(b);
    if (!g)
        return;
    for (int r = 1; r <= 4; r++) {
        lf_sched_options o;
        lf_sched_options_default(&o);
        o.latency = LF_SCHED_CUSTOM;
        o.latency_fn = one_per_stage;
        o.max_group_ops = r;
        lf_sched_result res;
        calls = 0;
        CHECK_OK(lf_sched_run(g, &o, &res));
        CHECK_EQ_I64(res.dos.n_stages, (7 + r - 1) / r);
        CHECK_NEAR(res.dos.latency_total_s, (7 + r - 1) / r, 1e-12);
        CHECK_NEAR(res.sequential.latency_total_s, 7, 1e-12);
        CHECK_NEAR(res.greedy.latency_total_s, 7, 1e-12); /* a chain has one ready op at a time */
        CHECK(calls > 0);
        lf_sched_result_destroy(&res);
    }
    /* measured without a backend: LF_ENOSYS; bad knobs: LF_EINVAL */
    lf_sched_options o;
    lf_sched_options_default(&o);
    o.latency = LF_SCHED_MEASURED;
    lf_sched_result res;
    CHECK_EQ_I64(lf_sched_run(g, &o, &res), LF_ENOSYS);
    CHECK(strstr(lf_last_error(), "analytic") != NULL);
    lf_sched_result_destroy(&res);
    int bad[][4] = {{0, 8, 40, 10}, {3, 0, 40, 10}, {3, 8, 65, 10}, {3, 8, 40, 0}, {65, 8, 40, 10}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        lf_sched_options_default(&o);
        o.max_group_ops = bad[i][0], o.max_groups = bad[i][1], o.max_part_ops = bad[i][2];
        o.greedy_streams = bad[i][3];
        CHECK_EQ_I64(lf_sched_run(g, &o, &res), LF_EINVAL);
        lf_sched_result_destroy(&res);
    }
    CHECK_EQ_I64(lf_sched_run(NULL, &o, &res), LF_EINVAL);
    lf_graph_free(g);
}

static char *json_of(const lf_graph *g, const lf_sched_options *o, lf_sched_result *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    r->stats.search_s = 0.0; /* the one figure that varies */
    lf_sched_write_json(g, "m", o, r, f);
    fclose(f);
    return buf;
}

static void test_inception(void)
{
    lf_graph *g = NULL;
    lf_model_options mo = {0, 1};
    CHECK_OK(lf_model_build("inception_v3", &mo, &g));
    if (!g)
        return;
    lf_hw hw;
    lf_hw_default(&hw);
    lf_sched_options o;
    lf_sched_options_default(&o);
    o.hw = &hw;
    lf_sched_result a, b;
    CHECK_OK(lf_sched_run(g, &o, &a));
    CHECK_OK(lf_sched_run(g, &o, &b));
    CHECK(a.dos.latency_total_s <= a.greedy.latency_total_s);
    CHECK(a.greedy.latency_total_s <= a.sequential.latency_total_s);
    CHECK(a.dos.latency_total_s < 0.95 * a.sequential.latency_total_s);
    CHECK(schedule_valid(g, &a.dos, &o));
    CHECK(schedule_valid(g, &a.greedy, &o));
    CHECK(schedule_valid(g, &a.sequential, &o));
    /* torchvision's Inception-v3: 219 ops, 94 ReLUs run as epilogues */
    CHECK_EQ_I64(a.stats.units, 219 - 94);
    CHECK_EQ_I64(a.sequential.n_stages, 125);
    char *ja = json_of(g, &o, &a), *jb = json_of(g, &o, &b);
    CHECK(ja && jb && strcmp(ja, jb) == 0);
    CHECK(ja && strstr(ja, "\"sequential\": {") && strstr(ja, "\"greedy\": {") && strstr(ja, "\"dos\": {"));
    free(ja);
    free(jb);
    lf_sched_result_destroy(&a);
    lf_sched_result_destroy(&b);
    /* a tiny state limit halves parts down to single units: still a valid
     * schedule, never better than the optimum */
    o.max_states = 3;
    lf_sched_result c;
    CHECK_OK(lf_sched_run(g, &o, &c));
    CHECK(schedule_valid(g, &c.dos, &o));
    lf_sched_options zero;
    memset(&zero, 0, sizeof zero);
    CHECK_EQ_I64(lf_sched_run(g, &zero, &b), LF_EINVAL);
    lf_sched_result_destroy(&b);
    lf_sched_options_default(&o);
    o.hw = &hw;
    CHECK_OK(lf_sched_run(g, &o, &a));
    CHECK(c.dos.latency_total_s >= a.dos.latency_total_s - 1e-15);
    lf_sched_result_destroy(&a);
    lf_sched_result_destroy(&c);
    lf_graph_free(g);
}


/* ---- RandWire ------------------------------------------------------------ */

/* Edges of a random stage: one reader inside the stage per (u, v) edge of
 * node u's output. */
static int stage_edges(const lf_graph *g, const char *stage, int *sinks)
{
    char node[32], out[32];
    snprintf(node, sizeof node, "%s.node", stage);
    snprintf(out, sizeof out, "%s.out", stage);
    int edges = 0;
    *sinks = 0;
    for (int32_t v = 0; v < g->n_ops; v++) {
        const char *nm = g->ops[v].name;
        size_t l = strlen(nm);
        if (strncmp(nm, node, strlen(node)) != 0 || l < 3 || strcmp(nm + l - 3, ".pw") != 0)
            continue;
        for (int32_t k = 0; k < g->ops[v].n_consumers; k++) {
            const char *c = g->ops[g->ops[v].consumers[k]].name;
            edges += strncmp(c, node, strlen(node)) == 0;
            *sinks += strncmp(c, out, strlen(out)) == 0;
        }
    }
    return edges;
}

static void test_randwire(void)
{
    lf_randwire_config c;
    lf_randwire_config_default(&c);
    CHECK(c.channels == 78 && c.nodes == 32 && c.k == 4 && c.p == 0.75);
    lf_graph *a = NULL, *b = NULL;
    CHECK_OK(lf_model_randwire_ws(&c, NULL, &a));
    CHECK_OK(lf_model_randwire_ws(&c, NULL, &b));
    if (!a || !b)
        return;
    CHECK(a->hash == b->hash && a->n_ops == b->n_ops); /* seeded: the same graph */
    int dw = 0;
    for (int32_t v = 0; v < a->n_ops; v++)
        dw += a->ops[v].type == LF_OP_CONV && a->ops[v].attr.groups > 1;
    CHECK_EQ_I64(dw, 3 * 32);
    /* WS rewiring keeps N K / 2 edges; every stage has sinks; 7 x 7 x 312 at the end */
    const char *stages[3] = {"conv3", "conv4", "conv5"};
    for (int i = 0; i < 3; i++) {
        int sinks = 0;
        CHECK_EQ_I64(stage_edges(a, stages[i], &sinks), 32 * 4 / 2);
        CHECK(sinks >= 1);
    }
    int32_t last = lf_graph_find(a, "conv5.out.sum1");
    CHECK(last >= 0 && a->ops[last].out.c == 4 * 78 && a->ops[last].out.h == 7);
    /* another seed, another graph; P = 0 is the ring lattice, the same for any seed */
    c.seed = 2;
    lf_graph *d = NULL;
    CHECK_OK(lf_model_randwire_ws(&c, NULL, &d));
    CHECK(d && d->hash != a->hash);
    lf_graph_free(d);
    c.p = 0.0;
    lf_graph *e = NULL, *f = NULL;
    CHECK_OK(lf_model_randwire_ws(&c, NULL, &e));
    c.seed = 7;
    CHECK_OK(lf_model_randwire_ws(&c, NULL, &f));
    CHECK(e && f && e->hash == f->hash);
    lf_graph_free(e);
    lf_graph_free(f);
    c.k = 3;
    CHECK_EQ_I64(lf_model_randwire_ws(&c, NULL, &e), LF_EINVAL);
    /* its schedules: valid, parts and all */
    lf_sched_options o;
    lf_sched_options_default(&o);
    lf_sched_result r;
    CHECK_OK(lf_sched_run(a, &o, &r));
    CHECK(r.stats.parts > r.stats.blocks && r.stats.largest_part <= 16);
    CHECK(schedule_valid(a, &r.dos, &o));
    CHECK(schedule_valid(a, &r.greedy, &o));
    CHECK(r.greedy.latency_total_s <= r.sequential.latency_total_s);
    CHECK(r.dos.latency_total_s <= r.sequential.latency_total_s);
    lf_sched_result_destroy(&r);
    lf_graph_free(a);
    lf_graph_free(b);
}

/* ---- schedules read back and priced at another batch --------------------- */

static int write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return 0;
    fputs(text, f);
    return fclose(f) == 0;
}

static void test_evaluate(void)
{
    lf_graph *g1 = NULL, *g8 = NULL;
    lf_model_options m1 = {0, 1}, m8 = {0, 8};
    CHECK_OK(lf_model_build("inception_v3", &m1, &g1));
    CHECK_OK(lf_model_build("inception_v3", &m8, &g8));
    if (!g1 || !g8)
        return;
    lf_sched_options o;
    lf_sched_options_default(&o);
    lf_sched_result r1, r8;
    CHECK_OK(lf_sched_run(g1, &o, &r1));
    CHECK_OK(lf_sched_run(g8, &o, &r8));
    char path[64];
    snprintf(path, sizeof path, "/tmp/lf_test_schedule_%d.json", (int)getpid());
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        CHECK_OK(lf_sched_write_json(g1, "inception_v3", &o, &r1, f));
        fclose(f);
    }
    /* read back on its own graph: the same stages and latency */
    lf_schedule back, at8, again;
    CHECK_OK(lf_sched_read_json(path, "dos", g1, &o, &back));
    CHECK_EQ_I64(back.n_stages, r1.dos.n_stages);
    CHECK_NEAR(back.latency_total_s, r1.dos.latency_total_s, 1e-15);
    CHECK_OK(lf_sched_evaluate(g1, &o, &r1.greedy, &again));
    CHECK_NEAR(again.latency_total_s, r1.greedy.latency_total_s, 1e-15);
    lf_schedule_destroy(&again);
    /* batch 1's schedule at batch 8: never better than batch 8's own (DOS is
     * optimal over a space that holds it: same structure, same blocks) */
    CHECK_OK(lf_sched_read_json(path, "dos", g8, &o, &at8));
    CHECK(at8.latency_total_s >= r8.dos.latency_total_s * (1 - 1e-12));
    CHECK(at8.latency_total_s > 5 * back.latency_total_s);
    lf_schedule_destroy(&back);
    lf_schedule_destroy(&at8);
    /* bad files: one message naming the file and stage */
    struct {
        const char *json, *msg;
        lf_status st;
    } bad[] = {
        {"{", "not valid JSON", LF_EPARSE},
        {"{\"greedy\": {\"stages\": []}}", "no \"dos\" object", LF_EPARSE},
        {"{\"dos\": {\"stages\": [{\"strategy\": \"concurrent\", \"groups\": [[\"nope\"]]}]}}", "no op 'nope'", LF_EPARSE},
        {"{\"dos\": {\"stages\": [{\"strategy\": \"fast\", \"groups\": [[\"fc\"]]}]}}", "strategy", LF_EPARSE},
        {"{\"dos\": {\"stages\": [{\"strategy\": \"concurrent\", \"groups\": [[\"fc\"]]}]}}", "is in no stage", LF_EPLAN},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK(write_file(path, bad[i].json));
        lf_schedule x;
        lf_status st = lf_sched_read_json(path, "dos", g1, &o, &x);
        CHECK_EQ_I64(st, bad[i].st);
        CHECK(strstr(lf_last_error(), bad[i].msg) != NULL && strstr(lf_last_error(), path) != NULL);
        lf_schedule_destroy(&x);
    }
    /* the sequential schedule reversed: an op before its input */
    lf_schedule rev = r1.sequential;
    int32_t n = rev.n_stages, *ops = malloc(sizeof(int32_t) * (size_t)(rev.op_start[n] + 1));
    int32_t *ost = malloc(sizeof(int32_t) * (size_t)(n + 1));
    int k = 0;
    for (int32_t i = n - 1; i >= 0; i--) { /* one unit per stage: stage i's ops, last first */
        ost[n - 1 - i] = k;
        for (int32_t q = rev.op_start[i]; q < rev.op_start[i + 1]; q++)
            ops[k++] = rev.ops[q];
    }
    ost[n] = k;
    rev.ops = ops, rev.op_start = ost;
    lf_schedule x;
    CHECK_EQ_I64(lf_sched_evaluate(g1, &o, &rev, &x), LF_EPLAN);
    CHECK(strstr(lf_last_error(), "before or beside its input") != NULL);
    free(ops);
    free(ost);
    remove(path);
    lf_sched_result_destroy(&r1);
    lf_sched_result_destroy(&r8);
    lf_graph_free(g1);
    lf_graph_free(g8);
}

/* The report of `fusionplan schedule` (report.h) on a chain of seven convs
 * with every stage costing 1 s: DOS runs three stages of at most r = 3
 * chained convs, sequential and greedy seven; the JSON written to a file
 * reads back to the same DOS latency; the chart is an SVG. */
static void test_report(void)
{
    lf_graph_builder *b = NULL;
    CHECK_OK(lf_graph_builder_create(&b, "chain"));
    add_input(b, "x", 4, 8);
    char prev[16] = "x";
    for (int i = 0; i < 7; i++) {
        char nm[16];
        snprintf(nm, sizeof nm, "c%d", i);
        add_conv(b, nm, prev, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1);
        strcpy(prev, nm);
    }
    lf_graph *g = NULL;
    CHECK_OK(lf_graph_builder_build(b, &g));
    lf_graph_builder_free(b);
    if (!g)
        return;
    lf_sched_options o;
    lf_sched_options_default(&o);
    o.latency = LF_SCHED_CUSTOM;
    o.latency_fn = one_per_stage;
    lf_sched_result res;
    CHECK_OK(lf_sched_run(g, &o, &res));
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (f) {
        lf_sched_report_write(f, g, "chain", &o, &res);
        fclose(f);
        CHECK(strncmp(text, "model chain: 7 ops, 7 scheduling units (ops with their activation), ", 68) == 0);
        CHECK(strstr(text, "\nroofline: 15.7 TFLOP/s, 900 GB/s, 5 us per kernel (defaults: no <gpu> section)\n"
                           "DOS: r 3, s 8, concurrent and merged stages; "));
        CHECK(strstr(text, "\n\nsequential: 7000.0000 ms, 7 stages (0 merged)\n     1 concurrent 1000.0000 ms  c0\n"));
        CHECK(strstr(text, "\n\ndos: 3000.0000 ms, 3 stages (0 merged)\n"
                           "     1 concurrent 1000.0000 ms  c0 > c1 > c2\n"
                           "     2 concurrent 1000.0000 ms  c3 > c4 > c5\n"
                           "     3 concurrent 1000.0000 ms  c6\n"));
        CHECK(strstr(text, "\n\nsummary: sequential 7000.0000 ms, greedy 7000.0000 ms (1.000x), "
                           "dos 3000.0000 ms (2.333x)\n"));
        free(text);
    }
    char path[256], svg[256];
    snprintf(path, sizeof path, "/tmp/lf_test_sched_%d.json", (int)getpid());
    snprintf(svg, sizeof svg, "/tmp/lf_test_sched_%d.svg", (int)getpid());
    CHECK_OK(lf_sched_save_json(path, g, "chain", &o, &res));
    lf_schedule ev;
    memset(&ev, 0, sizeof ev);
    CHECK_OK(lf_sched_read_json(path, "dos", g, &o, &ev));
    CHECK_EQ_I64(ev.n_stages, 3);
    CHECK_NEAR(ev.latency_total_s, 3.0, 1e-12);
    text = NULL;
    f = open_memstream(&text, &len);
    if (f) {
        lf_sched_evaluated_write(f, "s.json", &ev, &res);
        fclose(f);
        CHECK_STR(text, "evaluated: the dos schedule of s.json here: 3000.0000 ms, 3 stages (this graph's own "
                        "dos: 3000.0000 ms)\n");
        free(text);
    }
    CHECK_OK(lf_sched_chart_save(svg, "chain", &res));
    f = fopen(svg, "r");
    char head[5] = {0};
    CHECK(f && fread(head, 1, 4, f) == 4 && strcmp(head, "<svg") == 0);
    if (f)
        fclose(f);
    remove(path);
    remove(svg);
    lf_schedule_destroy(&ev);
    lf_sched_result_destroy(&res);
    /* measured latencies need a GPU: without one, an error and no profiler */
    int32_t n = 0;
    if (!(lf_gpu_built() && lf_gpu_count(&n) == LF_OK && n > 0)) {
        lf_gpu_profiler *prof = (lf_gpu_profiler *)&n;
        lf_sched_options_default(&o);
        CHECK(lf_sched_measured_begin(&o, &prof) != LF_OK);
        CHECK(prof == NULL && o.latency == LF_SCHED_ANALYTIC);
    }
    lf_graph_free(g);
}

int main(void)
{
    test_merge_rule();
    test_blocks();
    test_custom_backend();
    test_brute_force();
    test_inception();
    test_randwire();
    test_evaluate();
    test_report();
    return lf_test_result();
}
