#!/bin/bash
# Annotated ONNX plans and the optimizer's ONNX graph pass ONNX's own checker
# (onnx.checker.check_model with full shape inference) from Debian's
# python3-onnx; skipped (77) when no python3 can import onnx.
set -u
fp=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
py=""
for c in python3 /usr/bin/python3; do
  if command -v "$c" >/dev/null 2>&1 && "$c" -c 'import onnx.checker' >/dev/null 2>&1; then
    py=$c
    break
  fi
done
[ -n "$py" ] || { echo "skipped: no python3 with onnx (Debian: apt install python3-onnx)"; exit 77; }
fail=0
"$fp" plan --model mobilenet_v3_small --input-size 96 --quiet -o "$tmp/p.onnx" >/dev/null 2>&1 || { echo "FAIL: plan mobilenet_v3_small"; fail=1; }
"$fp" plan --model inception_v3 --input-size 96 --search layer --quiet -o "$tmp/i.onnx" >/dev/null 2>&1 || { echo "FAIL: plan inception_v3"; fail=1; }
"$fp" plan --model bert_base --layers 1 --seq-len 16 --quiet -o "$tmp/t.onnx" >/dev/null 2>&1 || { echo "FAIL: plan bert_base"; fail=1; }
"$fp" optimize --model resnet18 --input-size 64 --objective dram --budget 50 -o "$tmp/o.onnx" >/dev/null 2>&1 || { echo "FAIL: optimize"; fail=1; }
# an RMSNorm op written out at opset 17 (Mul, ReduceMean, Add, Sqrt, Div, Mul; the reduced
# helpers' value_info of the reduced shape)
"$fp" optimize --onnx "$2/tests/data/onnx/transformer/rmsnorm_rsqrt/model.onnx" --budget 1 -o "$tmp/r.onnx" >/dev/null 2>&1 ||
  { echo "FAIL: optimize rmsnorm_rsqrt"; fail=1; }
for f in p i t o r; do
  "$py" -c '
import sys, onnx
m = onnx.load(sys.argv[1])
onnx.checker.check_model(m, full_check=True)
assert m.ir_version == 8 and any(o.domain == "" and o.version == 17 for o in m.opset_import)
' "$tmp/$f.onnx" || { echo "FAIL: onnx.checker on $f.onnx"; fail=1; }
done
# optimize -o keeps the names a user maps back (search/subst/rewrite.c): the
# fused Conv+Relu of resnet18's stem is named like the Conv, and the graph
# output keeps its name
"$fp" optimize --model resnet18 --input-size 64 --budget 50 -o "$tmp/n.onnx" >"$tmp/n.log" 2>&1 || { echo "FAIL: optimize (names)"; fail=1; }
grep -q 'conv_relu' "$tmp/n.log" || { echo "FAIL: optimize applied no conv_relu"; fail=1; }
"$py" -c '
import sys, onnx
m = onnx.load(sys.argv[1])
onnx.checker.check_model(m, full_check=True)
kind = {n.name: n.op_type for n in m.graph.node}
assert kind.get("conv1") == "Conv" and kind.get("conv1/act") == "Relu", kind.get("conv1")
assert "relu" not in kind, "the Relu folded into conv1 is still a node"
assert [o.name for o in m.graph.output] == ["fc"], [o.name for o in m.graph.output]
' "$tmp/n.onnx" || { echo "FAIL: optimize -o names"; fail=1; }
# --format onnx-groups: each group one model-local function called once, the
# same nodes as the flat export (p.onnx), grouped as the plan's groups
"$fp" plan --model mobilenet_v3_small --input-size 96 --quiet --format onnx-groups -o "$tmp/g.onnx" >/dev/null 2>&1 || { echo "FAIL: plan --format onnx-groups"; fail=1; }
"$fp" plan --model bert_base --layers 1 --seq-len 16 --quiet --format onnx-groups -o "$tmp/tg.onnx" >/dev/null 2>&1 || { echo "FAIL: plan bert_base --format onnx-groups"; fail=1; }
for pair in "p g" "t tg"; do
  set -- $pair
  "$py" -c '
import sys, json, onnx
flat, grp = onnx.load(sys.argv[1]), onnx.load(sys.argv[2])
onnx.checker.check_model(grp, full_check=True)
meta = lambda n: {e.key: e.value for e in getattr(n, "metadata_props", [])}
plan = json.loads({e.key: e.value for e in grp.metadata_props}["fusionplan.plan"])
ids = sorted({g["id"] for g in plan["groups"]} | {u["group"] for u in plan.get("unfusable", [])})
funcs = {f.name: f for f in grp.functions}
assert sorted(funcs) == sorted("group_%d" % i for i in ids), (sorted(funcs), ids)
calls = [n for n in grp.graph.node if n.domain == "fusionplan.groups"]
assert sorted(n.op_type for n in calls) == sorted(funcs), "each function called once"
inner = [n.name for f in grp.functions for n in f.node]
plain = [n.name for n in grp.graph.node if n.domain != "fusionplan.groups"]
assert sorted(inner + plain) == sorted(n.name for n in flat.graph.node), "the flat export regrouped"
assert [o.name for o in grp.graph.output] == [o.name for o in flat.graph.output]
print(sys.argv[2], len(funcs), "groups as functions,", len(plain), "plain nodes")
' "$tmp/$1.onnx" "$tmp/$2.onnx" || { echo "FAIL: onnx-groups $2.onnx"; fail=1; }
done
[ $fail -eq 0 ] && echo "ok: onnx.checker accepts the exports"
exit $fail
