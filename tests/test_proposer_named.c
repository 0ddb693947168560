/* Proposers by name (splitter/proposer_named.h): GNNExplainer's settings
 * after the name ("gnne:epochs=7") reach the explainer exactly (the proposal
 * equals the one of an explainer created with that config, and differs from
 * the default's), other proposers take none, and every malformed setting is
 * refused with a message naming it, before any weights are read. */
#include <string.h>

#include "splitter/proposer_named.h"
#include "explain/weights.h"
#include "models/registry.h"
#include "planner/app/registry.h"
#include "tests/fixtures.h"
#include "tests/testlib.h"

#define GNN LF_SOURCE_DIR "/explain/weights/gnn-lbdf.bin"

static void test_names(void)
{
    const char *good[] = {"gnne", "gnne:epochs=20", "gnne:epochs=20:patience=5:top=3",
                          "gnne:patience=0", "pg", "rg", "attrib", "all"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        CHECK_OK(lf_named_proposer_check(good[i]));
        CHECK(lf_named_proposer_known(good[i]));
        CHECK(lf_name_known(LF_NAMES_PROPOSER, good[i]));
    }
    struct {
        const char *name, *says;
    } bad[] = {{"gnne:", "expected KEY=VALUE"},
               {"gnne:epochs", "expected KEY=VALUE"},
               {"gnne:epochs=", "expected KEY=VALUE"},
               {"gnne:epochs=1x", "must be an integer"},
               {"gnne:epochs=-1", "must be an integer"},
               {"gnne:epochs=100001", "must be an integer"},
               {"gnne:lr=1", "unknown parameter 'lr' of proposer 'gnne:lr=1'"},
               {"gnne:epochs=5:", "expected KEY=VALUE"},
               {"pg:epochs=1", "proposer 'pg' takes no parameters"},
               {"attrib:k=1", "proposer 'attrib' takes no parameters"},
               {"oracle", "unknown proposer 'oracle'"},
               {"oracle:epochs=1", "takes no parameters"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK(lf_named_proposer_check(bad[i].name) == LF_EINVAL);
        CHECK(strstr(lf_last_error(), bad[i].says) != NULL);
        CHECK(!lf_named_proposer_known(bad[i].name));
    }
    /* The registry knows the name before the colon; the settings are this
     * file's to check. */
    CHECK(lf_name_known(LF_NAMES_PROPOSER, "gnne:lr=1"));
    CHECK(!lf_name_known(LF_NAMES_PROPOSER, "gnn:epochs=1"));
    CHECK(!lf_name_known(LF_NAMES_SEARCH, "local:x"));
}

/* Every edge of the group, ranked, from proposer p. */
static int32_t propose_all(const lf_proposer *p, lf_cost_model *cm, const lf_bitset *grp,
                           lf_edge_score *out)
{
    int32_t n = 0;
    CHECK_OK(lf_proposer_run(p, cm, grp, 11, 0, out, &n));
    return n;
}

static void test_settings_reach_the_explainer(void)
{
    lf_graph *g = NULL;
    lf_model_options mo = {0, 1};
    CHECK_OK(lf_model_build("resnet18", &mo, &g));
    if (!g)
        return;
    lf_cost_model *cm = tf_model_default(g, 65536, "lbdf");
    lf_bitset grp;
    CHECK_OK(lf_bitset_init(&grp, g->n_ops));
    for (int32_t v = 1; v <= 10; v++)
        lf_bitset_set(&grp, v);
    int32_t ne = lf_group_edge_count(g, &grp);
    CHECK(ne > 3);
    lf_edge_score a[64], b[64], c[64];
    CHECK(ne <= 64);

    lf_named_proposer np;
    CHECK_OK(lf_named_proposer_open(&np, "gnne:epochs=7", cm, GNN, NULL, NULL));
    int32_t na = propose_all(np.proposer, cm, &grp, a);
    lf_named_proposer_close(&np);

    lf_gnn m;
    CHECK_OK(lf_gnn_load(&m, GNN, NULL));
    lf_gnne_config cfg;
    lf_gnne_config_default(&cfg);
    cfg.epochs = 7;
    lf_explainer *e = NULL;
    lf_proposer *p = NULL;
    CHECK_OK(lf_explainer_gnne_create(&e, &cfg));
    CHECK_OK(lf_proposer_from_explainer(&p, e, &m));
    int32_t nb = propose_all(p, cm, &grp, b);
    CHECK(na == ne && nb == ne);
    CHECK(memcmp(a, b, (size_t)ne * sizeof a[0]) == 0);
    lf_proposer_free(p);
    lf_explainer_free(e);
    lf_gnn_destroy(&m);

    /* PyG's 100 iterations score the edges differently. */
    CHECK_OK(lf_named_proposer_open(&np, "gnne", cm, GNN, NULL, NULL));
    int32_t nc = propose_all(np.proposer, cm, &grp, c);
    lf_named_proposer_close(&np);
    CHECK(nc == ne && memcmp(a, c, (size_t)ne * sizeof a[0]) != 0);

    /* A bad setting is refused before the weights are read: a missing
     * weight file is not what the message names. */
    CHECK(lf_named_proposer_open(&np, "gnne:epoch=7", cm, "/nonexistent/gnn.bin", NULL, NULL) ==
          LF_EINVAL);
    CHECK(strstr(lf_last_error(), "unknown parameter 'epoch'") != NULL);
    lf_named_proposer_close(&np);

    lf_bitset_destroy(&grp);
    lf_cost_model_free(cm);
    lf_graph_free(g);
}

int main(void)
{
    test_names();
    test_settings_reach_the_explainer();
    return lf_test_result();
}
