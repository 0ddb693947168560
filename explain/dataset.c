/* Building the fusion-group dataset: sampling, labelling, deduplication,
 * splitting and expansion into training samples (see dataset.h). */
#include "explain/dataset.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/registry.h"
#include "planner/plan.h"
#include "planner/app/registry.h"
#include "planner/util/hashmap.h"
#include "planner/util/rng.h"
#include "search/partition/genome.h"

#ifdef _OPENMP
#include <omp.h>
#endif

static const lf_ds_network lf__table[] = {
    {"vgg16", 715, 0},           {"squeezenet1_0", 795, 0},      {"mobilenet_v2", 1100, 0},
    {"mobilenet_v3_small", 203, 1}, {"mobilenet_v3_large", 251, 1}, {"resnet18", 715, 0},
    {"resnet101", 3476, 0},      {"efficientnet_b0", 1364, 1},   {"efficientnet_b3", 2247, 1},
};

const lf_ds_network *lf_ds_table(int32_t *count)
{
    *count = (int32_t)(sizeof lf__table / sizeof lf__table[0]);
    return lf__table;
}

void lf_ds_config_default(lf_ds_config *c)
{
    memset(c, 0, sizeof *c);
    c->scheme = "lbdf";
    c->seed = 1;
    c->scale = 1.0;
    c->max_nodes = 100;
}

void lf_dataset_init(lf_dataset *ds, const char *scheme)
{
    memset(ds, 0, sizeof *ds);
    for (int i = 0; scheme && i < (int)sizeof ds->scheme - 1 && scheme[i]; i++)
        ds->scheme[i] = scheme[i];
    ds->n_betas = 5;
    for (int32_t k = 0; k < 5; k++)
        ds->betas[k] = (int64_t)128 * 1024 << k;
}

static void lf__group_free(lf_ds_group *g)
{
    free(g->ops);
    free(g->x);
    free(g->src);
    free(g->dst);
    memset(g, 0, sizeof *g);
}

void lf_dataset_destroy(lf_dataset *ds)
{
    for (int64_t i = 0; i < ds->n_groups; i++)
        lf__group_free(&ds->groups[i]);
    free(ds->groups);
    for (int32_t k = 0; k < ds->n_networks; k++)
        free(ds->networks[k]);
    free(ds->networks);
    free(ds->requested);
    memset(ds, 0, sizeof *ds);
}

int32_t lf_dataset_add_network(lf_dataset *ds, const char *name, int32_t requested)
{
    char **nw = realloc(ds->networks, sizeof(char *) * (size_t)(ds->n_networks + 1));
    if (!nw)
        return lf_set_error(LF_ENOMEM, "out of memory");
    ds->networks = nw;
    int32_t *rq = realloc(ds->requested, sizeof(int32_t) * (size_t)(ds->n_networks + 1));
    if (!rq)
        return lf_set_error(LF_ENOMEM, "out of memory");
    ds->requested = rq;
    size_t len = strlen(name);
    char *copy = malloc(len + 1);
    if (!copy)
        return lf_set_error(LF_ENOMEM, "out of memory");
    memcpy(copy, name, len + 1);
    ds->networks[ds->n_networks] = copy;
    ds->requested[ds->n_networks] = requested;
    return ds->n_networks++;
}

/* Appends an already-filled group (ownership moves to ds). */
static lf_status lf__push(lf_dataset *ds, lf_ds_group *gr)
{
    if (ds->n_groups == ds->cap) {
        int64_t cap = ds->cap ? 2 * ds->cap : 256;
        lf_ds_group *p = realloc(ds->groups, sizeof *p * (size_t)cap);
        if (!p)
            return lf_set_error(LF_ENOMEM, "out of memory for %lld groups", (long long)cap);
        ds->groups = p;
        ds->cap = cap;
    }
    ds->groups[ds->n_groups++] = *gr;
    memset(gr, 0, sizeof *gr);
    return LF_OK;
}

