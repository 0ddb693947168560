/* The floor of F_beta at the sinks' first snapshot of a group that keeps a
 * squeeze-and-excite map resident, with a lookahead per part
 * (planner/exact/wait_resident.c). PP-OCRv4 detection's conflict (A) by
 * hand where the model is present, then brute force on small random necks
 * and DAGs, both schemes and several buffers: for every valid convex group
 * G that keeps its waits' maps resident, every window U of consecutive ops
 * and every wait of S = G n U, the floor of S is at most G's F_beta; and the
 * floor does reach beta on some sets. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "graphs.h"
#include "planner/cost/cost.h"
#include "planner/exact/exact.h"
#include "planner/exact/window_waits.h"
#include "random_dags.h"
#include "testlib.h"

#define MAXN 16

#include "hwdesc/hw.h"

/* x's set := the ops of s, or of mask where s is NULL (in, sub, the weight
 * terms the enumeration keeps). */
static void fill_set(lf__exact *x, const lf_bitset *s, uint64_t mask, int32_t n)
{
    x->n_sub = 0;
    x->lb_w = x->lb_blk = 0;
    for (int32_t v = 0; v < n; v++) {
        x->in_s[v] = (uint8_t)(s ? lf_bitset_test(s, v) != 0 : ((mask >> v) & 1u) != 0);
        if (!x->in_s[v])
            continue;
        x->sub[x->n_sub++] = v;
        x->lb_w += x->wterm[v];
        x->lb_blk = x->wblk[v] > x->lb_blk ? x->wblk[v] : x->lb_blk;
    }
}

static void fill(lf__exact *x, uint64_t mask, int32_t n) { fill_set(x, NULL, mask, n); }

/* A wait on map a whose output runs down a path that a second reader (a
 * 3x3 window) also reads, optionally with an SE block of its own below it:
 * PP-OCRv4's neck (Conv.40's wait against Add.248 -> Resize -> Add) in
 * miniature. */
static lf_graph *wait_path_graph(uint64_t seed)
{
    lf_rng rng;
    lf_rng_seed(&rng, seed, 0xa11a);
#define PICK(n) ((int)lf_rng_below(&rng, (uint32_t)(n)))
    static const int hs[] = {8, 12, 16};
    int h = hs[PICK(3)], c = 4 + 4 * PICK(2);
    lf_graph_builder *b;
    char name[32];
    snprintf(name, sizeof name, "waitpath-%llu", (unsigned long long)seed);
    lf_graph_builder_create(&b, name);
    tg_input(b, "x", c, h, h);
    int ka = PICK(2) ? 3 : 1;
    tg_conv(b, "a", "x", c, ka, 1, ka / 2, 1, 0, LF_ACT_NONE);
    tg_unary(b, LF_OP_GLOBALAVGPOOL, "r", "a");
    tg_conv(b, "f", "r", c, 1, 1, 0, 1, 0, LF_ACT_NONE);
    tg_unary(b, LF_OP_SIGMOID, "s", "f");
    tg_binary(b, LF_OP_MUL, "m", "a", "s");
    const char *prev = "m";
    if (PICK(2)) {
        tg_binary(b, LF_OP_ADD, "o", "a", "m");
        prev = "o";
    }
    tg_conv(b, "y", "x", c, 1, 1, 0, 1, 0, LF_ACT_NONE);
    tg_binary(b, LF_OP_ADD, "j", prev, "y");
    prev = "j";
    static const char *br[] = {"q", "q2", "q3"};
    int len = 1 + PICK(3);
    for (int i = 0; i < len; i++) {
        switch (PICK(4)) {
        case 0: {
            lf_attrs ra = {0};
            ra.scale = 2;
            ra.linear = PICK(2);
            lf_graph_builder_add(b, LF_OP_RESIZE, br[i], &ra, &prev, 1);
            break;
        }
        case 1:
            tg_pool(b, LF_OP_MAXPOOL, br[i], prev, 2, 2, 0);
            break;
        case 2:
            tg_unary(b, LF_OP_RELU, br[i], prev);
            break;
        default:
            tg_conv(b, br[i], prev, c, PICK(2) ? 3 : 1, 1, PICK(2), 1, 0, LF_ACT_NONE);
        }
        prev = br[i];
    }
    /* The path's other reader: a 3x3 window, maybe with an SE block below. */
    const char *from = "j";
    if (PICK(2)) { /* through a thin 1x1 conv: the lookahead costs G little */
        tg_conv(b, "thin", "j", 1, 1, 1, 0, 1, 0, LF_ACT_NONE);
        from = "thin";
    }
    tg_conv(b, "side", from, PICK(2) ? 1 : c, 3, 1, 1, 1, 0, LF_ACT_NONE);
    if (PICK(2)) {
        tg_unary(b, LF_OP_GLOBALAVGPOOL, "z", "side");
        tg_unary(b, LF_OP_SIGMOID, "zs", "z");
        tg_binary(b, LF_OP_MUL, "zm", "side", "zs");
    }
#undef PICK
    return tf_build(b);
}

