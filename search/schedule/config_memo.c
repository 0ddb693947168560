/* Stage latencies shared by stages of identical op configurations (the
 * measured backend's memo; lf_sched_options.memo_configs, DESIGN §12).
 *
 * Timing a stage on the GPU costs milliseconds (every op prepared, warm-up
 * runs, 36 timed runs), and a DOS search prices thousands of stages. Many of
 * them are the same kernels on the same shapes: NasNet-A repeats each cell
 * several times at one resolution, Inception-v3 two of its 17x17 modules,
 * every network its conv + ReLU pairs. A stage's key is its strategy and, for
 * each group in order, the configuration of each op in order (planner/gpu's
 * op key: type, operand and output shapes, attributes; an op the GPU runs
 * nothing for is its type and shape): two stages with the same key run the
 * same kernels, so the first one's time stands for both. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/gpu/opcost.h"
#include "planner/optable.h"
#include "search/schedule/schedule_internal.h"

static lf_status lf__put(lf__sched *x, size_t *len, const char *s)
{
    size_t n = strlen(s);
    if (*len + n + 1 > x->key_cap) {
        size_t cap = x->key_cap ? x->key_cap : 1024;
        while (*len + n + 1 > cap)
            cap *= 2;
        char *k = realloc(x->key, cap);
        if (!k)
            return lf_set_error(LF_ENOMEM, "out of memory for a stage key");
        x->key = k;
        x->key_cap = cap;
    }
    memcpy(x->key + *len, s, n + 1);
    *len += n;
    return LF_OK;
}

/* The key of stage v in x->key. */
static lf_status lf__key(lf__sched *x, const lf_sched_stage_view *v)
{
    const lf_graph *g = v->g;
    size_t len = 0;
    char op_key[LF_GPU_OP_KEY_MAX];
    lf_status s = lf__put(x, &len, v->strategy == LF_SCHED_MERGE ? "merge" : "concurrent");
    for (int32_t i = 0; !s && i < v->n_groups; i++) {
        s = lf__put(x, &len, "\n|");
        for (int32_t u = v->group_start[i]; !s && u < v->group_start[i + 1]; u++)
            for (int32_t k = v->op_start[u]; !s && k < v->op_start[u + 1]; k++) {
                int32_t op = v->ops[k];
                if (!lf_gpu_op_measurable(g, op) || lf_gpu_op_key(g, op, op_key, sizeof op_key) != LF_OK) {
                    const lf_shape o = g->ops[op].out;
                    snprintf(op_key, sizeof op_key, "~%s>%lldx%lldx%lldx%lld", lf_op_info_of(g->ops[op].type)->name,
                             (long long)o.n, (long long)o.c, (long long)o.h, (long long)o.w);
                }
                if (!(s = lf__put(x, &len, op_key)))
                    s = lf__put(x, &len, ";");
            }
    }
    return s;
}

lf_status lf__config_latency(lf__sched *x, const lf_sched_stage_view *v, double *seconds)
{
    if (!x->memo_ready) {
        lf_status s = lf_strmap_init(&x->config_memo, 256);
        if (s)
            return s;
        x->memo_ready = 1;
    }
    lf_status s = lf__key(x, v);
    if (s)
        return s;
    void *known = NULL;
    if (lf_strmap_get(&x->config_memo, x->key, &known)) {
        *seconds = *(const double *)known;
        return LF_OK;
    }
    if ((s = x->o.latency_fn(x->o.latency_ctx, v, seconds)))
        return s;
    x->stats->stage_timed++;
    double *kept = malloc(sizeof *kept);
    if (!kept)
        return lf_set_error(LF_ENOMEM, "out of memory for a stage latency");
    *kept = *seconds;
    if ((s = lf_strmap_put(&x->config_memo, x->key, kept)))
        free(kept);
    return s;
}

void lf__config_memo_free(lf__sched *x)
{
    if (x->memo_ready) {
        for (size_t i = 0; i < x->config_memo.cap; i++)
            if (x->config_memo.keys[i])
                free(x->config_memo.values[i]);
        lf_strmap_destroy(&x->config_memo);
    }
    free(x->key);
    x->key = NULL;
    x->key_cap = 0;
    x->memo_ready = 0;
}
