/* TASO's generated rules (graph_subst.pb, DESIGN §11) mapped onto the IR.
 *
 * Each TASO rule is a source and a target list of ops over external tensors
 * (negative op ids). A rule maps when every op type has an IR counterpart
 * (CONV2D -> Conv, RELU -> Relu, EW_ADD -> Add, EW_MUL -> Mul, MATMUL ->
 * MatMul, CONCAT -> Concat) and the IR can express its pattern: SPLIT is left
 * out (TASO sizes a split from the tensor's concat history, which the IR does
 * not keep), and so is a source op computing a conv's weight (the IR folds
 * weight-only ops into constants, so such an op never exists in a graph).
 * TASO's tensors are 4-D NCHW for convs and 2-D [rows, cols] for matmuls; the
 * 2-D ones are {1, 1, rows, cols} here, so a 2-D axis 0/1 is H/W.
 *
 * Source convs take no bias (TASO's conv has none; a conv with a bias matched
 * here would lose it). The target is interpreted op by op: conv attributes
 * come from the weight's shape (kernel, output channels, groups = C_in /
 * weight C, as TASO infers them) and the rule's stride, padding and
 * activation; shapes are inferred with the op table as the target grows. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/exec/exec.h"
#include "planner/optable.h"
#include "planner/util/fileio.h"
#include "search/subst/subst_internal.h"
#include "taso_rules.pb-c.h"

enum { TASO_CONV = 3, TASO_RELU = 8, TASO_CONCAT = 12, TASO_SPLIT = 13, TASO_ADD = 16, TASO_MUL = 17,
       TASO_MATMUL = 18 };
enum { PM_NUM_INPUTS = 1, PM_STRIDE_H = 6, PM_STRIDE_W = 7, PM_PAD = 8, PM_ACTI = 9, PM_NUMDIM = 10,
       PM_AXIS = 11 };

typedef struct lf__taso_op {
    int32_t type;
    int32_t n_in;
    int32_t in[LF_SUBST_MAX_REFS];
    int32_t stride_h, stride_w, pad_valid, relu, numdim, axis;
} lf__taso_op;

typedef struct lf__taso_def {
    int32_t n_src, n_dst;
    lf__taso_op src[LF_SUBST_MAX_NODES], dst[LF_SUBST_MAX_NODES];
    int32_t dst_maps[LF_SUBST_MAX_NODES];
    int32_t is4d;
    char name[20];
    char summary[160];
} lf__taso_def;

struct lf__taso_rules {
    int32_t n;
    lf_subst_rule *rules;
    lf__taso_def *defs;
};

int32_t lf__taso_count(const lf__taso_rules *t) { return t ? t->n : 0; }
const lf_subst_rule *lf__taso_rule(const lf__taso_rules *t, int32_t i) { return &t->rules[i]; }

void lf__taso_free(lf__taso_rules *t)
{
    if (!t)
        return;
    free(t->rules);
    free(t->defs);
    free(t);
}

static lf_op_type lf__ir_type(int32_t t)
{
    switch (t) {
    case TASO_CONV: return LF_OP_CONV;
    case TASO_RELU: return LF_OP_RELU;
    case TASO_CONCAT: return LF_OP_CONCAT;
    case TASO_ADD: return LF_OP_ADD;
    case TASO_MUL: return LF_OP_MUL;
    case TASO_MATMUL: return LF_OP_MATMUL;
    default: return LF_OP_TYPE_COUNT;
    }
}

static const char *lf__tname(int32_t t)
{
    lf_op_type x = lf__ir_type(t);
    return x == LF_OP_TYPE_COUNT ? "?" : lf_op_info_of(x)->name;
}

/* The concat's axis as an LF_AXES mask (0 = channels). */
static int32_t lf__axes(const lf__taso_op *o)
{
    int32_t dim = o->numdim == 2 ? LF_DIM_H + o->axis : o->axis;
    return dim == LF_DIM_C ? 0 : LF_AXES(dim);
}

/* Attributes of a conv/concat from the rule's parameters and operand shapes.
 * Returns 0 when the shapes do not fit (kernel even under SAME padding,
 * channels that do not divide into groups). */
