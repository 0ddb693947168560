/* Reading a results file back (for sweep-report): every line parsed with
 * jansson into an lf_sweep_record. */
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "planner/util/fileio.h"
#include "search/sweep/sweep.h"

void lf_sweep_records_free(lf_sweep_record *r, int64_t n)
{
    for (int64_t i = 0; r && i < n; i++) {
        free(r[i].key);
        free(r[i].model);
        free(r[i].scheme);
        free(r[i].search);
        free(r[i].proposer);
        free(r[i].error);
        free(r[i].graph_hash);
        free(r[i].version);
        free(r[i].curve);
    }
    free(r);
}

/* Field readers: each records the first missing or mistyped member. */
typedef struct lf__reader {
    json_t *obj;
    const char *missing;
} lf__reader;

static int64_t lf__int(lf__reader *rd, json_t *obj, const char *name)
{
    json_t *v = json_object_get(obj, name);
    if (!json_is_integer(v)) {
        if (!rd->missing)
            rd->missing = name;
        return 0;
    }
    return (int64_t)json_integer_value(v);
}

/* A number or null (NaN). */
static double lf__num(lf__reader *rd, json_t *obj, const char *name)
{
    json_t *v = json_object_get(obj, name);
    if (json_is_null(v))
        return NAN;
    if (!json_is_number(v)) {
        if (!rd->missing)
            rd->missing = name;
        return NAN;
    }
    return json_number_value(v);
}

/* A string (copied), or NULL for null or absent when optional. */
static char *lf__str(lf__reader *rd, const char *name, int optional)
{
    json_t *v = json_object_get(rd->obj, name);
    if (json_is_string(v))
        return strdup(json_string_value(v));
    if (!optional && !rd->missing)
        rd->missing = name;
    return NULL;
}

static lf_status lf__record(json_t *j, lf_sweep_record *r, const char *path, int64_t lineno)
{
    lf__reader rd = {j, NULL};
    memset(r, 0, sizeof *r);
    r->cell = lf__int(&rd, j, "cell");
    r->key = lf__str(&rd, "key", 0);
    r->model = lf__str(&rd, "model", 0);
    r->scheme = lf__str(&rd, "scheme", 0);
    r->search = lf__str(&rd, "search", 0);
    r->proposer = lf__str(&rd, "proposer", 0);
    r->version = lf__str(&rd, "version", 0);
    r->graph_hash = lf__str(&rd, "graph_hash", 1);
    r->error = lf__str(&rd, "error", 1);
    r->onnx = json_is_true(json_object_get(j, "onnx"));
    r->buffer = lf__int(&rd, j, "buffer_bytes");
    r->budget = lf__int(&rd, j, "budget");
    r->seed = (uint64_t)lf__int(&rd, j, "seed");
    r->k = (int32_t)lf__int(&rd, j, "k");
    r->population = (int32_t)lf__int(&rd, j, "population");
    r->threads = (int32_t)lf__int(&rd, j, "threads");
    r->wall_s = lf__num(&rd, j, "wall_s");
    r->rectify_rate = r->split_gap = r->exact_wall_s = NAN;
    if (!r->error) {
        r->ops = (int32_t)lf__int(&rd, j, "ops");
        r->unfusable = (int32_t)lf__int(&rd, j, "unfusable");
        r->dram_fusable = lf__int(&rd, j, "dram_fusable");
        r->dram_all = lf__int(&rd, j, "dram_all");
        r->mbu = lf__int(&rd, j, "mbu");
        r->groups = (int32_t)lf__int(&rd, j, "groups");
        r->invalid_groups = lf__int(&rd, j, "invalid_groups");
        r->rectify_rate = lf__num(&rd, j, "rectify_rate");
        r->split_gap = lf__num(&rd, j, "split_gap");
        r->exact_wall_s = lf__num(&rd, j, "exact_wall_s");
        json_t *e = json_object_get(j, "exact");
        if (json_is_object(e)) {
            r->has_exact = 1;
            r->exact_dram_fusable = lf__int(&rd, e, "dram_fusable");
            r->exact_dram_all = lf__int(&rd, e, "dram_all");
            r->exact_mbu = lf__int(&rd, e, "mbu");
            r->exact_groups = (int32_t)lf__int(&rd, e, "groups");
        } else if (!json_is_null(e) && !rd.missing)
            rd.missing = "exact";
        json_t *curve = json_object_get(j, "curve");
        if (!json_is_array(curve) || (int64_t)json_array_size(curve) != lf_sweep_curve_points(r->budget, NULL)) {
            if (!rd.missing)
                rd.missing = "curve";
        } else {
            r->n_curve = (int32_t)json_array_size(curve);
            if (!(r->curve = malloc((size_t)r->n_curve * sizeof *r->curve)))
                return lf_set_error(LF_ENOMEM, "out of memory");
            for (int32_t p = 0; p < r->n_curve; p++) {
                json_t *v = json_array_get(curve, (size_t)p);
                if (!json_is_integer(v) && !rd.missing)
                    rd.missing = "curve";
                r->curve[p] = json_is_integer(v) ? (int64_t)json_integer_value(v) : 0;
            }
        }
    }
    if (rd.missing)
        return lf_set_error(LF_EPARSE, "%s:%" PRId64 ": missing or mistyped \"%s\"", path, lineno,
                            rd.missing);
    if (r->budget < 1 || r->cell < 0 || r->buffer <= 0)
        return lf_set_error(LF_EPARSE, "%s:%" PRId64 ": \"budget\", \"cell\" or \"buffer_bytes\" out of "
                                       "range", path, lineno);
    return LF_OK;
}

lf_status lf_sweep_records_load(const char *path, lf_sweep_record **out, int64_t *n, int64_t *truncated)
{
    char *data = NULL;
    long len = 0;
    *out = NULL;
    *n = 0;
    *truncated = 0;
    lf_status st = lf_read_file(path, &data, &len);
    if (st != LF_OK)
        return st;
    int64_t cap = 0, lineno = 1;
    lf_sweep_record *recs = NULL;
    for (long pos = 0; pos < len && st == LF_OK; lineno++) {
        char *nl = memchr(data + pos, '\n', (size_t)(len - pos));
        long end = nl ? (long)(nl - data) : len;
        json_error_t err;
        json_t *j = nl ? json_loadb(data + pos, (size_t)(end - pos), 0, &err) : NULL;
        if (!j || !json_is_object(j)) {
            json_decref(j);
            if (!nl || end + 1 == len) {
                *truncated = 1; /* the last line of a killed run */
                break;
            }
            st = lf_set_error(LF_EPARSE, "%s:%" PRId64 ": not a results line%s%s", path, lineno,
                              j ? "" : ": ", j ? "" : err.text);
            break;
        }
        if (*n == cap) {
            cap = cap ? 2 * cap : 64;
            lf_sweep_record *nr = realloc(recs, (size_t)cap * sizeof *nr);
            if (!nr) {
                json_decref(j);
                st = lf_set_error(LF_ENOMEM, "out of memory");
                break;
            }
            recs = nr;
        }
        st = lf__record(j, &recs[*n], path, lineno);
        (*n)++;
        json_decref(j);
        pos = end + 1;
    }
    free(data);
    if (st != LF_OK) {
        lf_sweep_records_free(recs, *n);
        *n = 0;
        return st;
    }
    *out = recs;
    return LF_OK;
}
