/* Inlining of model-local ONNX functions (ModelProto.functions): every node
 * whose (domain, op_type) names a function of the model is replaced by the
 * function's body, with the body's formal inputs and outputs bound to the
 * call's names, its other values renamed where the graph already uses the
 * name, and attribute references (AttributeProto.ref_attr_name) replaced by
 * the call's attribute of that name (an attribute the call leaves out is
 * left out: this onnx.proto has no defaults for function attributes). The
 * importer and `validate` then read one flat node list (onnx_load.c,
 * onnx_write_plan.c), so `--format onnx-groups` re-imports as the flat
 * export does.
 *
 * Hostile input: calls nest at most LF__OX_MAX_FUNCTION_DEPTH deep, a
 * function that calls itself (directly or not) is refused, and the result
 * is capped at the importer's node limit, so neither the stack nor the
 * output can grow without bound. Why names are kept: a plan names ops by
 * their node names, and a grouped export's body nodes are the flat
 * export's nodes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/io/onnx_functions.h"
#include "planner/io/onnx_write_internal.h"
#include "planner/util/hashmap.h"

typedef struct lf__inl {
    const Onnx__ModelProto *m;
    const char *origin;
    lf_arena *a;
    int64_t max_nodes;
    Onnx__NodeProto **out; /* grows up to max_nodes */
    size_t n, cap;
    lf_strmap values; /* every value name in use */
    lf_strmap names;  /* every node name in use */
    lf_strmap next;   /* prefix/want -> the last counter lf__fresh gave it */
    int32_t stack[LF__OX_MAX_FUNCTION_DEPTH];
    int32_t depth;
} lf__inl;

static lf_status lf__oom(const lf__inl *I) { return lf_set_error(LF_ENOMEM, "%s: out of memory inlining functions", I->origin); }

static int lf__same(const char *a, const char *b) { return strcmp(a ? a : "", b ? b : "") == 0; }

static int lf__default_domain(const char *d) { return !d || !*d || strcmp(d, "ai.onnx") == 0; }

/* The model-local function a node calls, or -1. */
static int32_t lf__callee(const lf__inl *I, const Onnx__NodeProto *n)
{
    if (!n->op_type)
        return -1;
    for (size_t f = 0; f < I->m->n_functions; f++) {
        const Onnx__FunctionProto *fp = I->m->functions[f];
        if (lf__same(fp->name, n->op_type) && lf__same(fp->domain, n->domain))
            return (int32_t)f;
    }
    return -1;
}

/* A name not yet in *set: want, else prefix/want, else prefix/want_N (N
 * from a counter kept per prefix/want, so many calls of one name stay
 * linear; lengths capped so the counter always fits and the loop ends);
 * recorded in the set; memory from the arena. */
static const char *lf__fresh(lf__inl *I, lf_strmap *set, const char *prefix, const char *want)
{
    char buf[512], base[480];
    void *x;
    snprintf(buf, sizeof buf, "%s", want);
    if (lf_strmap_get(set, buf, &x)) {
        snprintf(base, sizeof base, "%.200s/%.250s", prefix, want);
        snprintf(buf, sizeof buf, "%s", base);
        intptr_t k = lf_strmap_get(&I->next, base, &x) ? (intptr_t)x : 0;
        while (lf_strmap_get(set, buf, &x))
            snprintf(buf, sizeof buf, "%s_%d", base, (int)++k);
        if (lf_strmap_put(&I->next, base, (void *)k) != LF_OK)
            return NULL;
    }
    char *s = lf_arena_strdup(I->a, buf);
    if (!s || lf_strmap_put(set, s, (void *)1) != LF_OK)
        return NULL;
    return s;
}

static lf_status lf__emit(lf__inl *I, Onnx__NodeProto *n)
{
    if ((int64_t)I->n >= I->max_nodes)
        return lf_set_error(LF_ERANGE, "%s: inlining the model's functions gives more than %lld nodes", I->origin,
                            (long long)I->max_nodes);
    if (I->n == I->cap) {
        size_t c = I->cap ? 2 * I->cap : 256;
        Onnx__NodeProto **p = realloc(I->out, c * sizeof *p);
        if (!p)
            return lf__oom(I);
        I->out = p;
        I->cap = c;
    }
    I->out[I->n++] = n;
    return LF_OK;
}

