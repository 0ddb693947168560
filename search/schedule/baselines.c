/* The baselines DOS is compared against (DESIGN §12): sequential (one unit
 * per stage, in topological order) and greedy (IOS's wavefront: every ready
 * unit joins the current stage, at most greedy_streams of them, in order of
 * their ids, each on its own stream). */
#include <stdlib.h>

#include "search/schedule/schedule_internal.h"

/* Appends a concurrent stage of single-unit groups, priced by the backend. */
static lf_status lf__singles(lf__sched *x, const int32_t *units, int32_t n, lf__sbuf *b)
{
    int32_t start[65];
    for (int32_t i = 0; i <= n; i++)
        start[i] = i;
    double lat;
    lf_status s = lf__stage_latency(x, LF_SCHED_CONCURRENT, units, start, n, &lat);
    if (!s)
        s = lf__sbuf_stage(b, LF_SCHED_CONCURRENT, lat);
    for (int32_t i = 0; !s && i < n; i++)
        if (!(s = lf__sbuf_group(b)))
            s = lf__sbuf_unit(b, x, units[i]);
    return s;
}

lf_status lf__sched_sequential(lf__sched *x, lf__sbuf *b)
{
    lf_status s = LF_OK;
    for (int32_t u = 0; !s && u < x->n; u++)
        s = lf__singles(x, &u, 1, b);
    return s;
}

lf_status lf__sched_greedy(lf__sched *x, lf__sbuf *b)
{
    int32_t n = x->n, w = x->o.greedy_streams;
    if (w < 1 || w > 64)
        return lf_set_error(LF_EINVAL, "schedule: greedy streams %d (1 to 64)", (int)w);
    int32_t *waiting = malloc(sizeof *waiting * (size_t)n); /* predecessors not yet run */
    int32_t *ready = malloc(sizeof *ready * (size_t)n);
    if (!waiting || !ready) {
        free(waiting);
        free(ready);
        return lf_set_error(LF_ENOMEM, "schedule: out of memory");
    }
    int32_t nr = 0, done = 0;
    for (int32_t u = 0; u < n; u++) {
        waiting[u] = x->pred_start[u + 1] - x->pred_start[u];
        if (!waiting[u])
            ready[nr++] = u;
    }
    lf_status s = LF_OK;
    while (!s && done < n) {
        /* ready is kept ascending; the stage takes its first w */
        int32_t k = nr < w ? nr : w, stage[64];
        for (int32_t i = 0; i < k; i++)
            stage[i] = ready[i];
        s = lf__singles(x, stage, k, b);
        done += k;
        int32_t m = 0;
        for (int32_t i = k; i < nr; i++)
            ready[m++] = ready[i];
        for (int32_t i = 0; i < k; i++)
            for (int32_t e = x->succ_start[stage[i]]; e < x->succ_start[stage[i] + 1]; e++) {
                int32_t v = x->succ[e];
                if (--waiting[v] == 0) { /* insert in order */
                    int32_t j = m++;
                    while (j > 0 && ready[j - 1] > v) {
                        ready[j] = ready[j - 1];
                        j--;
                    }
                    ready[j] = v;
                }
            }
        nr = m;
    }
    free(waiting);
    free(ready);
    return s;
}
