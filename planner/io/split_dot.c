/* The split picture (split_dot.h): clusters first, then the edges inside the
 * parts, the cut ones red. */
#include "planner/io/split_dot.h"

#include <stdlib.h>

#include "planner/io/dot_text.h"
#include "planner/util/fileio.h"

lf_status lf_split_write_dot(FILE *f, const lf_graph *g, lf_cost_model *cm, const lf_bitset *parts,
                             int32_t n_parts)
{
    int32_t *part_of = malloc((size_t)(g->n_ops ? g->n_ops : 1) * sizeof *part_of);
    if (!part_of)
        return lf_set_error(LF_ENOMEM, "out of memory drawing a split");
    for (int32_t v = 0; v < g->n_ops; v++)
        part_of[v] = -1;
    lf_status st = LF_OK;
    fprintf(f, "digraph split {\n  rankdir=TB;\n  node [shape=box, fontsize=10];\n");
    for (int32_t q = 0; q < n_parts && st == LF_OK; q++) {
        lf_group_cost c;
        if ((st = lf_cost_eval(cm, &parts[q], &c)) != LF_OK)
            break;
        fprintf(f, "  subgraph cluster_%d {\n    label=\"part %d: F_beta %lld B, F_D %lld B\";\n",
                (int)q, (int)q, (long long)c.f_beta, (long long)c.f_d);
        for (int32_t v = lf_bitset_next(&parts[q], 0); v >= 0; v = lf_bitset_next(&parts[q], v + 1)) {
            part_of[v] = q;
            fprintf(f, "    n%d [label=\"%d ", (int)v, (int)v);
            lf_dot_text(f, g->ops[v].name);
            fprintf(f, "\"];\n");
        }
        fprintf(f, "  }\n");
    }
    for (int32_t v = 0; v < g->n_ops && st == LF_OK; v++) {
        if (part_of[v] < 0)
            continue;
        for (int32_t c = 0; c < g->ops[v].n_consumers; c++) {
            int32_t w = g->ops[v].consumers[c];
            if (part_of[w] < 0)
                continue;
            if (part_of[w] != part_of[v])
                fprintf(f, "  n%d -> n%d [color=red, penwidth=2.5];\n", (int)v, (int)w);
            else
                fprintf(f, "  n%d -> n%d;\n", (int)v, (int)w);
        }
    }
    fprintf(f, "}\n");
    free(part_of);
    return st;
}

lf_status lf_split_save_dot(const char *path, const lf_graph *g, lf_cost_model *cm,
                            const lf_bitset *parts, int32_t n_parts)
{
    lf_atomic_file af;
    lf_status st = lf_atomic_open(&af, path);
    if (st == LF_OK && (st = lf_split_write_dot(af.f, g, cm, parts, n_parts)) != LF_OK)
        lf_atomic_abort(&af);
    return st == LF_OK ? lf_atomic_commit(&af) : st;
}
