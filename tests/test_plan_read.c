/* Reading plans back and validating them (planner/io/plan_read.h, issue 16):
 * plans written by lf_plan_write_json for several networks and schemes read
 * back equal and validate with no discrepancy; every truncation of a plan is
 * refused with one line naming the file; each kind of damage to a plan read
 * back (an op in no group, in two groups, a disconnected group, a cycle, a
 * changed figure, another graph) is reported with the line that names it;
 * exported XML plans validate against planner/io/plan.xsd and read back to
 * the JSON plan's content. */
#include <libxml/parser.h>
#include <libxml/xmlschemas.h>
#include <stdlib.h>
#include <string.h>

#include "models/registry.h"
#include "planner/io/plan_export.h"
#include "planner/io/plan_read.h"
#include "planner/app/pipeline.h"
#include "search/partition/simple.h"
#include "testlib.h"

typedef struct issues {
    int n;
    char first[LF_MESSAGE_MAX], all[8192];
} issues;

static void collect(void *user, const char *message)
{
    issues *is = user;
    if (is->n++ == 0)
        snprintf(is->first, sizeof is->first, "%s", message);
    size_t used = strlen(is->all);
    snprintf(is->all + used, sizeof is->all - used, "%s\n", message);
}

/* The plan of a network (greedy) as JSON (or XML) in memory, with its cost
 * model; xml > 1 adds a Pareto front of two plans (greedy and layer). */
static char *plan_text(const char *model, const char *scheme, int64_t beta, int xml, lf_graph **g,
                       lf_cost_model **cm, size_t *len)
{
    lf_hw hw;
    lf_hw_default(&hw);
    hw.buffer_bytes = beta;
    *g = NULL;
    *cm = NULL;
    if (lf_model_build(model, NULL, g) != LF_OK || lf_cost_model_create(cm, *g, &hw, scheme) != LF_OK)
        return NULL;
    lf_plan p;
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    lf_plan_meta meta = {.model = model, .search = "greedy", .budget = -1};
    lf_plan front[2];
    if (!f || lf_plan_greedy(*cm, &p) != LF_OK || lf_plan_copy(&front[0], &p) != LF_OK ||
        lf_plan_layer(*cm, &front[1]) != LF_OK)
        return NULL;
    if (xml > 1) {
        meta.pareto = front;
        meta.n_pareto = 2;
    }
    lf_status st = xml ? lf_plan_write_xml(f, &p, *cm, &meta) : lf_plan_write_json(f, &p, *cm, &meta);
    fclose(f);
    lf_plan_destroy(&p);
    lf_plan_destroy(&front[0]);
    lf_plan_destroy(&front[1]);
    return st == LF_OK ? buf : (free(buf), NULL);
}

static char *plan_json(const char *model, const char *scheme, int64_t beta, lf_graph **g,
                       lf_cost_model **cm, size_t *len)
{
    return plan_text(model, scheme, beta, 0, g, cm, len);
}

/* Exported XML plans validate against the shipped schema file (read here
 * from the source tree, not the copy compiled into the library), read back
 * to the JSON plan's content and validate with no discrepancy. */
