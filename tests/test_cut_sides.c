/* Groups that hold a cut op, priced from their two sides
 * (planner/cost/cut_sides.c), against the same group priced whole
 * (lf_cost_eval_once): random tails and heads of every cut op of networks
 * and random DAGs, under both schemes and several buffers. Every field the
 * planners read must agree to the byte; where a side says it does not
 * separate (a reduction below the cut, a squeeze-and-excite wait above it)
 * nothing is compared, and the networks without those must separate. */
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "graphs.h"
#include "models/registry.h"
#include "planner/cost/objective.h"
#include "planner/exact/downsets.h"
#include "planner/util/rng.h"
#include "random_dags.h"
#include "testlib.h"

typedef struct counts {
    int64_t pairs, joined, valid, forced; /* forced: heads that alone force weight re-reads */
    int64_t settled; /* valid pairs over a limit that the tail's brief settles */
    int64_t attn;    /* pairs whose tail holds attention, joined by their steps */
    int64_t priced;  /* pieces of their prices compared */
} counts;

/* The steps of a joined pair against the whole group's (lf_cost_steps),
 * below `below`. */
static int same_steps(lf_cost_model *cm, lf_cost_side *ts, lf_cost_side *hs, const lf_bitset *all, int64_t below)
{
    lf_cost_step a[LF_COST_MAX_STEPS], b[LF_COST_MAX_STEPS];
    int32_t na = -1, nb = -2;
    CHECK_OK(lf_cost_join_steps(cm, NULL, ts, hs, below, a, LF_COST_MAX_STEPS, &na));
    CHECK_OK(lf_cost_steps(cm, all, below, b, LF_COST_MAX_STEPS, &nb));
    int same = na == nb;
    for (int32_t i = 0; same && i < na; i++)
        same = a[i].need == b[i].need && a[i].f_d == b[i].f_d;
    return same;
}

/* A tail holding attention: its pair has the whole group's steps (through
 * the memo too), at several largest buffers, and nothing else (no price at
 * one buffer, no brief that separates). */
static void check_attention_pair(lf_cost_model *cm, lf_cost_side *ts, lf_cost_side *hs, const lf_bitset *all,
                                 lf_rng *rng, counts *k)
{
    CHECK(lf_cost_side_same_key(ts, hs));
    static const int64_t belows[] = {64 * 1024, 512 * 1024, 8 * 1024 * 1024, INT64_MAX};
    for (size_t i = 0; i < sizeof belows / sizeof *belows; i++) {
        int64_t below = belows[i] == INT64_MAX ? belows[i] : belows[i] + (int64_t)lf_rng_below(rng, 4096);
        int same = same_steps(cm, ts, hs, all, below);
        if (!same)
            fprintf(stderr, "  %s: attention pair of %d ops, steps below %lld differ\n", lf_cost_graph(cm)->name,
                    (int)lf_bitset_count(all), (long long)below);
        CHECK(same);
    }
    lf_cost_step a[LF_COST_MAX_STEPS], b[LF_COST_MAX_STEPS];
    int32_t na = -1, nb = -2;
    CHECK_OK(lf_cost_join_steps(cm, all, ts, hs, INT64_MAX, a, LF_COST_MAX_STEPS, &na));
    CHECK_OK(lf_cost_steps(cm, all, INT64_MAX, b, LF_COST_MAX_STEPS, &nb));
    CHECK(na == nb && na > 0 && memcmp(a, b, (size_t)na * sizeof *a) == 0);
    /* Its prices at every buffer of a range (energy's and latency's
     * staircase read them: curve_attn.c), piece for piece the whole
     * group's, from random smallest buffers up to each largest. */
    int32_t *members = malloc((size_t)lf_bitset_count(all) * sizeof *members);
    int32_t nm = lf_bitset_to_list(all, members);
    for (size_t i = 0; i < sizeof belows / sizeof *belows; i++) {
        int64_t below = belows[i] == INT64_MAX ? 64 * 1024 * 1024 : belows[i] + (int64_t)lf_rng_below(rng, 4096);
        int64_t lo = 1 + (int64_t)lf_rng_below(rng, (uint32_t)(below / 8));
        lf_cost_sched *pa = NULL, *pb = NULL;
        int32_t npa = -1, npb = -2;
        CHECK_OK(lf_cost_join_attn_prices(cm, ts, hs, lo, below, &pa, &npa));
        CHECK_OK(lf_cost_attn_prices(cm, members, nm, lo, below, &pb, &npb));
        int same = npa == npb && npa > 0 && pa[0].at == lo;
        for (int32_t q = 0; same && q < npa; q++)
            same = pa[q].at == pb[q].at && pa[q].f_d == pb[q].f_d && pa[q].steps == pb[q].steps &&
                   pa[q].valid == pb[q].valid;
        if (!same)
            fprintf(stderr, "  %s: attention pair of %d ops, prices on [%lld, %lld] differ (%d / %d pieces)\n",
                    lf_cost_graph(cm)->name, (int)nm, (long long)lo, (long long)below, (int)npa, (int)npb);
        CHECK(same);
        k->priced += npa;
        free(pa);
        free(pb);
    }
    free(members);
    lf_cost_sched *none = NULL;
    int32_t nn = -1;
    CHECK(lf_cost_join_attn_prices(cm, hs, hs, 1, 1024, &none, &nn) == LF_EINVAL && !none && nn == 0);
    lf_group_cost gc;
    CHECK(lf_cost_join_eval(cm, ts, hs, INT64_MAX, &gc) == LF_EINVAL);
    lf_cost_brief brief;
    lf_cost_side_brief(ts, &brief);
    CHECK(!brief.separable && !lf_cost_join_settles(cm, &brief, hs, INT64_MAX));
    k->attn++;
}

