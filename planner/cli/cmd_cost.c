/* fusionplan cost: one group's F_beta and F_D with the row windows behind them. */
#include <stdio.h>

#include "planner/cli/cli.h"
#include "planner/optable.h"

static const char *lf__role(lf_tensor_role r)
{
    switch (r) {
    case LF_ROLE_INPUT: return "in";
    case LF_ROLE_INTERNAL: return "internal";
    case LF_ROLE_OUTPUT: return "out";
    default: return "internal+out";
    }
}

int lf_cmd_cost(int argc, char **argv)
{
    lf_cli_opt opts[] = {
        LF_CLI_MODEL_OPTS,
        {"group", "OPS", "ops of the group: names or ids, comma-separated; id ranges like 3-9", NULL},
    };
    lf_cli_command cmd = {"cost", "Evaluate one fusion group.",
                          "cost --group OPS [--model NAME] [--hw FILE] [--buffer SIZE] [--scheme lbdf|brr]",
                          "Prints F_beta (buffer bytes the group needs) and F_D (DRAM bytes it "
                          "moves), and for every tensor\nthe row window it holds on chip at the "
                          "moment of peak buffer use. See docs/cost-models.md.",
                          opts, (int)(sizeof opts / sizeof opts[0])};
    int rc = lf_cli_parse(&cmd, argc, argv);
    if (rc)
        return rc == 1 ? LF_EXIT_OK : rc;
    const char *list = lf_cli_get(&cmd, "group");
    if (!list)
        return lf_cli_usage_error(&cmd, "--group is required");
    lf_cli_session s;
    if ((rc = lf_cli_session_open(&s, &cmd)))
        return rc;
    const lf_graph *g = s.graph;
    lf_bitset grp;
    lf_cost_report rep = {0};
    lf_status st = lf_bitset_init(&grp, g->n_ops);
    if (st == LF_OK)
        st = lf_cli_parse_ops(g, list, &grp);
    if (st == LF_OK)
        st = lf_cost_explain(s.cm, &grp, &rep);
    if (st != LF_OK) {
        lf_bitset_destroy(&grp);
        lf_cli_session_close(&s);
        return lf_cli_fail(st);
    }
    const lf_group_cost *c = &rep.cost;
    char fb[32], fd[32], beta[32], w[32], f[32], in[32], out[32], mbu[32];
    lf_cli_commas(c->f_beta, fb, sizeof fb);
    lf_cli_commas(c->f_d, fd, sizeof fd);
    lf_cli_commas(lf_cost_beta(s.cm), beta, sizeof beta);
    lf_cli_commas(c->weights, w, sizeof w);
    lf_cli_commas(c->features, f, sizeof f);
    lf_cli_commas(c->in_bytes, in, sizeof in);
    lf_cli_commas(c->out_bytes, out, sizeof out);
    lf_cli_commas(c->mbu, mbu, sizeof mbu);
    printf("group     %d ops of %s under %s, beta %s B\n", (int)lf_bitset_count(&grp), g->name,
           lf_cost_scheme_name(s.cm), beta);
    if (c->f_beta == c->weights + c->features) {
        printf("F_beta    %s B = weights %s + feature rows %s  -> %s\n", fb, w, f,
               c->valid ? "valid" : "INVALID (F_beta >= beta)");
    } else {
        char blk[32];
        lf_cli_commas(c->f_beta - c->features, blk, sizeof blk);
        printf("F_beta    %s B = feature rows %s + one weight block %s  -> %s\n", fb, f, blk,
               c->valid ? "valid" : "INVALID (F_beta >= beta)");
    }
    printf("F_D       %s B = inputs %s + outputs %s + %d x weights %s", fd, in, out,
           (int)c->weight_reads, w);
    if (c->reread_bytes > 0) {
        char rr[32];
        lf_cli_commas(c->reread_bytes, rr, sizeof rr);
        printf(" + read again after the wait %s", rr);
    }
    printf("\n");
    if (c->wait_resident || c->reread_bytes > 0)
        printf("wait      tensors read before and after a squeeze-and-excite wait are %s\n",
               c->wait_resident ? "kept resident through it"
                                : "read from DRAM again after it");
    printf("MBU       %s B%s\n", mbu,
           c->weight_reads > 1 ? " (weights streamed per row tile)" : "");
    if (c->weight_reads > 1 || c->tile_rows > 1)
        printf("tiles     %d output rows per tile, weights read %d times\n", (int)c->tile_rows,
               (int)c->weight_reads);
    printf("peak      %s; %d snapshot(s) evaluated\n\n", rep.snapshot, (int)rep.n_snapshots);
    printf("%-34s %-12s %-16s %9s %6s %7s %10s %10s %12s\n", "tensor", "role", "shape", "window",
           "rows", "staging", "row B", "buffer B", "DRAM B");
    for (int32_t i = 0; i < rep.n_rows; i++) {
        const lf_window_row *r = &rep.rows[i];
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
        lf_cli_commas(r->row_bytes, rb, sizeof rb);
        lf_cli_commas(r->bytes, bb, sizeof bb);
        lf_cli_commas(r->dram_bytes, db, sizeof db);
        printf("%-34s %-12s %-16s %9s %6lld %7lld %10s %10s %12s%s%s\n", op->name, lf__role(r->role),
               shape, win, (long long)(r->rows + r->rows2), (long long)r->staging, rb, bb, db,
               r->view ? "  (zero-copy view)" : "",
               r->wait == LF_WAIT_RESIDENT ? "  (kept through the wait)"
               : r->wait == LF_WAIT_REREAD ? "  (read again after the wait)" : "");
    }
    lf_cost_report_destroy(&rep);
    lf_bitset_destroy(&grp);
    lf_cli_session_close(&s);
    return LF_EXIT_OK;
}
