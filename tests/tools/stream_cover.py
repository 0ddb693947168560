"""Checks a Stream 1.13 mapping against the ONNX model it names (DESIGN §17):
layers[] are the model's compute nodes by name, and fused_groups cover them
once each, in file order (Stream's cut order), layout ops left out.
Usage: stream_cover.py MAPPING.yaml MODEL.onnx; prints one line, exit 1 on a mismatch."""
import sys

import onnx
import yaml

LAYOUT = {"Flatten", "Reshape", "Transpose", "Squeeze", "Unsqueeze"}
mapping, model = sys.argv[1:3]
m = yaml.safe_load(open(mapping))
nodes = [n.name for n in onnx.load(model).graph.node if n.op_type not in LAYOUT]
layers = [e["name"] for e in m["layers"] if e["name"] != "default"]
grouped = [name for g in m["fused_groups"] for name in g["layers"]]
bad = []
if layers != nodes:
    bad.append(f"layers[] are not the ONNX nodes ({len(layers)} vs {len(nodes)})")
if grouped != nodes:
    first = next((i for i, (a, b) in enumerate(zip(grouped, nodes)) if a != b), min(len(grouped), len(nodes)))
    bad.append(f"fused_groups do not cover the nodes in file order (first difference at #{first})")
for g in m["fused_groups"]:
    for t in g["intra_core_tiling"]:
        if t["dim"].rsplit(".", 1)[0] not in g["layers"] or t["tile"] < 1:
            bad.append(f"group {g['name']}: tiling {t} names no layer of the group")
print(f"{mapping}: " + ("; ".join(bad) if bad else f"{len(m['fused_groups'])} groups cover {len(nodes)} nodes in order"))
sys.exit(1 if bad else 0)
