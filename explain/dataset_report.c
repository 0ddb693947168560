/* The report of a built dataset (`fusionplan dataset`): split sizes and the
 * valid fraction per network and buffer size. */
#include <stdio.h>

#include "explain/dataset.h"

void lf_dataset_report_write(FILE *f, const lf_dataset *ds)
{
    fprintf(f, "split     train %lld, validation %lld, test %lld groups\n",
            (long long)lf_dataset_count(ds, LF_DS_TRAIN), (long long)lf_dataset_count(ds, LF_DS_VAL),
            (long long)lf_dataset_count(ds, LF_DS_TEST));
    fprintf(f, "\nvalid fraction per network and buffer size:\n");
    fprintf(f, "%-20s %7s %7s", "network", "asked", "groups");
    for (int32_t b = 0; b < ds->n_betas; b++) {
        char lab[32];
        snprintf(lab, sizeof lab, "%lldKB", (long long)(ds->betas[b] / 1024));
        fprintf(f, " %7s", lab);
    }
    fprintf(f, "\n");
    int64_t tot_valid[LF_DS_MAX_BETAS] = {0};
    for (int32_t k = 0; k < ds->n_networks; k++) {
        int64_t n = 0, valid[LF_DS_MAX_BETAS] = {0};
        for (int64_t i = 0; i < ds->n_groups; i++) {
            const lf_ds_group *g = &ds->groups[i];
            if (g->network != k)
                continue;
            n++;
            for (int32_t b = 0; b < ds->n_betas; b++)
                valid[b] += g->valid[b];
        }
        fprintf(f, "%-20s %7d %7lld", ds->networks[k], (int)ds->requested[k], (long long)n);
        for (int32_t b = 0; b < ds->n_betas; b++) {
            tot_valid[b] += valid[b];
            fprintf(f, " %7.3f", n ? (double)valid[b] / (double)n : 0.0);
        }
        fprintf(f, "\n");
    }
    fprintf(f, "%-20s %7s %7lld", "all", "", (long long)ds->n_groups);
    for (int32_t b = 0; b < ds->n_betas; b++)
        fprintf(f, " %7.3f", ds->n_groups ? (double)tot_valid[b] / (double)ds->n_groups : 0.0);
    fprintf(f, "\n");
}