typedef struct {
    int64_t groups, parts, checked, fired, tight, tight_part;
    int64_t checked_brr, fired_brr; /* of those, under BRR (window_charge.c asks the floor there) */
    int64_t kept; /* both snapshots' floors checked (lf__waits_kept_floor) */
} tally;

static void brute(const lf_graph *g, const char *scheme, int64_t beta, tally *tl)
{
    int32_t n = g->n_ops;
    if (n > MAXN)
        return;
    lf_cost_model *cm = tf_model_hand(g, beta, scheme);
    lf__waits w;
    CHECK_OK(lf__waits_init(&w, cm));
    if (!w.p) { /* no waits */
        lf_cost_model_free(cm);
        return;
    }
    uint32_t desc[MAXN] = {0}, anc[MAXN] = {0}, fus = 0;
    for (int32_t v = n - 1; v >= 0; v--)
        for (int32_t k = 0; k < g->ops[v].n_consumers; k++) {
            int32_t c = g->ops[v].consumers[k];
            desc[v] |= (1u << c) | desc[c];
        }
    for (int32_t v = 0; v < n; v++) {
        for (int32_t j = 0; j < g->ops[v].n_inputs; j++) {
            int32_t p = g->ops[v].inputs[j];
            anc[v] |= (1u << p) | anc[p];
        }
        if (g->ops[v].type != LF_OP_INPUT && lf_cost_fusable(cm, v))
            fus |= 1u << v;
    }
    /* The valid convex groups that keep their maps resident, with F_beta. */
    uint32_t *groups = malloc(((size_t)1 << n) * sizeof *groups);
    int64_t *fb = malloc(((size_t)1 << n) * sizeof *fb);
    int64_t *feat = malloc(((size_t)1 << n) * sizeof *feat);
    int32_t n_groups = 0;
    lf_bitset bs;
    CHECK_OK(lf_bitset_init(&bs, n));
    for (uint32_t G = fus; G; G = (G - 1) & fus) {
        int convex = 1;
        for (int32_t v = 0; v < n && convex; v++)
            if (!((G >> v) & 1u) && (anc[v] & G) && (desc[v] & G))
                convex = 0;
        if (!convex)
            continue;
        lf_bitset_clear_all(&bs);
        for (int32_t v = 0; v < n; v++)
            if ((G >> v) & 1u)
                lf_bitset_set(&bs, v);
        lf_group_cost c;
        CHECK_OK(lf_cost_eval(cm, &bs, &c));
        if (!c.valid)
            continue;
        tl->groups++;
        if (!c.wait_resident)
            continue;
        groups[n_groups] = G;
        feat[n_groups] = c.features;
        fb[n_groups++] = c.f_beta;
    }
    lf_exact_config cfg;
    lf_exact_config_default(&cfg);
    for (int32_t lo = 1; lo < n; lo++)
        for (int32_t hi = lo; hi < n; hi++) {
            lf_bitset_clear_all(&bs);
            for (int32_t v = lo; v <= hi; v++)
                lf_bitset_set(&bs, v);
            lf__exact x;
            CHECK_OK(lf__dp_setup(&x, cm, &bs, &cfg));
            for (int32_t k = 0; k < n_groups; k++) {
                uint32_t S = groups[k] & (((hi == 31 ? 0u : (2u << hi)) - 1u) & ~((1u << lo) - 1u));
                if (!S)
                    continue;
                tl->parts++;
                fill(&x, S, n);
                for (int32_t m = 0; m < n; m++) {
                    if (!x.in_s[m] || w.p[m] < 0 || !x.in_s[w.r[m]])
                        continue;
                    int64_t f = lf__wait_resident_floor(&w.resident, &x, w.p[m], w.r[m]);
                    tl->checked++;
                    tl->checked_brr += !lf_cost_weights_resident(cm);
                    tl->tight += f == fb[k];
                    tl->tight_part += f == fb[k] && S != groups[k];
                    if (f > fb[k]) {
                        fprintf(stderr, "floor %lld > F_beta %lld: part %#x of group %#x, window %d-%d, wait %d of %s (%s, beta %lld)\n",
                                (long long)f, (long long)fb[k], S, groups[k], lo, hi, m, g->name, scheme, (long long)beta);
                        CHECK(0);
                    }
                    /* Both snapshots' floor (lf__waits_kept_floor): at most
                     * F_beta, and its rows (past the weight terms) at most
                     * G's feature rows at one row, which under BRR decide
                     * whether its weights stream (window_charge.c). */
                    int64_t kf = lf__waits_kept_floor(&w, &x, m, w.p[m], w.r[m]);
                    tl->kept += kf > 0;
                    if (kf > fb[k] || (kf > 0 && kf - x.lb_w - x.lb_blk > feat[k])) {
                        fprintf(stderr, "kept floor %lld (rows %lld) > F_beta %lld (rows %lld): part %#x of group %#x, window %d-%d, wait %d of %s (%s, beta %lld)\n",
                                (long long)kf, (long long)(kf - x.lb_w - x.lb_blk), (long long)fb[k], (long long)feat[k], S,
                                groups[k], lo, hi, m, g->name, scheme, (long long)beta);
                        CHECK(0);
                    }
                }
            }
            /* Non-vacuous: whole-window sets (any convex one) whose floor reaches beta. */
            if (lo == 1 && hi == n - 1)
                for (uint32_t S = fus; S; S = (S - 1) & fus) {
                    fill(&x, S, n);
                    for (int32_t m = 0; m < n; m++)
                        if (x.in_s[m] && w.p[m] >= 0 && x.in_s[w.r[m]] &&
                            lf__wait_resident_floor(&w.resident, &x, w.p[m], w.r[m]) >= beta) {
                            tl->fired++;
                            tl->fired_brr += !lf_cost_weights_resident(cm);
                            break;
                        }
                }
            fill(&x, 0, n);
            lf__dp_teardown(&x);
        }
    free(groups);
    free(fb);
    free(feat);
    lf_bitset_destroy(&bs);
    lf__waits_destroy(&w);
    lf_cost_model_free(cm);
}