static void test_xml(void)
{
    xmlSchemaParserCtxtPtr pc = xmlSchemaNewParserCtxt(LF_SOURCE_DIR "/planner/io/plan.xsd");
    xmlSchemaPtr schema = pc ? xmlSchemaParse(pc) : NULL;
    xmlSchemaValidCtxtPtr vc = schema ? xmlSchemaNewValidCtxt(schema) : NULL;
    CHECK(vc != NULL);
    static const struct {
        const char *model, *scheme;
        int64_t beta;
        int xml;
    } cases[] = {{"resnet18", "lbdf", 256 << 10, 1}, {"mobilenet_v2", "brr", 64 << 10, 2},
                 {"squeezenet1_1", "lbdf", 32 << 10, 2}};
    for (size_t c = 0; vc && c < sizeof cases / sizeof cases[0]; c++) {
        lf_graph *g, *g2;
        lf_cost_model *cm, *cm2;
        size_t len = 0, jlen = 0;
        char *xml = plan_text(cases[c].model, cases[c].scheme, cases[c].beta, cases[c].xml, &g, &cm, &len);
        char *json = plan_json(cases[c].model, cases[c].scheme, cases[c].beta, &g2, &cm2, &jlen);
        CHECK(xml && json);
        if (!xml || !json)
            continue;
        CHECK(strncmp(xml, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plan format=\"fusionplan-plan\"", 60) == 0);
        CHECK((strstr(xml, "<pareto>") != NULL) == (cases[c].xml > 1));
        xmlDocPtr doc = xmlReadMemory(xml, (int)len, "plan.xml", NULL, XML_PARSE_NONET);
        CHECK(doc != NULL);
        CHECK_EQ_I64(doc ? xmlSchemaValidateDoc(vc, doc) : -1, 0);
        xmlFreeDoc(doc);
        lf_plan_doc dx, dj;
        CHECK_OK(lf_plan_doc_read_memory(&dx, xml, len, "rt.xml"));
        CHECK_OK(lf_plan_doc_read_memory(&dj, json, jlen, "rt.json"));
        CHECK_STR(dx.graph_hash, dj.graph_hash);
        CHECK_STR(dx.hw.name, dj.hw.name);
        CHECK_EQ_I64(dx.hw.buffer_bytes, dj.hw.buffer_bytes);
        CHECK(dx.hw.dram_bandwidth == dj.hw.dram_bandwidth);
        CHECK_EQ_I64(dx.metrics.dram_fusable, dj.metrics.dram_fusable);
        CHECK_EQ_I64(dx.metrics.dram_all, dj.metrics.dram_all);
        CHECK(dx.metrics.dram_time_s == dj.metrics.dram_time_s);
        CHECK_EQ_I64(dx.n_groups, dj.n_groups);
        CHECK_EQ_I64(dx.n_unfusable, dj.n_unfusable);
        CHECK(memcmp(dx.plan.group_of, dj.plan.group_of, (size_t)dj.n_ops * sizeof(int32_t)) == 0);
        for (int32_t i = 0; i < dx.n_groups && i < dj.n_groups; i++) {
            CHECK_EQ_I64(dx.groups[i].n_ops, dj.groups[i].n_ops);
            CHECK_EQ_I64(dx.groups[i].f_beta, dj.groups[i].f_beta);
            CHECK_EQ_I64(dx.groups[i].f_d, dj.groups[i].f_d);
            CHECK_EQ_I64(dx.groups[i].valid, dj.groups[i].valid);
        }
        CHECK_EQ_I64(dx.n_pareto, cases[c].xml > 1 ? 2 : 0);
        issues is = {0};
        int32_t n = -1;
        CHECK_OK(lf_plan_validate(&dx, cm, collect, &is, &n));
        CHECK_EQ_I64(n, 0);
        if (is.n)
            fprintf(stderr, "%s xml: %s", cases[c].model, is.all);
        if (dx.n_pareto == 2) {
            /* The layer plan (pareto[1]) with its last op moved into group
             * 0: the rule it breaks is named, and its group count is one
             * fewer than the file says. */
            int32_t *go = dx.pareto[1].plan.group_of, last = dx.n_ops - 1;
            go[last] = go[1];
            memset(&is, 0, sizeof is);
            CHECK_OK(lf_plan_validate(&dx, cm, collect, &is, &n));
            CHECK(strstr(is.all, "pareto[1]: group 0 (with '") != NULL &&
                  strstr(is.all, "') is not weakly connected\n") != NULL);
            char want[96];
            snprintf(want, sizeof want, "pareto[1]: groups is %d in the file, the cost model gives %d\n",
                     (int)dx.pareto[1].metrics.n_groups, (int)dx.pareto[1].metrics.n_groups - 1);
            CHECK(strstr(is.all, want) != NULL);
            CHECK(strstr(is.all, "pareto[0]") == NULL);
        }
        lf_plan_doc_destroy(&dx);
        lf_plan_doc_destroy(&dj);
        /* Every cut of the document is refused with one line naming it. */
        int named = 0, cuts = 0;
        for (size_t k = 1; k + 1 < len; k += 97, cuts++) {
            lf_status st = lf_plan_doc_read_memory(&dx, xml, k, "cut.xml");
            named += st == LF_EPARSE && strncmp(lf_last_error(), "cut.xml:", 8) == 0;
            lf_plan_doc_destroy(&dx);
        }
        CHECK_EQ_I64(named, cuts);
        free(xml);
        free(json);
        lf_cost_model_free(cm);
        lf_cost_model_free(cm2);
        lf_graph_free(g);
        lf_graph_free(g2);
    }
    /* A schema violation names the line and the attribute. */
    const char *bad = "<?xml version=\"1.0\"?>\n<plan format=\"fusionplan-plan\" version=\"1\" scheme=\"lbdf\">\n</plan>\n";
    lf_plan_doc d;
    CHECK_EQ_I64(lf_plan_doc_read_memory(&d, bad, strlen(bad), "bad.xml"), LF_EPARSE);
    CHECK_STR(lf_last_error(), "bad.xml:2: not a valid XML plan (planner/io/plan.xsd): Element 'plan': "
                               "The attribute 'beta' is required but missing.");
    lf_plan_doc_destroy(&d);
    const char *doctype = "<?xml version=\"1.0\"?>\n<!DOCTYPE plan [<!ENTITY a \"b\">]>\n<plan/>\n";
    CHECK_EQ_I64(lf_plan_doc_read_memory(&d, doctype, strlen(doctype), "dt.xml"), LF_EPARSE);
    CHECK_STR(lf_last_error(), "dt.xml: a plan has no DOCTYPE");
    lf_plan_doc_destroy(&d);
    xmlSchemaFreeValidCtxt(vc);
    xmlSchemaFree(schema);
    xmlSchemaFreeParserCtxt(pc);
}

