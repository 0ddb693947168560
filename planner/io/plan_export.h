/* Plan export: JSON (docs/plan-format.md, docs/plan.schema.json) and Graphviz
 * DOT, written to a stream or atomically to a file.
 *
 * Output depends only on the plan, the cost model and the metadata: groups are
 * written in canonical order (renumbered by smallest op id) and there are no
 * timestamps, timings, thread counts or addresses, so the same plan always
 * gives byte-identical files. */
#ifndef LF_PLAN_EXPORT_H
#define LF_PLAN_EXPORT_H

#include <stdint.h>
#include <stdio.h>

#include "planner/plan.h"

/* What produced the plan. Every field may be left zero/NULL; pass NULL for no
 * metadata at all (the model name then defaults to the graph's name). */
typedef struct lf_plan_meta {
    const char *model;     /* model or file name */
    const char *search;    /* "layer", "greedy", "nsga2", ... */
    uint64_t seed;
    int64_t budget;        /* -1 when not applicable */
    int32_t n_pareto;      /* optional Pareto front (NSGA-II), 0 when none */
    const lf_plan *pareto;
    const char *onnx_source; /* the ONNX file the graph was imported from (annotated
                                ONNX export keeps its nodes); NULL: written from the IR */
    int32_t residency;     /* 1: the plan is a decode step; JSON adds "weight_residency"
                              (planner/residency.h, DESIGN §16) */
} lf_plan_meta;

/* The plan must cover cm's graph: graph inputs in no group, every compute op
 * in a group index in [0, n_groups). Invalid groups, cycles or disconnected
 * groups are written as they are (and marked), so that bad plans can be
 * inspected; anything structurally unusable gives LF_EPLAN. Write errors give
 * LF_EIO. */
lf_status lf_plan_write_json(FILE *f, const lf_plan *p, lf_cost_model *cm, const lf_plan_meta *meta);
lf_status lf_plan_write_dot(FILE *f, const lf_plan *p, lf_cost_model *cm, const lf_plan_meta *meta);
/* The JSON content as XML, valid under planner/io/plan.xsd (docs/plan-format.md). */
lf_status lf_plan_write_xml(FILE *f, const lf_plan *p, lf_cost_model *cm, const lf_plan_meta *meta);
/* The plan drawn by Graphviz (format "svg" or "png"): the DOT export with
 * groups filled by F_beta / beta, run through `dot` found on PATH, into f.
 * LF_ENOSYS with one line when
 * Graphviz is not installed, LF_EIO when dot fails. */
lf_status lf_plan_write_image(FILE *f, const char *format, const lf_plan *p, lf_cost_model *cm,
                              const lf_plan_meta *meta);

/* Annotated ONNX (docs/exports.md): meta->onnx_source with metadata_props
 * added, or the graph written by the ONNX exporter with the executor's
 * weights for seed 0; every node of a planned op carries fusionplan.op,
 * .group, .f_beta, .f_d, .tile_rows and .weight_reads, the model
 * fusionplan.version, .model, .graph_hash, .scheme, .beta, .dram_fusable,
 * .dram_all, .optimal and .plan (this plan as JSON). lf_plan_doc_read reads
 * it back. */
lf_status lf_plan_write_onnx(FILE *f, const lf_plan *p, lf_cost_model *cm, const lf_plan_meta *meta);
/* The same model with every fusion group as one ONNX function (a
 * model-local FunctionProto `group_K` of domain fusionplan.groups, called by
 * one node of the graph), which Netron shows as one node per group
 * (planner/io/onnx_write_groups.c; `--format onnx-groups`). */
lf_status lf_plan_write_onnx_groups(FILE *f, const lf_plan *p, lf_cost_model *cm, const lf_plan_meta *meta);

/* Mappings for Stream (KULeuven-MICAS/stream; docs/exports.md), naming the
 * nodes of the annotated ONNX export of the same plan (lf_plan_write_onnx):
 * lf_plan_write_stream writes Stream 1.13's YAML (`layers` by node name and
 * `fused_groups` covering the network in Stream's cut order, with
 * intra_core_tiling {dim: "<node>.D2", tile: rows}); lf_plan_write_stream_stacks
 * the layer list for Stream's layer_stacks API (303f9dc1) with the stacks as
 * Stream's node ids in a comment line. What Stream cannot express is written
 * as the closest plan it runs, with a comment line each. */
lf_status lf_plan_write_stream(FILE *f, const lf_plan *p, lf_cost_model *cm, const lf_plan_meta *meta);
lf_status lf_plan_write_stream_stacks(FILE *f, const lf_plan *p, lf_cost_model *cm, const lf_plan_meta *meta);
/* Those lines for format "stream" or "stream-stacks" ('\n'-terminated, into
 * out, cut at len): an op type the version has no parser for, a group it
 * cuts, row tiles that do not divide; returns how many (-1 on an error). */
int32_t lf_plan_stream_notes(const lf_plan *p, lf_cost_model *cm, const lf_plan_meta *meta, const char *format,
                             char *out, size_t len);

/* The plan as one self-contained HTML page (docs/exports.md, DESIGN §20): the
 * graph drawn top to bottom with each group a coloured cluster, hover cards,
 * search, pan and zoom, the DRAM per group as bars; no request leaves the
 * page. The plan's JSON export is embedded as it is (one data source) with
 * the ops' types, shapes, weights and costs alone. */
lf_status lf_plan_write_html(FILE *f, const lf_plan *p, lf_cost_model *cm, const lf_plan_meta *meta);
/* n plans of one graph on one page (a slider over them when extra_json is a
 * curve's {"kind": "curve", "steps": [{"beta", "dram_all"}, ...]}); cms[i]
 * prices plans[i] (its buffer size); ops' costs alone are priced by cms[0].
 * title NULL: the model's name. */
lf_status lf_plan_write_html_steps(FILE *f, const char *title, int32_t n, const lf_plan *plans,
                                   lf_cost_model *const *cms, const lf_plan_meta *meta,
                                   const char *extra_json);

/* A page without a plan (compare, sweep-report): report_json is the page
 * script's {"kind": "report", ...} (planner/io/plan_html.js, report()). */
lf_status lf_html_write_report(FILE *f, const char *title, const char *report_json);

/* The format a path's extension names into *format (may be NULL), by the
 * exporter table of planner/io/plan_save.c (.json, .dot or .gv, .xml, .svg,
 * .png, .onnx, .yaml or .yml, .html or .htm, any case); any other extension
 * is LF_EINVAL. */
lf_status lf_plan_format_of(const char *path, const char **format);

/* The export formats' names, NULL-terminated, in the exporter table's order
 * (planner/io/plan_save.c): what --format and lf_plan_save accept. */
const char *const *lf_plan_formats(void);

/* format: one of lf_plan_formats(), or NULL to pick by the path's
 * extension (lf_plan_format_of); other extensions or formats give LF_EINVAL.
 * Written atomically (temporary file + rename): on any error nothing is left
 * behind. */
lf_status lf_plan_save(const char *path, const char *format, const lf_plan *p, lf_cost_model *cm,
                       const lf_plan_meta *meta);

#endif
