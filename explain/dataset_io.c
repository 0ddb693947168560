/* Dataset files, in the container of planner/util/binfile.h (magic
 * "LFGNNDS", version LF_DS_VERSION, schema lf_feat_schema_hash, checksum).
 *
 * Body, all little-endian:
 *   u32      feature width (LF_FEAT_DIM)
 *   8 bytes  scheme, NUL-padded
 *   u64      seed
 *   u32      n_betas, then u64 beta[n_betas]
 *   u32      n_networks, then per network: u32 name length, name bytes, u32 requested
 *   u64      n_groups, then per group:
 *              u32 network, u32 n_nodes, u32 n_edges, u8 split, u8 valid[n_betas],
 *              u32 ops[n_nodes], f32 x[n_nodes * width], u32 src[n_edges], u32 dst[n_edges]
 *   u64      checksum of everything before it */
#include <stdlib.h>
#include <string.h>

#include "explain/dataset.h"
#include "planner/util/binfile.h"

static lf__binfile lf__ds_file(void)
{
    return (lf__binfile){"LFGNNDS", LF_DS_VERSION, lf_feat_schema_hash(), "GNN dataset file",
                         "rebuild it with `fusionplan dataset`"};
}

lf_status lf_dataset_save(const lf_dataset *ds, const char *path)
{
    lf__wbuf b = {0};
    lf__binfile bf = lf__ds_file();
    lf__bin_begin(&b, &bf);
    lf__w_u32(&b, LF_FEAT_DIM);
    char scheme[8] = {0};
    memcpy(scheme, ds->scheme, 7);
    lf__w_bytes(&b, scheme, 8);
    lf__w_u64(&b, ds->seed);
    lf__w_u32(&b, (uint32_t)ds->n_betas);
    for (int32_t k = 0; k < ds->n_betas; k++)
        lf__w_u64(&b, (uint64_t)ds->betas[k]);
    lf__w_u32(&b, (uint32_t)ds->n_networks);
    for (int32_t k = 0; k < ds->n_networks; k++) {
        uint32_t len = (uint32_t)strlen(ds->networks[k]);
        lf__w_u32(&b, len);
        lf__w_bytes(&b, ds->networks[k], len);
        lf__w_u32(&b, (uint32_t)ds->requested[k]);
    }
    lf__w_u64(&b, (uint64_t)ds->n_groups);
    for (int64_t i = 0; i < ds->n_groups; i++) {
        const lf_ds_group *g = &ds->groups[i];
        lf__w_u32(&b, (uint32_t)g->network);
        lf__w_u32(&b, (uint32_t)g->n_nodes);
        lf__w_u32(&b, (uint32_t)g->n_edges);
        lf__w_u8(&b, (uint8_t)g->split);
        lf__w_bytes(&b, g->valid, (size_t)ds->n_betas);
        for (int32_t v = 0; v < g->n_nodes; v++)
            lf__w_u32(&b, (uint32_t)g->ops[v]);
        for (int64_t v = 0; v < (int64_t)g->n_nodes * LF_FEAT_DIM; v++)
            lf__w_f32(&b, g->x[v]);
        for (int32_t e = 0; e < g->n_edges; e++)
            lf__w_u32(&b, (uint32_t)g->src[e]);
        for (int32_t e = 0; e < g->n_edges; e++)
            lf__w_u32(&b, (uint32_t)g->dst[e]);
    }
    return lf__bin_commit(&b, path);
}

#define LF__TRUNC(origin) lf_set_error(LF_EPARSE, "%s: truncated dataset file", origin)

