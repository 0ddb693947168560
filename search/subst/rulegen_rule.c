/* Generated rules as pairs of graphs: their renaming-invariant key, and their
 * conversion to and from TASO's rule format (the project's rule files). */
#include <stdlib.h>
#include <string.h>

#include "search/subst/rulegen_internal.h"
#include "taso_rules.pb-c.h"

/* Structural hash of every op of g under variable renaming perm. */
static void rg_hashes(const lf__rg_graph *g, const int32_t *perm, uint64_t *h)
{
    for (int32_t i = 0; i < g->n; i++) {
        const lf__rg_op *o = &g->op[i];
        int32_t n_in = o->type == LF_RG_RELU ? 1 : 2;
        uint64_t in[2];
        for (int32_t p = 0; p < n_in; p++)
            in[p] = o->in[p] >= 0 ? h[o->in[p]] : lf__rg_var_hash(perm[-1 - o->in[p]]);
        int32_t param = o->param + (o->type == LF_RG_CONCAT && !g->world ? 10 : 0);
        h[i] = lf__rg_op_hash(o->type, param, in, n_in);
    }
}

static int rg_next_perm(int32_t *a, int32_t lo, int32_t hi) /* next permutation of a[lo..hi) */
{
    int32_t i = hi - 2;
    while (i >= lo && a[i] >= a[i + 1])
        i--;
    if (i < lo)
        return 0;
    int32_t j = hi - 1;
    while (a[j] <= a[i])
        j--;
    int32_t t = a[i];
    a[i] = a[j], a[j] = t;
    for (int32_t l = i + 1, r = hi - 1; l < r; l++, r--)
        t = a[l], a[l] = a[r], a[r] = t;
    return 1;
}

uint64_t lf__rg_rule_key(const lf__rg_rule *r)
{
    int32_t perm[LF_RG_NV];
    for (int32_t v = 0; v < LF_RG_NV; v++)
        perm[v] = v;
    uint64_t best = ~(uint64_t)0, hs[LF_RG_MAXK], ht[LF_RG_MAXK];
    /* activations (0..3) and weights (4..6) are renamed among themselves */
    do {
        int32_t wperm[LF_RG_NV];
        memcpy(wperm, perm, sizeof wperm);
        do {
            rg_hashes(&r->src, wperm, hs);
            rg_hashes(&r->dst, wperm, ht);
            uint64_t k = hs[r->src.n - 1] * 0x100000001b3ull ^ (ht[r->dst.n - 1] + 0x9e3779b97f4a7c15ull);
            if (k < best)
                best = k;
        } while (r->src.world && rg_next_perm(wperm, 4, 7));
    } while (rg_next_perm(perm, 0, 4));
    return best;
}

/* Keys of every rule that merging some of r's variables gives (all
 * partitions of its activations and of its weights but the finest): rules a
 * matcher of r also matches, since distinct variables may bind one tensor.
 * Appends to keys (grown as needed); returns 1 when out of memory. */
