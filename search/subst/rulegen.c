/* TASO's rule generator (DESIGN §11; see lf_subst_rulegen in subst.h):
 * enumerate (rulegen_enum.c), pair equal fingerprints, prune, verify. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/exec/exec.h"
#include "planner/optable.h"
#include "search/subst/rulegen_internal.h"
#include "search/subst/subst_internal.h"

/* Members of one fingerprint class beyond this are not paired (the classes of
 * K <= 4 stay far below it). */
#define RG_CLASS_CAP 256

static lf_status rg_parse_types(const char *list, uint32_t *types)
{
    *types = 0;
    if (!list || !*list) {
        *types = (1u << LF_RG_NTYPES) - 1;
        return LF_OK;
    }
    const char *p = list;
    while (*p) {
        size_t n = strcspn(p, ",");
        int32_t t = 0;
        while (t < LF_RG_NTYPES && !(strlen(lf__rg_type_names[t]) == n && strncmp(p, lf__rg_type_names[t], n) == 0))
            t++;
        if (t == LF_RG_NTYPES)
            return lf_set_error(LF_EINVAL, "unknown op type '%.*s' (conv, relu, concat, add, mul, matmul)", (int)n, p);
        *types |= 1u << t;
        p += n + (p[n] == ',');
    }
    return LF_OK;
}

static int rg_cmp_rec(const void *pa, const void *pb)
{
    const lf__rg_rec *a = pa, *b = pb;
    if (a->g.world != b->g.world)
        return a->g.world < b->g.world ? -1 : 1;
    if (a->fp != b->fp)
        return a->fp < b->fp ? -1 : 1;
    if (a->g.n != b->g.n)
        return a->g.n < b->g.n ? -1 : 1;
    return a->key < b->key ? -1 : a->key > b->key;
}

/* Per op of g: structural hash, kind, fingerprint of its value. */
typedef struct rg_info {
    uint64_t h[LF_RG_MAXK], fp[LF_RG_MAXK];
    int32_t kind[LF_RG_MAXK];
    uint32_t vars;   /* bit v: variable v is read */
    int ok;
} rg_info;

static void rg_describe(const lf__rg_graph *g, float *const *var_val, rg_info *in)
{
    memset(in, 0, sizeof *in);
    float *val[LF_RG_MAXK] = {0};
    lf_shape sh[LF_RG_MAXK];
    in->ok = 1;
    for (int32_t i = 0; i < g->n && in->ok; i++) {
        const lf__rg_op *o = &g->op[i];
        int32_t n_in = o->type == LF_RG_RELU ? 1 : 2;
        uint64_t ih[2];
        lf_tensor it[2];
        lf_shape is[2];
        int32_t kind = LF_RG_ACT;
        for (int32_t p = 0; p < n_in; p++) {
            int32_t r = o->in[p];
            if (r < 0) {
                int32_t v = -1 - r;
                in->vars |= 1u << v;
                ih[p] = lf__rg_var_hash(v);
                is[p] = lf__rg_var_shape(g->world, v);
                it[p].data = var_val[v];
                if (p == 0)
                    kind = lf__rg_var_kind(g->world, v);
            } else {
                ih[p] = in->h[r], is[p] = sh[r], it[p].data = val[r];
                if (p == 0)
                    kind = in->kind[r];
            }
            it[p].shape = is[p];
        }
        in->kind[i] = o->type == LF_RG_CONV ? LF_RG_ACT : kind;
        in->h[i] = lf__rg_op_hash(o->type, o->param, ih, n_in);
        lf_attrs a;
        char err[8];
        if (!lf__rg_attrs(g->world, o, is, &a) ||
            lf_op_infer(lf__rg_ir_type(o->type), &a, is, n_in, &sh[i], err, sizeof err) ||
            !(val[i] = malloc((size_t)lf_shape_count(sh[i]) * sizeof(float)))) {
            in->ok = 0;
            break;
        }
        lf_tensor out = {sh[i], val[i]};
        if (lf_exec_eval_op(lf__rg_ir_type(o->type), &a, it, n_in, &out, 1))
            in->ok = 0;
        else
            in->fp[i] = lf__rg_fingerprint(sh[i], val[i], lf_shape_count(sh[i]));
    }
    for (int32_t i = 0; i < g->n; i++)
        free(val[i]);
}