lf_status lf_dataset_load_memory(lf_dataset *ds, const void *data, size_t len, const char *origin)
{
    memset(ds, 0, sizeof *ds);
    lf__binfile bf = lf__ds_file();
    lf__rbuf r;
    lf_status st = lf__bin_open(&bf, data, len, origin, &r);
    if (st != LF_OK)
        return st;
    uint32_t width = lf__r_u32(&r);
    if (width != LF_FEAT_DIM)
        return lf_set_error(LF_EINVAL, "%s: dataset of %u feature columns, this build uses %d; "
                                       "rebuild it with `fusionplan dataset`",
                            origin, (unsigned)width, (int)LF_FEAT_DIM);
    char scheme[8];
    lf__r_bytes(&r, scheme, 8);
    scheme[7] = '\0';
    lf_dataset_init(ds, scheme);
    ds->seed = lf__r_u64(&r);
    uint32_t nb = lf__r_u32(&r);
    if (nb < 1 || nb > LF_DS_MAX_BETAS) {
        st = lf_set_error(LF_EPARSE, "%s: %u buffer sizes (1..%d allowed)", origin, (unsigned)nb,
                          LF_DS_MAX_BETAS);
        goto fail;
    }
    ds->n_betas = (int32_t)nb;
    for (uint32_t k = 0; k < nb; k++)
        ds->betas[k] = (int64_t)lf__r_u64(&r);
    uint32_t nn = lf__r_u32(&r);
    if (r.short_ || nn > 4096) {
        st = r.short_ ? LF__TRUNC(origin)
                      : lf_set_error(LF_EPARSE, "%s: %u networks", origin, (unsigned)nn);
        goto fail;
    }
    for (uint32_t k = 0; k < nn; k++) {
        uint32_t l = lf__r_u32(&r);
        if (r.short_ || l > 255) {
            st = r.short_ ? LF__TRUNC(origin)
                          : lf_set_error(LF_EPARSE, "%s: network name of %u bytes", origin,
                                         (unsigned)l);
            goto fail;
        }
        char name[256];
        lf__r_bytes(&r, name, l);
        name[l] = '\0';
        int32_t req = (int32_t)lf__r_u32(&r);
        if (lf_dataset_add_network(ds, name, req) < 0) {
            st = LF_ENOMEM;
            goto fail;
        }
    }
    uint64_t ng = lf__r_u64(&r);
    if (r.short_) {
        st = LF__TRUNC(origin);
        goto fail;
    }
    for (uint64_t i = 0; i < ng; i++) {
        lf_ds_group g;
        memset(&g, 0, sizeof g);
        g.network = (int32_t)lf__r_u32(&r);
        uint32_t n = lf__r_u32(&r), e = lf__r_u32(&r);
        g.split = lf__r_u8(&r);
        lf__r_bytes(&r, g.valid, nb);
        /* Bound the sizes by what is left before allocating anything. */
        size_t left = r.len - (r.pos < r.len ? r.pos : r.len);
        if (r.short_ || n < 1 || n > (uint32_t)(left / (4 + 4 * LF_FEAT_DIM)) ||
            e > (uint32_t)(left / 8) || g.network < 0 || g.network >= ds->n_networks ||
            g.split > LF_DS_TEST) {
            st = r.short_ ? LF__TRUNC(origin)
                          : lf_set_error(LF_EPARSE, "%s: group %llu is malformed", origin,
                                         (unsigned long long)i);
            goto fail;
        }
        g.n_nodes = (int32_t)n;
        g.n_edges = (int32_t)e;
        g.ops = malloc(sizeof(int32_t) * n);
        g.x = malloc(sizeof(float) * n * LF_FEAT_DIM);
        g.src = malloc(sizeof(int32_t) * (e ? e : 1));
        g.dst = malloc(sizeof(int32_t) * (e ? e : 1));
        int bad = !g.ops || !g.x || !g.src || !g.dst;
        for (uint32_t v = 0; !bad && v < n; v++)
            g.ops[v] = (int32_t)lf__r_u32(&r);
        for (size_t v = 0; !bad && v < (size_t)n * LF_FEAT_DIM; v++)
            g.x[v] = lf__r_f32(&r);
        for (uint32_t k = 0; !bad && k < e; k++)
            g.src[k] = (int32_t)lf__r_u32(&r);
        for (uint32_t k = 0; !bad && k < e; k++)
            g.dst[k] = (int32_t)lf__r_u32(&r);
        for (uint32_t k = 0; !bad && k < e; k++)
            bad |= g.src[k] < 0 || g.src[k] >= (int32_t)n || g.dst[k] < 0 || g.dst[k] >= (int32_t)n;
        for (uint32_t k = 0; !bad && k < nb; k++)
            bad |= g.valid[k] > 1;
        if (bad || r.short_) {
            st = (!g.ops || !g.x || !g.src || !g.dst) ? lf_set_error(LF_ENOMEM, "out of memory")
                 : r.short_ ? LF__TRUNC(origin)
                            : lf_set_error(LF_EPARSE, "%s: group %llu is malformed", origin,
                                           (unsigned long long)i);
            free(g.ops);
            free(g.x);
            free(g.src);
            free(g.dst);
            goto fail;
        }
        lf_ds_group *slot;
        if (ds->n_groups == ds->cap) {
            int64_t cap = ds->cap ? 2 * ds->cap : 256;
            lf_ds_group *p = realloc(ds->groups, sizeof *p * (size_t)cap);
            if (!p) {
                free(g.ops);
                free(g.x);
                free(g.src);
                free(g.dst);
                st = lf_set_error(LF_ENOMEM, "out of memory");
                goto fail;
            }
            ds->groups = p;
            ds->cap = cap;
        }
        slot = &ds->groups[ds->n_groups++];
        *slot = g;
    }
    if ((st = lf__bin_done(&bf, &r, origin, "the last group")) != LF_OK)
        goto fail;
    return LF_OK;
fail:
    lf_dataset_destroy(ds);
    return st;
}

lf_status lf_dataset_load(lf_dataset *ds, const char *path)
{
    memset(ds, 0, sizeof *ds);
    char *data = NULL;
    size_t len = 0;
    lf__binfile bf = lf__ds_file();
    lf_status st = lf__bin_read(&bf, path, LF_DATASET_FILE_MAX, &data, &len);
    if (st != LF_OK)
        return st;
    st = lf_dataset_load_memory(ds, data, len, path);
    free(data);
    return st;
}
