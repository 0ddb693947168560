/* A schedule read back from its JSON and priced again, possibly on another
 * graph with the same op names (the same network at another batch size:
 * DOS's Table 2 runs each batch's schedule at every batch). */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "planner/util/fileio.h"
#include "search/schedule/schedule_internal.h"

#define LF__SCHED_FILE_MAX ((int64_t)64 << 20)

/* Rebuilds s's stages on x (units from the ops), checking that every unit
 * runs once, after its predecessors (earlier stages, or earlier in its own
 * group), and that merged stages obey the merge rule; prices every stage
 * with the backend into b. what names the schedule in messages. */
static lf_status lf__reprice(lf__sched *x, const lf_schedule *s, const char *what, lf__sbuf *b)
{
    int32_t n = x->n;
    int32_t *stage_of = malloc(sizeof(int32_t) * (size_t)n), *group_of = malloc(sizeof(int32_t) * (size_t)n);
    int32_t *pos = malloc(sizeof(int32_t) * (size_t)n), *units = malloc(sizeof(int32_t) * (size_t)n);
    int32_t *start = malloc(sizeof(int32_t) * (size_t)(n + 1));
    lf_status st = LF_OK;
    if (!stage_of || !group_of || !pos || !units || !start)
        st = lf_set_error(LF_ENOMEM, "schedule: out of memory");
    for (int32_t u = 0; !st && u < n; u++)
        stage_of[u] = -1;
    int32_t k = 0;
    for (int32_t i = 0; !st && i < s->n_stages; i++)
        for (int32_t j = s->stage_start[i]; !st && j < s->stage_start[i + 1]; j++)
            for (int32_t q = s->group_start[j]; !st && q < s->group_start[j + 1]; q++) {
                int32_t v = s->ops[s->op_start[q]], u = v >= 0 && v < x->g->n_ops ? x->unit_of[v] : -1;
                if (u < 0 || x->u[u].op != v)
                    st = lf_set_error(LF_EPLAN, "%s: stage %d: op '%s' does not start a scheduling unit", what,
                                      (int)i + 1, v >= 0 && v < x->g->n_ops ? x->g->ops[v].name : "?");
                else if (stage_of[u] >= 0)
                    st = lf_set_error(LF_EPLAN, "%s: stage %d: op '%s' is scheduled twice", what, (int)i + 1,
                                      x->g->ops[v].name);
                else
                    stage_of[u] = i, group_of[u] = j, pos[u] = k++;
            }
    for (int32_t u = 0; !st && u < n; u++) {
        if (stage_of[u] < 0) {
            st = lf_set_error(LF_EPLAN, "%s: op '%s' is in no stage", what, x->g->ops[x->u[u].op].name);
            break;
        }
        for (int32_t e = x->pred_start[u]; !st && e < x->pred_start[u + 1]; e++) {
            int32_t p = x->pred[e];
            if (stage_of[p] > stage_of[u] ||
                (stage_of[p] == stage_of[u] && (group_of[p] != group_of[u] || pos[p] > pos[u])))
                st = lf_set_error(LF_EPLAN, "%s: stage %d: op '%s' runs before or beside its input '%s'", what,
                                  (int)stage_of[u] + 1, x->g->ops[x->u[u].op].name, x->g->ops[x->u[p].op].name);
        }
    }
    for (int32_t i = 0; !st && i < s->n_stages; i++) {
        int32_t ng = 0, m = 0;
        for (int32_t j = s->stage_start[i]; j < s->stage_start[i + 1]; j++) {
            start[ng++] = m;
            for (int32_t q = s->group_start[j]; q < s->group_start[j + 1]; q++)
                units[m++] = x->unit_of[s->ops[s->op_start[q]]];
        }
        start[ng] = m;
        if (s->strategy[i] == LF_SCHED_MERGE && (ng != m || !lf__merge_ok(x, units, m))) {
            st = lf_set_error(LF_EPLAN, "%s: stage %d: these convolutions cannot be merged", what, (int)i + 1);
            break;
        }
        double lat = 0.0;
        st = lf__stage_latency(x, s->strategy[i], units, start, ng, &lat);
        if (!st)
            st = lf__sbuf_stage(b, s->strategy[i], lat);
        for (int32_t j = 0; !st && j < ng; j++) {
            st = lf__sbuf_group(b);
            for (int32_t q = start[j]; !st && q < start[j + 1]; q++)
                st = lf__sbuf_unit(b, x, units[q]);
        }
    }
    free(stage_of);
    free(group_of);
    free(pos);
    free(units);
    free(start);
    return st;
}

