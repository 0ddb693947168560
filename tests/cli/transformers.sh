#!/bin/bash
# Built-in transformers from the command line (issue 35): `models` lists them
# with params and GMACs, --seq-len/--layers/--phase/--context reach the
# builders from plan, info and run, bad combinations give one line and exit 2,
# and a decode step's plan reports the weight-residency answer in text and
# JSON (which follows docs/plan.schema.json).
set -u
fp=$1
src=$2
jc=${LF_JSON_CHECK:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

out=$("$fp" models) || bad "models exited $?"
echo "$out" | grep -q '^gpt2  *1024  *329  *124,439,808  *145\.824$' || bad "models: gpt2 row: $(echo "$out" | grep '^gpt2 ')"
echo "$out" | grep -q '^vit_b_16  *197  *369  *86,567,668  *17\.564$' || bad "models: vit_b_16 row"
echo "$out" | grep -q '^llama3_8b  *2048 ' || bad "models: no llama3_8b"

info=$("$fp" info --model gpt2 --layers 2 --seq-len 32) || bad "info exited $?"
echo "$info" | grep -q 'transformer.h.1.attn.softmax  *Softmax  *12x32x32 ' || bad "info: --seq-len/--layers not applied"
echo "$info" | grep -q 'transformer.h.2' && bad "info: --layers 2 built a third block"

"$fp" run --model gpt2 --layers 1 --phase decode --context 4 >"$tmp/run" || bad "run gpt2 decode exited $?"
grep -q '^output transformer.h.0.attn.key.Transpose: shape 1x12x1x64 ' "$tmp/run" || bad "run: the new key row is no output"

for args in "--model resnet50 --seq-len 8" "--model bert_base --phase decode" \
            "--model gpt2 --context 8" "--model gpt2 --seq-len 2000" "--model gpt2 --phase later"; do
  # shellcheck disable=SC2086
  "$fp" info $args >/dev/null 2>"$tmp/err"
  rc=$?
  [ $rc -eq 2 ] || bad "info $args exited $rc, not 2"
  [ "$(wc -l <"$tmp/err")" -eq 1 ] || bad "info $args: not one line: $(cat "$tmp/err")"
done

plan=$("$fp" plan --model gpt2 --layers 2 --phase decode --context 100 --buffer 1MB -o "$tmp/dec.json") ||
  bad "plan decode exited $?"
echo "$plan" | grep -q '^weight residency (decode step, exact knapsack): keep [0-9]* of 28 weight tensors' ||
  bad "plan decode: no residency line: $plan"
echo "$plan" | grep -q '^  resident: ' || bad "plan decode: no resident tensor listed"
if [ -n "$jc" ]; then
  "$jc" schema "$src/docs/plan.schema.json" "$tmp/dec.json" || bad "decode plan JSON does not follow the schema"
  [ "$("$jc" get "$tmp/dec.json" weight_residency/weights)" = 28 ] || bad "JSON: weight_residency.weights"
  without=$("$jc" get "$tmp/dec.json" weight_residency/dram_per_token)
  all=$("$jc" get "$tmp/dec.json" metrics/dram_all)
  [ "$without" = "$all" ] || bad "JSON: dram_per_token $without is not metrics.dram_all $all"
else
  echo "JSON checks skipped (no json_check)"
fi
"$fp" plan --model gpt2 --layers 1 --seq-len 16 -o "$tmp/pre.json" >/dev/null || bad "plan prefill exited $?"
grep -q weight_residency "$tmp/pre.json" && bad "a prefill plan carries weight_residency"
exit $fail
