/* fusionplan rules --generate: TASO's rule generator (lf_subst_rulegen), and
 * --cover FILE: how many rules of another collection (TASO's) it finds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner/app/cli/cli.h"
#include "planner/util/fileio.h"
#include "search/subst/subst.h"

typedef struct lf__bytes {
    const uint8_t *data;
    size_t len;
} lf__bytes;

static lf_status lf__write_bytes(FILE *f, const void *user)
{
    const lf__bytes *b = user;
    return fwrite(b->data, 1, b->len, f) == b->len ? LF_OK : lf_set_error(LF_EIO, "write failed");
}

int lf_cmd_rules_generate(int argc, char **argv)
{
    lf_cli_opt opts[] = {
        {"generate", NULL, "generate rules (TASO's method) instead of listing them", NULL},
        {"max-ops", "K", "ops per graph, 1 to 5 (default 3)", NULL},
        {"types", "LIST", "op types, comma-separated: conv, relu, concat, add, mul, matmul (default all)", NULL},
        {"seed", "S", "seed of the fingerprints' random inputs (default 1)", NULL},
        {"threads", "T", "OpenMP threads (default 1); the file does not depend on it", NULL},
        {"output", "FILE", "rule file to write (TASO's format; -o)", NULL},
        {"cover", "FILE", "also report how many rules of this collection (e.g. TASO's) the generated set holds", NULL},
    };
    lf_cli_command cmd = {"rules --generate", "Generate substitution rules.",
                          "rules --generate [--max-ops K] [--types LIST] [--seed S] [--threads T] -o FILE "
                          "[--cover TASO_FILE]",
                          "Enumerates every graph of up to K ops over the op types on 2-D matrices and on 4-D\n"
                          "activations with conv weights, fingerprints each on random inputs with the executor,\n"
                          "pairs graphs with equal fingerprints into rules, drops those that follow from a\n"
                          "common subgraph or by renaming, verifies the rest numerically on three other shapes\n"
                          "and writes them in TASO's rule format (read back with --rules generated or\n"
                          "--generated-file FILE; `fusionplan rules` lists them).",
                          opts, (int)(sizeof opts / sizeof opts[0])};
    int rc = lf_cli_parse(&cmd, argc, argv);
    if (rc)
        return rc == 1 ? LF_EXIT_OK : rc;
    int64_t k = 0, seed = 0, threads = 0;
    if ((rc = lf_cli_int(&cmd, "max-ops", 3, 1, 5, &k)) || (rc = lf_cli_int(&cmd, "seed", 1, 0, INT64_MAX, &seed)) ||
        (rc = lf_cli_int(&cmd, "threads", 1, 1, 1024, &threads)))
        return rc;
    const char *out = lf_cli_get(&cmd, "output");
    if (!out) {
        fprintf(stderr, "fusionplan: rules --generate needs -o FILE\n");
        return LF_EXIT_USAGE;
    }
    lf_subst_rulegen_opts o = {(int32_t)k, lf_cli_get(&cmd, "types"), (uint64_t)seed, (int32_t)threads};
    lf_subst_rulegen_stats s;
    uint8_t *buf = NULL;
    size_t len = 0;
    lf_status st = lf_subst_rulegen(&o, &buf, &len, &s);
    if (st)
        return lf_cli_fail(st);
    lf__bytes b = {buf, len};
    st = lf_atomic_write(out, lf__write_bytes, &b);
    if (!st) {
        printf("%lld graphs of up to %d ops; %lld fingerprint classes, %lld ordered pairs; %lld dropped for a "
               "common subgraph, %lld as renamings; %lld verified, %lld failed, %lld merge variables of another; %lld "
               "rules written to %s\n",
               (long long)s.graphs, (int)k, (long long)s.classes, (long long)s.pairs, (long long)s.pruned_common,
               (long long)s.pruned_renaming, (long long)s.candidates, (long long)s.failed,
               (long long)s.pruned_merged, (long long)s.rules, out);
    }
    const char *cover = lf_cli_get(&cmd, "cover");
    if (!st && cover) {
        char *ref = NULL;
        long rlen = 0;
        if (!(st = lf_read_file_capped(cover, (int64_t)64 << 20, "rule file", &ref, &rlen))) {
            int32_t mappable = 0, found = 0, merged = 0, missing[256], n_missing = 0;
            const char *why[256];
            st = lf_subst_rules_cover(buf, len, (const uint8_t *)ref, (size_t)rlen, &mappable, &found, &merged, missing, why,
                                      256, &n_missing);
            if (!st) {
                printf("%d of the %d mappable rules of %s are generated (up to renaming; %d of them as a "
                       "generated rule with variables merged)\n",
                       (int)found, (int)mappable, cover, (int)merged);
                for (int32_t i = 0; i < n_missing && i < 256; i++)
                    printf("  missing rule %d: %s\n", (int)missing[i], why[i]);
            }
            free(ref);
        }
    }
    free(buf);
    return st ? lf_cli_fail(st) : LF_EXIT_OK;
}