static void test_round_trip(void)
{
    static const struct {
        const char *model, *scheme;
        int64_t beta;
    } cases[] = {{"resnet18", "lbdf", 256 << 10}, {"resnet18", "brr", 128 << 10},
                 {"mobilenet_v2", "brr", 64 << 10}, {"squeezenet1_1", "lbdf", 512 << 10}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        lf_graph *g;
        lf_cost_model *cm;
        size_t len = 0;
        char *json = plan_json(cases[c].model, cases[c].scheme, cases[c].beta, &g, &cm, &len);
        CHECK(json != NULL);
        if (!json)
            continue;
        lf_plan_doc doc;
        CHECK_OK(lf_plan_doc_read_memory(&doc, json, len, "rt.json"));
        CHECK_STR(doc.model, cases[c].model);
        CHECK_STR(doc.scheme, cases[c].scheme);
        CHECK_EQ_I64(doc.beta, cases[c].beta);
        CHECK_EQ_I64(doc.n_ops, g->n_ops);
        CHECK_EQ_I64(doc.hw.buffer_bytes, cases[c].beta);
        lf_plan p;
        lf_plan_metrics m;
        CHECK_OK(lf_plan_greedy(cm, &p));
        CHECK_OK(lf_plan_metrics_compute(&p, cm, &m));
        CHECK_EQ_I64(doc.metrics.dram_fusable, m.dram_fusable);
        CHECK_EQ_I64(doc.metrics.dram_all, m.dram_all);
        CHECK_EQ_I64(doc.n_groups, m.n_groups);
        CHECK_EQ_I64(doc.n_unfusable, m.n_unfusable);
        lf_plan_destroy(&p);
        issues is = {0};
        int32_t n = -1;
        CHECK_OK(lf_plan_validate(&doc, cm, collect, &is, &n));
        CHECK_EQ_I64(n, 0);
        CHECK_EQ_I64(is.n, 0);
        if (is.n)
            fprintf(stderr, "%s %s: %s", cases[c].model, cases[c].scheme, is.all);
        lf_plan_doc_destroy(&doc);
        free(json);
        lf_cost_model_free(cm);
        lf_graph_free(g);
    }
}

