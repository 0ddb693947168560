#!/bin/bash
# Transformer exports from torch (tests/data/onnx/torch_transformers.py: ViT-B/16 and swin_t from
# torchvision at their widths with fewer layers, nn.TransformerEncoder at BERT-base's widths, and
# GPT-2- and Llama-style decoders, random weights, no downloads) import, run with the reference
# executor and agree with torch's own output within 1e-4 * max(1, |b|); the patterns of each are
# recognised (LayerNorm, GELU, SiLU, ops of rank 5 and 6). Skips when python3-torch is absent.
# The exports are written to a temporary folder (or $LF_TORCH_TWINS, kept for inspection).
set -u
fp=$1
src=$2
py=/usr/bin/python3
$py -c "import torch, torchvision, onnx" 2>/dev/null || { echo "python3-torch not installed: skipped"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=${LF_TORCH_TWINS:-$tmp/twins}
fail=0
$py "$src/tests/data/onnx/torch_transformers.py" "$out" >"$tmp/export" 2>&1 ||
  { echo "FAIL: torch export"; tail -20 "$tmp/export"; exit 1; }
"$fp" conformance "$out" --failures >"$tmp/c" 2>&1 && grep -qF "total: 5 cases, 5 pass, 0 fail" "$tmp/c" ||
  { echo "FAIL: torch transformer numerics"; cat "$tmp/c"; fail=1; }

expect_rewrites() { # name, report substring...
  local name=$1
  shift
  "$fp" import "$out/$name/model.onnx" >"$tmp/i" 2>&1 || { echo "FAIL: import $name"; cat "$tmp/i"; fail=1; return; }
  for want in "$@"; do
    grep -qF -- "$want" "$tmp/i" || { echo "FAIL: $name: no '$want'"; grep -v '^  ' "$tmp/i"; fail=1; }
  done
}
expect_rewrites vit_b_16 "layernorm 5" "gelu 2"
expect_rewrites swin_t "layernorm 21" "gelu 8" "rank-views 91"
expect_rewrites bert "layernorm 4" "gelu 2"
expect_rewrites gpt2 "layernorm 5" "gelu 2"
expect_rewrites llama "silu 2" "rank-views 4" "rmsnorm 5"
exit $fail
