/* Internal to the plan reader (plan_read.c, plan_xml_read.c): not API. */
#ifndef LF_PLAN_READ_INTERNAL_H
#define LF_PLAN_READ_INTERNAL_H

#include <jansson.h>
#include <stddef.h>

#include "planner/status.h"

/* Parses an XML plan, validates it against the built-in planner/io/plan.xsd
 * and returns the JSON plan's tree (*out, to json_decref), or LF_EPARSE with
 * one line naming the origin and the line. */
lf_status lf__plan_xml_to_json(const void *data, size_t len, const char *origin, json_t **out);

/* Reads an ONNX plan (onnx_write_plan.c): the JSON plan of its metadata
 * fusionplan.plan, after checking every node's fusionplan.* annotations
 * against it; LF_EPARSE with one line naming the origin, the node and the
 * key otherwise. */
lf_status lf__plan_onnx_to_json(const void *data, size_t len, const char *origin, json_t **out);

#endif
