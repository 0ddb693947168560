#!/bin/bash
# `--format onnx-groups` re-imports as the flat export (issue 37): the
# importer inlines the model-local group functions (planner/io/
# onnx_functions.c) and puts the bodies back in the flat order
# (fusionplan.pos), so the grouped file imports to the same graph (ops,
# shapes, names, graph hash), plans to the same plan and DRAM, and
# `validate` accepts it and plans checked against it.
set -u
fp=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { # name, options of plan --onnx, options of plan --model...
  local n=$1 onnx_opts=$2
  shift 2
  "$fp" plan "$@" --quiet -o "$tmp/$n-flat.onnx" >/dev/null 2>&1 || { echo "FAIL: $n flat export"; fail=1; return; }
  "$fp" plan "$@" --quiet --format onnx-groups -o "$tmp/$n-g.onnx" >/dev/null 2>&1 || { echo "FAIL: $n grouped export"; fail=1; return; }
  "$fp" plan "$@" --quiet -o "$tmp/$n.json" >/dev/null 2>&1 || { echo "FAIL: $n plan.json"; fail=1; return; }
  for f in flat g; do
    cp "$tmp/$n-$f.onnx" "$tmp/$f/$n.onnx"
    "$fp" import "$tmp/$f/$n.onnx" --json >"$tmp/$f/$n.import" 2>&1 || { echo "FAIL: $n import of the $f export: $(tail -1 "$tmp/$f/$n.import")"; fail=1; return; }
  done
  grep -q '"ops"' "$tmp/flat/$n.import" || { echo "FAIL: $n import --json printed no ops"; fail=1; }
  cmp -s "$tmp/flat/$n.import" "$tmp/g/$n.import" || { echo "FAIL: $n: the grouped export imports to another graph"; diff "$tmp/flat/$n.import" "$tmp/g/$n.import" | head -5; fail=1; }
  # plan --onnx: the same plan (the graph's name is the file's, the same here)
  for f in flat g; do
    "$fp" plan --onnx "$tmp/$f/$n.onnx" $onnx_opts --quiet -o "$tmp/$f/$n.plan.json" >"$tmp/$f/$n.plan.log" 2>&1 || { echo "FAIL: $n plan --onnx of the $f export: $(tail -1 "$tmp/$f/$n.plan.log")"; fail=1; return; }
  done
  cmp -s "$tmp/flat/$n.plan.json" "$tmp/g/$n.plan.json" || { echo "FAIL: $n: plan --onnx of the grouped export differs"; fail=1; }
  dram() { grep -o 'DRAM [0-9,]* B fusable ops.*all ops' "$1"; }
  [ -n "$(dram "$tmp/g/$n.plan.log")" ] && [ "$(dram "$tmp/flat/$n.plan.log")" = "$(dram "$tmp/g/$n.plan.log")" ] || { echo "FAIL: $n: DRAM of the grouped export differs"; cat "$tmp/flat/$n.plan.log" "$tmp/g/$n.plan.log"; fail=1; }
  out=$("$fp" validate "$tmp/$n-g.onnx" 2>&1) || { echo "FAIL: $n validate grouped: $out"; fail=1; }
  out=$("$fp" validate "$tmp/$n.json" --onnx "$tmp/$n-g.onnx" 2>&1) || { echo "FAIL: $n validate plan.json --onnx grouped: $out"; fail=1; }
  echo "ok: $n: $(dram "$tmp/g/$n.plan.log")"
}
mkdir -p "$tmp/flat" "$tmp/g"
check resnet18 "--search exact" --model resnet18 --search exact
check mobilenet_v3_small "" --model mobilenet_v3_small --input-size 96
check bert_base "" --model bert_base --layers 1 --seq-len 16
exit $fail