lf_status lf_dataset_add_group(lf_dataset *ds, int32_t network, const lf_graph *g,
                               const lf_bitset *group, lf_cost_model *const *cms)
{
    if (network < 0 || network >= ds->n_networks)
        return lf_set_error(LF_EINVAL, "network index %d out of range", (int)network);
    lf_ds_group gr;
    memset(&gr, 0, sizeof gr);
    gr.network = network;
    gr.n_nodes = lf_bitset_count(group);
    if (gr.n_nodes < 1)
        return lf_set_error(LF_EINVAL, "empty group");
    int32_t ne = lf_feat_group_edges(g, group, NULL, NULL, 0);
    if (ne < 0)
        return (lf_status)ne;
    gr.n_edges = ne;
    gr.ops = malloc(sizeof(int32_t) * (size_t)gr.n_nodes);
    gr.x = malloc(sizeof(float) * (size_t)gr.n_nodes * LF_FEAT_DIM);
    gr.src = malloc(sizeof(int32_t) * (size_t)(ne ? ne : 1));
    gr.dst = malloc(sizeof(int32_t) * (size_t)(ne ? ne : 1));
    lf_status st = LF_OK;
    if (!gr.ops || !gr.x || !gr.src || !gr.dst) {
        st = lf_set_error(LF_ENOMEM, "out of memory for a group of %d ops", (int)gr.n_nodes);
        goto fail;
    }
    lf_bitset_to_list(group, gr.ops);
    const lf_hw *hw = lf_cost_hw(cms[0]);
    if ((st = lf_feat_group(g, group, hw->weight_bytes, 0, gr.x)) != LF_OK)
        goto fail;
    lf_feat_set_beta(gr.x, gr.n_nodes, 0);
    lf_feat_group_edges(g, group, gr.src, gr.dst, ne);
    for (int32_t k = 0; k < ds->n_betas; k++) {
        if (lf_cost_beta(cms[k]) != ds->betas[k]) {
            st = lf_set_error(LF_EINVAL, "cost model %d has beta %lld, the dataset %lld", (int)k,
                              (long long)lf_cost_beta(cms[k]), (long long)ds->betas[k]);
            goto fail;
        }
        lf_group_cost c;
        if ((st = lf_cost_eval(cms[k], group, &c)) != LF_OK)
            goto fail;
        gr.valid[k] = (uint8_t)(c.f_beta < ds->betas[k]);
    }
    if ((st = lf__push(ds, &gr)) != LF_OK)
        goto fail;
    return LF_OK;
fail:
    lf__group_free(&gr);
    return st;
}

uint64_t lf_ds_group_hash(const lf_dataset *ds, const lf_ds_group *gr)
{
    uint64_t h = lf_hash_bytes(&gr->n_nodes, sizeof gr->n_nodes, 0x64736772ULL);
    h = lf_hash_bytes(&gr->n_edges, sizeof gr->n_edges, h);
    h = lf_hash_bytes(gr->x, sizeof(float) * (size_t)gr->n_nodes * LF_FEAT_DIM, h);
    h = lf_hash_bytes(gr->src, sizeof(int32_t) * (size_t)gr->n_edges, h);
    h = lf_hash_bytes(gr->dst, sizeof(int32_t) * (size_t)gr->n_edges, h);
    return lf_hash_bytes(gr->valid, (size_t)ds->n_betas, h);
}

static int lf__same_content(const lf_dataset *ds, const lf_ds_group *a, const lf_ds_group *b)
{
    return a->n_nodes == b->n_nodes && a->n_edges == b->n_edges &&
           memcmp(a->valid, b->valid, (size_t)ds->n_betas) == 0 &&
           memcmp(a->x, b->x, sizeof(float) * (size_t)a->n_nodes * LF_FEAT_DIM) == 0 &&
           memcmp(a->src, b->src, sizeof(int32_t) * (size_t)a->n_edges) == 0 &&
           memcmp(a->dst, b->dst, sizeof(int32_t) * (size_t)a->n_edges) == 0;
}

/* Content-keyed set of group indices; chains collisions through `next`. */
typedef struct lf__seen {
    lf_hashmap map;   /* hash -> 1 + index of the first group with that hash */
    int64_t *next;    /* per group: 1 + index of the next group with the same hash */
    int64_t cap;
} lf__seen;

static int lf__seen_check_add(lf__seen *s, const lf_dataset *ds, int64_t idx, lf_status *st)
{
    if (idx >= s->cap) {
        int64_t cap = s->cap ? 2 * s->cap : 256;
        while (cap <= idx)
            cap *= 2;
        int64_t *n = realloc(s->next, sizeof(int64_t) * (size_t)cap);
        if (!n) {
            *st = lf_set_error(LF_ENOMEM, "out of memory");
            return 0;
        }
        s->next = n;
        s->cap = cap;
    }
    const lf_ds_group *gr = &ds->groups[idx];
    uint64_t h = lf_ds_group_hash(ds, gr);
    void *v = NULL;
    int64_t head = lf_hashmap_get(&s->map, h, &v) ? (int64_t)(intptr_t)v : 0;
    for (int64_t j = head; j; j = s->next[j - 1])
        if (lf__same_content(ds, &ds->groups[j - 1], gr))
            return 1;
    s->next[idx] = head;
    *st = lf_hashmap_put(&s->map, h, (void *)(intptr_t)(idx + 1));
    return 0;
}

