/* GSO weight files (format in gso.h), in the container of the explainer
 * weights (planner/util/binfile.h). */
#include <stdlib.h>
#include <string.h>

#include "planner/util/binfile.h"
#include "search/subst/gso/gso_internal.h"

static lf__binfile lf__gso_file(void)
{
    return (lf__binfile){"LFGSOWT", LF_GSO_WEIGHTS_VERSION, lf_gso_schema_hash(), "GSO weight file",
                         "retrain: fusionplan gso-train"};
}
#define LF__GSO_FILE_MAX ((int64_t)64 << 20)
#define LF__GSO_MAX_MODELS 100000
#define LF__GSO_MAX_NAME 4096

lf_status lf_gso_save(const lf_gso_set *s, const char *path)
{
    lf__wbuf b = {0};
    int64_t np = lf_gso_n_params(s->kind);
    lf__binfile bf = lf__gso_file();
    lf__bin_begin(&b, &bf);
    lf__w_u32(&b, (uint32_t)s->kind);
    lf__w_u32(&b, LF_GSO_FEAT_DIM);
    lf__w_u32(&b, LF_GSO_H1);
    lf__w_u32(&b, LF_GSO_H2);
    lf__w_u32(&b, (uint32_t)s->n);
    lf__w_u64(&b, (uint64_t)np);
    for (int32_t i = 0; i < s->n; i++) {
        uint32_t len = (uint32_t)strlen(s->names[i]);
        lf__w_u32(&b, len);
        lf__w_bytes(&b, s->names[i], len);
        lf__w_u32(&b, (uint32_t)s->positives[i]);
        const float *p = lf_gso_set_params(s, i);
        for (int64_t j = 0; s->positives[i] > 0 && j < np; j++)
            lf__w_f32(&b, p[j]);
    }
    return lf__bin_commit(&b, path);
}

static lf_status lf__load_image(lf_gso_set *s, const unsigned char *data, size_t len, const char *path)
{
    lf__binfile bf = lf__gso_file();
    lf__rbuf r;
    lf_status st = lf__bin_open(&bf, data, len, path, &r);
    if (st != LF_OK)
        return st;
    uint32_t kind = lf__r_u32(&r), fd = lf__r_u32(&r), h1 = lf__r_u32(&r), h2 = lf__r_u32(&r);
    uint32_t n = lf__r_u32(&r);
    uint64_t np = lf__r_u64(&r);
    if (r.short_)
        return lf_set_error(LF_EPARSE, "%s: truncated GSO weight file (header)", path);
    if (kind > LF_GSO_LR || fd != LF_GSO_FEAT_DIM || h1 != LF_GSO_H1 || h2 != LF_GSO_H2 ||
        np != (uint64_t)lf_gso_n_params((lf_gso_kind)kind))
        return lf_set_error(LF_EINVAL, "%s: model kind %u with dimensions %u/%u/%u and %llu parameters, this "
                            "build has %d/%d/%d", path, (unsigned)kind, (unsigned)fd, (unsigned)h1,
                            (unsigned)h2, (unsigned long long)np, LF_GSO_FEAT_DIM, LF_GSO_H1, LF_GSO_H2);
    if (n > LF__GSO_MAX_MODELS || (uint64_t)n * 9 > len)
        return lf_set_error(LF_EPARSE, "%s: truncated GSO weight file (%u models in %zu bytes)", path,
                            (unsigned)n, len);
    char **names = calloc(n ? n : 1, sizeof *names);
    if (!names)
        return lf_set_error(LF_ENOMEM, "%s: out of memory", path);
    size_t *at = calloc(n ? n : 1, sizeof *at);
    uint32_t *pos = calloc(n ? n : 1, sizeof *pos);
    if (!at || !pos)
        st = lf_set_error(LF_ENOMEM, "%s: out of memory", path);
    for (uint32_t i = 0; i < n && !st; i++) {
        uint32_t l = lf__r_u32(&r);
        if (r.short_ || l == 0 || l > LF__GSO_MAX_NAME || l > len - r.pos) {
            st = lf_set_error(LF_EPARSE, "%s: model %u: bad or truncated rule name", path, (unsigned)i);
            break;
        }
        if (!(names[i] = malloc(l + 1))) {
            st = lf_set_error(LF_ENOMEM, "%s: out of memory", path);
            break;
        }
        lf__r_bytes(&r, names[i], l);
        names[i][l] = '\0';
        for (uint32_t c = 0; c < l && !st; c++)
            if ((unsigned char)names[i][c] < 0x20 || (unsigned char)names[i][c] == 0x7f)
                st = lf_set_error(LF_EPARSE, "%s: model %u: rule name holds a control character", path,
                                  (unsigned)i);
        if (st)
            break;
        pos[i] = lf__r_u32(&r);
        if (pos[i] > (uint32_t)INT32_MAX) {
            st = lf_set_error(LF_EPARSE, "%s: model %u: bad count of training graphs %u", path, (unsigned)i,
                              (unsigned)pos[i]);
            break;
        }
        at[i] = r.pos;
        for (uint64_t j = 0; pos[i] > 0 && j < np; j++)
            (void)lf__r_f32(&r);
        if (r.short_)
            st = lf_set_error(LF_EPARSE, "%s: truncated GSO weight file (model %u)", path, (unsigned)i);
    }
    if (!st)
        st = lf__bin_done(&bf, &r, path, "the last model");
    if (!st)
        st = lf_gso_set_init(s, (lf_gso_kind)kind, (int32_t)n, (const char *const *)names);
    for (uint32_t i = 0; i < n && !st; i++) {
        lf__rbuf q = {data, r.len, at[i], 0};
        float *p = lf_gso_set_params(s, (int32_t)i);
        if (pos[i] == 0)
            lf__gso_never((lf_gso_kind)kind, p);
        for (uint64_t j = 0; pos[i] > 0 && j < np; j++)
            p[j] = lf__r_f32(&q);
        s->positives[i] = (int32_t)pos[i];
    }
    for (uint32_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    free(at);
    free(pos);
    return st;
}

lf_status lf_gso_load_memory(lf_gso_set *s, const void *data, size_t len, const char *origin)
{
    memset(s, 0, sizeof *s);
    lf_status st = lf__load_image(s, (const unsigned char *)data, len, origin);
    if (st)
        lf_gso_set_destroy(s);
    return st;
}

lf_status lf_gso_load(lf_gso_set *s, const char *path)
{
    memset(s, 0, sizeof *s);
    char *data = NULL;
    size_t len = 0;
    lf__binfile bf = lf__gso_file();
    lf_status st = lf__bin_read(&bf, path, LF__GSO_FILE_MAX, &data, &len);
    if (st)
        return st;
    st = lf_gso_load_memory(s, data, len, path);
    free(data);
    return st;
}
