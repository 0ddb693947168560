/* The import report: which normalisation applied where, and why. */
#include <stdlib.h>
#include <string.h>

#include "planner/io/onnx_report.h"

typedef struct lf__onnx_line {
    lf_onnx_rewrite kind;
    char *node;
    char *why;
} lf__onnx_line;

struct lf_onnx_report {
    lf__onnx_line *lines;
    int32_t n, cap;
    int32_t counts[LF_ONNX_REWRITE_COUNT];
    int64_t opset;
    int32_t nodes;
    char **out_onnx, **out_ir; /* graph outputs: file name -> IR op name */
    int32_t n_out, cap_out;
    char **k_name;             /* graph outputs folded to constants (const_outputs) */
    float **k_data;
    int64_t *k_count;
    int32_t n_k;
};

static const char *const lf__rewrite_names[LF_ONNX_REWRITE_COUNT] = {
    [LF_ONNX_FOLD_CONSTANTS] = "fold-constants", [LF_ONNX_FOLD_BN] = "fold-bn",
    [LF_ONNX_DROP_IDENTITY] = "drop-identity",   [LF_ONNX_CLIP] = "clip",
    [LF_ONNX_HARDSWISH] = "hardswish",           [LF_ONNX_SILU] = "silu",
    [LF_ONNX_FOLD_PAD] = "fold-pad",             [LF_ONNX_FLATTEN_CONCAT] = "flatten-concat",
    [LF_ONNX_SPLIT] = "split",                   [LF_ONNX_RESHAPE_FLATTEN] = "reshape-flatten",
    [LF_ONNX_CHANNEL_SHUFFLE] = "channel-shuffle", [LF_ONNX_GATHER_SLICE] = "gather-slice",
    [LF_ONNX_LAYERNORM] = "layernorm",           [LF_ONNX_GELU] = "gelu",
    [LF_ONNX_RANK_VIEWS] = "rank-views",         [LF_ONNX_RMSNORM] = "rmsnorm",
};

const char *lf_onnx_rewrite_name(lf_onnx_rewrite k)
{
    return ((int)k >= 0 && k < LF_ONNX_REWRITE_COUNT) ? lf__rewrite_names[k] : "?";
}

lf_onnx_rewrite lf_onnx_rewrite_from_name(const char *name)
{
    for (int k = 0; k < LF_ONNX_REWRITE_COUNT; k++)
        if (strcmp(lf__rewrite_names[k], name) == 0)
            return (lf_onnx_rewrite)k;
    return LF_ONNX_REWRITE_COUNT;
}

lf_onnx_report *lf__onnx_report_create(void) { return calloc(1, sizeof(lf_onnx_report)); }

void lf_onnx_report_free(lf_onnx_report *r)
{
    if (!r)
        return;
    for (int32_t i = 0; i < r->n; i++) {
        free(r->lines[i].node);
        free(r->lines[i].why);
    }
    free(r->lines);
    for (int32_t i = 0; i < r->n_out; i++) {
        free(r->out_onnx[i]);
        free(r->out_ir[i]);
    }
    free(r->out_onnx);
    free(r->out_ir);
    for (int32_t i = 0; i < r->n_k; i++) {
        free(r->k_name[i]);
        free(r->k_data[i]);
    }
    free(r->k_name);
    free(r->k_data);
    free(r->k_count);
    free(r);
}

void lf__onnx_report_add(lf_onnx_report *r, lf_onnx_rewrite kind, const char *node, const char *why)
{
    if (!r || (int)kind < 0 || kind >= LF_ONNX_REWRITE_COUNT)
        return;
    r->counts[kind]++;
    if (r->n == r->cap) {
        int32_t cap = r->cap ? 2 * r->cap : 64;
        lf__onnx_line *nl = realloc(r->lines, (size_t)cap * sizeof *nl);
        if (!nl)
            return;
        r->lines = nl;
        r->cap = cap;
    }
    lf__onnx_line *l = &r->lines[r->n];
    l->kind = kind;
    l->node = strdup(node ? node : "");
    l->why = strdup(why ? why : "");
    if (!l->node || !l->why) {
        free(l->node);
        free(l->why);
        return;
    }
    r->n++;
}