/* Every proper prefix is refused, with one line starting with the origin. */
static void test_truncations(void)
{
    lf_graph *g;
    lf_cost_model *cm;
    size_t len = 0;
    char *json = plan_json("squeezenet1_1", "lbdf", 256 << 10, &g, &cm, &len);
    CHECK(json != NULL && len > 1000);
    int refused = 0, named = 0;
    for (size_t n = 0; json && n + 1 < len; n++) { /* the last byte is the final newline */
        lf_plan_doc doc;
        lf_status st = lf_plan_doc_read_memory(&doc, json, n, "cut.json");
        refused += st == LF_EPARSE;
        named += strncmp(lf_last_error(), "cut.json:", 9) == 0 && !strchr(lf_last_error(), '\n');
        lf_plan_doc_destroy(&doc);
    }
    CHECK_EQ_I64(refused, (int64_t)len - 1);
    CHECK_EQ_I64(named, (int64_t)len - 1);
    free(json);
    lf_cost_model_free(cm);
    lf_graph_free(g);
}

static void test_damage(void)
{
    lf_graph *g, *g50;
    lf_cost_model *cm, *cm50;
    size_t len = 0, len50 = 0;
    char *json = plan_json("resnet18", "lbdf", 256 << 10, &g, &cm, &len);
    char *json50 = plan_json("resnet50", "lbdf", 256 << 10, &g50, &cm50, &len50);
    CHECK(json && json50);
    if (!json || !json50)
        return;
    lf_plan_doc doc;
    issues is;
    int32_t n;

    /* A compute op in no group: nothing else can be priced. */
    CHECK_OK(lf_plan_doc_read_memory(&doc, json, len, "a.json"));
    doc.plan.group_of[5] = -1;
    memset(&is, 0, sizeof is);
    CHECK_OK(lf_plan_validate(&doc, cm, collect, &is, &n));
    CHECK(strstr(is.all, "group_of[5]:") != NULL && strstr(is.all, "is in no group") != NULL);
    CHECK(strstr(is.all, "op 5 '") != NULL && strstr(is.all, "group_of says group -1, groups[0] lists it in group 0") != NULL);
    lf_plan_doc_destroy(&doc);

    /* The last compute op moved into group 0: group 0 is no longer weakly
     * connected, the groups form a cycle (0 -> ... -> 0), and the listing
     * contradicts group_of. */
    CHECK_OK(lf_plan_doc_read_memory(&doc, json, len, "b.json"));
    int32_t last = g->n_ops - 1;
    doc.plan.group_of[last] = 0;
    memset(&is, 0, sizeof is);
    CHECK_OK(lf_plan_validate(&doc, cm, collect, &is, &n));
    CHECK_EQ_I64(n, is.n);
    char want[256];
    snprintf(want, sizeof want, "group 0 is not weakly connected: op %d '%s' is not reached from op 1 'conv1'",
             (int)last, g->ops[last].name);
    CHECK(strstr(is.all, want) != NULL);
    CHECK(strstr(is.all, "the groups form a cycle: a path leaves a group and re-enters it\n") != NULL);
    snprintf(want, sizeof want, "op %d '%s': group_of says group 0, ", (int)last, g->ops[last].name);
    CHECK(strstr(is.all, want) != NULL);
    CHECK(strstr(is.all, "metrics: dram_fusable is ") != NULL);
    lf_plan_doc_destroy(&doc);

    /* A figure changed: exactly one discrepancy, naming group and field. */
    CHECK_OK(lf_plan_doc_read_memory(&doc, json, len, "c.json"));
    int64_t fd = doc.groups[1].f_d;
    doc.groups[1].f_d = fd + 1;
    memset(&is, 0, sizeof is);
    CHECK_OK(lf_plan_validate(&doc, cm, collect, &is, &n));
    CHECK_EQ_I64(n, 1);
    snprintf(want, sizeof want, "groups[1] (group %d): f_d is %lld in the file, the cost model gives %lld",
             (int)doc.groups[1].id, (long long)fd + 1, (long long)fd);
    CHECK_STR(is.first, want);
    lf_plan_doc_destroy(&doc);

    /* Another graph: refused before any check, naming the field. */
    CHECK_OK(lf_plan_doc_read_memory(&doc, json, len, "d.json"));
    memset(&is, 0, sizeof is);
    CHECK_EQ_I64(lf_plan_validate(&doc, cm50, collect, &is, &n), LF_EPLAN);
    CHECK_EQ_I64(is.n, 0);
    CHECK(strncmp(lf_last_error(), "d.json: model.ops: the plan has 50 ops, graph 'resnet50' has 123", 64) == 0);
    doc.graph_hash[0] = doc.graph_hash[0] == '0' ? '1' : '0';
    CHECK_EQ_I64(lf_plan_validate(&doc, cm, collect, &is, &n), LF_EPLAN);
    CHECK(strncmp(lf_last_error(), "d.json: model.graph_hash: ", 26) == 0);
    lf_plan_doc_destroy(&doc);

    /* Fields: a missing member and an op id out of range are named. */
    char *edit = strdup(json);
    char *at = strstr(edit, "\"scheme\"");
    at[1] = 'X';
    CHECK_EQ_I64(lf_plan_doc_read_memory(&doc, edit, len, "e.json"), LF_EPARSE);
    CHECK_STR(lf_last_error(), "e.json: scheme: missing");
    lf_plan_doc_destroy(&doc);
    free(edit);
    size_t cap = len + 8;
    edit = malloc(cap);
    at = strstr(json, "\"ops\": [1, ");
    size_t pre = (size_t)(at - json) + 8;
    memcpy(edit, json, pre);
    memcpy(edit + pre, "999", 3);
    memcpy(edit + pre + 3, json + pre + 1, len - pre - 1);
    CHECK_EQ_I64(lf_plan_doc_read_memory(&doc, edit, len + 2, "h.json"), LF_EPARSE);
    CHECK_STR(lf_last_error(), "h.json: groups[0].ops[0]: expected an op id in [0, 50)");
    lf_plan_doc_destroy(&doc);
    free(edit);

    free(json);
    free(json50);
    lf_cost_model_free(cm);
    lf_cost_model_free(cm50);
    lf_graph_free(g);
    lf_graph_free(g50);
}