int lf__rg_merged_keys(const lf__rg_rule *r, uint64_t **keys, int64_t *n, int64_t *cap)
{
    int32_t used[LF_RG_NV] = {0}, vars[LF_RG_NV], nv = 0;
    for (int32_t s = 0; s < 2; s++) {
        const lf__rg_graph *g = s ? &r->dst : &r->src;
        for (int32_t i = 0; i < g->n; i++)
            for (int32_t p = 0; p < (g->op[i].type == LF_RG_RELU ? 1 : 2); p++)
                if (g->op[i].in[p] < 0)
                    used[-1 - g->op[i].in[p]] = 1;
    }
    for (int32_t v = 0; v < LF_RG_NV; v++)
        if (used[v])
            vars[nv++] = v;
    /* restricted growth strings over vars (block[j] <= 1 + max of earlier),
     * from all-in-one up to the finest, which is r itself and skipped */
    int32_t block[LF_RG_NV] = {0};
    for (int first_round = 1;; first_round = 0) {
        if (!first_round) {
            int32_t k = nv - 1;
            for (; k >= 1; k--) {
                int32_t m = 0;
                for (int32_t j = 0; j < k; j++)
                    m = block[j] > m ? block[j] : m;
                if (block[k] <= m) {
                    block[k]++;
                    for (int32_t j = k + 1; j < nv; j++)
                        block[j] = 0;
                    break;
                }
            }
            if (k < 1)
                return 0;
        }
        int finest = 1;
        for (int32_t j = 0; j < nv; j++)
            finest &= block[j] == j;
        if (finest)
            continue;
        /* a merge only joins variables of one kind; map each to its block's first */
        int32_t to[LF_RG_NV], first[LF_RG_NV], ok = 1;
        for (int32_t j = 0; j < LF_RG_NV; j++)
            to[j] = j, first[j] = -1;
        for (int32_t j = 0; j < nv && ok; j++) {
            int32_t b = block[j];
            if (first[b] < 0)
                first[b] = vars[j];
            else if (lf__rg_var_kind(r->src.world, first[b]) != lf__rg_var_kind(r->src.world, vars[j]))
                ok = 0;
            to[vars[j]] = first[b];
        }
        if (!ok)
            continue;
        lf__rg_rule m = *r;
        for (int32_t s = 0; s < 2; s++) {
            lf__rg_graph *g = s ? &m.dst : &m.src;
            for (int32_t i = 0; i < g->n; i++)
                for (int32_t p = 0; p < 2; p++)
                    if (g->op[i].in[p] < 0)
                        g->op[i].in[p] = (int8_t)(-1 - to[-1 - g->op[i].in[p]]);
        }
        if (*n == *cap) {
            int64_t c = *cap ? 2 * *cap : 4096;
            uint64_t *nk = realloc(*keys, (size_t)c * sizeof *nk);
            if (!nk)
                return 1;
            *keys = nk, *cap = c;
        }
        (*keys)[(*n)++] = lf__rg_rule_key(&m);
    }
}

/* ---- TASO's format ------------------------------------------------------------- */

enum { PM_NUM_INPUTS = 1, PM_KERNEL_H = 4, PM_KERNEL_W = 5, PM_STRIDE_H = 6, PM_STRIDE_W = 7, PM_PAD = 8,
       PM_ACTI = 9, PM_NUMDIM = 10, PM_AXIS = 11 };

/* One side of a rule as protobuf-c messages, in arena storage. */
typedef struct rg_side_msg {
    TasoRules__Operator op[LF_RG_MAXK], *opp[LF_RG_MAXK];
    TasoRules__Tensor t[LF_RG_MAXK][2], *tp[LF_RG_MAXK][2];
    TasoRules__Parameter p[LF_RG_MAXK][6], *pp[LF_RG_MAXK][6];
} rg_side_msg;

typedef struct rg_rule_msg {
    TasoRules__Rule rule;
    rg_side_msg side[2];
    TasoRules__MapOutput map, *mapp;
} rg_rule_msg;

static void rg_side(const lf__rg_graph *g, rg_side_msg *m)
{
    for (int32_t i = 0; i < g->n; i++) {
        const lf__rg_op *o = &g->op[i];
        TasoRules__Operator *x = &m->op[i];
        taso_rules__operator__init(x);
        m->opp[i] = x;
        x->type = o->type;
        int32_t n_in = o->type == LF_RG_RELU ? 1 : 2, np = 0;
        for (int32_t p = 0; p < n_in; p++) {
            taso_rules__tensor__init(&m->t[i][p]);
            m->t[i][p].opid = o->in[p]; /* variables: -1 - v, as in TASO's files */
            m->t[i][p].tsid = 0;
            m->tp[i][p] = &m->t[i][p];
        }
        x->n_input = (size_t)n_in;
        x->input = m->tp[i];
        int32_t keys[6], vals[6];
        if (o->type == LF_RG_CONV) {
            keys[np] = PM_KERNEL_H, vals[np++] = 3;
            keys[np] = PM_KERNEL_W, vals[np++] = 3;
            keys[np] = PM_STRIDE_H, vals[np++] = 1;
            keys[np] = PM_STRIDE_W, vals[np++] = 1;
            keys[np] = PM_PAD, vals[np++] = 0; /* SAME */
            keys[np] = PM_ACTI, vals[np++] = o->param ? 2 : 0;
        } else if (o->type == LF_RG_CONCAT) {
            keys[np] = PM_NUM_INPUTS, vals[np++] = 2;
            keys[np] = PM_AXIS, vals[np++] = o->param;
            keys[np] = PM_NUMDIM, vals[np++] = g->world ? 4 : 2;
        } else if (o->type == LF_RG_MATMUL) {
            keys[np] = PM_ACTI, vals[np++] = 0;
        }
        for (int32_t p = 0; p < np; p++) {
            taso_rules__parameter__init(&m->p[i][p]);
            m->p[i][p].key = keys[p], m->p[i][p].value = vals[p];
            m->pp[i][p] = &m->p[i][p];
        }
        x->n_para = (size_t)np;
        x->para = m->pp[i];
    }
}