void lf__onnx_report_set_file(lf_onnx_report *r, int64_t opset, int32_t nodes)
{
    if (r) {
        r->opset = opset;
        r->nodes = nodes;
    }
}

int32_t lf_onnx_report_count(const lf_onnx_report *r, lf_onnx_rewrite k)
{
    return (r && (int)k >= 0 && k < LF_ONNX_REWRITE_COUNT) ? r->counts[k] : 0;
}

int64_t lf_onnx_report_opset(const lf_onnx_report *r) { return r ? r->opset : 0; }
int32_t lf_onnx_report_nodes(const lf_onnx_report *r) { return r ? r->nodes : 0; }

void lf_onnx_report_write(const lf_onnx_report *r, FILE *f)
{
    if (!r)
        return;
    for (int32_t i = 0; i < r->n; i++)
        fprintf(f, "  %-16s %s: %s\n", lf__rewrite_names[r->lines[i].kind], r->lines[i].node,
                r->lines[i].why);
}

void lf__onnx_report_output(lf_onnx_report *r, const char *onnx_name, const char *ir_name)
{
    if (!r)
        return;
    if (r->n_out == r->cap_out) {
        int32_t cap = r->cap_out ? 2 * r->cap_out : 8;
        char **a = realloc(r->out_onnx, (size_t)cap * sizeof *a);
        if (!a)
            return;
        r->out_onnx = a;
        char **b = realloc(r->out_ir, (size_t)cap * sizeof *b);
        if (!b)
            return;
        r->out_ir = b;
        r->cap_out = cap;
    }
    r->out_onnx[r->n_out] = strdup(onnx_name);
    r->out_ir[r->n_out] = strdup(ir_name);
    if (!r->out_onnx[r->n_out] || !r->out_ir[r->n_out]) {
        free(r->out_onnx[r->n_out]);
        free(r->out_ir[r->n_out]);
        return;
    }
    r->n_out++;
}

const char *lf_onnx_report_output_op(const lf_onnx_report *r, const char *onnx_name)
{
    if (r && !onnx_name)
        return r->n_out == 1 ? r->out_ir[0] : NULL;
    for (int32_t i = 0; r && i < r->n_out; i++)
        if (strcmp(r->out_onnx[i], onnx_name) == 0)
            return r->out_ir[i];
    return NULL;
}

lf_status lf__onnx_report_constant(lf_onnx_report *r, const char *onnx_name, const float *data, int64_t count)
{
    if (!r)
        return LF_OK;
    char **kn = realloc(r->k_name, (size_t)(r->n_k + 1) * sizeof *kn);
    if (kn)
        r->k_name = kn;
    float **kd = kn ? realloc(r->k_data, (size_t)(r->n_k + 1) * sizeof *kd) : NULL;
    if (kd)
        r->k_data = kd;
    int64_t *kc = kd ? realloc(r->k_count, (size_t)(r->n_k + 1) * sizeof *kc) : NULL;
    if (kc)
        r->k_count = kc;
    char *name = kc ? strdup(onnx_name) : NULL;
    float *copy = name ? malloc((size_t)(count ? count : 1) * sizeof *copy) : NULL;
    if (!copy) {
        free(name);
        return lf_set_error(LF_ENOMEM, "out of memory for the constant output '%s'", onnx_name);
    }
    if (count)
        memcpy(copy, data, (size_t)count * sizeof *copy);
    r->k_name[r->n_k] = name;
    r->k_data[r->n_k] = copy;
    r->k_count[r->n_k++] = count;
    return LF_OK;
}

int lf_onnx_report_constant(const lf_onnx_report *r, const char *onnx_name, const float **data, int64_t *count)
{
    for (int32_t i = 0; r && i < r->n_k; i++)
        if (onnx_name ? strcmp(r->k_name[i], onnx_name) == 0 : r->n_k == 1) {
            *data = r->k_data[i];
            *count = r->k_count[i];
            return 1;
        }
    return 0;
}