static int lf__attrs(const lf__taso_op *o, const lf_shape *in, lf_attrs *a)
{
    memset(a, 0, sizeof *a);
    if (o->type == TASO_CONCAT)
        a->axes = lf__axes(o);
    if (o->type != TASO_CONV)
        return 1;
    const lf_shape *x = &in[0], *w = &in[1];
    if (w->c <= 0 || x->c % w->c != 0)
        return 0;
    a->out_channels = (int32_t)w->n;
    a->kh = (int32_t)w->h, a->kw = (int32_t)w->w;
    a->groups = (int32_t)(x->c / w->c);
    a->sh = o->stride_h, a->sw = o->stride_w;
    if (!o->pad_valid) {
        if (!(w->h & 1) || !(w->w & 1))
            return 0;
        a->pad_top = a->pad_bottom = (int32_t)(w->h - 1) / 2;
        a->pad_left = a->pad_right = (int32_t)(w->w - 1) / 2;
    }
    a->act = o->relu ? LF_ACT_RELU : LF_ACT_NONE;
    return 1;
}

/* ---- matching conditions ---------------------------------------------------- */

static int lf__check(const lf_graph *g, const lf_subst_match *m, const lf_subst_rule *r)
{
    const lf__taso_def *d = r->data;
    for (int32_t i = 0; i < d->n_src; i++) {
        const lf__taso_op *o = &d->src[i];
        const lf_op *op = &g->ops[m->op[i]];
        const lf_attrs *a = &op->attr;
        switch (o->type) {
        case TASO_CONV:
            if (lf_subst_field_of(g, m->op[i], LF_SF_SH) != o->stride_h ||
                lf_subst_field_of(g, m->op[i], LF_SF_SW) != o->stride_w ||
                lf_subst_field_of(g, m->op[i], LF_SF_DH) != 1 || lf_subst_field_of(g, m->op[i], LF_SF_DW) != 1 ||
                a->act != (o->relu ? LF_ACT_RELU : LF_ACT_NONE))
                return 0;
            if (o->pad_valid ? (a->pad_top || a->pad_left || a->pad_bottom || a->pad_right)
                             : lf_subst_field_of(g, m->op[i], LF_SF_SAME_PAD) != 1)
                return 0;
            break;
        case TASO_MATMUL:
            if (a->trans_a || a->trans_b)
                return 0;
            break;
        case TASO_CONCAT:
            if (a->axes != lf__axes(o))
                return 0;
            break;
        case TASO_ADD:
        case TASO_MUL: { /* TASO's element-wise ops take equal shapes: no broadcasting */
            const lf_operand *p = &op->operands[0], *q = &op->operands[1];
            lf_shape s = p->kind == LF_OPND_CONST ? g->consts[p->id].shape : g->ops[p->id].out;
            lf_shape u = q->kind == LF_OPND_CONST ? g->consts[q->id].shape : g->ops[q->id].out;
            if (memcmp(&s, &u, sizeof s) != 0)
                return 0;
            break;
        }
        default:
            break;
        }
    }
    return 1;
}

/* ---- target ------------------------------------------------------------------- */

static lf_status lf__target(lf_subst_tctx *t)
{
    const lf__taso_def *d = lf__subst_t_rule(t)->data;
    const char *names[LF_SUBST_MAX_NODES];
    lf_shape shapes[LF_SUBST_MAX_NODES];
    for (int32_t j = 0; j < d->n_dst; j++) {
        const lf__taso_op *o = &d->dst[j];
        const char *on[LF_SUBST_MAX_REFS];
        lf_shape os[LF_SUBST_MAX_REFS];
        for (int32_t p = 0; p < o->n_in; p++) {
            int32_t ref = o->in[p];
            on[p] = ref >= 0 ? names[ref] : lf_subst_t_var(t, -1 - ref);
            os[p] = ref >= 0 ? shapes[ref] : lf_subst_t_var_shape(t, -1 - ref);
        }
        lf_attrs a;
        char err[160];
        if (!lf__attrs(o, os, &a))
            return lf_set_error(LF_EGRAPH, "rule %s: target %s does not fit its operands' shapes", d->name,
                                lf__tname(o->type));
        lf_op_type type = lf__ir_type(o->type);
        if (lf_op_infer(type, &a, os, o->n_in, &shapes[j], err, sizeof err))
            return lf_set_error(LF_EGRAPH, "rule %s: target %s is not shape-valid: %s", d->name,
                                lf__tname(o->type), err);
        lf_status st = lf_subst_t_add(t, type, &a, on, o->n_in, d->dst_maps[j], &names[j]);
        if (st)
            return st;
    }
    return LF_OK;
}

/* ---- verification example ------------------------------------------------------ */

