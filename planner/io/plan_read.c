/* Reading a plan file (docs/plan-format.md) into an lf_plan_doc: JSON with
 * jansson, XML through plan_xml_read.c into the same tree. Every member the
 * writer emits and validate needs is required and range-checked, and a
 * failure names the file and the field. */
#include <inttypes.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "planner/io/onnx_proto.h"
#include "planner/io/plan_read.h"

#include "planner/cost/objective.h"
#include "planner/io/plan_read_internal.h"
#include "planner/util/fileio.h"

/* Plan files above this size are refused before parsing (the largest
 * built-in network's plan is under 1 MB). */
#define LF__PLAN_FILE_MAX ((int64_t)256 << 20)
/* Op counts above this are refused: the graph builder's own limit is lower. */
#define LF__PLAN_MAX_OPS 10000000

typedef struct lf__reader {
    const char *origin;
    char field[128]; /* "groups[3].ops" */
} lf__reader;

static lf_status lf__bad(const lf__reader *r, const char *field, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static lf_status lf__bad(const lf__reader *r, const char *field, const char *fmt, ...)
{
    char why[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    return lf_set_error(LF_EPARSE, "%s: %s: %s", r->origin, field, why);
}

/* The member `key` of obj, which must exist; field is where obj sits. */
static json_t *lf__member(const lf__reader *r, json_t *obj, const char *where, const char *key,
                          lf_status *st)
{
    json_t *v = json_object_get(obj, key);
    if (!v && *st == LF_OK) {
        char field[160];
        snprintf(field, sizeof field, "%s%s%s", where, where[0] ? "." : "", key);
        *st = lf__bad(r, field, "missing");
    }
    return v;
}

static lf_status lf__int(const lf__reader *r, json_t *obj, const char *where, const char *key,
                         int64_t min, int64_t max, int64_t *out)
{
    lf_status st = LF_OK;
    json_t *v = lf__member(r, obj, where, key, &st);
    if (st != LF_OK)
        return st;
    if (!json_is_integer(v) || json_integer_value(v) < min || json_integer_value(v) > max) {
        char field[160];
        snprintf(field, sizeof field, "%s%s%s", where, where[0] ? "." : "", key);
        return lf__bad(r, field, "expected an integer in [%" PRId64 ", %" PRId64 "]", min, max);
    }
    *out = (int64_t)json_integer_value(v);
    return LF_OK;
}

static lf_status lf__i32(const lf__reader *r, json_t *obj, const char *where, const char *key,
                         int64_t min, int64_t max, int32_t *out)
{
    int64_t x = 0;
    lf_status st = lf__int(r, obj, where, key, min, max, &x);
    if (st == LF_OK)
        *out = (int32_t)x;
    return st;
}

/* A number, or null (for "not given": stored as zero or `null_value`). */
static lf_status lf__num(const lf__reader *r, json_t *obj, const char *where, const char *key,
                         double null_value, double *out)
{
    lf_status st = LF_OK;
    json_t *v = lf__member(r, obj, where, key, &st);
    if (st != LF_OK)
        return st;
    if (json_is_null(v)) {
        *out = null_value;
        return LF_OK;
    }
    if (!json_is_number(v) || json_number_value(v) < 0) {
        char field[160];
        snprintf(field, sizeof field, "%s%s%s", where, where[0] ? "." : "", key);
        return lf__bad(r, field, "expected a number >= 0 or null");
    }
    *out = json_number_value(v);
    return LF_OK;
}

static lf_status lf__str(const lf__reader *r, json_t *obj, const char *where, const char *key,
                         char *out, size_t cap)
{
    lf_status st = LF_OK;
    json_t *v = lf__member(r, obj, where, key, &st);
    if (st != LF_OK)
        return st;
    if (!json_is_string(v) || json_string_length(v) >= cap || !json_string_value(v)[0] ||
        strlen(json_string_value(v)) != json_string_length(v)) {
        char field[160];
        snprintf(field, sizeof field, "%s%s%s", where, where[0] ? "." : "", key);
        return lf__bad(r, field, "expected a non-empty string of at most %zu bytes", cap - 1);
    }
    memcpy(out, json_string_value(v), json_string_length(v) + 1);
    return LF_OK;
}

static lf_status lf__bool(const lf__reader *r, json_t *obj, const char *where, const char *key,
                          int32_t *out)
{
    lf_status st = LF_OK;
    json_t *v = lf__member(r, obj, where, key, &st);
    if (st != LF_OK)
        return st;
    if (!json_is_boolean(v)) {
        char field[160];
        snprintf(field, sizeof field, "%s.%s", where, key);
        return lf__bad(r, field, "expected true or false");
    }
    *out = json_is_true(v);
    return LF_OK;
}

/* An object member that must be an object. */
static json_t *lf__object(const lf__reader *r, json_t *obj, const char *key, lf_status *st)
{
    json_t *v = lf__member(r, obj, "", key, st);
    if (*st == LF_OK && !json_is_object(v))
        *st = lf__bad(r, key, "expected an object");
    return v;
}

static json_t *lf__array(const lf__reader *r, json_t *obj, const char *where, const char *key,
                         lf_status *st)
{
    json_t *v = lf__member(r, obj, where, key, st);
    if (*st == LF_OK && !json_is_array(v)) {
        char field[160];
        snprintf(field, sizeof field, "%s%s%s", where, where[0] ? "." : "", key);
        *st = lf__bad(r, field, "expected an array");
    }
    return v;
}

/* The metric members of obj (the "metrics" object or a Pareto entry). */
static lf_status lf__metrics(const lf__reader *r, json_t *m, const char *where, int32_t n_ops,
                             lf_plan_metrics *pm)
{
    lf_status st;
    if ((st = lf__int(r, m, where, "dram_fusable", 0, INT64_MAX, &pm->dram_fusable)) ||
        (st = lf__int(r, m, where, "dram_all", 0, INT64_MAX, &pm->dram_all)) ||
        (st = lf__int(r, m, where, "mbu", 0, INT64_MAX, &pm->mbu)) ||
        (st = lf__i32(r, m, where, "groups", 0, n_ops, &pm->n_groups)) ||
        (st = lf__i32(r, m, where, "unfusable", 0, n_ops, &pm->n_unfusable)) ||
        (st = lf__i32(r, m, where, "invalid", 0, n_ops, &pm->n_invalid)) ||
        (st = lf__num(r, m, where, "dram_time_s", 0, &pm->dram_time_s)) ||
        (st = lf__num(r, m, where, "energy_j", -1, &pm->energy_j)))
        return st;
    /* Energy and latency (DESIGN §19): optional, so plans written before
     * them still read; has_energy / has_latency say the file gives them. */
    json_t *e = json_object_get(m, "energy_pj");
    if (e && !json_is_null(e)) {
        char w[96];
        snprintf(w, sizeof w, "%s.energy_pj", where);
        if (!json_is_object(e))
            return lf__bad(r, w, "expected an object with dram, sram, mac and total, or null");
        pm->has_energy = 1;
        if ((st = lf__num(r, e, w, "dram", 0, &pm->perf.dram_pj)) ||
            (st = lf__num(r, e, w, "sram", 0, &pm->perf.sram_pj)) ||
            (st = lf__num(r, e, w, "mac", 0, &pm->perf.mac_pj)) ||
            (st = lf__num(r, e, w, "total", 0, &pm->perf.total_pj)))
            return st;
    }
    json_t *l = json_object_get(m, "latency_s");
    if (l && !json_is_null(l)) {
        pm->has_latency = 1;
        if ((st = lf__num(r, m, where, "latency_s", 0, &pm->perf.latency_s)) ||
            (json_object_get(m, "latency_serial_s") &&
             (st = lf__num(r, m, where, "latency_serial_s", 0, &pm->perf.latency_serial_s))))
            return st;
    }
    return LF_OK;
}

static lf_status lf__header(const lf__reader *r, json_t *root, lf_plan_doc *d)
{
    lf_status st = LF_OK;
    json_t *fmt = lf__member(r, root, "", "format", &st);
    if (st == LF_OK && (!json_is_string(fmt) || strcmp(json_string_value(fmt), "fusionplan-plan")))
        return lf__bad(r, "format", "not a fusionplan plan (expected \"fusionplan-plan\")");
    int64_t version = 0;
    if (st == LF_OK && (st = lf__int(r, root, "", "version", 0, INT32_MAX, &version)) == LF_OK &&
        version != 1)
        return lf__bad(r, "version", "version %" PRId64 " is not one this reader knows (1)",
                       version);
    json_t *model = lf__object(r, root, "model", &st);
    json_t *hw = lf__object(r, root, "hardware", &st);
    if (st != LF_OK)
        return st;
    if ((st = lf__str(r, model, "model", "name", d->model, sizeof d->model)) ||
        (st = lf__str(r, model, "model", "graph", d->graph, sizeof d->graph)) ||
        (st = lf__str(r, model, "model", "graph_hash", d->graph_hash, sizeof d->graph_hash)) ||
        (st = lf__i32(r, model, "model", "ops", 1, LF__PLAN_MAX_OPS, &d->n_ops)) ||
        (st = lf__i32(r, model, "model", "compute_ops", 0, d->n_ops, &d->compute_ops)))
        return st;
    if (strspn(d->graph_hash, "0123456789abcdef") != 16)
        return lf__bad(r, "model.graph_hash", "expected 16 lowercase hex digits");
    lf_hw_default(&d->hw);
    snprintf(d->hw.source, sizeof d->hw.source, "%s", r->origin);
    if ((st = lf__str(r, hw, "hardware", "name", d->hw.name, sizeof d->hw.name)) ||
        (st = lf__int(r, hw, "hardware", "buffer_bytes", 1, (int64_t)1 << 40, &d->hw.buffer_bytes)) ||
        (st = lf__i32(r, hw, "hardware", "act_bytes", 1, 8, &d->hw.act_bytes)) ||
        (st = lf__i32(r, hw, "hardware", "weight_bytes", 1, 8, &d->hw.weight_bytes)) ||
        (st = lf__num(r, hw, "hardware", "dram_bandwidth", d->hw.dram_bandwidth,
                      &d->hw.dram_bandwidth)) ||
        (st = lf__num(r, hw, "hardware", "dram_pj_per_byte", 0, &d->hw.dram_pj_per_byte)) ||
        (st = lf__num(r, hw, "hardware", "peak_macs", 0, &d->hw.peak_macs)))
        return st;
    /* The energy figures the plan was priced with (defaults resolved), so
     * that validate prices it alike; absent in older plans. */
    if (json_object_get(hw, "sram_pj_per_byte") && !json_is_null(json_object_get(hw, "sram_pj_per_byte"))) {
        d->hw.has_energy = 1;
        if ((st = lf__num(r, hw, "hardware", "sram_pj_per_byte", 0, &d->hw.sram_pj_per_byte)) ||
            (json_object_get(hw, "mac_pj") &&
             (st = lf__num(r, hw, "hardware", "mac_pj", 0, &d->hw.mac_pj))))
            return st;
    }
    if (json_object_get(hw, "attention")) {
        int32_t on = 1;
        if ((st = lf__bool(r, hw, "hardware", "attention", &on)))
            return st;
        d->hw.no_attention = !on;
    }
    if (!(d->hw.dram_bandwidth > 0))
        return lf__bad(r, "hardware.dram_bandwidth", "expected a bandwidth > 0");
    if ((st = lf__str(r, root, "", "scheme", d->scheme, sizeof d->scheme)) ||
        (st = lf__int(r, root, "", "beta", 1, (int64_t)1 << 40, &d->beta)))
        return st;
    /* Written only when not the default (plans of DRAM read as before). */
    snprintf(d->objective, sizeof d->objective, "dram");
    if (json_object_get(root, "objective") &&
        ((st = lf__str(r, root, "", "objective", d->objective, sizeof d->objective)) ||
         lf_plan_objective_from_name(d->objective) == LF_PLAN_OBJ_COUNT))
        return st ? st : lf__bad(r, "objective", "expected dram, energy or latency");
    json_t *m = lf__object(r, root, "metrics", &st);
    if (st != LF_OK)
        return st;
    return lf__metrics(r, m, "metrics", d->n_ops, &d->metrics);
    return LF_OK;
}

/* An array of op ids, each in [0, n_ops). */
static lf_status lf__ids(const lf__reader *r, json_t *arr, const char *field, int32_t n_ops,
                         int32_t min, int32_t *out)
{
    for (size_t i = 0; i < json_array_size(arr); i++) {
        json_t *v = json_array_get(arr, i);
        if (!json_is_integer(v) || json_integer_value(v) < min || json_integer_value(v) >= n_ops) {
            char f[160];
            snprintf(f, sizeof f, "%s[%zu]", field, i);
            return lf__bad(r, f, "expected %s in [%d, %d)", min < 0 ? "a group index" : "an op id",
                           (int)min, (int)n_ops);
        }
        out[i] = (int32_t)json_integer_value(v);
    }
    return LF_OK;
}

/* The optional Pareto front: each entry's metrics and group_of. */
static lf_status lf__pareto(const lf__reader *r, json_t *root, lf_plan_doc *d)
{
    json_t *front = json_object_get(root, "pareto");
    if (!front)
        return LF_OK;
    if (!json_is_array(front) || json_array_size(front) > (size_t)d->n_ops + 1000)
        return lf__bad(r, "pareto", "expected an array of at most %d plans", (int)d->n_ops + 1000);
    size_t n = json_array_size(front);
    if (!(d->pareto = calloc(n + 1, sizeof *d->pareto)))
        return lf_set_error(LF_ENOMEM, "%s: out of memory reading the plan", r->origin);
    lf_status st = LF_OK;
    for (size_t i = 0; i < n; i++) {
        json_t *e = json_array_get(front, i);
        char where[64];
        snprintf(where, sizeof where, "pareto[%zu]", i);
        if (!json_is_object(e))
            return lf__bad(r, where, "expected an object");
        lf_plan_doc_point *pt = &d->pareto[i];
        json_t *go = lf__array(r, e, where, "group_of", &st);
        if (st != LF_OK || (st = lf__metrics(r, e, where, d->n_ops, &pt->metrics)) != LF_OK)
            return st;
        char field[80];
        snprintf(field, sizeof field, "%s.group_of", where);
        if (json_array_size(go) != (size_t)d->n_ops)
            return lf__bad(r, field, "has %zu entries, model.ops is %d", json_array_size(go),
                           (int)d->n_ops);
        if ((st = lf_plan_init(&pt->plan, d->n_ops)) != LF_OK)
            return st;
        d->n_pareto = (int32_t)i + 1;
        if ((st = lf__ids(r, go, field, d->n_ops, -1, pt->plan.group_of)) != LF_OK)
            return st;
        for (int32_t v = 0; v < d->n_ops; v++)
            if (pt->plan.group_of[v] >= pt->plan.n_groups)
                pt->plan.n_groups = pt->plan.group_of[v] + 1;
    }
    return LF_OK;
}

static lf_status lf__groups(const lf__reader *r, json_t *root, lf_plan_doc *d)
{
    lf_status st = LF_OK;
    json_t *go = lf__array(r, root, "", "group_of", &st);
    json_t *groups = lf__array(r, root, "", "groups", &st);
    json_t *unf = lf__array(r, root, "", "unfusable", &st);
    if (st != LF_OK)
        return st;
    if (json_array_size(go) != (size_t)d->n_ops)
        return lf__bad(r, "group_of", "has %zu entries, model.ops is %d", json_array_size(go),
                       (int)d->n_ops);
    if ((st = lf_plan_init(&d->plan, d->n_ops)) != LF_OK)
        return st;
    if ((st = lf__ids(r, go, "group_of", d->n_ops, -1, d->plan.group_of)) != LF_OK)
        return st;
    for (int32_t v = 0; v < d->n_ops; v++)
        if (d->plan.group_of[v] >= d->plan.n_groups)
            d->plan.n_groups = d->plan.group_of[v] + 1;
    size_t ng = json_array_size(groups), nu = json_array_size(unf);
    if (ng > (size_t)d->n_ops || nu > (size_t)d->n_ops)
        return lf__bad(r, ng > (size_t)d->n_ops ? "groups" : "unfusable",
                       "more entries than the graph has ops (%d)", (int)d->n_ops);
    d->groups = calloc(ng + 1, sizeof *d->groups);
    d->unfusable = calloc(nu + 1, sizeof *d->unfusable);
    if (!d->groups || !d->unfusable)
        return lf_set_error(LF_ENOMEM, "%s: out of memory reading the plan", r->origin);
    for (size_t i = 0; i < ng; i++) {
        json_t *gj = json_array_get(groups, i);
        char where[64];
        snprintf(where, sizeof where, "groups[%zu]", i);
        if (!json_is_object(gj))
            return lf__bad(r, where, "expected an object");
        lf_plan_doc_group *g = &d->groups[i];
        json_t *ops = lf__array(r, gj, where, "ops", &st);
        if (st != LF_OK)
            return st;
        if ((st = lf__i32(r, gj, where, "id", 0, d->n_ops - 1, &g->id)))
            return st;
        size_t n = json_array_size(ops);
        if (n == 0 || n > (size_t)d->n_ops)
            return lf__bad(r, where, "ops: expected 1 to %d op ids", (int)d->n_ops);
        if (!(g->ops = malloc(n * sizeof *g->ops)))
            return lf_set_error(LF_ENOMEM, "%s: out of memory reading the plan", r->origin);
        g->n_ops = (int32_t)n;
        d->n_groups = (int32_t)i + 1;
        char field[80];
        snprintf(field, sizeof field, "%s.ops", where);
        if ((st = lf__ids(r, ops, field, d->n_ops, 0, g->ops)) ||
            (st = lf__int(r, gj, where, "f_beta", 0, INT64_MAX, &g->f_beta)) ||
            (st = lf__int(r, gj, where, "f_d", 0, INT64_MAX, &g->f_d)) ||
            (st = lf__int(r, gj, where, "mbu", 0, INT64_MAX, &g->mbu)) ||
            (st = lf__int(r, gj, where, "weights", 0, INT64_MAX, &g->weights)) ||
            (st = lf__i32(r, gj, where, "weight_reads", 0, INT32_MAX, &g->weight_reads)) ||
            (st = lf__i32(r, gj, where, "tile_rows", 0, INT32_MAX, &g->tile_rows)) ||
            (st = lf__bool(r, gj, where, "valid", &g->valid)))
            return st;
    }
    for (size_t i = 0; i < nu; i++) {
        json_t *uj = json_array_get(unf, i);
        char where[64];
        snprintf(where, sizeof where, "unfusable[%zu]", i);
        if (!json_is_object(uj))
            return lf__bad(r, where, "expected an object");
        lf_plan_doc_unfusable *u = &d->unfusable[i];
        if ((st = lf__i32(r, uj, where, "id", 0, d->n_ops - 1, &u->op)) ||
            (st = lf__i32(r, uj, where, "group", 0, d->n_ops - 1, &u->group)) ||
            (st = lf__int(r, uj, where, "f_beta", 0, INT64_MAX, &u->f_beta)) ||
            (st = lf__int(r, uj, where, "dram", 0, INT64_MAX, &u->dram)))
            return st;
        d->n_unfusable = (int32_t)i + 1;
    }
    return lf__pareto(r, root, d);
}

lf_status lf_plan_doc_read_memory(lf_plan_doc *doc, const void *data, size_t len, const char *origin)
{
    memset(doc, 0, sizeof *doc);
    if (!origin)
        origin = "plan";
    snprintf(doc->origin, sizeof doc->origin, "%s", origin);
    if (!data)
        return lf_set_error(LF_EINVAL, "%s: no plan data", origin);
    lf__reader r = {.origin = doc->origin};
    /* An XML plan starts with '<' (after any white space), a JSON one never. */
    size_t lead = 0;
    const char *bytes = data;
    while (lead < len && (bytes[lead] == ' ' || bytes[lead] == '\t' || bytes[lead] == '\n' ||
                          bytes[lead] == '\r'))
        lead++;
    json_t *root = NULL;
    if (len > 0 && bytes[0] == 0x08) {
        /* ModelProto field 1 (ir_version): an annotated ONNX plan */
        lf_status st = lf__plan_onnx_to_json(data, len, doc->origin, &root);
        if (st != LF_OK)
            return st;
    } else if (lead < len && bytes[lead] == '<') {
        lf_status st = lf__plan_xml_to_json(data, len, doc->origin, &root);
        if (st != LF_OK)
            return st;
    } else {
        json_error_t err;
        root = json_loadb(data, len, JSON_REJECT_DUPLICATES, &err);
        if (!root)
            return lf_set_error(LF_EPARSE, "%s:%d:%d: not a JSON plan: %s", doc->origin, err.line,
                                err.column, err.text);
    }
    lf_status st = json_is_object(root) ? LF_OK
                                        : lf__bad(&r, "(top level)", "a plan is one JSON object");
    if (st == LF_OK)
        st = lf__header(&r, root, doc);
    if (st == LF_OK)
        st = lf__groups(&r, root, doc);
    json_decref(root);
    return st;
}

/* A plan streamed from a pipe or device must start like one of the three
 * formats: ONNX protobuf (checked as far as it goes), '{' or '<'. */
static lf_status lf__plan_probe(const char *head, size_t n, const char *path, const char *what)
{
    if (n > 0 && head[0] == 0x08) {
        lf__ox_wire_info info;
        if (lf__ox_wire_scan((const uint8_t *)head, n, (uint64_t)2 << 30, &onnx__model_proto__descriptor,
                             &info) == LF__OX_WIRE_OK)
            return LF_OK;
        return lf_set_error(LF_EPARSE, "%s: not a valid ONNX %s (not protobuf data at byte %zu)", path, what,
                            info.offset);
    }
    size_t i = 0;
    if (n >= 3 && (unsigned char)head[0] == 0xEF && (unsigned char)head[1] == 0xBB &&
        (unsigned char)head[2] == 0xBF)
        i = 3; /* UTF-8 byte order mark */
    while (i < n && (head[i] == ' ' || head[i] == '\t' || head[i] == '\n' || head[i] == '\r'))
        i++;
    if (i == n || head[i] == '{' || head[i] == '<')
        return LF_OK;
    return lf_set_error(LF_EPARSE, "%s: not a %s (JSON, XML or annotated ONNX): byte %zu is 0x%02x", path, what,
                        i, (unsigned char)head[i]);
}

lf_status lf_plan_doc_read(lf_plan_doc *doc, const char *path)
{
    memset(doc, 0, sizeof *doc);
    if (!path)
        return lf_set_error(LF_EINVAL, "lf_plan_doc_read needs a path");
    char *data = NULL;
    long len = 0;
    /* An annotated ONNX plan holds the weights: protobuf's own 2 GiB limit. */
    size_t n = strlen(path);
    int onnx = n > 5 && strcmp(path + n - 5, ".onnx") == 0;
    lf_status st = lf_read_file_probed(path, onnx ? (int64_t)2 << 30 : LF__PLAN_FILE_MAX, "plan file",
                                       lf__plan_probe, &data, &len);
    if (st != LF_OK)
        return st;
    st = lf_plan_doc_read_memory(doc, data, (size_t)len, path);
    free(data);
    return st;
}

void lf_plan_doc_destroy(lf_plan_doc *doc)
{
    if (!doc)
        return;
    for (int32_t i = 0; i < doc->n_groups; i++)
        free(doc->groups[i].ops);
    free(doc->groups);
    free(doc->unfusable);
    for (int32_t i = 0; i < doc->n_pareto; i++)
        lf_plan_destroy(&doc->pareto[i].plan);
    free(doc->pareto);
    lf_plan_destroy(&doc->plan);
    memset(doc, 0, sizeof *doc);
}
