/* Measured op times against the roofline (search/subst/op_profile.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/optable.h"
#include "search/subst/op_profile.h"

/* Measures op v (prof) or looks it up (cache) into row. */
static void lf__measure(const lf_graph *g, int32_t v, lf_gpu_profiler *prof, const lf_gpu_cache *cache,
                        lf_op_profile *p, lf_op_profile_row *row)
{
    row->measured_s = -1.0;
    row->source = "-";
    if (!lf_gpu_op_measurable(g, v) || lf_gpu_op_key(g, v, row->key, sizeof row->key) != LF_OK) {
        snprintf(row->key, sizeof row->key, "-"); /* not measured, or a key too long to cache */
        return;
    }
    int cached = 0;
    if (prof) {
        lf_status st = lf_gpu_measure_op(prof, g, v, &row->measured_s, &cached);
        if (st != LF_OK) { /* no kernel for this configuration, or a failed run: roofline */
            row->measured_s = -1.0;
            if (st != LF_EUNSUPPORTED && p->failed++ == 0)
                lf_text_line(p->first_failure, sizeof p->first_failure, lf_last_error());
        } else {
            row->source = cached ? "cache" : "new";
        }
    } else if (lf_gpu_cache_get(cache, row->key, &row->measured_s)) {
        row->source = "cache";
    } else {
        row->measured_s = -1.0;
    }
}

lf_status lf_op_profile_run(const lf_graph *g, const lf_subst_coster *c, lf_gpu_profiler *prof,
                            const lf_gpu_cache *cache, lf_op_profile *out)
{
    memset(out, 0, sizeof *out);
    out->rows = malloc((size_t)(g->n_ops > 0 ? g->n_ops : 1) * sizeof *out->rows);
    if (!out->rows)
        return lf_set_error(LF_ENOMEM, "profile: out of memory");
    for (int32_t v = 0; v < g->n_ops; v++) {
        double flops, bytes, roof;
        if (!lf_subst_op_roofline(c, g, v, &flops, &bytes, &roof))
            continue;
        lf_op_profile_row *row = &out->rows[out->n_rows++];
        row->op = v;
        row->roofline_s = roof;
        lf__measure(g, v, prof, cache, out, row);
        out->roofline_s += roof;
        out->mixed_s += row->measured_s >= 0 ? row->measured_s : roof;
        if (row->measured_s >= 0) {
            out->measured++;
            out->fresh += strcmp(row->source, "new") == 0;
            out->measured_s += row->measured_s;
            out->roofline_measured_s += roof;
        }
    }
    return LF_OK;
}

void lf_op_profile_destroy(lf_op_profile *p)
{
    free(p->rows);
    p->rows = NULL;
    p->n_rows = 0;
}

void lf_op_profile_write(FILE *f, const lf_graph *g, const lf_op_profile *p, int keys)
{
    fprintf(f, "%5s  %-28s %-12s %12s %12s %8s  %s\n", "id", "op", "type", "measured_us", "roofline_us", "ratio",
            keys ? "source  key" : "source");
    for (int32_t i = 0; i < p->n_rows; i++) {
        const lf_op_profile_row *r = &p->rows[i];
        const lf_op *op = &g->ops[r->op];
        char name[29];
        snprintf(name, sizeof name, "%s", op->name);
        if (r->measured_s >= 0)
            fprintf(f, "%5d  %-28s %-12s %12.3f %12.3f %8.2f  %s", (int)r->op, name, lf_op_info_of(op->type)->name,
                    r->measured_s * 1e6, r->roofline_s * 1e6, r->measured_s / r->roofline_s, r->source);
        else
            fprintf(f, "%5d  %-28s %-12s %12s %12.3f %8s  %s", (int)r->op, name, lf_op_info_of(op->type)->name, "-",
                    r->roofline_s * 1e6, "-", r->source);
        if (keys)
            fprintf(f, "  %s", r->key);
        fprintf(f, "\n");
    }
    fprintf(f, "measured %d of %d kernels: %.3f us measured, %.3f us roofline for them (ratio %.2f)\n",
            (int)p->measured, (int)p->n_rows, p->measured_s * 1e6, p->roofline_measured_s * 1e6,
            p->roofline_measured_s > 0 ? p->measured_s / p->roofline_measured_s : 0.0);
    fprintf(f, "network: %.3f us with measured times where there are some, %.3f us roofline\n", p->mixed_s * 1e6,
            p->roofline_s * 1e6);
    if (p->failed)
        fprintf(f, "not measured: %d ops failed on the GPU and keep their roofline (first: %s)\n", (int)p->failed,
                p->first_failure);
}
