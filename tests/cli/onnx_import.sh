#!/bin/bash
# ONNX import from the CLI: the crafted fixtures of tests/data/onnx (made by
# make_fixtures.py). Good models import with the expected rewrites and plan;
# each bad one prints exactly one error line naming the file (and the node or
# tensor at fault), exits 2, prints nothing on stdout and writes no file.
set -u
fp=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
d="$src/tests/data/onnx"

expect_error() { # needle, args...
  local needle=$1
  shift
  rm -f "$tmp/plan.json"
  "$fp" "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$? lines
  lines=$(wc -l <"$tmp/err")
  if [ "$rc" -ne 2 ] || [ "$lines" -ne 1 ] || ! grep -qF -- "$needle" "$tmp/err"; then
    echo "FAIL: fusionplan $*"
    echo "  status $rc (want 2), stderr ($lines lines, want 1 containing '$needle'):"
    sed 's/^/    /' "$tmp/err"
    fail=1
  fi
  if [ -s "$tmp/out" ]; then
    echo "FAIL: fusionplan $*: printed on stdout"
    fail=1
  fi
  if [ -e "$tmp/plan.json" ] || ls "$tmp" | grep -q '\.tmp'; then
    echo "FAIL: fusionplan $*: left an output file"
    fail=1
  fi
}

out=(-o "$tmp/plan.json")
expect_error "truncated.onnx: not a valid ONNX model" plan --onnx "$d/truncated.onnx" "${out[@]}"
expect_error "corrupt.onnx: not a valid ONNX model" plan --onnx "$d/corrupt.onnx" "${out[@]}"
expect_error "cycle.onnx: node 'add' (Add): the graph has a cycle" plan --onnx "$d/cycle.onnx" "${out[@]}"
expect_error "unknown_op.onnx: node 'mystery' (FrobnicateNd): op type FrobnicateNd is not supported" \
  plan --onnx "$d/unknown_op.onnx" "${out[@]}"
expect_error "free_dim.onnx: graph input 'x' has free dimension 0 ('batch'); give --input-shape" \
  plan --onnx "$d/free_dim.onnx" "${out[@]}"
expect_error "absurd_dims.onnx: graph input 'x'" plan --onnx "$d/absurd_dims.onnx" "${out[@]}"
expect_error "absurd_reshape.onnx: node 'blowup' (Reshape)" plan --onnx "$d/absurd_reshape.onnx" "${out[@]}"
expect_error "missing_external.onnx: tensor 'w': external data file" \
  plan --onnx "$d/missing_external.onnx" "${out[@]}"
expect_error "no-such.onnx" plan --onnx "$d/no-such.onnx" "${out[@]}"
expect_error "--input-shape gives 'x' dimension 1 = 5" \
  plan --onnx "$d/tiny.onnx" --input-shape x=1,5,16,16 "${out[@]}"
expect_error "'nope', which is not a graph input" plan --onnx "$d/tiny.onnx" --input-shape nope=1,3,16,16 "${out[@]}"
expect_error "give either --model or --onnx" plan --model resnet18 --onnx "$d/tiny.onnx" "${out[@]}"
expect_error "unknown rewrite 'foo'" import "$d/tiny.onnx" --input-shape x=1,3,16,16 --no-rewrite foo

# Good models: the summary names every rewrite, and plans are written.
"$fp" import "$d/tiny.onnx" --input-shape x=2,3,16,16 >"$tmp/imp" 2>&1 || { echo "FAIL: import tiny"; fail=1; }
for want in "graph     tiny: 9 ops, 1,058 params" "fold-bn          bn1: folded into conv1 (epsilon 0.001)" \
  "hardswish        hswish" "silu             silu" "fold-pad         pad: zero padding [1, 1, 1, 1] moved into conv2" \
  "flatten-concat   cat_inner" "reshape-flatten  reshape" "drop-identity    ident" "fold-constants 4"; do
  grep -qF -- "$want" "$tmp/imp" || { echo "FAIL: import tiny lacks '$want'"; cat "$tmp/imp"; fail=1; }
done
# Switching normalisations off keeps the ops they would remove.
"$fp" import "$d/tiny.onnx" --input-shape x=1,3,16,16 --no-rewrite fold-bn,hardswish,silu,fold-pad >"$tmp/imp2" 2>&1 ||
  { echo "FAIL: import tiny --no-rewrite"; cat "$tmp/imp2"; fail=1; }
for want in "BatchNorm" "HardSigmoid" "Sigmoid" "Pad"; do
  grep -q "^$want " "$tmp/imp2" || { echo "FAIL: --no-rewrite kept no $want"; cat "$tmp/imp2"; fail=1; }
done
"$fp" import "$d/external.onnx" >"$tmp/ext" 2>&1 && grep -qF "1 ops, 16 params" "$tmp/ext" ||
  { echo "FAIL: external data"; cat "$tmp/ext"; fail=1; }
"$fp" plan --onnx "$d/tiny.onnx" --input-shape x=1,3,16,16 -o "$tmp/tiny.json" >/dev/null 2>"$tmp/err" &&
  grep -q '"model"' "$tmp/tiny.json" || { echo "FAIL: plan --onnx tiny"; cat "$tmp/err"; fail=1; }
# ShuffleNet's channel shuffle (Reshape to 5-D, Transpose, Reshape back) becomes one ChannelShuffle
# that computes what the chain computes; x[:, k] on tokens becomes a Slice (and a Squeeze); a constant
# mask made by Range, Mod, Equal, Not, Where and ScatterND folds; a Split read by later nodes lowers
# (its appended Slices come first). Each case folder holds numpy's
# output. Without the channel-shuffle and rank-views rewrites the 5-D Reshape is refused with its reason.
cs="$d/conformance/channel_shuffle/model.onnx"
"$fp" import "$cs" >"$tmp/cs" 2>&1 && grep -qF "channel-shuffle  view: Reshape to 3 groups" "$tmp/cs" &&
  grep -q "^ChannelShuffle  *1 " "$tmp/cs" && ! grep -q "^Transpose\|^Reshape" "$tmp/cs" ||
  { echo "FAIL: channel shuffle rewrite"; cat "$tmp/cs"; fail=1; }
"$fp" conformance "$d/conformance" >"$tmp/csc" 2>&1 && grep -qF "5 cases, 5 pass, 0 fail" "$tmp/csc" ||
  { echo "FAIL: channel shuffle numerics"; cat "$tmp/csc"; fail=1; }
expect_error "node 'view' (Reshape): output of rank 5" import "$cs" --no-rewrite channel-shuffle,rank-views
"$fp" import "$d/conformance/gather_scalar/model.onnx" >"$tmp/gs" 2>&1 &&
  grep -qF "gather-slice     pick: index 0 along axis 1 is a Slice and a Squeeze" "$tmp/gs" ||
  { echo "FAIL: gather-slice rewrite"; cat "$tmp/gs"; fail=1; }
"$fp" info --onnx "$d/tiny.onnx" --input-shape "1,3,16,16" --no-layers >/dev/null 2>"$tmp/err" ||
  { echo "FAIL: unnamed --input-shape"; cat "$tmp/err"; fail=1; }
exit $fail