/* Operand p of op i of g: hash, and fingerprint (0 for a variable). */
static void rg_operand(const lf__rg_graph *g, const rg_info *in, int32_t i, int32_t p, uint64_t *h, uint64_t *fp)
{
    int32_t r = g->op[i].in[p];
    *h = r < 0 ? lf__rg_var_hash(-1 - r) : in->h[r];
    *fp = r < 0 ? 0 : in->fp[r];
}

/* 1 when s -> t follows from a smaller rule by a common subgraph: an op both
 * compute from the same inputs below their outputs (TASO: replace it by a new
 * input), or the same op on top of operands that are equal or are themselves
 * an equal pair (the rule is that pair's rule under a common consumer). */
static int rg_common(const lf__rg_graph *s, const rg_info *is, const lf__rg_graph *t, const rg_info *it)
{
    for (int32_t i = 0; i + 1 < s->n; i++)
        for (int32_t j = 0; j + 1 < t->n; j++)
            if (is->h[i] == it->h[j])
                return 1;
    const lf__rg_op *a = &s->op[s->n - 1], *b = &t->op[t->n - 1];
    if (a->type != b->type || a->param != b->param)
        return 0;
    int32_t n_in = a->type == LF_RG_RELU ? 1 : 2;
    uint64_t ha[2], fa[2], hb[2], fb[2];
    for (int32_t p = 0; p < n_in; p++) {
        rg_operand(s, is, s->n - 1, p, &ha[p], &fa[p]);
        rg_operand(t, it, t->n - 1, p, &hb[p], &fb[p]);
    }
    int32_t orders = a->type == LF_RG_ADD || a->type == LF_RG_MUL ? 2 : 1;
    for (int32_t sw = 0; sw < orders; sw++) {
        int same = 1;
        for (int32_t p = 0; p < n_in && same; p++) {
            int32_t q = sw ? 1 - p : p;
            /* equal operands, or two ops with equal values */
            same = ha[p] == hb[q] || (fa[p] && fb[q] && fa[p] == fb[q]);
        }
        if (same)
            return 1;
    }
    return 0;
}

static int rg_cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

typedef struct rg_cand {
    lf__rg_rule r;
    uint64_t key;
    int64_t index;
} rg_cand;

static int rg_cmp_key(const void *pa, const void *pb)
{
    const rg_cand *a = pa, *b = pb;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return a->index < b->index ? -1 : a->index > b->index;
}

/* Final order: smaller rules first, then by key (independent of the seed). */
static int rg_cmp_final(const void *pa, const void *pb)
{
    const rg_cand *a = pa, *b = pb;
    int32_t na = a->r.src.n + a->r.dst.n, nb = b->r.src.n + b->r.dst.n;
    if (na != nb)
        return na < nb ? -1 : 1;
    if (a->r.src.n != b->r.src.n)
        return a->r.src.n < b->r.src.n ? -1 : 1;
    return a->key < b->key ? -1 : a->key > b->key;
}

typedef struct rg_cands {
    int64_t n, cap;
    rg_cand *c;
} rg_cands;

static int rg_cands_push(rg_cands *cs, const lf__rg_graph *s, const lf__rg_graph *t)
{
    if (cs->n == cs->cap) {
        int64_t cap = cs->cap ? 2 * cs->cap : 1024;
        rg_cand *nc = realloc(cs->c, (size_t)cap * sizeof *nc);
        if (!nc)
            return 1;
        cs->c = nc, cs->cap = cap;
    }
    rg_cand *c = &cs->c[cs->n];
    memset(c, 0, sizeof *c);
    c->r.src = *s, c->r.dst = *t;
    c->index = cs->n++;
    return 0;
}

