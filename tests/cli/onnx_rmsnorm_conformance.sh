#!/bin/bash
# Opset 23's RMSNormalization against ONNX's own node-test cases (which Debian's libonnx-testdata,
# onnx 1.12, lacks) and scales that broadcast, plus LayerNormalization's broadcast scale and bias:
# tests/data/onnx/make_rmsnorm_cases.py writes them (numpy's float64 outputs) into the build
# folder, where every case must import, run and match. Each model with its scale as an initializer
# is written by `optimize -o` as opset 17 (RMSNorm op by op), which must pass onnx.checker, import
# back to the same graph (same hash) and still match. A scale that does not broadcast is one line
# naming the node. Skips when no python3 has onnx (Debian: apt install python3-onnx).
set -u
fp=$1
src=$2
py=""
for c in /usr/bin/python3 python3; do
  if command -v "$c" >/dev/null 2>&1 && "$c" -c 'import onnx, numpy' >/dev/null 2>&1; then
    py=$c
    break
  fi
done
[ -n "$py" ] || { echo "skipped: no python3 with onnx (Debian: apt install python3-onnx)"; exit 77; }
out="$(dirname "$fp")/onnx_rmsnorm_cases"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rm -rf "$out"
"$py" "$src/tests/data/onnx/make_rmsnorm_cases.py" "$out/node" "$out/const" >"$tmp/gen" 2>&1 ||
  { echo "FAIL: make_rmsnorm_cases.py"; cat "$tmp/gen"; exit 1; }
fail=0
"$fp" conformance "$out/node" --failures >"$tmp/c" 2>&1 &&
  grep -qF "total: 32 cases, 32 pass, 0 fail, 0 unsupported" "$tmp/c" &&
  grep -q "^RMSNormalization  *28  *0  *0$" "$tmp/c" ||
  { echo "FAIL: RMSNormalization cases"; cat "$tmp/c"; fail=1; }

# the scale's own size is what the op holds (1 value for [1], 15 for one per row of [3, 5])
for pair in "rms_broadcast_2d_scale_1 1" "rms_broadcast_3d_scale_per_row 15" "layernorm_broadcast_scale_1_bias_D 6"; do
  set -- $pair
  "$fp" import "$out/const/$1.onnx" >"$tmp/i" 2>&1 && grep -q "^[A-Za-z]*Norm  *1  *$2 " "$tmp/i" ||
    { echo "FAIL: import $1 (params $2)"; cat "$tmp/i"; fail=1; }
done

# round trip through the opset-17 export
for m in "$out"/const/*.onnx; do
  n=$(basename "$m" .onnx)
  mkdir -p "$out/rt/$n"
  # (builtin rules only: nothing applies to one op, and the 2,000 generated ones take seconds to verify)
  "$fp" optimize --onnx "$m" --budget 1 --rules builtin -o "$out/rt/$n/model.onnx" >/dev/null 2>"$tmp/e" ||
    { echo "FAIL: export $n"; cat "$tmp/e"; fail=1; continue; }
  h1=$("$fp" import "$m" 2>&1 | grep -o 'hash [0-9a-f]*')
  h2=$("$fp" import "$out/rt/$n/model.onnx" 2>&1 | grep -o 'hash [0-9a-f]*')
  [ -n "$h1" ] && [ "$h1" = "$h2" ] || { echo "FAIL: $n round trip: '$h1' became '$h2'"; fail=1; }
done
"$py" "$src/tests/data/onnx/make_rmsnorm_cases.py" --round-trip "$out/node" "$out/rt" >"$tmp/rt" 2>&1 ||
  { echo "FAIL: onnx.checker on the exports"; cat "$tmp/rt"; fail=1; }
"$fp" conformance "$out/rt" --failures >"$tmp/c" 2>&1 && grep -qF "total: 32 cases, 32 pass, 0 fail" "$tmp/c" ||
  { echo "FAIL: exported cases"; cat "$tmp/c"; fail=1; }

# a scale or bias that does not broadcast: one line naming the node, status 2
"$py" - "$tmp" <<'EOF' || { echo "FAIL: writing the refused models"; fail=1; }
import sys, numpy as np, onnx
from onnx import TensorProto, helper, numpy_helper
for name, op, opset, shapes in (("rms", "RMSNormalization", 23, [[5]]), ("ln", "LayerNormalization", 17, [[6], [4, 3]])):
    ins = ["X"] + ["P%d" % k for k in range(len(shapes))]
    g = helper.make_graph([helper.make_node(op, ins, ["Y"], name="norm")], name,
                          [helper.make_tensor_value_info("X", TensorProto.FLOAT, [2, 4, 6])],
                          [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [2, 4, 6])],
                          [numpy_helper.from_array(np.ones(s, np.float32), "P%d" % k) for k, s in enumerate(shapes)])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)]), "%s/%s.onnx" % (sys.argv[1], name))
EOF
for pair in "rms node 'norm' (RMSNormalization): scale 'P0' of shape [5] does not broadcast to X's shape [2, 4, 6]" \
            "ln node 'norm' (LayerNormalization): bias 'P1' of shape [4, 3] does not broadcast to X's shape [2, 4, 6]"; do
  n=${pair%% *}
  "$fp" import "$tmp/$n.onnx" >/dev/null 2>"$tmp/err"
  rc=$?
  [ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -qF "${pair#* }" "$tmp/err" ||
    { echo "FAIL: $n refused (status $rc)"; cat "$tmp/err"; fail=1; }
done
exit $fail
