/* Sweep grids: the axes from lists or a JSON grid file (read with jansson),
 * checked names, and the cells in their documented mixed-radix order. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "splitter/proposer_named.h"
#include "models/registry.h"
#include "planner/cost/objective.h"
#include "planner/io/onnx.h"
#include "planner/app/registry.h"
#include "search/partition/search.h"
#include "search/sweep/sweep_internal.h"

static void lf__free_names(char **v, int32_t *n)
{
    for (int32_t i = 0; i < *n; i++)
        free(v[i]);
    *n = 0;
}

static lf_status lf__add_name(char **v, int32_t *n, const char *axis, const char *s)
{
    if (*n >= LF_SWEEP_MAX_ITEMS)
        return lf_set_error(LF_ELIMIT, "more than %d %s", LF_SWEEP_MAX_ITEMS, axis);
    for (int32_t i = 0; i < *n; i++)
        if (!strcmp(v[i], s))
            return lf_set_error(LF_EINVAL, "%s lists '%s' twice", axis, s);
    if (!(v[*n] = strdup(s)))
        return lf_set_error(LF_ENOMEM, "out of memory");
    (*n)++;
    return LF_OK;
}

void lf_sweep_grid_init(lf_sweep_grid *g)
{
    memset(g, 0, sizeof *g);
    lf_hw_default(&g->hw);
    g->budget = 2000;
    g->k = 3;
    g->population = 10;
    g->threads = 1;
    g->exact = 1;
    g->split_gap = 0;
    g->objective = 0;
    lf_sweep_grid_set(g, "models", "mobilenet_v2");
    lf_sweep_grid_set(g, "schemes", "lbdf");
    lf_sweep_grid_set(g, "searches", "ls,rs,nsga2");
    lf_sweep_grid_set(g, "proposers", "none,gnne,pg,rg");
    lf_sweep_grid_set(g, "seeds", "1-3");
    g->models_default = 1;
    g->buffers[0] = g->hw.buffer_bytes;
    g->n_buffers = 1;
    g->buffer_from_hw = 1;
    lf_clear_error();
}

void lf_sweep_grid_destroy(lf_sweep_grid *g)
{
    lf__free_names(g->models, &g->n_models);
    lf__free_names(g->onnx, &g->n_onnx);
    lf__free_names(g->schemes, &g->n_schemes);
    lf__free_names(g->searches, &g->n_searches);
    lf__free_names(g->proposers, &g->n_proposers);
    free(g->hw_path);
    g->hw_path = NULL;
    free(g->input_shape);
    g->input_shape = NULL;
}

/* A budgeted search by name or alias ("ls", "rs", ...), canonical; NULL
 * when unknown. */
static const char *lf__search_name(const char *s)
{
    const lf_search_entry *e = lf_search_find(s);
    return e && e->kind == LF_SEARCH_KIND_BUDGET ? e->name : NULL;
}

static int lf__model_known(const char *name)
{
    int32_t n = 0;
    const lf_model_entry *m = lf_models(&n);
    for (int32_t i = 0; i < n; i++)
        if (!strcmp(m[i].name, name))
            return 1;
    return 0;
}

/* One seed or a range "a-b". */
static lf_status lf__add_seeds(lf_sweep_grid *g, const char *item)
{
    char *end;
    errno = 0;
    unsigned long long a = strtoull(item, &end, 10), b = a;
    if (end != item && *end == '-' && isdigit((unsigned char)end[1]))
        b = strtoull(end + 1, &end, 10);
    if (end == item || *end || errno || !isdigit((unsigned char)item[0]) || b < a)
        return lf_set_error(LF_EINVAL, "seeds: '%s' is not a seed or a range like 1-10", item);
    for (unsigned long long s = a; s <= b; s++) {
        if (g->n_seeds >= LF_SWEEP_MAX_ITEMS)
            return lf_set_error(LF_ELIMIT, "more than %d seeds", LF_SWEEP_MAX_ITEMS);
        for (int32_t i = 0; i < g->n_seeds; i++)
            if (g->seeds[i] == s)
                return lf_set_error(LF_EINVAL, "seeds list %llu twice", s);
        g->seeds[g->n_seeds++] = (uint64_t)s;
    }
    return LF_OK;
}

