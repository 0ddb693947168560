/* `fusionplan cost`'s text: one group's evaluation explained term by term
 * and tensor by tensor (lf_cost_explain), into a caller's stream. */
#include <stdio.h>

#include "planner/cost/cost.h"
#include "planner/cost/energy.h"
#include "planner/util/format.h"

static const char *lf__role(lf_tensor_role r)
{
    switch (r) {
    case LF_ROLE_INPUT: return "in";
    case LF_ROLE_INTERNAL: return "internal";
    case LF_ROLE_OUTPUT: return "out";
    default: return "internal+out";
    }
}

/* How an attention group runs (attn.c): the order of heads, K/V resident
 * or streamed and how often, the softmax, the tiles Br x Bc. */
static void lf__print_attn(FILE *out, const lf_group_cost *c)
{
    char kvb[32];
    lf_format_commas(c->kv_bytes, kvb, sizeof kvb);
    fprintf(out, "attention %s; K/V (%s B) %s", (c->attn & LF_ATTN_HEADS) ? "heads one after another"
                                                                          : "all heads in each query tile",
            kvb, (c->attn & LF_ATTN_RESIDENT) ? "resident, read once" : "streamed");
    if (!(c->attn & LF_ATTN_RESIDENT))
        fprintf(out, ", read by %d query tiles%s", (int)c->kv_reads,
                (c->attn & LF_ATTN_CAUSAL) ? " up to their diagonal (causal)" : "");
    else if (c->attn & LF_ATTN_CAUSAL)
        fprintf(out, " (causal)");
    fprintf(out, "\n          %s; tiles Br x Bc = %d x %d\n",
            (c->attn & LF_ATTN_ONLINE)  ? "scores in key blocks with online softmax (S, P on chip)"
            : (c->attn & LF_ATTN_CORE)  ? "scores on whole key rows (S, P on chip)"
                                        : "partial core: scores or probabilities written as tensors",
            (int)c->attn_br, (int)c->attn_bc);
}

/* The group's figures: F_beta and F_D as sums (a read again after a
 * squeeze-and-excite wait included), the wait's choice, MBU, tiles and the
 * peak. */