/* A body node's attributes with references resolved against the call's. */
static lf_status lf__attrs(lf__inl *I, const Onnx__FunctionProto *fp, const Onnx__NodeProto *call,
                           const Onnx__NodeProto *b, Onnx__NodeProto *copy, const char *bname)
{
    copy->n_attribute = 0;
    copy->attribute = lf_arena_alloc(I->a, (b->n_attribute ? b->n_attribute : 1) * sizeof *copy->attribute);
    if (!copy->attribute)
        return lf__oom(I);
    for (size_t k = 0; k < b->n_attribute; k++) {
        Onnx__AttributeProto *at = b->attribute[k];
        if (at->n_graphs || at->g)
            return lf_set_error(LF_EUNSUPPORTED, "%s: function '%s': node '%s' (%s): subgraph attributes inside "
                                "functions are not supported", I->origin, fp->name, bname, b->op_type);
        if (!at->ref_attr_name || !*at->ref_attr_name) {
            copy->attribute[copy->n_attribute++] = at;
            continue;
        }
        const Onnx__AttributeProto *val = NULL;
        for (size_t j = 0; j < call->n_attribute && !val; j++)
            if (lf__same(call->attribute[j]->name, at->ref_attr_name))
                val = call->attribute[j];
        if (!val)
            continue; /* not given by the call: the op's default */
        if (val->ref_attr_name && *val->ref_attr_name)
            return lf_set_error(LF_EPARSE, "%s: function '%s': node '%s': attribute '%s' refers to '%s', which the "
                                "call leaves unresolved", I->origin, fp->name, bname, at->name ? at->name : "",
                                at->ref_attr_name);
        if (at->has_type && val->has_type && at->type != val->type)
            return lf_set_error(LF_EPARSE, "%s: function '%s': node '%s': attribute '%s' has type %d but the "
                                "call's '%s' has type %d", I->origin, fp->name, bname, at->name ? at->name : "",
                                (int)at->type, at->ref_attr_name, (int)val->type);
        Onnx__AttributeProto *r = lf_arena_alloc(I->a, sizeof *r);
        if (!r)
            return lf__oom(I);
        *r = *val;
        r->name = at->name;
        r->ref_attr_name = NULL;
        copy->attribute[copy->n_attribute++] = r;
    }
    return LF_OK;
}

static lf_status lf__expand(lf__inl *I, const Onnx__NodeProto *call, int32_t f, const char *call_name);

/* Names inside one call: formal or body name -> actual name, and which of
 * them hold a value yet (formal inputs from the start, the rest once a body
 * node writes them). */
typedef struct lf__scope {
    const Onnx__FunctionProto *fp;
    lf_strmap actual, made;
} lf__scope;

static int lf__is_formal(const char *const *list, size_t n, const char *t)
{
    for (size_t k = 0; k < n; k++)
        if (lf__same(list[k], t))
            return 1;
    return 0;
}