static void test_brute(void)
{
    static const int64_t betas[] = {512, 1024, 1500, 2048, 3000, 4096, 8192};
    static const char *schemes[] = {"lbdf", "brr"};
    tally tl = {0, 0, 0, 0, 0, 0, 0, 0, 0};
    for (uint64_t seed = 0; seed < 60; seed++) {
        lf_graph *g = wait_path_graph(seed);
        CHECK(g != NULL);
        for (int k = 0; k < 7; k++)
            for (int sc = 0; sc < 2; sc++)
                brute(g, schemes[sc], betas[k], &tl);
        lf_graph_free(g);
    }
    for (uint64_t seed = 0; seed < 40; seed++)
        for (int fam = RDAG_RESIDUAL; fam <= RDAG_MIXED; fam++) {
            lf_graph *g = rdag_build(seed, fam, 12);
            CHECK(g != NULL);
            for (int sc = 0; sc < 2; sc++) {
                brute(g, schemes[sc], RDAG_BETA_SMALL, &tl);
                brute(g, schemes[sc], RDAG_BETA_MEDIUM, &tl);
            }
            lf_graph_free(g);
        }
    printf("  %lld valid groups, %lld resident parts, %lld floors checked (%lld equal to F_beta, %lld of them "
           "on a part smaller than its group), %lld sets at beta\n",
           (long long)tl.groups, (long long)tl.parts, (long long)tl.checked, (long long)tl.tight,
           (long long)tl.tight_part, (long long)tl.fired);
    printf("  under BRR: %lld floors checked, %lld sets at beta; both snapshots' floors: %lld\n", (long long)tl.checked_brr,
           (long long)tl.fired_brr, (long long)tl.kept);
    CHECK(tl.groups > 1000 && tl.checked > 1000 && tl.fired > 100);
    CHECK(tl.checked_brr > 1000 && tl.fired_brr > 100 && tl.kept > 1000);
}

