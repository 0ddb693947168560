/* Reading a plan file back (docs/plan-format.md) and checking it against its
 * network (DESIGN §4): the other half of planner/io/plan_export.h, behind
 * `fusionplan validate`.
 *
 * lf_plan_doc_read parses the JSON with jansson and keeps what the file says,
 * unchecked against any graph: the model and its graph hash, the hardware,
 * the scheme and beta, group_of, every group's members and figures, the
 * unfusable ops and the metrics. lf_plan_validate then rebuilds the partition
 * on the network, re-checks it and recomputes every figure with the cost
 * model, reporting each discrepancy as one line. */
#ifndef LF_PLAN_READ_H
#define LF_PLAN_READ_H

#include <stdint.h>
#include <stdio.h>

#include "hwdesc/hw.h"
#include "planner/plan.h"

#define LF_PLAN_DOC_NAME_MAX 256

/* One member of "groups": a group of fusable ops as written. */
typedef struct lf_plan_doc_group {
    int32_t id;
    int32_t n_ops;
    int32_t *ops;
    int64_t f_beta, f_d, mbu, weights;
    int32_t weight_reads, tile_rows;
    int32_t valid;
} lf_plan_doc_group;

/* One member of "unfusable": an unfusable op alone in its group. */
typedef struct lf_plan_doc_unfusable {
    int32_t op, group;
    int64_t f_beta, dram;
} lf_plan_doc_unfusable;

/* One member of "pareto": a plan of the front, with its metrics as written. */
typedef struct lf_plan_doc_point {
    lf_plan_metrics metrics;
    lf_plan plan; /* group_of as written */
} lf_plan_doc_point;

typedef struct lf_plan_doc {
    char origin[LF_HW_SOURCE_MAX]; /* the file (or the name given for memory) */
    char model[LF_PLAN_DOC_NAME_MAX], graph[LF_PLAN_DOC_NAME_MAX];
    char graph_hash[17];           /* 16 lowercase hex digits */
    int32_t n_ops, compute_ops;
    lf_hw hw;                      /* the "hardware" object over lf_hw_default */
    char scheme[16];
    char objective[16];            /* what the planner minimised: "dram" when absent */
    int64_t beta;
    lf_plan plan;                  /* group_of as written; n_groups = largest index + 1 */
    lf_plan_metrics metrics;
    int32_t n_groups;
    lf_plan_doc_group *groups;
    int32_t n_unfusable;
    lf_plan_doc_unfusable *unfusable;
    int32_t n_pareto;              /* 0 when the file has no "pareto" */
    lf_plan_doc_point *pareto;
} lf_plan_doc;

/* Reads a plan file. Anything unreadable (missing or truncated file, bad
 * JSON, a missing member, a value of the wrong type or out of range, an op id
 * outside the graph) is LF_EIO or LF_EPARSE with one line naming the file
 * and the field: "plan.json: groups[3].ops[2]: expected an op id in [0, 152)".
 * *doc is zeroed first and safe to destroy after a failure. */
lf_status lf_plan_doc_read(lf_plan_doc *doc, const char *path);
lf_status lf_plan_doc_read_memory(lf_plan_doc *doc, const void *data, size_t len, const char *origin);
void lf_plan_doc_destroy(lf_plan_doc *doc);

/* One discrepancy, as a printable line without the origin. */
typedef void (*lf_plan_issue_fn)(void *user, const char *message);

/* Checks doc against cm's network and hardware. A plan for another graph
 * (graph hash or op count differing) is LF_EPLAN with one line naming the
 * field ("plan.json: model.graph_hash: ..."); otherwise LF_OK, with every
 * discrepancy passed to issue (may be NULL) and counted in *n_issues:
 * hardware, scheme or beta differing from cm's; an op in no group, in two
 * groups or in a group the listing contradicts; a group not weakly
 * connected; a cyclic quotient graph; an unfusable op not alone; a group that
 * overflows the buffer (F_beta >= beta); every F_beta, F_D, MBU, weight
 * figure, validity flag and plan metric that the cost model does not
 * reproduce; and for each Pareto plan, the first rule it breaks
 * (lf_plan_check) and every metric that differs. */
lf_status lf_plan_validate(const lf_plan_doc *doc, lf_cost_model *cm, lf_plan_issue_fn issue,
                           void *user, int32_t *n_issues);

/* The verdict of a validation of the plan file at path: "PATH: N
 * discrepancies", or without any "PATH: OK (model, scheme beta B, G groups,
 * U unfusable, DRAM D B fusable ops)". */
void lf_plan_verdict_write(FILE *f, const char *path, const lf_plan_doc *doc, int32_t n_issues);

#endif