static lf_status lf__example(const lf_subst_rule *r, int32_t k, lf_graph_builder *b)
{
    const lf__taso_def *d = r->data;
    static const lf_shape act4[3] = {{1, 4, 5, 5}, {2, 4, 6, 5}, {1, 6, 4, 7}};
    static const int32_t kernel[3] = {3, 3, 1}, dim2[3] = {4, 5, 3};
    lf_shape act = d->is4d ? act4[k] : (lf_shape){1, 1, dim2[k], dim2[k]};
    lf_shape vs[LF_SUBST_MAX_VARS], os[LF_SUBST_MAX_NODES];
    int vset[LF_SUBST_MAX_VARS] = {0}, weight_only[LF_SUBST_MAX_VARS];
    char name[32];
    /* A variable is a constant when the source reads it only as a conv or
     * matmul weight; anything else is a graph input. */
    for (int32_t v = 0; v < LF_SUBST_MAX_VARS; v++)
        weight_only[v] = 1;
    for (int32_t i = 0; i < d->n_src; i++)
        for (int32_t p = 0; p < d->src[i].n_in; p++)
            if (d->src[i].in[p] < 0 &&
                !((d->src[i].type == TASO_CONV || d->src[i].type == TASO_MATMUL) && p == 1))
                weight_only[-1 - d->src[i].in[p]] = 0;
    for (int32_t i = 0; i < d->n_src; i++) {
        const lf__taso_op *o = &d->src[i];
        const char *on[LF_SUBST_MAX_REFS];
        char onb[LF_SUBST_MAX_REFS][16];
        lf_shape in[LF_SUBST_MAX_REFS];
        for (int32_t p = 0; p < o->n_in; p++) {
            int32_t ref = o->in[p];
            if (ref >= 0) {
                snprintf(onb[p], sizeof onb[p], "s%d", (int)ref);
                in[p] = os[ref];
                on[p] = onb[p];
                continue;
            }
            int32_t v = -1 - ref;
            snprintf(onb[p], sizeof onb[p], "v%d", (int)v);
            on[p] = onb[p];
            if (!vset[v]) {
                int weight = weight_only[v];
                lf_shape s = act;
                if (o->type == TASO_CONV && p == 1)
                    s = (lf_shape){act.c, in[0].c, kernel[k], kernel[k]};
                else if (o->type == TASO_MATMUL && p == 1)
                    s = (lf_shape){1, 1, in[0].w, dim2[k]};
                else if (o->type != TASO_CONV && o->type != TASO_MATMUL)
                    for (int32_t q = 0; q < o->n_in; q++) { /* like a known operand */
                        int32_t rq = o->in[q];
                        if (q != p && (rq >= 0 || vset[-1 - rq])) {
                            s = rq >= 0 ? os[rq] : vs[-1 - rq];
                            break;
                        }
                    }
                vs[v] = s;
                vset[v] = 1;
                lf_status st;
                if (weight) {
                    int64_t n = s.n * s.c * s.h * s.w;
                    float *data = malloc((size_t)n * sizeof *data);
                    if (!data)
                        return lf_set_error(LF_ENOMEM, "example: out of memory");
                    lf_exec_fill(2000u + (uint64_t)k, on[p], LF_VALUE_WEIGHT, s.c * s.h * s.w, data, n);
                    st = lf_graph_builder_add_const_owned(b, on[p], s, data) < 0 ? LF_EGRAPH : LF_OK;
                } else {
                    lf_attrs a;
                    memset(&a, 0, sizeof a);
                    a.batch = (int32_t)s.n, a.in_c = (int32_t)s.c, a.in_h = (int32_t)s.h, a.in_w = (int32_t)s.w;
                    st = lf_graph_builder_add_op(b, LF_OP_INPUT, on[p], &a, NULL, 0) < 0 ? LF_EGRAPH : LF_OK;
                }
                if (st)
                    return lf_set_error(LF_EGRAPH, "example: %s", lf_last_error());
            }
            in[p] = vs[v];
        }
        lf_attrs a;
        char err[160];
        if (!lf__attrs(o, in, &a) || lf_op_infer(lf__ir_type(o->type), &a, in, o->n_in, &os[i], err, sizeof err))
            return lf_set_error(LF_EGRAPH, "no example shapes fit the source pattern");
        snprintf(name, sizeof name, "s%d", (int)i);
        if (lf_graph_builder_add_op(b, lf__ir_type(o->type), name, &a, on, o->n_in) < 0)
            return lf_set_error(LF_EGRAPH, "example: %s", lf_last_error());
    }
    return LF_OK;
}

/* ---- loading and mapping ------------------------------------------------------------ */

