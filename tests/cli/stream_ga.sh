#!/bin/bash
# Stream 303f9dc1's genetic-algorithm pipeline end to end (../shared/thirdparty,
# DESIGN §17) on resnet18's `--format stream-stacks` exports: the exact optimum
# and layer by layer on Stream's tpu_like_quad_core hardware, each with the
# stacks Stream uses checked against the plan's groups node for node
# (tests/tools/stream_ga.py), and the optimum's energy below layer-by-layer's.
# The one long test of the suite (minutes): Release builds only; skipped (77)
# with the reason in a sanitizer build or when Stream's code or a Python module
# it needs (.ci/setup installs them) is missing.
set -u
fp=$1
src=$2
[ "${LF_SANITIZED:-OFF}" = ON ] && { echo "skipped: sanitizer build (Stream's pipeline is Python; the Release pass runs it)"; exit 77; }
T=${LF_STREAM_THIRDPARTY:-$src/../shared/thirdparty}
[ -d "$T/stream-303f9dc1" ] || { echo "skipped: Stream's code is not in $T (set LF_STREAM_THIRDPARTY)"; exit 77; }
py=/usr/bin/python3
for mod in networkx numpy onnx yaml tqdm deap typeguard matplotlib scipy dill multiprocess pydot rtree pandas plotly seaborn; do
  "$py" -c "import $mod" 2>/dev/null || { echo "skipped: $py lacks the module $mod (Debian: apt install python3-$mod)"; exit 77; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
hw=stream/inputs/examples/hardware/tpu_like_quad_core.yaml
for s in exact layer; do
  "$fp" plan --model resnet18 --input-size 64 --search $s --quiet -o "$tmp/$s.onnx" >/dev/null 2>&1 || bad "plan $s -o onnx"
  "$fp" plan --model resnet18 --input-size 64 --search $s --quiet --format stream-stacks -o "$tmp/$s.yaml" >/dev/null 2>"$tmp/err" ||
    bad "plan $s --format stream-stacks"
  grep -q warning "$tmp/err" && bad "$s: $(cat "$tmp/err")"
  (cd "$T/stream-303f9dc1" && PYTHONPATH=$T/stream-303f9dc1:$T/zigzag-3.8.1:$T/stream-stubs \
    "$py" "$src/tests/tools/stream_ga.py" "$hw" "$tmp/$s.onnx" "$tmp/$s.yaml" "$tmp/out-$s") >"$tmp/$s.log" 2>&1 ||
    bad "Stream on the $s plan: $(grep -E 'MISMATCH|Error' "$tmp/$s.log" | head -3)"
  grep '^RESULT' "$tmp/$s.log"
done
ex=$(sed -n 's/^RESULT .*energy_pJ=\([^ ]*\).*/\1/p' "$tmp/exact.log")
la=$(sed -n 's/^RESULT .*energy_pJ=\([^ ]*\).*/\1/p' "$tmp/layer.log")
awk -v a="$ex" -v b="$la" 'BEGIN { exit !(a != "" && b != "" && a + 0 < b + 0) }' ||
  bad "Stream's energy of the optimum ($ex pJ) is not below layer-by-layer's ($la pJ)"
[ $fail -eq 0 ] && echo "ok: Stream runs the plans with the plan's stacks; optimum $ex pJ < layer by layer $la pJ"
exit $fail