/* One body node of function fp called by call. */
static lf_status lf__body_node(lf__inl *I, const Onnx__NodeProto *call, const char *call_name, lf__scope *S,
                               const Onnx__NodeProto *b, size_t index)
{
    const Onnx__FunctionProto *fp = S->fp;
    char auto_name[300];
    if (!b->op_type || !*b->op_type)
        return lf_set_error(LF_EPARSE, "%s: function '%s': node #%zu has no op_type", I->origin, fp->name, index);
    if (b->name && *b->name)
        snprintf(auto_name, sizeof auto_name, "%s", b->name);
    else
        snprintf(auto_name, sizeof auto_name, "%s_%zu", b->op_type, index);
    Onnx__NodeProto *copy = lf_arena_alloc(I->a, sizeof *copy);
    char **in = lf_arena_alloc(I->a, (b->n_input ? b->n_input : 1) * sizeof *in);
    char **out = lf_arena_alloc(I->a, (b->n_output ? b->n_output : 1) * sizeof *out);
    if (!copy || !in || !out)
        return lf__oom(I);
    *copy = *b;
    for (size_t k = 0; k < b->n_input; k++) {
        void *x;
        in[k] = (char *)"";
        if (!b->input[k] || !*b->input[k])
            continue;
        if (!lf_strmap_get(&S->made, b->input[k], &x) || !lf_strmap_get(&S->actual, b->input[k], &x))
            return lf_set_error(LF_EPARSE, "%s: function '%s': node '%s' reads '%s', which is neither an input of "
                                "the function nor made by an earlier node of it", I->origin, fp->name, auto_name,
                                b->input[k]);
        in[k] = x;
    }
    for (size_t k = 0; k < b->n_output; k++) {
        void *x;
        const char *t = b->output[k];
        out[k] = (char *)"";
        if (!t || !*t)
            continue;
        if (lf_strmap_get(&S->made, t, &x))
            return lf_set_error(LF_EPARSE, "%s: function '%s': node '%s' writes '%s', an input of the function or "
                                "a value an earlier node made", I->origin, fp->name, auto_name, t);
        const char *nm = lf_strmap_get(&S->actual, t, &x) ? x : "";
        if (!*nm && !(nm = lf__fresh(I, &I->values, call_name, t))) /* its own name unless taken */
            return lf__oom(I);
        out[k] = (char *)nm;
        if (lf_strmap_put(&S->actual, t, (void *)nm) != LF_OK || lf_strmap_put(&S->made, t, (void *)1) != LF_OK)
            return lf__oom(I);
    }
    copy->input = in;
    copy->output = out;
    lf_status st = lf__attrs(I, fp, call, b, copy, auto_name);
    if (st != LF_OK)
        return st;
    int32_t g = lf__callee(I, b);
    if (g >= 0) { /* a nested call: its renamed values and nodes say the path */
        char path[600];
        snprintf(path, sizeof path, "%s/%s", call_name, auto_name);
        return lf__expand(I, copy, g, path);
    }
    const char *nm = lf__fresh(I, &I->names, call_name, auto_name);
    if (!nm)
        return lf__oom(I);
    copy->name = (char *)nm;
    return lf__emit(I, copy);
}

static lf_status lf__expand(lf__inl *I, const Onnx__NodeProto *call, int32_t f, const char *call_name)
{
    const Onnx__FunctionProto *fp = I->m->functions[f];
    for (int32_t d = 0; d < I->depth; d++) {
        if (I->stack[d] != f)
            continue;
        char chain[400] = "";
        size_t len = 0;
        for (int32_t e = d; e < I->depth && len < sizeof chain; e++)
            len += (size_t)snprintf(chain + len, sizeof chain - len, "%s -> ", I->m->functions[I->stack[e]]->name);
        return lf_set_error(LF_EPARSE, "%s: function '%s' calls itself (%s%s)", I->origin, fp->name, chain, fp->name);
    }
    if (I->depth == LF__OX_MAX_FUNCTION_DEPTH)
        return lf_set_error(LF_ERANGE, "%s: calls of functions nest deeper than %d (at '%s')", I->origin,
                            LF__OX_MAX_FUNCTION_DEPTH, fp->name);
    if (call->n_input > fp->n_input || call->n_output > fp->n_output)
        return lf_set_error(LF_EPARSE, "%s: node '%s' calls function '%s' with %zu inputs and %zu outputs (it has %zu "
                            "and %zu)", I->origin, call_name, fp->name, call->n_input, call->n_output, fp->n_input,
                            fp->n_output);
    for (size_t k = 0; k < call->n_attribute; k++)
        if (!lf__is_formal((const char *const *)fp->attribute, fp->n_attribute, call->attribute[k]->name))
            return lf_set_error(LF_EPARSE, "%s: node '%s' gives function '%s' attribute '%s', which it does not "
                                "declare", I->origin, call_name, fp->name,
                                call->attribute[k]->name ? call->attribute[k]->name : "");
    lf__scope S = {.fp = fp};
    size_t cap = 2 * (fp->n_input + fp->n_output + fp->n_node) + 16;
    if (lf_strmap_init(&S.actual, cap) != LF_OK)
        return lf__oom(I);
    if (lf_strmap_init(&S.made, cap) != LF_OK) {
        lf_strmap_destroy(&S.actual);
        return lf__oom(I);
    }
    lf_status st = LF_OK;
    for (size_t k = 0; k < fp->n_input && st == LF_OK; k++) {
        void *x;
        if (!fp->input[k] || !*fp->input[k] || lf_strmap_get(&S.actual, fp->input[k], &x)) {
            st = lf_set_error(LF_EPARSE, "%s: function '%s': input #%zu has no name or repeats another", I->origin,
                              fp->name, k);
            break;
        }
        const char *actual = k < call->n_input && call->input[k] ? call->input[k] : "";
        if (lf_strmap_put(&S.actual, fp->input[k], (void *)actual) != LF_OK ||
            lf_strmap_put(&S.made, fp->input[k], (void *)1) != LF_OK)
            st = lf__oom(I);
    }
    for (size_t k = 0; k < fp->n_output && st == LF_OK; k++) {
        void *x;
        if (!fp->output[k] || !*fp->output[k] || lf_strmap_get(&S.actual, fp->output[k], &x)) {
            st = lf_set_error(LF_EPARSE, "%s: function '%s': output #%zu has no name or repeats an input or output",
                              I->origin, fp->name, k);
            break;
        }
        const char *actual = k < call->n_output && call->output[k] ? call->output[k] : "";
        if (lf_strmap_put(&S.actual, fp->output[k], (void *)actual) != LF_OK)
            st = lf__oom(I);
    }
    I->stack[I->depth++] = f;
    for (size_t k = 0; k < fp->n_node && st == LF_OK; k++)
        st = lf__body_node(I, call, call_name, &S, fp->node[k], k);
    I->depth--;
    for (size_t k = 0; k < fp->n_output && st == LF_OK; k++) {
        void *x;
        if (!lf_strmap_get(&S.made, fp->output[k], &x))
            st = lf_set_error(LF_EPARSE, "%s: function '%s': output '%s' is made by no node of it", I->origin,
                              fp->name, fp->output[k]);
    }
    lf_strmap_destroy(&S.actual);
    lf_strmap_destroy(&S.made);
    return st;
}