/* Reads one side's ops; vars numbers external tensors in order of first use.
 * Returns 0 (and why) when the side cannot be mapped. */
static int lf__side(TasoRules__Operator **ops, size_t n, lf__taso_op *out, int32_t *var_ids,
                    int32_t *n_vars, int src, const char **why)
{
    if (n < 1 || n > LF_SUBST_MAX_NODES) {
        *why = "size";
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        const TasoRules__Operator *o = ops[i];
        lf__taso_op *x = &out[i];
        memset(x, 0, sizeof *x);
        x->type = o->type;
        x->stride_h = x->stride_w = 1;
        if (o->type == TASO_SPLIT) {
            *why = "split";
            return 0;
        }
        if (lf__ir_type(o->type) == LF_OP_TYPE_COUNT) {
            *why = "type";
            return 0;
        }
        if (o->n_input < 1 || o->n_input > LF_SUBST_MAX_REFS) {
            *why = "shape";
            return 0;
        }
        x->n_in = (int32_t)o->n_input;
        for (size_t p = 0; p < o->n_input; p++) {
            const TasoRules__Tensor *t = o->input[p];
            if (t->tsid != 0) { /* a second output: only SPLIT has one */
                *why = "split";
                return 0;
            }
            if (t->opid >= 0) {
                if ((size_t)t->opid >= i) {
                    *why = "shape";
                    return 0;
                }
                x->in[p] = t->opid;
                continue;
            }
            int32_t v = 0;
            while (v < *n_vars && var_ids[v] != t->opid)
                v++;
            if (v == *n_vars) {
                if (!src || v == LF_SUBST_MAX_VARS) { /* a target variable the source never binds */
                    *why = "shape";
                    return 0;
                }
                var_ids[(*n_vars)++] = t->opid;
            }
            x->in[p] = LF_SUBST_VAR(v);
        }
        for (size_t p = 0; p < o->n_para; p++) {
            int32_t key = o->para[p]->key, val = o->para[p]->value;
            if (key == PM_STRIDE_H) x->stride_h = val;
            else if (key == PM_STRIDE_W) x->stride_w = val;
            else if (key == PM_PAD) x->pad_valid = val == 1;
            else if (key == PM_ACTI) x->relu = val == 2;
            else if (key == PM_NUMDIM) x->numdim = val;
            else if (key == PM_AXIS) x->axis = val;
        }
        if (o->type == TASO_MATMUL && x->relu) { /* the IR's MatMul has no fused activation */
            *why = "act";
            return 0;
        }
        if (o->type == TASO_CONV && (x->n_in != 2 || (src && x->in[1] >= 0))) {
            *why = "weight"; /* a source op computing a conv weight is folded away in the IR */
            return 0;
        }
    }
    return 1;
}