static int same_cost(const lf_group_cost *a, const lf_group_cost *b)
{
    return a->f_d == b->f_d && a->f_beta == b->f_beta && a->valid == b->valid &&
           a->weight_reads == b->weight_reads && a->tile_rows == b->tile_rows && a->mbu == b->mbu &&
           a->in_bytes == b->in_bytes && a->out_bytes == b->out_bytes && a->weights == b->weights &&
           a->features == b->features;
}

/* One tail (ops below cut c not in a random downset, which holds every op
 * up to prev) and one head (a random order ideal of the ops between c and
 * the next cut), priced both ways. */
static void check_pair(lf_cost_model *cm, int32_t prev, int32_t c, int32_t next, lf_rng *rng, counts *k)
{
    const lf_graph *g = lf_cost_graph(cm);
    int32_t n = g->n_ops;
    uint8_t *in_d = calloc((size_t)n, 1), *in_h = calloc((size_t)n, 1);
    int32_t *tail = malloc((size_t)n * sizeof *tail), *head = malloc((size_t)n * sizeof *head);
    lf_bitset all;
    CHECK_OK(lf_bitset_init(&all, n));
    uint32_t keep = lf_rng_below(rng, 101), grow = 1 + lf_rng_below(rng, 100);
    if (prev >= 0) { /* grown up from prev: every op whose inputs are in, at random */
        for (int32_t v = 0; v < c; v++) {
            int inputs_in = 1;
            for (int32_t j = 0; j < g->ops[v].n_inputs; j++)
                inputs_in &= in_d[g->ops[v].inputs[j]];
            in_d[v] = v <= prev || g->ops[v].type == LF_OP_INPUT ||
                      (inputs_in && lf_rng_below(rng, 100) < keep / 4);
        }
    }
    for (int32_t v = c - 1; v >= 0 && prev < 0; v--) {
        in_d[v] |= lf_rng_below(rng, 100) < keep;
        if (in_d[v])
            for (int32_t j = 0; j < g->ops[v].n_inputs; j++)
                in_d[g->ops[v].inputs[j]] = 1;
    }
    for (int32_t v = c + 1; v < next && prev >= 0; v++) { /* grown up from c, at random */
        int inputs_in = 1;
        for (int32_t j = 0; j < g->ops[v].n_inputs; j++)
            inputs_in &= g->ops[v].inputs[j] == c || in_h[g->ops[v].inputs[j]];
        in_h[v] = inputs_in && lf_rng_below(rng, 100) < grow;
    }
    for (int32_t v = next - 1; v > c && prev < 0; v--) {
        in_h[v] |= lf_rng_below(rng, 100) < grow;
        if (in_h[v])
            for (int32_t j = 0; j < g->ops[v].n_inputs; j++)
                if (g->ops[v].inputs[j] > c)
                    in_h[g->ops[v].inputs[j]] = 1;
    }
    int32_t nt = 0, nh = 0;
    for (int32_t v = 0; v < c; v++)
        if (!in_d[v] && g->ops[v].type != LF_OP_INPUT) {
            tail[nt++] = v;
            lf_bitset_set(&all, v);
        }
    lf_bitset_set(&all, c);
    for (int32_t v = c + 1; v < next; v++)
        if (in_h[v]) {
            head[nh++] = v;
            lf_bitset_set(&all, v);
        }
    if (nh > 0) {
        lf_cost_side *hs = NULL, *ts = NULL;
        CHECK_OK(lf_cost_head_side(cm, c, head, nh, &hs));
        if (lf_cost_side_separable(hs))
            CHECK_OK(lf_cost_tail_side(cm, tail, nt, hs, &ts));
        k->pairs++;
        if (lf_cost_side_attention(ts)) {
            check_attention_pair(cm, ts, hs, &all, rng, k);
        } else if (lf_cost_side_separable(ts)) {
            lf_group_cost joined, whole;
            CHECK(lf_cost_side_same_key(ts, hs));
            CHECK_OK(lf_cost_join_eval(cm, ts, hs, INT64_MAX, &joined));
            CHECK_OK(lf_cost_eval_once(cm, &all, &whole));
            /* The head alone bounds the weight reads of every group with it. */
            int64_t reads = lf_cost_head_min_reads(cm, hs);
            CHECK(reads == 0 ? !whole.valid : !whole.valid || whole.weight_reads >= reads);
            k->forced += reads > 1;
            /* Under a limit: exact up to it, above it only larger. */
            int64_t limit = whole.f_d + (int64_t)lf_rng_below(rng, 3) - 1 -
                            (int64_t)lf_rng_below(rng, 2) * (whole.f_d / 2);
            lf_group_cost capped;
            CHECK_OK(lf_cost_join_eval(cm, ts, hs, limit, &capped));
            CHECK(capped.valid == whole.valid);
            if (whole.valid)
                CHECK(whole.f_d <= limit ? capped.f_d == whole.f_d : capped.f_d > limit);
            /* The tail's brief: exact about validity (one row), never
             * settling a pair within its limit, settling only losers. */
            lf_cost_brief brief;
            lf_cost_side_brief(ts, &brief);
            CHECK(brief.separable && brief.n_phases >= 1);
            CHECK(lf_cost_join_settles(cm, &brief, hs, INT64_MAX) == !whole.valid);
            if (whole.valid)
                CHECK(!lf_cost_join_settles(cm, &brief, hs, whole.f_d));
            if (lf_cost_join_settles(cm, &brief, hs, limit)) {
                CHECK(!whole.valid || whole.f_d > limit);
                k->settled += whole.valid;
            }
            if (!same_cost(&joined, &whole))
                fprintf(stderr, "  %s cut %d: tail %d ops, head %d ops: f_d %lld / %lld, f_beta %lld / %lld\n",
                        g->name, (int)c, (int)nt, (int)nh, (long long)joined.f_d, (long long)whole.f_d,
                        (long long)joined.f_beta, (long long)whole.f_beta);
            CHECK(same_cost(&joined, &whole));
            /* The staircase's steps, below twice the buffer. */
            CHECK(same_steps(cm, ts, hs, &all, 2 * lf_cost_beta(cm)));
            k->joined++;
            k->valid += whole.valid;
        }
        lf_cost_side_free(ts);
        lf_cost_side_free(hs);
    }
    lf_bitset_destroy(&all);
    free(in_d);
    free(in_h);
    free(tail);
    free(head);
}

