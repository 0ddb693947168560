/* torchvision exports (examples/onnx/export_torchvision.py) import to graphs
 * equal, op for op, to the built-in networks, and plan to the same exact
 * optimum at 256 KB (LBDF and BRR). Nested Concats are flattened on both
 * sides (torch's exporter merges Inception-E's three concats into one; the
 * built-in keeps torchvision's module structure, DESIGN §10). The folder of
 * exported files comes from $LF_ONNX_MODELS (or the CMake cache variable
 * LF_ONNX_MODELS); without it, or with no file in it, the test skips (77). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hwdesc/hw.h"
#include "models/registry.h"
#include "planner/exact/exact.h"
#include "planner/io/onnx.h"
#include "planner/plan.h"
#include "testlib.h"

#ifndef LF_ONNX_MODELS_DIR
#define LF_ONNX_MODELS_DIR ""
#endif

/* Rebuilds g with every Concat that feeds only another Concat spliced into
 * its consumer (what the importer's flatten-concat rewrite does). */
static lf_graph *flatten_concats(const lf_graph *g)
{
    lf_graph_builder *b = NULL;
    if (lf_graph_builder_create(&b, g->name) != LF_OK)
        return NULL;
    int32_t *inlined = calloc((size_t)g->n_ops, sizeof *inlined);
    for (int32_t v = 0; v < g->n_ops; v++) {
        const lf_op *op = &g->ops[v];
        inlined[v] = op->type == LF_OP_CONCAT && op->n_consumers == 1 && !op->is_output &&
                     g->ops[op->consumers[0]].type == LF_OP_CONCAT;
    }
    /* the constants, shape only, and every op with its whole operand list
     * (a transformer's constants are not all implied by attributes) */
    for (int32_t j = 0; j < g->n_consts; j++)
        lf_graph_builder_add_const(b, g->consts[j].name, g->consts[j].shape, NULL);
    for (int32_t v = 0; v < g->n_ops; v++) {
        const lf_op *op = &g->ops[v];
        if (inlined[v])
            continue;
        const char *in[256];
        int32_t n = 0;
        /* Expand inlined concats recursively with an explicit stack
         * (operands: an op id, or -1 - const id). */
        int32_t stack[256], sp = 0;
        for (int32_t k = op->n_operands - 1; k >= 0; k--)
            stack[sp++] = op->operands[k].kind == LF_OPND_CONST ? -1 - op->operands[k].id
                                                                : op->operands[k].id;
        while (sp > 0 && n < 256) {
            int32_t u = stack[--sp];
            if (u < 0) {
                in[n++] = g->consts[-1 - u].name;
            } else if (op->type == LF_OP_CONCAT && inlined[u]) {
                for (int32_t k = g->ops[u].n_operands - 1; k >= 0; k--)
                    stack[sp++] = g->ops[u].operands[k].kind == LF_OPND_CONST
                                      ? -1 - g->ops[u].operands[k].id
                                      : g->ops[u].operands[k].id;
            } else {
                in[n++] = g->ops[u].name;
            }
        }
        if (op->type == LF_OP_INPUT)
            lf_graph_builder_add(b, op->type, op->name, &op->attr, in, 0);
        else
            lf_graph_builder_add_op(b, op->type, op->name, &op->attr, in, n);
        if (op->is_output && op->n_consumers)
            lf_graph_builder_mark_output(b, op->name);
    }
    free(inlined);
    lf_graph *out = NULL;
    if (lf_graph_builder_build(b, &out) != LF_OK)
        fprintf(stderr, "flatten %s: %s\n", g->name, lf_last_error());
    lf_graph_builder_free(b);
    return out;
}

/* Attributes with "0 means 1" fields (kernel, stride, dilation, groups)
 * written as 1: the built-in networks use both spellings. */
static lf_attrs canonical(const lf_attrs *a)
{
    lf_attrs c = *a;
    int32_t *one[] = {&c.kh, &c.kw, &c.sh, &c.sw, &c.dh, &c.dw, &c.groups};
    for (size_t k = 0; k < sizeof one / sizeof one[0]; k++)
        if (*one[k] == 0)
            *one[k] = 1;
    return c;
}

/* Op-for-op equality: types, attributes, edges, shapes, weights, parameters
 * and MACs (names differ: torch's are scope paths). Reports the first difference. */