/* Pairs the graphs of each fingerprint class into candidate rules. */
static lf_status rg_pair(const lf__rg_recs *rs, float *const (*var_val)[LF_RG_NV], rg_cands *cs,
                         lf_subst_rulegen_stats *st)
{
    rg_info *info = malloc(RG_CLASS_CAP * sizeof *info);
    if (!info)
        return lf_set_error(LF_ENOMEM, "rule generator: out of memory");
    for (int64_t lo = 0, hi; lo < rs->n; lo = hi) {
        hi = lo + 1;
        while (hi < rs->n && rs->r[hi].fp == rs->r[lo].fp && rs->r[hi].g.world == rs->r[lo].g.world)
            hi++;
        int64_t m = hi - lo;
        if (m < 2)
            continue;
        st->classes++;
        if (m > RG_CLASS_CAP)
            m = RG_CLASS_CAP;
        for (int64_t i = 0; i < m; i++)
            rg_describe(&rs->r[lo + i].g, var_val[rs->r[lo].g.world], &info[i]);
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < m; j++) {
                if (i == j)
                    continue;
                st->pairs++;
                const lf__rg_graph *s = &rs->r[lo + i].g, *t = &rs->r[lo + j].g;
                const rg_info *si = &info[i], *ti = &info[j];
                if (!si->ok || !ti->ok || (ti->vars & ~si->vars))
                    continue; /* the target reads a variable the source does not bind */
                int weight_op = 0;
                for (int32_t k = 0; k < s->n; k++)
                    weight_op |= si->kind[k] == LF_RG_WEIGHT;
                if (weight_op)
                    continue; /* a source never computes a weight (the IR folds it) */
                if (rg_common(s, si, t, ti)) {
                    st->pruned_common++;
                    continue;
                }
                if (rg_cands_push(cs, s, t)) {
                    free(info);
                    return lf_set_error(LF_ENOMEM, "rule generator: out of memory");
                }
            }
    }
    free(info);
    return LF_OK;
}

/* Verifies every candidate with the loader's mapping and lf_subst_verify;
 * ok[i] is 1 when candidate i passes. */
static lf_status rg_verify(const rg_cand *c, int64_t n, int32_t threads, uint8_t *ok)
{
    memset(ok, 0, (size_t)n);
    lf__rg_rule *rules = malloc((size_t)(n ? n : 1) * sizeof *rules);
    if (!rules)
        return lf_set_error(LF_ENOMEM, "rule generator: out of memory");
    for (int64_t i = 0; i < n; i++)
        rules[i] = c[i].r;
    uint8_t *buf = NULL;
    size_t len = 0;
    lf_status st = lf__rg_pack(rules, n, &buf, &len);
    free(rules);
    if (st)
        return st;
    lf__taso_rules *t = NULL;
    lf_taso_stats ts;
    st = lf__taso_load_mem(buf, len, "generated rules", "gen", "generated", &t, &ts);
    free(buf);
    if (st)
        return st;
    int32_t nt = lf__taso_count(t), nth = threads > 0 ? threads : 1;
    lf_status err = LF_OK;
#ifdef _OPENMP
#pragma omp parallel for num_threads(nth) schedule(dynamic) if (nth > 1)
#endif
    for (int32_t i = 0; i < nt; i++) {
        const lf_subst_rule *r = lf__taso_rule(t, i);
        int64_t index = strtoll(r->name + 4, NULL, 10); /* "gen_NNN": its place in the collection */
        int good = 0;
        char why[256];
        lf_status s = lf_subst_verify(r, &good, why, sizeof why);
        if (s) {
#ifdef _OPENMP
#pragma omp critical /* unnamed: a named one is a global symbol of the library */
#endif
            err = s;
        } else if (index >= 0 && index < n) {
            ok[index] = (uint8_t)good;
        }
    }
    (void)nth;
    lf__taso_free(t);
    return err ? lf_set_error(err, "rule generator: verification failed to run") : LF_OK;
}

