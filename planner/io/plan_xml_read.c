/* Reading an XML plan (planner/io/plan.xsd) with libxml2: the document is
 * parsed without network access or DOCTYPE, validated against the schema
 * compiled into the library, then turned into the JSON plan's tree, so that
 * one reader (plan_read.c) checks both formats field by field. */
#include <errno.h>
#include <jansson.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlschemas.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "planner/io/plan_read_internal.h"

extern const char lf_plan_xsd[];
extern const long lf_plan_xsd_len;

typedef struct lf__xml_errors {
    int have, doctype;
    long line;
    char message[256];
} lf__xml_errors;

static void lf__collect(void *user, const xmlError *e)
{
    lf__xml_errors *errs = user;
    if (errs->have || !e || e->level < XML_ERR_ERROR)
        return;
    errs->have = 1;
    errs->line = e->line;
    snprintf(errs->message, sizeof errs->message, "%s", e->message ? e->message : "error");
    size_t n = strlen(errs->message);
    while (n > 0 && (errs->message[n - 1] == '\n' || errs->message[n - 1] == ' '))
        errs->message[--n] = '\0';
}

/* libxml2 2.9 and 2.12 differ in the handler's constness. */
static void lf__collect_cb(void *user, xmlErrorPtr e)
{
    lf__collect(user, e);
}

static void lf__silent(void *ctx, const char *msg, ...)
{
    (void)ctx;
    (void)msg;
}

static void lf__reject_doctype(void *ctx, const xmlChar *name, const xmlChar *ext, const xmlChar *sys)
{
    (void)name;
    (void)ext;
    (void)sys;
    xmlParserCtxtPtr c = ctx;
    ((lf__xml_errors *)c->_private)->doctype = 1;
    xmlStopParser(c);
}

static const char *lf__attr(xmlNodePtr n, const char *name)
{
    for (xmlAttrPtr a = n->properties; a; a = a->next)
        if (a->children && a->children->content && strcmp((const char *)a->name, name) == 0)
            return (const char *)a->children->content;
    return NULL;
}

/* Attributes into obj: kinds 's' string, 'i' integer, 'r' real or null when
 * absent, 'b' boolean. The schema has checked presence and lexical form. */
static void lf__attrs(json_t *obj, xmlNodePtr n, const char *const *names, const char *kinds)
{
    for (int i = 0; names[i]; i++) {
        const char *v = lf__attr(n, names[i]);
        json_t *j = NULL;
        if (!v)
            j = kinds[i] == 'r' ? json_null() : NULL;
        else if (kinds[i] == 's')
            j = json_string(v);
        else if (kinds[i] == 'i')
            j = json_integer((json_int_t)strtoll(v, NULL, 10));
        else if (kinds[i] == 'r')
            j = json_real(strtod(v, NULL));
        else
            j = json_boolean(strstr(v, "true") != NULL || strstr(v, "1") != NULL);
        if (j)
            json_object_set_new(obj, names[i], j);
    }
}

/* Metrics, with the four energy attributes gathered into the JSON form's
 * energy_pj object (absent when the file gives no energy). */
static void lf__metric_attrs(json_t *obj, xmlNodePtr n, const char *const *names)
{
    static const char *const e_attr[] = {"energy_dram_pj", "energy_sram_pj", "energy_mac_pj",
                                         "energy_total_pj"};
    static const char *const e_key[] = {"dram", "sram", "mac", "total"};
    lf__attrs(obj, n, names, "iiiiiirrrr");
    if (!obj || !lf__attr(n, "energy_total_pj"))
        return;
    json_t *e = json_object();
    for (int i = 0; e && i < 4; i++) {
        const char *v = lf__attr(n, e_attr[i]);
        json_object_set_new(e, e_key[i], v ? json_real(strtod(v, NULL)) : json_null());
    }
    if (e)
        json_object_set_new(obj, "energy_pj", e);
}