/* validate's pieces: the verdict line with and without discrepancies, and
 * the network a plan names when none is given (an annotated ONNX plan is its
 * own; otherwise a built-in network by the plan's model name). */
static void test_verdict_and_source(void)
{
    lf_graph *g;
    lf_cost_model *cm;
    size_t len = 0;
    char *json = plan_json("resnet18", "lbdf", 256 << 10, &g, &cm, &len);
    CHECK(json != NULL);
    lf_plan_doc doc;
    if (json && lf_plan_doc_read_memory(&doc, json, len, "r18.json") == LF_OK) {
        char *text = NULL;
        size_t tl = 0;
        FILE *f = open_memstream(&text, &tl);
        if (f) {
            lf_plan_verdict_write(f, "r18.json", &doc, 0);
            lf_plan_verdict_write(f, "r18.json", &doc, 1);
            lf_plan_verdict_write(f, "r18.json", &doc, 3);
            fclose(f);
            char want[400];
            snprintf(want, sizeof want, "r18.json: OK (resnet18, lbdf 262144 B, %d groups, %d unfusable, DRAM %lld B "
                                        "fusable ops)\nr18.json: 1 discrepancy\nr18.json: 3 discrepancies\n",
                     (int)doc.metrics.n_groups, (int)doc.metrics.n_unfusable, (long long)doc.metrics.dram_fusable);
            CHECK_STR(text, want);
            CHECK(doc.metrics.n_groups > 0 && doc.metrics.dram_fusable > 0);
            free(text);
        }
        lf_plan_doc_destroy(&doc);
    }
    free(json);
    lf_cost_model_free(cm);
    lf_graph_free(g);
    lf_model_source src;
    memset(&src, 0, sizeof src);
    CHECK_OK(lf_model_source_for_plan(&src, "p.json", "resnet18"));
    CHECK_STR(src.model, "resnet18");
    memset(&src, 0, sizeof src);
    CHECK_OK(lf_model_source_for_plan(&src, "plan.onnx", "resnet18"));
    CHECK_STR(src.onnx, "plan.onnx");
    CHECK(src.model == NULL);
    memset(&src, 0, sizeof src);
    CHECK(lf_model_source_for_plan(&src, "p.json", "my_net") == LF_EINVAL);
    CHECK_STR(lf_last_error(), "p.json: model.name: 'my_net' is not a built-in network: give --model or --onnx");
    src.model = "resnet50"; /* a source given wins */
    CHECK_OK(lf_model_source_for_plan(&src, "p.json", "my_net"));
    CHECK_STR(src.model, "resnet50");
}