/* fusionplan.pos of a node, or -1 when absent or not a number. */
static int64_t lf__pos(const Onnx__NodeProto *n)
{
    char *s = lf__ox_node_meta_get(n, "fusionplan.pos", NULL);
    char *end = NULL;
    long long v = s ? strtoll(s, &end, 10) : -1;
    int ok = s && *s && end && !*end && v >= 0;
    free(s);
    return ok ? (int64_t)v : -1;
}

typedef struct lf__keyed {
    int64_t pos;
    Onnx__NodeProto *n;
} lf__keyed;

static int lf__by_pos(const void *a, const void *b)
{
    int64_t x = ((const lf__keyed *)a)->pos, y = ((const lf__keyed *)b)->pos;
    return (x > y) - (x < y);
}

/* The grouped export's flat order back, when every node records it once. */
static lf_status lf__restore_order(lf__inl *I)
{
    if (I->n == 0)
        return LF_OK;
    lf__keyed *k = malloc(I->n * sizeof *k);
    if (!k)
        return lf__oom(I);
    int all = 1;
    for (size_t i = 0; i < I->n && all; i++) {
        k[i].pos = lf__pos(I->out[i]);
        k[i].n = I->out[i];
        all = k[i].pos >= 0;
    }
    if (all) {
        qsort(k, I->n, sizeof *k, lf__by_pos);
        for (size_t i = 1; i < I->n && all; i++)
            all = k[i].pos != k[i - 1].pos;
        for (size_t i = 0; i < I->n && all; i++)
            I->out[i] = k[i].n;
    }
    free(k);
    return LF_OK;
}

static lf_status lf__collect_names(lf__inl *I)
{
    const Onnx__GraphProto *gp = I->m->graph;
    lf_status st = LF_OK;
    for (size_t k = 0; k < gp->n_input && st == LF_OK; k++)
        if (gp->input[k]->name)
            st = lf_strmap_put(&I->values, gp->input[k]->name, (void *)1);
    for (size_t k = 0; k < gp->n_output && st == LF_OK; k++)
        if (gp->output[k]->name)
            st = lf_strmap_put(&I->values, gp->output[k]->name, (void *)1);
    for (size_t k = 0; k < gp->n_initializer && st == LF_OK; k++)
        if (gp->initializer[k]->name)
            st = lf_strmap_put(&I->values, gp->initializer[k]->name, (void *)1);
    for (size_t k = 0; k < gp->n_node && st == LF_OK; k++) {
        const Onnx__NodeProto *n = gp->node[k];
        for (size_t i = 0; i < n->n_input && st == LF_OK; i++)
            if (n->input[i] && *n->input[i])
                st = lf_strmap_put(&I->values, n->input[i], (void *)1);
        for (size_t o = 0; o < n->n_output && st == LF_OK; o++)
            if (n->output[o] && *n->output[o])
                st = lf_strmap_put(&I->values, n->output[o], (void *)1);
        if (st == LF_OK && n->name && *n->name && lf__callee(I, n) < 0)
            st = lf_strmap_put(&I->names, n->name, (void *)1);
    }
    return st == LF_OK ? LF_OK : lf__oom(I);
}