/* One item of an axis, checked. */
static lf_status lf__add_item(lf_sweep_grid *g, const char *axis, const char *item)
{
    if (!strcmp(axis, "models")) {
        if (!lf__model_known(item))
            return lf_set_error(LF_EINVAL, "unknown model '%s' (see `fusionplan models`)", item);
        return lf__add_name(g->models, &g->n_models, axis, item);
    }
    if (!strcmp(axis, "onnx")) {
        FILE *f = fopen(item, "rb");
        if (!f)
            return lf_set_error(LF_EIO, "onnx: cannot open '%s': %s", item, strerror(errno));
        fclose(f);
        return lf__add_name(g->onnx, &g->n_onnx, axis, item);
    }
    if (!strcmp(axis, "schemes")) {
        if (!lf_name_known(LF_NAMES_SCHEME, item))
            return lf_set_error(LF_EINVAL, "unknown scheme '%s' (use lbdf or brr)", item);
        return lf__add_name(g->schemes, &g->n_schemes, axis, item);
    }
    if (!strcmp(axis, "searches")) {
        const char *s = lf__search_name(item);
        char list[160];
        if (!s)
            return lf_set_error(LF_EINVAL, "unknown search '%s' (use %s)", item,
                                lf_search_aliases_format(list, sizeof list));
        return lf__add_name(g->searches, &g->n_searches, axis, s);
    }
    if (!strcmp(axis, "proposers")) {
        char list[256];
        if (strcmp(item, "none") && !lf_named_proposer_known(item))
            return lf_set_error(LF_EINVAL, "unknown proposer '%s' (use none, %s)", item,
                                lf_names_format(LF_NAMES_PROPOSER, list, sizeof list));
        return lf__add_name(g->proposers, &g->n_proposers, axis, item);
    }
    if (!strcmp(axis, "buffers")) {
        int64_t b;
        if (lf_hw_parse_size(item, &b) != LF_OK || b <= 0)
            return lf_set_error(LF_EINVAL, "buffers: '%s' is not a size like 128KB", item);
        if (g->n_buffers >= LF_SWEEP_MAX_ITEMS)
            return lf_set_error(LF_ELIMIT, "more than %d buffers", LF_SWEEP_MAX_ITEMS);
        for (int32_t i = 0; i < g->n_buffers; i++)
            if (g->buffers[i] == b)
                return lf_set_error(LF_EINVAL, "buffers list %s twice", item);
        g->buffers[g->n_buffers++] = b;
        return LF_OK;
    }
    if (!strcmp(axis, "seeds"))
        return lf__add_seeds(g, item);
    return lf_set_error(LF_EINVAL, "unknown sweep axis '%s'", axis);
}

static lf_status lf__clear_axis(lf_sweep_grid *g, const char *axis)
{
    if (!strcmp(axis, "models")) {
        lf__free_names(g->models, &g->n_models);
        g->models_default = 0;
    } else if (!strcmp(axis, "onnx")) {
        lf__free_names(g->onnx, &g->n_onnx);
        if (g->models_default)
            lf__free_names(g->models, &g->n_models);
    } else if (!strcmp(axis, "schemes"))
        lf__free_names(g->schemes, &g->n_schemes);
    else if (!strcmp(axis, "searches"))
        lf__free_names(g->searches, &g->n_searches);
    else if (!strcmp(axis, "proposers"))
        lf__free_names(g->proposers, &g->n_proposers);
    else if (!strcmp(axis, "buffers")) {
        g->n_buffers = 0;
        g->buffer_from_hw = 0;
    }
    else if (!strcmp(axis, "seeds"))
        g->n_seeds = 0;
    else
        return lf_set_error(LF_EINVAL, "unknown sweep axis '%s'", axis);
    return LF_OK;
}