/* The hardware's attention switch (--no-attention) survives the XML form as
 * it does the JSON one: written as attention="false" only when off, valid
 * against the schema, read back, and the plan validates against a cost
 * model built with the switch it read (BERT's attention groups priced
 * differently when off, so a lost switch would show as discrepancies). */
static void test_xml_attention(void)
{
    xmlSchemaParserCtxtPtr pc = xmlSchemaNewParserCtxt(LF_SOURCE_DIR "/planner/io/plan.xsd");
    xmlSchemaPtr schema = pc ? xmlSchemaParse(pc) : NULL;
    xmlSchemaValidCtxtPtr vc = schema ? xmlSchemaNewValidCtxt(schema) : NULL;
    CHECK(vc != NULL);
    lf_model_seq_options so = {.seq_len = 16, .layers = 1};
    lf_graph *g = NULL;
    CHECK_OK(lf_model_build_seq("bert_base", NULL, &so, &g));
    int64_t dram[2] = {0, 0};
    for (int off = 0; vc && g && off <= 1; off++) {
        lf_hw hw;
        lf_hw_default(&hw);
        hw.buffer_bytes = 16 << 10; /* 21,521,712 B on, 21,650,736 B off (greedy) */
        hw.no_attention = off;
        lf_cost_model *cm = NULL;
        CHECK_OK(lf_cost_model_create(&cm, g, &hw, "lbdf"));
        lf_plan p;
        CHECK_OK(lf_plan_greedy(cm, &p));
        char *xml = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&xml, &len);
        lf_plan_meta meta = {.model = "bert_base", .search = "greedy", .budget = -1};
        CHECK_OK(lf_plan_write_xml(f, &p, cm, &meta));
        fclose(f);
        CHECK((strstr(xml, " attention=\"false\"") != NULL) == off);
        xmlDocPtr doc = xmlReadMemory(xml, (int)len, "plan.xml", NULL, XML_PARSE_NONET);
        CHECK_EQ_I64(doc ? xmlSchemaValidateDoc(vc, doc) : -1, 0);
        xmlFreeDoc(doc);
        lf_plan_doc dx;
        CHECK_OK(lf_plan_doc_read_memory(&dx, xml, len, "att.xml"));
        CHECK_EQ_I64(dx.hw.no_attention, off);
        dram[off] = dx.metrics.dram_all;
        lf_cost_model *cm2 = NULL;
        CHECK_OK(lf_cost_model_create(&cm2, g, &dx.hw, "lbdf"));
        issues is = {0};
        int32_t n = -1;
        CHECK_OK(lf_plan_validate(&dx, cm2, collect, &is, &n));
        CHECK_EQ_I64(n, 0);
        if (is.n)
            fprintf(stderr, "attention %d xml: %s", !off, is.all);
        lf_plan_doc_destroy(&dx);
        lf_cost_model_free(cm2);
        lf_cost_model_free(cm);
        lf_plan_destroy(&p);
        free(xml);
    }
    CHECK_EQ_I64(dram[0], 21521712); /* the switch changes the plan's figures */
    CHECK_EQ_I64(dram[1], 21650736);
    lf_graph_free(g);
    xmlSchemaFreeValidCtxt(vc);
    xmlSchemaFree(schema);
    xmlSchemaFreeParserCtxt(pc);
}

int main(void)
{
    test_round_trip();
    test_truncations();
    test_damage();
    test_xml();
    test_xml_attention();
    test_verdict_and_source();
    return lf_test_result();
}