lf_status lf__rg_pack(const lf__rg_rule *rules, int64_t n, uint8_t **buf, size_t *len)
{
    *buf = NULL, *len = 0;
    rg_rule_msg *m = calloc((size_t)(n ? n : 1), sizeof *m);
    TasoRules__Rule **rp = calloc((size_t)(n ? n : 1), sizeof *rp);
    if (!m || !rp) {
        free(m), free(rp);
        return lf_set_error(LF_ENOMEM, "rule generator: out of memory");
    }
    for (int64_t i = 0; i < n; i++) {
        rg_rule_msg *x = &m[i];
        taso_rules__rule__init(&x->rule);
        rg_side(&rules[i].src, &x->side[0]);
        rg_side(&rules[i].dst, &x->side[1]);
        x->rule.n_srcop = (size_t)rules[i].src.n, x->rule.srcop = x->side[0].opp;
        x->rule.n_dstop = (size_t)rules[i].dst.n, x->rule.dstop = x->side[1].opp;
        taso_rules__map_output__init(&x->map);
        x->map.srcopid = rules[i].src.n - 1, x->map.dstopid = rules[i].dst.n - 1;
        x->map.srctsid = x->map.dsttsid = 0;
        x->mapp = &x->map;
        x->rule.n_mappedoutput = 1, x->rule.mappedoutput = &x->mapp;
        rp[i] = &x->rule;
    }
    TasoRules__RuleCollection rc;
    taso_rules__rule_collection__init(&rc);
    rc.n_rule = (size_t)n, rc.rule = rp;
    size_t sz = taso_rules__rule_collection__get_packed_size(&rc);
    uint8_t *out = malloc(sz ? sz : 1);
    if (out)
        taso_rules__rule_collection__pack(&rc, out);
    free(m), free(rp);
    if (!out)
        return lf_set_error(LF_ENOMEM, "rule generator: out of memory");
    *buf = out, *len = sz;
    return LF_OK;
}

/* One side of a TASO rule as a graph; NULL why when it fits, else the reason
 * it cannot be a generated rule. vars numbers TASO's variables (shared by both
 * sides); kinds[v] is the kind a variable plays. */