static int lf__map(const TasoRules__Rule *pr, int32_t index, const char *prefix, const char *origin,
                   lf__taso_def *d, lf_subst_rule *r, const char **why)
{
    memset(d, 0, sizeof *d);
    memset(r, 0, sizeof *r);
    int32_t var_ids[LF_SUBST_MAX_VARS], n_vars = 0;
    if (!lf__side(pr->srcop, pr->n_srcop, d->src, var_ids, &n_vars, 1, why) ||
        !lf__side(pr->dstop, pr->n_dstop, d->dst, var_ids, &n_vars, 0, why))
        return 0;
    d->n_src = (int32_t)pr->n_srcop;
    d->n_dst = (int32_t)pr->n_dstop;
    for (int32_t j = 0; j < d->n_dst; j++)
        d->dst_maps[j] = -1;
    for (size_t i = 0; i < pr->n_mappedoutput; i++) {
        const TasoRules__MapOutput *mo = pr->mappedoutput[i];
        if (mo->srctsid != 0 || mo->dsttsid != 0 || mo->srcopid < 0 || mo->srcopid >= d->n_src ||
            mo->dstopid < 0 || mo->dstopid >= d->n_dst || d->dst_maps[mo->dstopid] >= 0 ||
            (r->mapped & (1u << mo->srcopid))) {
            *why = "shape";
            return 0;
        }
        d->dst_maps[mo->dstopid] = mo->srcopid;
        r->mapped |= 1u << mo->srcopid;
    }
    snprintf(d->name, sizeof d->name, "%s_%03d", prefix, (int)index);
    size_t len = 0;
    for (int side = 0; side < 2; side++) {
        const lf__taso_op *ops = side ? d->dst : d->src;
        int32_t n = side ? d->n_dst : d->n_src;
        len += (size_t)snprintf(d->summary + len, sizeof d->summary - len, "%s", side ? "  =>  " : "");
        for (int32_t i = 0; i < n && len < sizeof d->summary; i++)
            len += (size_t)snprintf(d->summary + len, sizeof d->summary - len, "%s%s%s", i ? ", " : "",
                                    lf__tname(ops[i].type), ops[i].relu ? "(relu)" : "");
        if (len >= sizeof d->summary)
            len = sizeof d->summary - 1;
    }
    for (int32_t i = 0; i < d->n_src; i++)
        d->is4d |= d->src[i].type == TASO_CONV || d->src[i].numdim == 4;
    for (int32_t i = 0; i < d->n_dst; i++)
        d->is4d |= d->dst[i].type == TASO_CONV;
    r->name = d->name;
    r->origin = origin;
    r->summary = d->summary;
    r->n_nodes = d->n_src;
    r->n_vars = n_vars;
    for (int32_t v = 0; v < n_vars; v++)
        r->var_kind[v] = LF_SUBST_VAR_ANY;
    for (int32_t i = 0; i < d->n_src; i++) {
        const lf__taso_op *o = &d->src[i];
        lf_subst_node *nd = &r->nodes[i];
        nd->types = LF_SUBST_TYPE(lf__ir_type(o->type));
        nd->min_opnds = nd->max_opnds = nd->n_refs = o->n_in;
        memcpy(nd->ref, o->in, sizeof nd->ref);
        nd->after = -1;
        if (o->type == TASO_CONV) /* the IR's conv weight is a constant */
            r->var_kind[-1 - o->in[1]] = LF_SUBST_VAR_CONST;
    }
    r->target_ops = d->n_dst;
    r->check = lf__check;
    r->target = lf__target;
    r->example = lf__example;
    r->data = d;
    return 1;
}

lf_status lf__taso_load(const char *path, lf__taso_rules **out, lf_taso_stats *stats)
{
    *out = NULL;
    memset(stats, 0, sizeof *stats);
    if (!path || !*path)
        return lf_set_error(LF_EINVAL, "TASO rules: no rule file given (--taso-file FILE)");
    char *data = NULL;
    long len = 0;
    lf_status st = lf_read_file_capped(path, (int64_t)64 << 20, "TASO rule file", &data, &len);
    if (st)
        return st;
    st = lf__taso_load_mem((const uint8_t *)data, (size_t)len, path, "taso", "taso-file", out, stats);
    free(data);
    return st;
}

lf_status lf__taso_load_mem(const uint8_t *data, size_t len, const char *what, const char *prefix,
                            const char *origin, lf__taso_rules **out, lf_taso_stats *stats)
{
    *out = NULL;
    memset(stats, 0, sizeof *stats);
    TasoRules__RuleCollection *rc = taso_rules__rule_collection__unpack(NULL, len, data);
    if (!rc)
        return lf_set_error(LF_EPARSE, "%s: not a TASO rule collection (protobuf parse failed)", what);
    if (rc->n_rule == 0) {
        taso_rules__rule_collection__free_unpacked(rc, NULL);
        return lf_set_error(LF_EPARSE, "%s: the TASO rule collection holds no rules", what);
    }
    lf__taso_rules *t = calloc(1, sizeof *t);
    if (t) {
        t->rules = calloc(rc->n_rule, sizeof *t->rules);
        t->defs = calloc(rc->n_rule, sizeof *t->defs);
    }
    if (!t || !t->rules || !t->defs) {
        lf__taso_free(t);
        taso_rules__rule_collection__free_unpacked(rc, NULL);
        return lf_set_error(LF_ENOMEM, "%s: out of memory", what);
    }
    stats->loaded = (int32_t)rc->n_rule;
    for (size_t i = 0; i < rc->n_rule; i++) {
        const char *why = "";
        if (lf__map(rc->rule[i], (int32_t)i, prefix, origin, &t->defs[t->n], &t->rules[t->n], &why)) {
            t->n++;
            continue;
        }
        if (strcmp(why, "type") == 0)
            stats->unmapped_types++;
        else if (strcmp(why, "split") == 0)
            stats->unmapped_split++;
        else if (strcmp(why, "weight") == 0)
            stats->unmapped_weight++;
        else if (strcmp(why, "act") == 0)
            stats->unmapped_act++;
        else
            stats->unmapped_shape++;
    }
    stats->mapped = t->n;
    taso_rules__rule_collection__free_unpacked(rc, NULL);
    *out = t;
    return LF_OK;
}