int64_t lf_dataset_dedup(lf_dataset *ds)
{
    lf__seen s;
    memset(&s, 0, sizeof s);
    if (lf_hashmap_init(&s.map, 1024) != LF_OK)
        return 0;
    int64_t kept = 0, removed = 0;
    for (int64_t i = 0; i < ds->n_groups; i++) {
        /* Move first so that the seen set indexes the compacted array. */
        if (kept != i) {
            ds->groups[kept] = ds->groups[i];
            memset(&ds->groups[i], 0, sizeof ds->groups[i]);
        }
        lf_status st = LF_OK;
        if (lf__seen_check_add(&s, ds, kept, &st)) {
            lf__group_free(&ds->groups[kept]);
            removed++;
        } else {
            kept++;
        }
    }
    ds->n_groups = kept;
    lf_hashmap_destroy(&s.map);
    free(s.next);
    return removed;
}

void lf_dataset_split(lf_dataset *ds, uint64_t seed)
{
    int64_t n = ds->n_groups;
    int32_t *perm = malloc(sizeof(int32_t) * (size_t)(n ? n : 1));
    if (!perm)
        return;
    for (int64_t i = 0; i < n; i++)
        perm[i] = (int32_t)i;
    lf_rng r;
    lf_rng_seed(&r, seed, 0x73706c6974ULL); /* "split" */
    lf_rng_shuffle_i32(&r, perm, (int32_t)n);
    int64_t n_train = (n * 8) / 10, n_val = n / 10;
    for (int64_t k = 0; k < n; k++)
        ds->groups[perm[k]].split = k < n_train ? LF_DS_TRAIN
                                    : k < n_train + n_val ? LF_DS_VAL
                                                          : LF_DS_TEST;
    free(perm);
}

int64_t lf_dataset_count(const lf_dataset *ds, int32_t split)
{
    int64_t c = 0;
    for (int64_t i = 0; i < ds->n_groups; i++)
        c += split < 0 || ds->groups[i].split == split;
    return c;
}

void lf_dataset_fit_norm(const lf_dataset *ds, lf_feat_norm *nm)
{
    /* Accumulate in double per column; beta enters once per buffer size. */
    double sum[LF_FEAT_DIM] = {0}, sum2[LF_FEAT_DIM] = {0};
    int64_t rows = 0;
    for (int64_t i = 0; i < ds->n_groups; i++) {
        const lf_ds_group *gr = &ds->groups[i];
        if (gr->split != LF_DS_TRAIN)
            continue;
        for (int32_t k = 0; k < ds->n_betas; k++) {
            float b = (float)log2(1.0 + (double)ds->betas[k]);
            for (int32_t v = 0; v < gr->n_nodes; v++)
                for (int32_t c = 0; c < LF_FEAT_DIM; c++) {
                    double x = c == LF_FEAT_BETA ? b : gr->x[(int64_t)v * LF_FEAT_DIM + c];
                    sum[c] += x;
                    sum2[c] += x * x;
                }
            rows += gr->n_nodes;
        }
    }
    lf_feat_norm_identity(nm);
    if (!rows)
        return;
    for (int32_t c = 0; c < LF_FEAT_DIM; c++) {
        if (!lf_feat_is_numeric(c))
            continue;
        double mean = sum[c] / (double)rows;
        double var = sum2[c] / (double)rows - mean * mean;
        double sd = var > 0 ? sqrt(var) : 0;
        nm->mean[c] = (float)mean;
        nm->std[c] = sd < 1e-6 ? 1.0f : (float)sd;
    }
}

void lf_dataset_samples_free(lf_gnn_sample *s, int64_t n)
{
    if (!s)
        return;
    for (int64_t i = 0; i < n; i++)
        free((void *)s[i].g.x);
    free(s);
}

