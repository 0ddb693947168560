#!/bin/bash
# A search added as one file and one table row (tests/plugins/) reaches the
# registry, the CLI's help and errors and the pipeline, and gives a valid
# plan; the normal build does not know it. Usage: search_plugin.sh PLUGIN_CLI FUSIONPLAN
p=$1 fp=$2
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

"$p" plan --help >"$tmp/help" || bad "plan --help exited $?"
grep -q -- "--search NAME .*greedy, layer, random, local, nsga2, exact or pairs" "$tmp/help" \
  || bad "--search help lacks pairs: $(grep -- '--search' "$tmp/help")"
grep -q "^  pairs .*fuse each op with the next one" "$tmp/help" || bad "no help line for pairs"
"$fp" plan --help | grep -q "pairs" && bad "the normal build lists pairs"

# The plan: valid (validate re-checks it), named after its search, and
# less DRAM than layer by layer (MobileNetV2's conv-BN-ReLU pairs fit 256 KB).
"$p" plan --model mobilenet_v2 --buffer 256KB --search pairs -o "$tmp/pairs.json" >"$tmp/out" 2>&1 \
  || bad "plan --search pairs exited $?: $(cat "$tmp/out")"
"$fp" validate "$tmp/pairs.json" --model mobilenet_v2 --buffer 256KB >"$tmp/val" 2>&1 \
  || bad "validate of the pairs plan: $(cat "$tmp/val")"
grep -q '"algorithm": *"pairs"' "$tmp/pairs.json" || bad "the plan does not name its search"
dram() { grep -o 'DRAM [0-9,]* B fusable' | head -1 | tr -dc '0-9'; }
d_pairs=$(dram <"$tmp/out")
d_layer=$("$p" plan --model mobilenet_v2 --buffer 256KB --search layer | dram)
[ -n "$d_pairs" ] && [ -n "$d_layer" ] || bad "no DRAM figures: pairs '$d_pairs', layer '$d_layer'"
awk -v a="$d_pairs" -v b="$d_layer" 'BEGIN { exit !(a < b) }' \
  || bad "pairs ($d_pairs) should move less DRAM than layer ($d_layer)"

"$fp" plan --model mobilenet_v2 --search pairs >/dev/null 2>"$tmp/err"
[ $? = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q "nsga2 or exact" "$tmp/err" \
  || bad "the normal build accepts pairs or says it badly: $(cat "$tmp/err")"
exit $fail