lf_status lf_sched_evaluate(const lf_graph *g, const lf_sched_options *o, const lf_schedule *s, lf_schedule *out)
{
    memset(out, 0, sizeof *out);
    lf__sched x;
    lf__sbuf b;
    lf__sbuf_init(&b);
    lf_status st = lf__sched_init(&x, g, o, NULL);
    if (!st)
        st = lf__reprice(&x, s, "schedule", &b);
    if (!st)
        st = lf__sbuf_finish(&b, out);
    lf__sbuf_free(&b);
    lf__sched_teardown(&x);
    return st;
}

/* The ops of one schedule in the JSON, as a schedule of one op per unit
 * (units are regrouped by lf__reprice). */
static lf_status lf__parse(const char *path, const char *key, json_t *root, const lf_graph *g, lf_schedule *s)
{
    json_t *sched = json_is_object(root) ? json_object_get(root, key) : NULL;
    json_t *stages = json_is_object(sched) ? json_object_get(sched, "stages") : NULL;
    if (!json_is_array(stages))
        return lf_set_error(LF_EPARSE, "%s: no \"%s\" object with a \"stages\" array", path, key);
    size_t ns = json_array_size(stages), ng = 0, nops = 0;
    for (size_t i = 0; i < ns; i++) {
        json_t *groups = json_object_get(json_array_get(stages, i), "groups");
        if (!json_is_array(groups) || json_array_size(groups) == 0)
            return lf_set_error(LF_EPARSE, "%s: %s stage %d: no \"groups\" array", path, key, (int)i + 1);
        ng += json_array_size(groups);
        for (size_t j = 0; j < json_array_size(groups); j++) {
            json_t *ops = json_array_get(groups, j);
            if (!json_is_array(ops) || json_array_size(ops) == 0)
                return lf_set_error(LF_EPARSE, "%s: %s stage %d: group %d is not a list of op names", path, key,
                                    (int)i + 1, (int)j + 1);
            nops += json_array_size(ops);
        }
    }
    if (ns == 0)
        return lf_set_error(LF_EPARSE, "%s: %s has no stages", path, key);
    s->stage_start = malloc(sizeof(int32_t) * (ns + 1));
    s->strategy = malloc(sizeof(lf_sched_strategy) * ns);
    s->latency_s = calloc(ns, sizeof(double));
    s->group_start = malloc(sizeof(int32_t) * (ng + 1));
    s->op_start = malloc(sizeof(int32_t) * (nops + 1));
    s->ops = malloc(sizeof(int32_t) * (nops + 1));
    if (!s->stage_start || !s->strategy || !s->latency_s || !s->group_start || !s->op_start || !s->ops)
        return lf_set_error(LF_ENOMEM, "schedule: out of memory");
    int32_t gi = 0, ui = 0;
    for (size_t i = 0; i < ns; i++) {
        json_t *stage = json_array_get(stages, i), *groups = json_object_get(stage, "groups");
        const char *strat = json_string_value(json_object_get(stage, "strategy"));
        if (!strat || (strcmp(strat, "concurrent") != 0 && strcmp(strat, "merge") != 0))
            return lf_set_error(LF_EPARSE, "%s: %s stage %d: \"strategy\" is not \"concurrent\" or \"merge\"", path,
                                key, (int)i + 1);
        s->stage_start[i] = gi;
        s->strategy[i] = strcmp(strat, "merge") == 0 ? LF_SCHED_MERGE : LF_SCHED_CONCURRENT;
        for (size_t j = 0; j < json_array_size(groups); j++) {
            json_t *ops = json_array_get(groups, j);
            s->group_start[gi++] = ui;
            for (size_t q = 0; q < json_array_size(ops); q++) {
                const char *name = json_string_value(json_array_get(ops, q));
                int32_t v = name ? lf_graph_find(g, name) : -1;
                if (v < 0)
                    return lf_set_error(LF_EPARSE, "%s: %s stage %d: no op '%s' in graph '%s'", path, key,
                                        (int)i + 1, name ? name : "(not a string)", g->name ? g->name : "?");
                if (g->ops[v].type == LF_OP_INPUT)
                    return lf_set_error(LF_EPARSE, "%s: %s stage %d: '%s' is a graph input", path, key, (int)i + 1,
                                        name);
                s->op_start[ui] = ui;
                s->ops[ui++] = v;
            }
        }
    }
    s->n_stages = (int32_t)ns;
    s->stage_start[ns] = gi;
    s->group_start[gi] = ui;
    s->op_start[ui] = ui;
    return LF_OK;
}