lf_status lf_dataset_samples(const lf_dataset *ds, int32_t split, const lf_feat_norm *nm,
                             lf_gnn_sample **out, int64_t *n)
{
    *out = NULL;
    *n = 0;
    int64_t count = lf_dataset_count(ds, split) * ds->n_betas;
    lf_gnn_sample *s = calloc((size_t)(count ? count : 1), sizeof *s);
    if (!s)
        return lf_set_error(LF_ENOMEM, "out of memory for %lld samples", (long long)count);
    int64_t k = 0;
    for (int64_t i = 0; i < ds->n_groups; i++) {
        const lf_ds_group *gr = &ds->groups[i];
        if (split >= 0 && gr->split != split)
            continue;
        for (int32_t b = 0; b < ds->n_betas; b++) {
            size_t len = (size_t)gr->n_nodes * LF_FEAT_DIM;
            float *x = malloc(sizeof(float) * len);
            if (!x) {
                lf_dataset_samples_free(s, k);
                return lf_set_error(LF_ENOMEM, "out of memory for samples");
            }
            memcpy(x, gr->x, sizeof(float) * len);
            lf_feat_set_beta(x, gr->n_nodes, ds->betas[b]);
            lf_feat_norm_apply(nm, x, gr->n_nodes);
            /* Edges stay owned by the dataset (shared by the 5 samples). */
            s[k].g.n_nodes = gr->n_nodes;
            s[k].g.n_edges = gr->n_edges;
            s[k].g.x = x;
            s[k].g.src = gr->src;
            s[k].g.dst = gr->dst;
            s[k].g.ew = NULL;
            s[k].label = gr->valid[b];
            k++;
        }
    }
    *out = s;
    *n = k;
    return LF_OK;
}

/* ---- sampling ------------------------------------------------------------ */

/* The configuration's buffer sizes, when it names any (else the default five). */
static void lf__apply_betas(lf_dataset *ds, const lf_ds_config *cfg)
{
    if (cfg->n_betas <= 0)
        return;
    ds->n_betas = cfg->n_betas;
    for (int32_t k = 0; k < LF_DS_MAX_BETAS; k++)
        ds->betas[k] = k < cfg->n_betas ? cfg->betas[k] : 0;
}

typedef struct lf__net_job {
    const char *name;  /* network (a Table I entry or any built-in one) */
    const lf_graph *graph; /* the network itself when given as a graph (not freed), else NULL */
    uint64_t stream;   /* Table I index + 1, or a hash of the name outside Table I */
    int32_t target;
    lf_dataset part;   /* this network's groups (network index 0) */
    int64_t attempts;
    lf_status st;
    char err[256];
} lf__net_job;

