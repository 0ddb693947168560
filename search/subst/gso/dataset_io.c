/* GSO dataset files, in the container of planner/util/binfile.h (magic
 * "LFGSODS", version LF_GSO_DATASET_VERSION, schema lf_gso_schema_hash,
 * checksum).
 *
 * Body, all little-endian:
 *   u32 feature width, u32 n_rules, per rule: u32 length, name;
 *   u32 n_graphs, u32 n_train, per graph: u32 origin length, origin,
 *   u32 n_nodes, u32 n_edges, f32 x[n_nodes * width], u32 src[n_edges],
 *   u32 dst[n_edges], labels: per rule ceil(n_nodes / 8) bytes, node v in bit
 *   v % 8 of byte v / 8. */
#include <stdlib.h>
#include <string.h>

#include "planner/util/binfile.h"
#include "search/subst/gso/gso_internal.h"

static lf__binfile lf__gso_ds_file(void)
{
    return (lf__binfile){"LFGSODS", LF_GSO_DATASET_VERSION, lf_gso_schema_hash(), "GSO dataset",
                         "rebuild: fusionplan gso-dataset"};
}
#define LF__GSO_DS_MAX ((int64_t)1 << 30)
#define LF__GSO_MAX_NODES 1000000

static void lf__w_str(lf__wbuf *b, const char *s)
{
    uint32_t len = (uint32_t)strlen(s);
    lf__w_u32(b, len);
    lf__w_bytes(b, s, len);
}

lf_status lf_gso_dataset_save(const lf_gso_dataset *d, const char *path)
{
    lf__wbuf b = {0};
    lf__binfile bf = lf__gso_ds_file();
    lf__bin_begin(&b, &bf);
    lf__w_u32(&b, LF_GSO_FEAT_DIM);
    lf__w_u32(&b, (uint32_t)d->n_rules);
    for (int32_t k = 0; k < d->n_rules; k++)
        lf__w_str(&b, d->rules[k]);
    lf__w_u32(&b, (uint32_t)d->n_graphs);
    lf__w_u32(&b, (uint32_t)d->n_train);
    for (int32_t i = 0; i < d->n_graphs; i++) {
        const lf_gso_graph *g = &d->g[i];
        lf__w_str(&b, d->origin[i]);
        lf__w_u32(&b, (uint32_t)g->n);
        lf__w_u32(&b, (uint32_t)g->n_edges);
        for (int64_t j = 0; j < (int64_t)g->n * LF_GSO_FEAT_DIM; j++)
            lf__w_f32(&b, g->x[j]);
        for (int32_t e = 0; e < g->n_edges; e++)
            lf__w_u32(&b, (uint32_t)g->src[e]);
        for (int32_t e = 0; e < g->n_edges; e++)
            lf__w_u32(&b, (uint32_t)g->dst[e]);
        for (int32_t k = 0; k < d->n_rules; k++) {
            const uint8_t *l = d->labels[i] + (int64_t)k * g->n;
            for (int32_t v = 0; v < g->n; v += 8) {
                uint8_t byte = 0;
                for (int32_t t = 0; t < 8 && v + t < g->n; t++)
                    byte |= (uint8_t)((l[v + t] != 0) << t);
                lf__w_u8(&b, byte);
            }
        }
    }
    return lf__bin_commit(&b, path);
}

/* Reads a length-prefixed string into a new buffer; NULL on a bad length or
 * a control character (names are printed). */
static char *lf__r_str(lf__rbuf *r)
{
    uint32_t len = lf__r_u32(r);
    if (r->short_ || len > 4096 || len > r->len - r->pos)
        return NULL;
    char *s = malloc(len + 1);
    if (!s)
        return NULL;
    lf__r_bytes(r, s, len);
    s[len] = '\0';
    for (uint32_t c = 0; c < len; c++)
        if ((unsigned char)s[c] < 0x20 || (unsigned char)s[c] == 0x7f) {
            free(s);
            return NULL;
        }
    return s;
}