lf_status lf_subst_rulegen(const lf_subst_rulegen_opts *o, uint8_t **buf, size_t *len, lf_subst_rulegen_stats *stats)
{
    *buf = NULL, *len = 0;
    memset(stats, 0, sizeof *stats);
    lf__rg_config cfg = {o->max_ops ? o->max_ops : 3, 0, o->seed};
    if (cfg.max_ops < 1 || cfg.max_ops > LF_RG_MAXK)
        return lf_set_error(LF_EINVAL, "rule generator: --max-ops must be 1 to %d (got %d)", LF_RG_MAXK,
                            (int)cfg.max_ops);
    lf_status st = rg_parse_types(o->types, &cfg.types);
    if (st)
        return st;
    int32_t threads = o->threads > 0 ? o->threads : 1;
    /* variable values: [world][variable] */
    float *var_val[2][LF_RG_NV] = {{0}};
    lf__rg_op roots[2][1024];
    int32_t n_roots[2];
    lf__rg_recs *per = NULL;
    lf__rg_recs all = {0, 0, NULL};
    rg_cands cs = {0, 0, NULL};
    uint8_t *ok = NULL;
    int64_t total = 0;
    for (int32_t w = 0; w < 2; w++) {
        for (int32_t v = 0; v < lf__rg_world_vars(w); v++) {
            lf_shape s = lf__rg_var_shape(w, v);
            if (!(var_val[w][v] = malloc((size_t)lf_shape_count(s) * sizeof(float)))) {
                st = lf_set_error(LF_ENOMEM, "rule generator: out of memory");
                goto done;
            }
            lf__rg_fill(cfg.seed, w, v, var_val[w][v], lf_shape_count(s));
        }
        n_roots[w] = lf__rg_candidates(&cfg, w, 0, roots[w], 1024);
        total += n_roots[w];
    }
    if (!(per = calloc((size_t)(total ? total : 1), sizeof *per))) {
        st = lf_set_error(LF_ENOMEM, "rule generator: out of memory");
        goto done;
    }
    lf_status err = LF_OK;
#ifdef _OPENMP
#pragma omp parallel for num_threads(threads) schedule(dynamic) if (threads > 1)
#endif
    for (int64_t i = 0; i < total; i++) {
        int32_t w = i < n_roots[0] ? 0 : 1;
        int64_t k = w ? i - n_roots[0] : i;
        lf_status s = lf__rg_enumerate_root(&cfg, w, roots[w][k], (const float *const *)var_val[w], &per[i]);
        if (s) {
#ifdef _OPENMP
#pragma omp critical /* unnamed: a named one is a global symbol of the library */
#endif
            err = s;
        }
    }
    if (err) {
        st = lf_set_error(err, "rule generator: out of memory");
        goto done;
    }
    for (int64_t i = 0; i < total; i++)
        for (int64_t k = 0; k < per[i].n; k++)
            if (lf__rg_recs_push(&all, &per[i].r[k])) {
                st = lf_set_error(LF_ENOMEM, "rule generator: out of memory");
                goto done;
            }
    stats->graphs = all.n;
    if (all.n)
        qsort(all.r, (size_t)all.n, sizeof *all.r, rg_cmp_rec);
    if ((st = rg_pair(&all, (float *const (*)[LF_RG_NV])var_val, &cs, stats)))
        goto done;
    /* renaming: keep the first candidate of each key */
    for (int64_t i = 0; i < cs.n; i++)
        cs.c[i].key = lf__rg_rule_key(&cs.c[i].r);
    if (cs.n)
        qsort(cs.c, (size_t)cs.n, sizeof *cs.c, rg_cmp_key);
    int64_t kept = 0;
    for (int64_t i = 0; i < cs.n; i++)
        if (i == 0 || cs.c[i].key != cs.c[i - 1].key)
            cs.c[kept++] = cs.c[i];
    stats->pruned_renaming = cs.n - kept;
    cs.n = kept;
    if (cs.n)
        qsort(cs.c, (size_t)cs.n, sizeof *cs.c, rg_cmp_final);
    stats->candidates = cs.n;
    if (!(ok = malloc((size_t)(cs.n ? cs.n : 1)))) {
        st = lf_set_error(LF_ENOMEM, "rule generator: out of memory");
        goto done;
    }
    if (cs.n && (st = rg_verify(cs.c, cs.n, threads, ok)))
        goto done;
    kept = 0;
    for (int64_t i = 0; i < cs.n; i++)
        if (ok[i])
            cs.c[kept++] = cs.c[i];
    stats->failed = cs.n - kept;
    /* drop a rule that a verified rule gives by merging variables (its
     * matches are the general rule's too) */
    {
        uint64_t *mk = NULL;
        int64_t nm = 0, capm = 0, k2 = 0;
        for (int64_t i = 0; i < kept; i++)
            if (lf__rg_merged_keys(&cs.c[i].r, &mk, &nm, &capm)) {
                free(mk);
                st = lf_set_error(LF_ENOMEM, "rule generator: out of memory");
                goto done;
            }
        if (nm)
            qsort(mk, (size_t)nm, sizeof *mk, rg_cmp_u64);
        for (int64_t i = 0; i < kept; i++)
            if (!nm || !bsearch(&cs.c[i].key, mk, (size_t)nm, sizeof *mk, rg_cmp_u64))
                cs.c[k2++] = cs.c[i];
        free(mk);
        stats->pruned_merged = kept - k2;
        kept = k2;
    }
    stats->rules = kept;
    if (!kept) {
        st = lf_set_error(LF_EINVAL, "rule generator: no rules at --max-ops %d over these types", (int)cfg.max_ops);
        goto done;
    }
    {
        lf__rg_rule *rules = malloc((size_t)kept * sizeof *rules);
        if (!rules) {
            st = lf_set_error(LF_ENOMEM, "rule generator: out of memory");
            goto done;
        }
        for (int64_t i = 0; i < kept; i++)
            rules[i] = cs.c[i].r;
        st = lf__rg_pack(rules, kept, buf, len);
        free(rules);
    }
done:
    for (int32_t w = 0; w < 2; w++)
        for (int32_t v = 0; v < LF_RG_NV; v++)
            free(var_val[w][v]);
    for (int64_t i = 0; per && i < total; i++)
        free(per[i].r);
    free(per);
    free(all.r);
    free(cs.c);
    free(ok);
    return st;
}