static lf_status lf__sample_network(lf__net_job *job, const lf_ds_config *cfg, const lf_hw *base,
                                    const lf_dataset *proto)
{
    lf_dataset *ds = &job->part;
    lf_graph *g = NULL;
    lf_cost_model *cms[LF_DS_MAX_BETAS] = {0};
    lf_genome_map map;
    memset(&map, 0, sizeof map);
    lf_decoder *dec = NULL;
    lf_plan plan;
    memset(&plan, 0, sizeof plan);
    lf_bitset bs;
    memset(&bs, 0, sizeof bs);
    uint8_t *genes = NULL;
    int32_t *eligible = NULL;
    lf__seen seen;
    memset(&seen, 0, sizeof seen);
    lf_status st = job->graph ? LF_OK : lf_model_build(job->name, NULL, &g);
    if (st != LF_OK)
        goto done;
    if (job->graph)
        g = (lf_graph *)job->graph; /* borrowed: not freed below */
    for (int32_t k = 0; k < proto->n_betas; k++) {
        lf_hw hw = *base;
        hw.buffer_bytes = proto->betas[k];
        if ((st = lf_cost_model_create(&cms[k], g, &hw, cfg->scheme)) != LF_OK)
            goto done;
    }
    /* The largest buffer leaves the most ops fusable, so its genome spans
     * the most edges; smaller buffers then label the same groups. */
    lf_cost_model *big = cms[proto->n_betas - 1];
    if ((st = lf_genome_map_init(&map, big)) != LF_OK ||
        (st = lf_decoder_create(&dec, big, &map, NULL, cfg->seed)) != LF_OK ||
        (st = lf_plan_init(&plan, g->n_ops)) != LF_OK ||
        (st = lf_bitset_init(&bs, g->n_ops)) != LF_OK ||
        (st = lf_hashmap_init(&seen.map, 1024)) != LF_OK)
        goto done;
    genes = malloc((size_t)(map.n_edges ? map.n_edges : 1));
    eligible = malloc(sizeof(int32_t) * (size_t)g->n_ops);
    if (!genes || !eligible) {
        st = lf_set_error(LF_ENOMEM, "out of memory sampling %s", job->name);
        goto done;
    }
    if ((st = (lf_status)(lf_dataset_add_network(ds, job->name, job->target) < 0 ? LF_ENOMEM
                                                                                 : LF_OK)))
        goto done;
    int64_t max_attempts = 200 * (int64_t)job->target + 2000;
    for (int64_t a = 0; a < max_attempts && ds->n_groups < job->target; a++) {
        job->attempts = a + 1;
        lf_rng r;
        lf_rng_seed(&r, cfg->seed, lf_rng_mix(job->stream, (uint64_t)a));
        double p = lf_rng_uniform(&r);
        for (int32_t e = 0; e < map.n_edges; e++)
            genes[e] = (uint8_t)lf_rng_bernoulli(&r, p);
        if ((st = lf_genome_groups(&map, g, genes, &plan)) != LF_OK ||
            (st = lf_plan_repair_cycles(dec, &plan, NULL)) != LF_OK)
            goto done;
        int32_t n_el = 0;
        for (int32_t gi = 0; gi < plan.n_groups; gi++) {
            int32_t sz = lf_plan_group_size(&plan, gi);
            if (sz >= 2 && sz <= cfg->max_nodes)
                eligible[n_el++] = gi;
        }
        if (!n_el)
            continue;
        int32_t gi = eligible[lf_rng_below(&r, (uint32_t)n_el)];
        lf_plan_group_bitset(&plan, gi, &bs);
        if ((st = lf_dataset_add_group(ds, 0, g, &bs, cms)) != LF_OK)
            goto done;
        if (lf__seen_check_add(&seen, ds, ds->n_groups - 1, &st)) {
            ds->n_groups--;
            lf__group_free(&ds->groups[ds->n_groups]);
        }
        if (st != LF_OK)
            goto done;
    }
done:
    if (st != LF_OK)
        snprintf(job->err, sizeof job->err, "%s: %s", job->name, lf_last_error());
    free(genes);
    free(eligible);
    lf_hashmap_destroy(&seen.map);
    free(seen.next);
    lf_bitset_destroy(&bs);
    lf_plan_destroy(&plan);
    lf_decoder_free(dec);
    lf_genome_map_destroy(&map);
    for (int32_t k = 0; k < LF_DS_MAX_BETAS; k++)
        lf_cost_model_free(cms[k]);
    if (!job->graph)
        lf_graph_free(g);
    return st;
}

