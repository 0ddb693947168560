#!/bin/bash
# Transformer patterns and ops (docs/onnx.md "Transformers"): the cases of
# tests/data/onnx/transformer (made by make_transformer_fixtures.py, numpy's
# outputs) all import, run and match; each pattern is recognised into its one
# op and reported; ops on rank 5 and 6 are computed at rank <= 4; without the
# rank-views rewrite the rank-6 view is refused with its reason.
set -u
fp=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
d="$src/tests/data/onnx/transformer"

"$fp" conformance "$d" --failures >"$tmp/c" 2>&1 && grep -qF "total: 22 cases, 22 pass, 0 fail" "$tmp/c" ||
  { echo "FAIL: transformer fixtures"; cat "$tmp/c"; fail=1; }

expect_import() { # case, op line regex, report line
  "$fp" import "$d/$1/model.onnx" >"$tmp/i" 2>&1 && grep -q "$2" "$tmp/i" && grep -qF "$3" "$tmp/i" ||
    { echo "FAIL: import $1"; cat "$tmp/i"; fail=1; }
}
expect_import layernorm_written "^LayerNorm  *1  *16 " "layernorm        div: LayerNorm written out over axes 2.. (epsilon 1e-05)"
expect_import gelu_erf "^Gelu  *1 " "gelu             half: GELU written out (erf form)"
expect_import gelu_tanh "^Gelu  *1 " "gelu             gelu: GELU written out (tanh form)"
expect_import swin_windows "^Transpose  *2 " "rank-views       partition: rank 6 computed at rank 4 (adjacent axes merged)"
expect_import gqa_expand "^Expand  *1 " "rank-views       expand: rank 5 computed at rank 3 (adjacent axes merged)"
expect_import einsum_scores "^MatMul  *1 " "Einsum 'bhqd,bhkd->bhqk' is a MatMul"
expect_import einsum_trace "^ReduceSum  *2 " "Einsum 'bii->b' is a ReduceSum or a Transpose (as needed) of diagonals"
expect_import einsum_outer "^Mul  *1 " "Einsum 'bi,bj->bij' is a broadcast Mul"
expect_import einsum_implicit "^MatMul  *1 " "Einsum '...ij,jk' is a MatMul"
expect_import causal_int64 "^Add  *1 " "tril: all inputs constant, evaluated once"
expect_import where_causal "^Add  *1 " "Where with a constant condition is a masked sum"
expect_import attention_gqa_causal "^Softmax  *1 " "attn: Attention (4 query, 2 key/value heads, causal, masked) is MatMul, Softmax and MatMul"
expect_import attention_kv_cache "^MatMul  *2 " "attn: Attention (2 query, 2 key/value heads, masked, with a KV cache)"
expect_import rotary_interleaved "^Concat  *1 " "rope: RotaryEmbedding (interleaved, 4 of 4 features) is Slice, Mul, Sub, Add and Concat"
expect_import rotary_partial "^Slice  *4 " "rope: RotaryEmbedding (rotate-half, 4 of 6 features)"
expect_import pixel_shuffle_view "^Transpose  *2 " "rank-views       shuffle: Transpose of rank 6 moving 5 runs of axes is 2 rank-4 Transposes"
expect_import rmsnorm_op "^RMSNorm  *1 " "opset 23, 1 ONNX nodes"
expect_import rmsnorm_rsqrt "^RMSNorm  *1  *8 " "rmsnorm          scale: RMSNorm written out over axes 2.. (epsilon 1e-05)"
expect_import rmsnorm_reciprocal "^RMSNorm  *1  *24 " "rmsnorm          scale: RMSNorm written out over axes 2.. (epsilon 1e-06)"
expect_import rmsnorm_no_weight "^RMSNorm  *1  *8 " "normalize: RMSNorm written out over axes 2.. (epsilon 1e-05), no scale"

# An Attention whose qk_matmul_output is read is refused with one line naming the node.
"$fp" import "$src/tests/data/onnx/attention_qk_output.onnx" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
  grep -qF "node 'attn' (Attention): the qk_matmul_output output is read" "$tmp/err" ||
  { echo "FAIL: qk_matmul_output refused (status $rc)"; cat "$tmp/err"; fail=1; }

# Switched off, each pattern stays op by op (and still runs).
"$fp" import "$d/gelu_erf/model.onnx" --no-rewrite gelu >"$tmp/g" 2>&1 && grep -q "^Erf  *1 " "$tmp/g" ||
  { echo "FAIL: --no-rewrite gelu"; cat "$tmp/g"; fail=1; }
"$fp" import "$d/layernorm_written/model.onnx" --no-rewrite layernorm,rmsnorm >"$tmp/l" 2>&1 &&
  grep -q "^ReduceMean  *2 " "$tmp/l" || { echo "FAIL: --no-rewrite layernorm"; cat "$tmp/l"; fail=1; }
"$fp" import "$d/rmsnorm_rsqrt/model.onnx" --no-rewrite rmsnorm >"$tmp/r" 2>&1 &&
  grep -q "^ReduceMean  *1 " "$tmp/r" && grep -q "^Sqrt  *1 " "$tmp/r" ||
  { echo "FAIL: --no-rewrite rmsnorm"; cat "$tmp/r"; fail=1; }
"$fp" import "$d/swin_windows/model.onnx" --no-rewrite rank-views >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
  grep -qF "node 'partition_view' (Reshape): output of rank 6" "$tmp/err" ||
  { echo "FAIL: --no-rewrite rank-views (status $rc)"; cat "$tmp/err"; fail=1; }
exit $fail