static void lf__print_terms(FILE *out, lf_cost_model *cm, const lf_bitset *group,
                            const lf_cost_report *rep)
{
    const lf_group_cost *c = &rep->cost;
    char fb[32], fd[32], beta[32], w[32], f[32], in[32], o[32], mbu[32];
    lf_format_commas(c->f_beta, fb, sizeof fb);
    lf_format_commas(c->f_d, fd, sizeof fd);
    lf_format_commas(lf_cost_beta(cm), beta, sizeof beta);
    lf_format_commas(c->weights, w, sizeof w);
    lf_format_commas(c->features, f, sizeof f);
    lf_format_commas(c->in_bytes, in, sizeof in);
    lf_format_commas(c->out_bytes, o, sizeof o);
    lf_format_commas(c->mbu, mbu, sizeof mbu);
    fprintf(out, "group     %d ops of %s under %s, beta %s B\n", (int)lf_bitset_count(group),
            lf_cost_graph(cm)->name, lf_cost_scheme_name(cm), beta);
    if (c->col_able) {
        fprintf(out, "F_beta    %s B = one input row + one column of the matrix + one output  -> %s\n",
                fb, c->valid ? "valid" : "INVALID (F_beta >= beta)");
    } else if (c->f_beta == c->weights + c->features) {
        fprintf(out, "F_beta    %s B = weights %s + feature rows %s  -> %s\n", fb, w, f,
                c->valid ? "valid" : "INVALID (F_beta >= beta)");
    } else {
        char blk[32];
        lf_format_commas(c->f_beta - c->features, blk, sizeof blk);
        fprintf(out, "F_beta    %s B = feature rows %s + one weight block %s  -> %s\n", fb, f, blk,
                c->valid ? "valid" : "INVALID (F_beta >= beta)");
    }
    fprintf(out, "F_D       %s B = inputs %s + outputs %s + %d x weights %s", fd, in, o,
            (int)c->weight_reads, w);
    if (c->reread_bytes > 0) {
        char rr[32];
        lf_format_commas(c->reread_bytes, rr, sizeof rr);
        fprintf(out, " + read again after the wait %s", rr);
    }
    if (c->kv_dram > 0 || c->pass_dram > 0) {
        char kv[32], pd[32];
        lf_format_commas(c->kv_dram, kv, sizeof kv);
        lf_format_commas(c->pass_dram, pd, sizeof pd);
        fprintf(out, " + K/V streamed %s + inputs read in both passes %s", kv, pd);
    }
    if (c->col_blocks > 0) {
        char cd[32];
        lf_format_commas(c->col_dram, cd, sizeof cd);
        fprintf(out, " + input read again per column block %s", cd);
    }
    fprintf(out, "\n");
    if (c->col_blocks > 0)
        fprintf(out, "columns   %d blocks of %d output columns: the matrix read once, the input %d times\n",
                (int)c->col_blocks, (int)c->col_bc, (int)c->col_blocks);
    if (c->attn)
        lf__print_attn(out, c);
    if (c->wait_resident || c->reread_bytes > 0)
        fprintf(out, "wait      tensors read before and after a squeeze-and-excite wait are %s\n",
                c->wait_resident ? "kept resident through it" : "read from DRAM again after it");
    fprintf(out, "MBU       %s B%s\n", mbu,
            c->weight_reads > 1 && c->weights > 0 ? " (weights streamed per row tile)" : "");
    if (c->weight_reads > 1 || c->tile_rows > 1)
        fprintf(out, "tiles     %d output rows per tile, weights read %d times\n", (int)c->tile_rows,
                (int)c->weight_reads);
    fprintf(out, "peak      %s; %d snapshot(s) evaluated\n\n", rep->snapshot, (int)rep->n_snapshots);
}

void lf_cost_report_print(FILE *out, lf_cost_model *cm, const lf_bitset *group, const lf_cost_report *rep)
{
    const lf_graph *g = lf_cost_graph(cm);
    lf__print_terms(out, cm, group, rep);
    fprintf(out, "%-34s %-12s %-16s %9s %6s %7s %10s %10s %12s\n", "tensor", "role", "shape", "window",
            "rows", "staging", "row B", "buffer B", "DRAM B");
    for (int32_t i = 0; i < rep->n_rows; i++) {
        const lf_window_row *r = &rep->rows[i];
        const lf_op *op = &g->ops[r->tensor];
        char shape[48], win[96], rb[32], bb[32], db[32];
        snprintf(shape, sizeof shape, "%lldx%lldx%lld", (long long)op->out.c, (long long)op->out.h,
                 (long long)op->out.w);
        if (r->rows2)
            snprintf(win, sizeof win, "[%lld,%lld]+[%lld,%lld]", (long long)r->lo, (long long)r->hi,
                     (long long)r->lo2, (long long)r->hi2);
        else if (r->rows || r->view)
            snprintf(win, sizeof win, "[%lld,%lld]", (long long)r->lo, (long long)r->hi);
        else
            snprintf(win, sizeof win, "-");
        lf_format_commas(r->row_bytes, rb, sizeof rb);
        lf_format_commas(r->bytes, bb, sizeof bb);
        lf_format_commas(r->dram_bytes, db, sizeof db);
        fprintf(out, "%-34s %-12s %-16s %9s %6lld %7lld %10s %10s %12s%s%s\n", op->name,
                lf__role(r->role), shape, win, (long long)(r->rows + r->rows2), (long long)r->staging,
                rb, bb, db, r->view ? "  (zero-copy view)" : "",
                r->wait == LF_WAIT_RESIDENT ? "  (kept through the wait)"
                : r->wait == LF_WAIT_REREAD ? "  (read again after the wait)"
                                            : "");
    }
    lf_group_perf_print(out, cm, group, &rep->cost);
}