/* ---- coverage of another rule set ------------------------------------------------- */


lf_status lf_subst_rules_cover(const uint8_t *gen, size_t gen_len, const uint8_t *ref, size_t ref_len,
                               int32_t *mappable, int32_t *found, int32_t *merged, int32_t *missing,
                               const char **why, int32_t max_missing, int32_t *n_missing)
{
    *mappable = *found = *merged = *n_missing = 0;
    void *cg = NULL, *cr = NULL;
    int64_t ng = 0, nr = 0;
    if (lf__rg_unpack_each(gen, gen_len, &cg, &ng) || lf__rg_unpack_each(ref, ref_len, &cr, &nr)) {
        lf__rg_collection_free(cg);
        lf__rg_collection_free(cr);
        return lf_set_error(LF_EPARSE, "rule coverage: not a rule collection (protobuf parse failed)");
    }
    uint64_t *keys = malloc((size_t)(ng ? ng : 1) * sizeof *keys);
    if (!keys) {
        lf__rg_collection_free(cg);
        lf__rg_collection_free(cr);
        return lf_set_error(LF_ENOMEM, "rule coverage: out of memory");
    }
    int64_t nk = 0, nm = 0, capm = 0;
    uint64_t *mk = NULL;
    int oom = 0;
    for (int64_t i = 0; i < ng; i++) {
        lf__rg_rule r;
        if (!lf__rg_from_taso(lf__rg_collection_rule(cg, i), &r)) {
            keys[nk++] = lf__rg_rule_key(&r);
            oom |= lf__rg_merged_keys(&r, &mk, &nm, &capm);
        }
    }
    if (oom) {
        free(keys), free(mk);
        lf__rg_collection_free(cg);
        lf__rg_collection_free(cr);
        return lf_set_error(LF_ENOMEM, "rule coverage: out of memory");
    }
    if (nk)
        qsort(keys, (size_t)nk, sizeof *keys, rg_cmp_u64);
    if (nm)
        qsort(mk, (size_t)nm, sizeof *mk, rg_cmp_u64);
    /* which rules of ref the IR maps: the loader's own decision */
    lf__taso_rules *t = NULL;
    lf_taso_stats ts;
    lf_status st = lf__taso_load_mem(ref, ref_len, "reference rules", "ref", "reference", &t, &ts);
    if (st) {
        free(keys), free(mk);
        lf__rg_collection_free(cg);
        lf__rg_collection_free(cr);
        return st;
    }
    for (int32_t i = 0; i < lf__taso_count(t); i++) {
        int64_t index = strtoll(lf__taso_rule(t, i)->name + 4, NULL, 10);
        (*mappable)++;
        lf__rg_rule r;
        const char *w = lf__rg_from_taso(lf__rg_collection_rule(cr, index), &r);
        if (!w) {
            uint64_t k = lf__rg_rule_key(&r);
            if (nk && bsearch(&k, keys, (size_t)nk, sizeof *keys, rg_cmp_u64)) {
                (*found)++;
                continue;
            }
            if (nm && bsearch(&k, mk, (size_t)nm, sizeof *mk, rg_cmp_u64)) {
                (*found)++;
                (*merged)++;
                continue;
            }
            w = "not generated (pruned or beyond the generator's vocabulary)";
        }
        if (*n_missing < max_missing) {
            missing[*n_missing] = (int32_t)index;
            why[*n_missing] = w;
        }
        (*n_missing)++;
    }
    lf__taso_free(t);
    free(keys), free(mk);
    lf__rg_collection_free(cg);
    lf__rg_collection_free(cr);
    return LF_OK;
}