static json_t *lf__id_list(xmlNodePtr n)
{
    json_t *arr = json_array();
    xmlChar *text = xmlNodeGetContent(n);
    const char *p = (const char *)text;
    while (arr && p && *p) {
        char *end;
        errno = 0;
        long long v = strtoll(p, &end, 10);
        if (end == p)
            break;
        json_array_append_new(arr, json_integer((json_int_t)v));
        p = end;
    }
    xmlFree(text);
    return arr;
}

static int lf__is(xmlNodePtr n, const char *name)
{
    return n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0;
}

static json_t *lf__to_json(xmlNodePtr root)
{
    static const char *const plan_a[] = {"format", "version", "scheme", "beta", "objective", NULL};
    static const char *const model_a[] = {"name", "graph", "graph_hash", "ops", "compute_ops", NULL};
    static const char *const hw_a[] = {"name",         "source",         "buffer_bytes",
                                       "act_bytes",    "weight_bytes",   "dram_bandwidth",
                                       "dram_pj_per_byte", "peak_macs", "sram_pj_per_byte",
                                       "mac_pj", "attention", NULL};
    static const char *const metrics_a[] = {"dram_fusable", "dram_all", "mbu", "groups", "unfusable",
                                            "invalid", "dram_time_s", "energy_j", "latency_s",
                                            "latency_serial_s", NULL};
    static const char *const group_a[] = {"id", "f_beta", "f_d", "mbu", "weights", "weight_reads",
                                          "tile_rows", "valid", NULL};
    static const char *const unf_a[] = {"id", "name", "type", "group", "f_beta", "dram", NULL};
    json_t *plan = json_object();
    if (!plan)
        return NULL;
    lf__attrs(plan, root, plan_a, "sisis");
    for (xmlNodePtr c = root->children; c; c = c->next) {
        json_t *o = NULL;
        if (lf__is(c, "model"))
            lf__attrs(o = json_object(), c, model_a, "sssii");
        else if (lf__is(c, "hardware"))
            lf__attrs(o = json_object(), c, hw_a, "ssiiirrrrrb");
        else if (lf__is(c, "metrics"))
            lf__metric_attrs(o = json_object(), c, metrics_a);
        else if (lf__is(c, "group_of"))
            o = lf__id_list(c);
        else if (lf__is(c, "groups") || lf__is(c, "unfusable")) {
            int groups = lf__is(c, "groups");
            o = json_array();
            for (xmlNodePtr e = c->children; o && e; e = e->next) {
                if (e->type != XML_ELEMENT_NODE)
                    continue;
                json_t *item = json_object();
                if (!item)
                    break;
                if (groups) {
                    lf__attrs(item, e, group_a, "iiiiiiib");
                    json_t *ops = json_array();
                    for (xmlNodePtr op = e->children; ops && op; op = op->next)
                        if (lf__is(op, "op") && lf__attr(op, "id"))
                            json_array_append_new(
                                ops, json_integer((json_int_t)strtoll(lf__attr(op, "id"), NULL, 10)));
                    if (ops)
                        json_object_set_new(item, "ops", ops);
                } else {
                    lf__attrs(item, e, unf_a, "issiii");
                }
                json_array_append_new(o, item);
            }
        }
        else if (lf__is(c, "pareto")) {
            o = json_array();
            for (xmlNodePtr e = c->children; o && e; e = e->next) {
                if (!lf__is(e, "point"))
                    continue;
                json_t *item = json_object();
                if (!item)
                    break;
                lf__metric_attrs(item, e, metrics_a);
                for (xmlNodePtr g = e->children; g; g = g->next)
                    if (lf__is(g, "group_of"))
                        json_object_set_new(item, "group_of", lf__id_list(g));
                json_array_append_new(o, item);
            }
        }
        if (o)
            json_object_set_new(plan, (const char *)c->name, o);
    }
    return plan;
}

