/* libFuzzer harness: the plan reader (lf_plan_doc_read_memory: JSON through
 * jansson, XML through libxml2 and the built-in plan.xsd) and, for a plan of
 * its network, the validator (lf_plan_validate) on arbitrary bytes. The
 * seeds (corpus/plan) are plans of squeezenet1_1 written by `fusionplan plan
 * -o` as JSON and XML, so mutations reach the validator with a matching
 * graph hash; tiny_annotated*.onnx are annotated ONNX plans of
 * tests/data/onnx/tiny.onnx (one with an edited figure), which reach the
 * ONNX plan reader (node metadata checked against the embedded plan).
 *
 * A refused file gives one printable line that starts with the origin; an
 * accepted one has every op id and group index in range; the validator
 * returns LF_OK with printable discrepancy lines, or refuses with one line
 * naming the origin. */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_check.h"
#include "models/registry.h"
#include "planner/io/plan_read.h"
#include "planner/app/registry.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void lf__issue_ok(void *user, const char *message)
{
    int32_t *n = user;
    (*n)++;
    LF_FUZZ_REQUIRE(message && message[0] && strlen(message) < LF_MESSAGE_MAX);
    for (const unsigned char *p = (const unsigned char *)message; *p; p++)
        LF_FUZZ_REQUIRE(*p >= 0x20 && *p != 0x7f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static lf_graph *g;
    if (!g && lf_model_build("squeezenet1_1", NULL, &g) != LF_OK)
        abort();
    lf_plan_doc doc;
    if (lf_plan_doc_read_memory(&doc, data, size, "fuzz.json") != LF_OK) {
        lf_fuzz_check_message("fuzz.json");
        lf_plan_doc_destroy(&doc);
        return 0;
    }
    LF_FUZZ_REQUIRE(doc.n_ops >= 1 && doc.plan.n_ops == doc.n_ops);
    LF_FUZZ_REQUIRE(doc.plan.n_groups <= doc.n_ops);
    for (int32_t v = 0; v < doc.n_ops; v++)
        LF_FUZZ_REQUIRE(doc.plan.group_of[v] >= -1 && doc.plan.group_of[v] < doc.plan.n_groups);
    for (int32_t i = 0; i < doc.n_groups; i++) {
        LF_FUZZ_REQUIRE(doc.groups[i].n_ops >= 1 && doc.groups[i].id < doc.n_ops);
        for (int32_t j = 0; j < doc.groups[i].n_ops; j++)
            LF_FUZZ_REQUIRE(doc.groups[i].ops[j] >= 0 && doc.groups[i].ops[j] < doc.n_ops);
    }
    for (int32_t i = 0; i < doc.n_unfusable; i++)
        LF_FUZZ_REQUIRE(doc.unfusable[i].op >= 0 && doc.unfusable[i].op < doc.n_ops);
    lf_cost_model *cm = NULL;
    if (lf_name_known(LF_NAMES_SCHEME, doc.scheme) &&
        lf_cost_model_create(&cm, g, &doc.hw, doc.scheme) == LF_OK) {
        int32_t n = 0, counted = 0;
        lf_status st = lf_plan_validate(&doc, cm, lf__issue_ok, &counted, &n);
        LF_FUZZ_REQUIRE(n == counted);
        if (st != LF_OK) {
            LF_FUZZ_REQUIRE(st < 0 && st >= LF_STATUS_MIN);
            if (st == LF_EPLAN)
                lf_fuzz_check_message("fuzz.json");
        }
        lf_cost_model_free(cm);
    }
    lf_plan_doc_destroy(&doc);
    return 0;
}