/* Every cut op with ops above it, `samples` pairs each. */
/* Every cut op with ops above it, `samples` pairs each; with `block`, the
 * tails hold only ops after the last cut op with ops above it (a
 * transformer's tails that hold more read a residual from outside: they do
 * not separate). */
static counts check_graph_objective(const lf_graph *g, const char *scheme, int64_t beta, int samples,
                                    uint64_t seed, lf_plan_objective objective, int block)
{
    counts k = {0, 0, 0, 0, 0, 0, 0};
    lf_cost_model *cm = tf_model_default(g, beta, scheme);
    CHECK_OK(lf_cost_set_objective(cm, objective));
    uint8_t *in_u = calloc((size_t)g->n_ops, 1), *is_cut = calloc((size_t)g->n_ops, 1);
    for (int32_t v = 0; v < g->n_ops; v++)
        in_u[v] = g->ops[v].type != LF_OP_INPUT;
    CHECK(lf__dp_cut_ops(g, in_u, is_cut) >= 0);
    lf_rng rng;
    lf_rng_seed(&rng, seed, 0);
    /* prev: the last cut op with ops after it before the next */
    for (int32_t c = 0, prev = -1; c < g->n_ops; c++) {
        if (!is_cut[c])
            continue;
        int32_t next = c + 1;
        while (next < g->n_ops && !is_cut[next])
            next++;
        for (int s = 0; s < samples && next > c + 1; s++)
            check_pair(cm, block ? prev : -1, c, next, &rng, &k);
        if (next > c + 1)
            prev = c;
    }
    free(in_u);
    free(is_cut);
    lf_cost_model_free(cm);
    return k;
}

