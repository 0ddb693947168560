#!/bin/bash
# The built-in vit_b_16 equals, op for op, the import of torchvision's ViT-B/16
# export (issue 35), as test_onnx_twins checks the CNN twins: the export is made
# here with Debian's python3-torch and python3-torchvision (random weights, no
# download; about two minutes and 350 MB of temporary disk), then
# test_onnx_twins compares types, attributes, edges, shapes, weights, MACs and
# the exact optima at 256 KB under LBDF and BRR. Skipped (77) without torch.
set -u
fp=$1
src=$2
twins=$(dirname "$fp")/tests/test_onnx_twins
[ -x "$twins" ] || { echo "test_onnx_twins not built: skipped"; exit 77; }
/usr/bin/python3 -c "import torch, torchvision" 2>/dev/null ||
  { echo "python3-torch and python3-torchvision not installed: skipped"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
/usr/bin/python3 "$src/examples/onnx/export_torchvision.py" "$tmp" vit_b_16 >"$tmp/export.log" 2>&1 ||
  { echo "FAIL: export_torchvision.py vit_b_16:"; tail -3 "$tmp/export.log"; exit 1; }
out=$(LF_ONNX_MODELS=$tmp "$twins" 2>&1)
rc=$?
echo "$out" | grep -v ' absent$'
[ $rc -eq 0 ] || { echo "FAIL: test_onnx_twins exited $rc"; exit 1; }
echo "$out" | grep -q '^vit_b_16 .* imported: 370 ops equal' || { echo "FAIL: vit_b_16 was not compared"; exit 1; }
