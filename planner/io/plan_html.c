/* Plan as one self-contained HTML page (DESIGN §20, docs/exports.md): the
 * plan's JSON export and the graph's ops embedded as JSON data blocks, drawn
 * by a small script of the project's own (planner/io/plan_html.js, with
 * plan_html.css, compiled into the library by cmake/LfEmbed.cmake). The page
 * makes no request: everything is inline and a Content-Security-Policy of
 * default-src 'none' forbids the browser any fetch. One data source: the page
 * shows what `-o plan.json` writes, plus per-op facts the JSON leaves out
 * (type, shape, inputs, weights, cost alone). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "planner/io/json.h"
#include "planner/io/plan_export.h"
#include "planner/optable.h"
#include "planner/util/bitset.h"

extern const char lf_plan_html_js[];
extern const char lf_plan_html_css[];

/* Text into a <script type="application/json"> block: "</" would end the
 * block, so it is written "<\/", which JSON reads as the same string ('<'
 * only occurs inside JSON strings). */
static void lf__html_script_text(FILE *f, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        fputc(s[i], f);
        if (s[i] == '<' && i + 1 < n && s[i + 1] == '/')
            fputc('\\', f);
    }
}

/* Text in HTML element content (the title). */
static void lf__html_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '<')
            fputs("&lt;", f);
        else if (*s == '>')
            fputs("&gt;", f);
        else if (*s == '&')
            fputs("&amp;", f);
        else
            fputc(*s, f);
    }
}

/* The graph's ops: what the plan JSON does not say but the cards show. The
 * cost alone (op v as a group of one) is evaluated under cm, so at its
 * buffer size. */
static lf_status lf__html_graph(FILE *f, lf_cost_model *cm)
{
    const lf_graph *g = lf_cost_graph(cm);
    const lf_hw *hw = lf_cost_hw(cm);
    lf_bitset one;
    lf_status st = lf_bitset_init(&one, g->n_ops);
    if (st != LF_OK)
        return st;
    fprintf(f, "{\"beta\": %" PRId64 ", \"ops\": [\n", lf_cost_beta(cm));
    for (int32_t v = 0; v < g->n_ops && st == LF_OK; v++) {
        const lf_op *op = &g->ops[v];
        fprintf(f, "{\"id\": %d, \"name\": ", (int)v);
        lf_json_string(f, op->name);
        fprintf(f, ", \"type\": \"%s\", \"in\": [", lf_op_info_of(op->type)->name);
        for (int32_t i = 0; i < op->n_inputs; i++)
            fprintf(f, "%s%d", i ? ", " : "", (int)op->inputs[i]);
        fprintf(f,
                "], \"shape\": [%" PRId64 ", %" PRId64 ", %" PRId64 ", %" PRId64 "], \"bytes\": %" PRId64
                ", \"weights\": %" PRId64 ", \"macs\": %" PRId64,
                op->out.n, op->out.c, op->out.h, op->out.w, lf_tensor_bytes(g, v, hw->act_bytes),
                lf_weight_bytes(g, v, hw->weight_bytes), op->macs);
        if (op->type != LF_OP_INPUT) {
            lf_group_cost c;
            lf_bitset_set(&one, v);
            st = lf_cost_eval(cm, &one, &c);
            lf_bitset_reset(&one, v);
            if (st == LF_OK)
                fprintf(f,
                        ", \"fusable\": %s, \"alone\": {\"f_beta\": %" PRId64 ", \"f_d\": %" PRId64
                        ", \"tile_rows\": %d, \"weight_reads\": %d, \"valid\": %s}",
                        lf_cost_fusable(cm, v) ? "true" : "false", c.f_beta, c.f_d, (int)c.tile_rows,
                        (int)c.weight_reads, c.valid ? "true" : "false");
        }
        fprintf(f, "}%s\n", v + 1 < g->n_ops ? "," : "");
    }
    fputs("]}", f);
    lf_bitset_destroy(&one);
    return st;
}