static int same_graph(const lf_graph *a, const lf_graph *b)
{
    if (a->n_ops != b->n_ops) {
        fprintf(stderr, "%s: %d ops built in, %d imported\n", a->name, (int)a->n_ops, (int)b->n_ops);
        return 0;
    }
    for (int32_t v = 0; v < a->n_ops; v++) {
        const lf_op *x = &a->ops[v], *y = &b->ops[v];
        const char *what = NULL;
        if (x->type != y->type)
            what = "type";
        else {
            lf_attrs ca = canonical(&x->attr), cb = canonical(&y->attr);
            if (memcmp(&ca, &cb, sizeof ca) != 0)
                what = "attributes";
        }
        if (what) {
            /* reported below */
        } else if (x->n_inputs != y->n_inputs ||
                   memcmp(x->inputs, y->inputs, (size_t)x->n_inputs * sizeof *x->inputs) != 0) {
            what = "inputs";
        }
        if (what) {
            /* reported below */
        } else if (memcmp(&x->out, &y->out, sizeof x->out) != 0)
            what = "shape";
        else if (x->weight_elems != y->weight_elems || x->param_count != y->param_count)
            what = "weights or parameters";
        else if (x->macs != y->macs)
            what = "MACs";
        else if (x->n_operands != y->n_operands)
            what = "operand count";
        for (int32_t k = 0; !what && k < x->n_operands; k++) {
            const lf_operand *p = &x->operands[k], *q = &y->operands[k];
            if (p->kind != q->kind || (p->kind == LF_OPND_TENSOR && p->id != q->id) ||
                (p->kind == LF_OPND_CONST &&
                 memcmp(&a->consts[p->id].shape, &b->consts[q->id].shape, sizeof(lf_shape)) != 0))
                what = "operands (kind, producer or constant shape)";
            else if (p->kind == LF_OPND_CONST && !b->consts[q->id].data)
                what = "constant values (the import must carry them)";
        }
        if (what) {
            fprintf(stderr, "%s: op %d differs in %s: built-in '%s', imported '%s'\n", a->name, (int)v, what,
                    x->name, y->name);
            return 0;
        }
    }
    return 1;
}

static void exact(const lf_graph *g, const char *scheme, lf_plan *p, lf_plan_metrics *m)
{
    lf_hw hw;
    lf_hw_default(&hw);
    hw.buffer_bytes = 256 * 1024;
    lf_cost_model *cm = NULL;
    CHECK_OK(lf_cost_model_create(&cm, g, &hw, scheme));
    /* Exact optima to compare: no wall-clock limit (inception_v3 BRR takes
     * longer than the default minute on a loaded machine). */
    lf_exact_config cfg;
    lf_exact_config_default(&cfg);
    cfg.time_limit_s = 0;
    CHECK_OK(lf_exact_plan(cm, &cfg, p, NULL));
    CHECK_OK(lf_plan_metrics_compute(p, cm, m));
    lf_cost_model_free(cm);
}

int main(void)
{
    const char *dir = getenv("LF_ONNX_MODELS");
    if (!dir || !*dir)
        dir = LF_ONNX_MODELS_DIR;
    if (!*dir) {
        printf("skipped: set LF_ONNX_MODELS to the folder of export_torchvision.py's files\n");
        return 77;
    }
    int32_t n_models = 0, found = 0;
    const lf_model_entry *models = lf_models(&n_models);
    for (int32_t i = 0; i < n_models; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s.onnx", dir, models[i].name);
        FILE *f = fopen(path, "rb");
        if (!f) {
            printf("%-30s absent\n", models[i].name);
            continue;
        }
        fclose(f);
        found++;
        lf_graph *built = NULL, *flat = NULL, *imported = NULL;
        CHECK_OK(lf_model_build(models[i].name, NULL, &built));
        CHECK_OK(lf_onnx_import(path, NULL, &imported, NULL));
        if (built)
            flat = flatten_concats(built);
        CHECK(flat && imported);
        if (!flat || !imported) {
            lf_graph_free(built);
            lf_graph_free(flat);
            lf_graph_free(imported);
            continue;
        }
        int same = same_graph(flat, imported);
        CHECK(same);
        const char *schemes[] = {"lbdf", "brr"};
        for (int s = 0; s < 2 && same; s++) {
            lf_plan pa, pb;
            lf_plan_metrics ma, mb;
            exact(flat, schemes[s], &pa, &ma);
            exact(imported, schemes[s], &pb, &mb);
            CHECK_EQ_I64(ma.dram_fusable, mb.dram_fusable);
            CHECK_EQ_I64(ma.n_groups, mb.n_groups);
            CHECK(pa.n_ops == pb.n_ops &&
                  memcmp(pa.group_of, pb.group_of, (size_t)pa.n_ops * sizeof *pa.group_of) == 0);
            printf("%-30s %s: %d ops equal, exact optimum %lld B in %d groups at 256 KB (%s)\n",
                   models[i].name, same ? "imported" : "DIFFERS", (int)imported->n_ops,
                   (long long)mb.dram_fusable, (int)mb.n_groups, schemes[s]);
            lf_plan_destroy(&pa);
            lf_plan_destroy(&pb);
        }
        lf_graph_free(built);
        lf_graph_free(flat);
        lf_graph_free(imported);
    }
    if (!found) {
        printf("skipped: no exported file in %s\n", dir);
        return 77;
    }
    return lf_test_result();
}