lf_status lf_sweep_grid_set(lf_sweep_grid *g, const char *axis, const char *list)
{
    lf_status st = lf__clear_axis(g, axis);
    if (st != LF_OK)
        return st;
    char *copy = strdup(list);
    if (!copy)
        return lf_set_error(LF_ENOMEM, "out of memory");
    for (char *save = NULL, *tok = strtok_r(copy, ",", &save); tok && st == LF_OK;
         tok = strtok_r(NULL, ",", &save))
        st = lf__add_item(g, axis, tok);
    free(copy);
    int32_t n = !strcmp(axis, "models") ? g->n_models : !strcmp(axis, "onnx") ? g->n_onnx
              : !strcmp(axis, "schemes") ? g->n_schemes
              : !strcmp(axis, "searches") ? g->n_searches : !strcmp(axis, "proposers") ? g->n_proposers
              : !strcmp(axis, "buffers") ? g->n_buffers : g->n_seeds;
    if (st == LF_OK && n == 0)
        st = lf_set_error(LF_EINVAL, "%s: empty list", axis);
    return st;
}

lf_status lf_sweep_grid_set_hw(lf_sweep_grid *g, const char *path)
{
    lf_hw hw;
    lf_status st = lf_hw_load(&hw, path);
    if (st != LF_OK)
        return st;
    char *p = strdup(path);
    if (!p)
        return lf_set_error(LF_ENOMEM, "out of memory");
    free(g->hw_path);
    g->hw_path = p;
    g->hw = hw;
    if (g->buffer_from_hw)
        g->buffers[0] = hw.buffer_bytes;
    return LF_OK;
}

lf_status lf_sweep_grid_set_input_shape(lf_sweep_grid *g, const char *spec)
{
    lf_onnx_input_shape shapes[16];
    int32_t n = 0;
    lf_status st = lf_sweep_onnx_shapes(spec, shapes, 16, &n);
    if (st != LF_OK)
        return st;
    char *copy = strdup(spec);
    if (!copy)
        return lf_set_error(LF_ENOMEM, "out of memory");
    free(g->input_shape);
    g->input_shape = copy;
    return LF_OK;
}

lf_status lf_sweep_onnx_shapes(const char *spec, lf_onnx_input_shape *shapes, int32_t max, int32_t *n)
{
    char buf[1024];
    *n = 0;
    if (strlen(spec) >= sizeof buf)
        return lf_set_error(LF_EINVAL, "input shape: longer than %zu characters", sizeof buf - 1);
    snprintf(buf, sizeof buf, "%s", spec);
    char *save = NULL;
    for (char *tok = strtok_r(buf, ";", &save); tok; tok = strtok_r(NULL, ";", &save)) {
        if (*n == max)
            return lf_set_error(LF_EINVAL, "input shape: more than %d inputs", (int)max);
        lf_status st = lf_onnx_parse_input_shape(tok, &shapes[*n]);
        if (st != LF_OK)
            return st;
        (*n)++;
    }
    if (*n == 0)
        return lf_set_error(LF_EINVAL, "input shape: empty");
    return LF_OK;
}

/* An axis member of the grid file: an array of strings (or numbers for
 * buffers and seeds), or for seeds {"first": S, "count": K}. */