lf_status lf_dataset_build(lf_dataset *ds, const lf_ds_config *cfg)
{
    int resident = cfg->scheme ? lf_cost_scheme_weights_resident(cfg->scheme) : -1;
    if (resident < 0) {
        char names[128];
        return lf_set_error(LF_EINVAL, "dataset scheme must be %s, not '%s'",
                            lf_names_format(LF_NAMES_SCHEME, names, sizeof names),
                            cfg->scheme ? cfg->scheme : "(null)");
    }
    if (cfg->groups <= 0 && (!(cfg->scale > 0) || cfg->scale > 100))
        return lf_set_error(LF_EINVAL, "dataset scale %g outside (0, 100]", cfg->scale);
    if (cfg->max_nodes < 2)
        return lf_set_error(LF_EINVAL, "max_nodes %d below 2", (int)cfg->max_nodes);
    if (cfg->n_betas < 0 || cfg->n_betas > LF_DS_MAX_BETAS)
        return lf_set_error(LF_EINVAL, "dataset has %d buffer sizes; 1 to %d allowed",
                            (int)cfg->n_betas, LF_DS_MAX_BETAS);
    for (int32_t k = 0; k < cfg->n_betas; k++)
        if (cfg->betas[k] <= 0 || (k && cfg->betas[k] <= cfg->betas[k - 1]))
            return lf_set_error(LF_EINVAL, "dataset buffer sizes must be positive and strictly "
                                           "ascending (size %d is %lld B)",
                                (int)k, (long long)cfg->betas[k]);
    if (cfg->groups < 0)
        return lf_set_error(LF_EINVAL, "dataset groups per network %d below 0", (int)cfg->groups);
    lf_dataset_destroy(ds);
    lf_dataset_init(ds, cfg->scheme);
    lf__apply_betas(ds, cfg);
    ds->seed = cfg->seed;
    lf_hw base;
    if (cfg->hw)
        base = *cfg->hw;
    else
        lf_hw_default(&base);
    int32_t nt_table;
    lf_ds_table(&nt_table);
    int any = cfg->any_network && cfg->only;
    lf__net_job *jobs = calloc((size_t)nt_table + 1, sizeof *jobs);
    if (!jobs)
        return lf_set_error(LF_ENOMEM, "out of memory");
    int32_t n_jobs = 0;
    lf_status st = LF_OK;
    if (cfg->graph) {
        /* A network from outside (an ONNX import): like a built-in network
         * outside Table I, its own stream from its name. */
        if (cfg->groups <= 0) {
            st = lf_set_error(LF_EINVAL, "network '%s' is not in Table I: give the number of "
                                         "groups to sample",
                              cfg->graph->name);
            goto done;
        }
        lf__net_job *j = &jobs[n_jobs++];
        j->name = cfg->graph->name;
        j->graph = cfg->graph;
        j->stream = lf_hash_string(j->name);
        j->target = cfg->groups;
        lf_dataset_init(&j->part, cfg->scheme);
        lf__apply_betas(&j->part, cfg);
    }
    for (int32_t i = 0; i < nt_table && !cfg->graph; i++) {
        /* The paper's Table I leaves the squeeze-and-excite networks out of
         * the weight-streaming scheme's (BRR's) dataset. */
        if (!any && !resident && lf__table[i].has_se)
            continue;
        if (cfg->only && strcmp(cfg->only, lf__table[i].name) != 0)
            continue;
        lf__net_job *j = &jobs[n_jobs++];
        j->name = lf__table[i].name;
        j->stream = (uint64_t)i + 1;
        j->target = cfg->groups > 0 ? cfg->groups : (int32_t)ceil(lf__table[i].groups * cfg->scale);
        lf_dataset_init(&j->part, cfg->scheme);
        lf__apply_betas(&j->part, cfg);
    }
    if (!n_jobs && any) {
        /* A built-in network outside Table I: its own stream from its name. */
        int32_t nm;
        const lf_model_entry *models = lf_models(&nm);
        for (int32_t i = 0; i < nm && !n_jobs; i++)
            if (!strcmp(models[i].name, cfg->only)) {
                if (cfg->groups <= 0) {
                    st = lf_set_error(LF_EINVAL, "network '%s' is not in Table I: give the "
                                                 "number of groups to sample",
                                      cfg->only);
                    goto done;
                }
                lf__net_job *j = &jobs[n_jobs++];
                j->name = models[i].name;
                j->stream = lf_hash_string(models[i].name);
                j->target = cfg->groups;
                lf_dataset_init(&j->part, cfg->scheme);
                lf__apply_betas(&j->part, cfg);
            }
        if (!n_jobs) {
            st = lf_set_error(LF_ENOTFOUND, "no built-in network named '%s'", cfg->only);
            goto done;
        }
    }
    if (!n_jobs) {
        st = lf_set_error(LF_ENOTFOUND, "no training network named '%s' for scheme %s",
                          cfg->only ? cfg->only : "", cfg->scheme);
        goto done;
    }
    /* Networks run in parallel, each from its own random streams; the parts
     * are merged in Table I order, so the result ignores the thread count.
     * The biggest networks go first (dynamic schedule) to balance threads. */
#ifdef _OPENMP
    int32_t nthr = cfg->threads > 0 ? cfg->threads : omp_get_max_threads();
#pragma omp parallel for schedule(dynamic, 1) num_threads(nthr)
#endif
    for (int32_t k = 0; k < n_jobs; k++)
        jobs[k].st = lf__sample_network(&jobs[k], cfg, &base, ds);
    for (int32_t k = 0; k < n_jobs; k++)
        if (jobs[k].st != LF_OK) {
            st = lf_set_error(jobs[k].st, "%s", jobs[k].err);
            goto done;
        }
    for (int32_t k = 0; k < n_jobs; k++) {
        lf__net_job *j = &jobs[k];
        int32_t idx = lf_dataset_add_network(ds, j->name, j->target);
        if (idx < 0) {
            st = (lf_status)idx;
            goto done;
        }
        for (int64_t i = 0; i < j->part.n_groups; i++) {
            j->part.groups[i].network = idx;
            if ((st = lf__push(ds, &j->part.groups[i])) != LF_OK)
                goto done;
        }
        j->part.n_groups = 0;
    }
    lf_dataset_dedup(ds);
    lf_dataset_split(ds, cfg->seed);
done:
    for (int32_t k = 0; k < n_jobs; k++)
        lf_dataset_destroy(&jobs[k].part);
    free(jobs);
    return st;
}
