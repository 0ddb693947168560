/* fusionplan bench attention: the FlashAttention yardstick (DESIGN §16). One
 * attention layer's core planned exactly at every buffer from --from to --to
 * (doubling), next to FlashAttention's N² d² / M and the unfused traffic. A
 * benchmark: it prints figures; the measurement is the library's
 * (planner/attn_io.h). */
#include <stdio.h>

#include "planner/attn_io.h"
#include "planner/app/cli/cli.h"
#include "planner/cost/cost.h"

int lf_cmd_bench_attention(int argc, char **argv)
{
    lf_cli_opt opts[] = {
        {"seq-len", "N", "tokens (query and key rows; default 1024)", NULL},
        {"dim", "D", "head width d (default 64)", NULL},
        {"heads", "H", "heads (default 12)", NULL},
        {"causal", NULL, "mask the scores causally (decoder prefill)", NULL},
        {"scheme", "NAME", "lbdf or brr (default brr)", NULL},
        {"from", "SIZE", "smallest buffer (default 16KB)", NULL},
        {"to", "SIZE", "largest buffer (default 8MB)", NULL},
    };
    lf_cli_command cmd = {"bench attention",
                          "The optimum's attention traffic next to FlashAttention's N^2 d^2 / M",
                          "bench attention [--seq-len N] [--dim D] [--heads H] [--causal] [--scheme NAME] "
                          "[--from SIZE] [--to SIZE]",
                          "Plans the core of one attention layer (S = Q K^T, [causal mask], P = "
                          "softmax(S), O = P V; Q, K, V\nread from DRAM, O written) exactly at "
                          "every buffer size from --from to --to, doubling, and\nprints the "
                          "optimum's DRAM, FlashAttention's heads x N^2 d^2 / M bytes (M = buffer / "
                          "activation\nbytes elements; Dao et al. 2022, Theorem 2), their ratio, the "
                          "unfused (layer-by-layer)\nDRAM and how the optimum runs the core "
                          "(docs/cost-models.md \"Attention\").",
                          opts, (int)(sizeof opts / sizeof opts[0])};
    int rc = lf_cli_parse(&cmd, argc, argv);
    if (rc)
        return rc == 1 ? LF_EXIT_OK : rc;
    int64_t n, d, h, lo, hi;
    if ((rc = lf_cli_int(&cmd, "seq-len", 1024, 1, 1 << 20, &n)) || (rc = lf_cli_int(&cmd, "dim", 64, 1, 1 << 16, &d)) ||
        (rc = lf_cli_int(&cmd, "heads", 12, 1, 1 << 12, &h)))
        return rc;
    const char *scheme = lf_cli_get_or(&cmd, "scheme", "brr");
    if (lf_cost_scheme_weights_resident(scheme) < 0)
        return lf_cli_usage_error(&cmd, "unknown --scheme '%s' (use lbdf or brr)", scheme);
    if (lf_hw_parse_size(lf_cli_get_or(&cmd, "from", "16KB"), &lo) != LF_OK ||
        lf_hw_parse_size(lf_cli_get_or(&cmd, "to", "8MB"), &hi) != LF_OK || lo < 1 || hi < lo)
        return lf_cli_usage_error(&cmd, "--from and --to must be sizes with --from <= --to");
    lf_attn_io_config cfg = {n, d, h, lf_cli_get(&cmd, "causal") != NULL, scheme};
    lf_graph *g = NULL;
    lf_status st = lf_attn_io_graph(&cfg, &g);
    if (st != LF_OK)
        return lf_cli_fail(st);
    lf_hw hw;
    lf_hw_default(&hw);
    printf("# bench attention: N %lld, d %lld, heads %lld%s, %s, %lld-byte activations; exact "
           "optimum of the core per buffer\n\n",
           (long long)n, (long long)d, (long long)h, cfg.causal ? ", causal" : "", scheme,
           (long long)hw.act_bytes);
    printf("| buffer | optimum (B) | N^2 d^2 / M (B) | ratio | unfused (B) | optimum / unfused | K/V | "
           "softmax | Br x Bc | K/V reads |\n|---|---|---|---|---|---|---|---|---|---|\n");
    for (int64_t beta = lo; beta <= hi && st == LF_OK; beta *= 2) {
        lf_attn_io_row r;
        if ((st = lf_attn_io_measure(&cfg, g, &hw, beta, &r)) != LF_OK)
            break;
        char b[32];
        lf_hw_format_size(beta, b, sizeof b);
        const char *kv = !r.attn ? "-"
                         : (r.attn & LF_ATTN_RESIDENT) ? ((r.attn & LF_ATTN_HEADS) ? "resident per head" : "resident")
                                                        : "streamed";
        const char *sm = !(r.attn & LF_ATTN_CORE) ? "unfused" : (r.attn & LF_ATTN_ONLINE) ? "online" : "whole rows";
        printf("| %s | %lld | %.0f | %.2f | %lld | %.3f | %s | %s | %d x %d | %d |\n", b, (long long)r.optimum,
               r.flash, r.flash > 0 ? (double)r.optimum / r.flash : 0.0, (long long)r.unfused,
               r.unfused > 0 ? (double)r.optimum / (double)r.unfused : 0.0, kv, sm, (int)r.br, (int)r.bc,
               (int)r.kv_reads);
        fflush(stdout);
    }
    lf_graph_free(g);
    return st == LF_OK ? LF_EXIT_OK : lf_cli_fail(st);
}