static counts check_graph(const lf_graph *g, const char *scheme, int64_t beta, int samples, uint64_t seed)
{
    return check_graph_objective(g, scheme, beta, samples, seed, LF_PLAN_OBJ_DRAM, 0);
}

/* Transformers at random sequence lengths and depths: a tail holding the
 * attention core (with the projections, a residual, a norm) joins a head of
 * token-wise ops by the steps attn.c walks from the two sides' windows, and
 * must give the whole group's steps to the byte (BERT-base and -large: 12
 * and 16 heads of 64, random N). The others' pairs are checked as they
 * come. Under energy and latency too, and the pair's prices at every buffer
 * (lf_cost_join_attn_prices) are the whole group's. */
static void test_transformers(void)
{
    static const char *const models[] = {"bert_base", "bert_large", "gpt2", "llama3_8b", "vit_b_16"};
    lf_rng rng;
    lf_rng_seed(&rng, 35, 0);
    for (size_t m = 0; m < sizeof models / sizeof *models; m++) {
        counts all = {0, 0, 0, 0, 0, 0, 0};
        for (int rep = 0; rep < 4; rep++) {
            lf_graph *g = NULL;
            lf_model_options opt = {0, 1};
            int32_t seq = m == 4 ? 0 : 8 + (int32_t)lf_rng_below(&rng, 120);
            lf_model_seq_options so = {seq, 1 + (int32_t)lf_rng_below(&rng, 2), LF_PHASE_PREFILL, 0};
            CHECK_OK(lf_model_build_seq(models[m], &opt, &so, &g));
            if (!g)
                continue;
            for (int s = 0; s < 2; s++) {
                counts k = check_graph_objective(g, s ? "brr" : "lbdf", 256 * 1024, 16, 100 * m + 10 * rep + s,
                                                 LF_PLAN_OBJ_DRAM, 1);
                all.pairs += k.pairs;
                all.joined += k.joined;
                all.attn += k.attn;
            }
            for (int o = 0; o < 2; o++) {
                counts e = check_graph_objective(g, o ? "lbdf" : "brr", 256 * 1024, 4, 5 + rep,
                                                 o ? LF_PLAN_OBJ_LATENCY : LF_PLAN_OBJ_ENERGY, 1);
                CHECK(e.pairs > 0);
                all.attn += e.attn;
                all.priced += e.priced;
            }
            lf_graph_free(g);
        }
        fprintf(stderr,
                "  %s: %lld pairs, %lld joined at one buffer, %lld attention pairs joined by their steps "
                "(%lld pieces of their prices)\n",
                models[m], (long long)all.pairs, (long long)all.joined, (long long)all.attn,
                (long long)all.priced);
        /* BERT's tails end at a norm after the residual; GPT-2's, Llama's
         * and ViT's attention sits above their cut ops, with the residual
         * read across the next: none of theirs holds attention and joins. */
        CHECK(all.pairs > 0 && (m >= 2 || (all.attn > 20 && all.priced > 100)));
    }
}

static void test_networks(void)
{
    static const char *const models[] = {"inception_v3", "resnet50", "squeezenet1_0", "nasnet_a",
                                         "randwire", "deeplabv3_mobilenet_v3_large"};
    static const char *const schemes[] = {"lbdf", "brr"};
    static const int64_t betas[] = {64 * 1024, 256 * 1024, 2 * 1024 * 1024};
    for (size_t m = 0; m < sizeof models / sizeof *models; m++) {
        lf_graph *g = NULL;
        lf_model_options opt = {0, 1};
        CHECK_OK(lf_model_build(models[m], &opt, &g));
        if (!g)
            continue;
        counts all = {0, 0, 0, 0, 0, 0, 0};
        for (size_t s = 0; s < 2; s++)
            for (size_t b = 0; b < sizeof betas / sizeof *betas; b++) {
                counts k = check_graph(g, schemes[s], betas[b], 40, 7 + m * 10 + s * 3 + b);
                all.pairs += k.pairs;
                all.joined += k.joined;
                all.valid += k.valid;
                all.forced += k.forced;
                all.settled += k.settled;
            }
        fprintf(stderr, "  %s: %lld pairs, %lld priced from their sides (%lld valid, %lld heads forcing re-reads, "
                        "%lld valid losers settled by the brief)\n",
                models[m], (long long)all.pairs, (long long)all.joined, (long long)all.valid,
                (long long)all.forced, (long long)all.settled);
        CHECK(all.pairs > 0);
        /* No reduction below a cut and no wait above it: every pair joins. */
        if (m < 5)
            CHECK(all.joined == all.pairs && all.valid > 0 && all.forced > 0 && all.settled > 0);
        lf_graph_free(g);
    }
}

