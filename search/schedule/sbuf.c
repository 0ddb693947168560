/* Schedules built stage by stage in growing arrays (lf__sbuf), and the
 * public schedule's teardown. */
#include <stdlib.h>
#include <string.h>

#include "search/schedule/schedule_internal.h"

void lf__sbuf_init(lf__sbuf *b) { memset(b, 0, sizeof *b); }

void lf__sbuf_reset(lf__sbuf *b)
{
    b->s.n_stages = 0;
    b->n_groups = b->n_units = b->n_ops = 0;
    b->s.latency_total_s = 0.0;
}

void lf__sbuf_free(lf__sbuf *b)
{
    lf_schedule_destroy(&b->s);
    memset(b, 0, sizeof *b);
}

void lf_schedule_destroy(lf_schedule *s)
{
    if (!s)
        return;
    free(s->stage_start);
    free(s->strategy);
    free(s->latency_s);
    free(s->group_start);
    free(s->op_start);
    free(s->ops);
    free(s->measured_s);
    memset(s, 0, sizeof *s);
}

/* Makes room for need + 1 entries (the closing start) of an array. */
static int lf__grow(void **p, int32_t *cap, int32_t need, size_t elem)
{
    if (need + 1 <= *cap)
        return 1;
    int32_t c = *cap ? *cap : 16;
    while (c < need + 1)
        c *= 2;
    void *q = realloc(*p, (size_t)c * elem);
    if (!q)
        return 0;
    *p = q;
    *cap = c;
    return 1;
}

lf_status lf__sbuf_stage(lf__sbuf *b, lf_sched_strategy st, double latency_s)
{
    int32_t i = b->s.n_stages;
    if (i + 2 > b->cap_stages) {
        int32_t c = b->cap_stages ? 2 * b->cap_stages : 16;
        int32_t *ss = realloc(b->s.stage_start, sizeof(int32_t) * (size_t)c);
        if (ss)
            b->s.stage_start = ss;
        lf_sched_strategy *sg = realloc(b->s.strategy, sizeof(lf_sched_strategy) * (size_t)c);
        if (sg)
            b->s.strategy = sg;
        double *lat = realloc(b->s.latency_s, sizeof(double) * (size_t)c);
        if (lat)
            b->s.latency_s = lat;
        if (!ss || !sg || !lat)
            return lf_set_error(LF_ENOMEM, "schedule: out of memory for stages");
        b->cap_stages = c;
    }
    b->s.stage_start[i] = b->n_groups;
    b->s.strategy[i] = st;
    b->s.latency_s[i] = latency_s;
    b->s.n_stages = i + 1;
    b->s.latency_total_s += latency_s;
    return LF_OK;
}

lf_status lf__sbuf_group(lf__sbuf *b)
{
    if (!lf__grow((void **)&b->s.group_start, &b->cap_groups, b->n_groups + 1, sizeof(int32_t)))
        return lf_set_error(LF_ENOMEM, "schedule: out of memory for groups");
    b->s.group_start[b->n_groups++] = b->n_units;
    return LF_OK;
}

lf_status lf__sbuf_unit(lf__sbuf *b, const lf__sched *x, int32_t unit)
{
    if (!lf__grow((void **)&b->s.op_start, &b->cap_units, b->n_units + 1, sizeof(int32_t)) ||
        !lf__grow((void **)&b->s.ops, &b->cap_ops, b->n_ops + 2, sizeof(int32_t)))
        return lf_set_error(LF_ENOMEM, "schedule: out of memory for units");
    b->s.op_start[b->n_units++] = b->n_ops;
    b->s.ops[b->n_ops++] = x->u[unit].op;
    if (x->u[unit].epi >= 0)
        b->s.ops[b->n_ops++] = x->u[unit].epi;
    return LF_OK;
}

static void lf__close(lf__sbuf *b)
{
    /* every array has room for its closing entry (lf__grow keeps one spare) */
    b->s.stage_start[b->s.n_stages] = b->n_groups;
    b->s.group_start[b->n_groups] = b->n_units;
    b->s.op_start[b->n_units] = b->n_ops;
}

lf_status lf__sbuf_finish(lf__sbuf *b, lf_schedule *out)
{
    if (b->s.n_stages == 0)
        return lf_set_error(LF_EINVAL, "schedule: no stages");
    lf__close(b);
    *out = b->s;
    memset(b, 0, sizeof *b);
    return LF_OK;
}

void lf__sbuf_last_view(const lf__sbuf *b, const lf_graph *g, lf_sched_stage_view *v)
{
    lf__sbuf *m = (lf__sbuf *)b; /* the closing entries are scratch space */
    lf__close(m);
    int32_t i = b->s.n_stages - 1;
    int32_t g0 = b->s.stage_start[i];
    v->g = g;
    v->strategy = b->s.strategy[i];
    v->n_groups = b->n_groups - g0;
    v->group_start = b->s.group_start + g0;
    /* group starts index units from 0 in the full arrays, so the view keeps
     * the full unit and op arrays */
    v->op_start = b->s.op_start;
    v->ops = b->s.ops;
}
