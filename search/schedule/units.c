/* Scheduling units and their DAG.
 *
 * A unit is a graph op plus the activation that runs in its kernel: a unary
 * activation whose only input is a Conv, ConvTranspose, Gemm, MatMul or Add
 * (the op table's LF_OPF_ACTIVATION and LF_OPF_TAKES_EPILOGUE) with no fused
 * activation of its own, read by nothing else and not a graph output (cuDNN's
 * conv + bias + activation, an add + ReLU kernel; IOS folds them the same
 * way). Graph inputs are not units: they are ready before the
 * first stage. Units are numbered in the graph's topological order, so unit
 * ids are a topological order too. */
#include <stdlib.h>
#include <string.h>

#include "hwdesc/hw.h"
#include "planner/optable.h"
#include "search/schedule/schedule_internal.h"

/* The op table says which types are activations (LF_OPF_ACTIVATION) and
 * which kernels can run one as their epilogue (LF_OPF_TAKES_EPILOGUE). */
static int lf__takes_epilogue(const lf_op *op)
{
    return lf_op_has(op->type, LF_OPF_TAKES_EPILOGUE) && op->attr.act == LF_ACT_NONE &&
           op->n_consumers == 1 && !op->is_output;
}

/* Sorts a short list ascending and drops repeats; returns the new length. */
static int32_t lf__sort_unique(int32_t *a, int32_t n)
{
    for (int32_t i = 1; i < n; i++)
        for (int32_t j = i; j > 0 && a[j - 1] > a[j]; j--) {
            int32_t t = a[j];
            a[j] = a[j - 1];
            a[j - 1] = t;
        }
    int32_t k = 0;
    for (int32_t i = 0; i < n; i++)
        if (k == 0 || a[k - 1] != a[i])
            a[k++] = a[i];
    return k;
}

lf_status lf__sched_init(lf__sched *x, const lf_graph *g, const lf_sched_options *o, lf_sched_stats *stats)
{
    memset(x, 0, sizeof *x);
    x->g = g;
    x->o = *o;
    x->stats = stats ? stats : &x->own_stats;
    lf__sbuf_init(&x->view);
    lf_subst_coster_init(&x->coster, LF_OBJ_TIME, o->hw, NULL);
    int32_t n = g->n_ops;
    x->u = malloc(sizeof *x->u * (size_t)(n ? n : 1));
    x->unit_of = malloc(sizeof *x->unit_of * (size_t)(n ? n : 1));
    x->local = malloc(sizeof *x->local * (size_t)(n ? n : 1));
    x->pred_start = malloc(sizeof(int32_t) * (size_t)(n + 1));
    x->succ_start = calloc((size_t)n + 1, sizeof(int32_t));
    int64_t edges = 0;
    for (int32_t v = 0; v < n; v++)
        edges += g->ops[v].n_inputs;
    x->pred = malloc(sizeof(int32_t) * (size_t)(edges ? edges : 1));
    x->succ = malloc(sizeof(int32_t) * (size_t)(edges ? edges : 1));
    if (!x->u || !x->unit_of || !x->local || !x->pred_start || !x->succ_start || !x->pred || !x->succ)
        return lf_set_error(LF_ENOMEM, "schedule: out of memory for %d ops", (int)n);
    for (int32_t v = 0; v < n; v++)
        x->unit_of[v] = x->local[v] = -1;
    for (int32_t v = 0; v < n; v++) {
        const lf_op *op = &g->ops[v];
        if (op->type == LF_OP_INPUT)
            continue;
        if (lf_op_has(op->type, LF_OPF_ACTIVATION) && op->n_inputs == 1) {
            const lf_op *m = &g->ops[op->inputs[0]];
            int32_t mu = x->unit_of[op->inputs[0]];
            if (mu >= 0 && x->u[mu].epi < 0 && x->u[mu].op == op->inputs[0] && lf__takes_epilogue(m)) {
                x->u[mu].epi = v;
                x->unit_of[v] = mu;
                continue;
            }
        }
        x->u[x->n] = (lf__sunit){v, -1};
        x->unit_of[v] = x->n++;
    }
    if (x->n == 0)
        return lf_set_error(LF_EGRAPH, "schedule: graph '%s' has no ops to schedule", g->name ? g->name : "?");
    /* predecessors: the units of the main op's activation inputs */
    int32_t k = 0;
    for (int32_t i = 0; i < x->n; i++) {
        x->pred_start[i] = k;
        const lf_op *op = &g->ops[x->u[i].op];
        int32_t k0 = k;
        for (int32_t p = 0; p < op->n_inputs; p++) {
            int32_t pu = x->unit_of[op->inputs[p]];
            if (pu >= 0)
                x->pred[k++] = pu;
        }
        k = k0 + lf__sort_unique(x->pred + k0, k - k0);
        for (int32_t p = k0; p < k; p++)
            x->succ_start[x->pred[p] + 1]++;
    }
    x->pred_start[x->n] = k;
    for (int32_t i = 0; i < x->n; i++)
        x->succ_start[i + 1] += x->succ_start[i];
    int32_t *fill = calloc((size_t)x->n, sizeof *fill);
    if (!fill)
        return lf_set_error(LF_ENOMEM, "schedule: out of memory");
    for (int32_t i = 0; i < x->n; i++) /* ascending i: successor lists come out sorted */
        for (int32_t p = x->pred_start[i]; p < x->pred_start[i + 1]; p++) {
            int32_t q = x->pred[p];
            x->succ[x->succ_start[q] + fill[q]++] = i;
        }
    free(fill);
    x->stats->units = x->n;
    return LF_OK;
}

void lf__sched_teardown(lf__sched *x)
{
    free(x->u);
    free(x->unit_of);
    free(x->local);
    free(x->pred_start);
    free(x->pred);
    free(x->succ_start);
    free(x->succ);
    lf__sbuf_free(&x->view);
    lf__config_memo_free(x);
    memset(x, 0, sizeof *x);
}
