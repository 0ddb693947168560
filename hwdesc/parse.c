/* Loading a hardware description: read, parse (libxml2), validate against the
 * schema compiled into the library, and extract the figures into an lf_hw.
 *
 * Division of labour. hwdesc.xsd is the contract for structure and lexical
 * form; this file checks meaning (units and ranges, through units.c) and
 * turns failures into one line "FILE:LINE: <element> ...". libxml2's own
 * schema messages quote regular expressions and type names, so when
 * validation fails the element it points at is re-checked here with the same
 * code that extracts the values, which can say what is wrong in the user's
 * terms ("has no unit", "appears twice"); libxml2's text is the fallback for
 * anything that code does not recognise.
 *
 * Safety. lf__hw_precheck (precheck.c) bounds the work first. Documents are
 * parsed with XML_PARSE_NONET and without
 * XML_PARSE_NOENT or XML_PARSE_DTDLOAD, and a DOCTYPE stops the parse at once
 * (a hardware description needs no DTD), so no entity is ever expanded and
 * nothing outside the given bytes is read. libxml2 errors go to a collector
 * installed for the calling thread only for the duration of one load, then
 * the previous handlers are put back: the library prints nothing. */
#include "hwdesc/hw_internal.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>
#include <libxml/xmlschemas.h>

/* libxml2 2.12 made the error passed to structured handlers const. */
#if LIBXML_VERSION >= 21200
typedef const xmlError lf__xml_error;
#else
typedef xmlError lf__xml_error;
#endif

#define LF__HW_MAX_FILE (16L << 20) /* far beyond any real description */

/* ---------------------------------------------------------------------- */
/* libxml2 set-up and error collection                                     */

static pthread_once_t lf__hw_xml_once = PTHREAD_ONCE_INIT;

static void lf__init_libxml(void)
{
    xmlInitParser();
}

/* The first error libxml2 reports during one parse or validation. Later ones
 * are usually consequences of the first and are dropped. */
typedef struct xml_errors {
    int have;
    int code;
    long line;
    int int1;           /* for a tag mismatch: line of the opening tag */
    xmlNodePtr node;    /* element at fault (validation only) */
    char message[256];
    char str1[64], str2[64];
    int doctype;        /* a DOCTYPE was met and the parse stopped */
    long doctype_line;
} xml_errors;

static void lf__copy_text(char *dst, size_t cap, const char *src)
{
    size_t n;
    if (!src) {
        dst[0] = '\0';
        return;
    }
    /* Only the first line: libxml2 continues some messages on further lines
     * (the bytes of an encoding error, the text of a bad comment). */
    n = strcspn(src, "\r\n");
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, src, n);
    /* libxml2 messages end in a newline; one-line messages must not. */
    while (n > 0 && (dst[n - 1] == '\n' || dst[n - 1] == '\r' || dst[n - 1] == ' '))
        n--;
    dst[n] = '\0';
}

static void lf__collect(void *data, lf__xml_error *err)
{
    xml_errors *c = data;
    if (!c || !err || c->have || err->level < XML_ERR_ERROR)
        return;
    c->have = 1;
    c->code = err->code;
    c->line = err->line;
    c->int1 = err->int1;
    c->node = err->node;
    lf__copy_text(c->message, sizeof c->message, err->message);
    lf__copy_text(c->str1, sizeof c->str1, err->str1);
    lf__copy_text(c->str2, sizeof c->str2, err->str2);
}

/* Swallows libxml2's unstructured messages (a few internal paths use them). */
static void lf__silent(void *ctx, const char *msg, ...)
{
    (void)ctx;
    (void)msg;
}

typedef struct saved_handlers {
    xmlStructuredErrorFunc serror;
    void *sctx;
    xmlGenericErrorFunc gerror;
    void *gctx;
} saved_handlers;

/* These handlers are per thread in libxml2 (built with thread support), so
 * concurrent loads in different threads do not see each other's errors. */
static void lf__install_handlers(xml_errors *c, saved_handlers *saved)
{
    saved->serror = xmlStructuredError;
    saved->sctx = xmlStructuredErrorContext;
    saved->gerror = xmlGenericError;
    saved->gctx = xmlGenericErrorContext;
    xmlSetStructuredErrorFunc(c, lf__collect);
    xmlSetGenericErrorFunc(c, lf__silent);
}

static void lf__restore_handlers(const saved_handlers *saved)
{
    xmlSetStructuredErrorFunc(saved->sctx, saved->serror);
    xmlSetGenericErrorFunc(saved->gctx, saved->gerror);
}