lf_status lf_sched_read_json(const char *path, const char *key, const lf_graph *g, const lf_sched_options *o,
                             lf_schedule *out)
{
    memset(out, 0, sizeof *out);
    char *data = NULL;
    long len = 0;
    lf_status st = lf_read_file_capped(path, LF__SCHED_FILE_MAX, "schedule file", &data, &len);
    if (st)
        return st;
    json_error_t err;
    json_t *root = json_loadb(data, (size_t)len, JSON_REJECT_DUPLICATES, &err);
    free(data);
    if (!root)
        return lf_set_error(LF_EPARSE, "%s:%d:%d: not valid JSON: %s", path, err.line, err.column, err.text);
    /* the file lists the ops of each unit; lf__parse makes one entry per op,
     * and units are rebuilt from the main ops (epilogues are dropped here and
     * come back with their unit) */
    lf_schedule raw;
    memset(&raw, 0, sizeof raw);
    st = lf__parse(path, key, root, g, &raw);
    json_decref(root);
    lf__sched x;
    lf__sbuf b;
    lf__sbuf_init(&b);
    memset(&x, 0, sizeof x);
    if (!st)
        st = lf__sched_init(&x, g, o, NULL);
    if (!st) { /* drop the epilogues: keep the ops that start a unit */
        int32_t k = 0, gk = 0;
        for (int32_t i = 0; i < raw.n_stages; i++) {
            int32_t g0 = raw.stage_start[i];
            raw.stage_start[i] = gk;
            for (int32_t j = g0; j < raw.stage_start[i + 1]; j++) {
                int32_t q0 = raw.group_start[j], q1 = raw.group_start[j + 1];
                raw.group_start[gk++] = k;
                for (int32_t q = q0; q < q1; q++) {
                    int32_t v = raw.ops[q], u = x.unit_of[v];
                    if (x.u[u].op == v) {
                        raw.op_start[k] = k;
                        raw.ops[k++] = v;
                    }
                }
                if (raw.group_start[gk - 1] == k) {
                    st = lf_set_error(LF_EPLAN, "%s: %s stage %d: a group of activations alone (they run with "
                                                "the op before them)", path, key, (int)i + 1);
                    break;
                }
            }
            if (st)
                break;
        }
        if (!st) {
            raw.stage_start[raw.n_stages] = gk;
            raw.group_start[gk] = k;
            raw.op_start[k] = k;
        }
    }
    if (!st) {
        char what[300];
        snprintf(what, sizeof what, "%s: %s", path, key);
        st = lf__reprice(&x, &raw, what, &b);
    }
    if (!st)
        st = lf__sbuf_finish(&b, out);
    lf__sbuf_free(&b);
    lf__sched_teardown(&x);
    lf_schedule_destroy(&raw);
    return st;
}