static lf_status lf__read_graph(lf__rbuf *r, lf_gso_dataset *d, int32_t i, const char *path)
{
    if (!(d->origin[i] = lf__r_str(r)))
        return lf_set_error(LF_EPARSE, "%s: graph %d: bad or truncated origin", path, (int)i);
    uint32_t n = lf__r_u32(r), ne = lf__r_u32(r);
    if (r->short_ || n > LF__GSO_MAX_NODES || ne > 64u * LF__GSO_MAX_NODES ||
        (uint64_t)n * LF_GSO_FEAT_DIM * 4 + (uint64_t)ne * 8 > r->len - r->pos)
        return lf_set_error(LF_EPARSE, "%s: graph %d: bad or truncated sizes (%u nodes, %u edges)", path, (int)i,
                            (unsigned)n, (unsigned)ne);
    float *x = malloc((size_t)(n ? n : 1) * LF_GSO_FEAT_DIM * sizeof *x);
    int32_t *src = malloc((size_t)(ne ? ne : 1) * sizeof *src), *dst = malloc((size_t)(ne ? ne : 1) * sizeof *dst);
    d->labels[i] = calloc((size_t)(d->n_rules ? d->n_rules : 1) * (n ? n : 1), 1);
    lf_status st = LF_OK;
    if (!x || !src || !dst || !d->labels[i])
        st = lf_set_error(LF_ENOMEM, "%s: out of memory", path);
    for (int64_t j = 0; !st && j < (int64_t)n * LF_GSO_FEAT_DIM; j++)
        x[j] = lf__r_f32(r);
    for (uint32_t e = 0; !st && e < ne; e++)
        src[e] = (int32_t)lf__r_u32(r);
    for (uint32_t e = 0; !st && e < ne; e++)
        dst[e] = (int32_t)lf__r_u32(r);
    for (int32_t k = 0; !st && k < d->n_rules; k++) {
        uint8_t *l = d->labels[i] + (int64_t)k * n;
        for (uint32_t v = 0; v < n; v += 8) {
            uint8_t byte = lf__r_u8(r);
            for (uint32_t t = 0; t < 8 && v + t < n; t++)
                l[v + t] = (byte >> t) & 1;
        }
    }
    if (!st && r->short_)
        st = lf_set_error(LF_EPARSE, "%s: graph %d: truncated", path, (int)i);
    if (!st) {
        st = lf_gso_graph_from(&d->g[i], (int32_t)n, x, (int32_t)ne, src, dst);
        if (st) {
            char inner[256];
            snprintf(inner, sizeof inner, "%s", lf_last_error());
            st = lf_set_error(LF_EPARSE, "%s: graph %d: %s", path, (int)i, inner);
        }
    }
    free(x);
    free(src);
    free(dst);
    return st;
}

static lf_status lf__load(lf_gso_dataset *d, const unsigned char *data, size_t len, const char *path)
{
    lf__binfile bf = lf__gso_ds_file();
    lf__rbuf r;
    lf_status st = lf__bin_open(&bf, data, len, path, &r);
    if (st != LF_OK)
        return st;
    uint32_t width = lf__r_u32(&r), nr = lf__r_u32(&r);
    if (r.short_)
        return lf_set_error(LF_EPARSE, "%s: truncated GSO dataset (header)", path);
    if (width != LF_GSO_FEAT_DIM)
        return lf_set_error(LF_EINVAL, "%s: %u feature columns, this build has %d (rebuild: fusionplan "
                            "gso-dataset)", path, (unsigned)width, LF_GSO_FEAT_DIM);
    if (nr > 100000 || nr > len)
        return lf_set_error(LF_EPARSE, "%s: bad rule count %u", path, (unsigned)nr);
    char **rules = calloc(nr ? nr : 1, sizeof *rules);
    if (!rules)
        return lf_set_error(LF_ENOMEM, "%s: out of memory", path);
    for (uint32_t k = 0; k < nr && !st; k++)
        if (!(rules[k] = lf__r_str(&r)))
            st = lf_set_error(LF_EPARSE, "%s: rule %u: bad or truncated name", path, (unsigned)k);
    uint32_t ng = lf__r_u32(&r), ntr = lf__r_u32(&r);
    if (!st && (r.short_ || ng > len || ntr > ng))
        st = lf_set_error(LF_EPARSE, "%s: bad graph counts (%u graphs, %u for training)", path, (unsigned)ng,
                          (unsigned)ntr);
    if (!st)
        st = lf__gso_dataset_alloc(d, (int32_t)nr, (int32_t)ng);
    if (!st) {
        for (uint32_t k = 0; k < nr; k++) {
            d->rules[k] = rules[k];
            rules[k] = NULL;
        }
        d->n_train = (int32_t)ntr;
    }
    for (uint32_t i = 0; i < ng && !st; i++)
        st = lf__read_graph(&r, d, (int32_t)i, path);
    if (!st)
        st = lf__bin_done(&bf, &r, path, "the last graph");
    for (uint32_t k = 0; k < nr; k++)
        free(rules[k]);
    free(rules);
    return st;
}

lf_status lf_gso_dataset_load(lf_gso_dataset *d, const char *path)
{
    memset(d, 0, sizeof *d);
    char *data = NULL;
    size_t len = 0;
    lf__binfile bf = lf__gso_ds_file();
    lf_status st = lf__bin_read(&bf, path, LF__GSO_DS_MAX, &data, &len);
    if (st)
        return st;
    st = lf__load(d, (const unsigned char *)data, len, path);
    free(data);
    if (st)
        lf_gso_dataset_destroy(d);
    return st;
}