/* SAX hook called when <!DOCTYPE is read, before any declaration in it is. */
static void lf__reject_doctype(void *ctx, const xmlChar *name, const xmlChar *external_id,
                               const xmlChar *system_id)
{
    xmlParserCtxtPtr ctxt = ctx;
    xml_errors *c = ctxt->_private;
    (void)external_id;
    (void)system_id;
    if (c && !c->doctype) {
        c->doctype = 1;
        c->doctype_line = ctxt->input ? ctxt->input->line : 0;
        lf__copy_text(c->str1, sizeof c->str1, (const char *)name);
    }
    xmlStopParser(ctxt);
}

/* ---------------------------------------------------------------------- */
/* Messages                                                                */

static long lf__line_of(xmlNodePtr node)
{
    long line = node ? xmlGetLineNo(node) : -1;
    return line > 0 ? line : 1;
}

/* Records "ORIGIN:LINE: <formatted text>" and returns s. */
static lf_status lf__fail_at(lf_status s, const char *origin, long line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static lf_status lf__fail_at(lf_status s, const char *origin, long line, const char *fmt, ...)
{
    char text[448];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    return lf_set_error(s, "%s:%ld: %s", origin, line, text);
}

/* Wraps the message a value parser just recorded with where the value was. */
static lf_status lf__fail_value(lf_status s, const char *origin, xmlNodePtr node, const char *attr)
{
    char why[320];
    lf__copy_text(why, sizeof why, lf_last_error()); /* copied: the next call overwrites it */
    return lf__fail_at(s, origin, lf__line_of(node), "<%s> attribute %s: %s", (const char *)node->name,
                       attr, why);
}

/* Text content shown in a message: first non-blank characters, cut short. */
static void lf__text_excerpt(const xmlChar *content, char *buf, size_t cap)
{
    const char *p = (const char *)content;
    size_t n = 0;
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    while (p[n] && p[n] != '\n' && p[n] != '\r' && n + 4 < cap)
        n++;
    memcpy(buf, p, n);
    strcpy(buf + n, p[n] && p[n] != '\n' && p[n] != '\r' ? "..." : "");
}

/* libxml2 stamps a text node with the line where the parser stood after
 * reading it, i.e. its end; step back to the line of its first non-blank
 * character, which is where the user will look. */
static long lf__text_line(xmlNodePtr text, xmlNodePtr parent)
{
    const xmlChar *p = text->content;
    long line = xmlGetLineNo(text);
    while (p && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
        p++;
    for (; p && *p; p++)
        line -= *p == '\n';
    return line > 0 ? line : lf__line_of(parent);
}

static int lf__is_blank(const xmlChar *s)
{
    for (; s && *s; s++)
        if (*s != ' ' && *s != '\t' && *s != '\n' && *s != '\r')
            return 0;
    return 1;
}

/* ---------------------------------------------------------------------- */
/* What the schema allows, as the C side needs it                          */

typedef enum dest {
    D_NAME, D_BUFFER, D_DRAM_BW, D_DRAM_PJ, D_ACT, D_WEIGHT, D_MACS,
    D_GPU_NAME, D_GPU_DEVICE, D_GPU_PEAK, D_GPU_BW, D_GPU_LAUNCH,
    D_E_DRAM, D_E_SRAM, D_E_MAC, D_MACS_PER_CYCLE, D_CLOCK
} dest;

typedef struct attr_spec {
    const char *name;
    dest to;
    int required;
    const char *example;
} attr_spec;

typedef struct elem_spec {
    const char *name;
    int required;
    const char *example;
    const attr_spec *attrs;
    int nattrs;
} elem_spec;

static const attr_spec hardware_attrs[] = {{"name", D_NAME, 1, "name=\"edge-256k\""}};
static const attr_spec buffer_attrs[] = {{"size", D_BUFFER, 1, "size=\"256KB\""}};
static const attr_spec dram_attrs[] = {
    {"bandwidth", D_DRAM_BW, 1, "bandwidth=\"25.6GB/s\""},
    {"energy", D_DRAM_PJ, 0, NULL},
};
static const attr_spec datatypes_attrs[] = {
    {"activation", D_ACT, 0, NULL},
    {"weight", D_WEIGHT, 0, NULL},
};
/* peak, or macs-per-cycle with clock: which of them is checked in C. */
static const attr_spec compute_attrs[] = {
    {"peak", D_MACS, 0, NULL},
    {"macs-per-cycle", D_MACS_PER_CYCLE, 0, NULL},
    {"clock", D_CLOCK, 0, NULL},
};
static const attr_spec energy_attrs[] = {
    {"dram", D_E_DRAM, 0, NULL},
    {"sram", D_E_SRAM, 0, NULL},
    {"mac", D_E_MAC, 0, NULL},
};
static const attr_spec gpu_attrs[] = {
    {"name", D_GPU_NAME, 0, NULL},
    {"device", D_GPU_DEVICE, 0, NULL},
    {"peak", D_GPU_PEAK, 0, NULL},
    {"bandwidth", D_GPU_BW, 0, NULL},
    {"launch-overhead", D_GPU_LAUNCH, 0, NULL},
};

#define LF__N(a) ((int)(sizeof(a) / sizeof((a)[0])))

static const elem_spec hardware_spec = {"hardware", 1, NULL, hardware_attrs,
                                        LF__N(hardware_attrs)};
static const elem_spec child_specs[] = {
    {"buffer", 1, "<buffer size=\"256KB\"/>", buffer_attrs, LF__N(buffer_attrs)},
    {"dram", 1, "<dram bandwidth=\"25.6GB/s\"/>", dram_attrs, LF__N(dram_attrs)},
    {"datatypes", 0, NULL, datatypes_attrs, LF__N(datatypes_attrs)},
    {"compute", 0, NULL, compute_attrs, LF__N(compute_attrs)},
    {"gpu", 0, NULL, gpu_attrs, LF__N(gpu_attrs)},
    {"energy", 0, NULL, energy_attrs, LF__N(energy_attrs)},
};

static const elem_spec *lf__find_child_spec(xmlNodePtr node)
{
    if (node->ns)
        return NULL;
    for (int i = 0; i < LF__N(child_specs); i++)
        if (strcmp((const char *)node->name, child_specs[i].name) == 0)
            return &child_specs[i];
    return NULL;
}

/* A name with white space collapsed as xs:token does, into a 64-byte field. */
static lf_status lf__parse_name(const char *text, char out[LF_HW_NAME_MAX])
{
    char buf[LF_HW_NAME_MAX];
    size_t n = 0;
    int space = 0;
    for (const char *p = text; *p; p++) {
        if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') {
            space = n > 0;
            continue;
        }
        if (n + (size_t)space + 1 >= sizeof buf)
            return lf_set_error(LF_ERANGE, "\"%.40s...\" is longer than %d bytes", text,
                                LF_HW_NAME_MAX - 1);
        if (space)
            buf[n++] = ' ';
        space = 0;
        buf[n++] = *p;
    }
    if (n == 0)
        return lf_set_error(LF_EPARSE, "the name is empty");
    buf[n] = '\0';
    memcpy(out, buf, n + 1);
    return LF_OK;
}

/* A data type: its size, and its name for the MAC energy table. */
static lf_status lf__store_type(const char *value, int32_t *bytes, char name[8])
{
    lf_status s = lf__hw_parse_datatype(value, bytes);
    size_t i = 0;
    while (s == LF_OK && (*value == ' ' || *value == '\t' || *value == '\n' || *value == '\r'))
        value++;
    while (s == LF_OK && i < 7 && value[i] && value[i] != ' ' && value[i] != '\t' &&
           value[i] != '\n' && value[i] != '\r') {
        name[i] = value[i];
        i++;
    }
    if (s == LF_OK)
        name[i] = '\0';
    return s;
}

static lf_status lf__store_value(const attr_spec *a, const char *value, lf_hw *hw)
{
    switch (a->to) {
    case D_NAME: return lf__parse_name(value, hw->name);
    case D_BUFFER: return lf_hw_parse_size(value, &hw->buffer_bytes);
    case D_DRAM_BW: return lf_hw_parse_bandwidth(value, &hw->dram_bandwidth);
    case D_DRAM_PJ: return lf__hw_parse_energy(value, &hw->dram_pj_per_byte);
    case D_ACT: return lf__store_type(value, &hw->act_bytes, hw->act_type);
    case D_WEIGHT: return lf__store_type(value, &hw->weight_bytes, hw->weight_type);
    case D_MACS: return lf__hw_parse_mac_rate(value, &hw->peak_macs);
    case D_GPU_NAME: return lf__parse_name(value, hw->gpu.name);
    case D_GPU_DEVICE: return lf__hw_parse_device(value, &hw->gpu.device_index);
    case D_GPU_PEAK: return lf__hw_parse_flop_rate(value, &hw->gpu.peak_flops);
    case D_GPU_BW: return lf_hw_parse_bandwidth(value, &hw->gpu.bandwidth);
    case D_GPU_LAUNCH: return lf__hw_parse_time(value, &hw->gpu.launch_overhead_s);
    case D_E_DRAM: return lf__hw_parse_dram_energy(value, &hw->dram_pj_per_byte, hw->dram_preset);
    case D_E_SRAM: return lf__hw_parse_sram_energy(value, &hw->sram_pj_per_byte);
    case D_E_MAC: return lf__hw_parse_mac_energy(value, &hw->mac_pj);
    case D_MACS_PER_CYCLE: return lf__hw_parse_macs_per_cycle(value, &hw->macs_per_cycle);
    case D_CLOCK: return lf__hw_parse_clock(value, &hw->clock_hz);
    }
    return lf_set_error(LF_EINVAL, "unknown attribute");
}

/* ---------------------------------------------------------------------- */
/* Checking and extraction, shared by loading and by explaining a schema   */
/* violation                                                               */

/* Attributes of one element: none unknown, the required ones present, every
 * value well-formed and in range (stored into hw). */
static lf_status lf__check_attributes(xmlNodePtr node, const elem_spec *spec, const char *origin,
                                      lf_hw *hw)
{
    for (xmlAttrPtr at = node->properties; at; at = at->next) {
        int known = 0;
        for (int i = 0; i < spec->nattrs && !at->ns; i++)
            known |= strcmp((const char *)at->name, spec->attrs[i].name) == 0;
        if (!known) {
            char allowed[128] = "";
            for (int i = 0; i < spec->nattrs; i++) {
                strcat(allowed, i ? ", " : "");
                strcat(allowed, spec->attrs[i].name);
            }
            return lf__fail_at(LF_EPARSE, origin, lf__line_of(node),
                               "<%s> has no attribute \"%s%s%s\" (allowed: %s)", spec->name,
                               at->ns && at->ns->prefix ? (const char *)at->ns->prefix : "",
                                   at->ns && at->ns->prefix ? ":" : "", (const char *)at->name,
                                   allowed);
        }
    }
    for (int i = 0; i < spec->nattrs; i++) {
        const attr_spec *a = &spec->attrs[i];
        xmlChar *value = xmlGetNoNsProp(node, BAD_CAST a->name);
        lf_status s;
        if (!value) {
            if (!a->required)
                continue;
            return lf__fail_at(LF_EPARSE, origin, lf__line_of(node),
                               "<%s> has no %s attribute (required, e.g. %s)", spec->name, a->name,
                               a->example);
        }
        s = lf__store_value(a, (const char *)value, hw);
        xmlFree(value);
        if (s != LF_OK)
            return lf__fail_value(s, origin, node, a->name);
    }
    return LF_OK;
}

/* The children of <hardware> hold no content of their own. Elements and
 * real text are reported before mere white space, which is the likelier
 * slip to have made but the less informative one to show. */
static lf_status lf__check_empty(xmlNodePtr node, const char *origin)
{
    char excerpt[48];
    int blank = 0;
    for (xmlNodePtr c = node->children; c; c = c->next) {
        if (c->type == XML_ELEMENT_NODE)
            return lf__fail_at(LF_EPARSE, origin, lf__line_of(c), "<%s> must be empty, but contains <%s>",
                               (const char *)node->name, (const char *)c->name);
        if (c->type != XML_TEXT_NODE && c->type != XML_CDATA_SECTION_NODE)
            continue; /* comments and processing instructions are fine */
        if (lf__is_blank(c->content)) {
            blank = 1;
            continue;
        }
        lf__text_excerpt(c->content, excerpt, sizeof excerpt);
        return lf__fail_at(LF_EPARSE, origin, lf__text_line(c, node),
                           "<%s> must be empty, but contains text \"%s\"", (const char *)node->name,
                           excerpt);
    }
    /* Even white space: the schema declares these elements empty, and XSD
     * allows no character content at all in an empty element. */
    if (blank)
        return lf__fail_at(LF_EPARSE, origin, lf__line_of(node),
                           "<%s> must be empty, but contains white space (write <%s .../>)",
                           (const char *)node->name, (const char *)node->name);
    return LF_OK;
}

/* The line of a sibling <dram> with an energy attribute, or 0. */
static long lf__dram_energy_line(xmlNodePtr node)
{
    for (xmlNodePtr c = node->parent ? node->parent->children : NULL; c; c = c->next)
        if (c->type == XML_ELEMENT_NODE && !c->ns && strcmp((const char *)c->name, "dram") == 0 &&
            xmlHasNsProp(c, BAD_CAST "energy", NULL))
            return lf__line_of(c);
    return 0;
}

/* <compute> gives its peak directly or as macs-per-cycle x clock. */
static lf_status lf__check_compute(xmlNodePtr node, const char *origin, lf_hw *hw)
{
    int peak = xmlHasNsProp(node, BAD_CAST "peak", NULL) != NULL;
    int per = xmlHasNsProp(node, BAD_CAST "macs-per-cycle", NULL) != NULL;
    int clock = xmlHasNsProp(node, BAD_CAST "clock", NULL) != NULL;
    if (peak && (per || clock))
        return lf__fail_at(LF_EPARSE, origin, lf__line_of(node),
                           "<compute> gives peak and %s: give the peak or macs-per-cycle with clock, "
                           "not both",
                           per ? "macs-per-cycle" : "clock");
    if (!peak && !(per && clock))
        return lf__fail_at(LF_EPARSE, origin, lf__line_of(node),
                           "<compute> needs peak (e.g. peak=\"2TMAC/s\") or macs-per-cycle with "
                           "clock (e.g. macs-per-cycle=\"1024\" clock=\"1GHz\")%s",
                           per ? ": clock is missing" : clock ? ": macs-per-cycle is missing" : "");
    if (!peak) {
        hw->peak_macs = hw->macs_per_cycle * hw->clock_hz;
        if (hw->peak_macs > LF__HW_MAX_RATE)
            return lf__fail_at(LF_ERANGE, origin, lf__line_of(node),
                               "<compute> macs-per-cycle x clock is %.4g MAC/s, above the limit of "
                               "1000000 TMAC/s",
                               hw->peak_macs);
    }
    return LF_OK;
}

/* One child of <hardware>, checked and stored into hw. */
static lf_status lf__check_child(xmlNodePtr node, const char *origin, lf_hw *hw)
{
    const elem_spec *spec = lf__find_child_spec(node);
    lf_status s;
    if (node->ns)
        return lf__fail_at(LF_EPARSE, origin, lf__line_of(node),
                           "<%s%s%s> is in namespace \"%s\"; hardware descriptions use no namespace",
                           node->ns->prefix ? (const char *)node->ns->prefix : "",
                               node->ns->prefix ? ":" : "", (const char *)node->name,
                               (const char *)node->ns->href);
    if (!spec)
        return lf__fail_at(LF_EPARSE, origin, lf__line_of(node),
                           "<%s> is not a hardware description element (use <buffer>, <dram>, "
                           "<datatypes>, <compute>, <energy> or <gpu>)",
                               (const char *)node->name);
    if ((s = lf__check_attributes(node, spec, origin, hw)) != LF_OK)
        return s;
    if ((s = lf__check_empty(node, origin)) != LF_OK)
        return s;
    if (strcmp(spec->name, "gpu") == 0) {
        /* XSD 1.0 cannot require "one of two attributes", so it is done here. */
        if (!xmlHasNsProp(node, BAD_CAST "name", NULL) &&
            !xmlHasNsProp(node, BAD_CAST "device", NULL))
            return lf__fail_at(LF_EPARSE, origin, lf__line_of(node),
                               "<gpu> needs a name or a device attribute to pick the GPU (e.g. "
                               "device=\"0\")");
        hw->has_gpu = 1;
    }
    if (strcmp(spec->name, "compute") == 0)
        return lf__check_compute(node, origin, hw);
    if (strcmp(spec->name, "energy") == 0) {
        /* The DRAM figure has one home: <dram energy> (older files) or
         * <energy dram>, not both. The children are checked in document
         * order, so whichever comes second is named. */
        if (xmlHasNsProp(node, BAD_CAST "dram", NULL) && lf__dram_energy_line(node) > 0)
            return lf__fail_at(LF_EPARSE, origin, lf__line_of(node),
                               "<energy> attribute dram: the DRAM energy is already given by <dram "
                               "energy=...> on line %ld (give it once)",
                               lf__dram_energy_line(node));
        hw->has_energy = 1;
    }
    return LF_OK;
}

/* The root element and the list of its children (names, duplicates, missing
 * ones); the children's own attributes are left to lf__check_child. */
static lf_status lf__check_root(xmlNodePtr root, const char *origin, lf_hw *hw)
{
    xmlNodePtr first[LF__N(child_specs)] = {NULL};
    char excerpt[48];
    lf_status s;

    if (root->ns)
        return lf__fail_at(LF_EPARSE, origin, lf__line_of(root),
                           "root element <%s> is in namespace \"%s\"; hardware descriptions use no "
                           "namespace",
                               (const char *)root->name, (const char *)root->ns->href);
    if (strcmp((const char *)root->name, "hardware") != 0)
        return lf__fail_at(LF_EPARSE, origin, lf__line_of(root),
                           "root element is <%s>, expected <hardware>", (const char *)root->name);
    if ((s = lf__check_attributes(root, &hardware_spec, origin, hw)) != LF_OK)
        return s;

    for (xmlNodePtr c = root->children; c; c = c->next) {
        if ((c->type == XML_TEXT_NODE || c->type == XML_CDATA_SECTION_NODE) &&
            !lf__is_blank(c->content)) {
            lf__text_excerpt(c->content, excerpt, sizeof excerpt);
            return lf__fail_at(LF_EPARSE, origin, lf__text_line(c, root),
                               "<hardware> contains text \"%s\"; only elements are allowed there",
                               excerpt);
        }
        if (c->type != XML_ELEMENT_NODE)
            continue; /* comments and processing instructions are fine */
        const elem_spec *spec = lf__find_child_spec(c);
        if (!spec)
            return lf__check_child(c, origin, hw); /* reports the unknown element */
        int i = (int)(spec - child_specs);
        if (first[i])
            return lf__fail_at(LF_EPARSE, origin, lf__line_of(c),
                               "<%s> appears more than once in <hardware> (first on line %ld)",
                               spec->name, lf__line_of(first[i]));
        first[i] = c;
    }
    for (int i = 0; i < LF__N(child_specs); i++)
        if (child_specs[i].required && !first[i])
            return lf__fail_at(LF_EPARSE, origin, lf__line_of(root),
                               "<hardware> has no <%s> element (required, e.g. %s)",
                               child_specs[i].name, child_specs[i].example);
    return LF_OK;
}

static void lf__init_scratch(lf_hw *hw)
{
    memset(hw, 0, sizeof *hw);
    hw->act_bytes = 1; /* int8 unless <datatypes> says otherwise */
    hw->weight_bytes = 1;
    strcpy(hw->act_type, "int8");
    strcpy(hw->weight_type, "int8");
    hw->gpu.device_index = -1;
}

/* Everything in the document, checked and stored into hw. */
static lf_status lf__extract(xmlNodePtr root, const char *origin, lf_hw *hw)
{
    lf_status s;
    lf__init_scratch(hw);
    if ((s = lf__check_root(root, origin, hw)) != LF_OK)
        return s;
    for (xmlNodePtr c = root->children; c; c = c->next)
        if (c->type == XML_ELEMENT_NODE && (s = lf__check_child(c, origin, hw)) != LF_OK)
            return s;
    return LF_OK;
}

/* After a schema violation at `node`: the same checks, aimed at that element
 * first, for a message in the user's terms. LF_OK when they find nothing. */
static lf_status lf__explain(xmlNodePtr node, xmlNodePtr root, const char *origin)
{
    lf_hw scratch;
    lf_status s;
    lf__init_scratch(&scratch);
    while (node && node != root && node->parent != root)
        node = node->parent;
    if (node && node != root && node->type == XML_ELEMENT_NODE &&
        (s = lf__check_child(node, origin, &scratch)) != LF_OK)
        return s;
    return lf__extract(root, origin, &scratch);
}

/* libxml2's own schema message, minus its "Element 'x': " opening, which the
 * "<x>" of our format replaces. */
static lf_status lf__schema_fallback(const xml_errors *e, const char *origin)
{
    const char *msg = e->message;
    const char *elem = e->node ? (const char *)e->node->name : NULL;
    if (strncmp(msg, "Element '", 9) == 0) {
        const char *colon = strstr(msg, "': ");
        if (colon)
            msg = colon + 3;
    }
    if (elem)
        return lf__fail_at(LF_EPARSE, origin, e->line > 0 ? e->line : lf__line_of(e->node),
                           "<%s> does not follow the hardware schema: %s", elem, msg);
    return lf__fail_at(LF_EPARSE, origin, e->line > 0 ? e->line : 1,
                       "does not follow the hardware schema: %s", msg);
}

static lf_status lf__parse_failure(const xml_errors *e, const char *origin)
{
    long line = e->line > 0 ? e->line : 1;
    if (!e->have)
        return lf_set_error(LF_EPARSE, "%s: not well-formed XML", origin);
    if (e->code == XML_ERR_DOCUMENT_EMPTY)
        return lf__fail_at(LF_EPARSE, origin, line, "empty document (expected a <hardware> element)");
    if (e->code == XML_ERR_TAG_NAME_MISMATCH && e->str1[0] && e->str2[0])
        return lf__fail_at(LF_EPARSE, origin, line,
                           "not well-formed XML: <%s> opened on line %d is closed by </%s>", e->str1,
                           e->int1, e->str2);
    /* libxml2 suggests its own parser options for some limits; the user
     * cannot set them, so that part of the text is dropped. */
    char msg[sizeof e->message];
    lf__copy_text(msg, sizeof msg, e->message);
    char *echo = strstr(msg, ": <!--"); /* the start of a bad comment, echoed */
    if (echo)
        *echo = '\0';
    char *opt = strstr(msg, "use XML_PARSE_HUGE option");
    if (!opt)
        opt = strstr(msg, "XML_PARSE_HUGE");
    if (opt) {
        *opt = '\0';
        size_t n = strlen(msg);
        while (n > 0 && (msg[n - 1] == ',' || msg[n - 1] == ' ' || msg[n - 1] == '('))
            msg[--n] = '\0';
    }
    return lf__fail_at(LF_EPARSE, origin, line, "not well-formed XML: %s", msg);
}

/* Validates doc against the built-in schema; explains the first violation. */
static lf_status lf__validate(xmlDocPtr doc, xmlNodePtr root, const char *origin)
{
    xml_errors schema_errors, errors;
    xmlSchemaParserCtxtPtr pctxt = NULL;
    xmlSchemaPtr schema = NULL;
    xmlSchemaValidCtxtPtr vctxt = NULL;
    lf_status s = LF_OK;
    int rc;

    memset(&schema_errors, 0, sizeof schema_errors);
    memset(&errors, 0, sizeof errors);
    pctxt = xmlSchemaNewMemParserCtxt(lf_hwdesc_xsd, (int)lf_hwdesc_xsd_len);
    if (!pctxt) {
        s = lf_set_error(LF_ENOMEM, "%s: out of memory reading the hardware schema", origin);
        goto done;
    }
    xmlSchemaSetParserStructuredErrors(pctxt, lf__collect, &schema_errors);
    schema = xmlSchemaParse(pctxt);
    if (!schema) {
        /* A broken hwdesc.xsd is a build defect, not bad input; say so. */
        s = lf_set_error(LF_EPARSE, "internal error: built-in hwdesc.xsd:%ld does not compile: %s",
                         schema_errors.line, schema_errors.message);
        goto done;
    }
    vctxt = xmlSchemaNewValidCtxt(schema);
    if (!vctxt) {
        s = lf_set_error(LF_ENOMEM, "%s: out of memory validating", origin);
        goto done;
    }
    xmlSchemaSetValidStructuredErrors(vctxt, lf__collect, &errors);
    rc = xmlSchemaValidateDoc(vctxt, doc);
    if (rc != 0) {
        s = errors.node ? lf__explain(errors.node, root, origin) : LF_OK;
        if (s == LF_OK)
            s = lf__schema_fallback(&errors, origin);
    }
done:
    xmlSchemaFreeValidCtxt(vctxt);
    xmlSchemaFree(schema);
    xmlSchemaFreeParserCtxt(pctxt);
    return s;
}

/* The whole pipeline on bytes in memory; hw is written only on success. */
static lf_status lf__load_bytes(lf_hw *hw, const char *xml, int len, const char *origin)
{
    xml_errors errors;
    saved_handlers saved;
    xmlParserCtxtPtr ctxt = NULL;
    xmlDocPtr doc = NULL;
    xmlNodePtr root;
    lf_hw result;
    lf_status s;

    if ((s = lf__hw_precheck(xml, (size_t)len, origin)) != LF_OK)
        return s;

    pthread_once(&lf__hw_xml_once, lf__init_libxml);
    memset(&errors, 0, sizeof errors);
    lf__install_handlers(&errors, &saved);

    ctxt = xmlNewParserCtxt();
    if (!ctxt) {
        s = lf_set_error(LF_ENOMEM, "%s: out of memory", origin);
        goto done;
    }
    ctxt->_private = &errors;
    ctxt->sax->internalSubset = lf__reject_doctype;
    /* XML_PARSE_HUGE lifts libxml2's 10 MB limits, which otherwise refuse a
     * description padded to the documented 16 MiB cap ("Huge input lookup");
     * lf__hw_precheck has already bounded every count and length, and no
     * entity can be declared (a DOCTYPE stops the parse), so nothing the
     * limits guard against can happen. */
    doc = xmlCtxtReadMemory(ctxt, xml, len, NULL, NULL,
                            XML_PARSE_NONET | XML_PARSE_BIG_LINES | XML_PARSE_HUGE);
    if (errors.doctype) {
        s = lf__fail_at(LF_EPARSE, origin, errors.doctype_line > 0 ? errors.doctype_line : 1,
                        "<!DOCTYPE %s> is not allowed: hardware descriptions take no DTD or entity "
                        "declarations",
                        errors.str1);
        goto done;
    }
    if (!doc || errors.have) {
        s = lf__parse_failure(&errors, origin);
        goto done;
    }
    root = xmlDocGetRootElement(doc);
    if (!root) {
        s = lf__fail_at(LF_EPARSE, origin, 1, "empty document (expected a <hardware> element)");
        goto done;
    }
    if ((s = lf__validate(doc, root, origin)) != LF_OK)
        goto done;
    if ((s = lf__extract(root, origin, &result)) != LF_OK)
        goto done;
    snprintf(result.source, sizeof result.source, "%s", origin);
    *hw = result;
done:
    xmlFreeDoc(doc);
    xmlFreeParserCtxt(ctxt);
    lf__restore_handlers(&saved);
    return s;
}

lf_status lf_hw_load_memory(lf_hw *hw, const char *xml, int64_t len, const char *origin)
{
    if (!hw || !xml)
        return lf_set_error(LF_EINVAL, "lf_hw_load_memory: no %s given", hw ? "text" : "result");
    if (!origin)
        origin = "<memory>";
    if (len < 0)
        len = (int64_t)strlen(xml); /* a NUL-terminated string */
    if (len > LF__HW_MAX_FILE)
        return lf_set_error(LF_ERANGE, "%s: %lld bytes is too large for a hardware description",
                            origin, (long long)len);
    return lf__load_bytes(hw, xml, (int)len, origin);
}

/* Reads a whole (small) file; LF_EIO with the system's reason on failure. */
static lf_status lf__read_file(const char *path, char **data, long *len)
{
    char reason[128];
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long n = 0, cap = 0;

    if (!f) {
        int err = errno;
        if (strerror_r(err, reason, sizeof reason) != 0)
            snprintf(reason, sizeof reason, "error %d", err);
        return lf_set_error(LF_EIO, "%s: cannot open: %s", path, reason);
    }
    /* Reads at most LF__HW_MAX_FILE + 1 bytes: a file of exactly the cap is
     * accepted, one byte more is refused, and a pipe or /dev/zero cannot make
     * the reader grow without bound. */
    for (;;) {
        if (n == cap) {
            char *grown;
            if (n > LF__HW_MAX_FILE) {
                free(buf);
                fclose(f);
                return lf_set_error(LF_ERANGE,
                                    "%s: larger than %ld MiB, not a hardware description", path,
                                    LF__HW_MAX_FILE >> 20);
            }
            cap = cap ? cap * 2 : 4096;
            if (cap > LF__HW_MAX_FILE + 1)
                cap = LF__HW_MAX_FILE + 1;
            grown = realloc(buf, (size_t)cap + 1);
            if (!grown) {
                free(buf);
                fclose(f);
                return lf_set_error(LF_ENOMEM, "%s: out of memory", path);
            }
            buf = grown;
        }
        size_t got = fread(buf + n, 1, (size_t)(cap - n), f);
        n += (long)got;
        if (got == 0)
            break;
    }
    if (n > LF__HW_MAX_FILE) {
        free(buf);
        fclose(f);
        return lf_set_error(LF_ERANGE, "%s: larger than %ld MiB, not a hardware description", path,
                            LF__HW_MAX_FILE >> 20);
    }
    if (ferror(f)) {
        int err = errno;
        if (strerror_r(err, reason, sizeof reason) != 0)
            snprintf(reason, sizeof reason, "error %d", err);
        free(buf);
        fclose(f);
        return lf_set_error(LF_EIO, "%s: cannot read: %s", path, reason);
    }
    fclose(f);
    buf[n] = '\0';
    *data = buf;
    *len = n;
    return LF_OK;
}

lf_status lf_hw_load(lf_hw *hw, const char *path)
{
    char *data = NULL;
    long len = 0;
    lf_status s;

    if (!hw || !path)
        return lf_set_error(LF_EINVAL, "lf_hw_load: no %s given", hw ? "path" : "result");
    if ((s = lf__read_file(path, &data, &len)) != LF_OK)
        return s;
    s = lf__load_bytes(hw, data, (int)len, path);
    free(data);
    return s;
}