/* PP-OCRv4 detection at 256 KB under LBDF (LF_ONNX_MODELS holds
 * ch_PP-OCRv4_det_infer.onnx; skipped without it). S = Conv.40's wait
 * (ops 182-189) with the top-down path 206-211: `fusionplan cost --group
 * 182-189,206-211` prices F_beta at 262,296 B = weights 8,760 + 182's map
 * 153,600 + a row of each other tensor read + a staging row of 207, 209,
 * 211, 152 B over beta. In the universe 182-211 with the path's readers
 * 220, 228, 236 outside S, every member runs at the sinks' row: the floor
 * is 262,296 B exactly. With 220 (Add.248's 3x3 reader) left out of the
 * universe it may join G and run 189 ahead, but the two-sided floor holds:
 * at Add.248's row X, 182 keeps rows X..39 and 207 rows 0..X (41 rows of
 * 3,840 B), and past row 0 only a member 220 (20,736 B of weights) asks
 * there; at row 0, 207 stages a row: 262,296 B again. With the ghosts
 * 220, 228, 236 in the part (their SE reductions outside the universe; the
 * one-sided floor gave 113,976, 115,512, 105,528 B), the floor still
 * reaches beta: 207's and 209's hulls, and 236 past its readers' asks
 * held from the rows its SE multiply (242) asks. */