static const char *rg_from_side(TasoRules__Operator **ops, size_t n, lf__rg_graph *g, int32_t *ids, int32_t *n_ids,
                                int32_t *kinds)
{
    if (n < 1 || n > LF_RG_MAXK)
        return "more ops than the generator's graphs";
    g->n = (int8_t)n;
    for (size_t i = 0; i < n; i++) {
        const TasoRules__Operator *x = ops[i];
        lf__rg_op *o = &g->op[i];
        memset(o, 0, sizeof *o);
        o->type = (int8_t)x->type;
        int32_t pad = 0, sh = 1, sw = 1, acti = 0, axis = 0, nd = 0;
        for (size_t p = 0; p < x->n_para; p++) {
            int32_t k = x->para[p]->key, v = x->para[p]->value;
            if (k == PM_PAD) pad = v;
            else if (k == PM_STRIDE_H) sh = v;
            else if (k == PM_STRIDE_W) sw = v;
            else if (k == PM_ACTI) acti = v;
            else if (k == PM_AXIS) axis = v;
            else if (k == PM_NUMDIM) nd = v;
        }
        switch (x->type) {
        case LF_RG_CONV:
            if (pad || sh != 1 || sw != 1)
                return "a conv with VALID padding or a stride";
            o->param = acti == 2;
            g->world = 1;
            break;
        case LF_RG_CONCAT:
            o->param = (int8_t)axis;
            if (nd == 4)
                g->world = 1;
            break;
        case LF_RG_MATMUL:
            if (acti)
                return "a MatMul with a fused activation";
            break;
        case LF_RG_RELU: case LF_RG_ADD: case LF_RG_MUL:
            break;
        default:
            return "an op type the generator does not use";
        }
        if (x->n_input != (x->type == LF_RG_RELU ? 1u : 2u))
            return "an operand count the generator does not use";
        for (size_t p = 0; p < x->n_input; p++) {
            const TasoRules__Tensor *t = x->input[p];
            if (t->tsid)
                return "a second output (SPLIT)";
            if (t->opid >= 0) {
                o->in[p] = (int8_t)t->opid;
                continue;
            }
            int32_t v = 0;
            while (v < *n_ids && ids[v] != t->opid)
                v++;
            if (v == *n_ids) {
                if (v == LF_RG_NV)
                    return "more variables than the generator's";
                ids[(*n_ids)++] = t->opid;
            }
            int32_t kind = x->type == LF_RG_CONV && p == 1 ? LF_RG_WEIGHT : LF_RG_ACT;
            if (kinds[v] < kind)
                kinds[v] = kind;
            o->in[p] = (int8_t)(-1 - v);
        }
    }
    return NULL;
}

const char *lf__rg_from_taso(const void *taso_rule, lf__rg_rule *r)
{
    const TasoRules__Rule *pr = taso_rule;
    memset(r, 0, sizeof *r);
    int32_t ids[LF_RG_NV], n_ids = 0, kinds[LF_RG_NV] = {0};
    const char *why = rg_from_side(pr->srcop, pr->n_srcop, &r->src, ids, &n_ids, kinds);
    if (!why)
        why = rg_from_side(pr->dstop, pr->n_dstop, &r->dst, ids, &n_ids, kinds);
    if (why)
        return why;
    if (pr->n_mappedoutput != 1)
        return "two mapped outputs (the generator's graphs have one sink)";
    if (pr->mappedoutput[0]->srcopid != r->src.n - 1 || pr->mappedoutput[0]->dstopid != r->dst.n - 1)
        return "an op outside the mapped output's ancestors";
    int32_t world = r->src.world | r->dst.world;
    for (int32_t i = 0; i < r->src.n; i++) /* 2-D unless a conv or a 4-D concat says otherwise */
        world |= r->src.op[i].type == LF_RG_CONV;
    r->src.world = r->dst.world = (int8_t)world;
    /* renumber variables: activations first (0..3), then weights (4..6) */
    int32_t map[LF_RG_NV], na = 0, nw = 0;
    for (int32_t v = 0; v < n_ids; v++) {
        if (kinds[v] == LF_RG_WEIGHT && !world)
            return "a weight outside a conv";
        map[v] = kinds[v] == LF_RG_WEIGHT ? 4 + nw++ : na++;
    }
    if (na > 4 || nw > 3)
        return "more variables than the generator's";
    for (int32_t s = 0; s < 2; s++) {
        lf__rg_graph *g = s ? &r->dst : &r->src;
        for (int32_t i = 0; i < g->n; i++)
            for (int32_t p = 0; p < 2; p++)
                if (g->op[i].in[p] < 0)
                    g->op[i].in[p] = (int8_t)(-1 - map[-1 - g->op[i].in[p]]);
    }
    return NULL;
}

const char *lf__rg_unpack_each(const uint8_t *data, size_t len, void **collection, int64_t *n)
{
    TasoRules__RuleCollection *rc = taso_rules__rule_collection__unpack(NULL, len, data);
    *collection = rc;
    *n = rc ? (int64_t)rc->n_rule : 0;
    return rc ? NULL : "not a rule collection (protobuf parse failed)";
}

const void *lf__rg_collection_rule(void *collection, int64_t i)
{
    return ((TasoRules__RuleCollection *)collection)->rule[i];
}

void lf__rg_collection_free(void *collection)
{
    if (collection)
        taso_rules__rule_collection__free_unpacked(collection, NULL);
}