/* Writes `what` into a memory buffer, then into f as script text. */
static lf_status lf__html_block(FILE *f, const char *id, lf_status (*what)(FILE *, void *), void *arg)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    if (!mem)
        return lf_set_error(LF_ENOMEM, "out of memory writing an HTML page");
    lf_status st = what(mem, arg);
    if (fclose(mem) != 0 && st == LF_OK)
        st = lf_set_error(LF_ENOMEM, "out of memory writing an HTML page");
    if (st == LF_OK) {
        fprintf(f, "<script type=\"application/json\" id=\"%s\">", id);
        lf__html_script_text(f, buf, len);
        fputs("</script>\n", f);
    }
    free(buf);
    return st;
}

typedef struct {
    const lf_plan *plan;
    lf_cost_model *cm;
    const lf_plan_meta *meta;
} lf__html_plan_arg;

static lf_status lf__html_plan_json(FILE *f, void *arg)
{
    const lf__html_plan_arg *a = arg;
    return lf_plan_write_json(f, a->plan, a->cm, a->meta);
}

static lf_status lf__html_graph_json(FILE *f, void *arg)
{
    return lf__html_graph(f, arg);
}

static lf_status lf__html_extra_json(FILE *f, void *arg)
{
    fputs(arg, f);
    return LF_OK;
}

/* The head every page shares, up to and including <body>. */
static void lf__html_head(FILE *f, const char *title)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
          "script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>",
          f);
    lf__html_text(f, title);
    fputs(" - fusionplan</title>\n<style>\n", f);
    fputs(lf_plan_html_css, f);
    fputs("</style>\n</head>\n<body>\n"
          "<noscript>This page draws its figures with JavaScript; the same data is in the "
          "application/json blocks of its source.</noscript>\n",
          f);
}

static lf_status lf__html_tail(FILE *f)
{
    fputs("<script>\n", f);
    fputs(lf_plan_html_js, f);
    fputs("</script>\n</body>\n</html>\n", f);
    if (ferror(f))
        return lf_set_error(LF_EIO, "error writing the HTML page");
    return LF_OK;
}

lf_status lf_html_write_report(FILE *f, const char *title, const char *report_json)
{
    if (!f || !title || !report_json)
        return lf_set_error(LF_EINVAL, "lf_html_write_report needs a stream, a title and the report");
    lf__html_head(f, title);
    lf_status st = lf__html_block(f, "fp-extra", lf__html_extra_json, (void *)report_json);
    return st == LF_OK ? lf__html_tail(f) : st;
}

lf_status lf_plan_write_html_steps(FILE *f, const char *title, int32_t n, const lf_plan *plans,
                                   lf_cost_model *const *cms, const lf_plan_meta *meta,
                                   const char *extra_json)
{
    if (!f || n < 1 || !plans || !cms)
        return lf_set_error(LF_EINVAL, "lf_plan_write_html_steps needs a stream and at least one plan "
                                       "with its cost model");
    for (int32_t i = 0; i < n; i++)
        if (!cms[i] || lf_cost_graph(cms[i]) != lf_cost_graph(cms[0]))
            return lf_set_error(LF_EINVAL, "HTML page: plan %d is not of the same graph", (int)i);
    const lf_graph *g = lf_cost_graph(cms[0]);
    lf__html_head(f, title ? title : (meta && meta->model ? meta->model : g->name));
    lf_status st = lf__html_block(f, "fp-graph", lf__html_graph_json, cms[0]);
    for (int32_t i = 0; i < n && st == LF_OK; i++) {
        char id[32];
        snprintf(id, sizeof id, "fp-plan-%d", (int)i);
        lf__html_plan_arg a = {&plans[i], cms[i], meta};
        st = lf__html_block(f, id, lf__html_plan_json, &a);
    }
    if (st == LF_OK && extra_json)
        st = lf__html_block(f, "fp-extra", lf__html_extra_json, (void *)extra_json);
    return st == LF_OK ? lf__html_tail(f) : st;
}

lf_status lf_plan_write_html(FILE *f, const lf_plan *p, lf_cost_model *cm, const lf_plan_meta *meta)
{
    if (!f || !p || !cm)
        return lf_set_error(LF_EINVAL, "lf_plan_write_html needs a stream, a plan and a cost model");
    return lf_plan_write_html_steps(f, NULL, 1, p, &cm, meta, NULL);
}