static void test_ppocr(void)
{
    lf_graph *g = tf_ppocr_det("PP-OCRv4 detection");
    if (!g)
        return;
    CHECK(strcmp(g->ops[182].name, "p2o.Conv.40") == 0 && strcmp(g->ops[211].name, "p2o.Add.252") == 0 &&
          strcmp(g->ops[220].name, "p2o.Conv.52") == 0);
    lf_hw hw;
    lf_hw_default(&hw);
    hw.buffer_bytes = 262144;
    lf_cost_model *cm = NULL;
    CHECK_OK(lf_cost_model_create(&cm, g, &hw, "lbdf"));
    lf__waits w;
    CHECK_OK(lf__waits_init(&w, cm));
    CHECK(w.p != NULL && w.p[188] == 182 && w.r[188] == 183);
    int32_t n = g->n_ops;
    lf_bitset u, s;
    CHECK_OK(lf_bitset_init(&u, n));
    CHECK_OK(lf_bitset_init(&s, n));
    for (int32_t v = 182; v <= 211; v++)
        lf_bitset_set(&u, v);
    for (int32_t v = 182; v <= 211; v++)
        if (v <= 189 || v >= 206)
            lf_bitset_set(&s, v);
    lf_group_cost c;
    CHECK_OK(lf_cost_eval(cm, &s, &c));
    CHECK(c.f_beta == 262296 && !c.valid);
    lf_exact_config cfg;
    lf_exact_config_default(&cfg);
    /* 0: 220 outside the universe; 1: in it; 2-4: S + 220, + 228, + 236 */
    for (int with_220 = 4; with_220 >= 0; with_220--) {
        lf_bitset_set(&u, 228);
        lf_bitset_set(&u, 236);
        if (with_220)
            lf_bitset_set(&u, 220);
        else
            lf_bitset_reset(&u, 220);
        for (int32_t k = 0; k < 3; k++)
            if (with_220 >= 2 + k)
                lf_bitset_set(&s, k == 0 ? 220 : k == 1 ? 228 : 236);
            else
                lf_bitset_reset(&s, k == 0 ? 220 : k == 1 ? 228 : 236);
        lf_group_cost cs;
        CHECK_OK(lf_cost_eval(cm, &s, &cs));
        lf__exact x;
        CHECK_OK(lf__dp_setup(&x, cm, &u, &cfg));
        fill_set(&x, &s, 0, n);
        int64_t floor = lf__wait_resident_floor(&w.resident, &x, 182, 183);
        printf("  PP-OCRv4 182-189,206-211%s (220 %s the universe): floor %lld, F_beta %lld, beta %lld\n",
               with_220 == 4 ? ",220,228,236" : with_220 == 3 ? ",220,228" : with_220 == 2 ? ",220" : "",
               with_220 ? "in" : "outside", (long long)floor, (long long)cs.f_beta, (long long)x.beta);
        CHECK(floor <= cs.f_beta && floor >= x.beta);
        if (with_220 == 4)
            CHECK(cs.f_beta == 369624 && floor == 270744);
        else if (with_220 == 2)
            CHECK(cs.f_beta == 283992 && floor == 263832);
        else if (with_220 < 2)
            CHECK(floor == 262296);
        for (int32_t v = 0; v < n; v++)
            x.in_s[v] = 0;
        lf__dp_teardown(&x);
    }
    /* The cone of 182 in 182-256 (window_cone.c): 182-189, 207-211,
     * 220-243, 245-256, with the SE blocks of Conv.55 and Conv.58 in the
     * universe. The relaxation's escapes from conflict (A) there, each
     * priced far past beta by the cost model: Conv.52's wait runs Add.248
     * to its end while Resize.1 holds it from row 0 (the wait's reduction
     * is no terminal one: the two-sided floor on 207); without 223-226 the
     * reduction 221 may be terminal, but 228's and 236's are (their
     * multiplies outside G), so the path stays at the sinks' rows and 182
     * is held. */
    static const int32_t parts[3][4][2] = {
        {{182, 189}, {207, 211}, {220, 228}, {236, 236}},
        {{182, 189}, {207, 211}, {220, 222}, {228, 228}},
        {{182, 189}, {207, 211}, {220, 230}, {236, 238}},
    };
    for (int32_t k = 0; k < 3; k++) {
        lf_bitset_clear_all(&u);
        lf_bitset_clear_all(&s);
        for (int32_t v = 182; v <= 256; v++)
            if (v <= 189 || (v >= 207 && v <= 211) || (v >= 220 && v != 244))
                lf_bitset_set(&u, v);
        for (int32_t i = 0; i < 4; i++)
            for (int32_t v = parts[k][i][0]; v <= parts[k][i][1]; v++)
                lf_bitset_set(&s, v);
        if (k == 1)
            lf_bitset_set(&s, 236);
        lf_group_cost cs;
        CHECK_OK(lf_cost_eval(cm, &s, &cs));
        lf__exact x;
        CHECK_OK(lf__dp_setup(&x, cm, &u, &cfg));
        fill_set(&x, &s, 0, n);
        int64_t f182 = lf__wait_resident_floor(&w.resident, &x, 182, 183);
        int64_t f220 = lf_bitset_test(&s, 226) ? lf__wait_resident_floor(&w.resident, &x, 220, 221) : 0;
        printf("  PP-OCRv4 cone of 182 in 182-256, part %d: floors %lld (182), %lld (220), F_beta %lld, beta %lld\n", (int)k,
               (long long)f182, (long long)f220, (long long)cs.f_beta, (long long)x.beta);
        CHECK(!cs.valid && f182 <= cs.f_beta && f220 <= cs.f_beta);
        CHECK((f182 > f220 ? f182 : f220) >= x.beta);
        /* main 3594510 (no terminal reductions in S, the two-sided floor
         * only beside a reader outside the universe): 201,090 and 238,530
         * B on part 0, all three below beta. */
        static const int64_t want[3][2] = {{330666, 403626}, {344844, 0}, {331026, 403986}};
        CHECK(f182 == want[k][0] && f220 == want[k][1]);
        for (int32_t v = 0; v < n; v++)
            x.in_s[v] = 0;
        lf__dp_teardown(&x);
    }
    lf_bitset_destroy(&u);
    lf_bitset_destroy(&s);
    lf__waits_destroy(&w);
    lf_cost_model_free(cm);
    lf_graph_free(g);
}

int main(void)
{
    test_ppocr();
    test_brute();
    return lf_test_result();
}