static lf_status lf__load_axis(lf_sweep_grid *g, const char *path, const char *axis, json_t *v)
{
    lf_status st = lf__clear_axis(g, axis);
    if (st != LF_OK)
        return st;
    if (!strcmp(axis, "seeds") && json_is_object(v)) {
        json_t *first = json_object_get(v, "first"), *count = json_object_get(v, "count");
        if (!json_is_integer(first) || !json_is_integer(count) || json_integer_value(first) < 0 ||
            json_integer_value(count) < 1 || json_object_size(v) != 2)
            return lf_set_error(LF_EPARSE, "%s: \"seeds\": expected {\"first\": S, \"count\": K}", path);
        char range[64];
        snprintf(range, sizeof range, "%" PRId64 "-%" PRId64, (int64_t)json_integer_value(first),
                 (int64_t)(json_integer_value(first) + json_integer_value(count) - 1));
        return lf__add_seeds(g, range);
    }
    if (!json_is_array(v) || json_array_size(v) == 0)
        return lf_set_error(LF_EPARSE, "%s: \"%s\": expected a non-empty array", path, axis);
    size_t i;
    json_t *e;
    json_array_foreach(v, i, e) {
        char buf[64];
        const char *item;
        if (json_is_string(e))
            item = json_string_value(e);
        else if (json_is_integer(e) && (!strcmp(axis, "buffers") || !strcmp(axis, "seeds")) &&
                 json_integer_value(e) >= 0) {
            snprintf(buf, sizeof buf, "%" PRId64 "%s", (int64_t)json_integer_value(e),
                     strcmp(axis, "buffers") ? "" : "B");
            item = buf;
        } else
            return lf_set_error(LF_EPARSE, "%s: \"%s\"[%zu]: expected a %s", path, axis, i,
                                strcmp(axis, "buffers") && strcmp(axis, "seeds") ? "string"
                                                                                  : "string or integer");
        if ((st = lf__add_item(g, axis, item)) != LF_OK) {
            char msg[512];
            snprintf(msg, sizeof msg, "%s", lf_last_error());
            return lf_set_error(st, "%s: \"%s\"[%zu]: %s", path, axis, i, msg);
        }
    }
    return LF_OK;
}

static lf_status lf__load_int(const char *path, const char *name, json_t *v, int64_t min, int64_t max,
                              int64_t *out)
{
    if (!json_is_integer(v) || json_integer_value(v) < min || json_integer_value(v) > max)
        return lf_set_error(LF_EPARSE, "%s: \"%s\": expected an integer in [%" PRId64 ", %" PRId64 "]",
                            path, name, min, max);
    *out = (int64_t)json_integer_value(v);
    return LF_OK;
}