/* Validates doc against the built-in schema: LF_OK or one line. */
static lf_status lf__validate(xmlDocPtr doc, const char *origin)
{
    lf__xml_errors serr = {0}, verr = {0};
    lf_status st = LF_OK;
    xmlSchemaParserCtxtPtr pctxt = xmlSchemaNewMemParserCtxt(lf_plan_xsd, (int)lf_plan_xsd_len);
    xmlSchemaPtr schema = NULL;
    xmlSchemaValidCtxtPtr vctxt = NULL;
    if (!pctxt) {
        st = lf_set_error(LF_ENOMEM, "%s: out of memory reading the plan schema", origin);
        goto done;
    }
    xmlSchemaSetParserStructuredErrors(pctxt, lf__collect_cb, &serr);
    if (!(schema = xmlSchemaParse(pctxt))) {
        st = lf_set_error(LF_EPARSE, "internal error: built-in plan.xsd:%ld does not compile: %s",
                          serr.line, serr.message);
        goto done;
    }
    if (!(vctxt = xmlSchemaNewValidCtxt(schema))) {
        st = lf_set_error(LF_ENOMEM, "%s: out of memory validating", origin);
        goto done;
    }
    xmlSchemaSetValidStructuredErrors(vctxt, lf__collect_cb, &verr);
    if (xmlSchemaValidateDoc(vctxt, doc) != 0)
        st = lf_set_error(LF_EPARSE, "%s:%ld: not a valid XML plan (planner/io/plan.xsd): %s", origin,
                          verr.line > 0 ? verr.line : 1, verr.have ? verr.message : "invalid");
done:
    xmlSchemaFreeValidCtxt(vctxt);
    xmlSchemaFree(schema);
    xmlSchemaFreeParserCtxt(pctxt);
    return st;
}

lf_status lf__plan_xml_to_json(const void *data, size_t len, const char *origin, json_t **out)
{
    *out = NULL;
    if (len > INT_MAX)
        return lf_set_error(LF_ELIMIT, "%s: an XML plan is at most %d bytes", origin, INT_MAX);
    xmlInitParser();
    lf__xml_errors errs = {0};
    xmlParserCtxtPtr ctxt = xmlNewParserCtxt();
    if (!ctxt)
        return lf_set_error(LF_ENOMEM, "%s: out of memory", origin);
    ctxt->_private = &errs;
    ctxt->sax->internalSubset = lf__reject_doctype;
    /* The library prints nothing: libxml2's handlers (per thread) collect
     * the first error while the plan is read, and are restored after. */
    xmlStructuredErrorFunc serror = xmlStructuredError;
    void *sctx = xmlStructuredErrorContext, *gctx = xmlGenericErrorContext;
    xmlGenericErrorFunc gerror = xmlGenericError;
    xmlSetStructuredErrorFunc(&errs, lf__collect_cb);
    xmlSetGenericErrorFunc(&errs, lf__silent);
    xmlDocPtr doc = xmlCtxtReadMemory(ctxt, data, (int)len, origin, NULL, XML_PARSE_NONET);
    lf_status st = LF_OK;
    if (errs.doctype)
        st = lf_set_error(LF_EPARSE, "%s: a plan has no DOCTYPE", origin);
    else if (!doc || !ctxt->wellFormed)
        st = lf_set_error(LF_EPARSE, "%s:%ld: not well-formed XML: %s", origin,
                          errs.line > 0 ? errs.line : 1, errs.have ? errs.message : "unreadable");
    if (st == LF_OK)
        st = lf__validate(doc, origin);
    if (st == LF_OK && !(*out = lf__to_json(xmlDocGetRootElement(doc))))
        st = lf_set_error(LF_ENOMEM, "%s: out of memory reading the plan", origin);
    xmlFreeDoc(doc);
    xmlFreeParserCtxt(ctxt);
    xmlSetStructuredErrorFunc(sctx, serror);
    xmlSetGenericErrorFunc(gctx, gerror);
    return st;
}
