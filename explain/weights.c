/* Versioned GNN weight files (format in weights.h). */
#include "explain/weights.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/util/binfile.h"
#include "planner/util/fileio.h"

static lf__binfile lf__gnn_file(void)
{
    return (lf__binfile){"LFGNNWT", LF_GNN_WEIGHTS_VERSION, lf_feat_schema_hash(), "GNN weight file",
                         "retrain the GNN"};
}

lf_status lf_gnn_save(const lf_gnn *m, const char *path)
{
    if (m->cfg.in_dim != LF_FEAT_DIM)
        return lf_set_error(LF_EINVAL, "GNN input width %d differs from the feature schema (%d)",
                            (int)m->cfg.in_dim, (int)LF_FEAT_DIM);
    lf__wbuf b = {0};
    lf__binfile bf = lf__gnn_file();
    lf__bin_begin(&b, &bf);
    lf__w_u32(&b, (uint32_t)m->cfg.in_dim);
    lf__w_u32(&b, (uint32_t)m->cfg.hidden);
    lf__w_u32(&b, (uint32_t)m->cfg.n_layers);
    lf__w_u32(&b, (uint32_t)m->cfg.n_classes);
    lf__w_u32(&b, (uint32_t)m->cfg.undirected);
    char scheme[8] = {0};
    for (int i = 0; i < 7 && m->scheme[i]; i++)
        scheme[i] = m->scheme[i];
    lf__w_bytes(&b, scheme, 8);
    lf__w_u64(&b, (uint64_t)m->n_params);
    for (int32_t c = 0; c < LF_FEAT_DIM; c++)
        lf__w_f32(&b, m->norm.mean[c]);
    for (int32_t c = 0; c < LF_FEAT_DIM; c++)
        lf__w_f32(&b, m->norm.std[c]);
    for (int64_t i = 0; i < m->n_params; i++)
        lf__w_f32(&b, m->params[i]);
    return lf__bin_commit(&b, path);
}

lf_status lf_gnn_load_memory(lf_gnn *m, const void *data, size_t len, const char *origin,
                             const lf_gnn_config *expect)
{
    memset(m, 0, sizeof *m);
    lf__binfile bf = lf__gnn_file();
    lf__rbuf r;
    lf_status st = lf__bin_open(&bf, data, len, origin, &r);
    if (st != LF_OK)
        return st;
    lf_gnn_config cfg;
    cfg.in_dim = (int32_t)lf__r_u32(&r);
    cfg.hidden = (int32_t)lf__r_u32(&r);
    cfg.n_layers = (int32_t)lf__r_u32(&r);
    cfg.n_classes = (int32_t)lf__r_u32(&r);
    cfg.undirected = (int32_t)lf__r_u32(&r);
    char scheme[8];
    lf__r_bytes(&r, scheme, 8);
    uint64_t n_params = lf__r_u64(&r);
    if (r.short_)
        return lf_set_error(LF_EPARSE, "%s: truncated GNN weight file (header)", origin);
    if (cfg.in_dim != LF_FEAT_DIM)
        return lf_set_error(LF_EINVAL, "%s: input width %d, the feature schema has %d", origin,
                            (int)cfg.in_dim, (int)LF_FEAT_DIM);
    if (expect && (expect->in_dim != cfg.in_dim || expect->hidden != cfg.hidden ||
                   expect->n_layers != cfg.n_layers || expect->n_classes != cfg.n_classes ||
                   expect->undirected != cfg.undirected))
        return lf_set_error(LF_EINVAL,
                            "%s: GNN dimensions (in %d, hidden %d, layers %d, classes %d, "
                            "undirected %d) differ from the expected (%d, %d, %d, %d, %d)",
                            origin, (int)cfg.in_dim, (int)cfg.hidden, (int)cfg.n_layers,
                            (int)cfg.n_classes, (int)cfg.undirected, (int)expect->in_dim,
                            (int)expect->hidden, (int)expect->n_layers, (int)expect->n_classes,
                            (int)expect->undirected);
    if (cfg.undirected != 0 && cfg.undirected != 1)
        return lf_set_error(LF_EPARSE, "%s: bad edge-direction flag %d", origin,
                            (int)cfg.undirected);
    /* The header's dimensions decide an allocation: before making it, the
     * parameter count they imply must be the one the header states, and the
     * file must be long enough to hold that many. */
    if (cfg.hidden < 1 || cfg.hidden > LF_GNN_MAX_WIDTH || cfg.n_layers < 1 || cfg.n_layers > 64 ||
        cfg.n_classes < 2 || cfg.n_classes > 1024)
        return lf_set_error(LF_EPARSE, "%s: bad GNN dimensions (hidden %d, layers %d, classes %d)",
                            origin, (int)cfg.hidden, (int)cfg.n_layers, (int)cfg.n_classes);
    uint64_t implied = 2ull * (uint64_t)cfg.in_dim * (uint64_t)cfg.hidden + (uint64_t)cfg.hidden +
                       (uint64_t)(cfg.n_layers - 1) *
                           (2ull * (uint64_t)cfg.hidden * (uint64_t)cfg.hidden + (uint64_t)cfg.hidden) +
                       (uint64_t)cfg.hidden * (uint64_t)cfg.n_classes + (uint64_t)cfg.n_classes;
    if (n_params > len / 4)
        return lf_set_error(LF_EPARSE, "%s: truncated GNN weight file (%zu bytes for %llu parameters)",
                            origin, len, (unsigned long long)n_params);
    if (implied != n_params)
        return lf_set_error(LF_EINVAL, "%s: %llu parameters, the dimensions imply %llu", origin,
                            (unsigned long long)n_params, (unsigned long long)implied);
    st = lf_gnn_init(m, &cfg, 0);
    if (st != LF_OK) {
        /* The message is rewritten in the buffer it lives in: copy it first. */
        char inner[512];
        snprintf(inner, sizeof inner, "%s", lf_last_error());
        lf_gnn_destroy(m);
        return lf_set_error(st, "%s: %s", origin, inner);
    }
    if ((uint64_t)m->n_params != n_params) {
        lf_gnn_destroy(m);
        return lf_set_error(LF_EINVAL, "%s: %llu parameters, the dimensions imply %lld", origin,
                            (unsigned long long)n_params, (long long)m->n_params);
    }
    if ((st = lf__bin_rest(&bf, &r, 4 * (2 * (uint64_t)LF_FEAT_DIM + n_params), origin)) != LF_OK) {
        lf_gnn_destroy(m);
        return st;
    }
    for (int32_t c = 0; c < LF_FEAT_DIM; c++)
        m->norm.mean[c] = lf__r_f32(&r);
    for (int32_t c = 0; c < LF_FEAT_DIM; c++)
        m->norm.std[c] = lf__r_f32(&r);
    for (int64_t i = 0; i < m->n_params; i++)
        m->params[i] = lf__r_f32(&r);
    memcpy(m->scheme, scheme, 7);
    m->scheme[7] = '\0';
    return LF_OK;
}

lf_status lf_gnn_load(lf_gnn *m, const char *path, const lf_gnn_config *expect)
{
    memset(m, 0, sizeof *m);
    char *data = NULL;
    size_t len = 0;
    lf__binfile bf = lf__gnn_file();
    lf_status st = lf__bin_read(&bf, path, LF_GNN_FILE_MAX, &data, &len);
    if (st != LF_OK)
        return st;
    st = lf_gnn_load_memory(m, data, len, path, expect);
    free(data);
    return st;
}