lf_status lf_sweep_grid_load(lf_sweep_grid *g, const char *path)
{
    json_error_t err;
    json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &err);
    if (!root) {
        FILE *f = fopen(path, "rb");
        if (!f)
            return lf_set_error(LF_EIO, "%s: cannot open the grid file: %s", path, strerror(errno));
        fclose(f);
        return lf_set_error(LF_EPARSE, "%s:%d: %s", path, err.line, err.text);
    }
    lf_status st = LF_OK;
    if (!json_is_object(root))
        st = lf_set_error(LF_EPARSE, "%s: a grid file is one JSON object", path);
    const char *name;
    json_t *v;
    json_object_foreach(root, name, v) {
        if (st != LF_OK)
            break;
        int64_t x = 0;
        if (!strcmp(name, "models") || !strcmp(name, "onnx") || !strcmp(name, "schemes") || !strcmp(name, "buffers") ||
            !strcmp(name, "searches") || !strcmp(name, "proposers") || !strcmp(name, "seeds"))
            st = lf__load_axis(g, path, name, v);
        else if (!strcmp(name, "budget")) {
            if ((st = lf__load_int(path, name, v, 1, 100000000, &x)) == LF_OK)
                g->budget = x;
        } else if (!strcmp(name, "k")) {
            if ((st = lf__load_int(path, name, v, 0, 1000000, &x)) == LF_OK)
                g->k = (int32_t)x;
        } else if (!strcmp(name, "population")) {
            if ((st = lf__load_int(path, name, v, 1, 100000, &x)) == LF_OK)
                g->population = (int32_t)x;
        } else if (!strcmp(name, "threads")) {
            if ((st = lf__load_int(path, name, v, 0, 1024, &x)) == LF_OK)
                g->threads = (int32_t)x;
        } else if (!strcmp(name, "exact") || !strcmp(name, "split_gap")) {
            if (!json_is_boolean(v))
                st = lf_set_error(LF_EPARSE, "%s: \"%s\": expected true or false", path, name);
            else if (!strcmp(name, "exact"))
                g->exact = json_is_true(v);
            else
                g->split_gap = json_is_true(v);
        } else if (!strcmp(name, "objective")) {
            int o = json_is_string(v) ? (int)lf_plan_objective_from_name(json_string_value(v)) : -1;
            if (o < 0 || o >= LF_PLAN_OBJ_COUNT)
                st = lf_set_error(LF_EPARSE, "%s: \"objective\": expected \"dram\", \"energy\" or \"latency\"", path);
            else
                g->objective = o;
        } else if (!strcmp(name, "input_shape")) {
            if (!json_is_string(v))
                st = lf_set_error(LF_EPARSE, "%s: \"input_shape\": expected a string like \"x=1,3,224,224\"", path);
            else if ((st = lf_sweep_grid_set_input_shape(g, json_string_value(v))) != LF_OK) {
                char msg[512];
                snprintf(msg, sizeof msg, "%s", lf_last_error());
                st = lf_set_error(st, "%s: \"input_shape\": %s", path, msg);
            }
        } else if (!strcmp(name, "hw")) {
            if (!json_is_string(v))
                st = lf_set_error(LF_EPARSE, "%s: \"hw\": expected a file name", path);
            else
                st = lf_sweep_grid_set_hw(g, json_string_value(v));
        } else
            st = lf_set_error(LF_EPARSE, "%s: unknown member \"%s\" (axes: models, onnx, schemes, buffers, "
                                         "searches, proposers, seeds; budget, k, population, threads, "
                                         "exact, split_gap, objective, hw, input_shape)", path, name);
    }
    json_decref(root);
    return st;
}

int32_t lf_sweep_n_networks(const lf_sweep_grid *g)
{
    return g->n_models + g->n_onnx;
}

int64_t lf_sweep_n_cells(const lf_sweep_grid *g)
{
    return (int64_t)lf_sweep_n_networks(g) * g->n_schemes * g->n_buffers * g->n_searches * g->n_proposers *
           g->n_seeds;
}

lf_status lf_sweep_cell_get(const lf_sweep_grid *g, int64_t i, lf_sweep_cell *out)
{
    if (i < 0 || i >= lf_sweep_n_cells(g))
        return lf_set_error(LF_EINVAL, "sweep: cell %" PRId64 " is outside the grid's %" PRId64 " cells",
                            i, lf_sweep_n_cells(g));
    out->index = i;
    int64_t r = i;
    out->seed = g->seeds[r % g->n_seeds];
    r /= g->n_seeds;
    out->proposer = g->proposers[r % g->n_proposers];
    r /= g->n_proposers;
    out->search = g->searches[r % g->n_searches];
    r /= g->n_searches;
    out->buffer = g->buffers[r % g->n_buffers];
    r /= g->n_buffers;
    out->scheme = g->schemes[r % g->n_schemes];
    r /= g->n_schemes;
    out->onnx = r >= g->n_models;
    out->model = out->onnx ? g->onnx[r - g->n_models] : g->models[r];
    return LF_OK;
}

void lf_sweep_cell_key(const lf_sweep_cell *c, char *buf, size_t len)
{
    snprintf(buf, len, "%s/%s/%" PRId64 "/%s/%s/%" PRIu64, c->model, c->scheme, c->buffer, c->search,
             c->proposer, c->seed);
}

int32_t lf_sweep_curve_points(int64_t budget, int64_t *points)
{
    /* As compare: at most 100 evenly spaced points, the last at the budget. */
    int64_t step = (budget + 99) / 100;
    int32_t n = (int32_t)((budget + step - 1) / step);
    for (int32_t p = 0; points && p < n; p++)
        points[p] = p + 1 < n ? (p + 1) * step : budget;
    return n;
}