static void test_random_dags(void)
{
    counts all = {0, 0, 0, 0, 0, 0, 0};
    for (int family = 0; family < RDAG_FAMILIES; family++)
        for (uint64_t seed = 1; seed <= 12; seed++) {
            lf_graph *g = rdag_build(seed * 31 + (uint64_t)family, family, 24);
            if (!g)
                continue;
            for (int s = 0; s < 2; s++) {
                counts k = check_graph(g, s ? "brr" : "lbdf", (int64_t)(4 + seed % 5) * 1024, 12, seed);
                all.pairs += k.pairs;
                all.joined += k.joined;
                all.valid += k.valid;
            }
            lf_graph_free(g);
        }
    fprintf(stderr, "  random DAGs: %lld pairs, %lld priced from their sides (%lld valid)\n",
            (long long)all.pairs, (long long)all.joined, (long long)all.valid);
    CHECK(all.joined > 100 && all.valid > 10);
}

/* in -> a -> c -> {b1, b2}; m = b2 + a; out = concat(b1, m). c is a cut op
 * (a below it, everything else above), but m, above c, reads a, below it:
 * a head holding m does not separate at c (a's window takes m's rows as
 * well as c's), nor does a tail holding a while m is outside the group. */
static void test_crossing_edge(void)
{
    lf_graph_builder *b = NULL;
    lf_graph_builder_create(&b, "crossing");
    tg_input(b, "in", 8, 16, 16);
    tg_conv(b, "a", "in", 8, 3, 1, 1, 1, 0, LF_ACT_NONE);
    tg_conv(b, "c", "a", 8, 3, 1, 1, 1, 0, LF_ACT_NONE);
    tg_conv(b, "b1", "c", 8, 3, 1, 1, 1, 0, LF_ACT_NONE);
    tg_conv(b, "b2", "c", 8, 5, 1, 2, 1, 0, LF_ACT_NONE);
    tg_binary(b, LF_OP_ADD, "m", "b2", "a");
    const char *const cat[2] = {"b1", "m"};
    tg_concat(b, "out", cat, 2);
    lf_graph *g = tf_build(b);
    if (!g)
        return;
    int32_t c = 2, a = 1, m = 5;
    CHECK_STR(g->ops[c].name, "c");
    CHECK_STR(g->ops[m].name, "m");
    for (int s = 0; s < 2; s++) {
        lf_cost_model *cm = tf_model_default(g, 64 * 1024, s ? "brr" : "lbdf");
        int32_t with_m[2] = {4, 5}, without_m[2] = {3, 4};
        lf_cost_side *h = NULL;
        CHECK_OK(lf_cost_head_side(cm, c, with_m, 2, &h));
        CHECK(!lf_cost_side_separable(h));
        lf_cost_side_free(h);
        CHECK_OK(lf_cost_head_side(cm, c, without_m, 2, &h));
        CHECK(lf_cost_side_separable(h));
        /* With a in the tail, m (outside the group) reads a tail op: that
         * tail does not separate either; with a placed before, it does. */
        lf_cost_side *t = NULL;
        CHECK_OK(lf_cost_tail_side(cm, &a, 1, h, &t));
        CHECK(!lf_cost_side_separable(t));
        lf_cost_side_free(t);
        CHECK_OK(lf_cost_tail_side(cm, NULL, 0, h, &t));
        CHECK(lf_cost_side_separable(t));
        lf_bitset all;
        CHECK_OK(lf_bitset_init(&all, g->n_ops));
        for (int32_t v = 2; v <= 4; v++)
            lf_bitset_set(&all, v);
        lf_group_cost joined, whole;
        CHECK_OK(lf_cost_join_eval(cm, t, h, INT64_MAX, &joined));
        CHECK_OK(lf_cost_eval_once(cm, &all, &whole));
        CHECK(same_cost(&joined, &whole));
        lf_bitset_destroy(&all);
        lf_cost_side_free(t);
        lf_cost_side_free(h);
        counts k = check_graph(g, s ? "brr" : "lbdf", 64 * 1024, 200, 3);
        CHECK(k.pairs > 0 && k.joined > 0 && k.joined < k.pairs);
        lf_cost_model_free(cm);
    }
    lf_graph_free(g);
}

int main(void)
{
    test_crossing_edge();
    test_networks();
    test_random_dags();
    test_transformers();
    return lf_test_result();
}
