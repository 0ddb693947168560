"""Runs Stream 303f9dc1's genetic-algorithm pipeline (stream.api.optimize_allocation_ga, what
../shared/tools/stream-check/run_legacy_ga.py runs) on a `--format stream-stacks` mapping and the
ONNX model it names, and checks that the layer stacks Stream uses are the plan's groups node for
node: Stream's own final stacks (read from its LayerStacksGenerationStage) are the mapping's stacks
less the nodes Stream does not compute, and Stream's node k is ONNX node k (same name).
Usage: stream_ga.py HW.yaml MODEL.onnx MAPPING.yaml OUTDIR; prints
`RESULT latency_cycles=... energy_pJ=...` and exits 1 on a mismatch. Run from inside Stream's folder."""
import ast
import logging
import sys

import onnx

hw, model, mapping, out = sys.argv[1:5]
logging.basicConfig(level=logging.WARNING)
from stream.api import optimize_allocation_ga  # noqa: E402
from stream.stages.generation.layer_stacks_generation import LayerStacksGenerationStage  # noqa: E402
from stream.workload.computation.computation_node import ComputationNode  # noqa: E402

seen = {}
original = LayerStacksGenerationStage.only_keep_computation_node_ids


def record(self):
    original(self)
    seen["stacks"] = [tuple(s) for s in self.layer_stacks]
    seen["nodes"] = {n.id: (n.name, isinstance(n, ComputationNode)) for n in self.workload.node_list}


LayerStacksGenerationStage.only_keep_computation_node_ids = record
line = next(l for l in open(mapping) if l.startswith("# layer_stacks: "))
stacks = [tuple(s) for s in ast.literal_eval(line[len("# layer_stacks: "):])]
scme = optimize_allocation_ga(hardware=hw, workload=model, mapping=mapping, mode="fused", layer_stacks=stacks,
                              nb_ga_generations=1, nb_ga_individuals=2, experiment_id="fusionplan",
                              output_path=out, skip_if_exists=False)
names = [n.name for n in onnx.load(model).graph.node]
nodes = seen["nodes"]
bad = [f"Stream's node {i} is '{nodes[i][0]}', ONNX node {i} is '{names[i]}'" for i in nodes if nodes[i][0] != names[i]]
want = [tuple(i for i in s if i in nodes and nodes[i][1]) for s in stacks]
if seen["stacks"] != want:
    bad.append(f"Stream's stacks {seen['stacks']} are not the plan's {want}")
print(f"RESULT latency_cycles={scme.latency:.6e} energy_pJ={scme.energy:.6e} stacks={len(want)}")
for b in bad[:5]:
    print("MISMATCH:", b)
sys.exit(1 if bad else 0)