lf_status lf__ox_functions_inline(const Onnx__ModelProto *m, const char *origin, int64_t max_nodes, lf_arena *arena,
                                  Onnx__NodeProto ***nodes, size_t *n_nodes)
{
    const Onnx__GraphProto *gp = m->graph;
    *nodes = gp ? gp->node : NULL;
    *n_nodes = gp ? gp->n_node : 0;
    if (!gp || m->n_functions == 0)
        return LF_OK;
    int64_t opset = -1;
    for (size_t k = 0; k < m->n_opset_import; k++)
        if (lf__default_domain(m->opset_import[k]->domain))
            opset = m->opset_import[k]->version;
    for (size_t f = 0; f < m->n_functions; f++) {
        const Onnx__FunctionProto *fp = m->functions[f];
        if (!fp->name || !*fp->name)
            return lf_set_error(LF_EPARSE, "%s: function #%zu has no name", origin, f);
        for (size_t e = 0; e < f; e++)
            if (lf__same(m->functions[e]->name, fp->name) && lf__same(m->functions[e]->domain, fp->domain))
                return lf_set_error(LF_EPARSE, "%s: function '%s' (domain '%s') is defined twice", origin, fp->name,
                                    fp->domain ? fp->domain : "");
        for (size_t k = 0; k < fp->n_opset_import; k++)
            if (lf__default_domain(fp->opset_import[k]->domain) && fp->opset_import[k]->version != opset)
                return lf_set_error(LF_EUNSUPPORTED, "%s: function '%s' imports opset %lld of ai.onnx but the model "
                                    "imports %lld (inlining would change what its ops mean)", origin, fp->name,
                                    (long long)fp->opset_import[k]->version, (long long)opset);
    }
    lf__inl I;
    memset(&I, 0, sizeof I);
    I.m = m;
    I.origin = origin;
    I.a = arena;
    I.max_nodes = max_nodes;
    if (lf_strmap_init(&I.values, 2 * gp->n_node + 64) != LF_OK)
        return lf_set_error(LF_ENOMEM, "%s: out of memory inlining functions", origin);
    if (lf_strmap_init(&I.names, 2 * gp->n_node + 64) != LF_OK) {
        lf_strmap_destroy(&I.values);
        return lf_set_error(LF_ENOMEM, "%s: out of memory inlining functions", origin);
    }
    if (lf_strmap_init(&I.next, 64) != LF_OK) {
        lf_strmap_destroy(&I.values);
        lf_strmap_destroy(&I.names);
        return lf_set_error(LF_ENOMEM, "%s: out of memory inlining functions", origin);
    }
    lf_status st = lf__collect_names(&I);
    for (size_t k = 0; k < gp->n_node && st == LF_OK; k++) {
        Onnx__NodeProto *n = gp->node[k];
        int32_t f = lf__callee(&I, n);
        if (f < 0) {
            st = lf__emit(&I, n);
            continue;
        }
        char cname[300];
        if (n->name && *n->name)
            snprintf(cname, sizeof cname, "%s", n->name);
        else
            snprintf(cname, sizeof cname, "%s_%zu", n->op_type, k);
        st = lf__expand(&I, n, f, cname);
    }
    if (st == LF_OK)
        st = lf__restore_order(&I);
    Onnx__NodeProto **out = st == LF_OK ? lf_arena_alloc(arena, (I.n ? I.n : 1) * sizeof *out) : NULL;
    if (st == LF_OK && !out)
        st = lf__oom(&I);
    if (st == LF_OK) {
        if (I.n > 0) /* a graph of no nodes has no list to copy */
            memcpy(out, I.out, I.n * sizeof *out);
        *nodes = out;
        *n_nodes = I.n;
    }
    free(I.out);
    lf_strmap_destroy(&I.values);
    lf_strmap_destroy(&I.names);
    lf_strmap_destroy(&I.next);
    return st;
}
