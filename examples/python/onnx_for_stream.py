#!/usr/bin/env python3
"""An ONNX model planned and its plan saved for Stream (KULeuven-MICAS/stream):
the mapping YAML (fused_groups, layer_stacks) and the annotated ONNX it names.

    PYTHONPATH=build/python python3 examples/python/onnx_for_stream.py [MODEL.onnx] [OUTDIR]

Without a model, resnet18 is written as ONNX first (Graph.to_onnx), then
read back as any ONNX file would be.
"""
import os
import sys

import fusionplan as fp

outdir = sys.argv[2] if len(sys.argv) > 2 else "."
os.makedirs(outdir, exist_ok=True)
if len(sys.argv) > 1 and sys.argv[1]:
    path = sys.argv[1]
else:
    path = os.path.join(outdir, "resnet18.onnx")
    fp.Graph.builtin("resnet18").to_onnx(path)

g = fp.Graph.from_onnx(path)
hw = fp.Hardware(buffer="256KB")
plan = fp.plan(g, hw, search="exact", time_limit=30, best_effort=True)
print(plan)
for grp in plan.groups[:5]:
    print("  group %d: %d ops (%s .. %s), F_beta %d B, F_D %d B, %d rows a tile" % (
        grp.id, len(grp.ops), grp.names[0], grp.names[-1], grp.f_beta, grp.f_d, grp.tiles))
mapping = os.path.join(outdir, "mapping.yaml")
onnx_out = os.path.join(outdir, "plan.onnx")
plan.save(mapping)    # Stream's mapping: one fused group per plan group
plan.save(onnx_out)   # the same nodes, annotated with the plan (docs/exports.md)
print("wrote", mapping, "and", onnx_out, "; issues:", plan.validate())
