/* Cut ops of the exact planners (planner/exact/blocks.c, issue 17 item 2):
 * the ops every other op lies above or below, checked against a reachability
 * brute force on random DAGs of every family and on the built-in networks,
 * and the facts the planners rest on: on a chain every op is a cut, and an
 * Inception module's output concat is one while its branches are not. */
#include <stdlib.h>
#include <string.h>

#include "models/registry.h"
#include "planner/exact/downsets.h"
#include "random_dags.h"
#include "testlib.h"

/* reach[a * n + b]: b is reachable from a through compute ops (a != b). */
static uint8_t *reachability(const lf_graph *g, const uint8_t *in_u)
{
    int32_t n = g->n_ops;
    uint8_t *r = calloc((size_t)n * (size_t)n, 1);
    if (!r)
        return NULL;
    for (int32_t v = n - 1; v >= 0; v--) {
        if (!in_u[v])
            continue;
        const lf_op *op = &g->ops[v];
        for (int32_t j = 0; j < op->n_consumers; j++) {
            int32_t c = op->consumers[j];
            if (!in_u[c])
                continue;
            r[(size_t)v * n + c] = 1;
            for (int32_t w = 0; w < n; w++)
                r[(size_t)v * n + w] |= r[(size_t)c * n + w];
        }
    }
    return r;
}

/* Compares lf__dp_cut_ops with the definition; returns the number of cuts. */
static int32_t check_cuts(const lf_graph *g)
{
    int32_t n = g->n_ops;
    uint8_t *in_u = calloc((size_t)n, 1), *cut = calloc((size_t)n, 1);
    CHECK(in_u && cut);
    if (!in_u || !cut) {
        free(in_u);
        free(cut);
        return -1;
    }
    for (int32_t v = 0; v < n; v++)
        in_u[v] = g->ops[v].type != LF_OP_INPUT;
    int32_t got = lf__dp_cut_ops(g, in_u, cut);
    uint8_t *r = reachability(g, in_u);
    CHECK(r != NULL);
    int32_t want = 0;
    for (int32_t c = 0; r && c < n; c++) {
        int is = in_u[c];
        for (int32_t v = 0; v < n && is; v++)
            if (in_u[v] && v != c && !r[(size_t)c * n + v] && !r[(size_t)v * n + c])
                is = 0;
        want += is;
        CHECK_EQ_I64(cut[c], is);
    }
    CHECK_EQ_I64(got, want);
    free(r);
    free(in_u);
    free(cut);
    return got;
}

static void test_random_dags(void)
{
    int64_t cuts = 0, graphs = 0;
    for (int family = 0; family < RDAG_FAMILIES; family++)
        for (uint64_t seed = 0; seed < 40; seed++) {
            lf_graph *g = rdag_build(seed, family, 6 + (int)(seed % 20));
            CHECK(g != NULL);
            if (!g)
                continue;
            int32_t c = check_cuts(g);
            if (family == RDAG_CHAIN) {
                /* A chain of units (some fork a short side branch that
                 * rejoins): at least the first compute op is a cut. */
                CHECK(c >= 1);
            }
            cuts += c;
            graphs++;
            lf_graph_free(g);
        }
    CHECK(cuts > graphs); /* the families do have cut ops to find */
}

static void test_networks(void)
{
    static const char *const names[] = {"vgg16", "resnet18", "inception_v3", "mobilenet_v2"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        lf_graph *g = NULL;
        lf_model_options opt = {0, 1};
        CHECK_OK(lf_model_build(names[i], &opt, &g));
        if (!g)
            continue;
        int32_t c = check_cuts(g);
        if (strcmp(names[i], "vgg16") == 0)
            CHECK_EQ_I64(c, g->n_ops - 1); /* a chain: every compute op */
        if (strcmp(names[i], "inception_v3") == 0) {
            /* The 11 modules (Mixed_5b .. Mixed_7c) end in a Concat that is
             * a cut; the two inner concats of each of the last two modules
             * (1x3 and 3x1 branches) are not, nor is any op that feeds a
             * module's concat alone. */
            int32_t concats = 0, inner = 0;
            uint8_t *in_u = calloc((size_t)g->n_ops, 1), *cut = calloc((size_t)g->n_ops, 1);
            CHECK(in_u && cut);
            for (int32_t v = 0; in_u && cut && v < g->n_ops; v++)
                in_u[v] = g->ops[v].type != LF_OP_INPUT;
            if (in_u && cut)
                lf__dp_cut_ops(g, in_u, cut);
            for (int32_t v = 0; in_u && cut && v < g->n_ops; v++) {
                const lf_op *op = &g->ops[v];
                if (op->type == LF_OP_CONCAT && op->n_consumers > 0) {
                    concats += cut[v];
                    inner += !cut[v];
                    for (int32_t j = 0; j < op->n_inputs; j++)
                        if (cut[v] && g->ops[op->inputs[j]].n_consumers == 1)
                            CHECK_EQ_I64(cut[op->inputs[j]], 0);
                }
            }
            CHECK_EQ_I64(concats, 11);
            CHECK_EQ_I64(inner, 4);
            free(in_u);
            free(cut);
        }
        lf_graph_free(g);
    }
}

int main(void)
{
    test_random_dags();
    test_networks();
    return lf_test_result();
}
