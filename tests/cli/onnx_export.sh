#!/bin/bash
# Annotated ONNX and Stream exports (issue 16): `plan -o p.onnx` for built-in
# networks (weights from the executor's generator) and imported models (their
# own nodes) validates OK against the graph the file holds, which proves it
# re-imports to the planned graph (same hash) and the same plan; damaged
# annotations, a truncated file and an ONNX file without a plan are one line
# each; `optimize -o opt.onnx` re-imports and runs to the original's outputs;
# the Stream mapping names the ops Stream's ONNX reader rejects on stderr.
set -u
fp=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

n=0
while read -r args; do
  n=$((n + 1))
  p="$tmp/p$n.onnx"
  # shellcheck disable=SC2086 # words on purpose
  "$fp" plan $args --quiet -o "$p" >/dev/null 2>"$tmp/err" || { bad "plan $args: $(cat "$tmp/err")"; continue; }
  extra=$(echo " $args" | grep -o ' --input-shape [^ ]*')
  # shellcheck disable=SC2086
  "$fp" validate "$p" $extra >"$tmp/out" 2>&1 || bad "validate ($args) exited $?: $(cat "$tmp/out")"
  grep -q "^$p: OK (" "$tmp/out" || bad "validate ($args): $(cat "$tmp/out")"
  for key in fusionplan.op fusionplan.group fusionplan.f_beta fusionplan.f_d fusionplan.tile_rows \
             fusionplan.weight_reads fusionplan.scheme fusionplan.beta fusionplan.dram_fusable \
             fusionplan.optimal fusionplan.graph_hash fusionplan.plan; do
    grep -aq "$key" "$p" || bad "plan $args: no $key in the file"
  done
done <<PLANS
--model squeezenet1_1 --input-size 64 --search exact
--model mobilenet_v2 --input-size 96 --scheme brr --search greedy --buffer 64KB
--model resnet18 --search layer --buffer 128KB
--onnx $src/tests/data/onnx/tiny.onnx --input-shape x=2,3,16,16 --search exact
--onnx $src/tests/data/onnx/conformance/channel_shuffle/model.onnx
PLANS
[ "$n" -eq 5 ] || bad "ran $n plans"

# tiny.onnx annotated in place: its 11 nodes of planned ops carry a group,
# bn1 (folded into conv1) and ident (dropped after silu) included; the Pad
# folded into conv2, the HardSigmoid and Sigmoid of HardSwish and SiLU and
# the constant shape chain carry none.
ng=$(grep -a -o "fusionplan.group" "$tmp/p4.onnx" | wc -l)
[ "$ng" -eq 11 ] || bad "tiny.onnx annotated: $ng nodes with fusionplan.group, want 11"
# Byte-identical when written again.
"$fp" plan --model squeezenet1_1 --input-size 64 --search exact --quiet -o "$tmp/again.onnx" >/dev/null 2>&1 || bad "plan again.onnx"
cmp -s "$tmp/p1.onnx" "$tmp/again.onnx" || bad "two writes of squeezenet1_1's exact plan differ"
# The exact planner's plan is marked optimal, the greedy one is not.
grep -aq "fusionplan.optimal.\{1,3\}true" "$tmp/p1.onnx" || bad "p1.onnx (exact) is not marked optimal"
grep -aq "fusionplan.optimal.\{1,3\}false" "$tmp/p2.onnx" || bad "p2.onnx (greedy) is marked optimal"
# --format onnx with any name
"$fp" plan --model resnet18 --input-size 64 --quiet --format onnx -o "$tmp/plan.bin" >/dev/null 2>&1 || bad "--format onnx exited $?"
"$fp" validate "$tmp/plan.bin" --onnx "$tmp/plan.bin" >"$tmp/out" 2>&1 || bad "validate plan.bin: $(cat "$tmp/out")"

# plan --from-annotations: the file's plan, re-checked, gives the same JSON
# plan as the search that made it (but for the search's name); at another
# buffer the cost model disagrees: one line per discrepancy, exit 1.
"$fp" plan --model squeezenet1_1 --input-size 64 --search exact --quiet -o "$tmp/exact.json" >"$tmp/exact.txt" 2>&1 ||
  bad "plan exact.json"
"$fp" plan --onnx "$tmp/p1.onnx" --from-annotations --quiet -o "$tmp/again.json" >"$tmp/out" 2>&1 ||
  bad "--from-annotations exited $?: $(cat "$tmp/out")"
dram=$(grep -o 'DRAM [0-9,]* B fusable ops' "$tmp/exact.txt")
[ -n "$dram" ] && grep -q " lbdf annotations: $dram" "$tmp/out" || bad "--from-annotations: $(head -1 "$tmp/out") (exact: $dram)"
diff <(grep -v '"algorithm"\|"name"\|"graph"' "$tmp/exact.json") <(grep -v '"algorithm"\|"name"\|"graph"' "$tmp/again.json") >/dev/null ||
  bad "--from-annotations gives another plan than the exact search"
"$fp" plan --onnx "$tmp/p1.onnx" --from-annotations --buffer 128KB --quiet >"$tmp/out" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q "p1.onnx: beta: the plan says 262144 B, the hardware gives 131072 B" "$tmp/out" ||
  bad "--from-annotations at 128KB: exit $rc: $(head -3 "$tmp/out")"
"$fp" plan --model resnet18 --from-annotations >"$tmp/out" 2>&1
[ $? -eq 2 ] && grep -q "from-annotations needs --onnx" "$tmp/out" || bad "--from-annotations without --onnx: $(cat "$tmp/out")"

# Damage: the JSON plan inside says another F_beta than the node annotations
# (same length, so the protobuf stays valid): one line naming node and key.
LC_ALL=C sed 's/"f_beta": [1-8]/"f_beta": 9/' "$tmp/p1.onnx" >"$tmp/edited.onnx"
cmp -s "$tmp/p1.onnx" "$tmp/edited.onnx" && bad "the edit changed nothing"
"$fp" validate "$tmp/edited.onnx" >"$tmp/out" 2>&1
rc=$?
[ $rc -eq 2 ] || bad "edited annotations: exit $rc, want 2"
[ "$(wc -l <"$tmp/out")" -eq 1 ] &&
  grep -q "edited.onnx: node '[^']*': metadata fusionplan.f_beta is [0-9]* but the plan says [0-9]*$" "$tmp/out" ||
  bad "edited annotations: $(cat "$tmp/out")"
# A damaged fusionplan.ir_zero (the importer reads it): one line naming node and key.
LC_ALL=C sed 's/\(fusionplan\.ir_zero..\)dh/\1zz/' "$tmp/p1.onnx" >"$tmp/irzero.onnx"
cmp -s "$tmp/p1.onnx" "$tmp/irzero.onnx" && bad "the ir_zero edit changed nothing"
"$fp" import "$tmp/irzero.onnx" >"$tmp/out" 2>&1
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/out")" -eq 1 ] &&
  grep -q "irzero.onnx: node '[^']*' ([A-Za-z]*): metadata fusionplan.ir_zero: unknown field 'zz'$" "$tmp/out" ||
  bad "damaged ir_zero: exit $rc: $(cat "$tmp/out")"
head -c 3000 "$tmp/p1.onnx" >"$tmp/short.onnx"
"$fp" validate "$tmp/short.onnx" >"$tmp/out" 2>&1
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/out")" -eq 1 ] && grep -q "short.onnx: not a valid ONNX model" "$tmp/out" ||
  bad "truncated: exit $rc: $(cat "$tmp/out")"

# The optimizer's graph as ONNX: re-imports, and runs (seed 1, its check's
# weights) to the original network's outputs.
"$fp" optimize --model resnet18 --input-size 64 --objective dram --budget 50 -o "$tmp/opt.onnx" >"$tmp/out" 2>&1 ||
  bad "optimize -o opt.onnx exited $?: $(tail -1 "$tmp/out")"
grep -q "^wrote $tmp/opt.onnx" "$tmp/out" || bad "optimize: $(tail -1 "$tmp/out")"
grep -q "^applied sequence: [1-9]" "$tmp/out" || bad "optimize applied nothing: $(grep applied "$tmp/out")"
"$fp" run --onnx "$tmp/opt.onnx" --seed 1 >"$tmp/a" 2>&1 || bad "run --onnx opt.onnx: $(cat "$tmp/a")"
"$fp" run --model resnet18 --input-size 64 --seed 1 >"$tmp/b" 2>&1 || bad "run resnet18: $(cat "$tmp/b")"
la=$(grep -o 'l2 [^ ]*' "$tmp/a")
lb=$(grep -o 'l2 [^ ]*' "$tmp/b")
awk -v a="${la#l2 }" -v b="${lb#l2 }" 'BEGIN { d = a - b; if (d < 0) d = -d; m = b < 0 ? -b : b;
  exit !(b != "" && d <= 1e-4 * (m > 1 ? m : 1)) }' ||
  bad "optimized graph's output l2 ${la#l2 } vs the original's ${lb#l2 }"
"$fp" validate "$tmp/opt.onnx" >"$tmp/out" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "opt.onnx: no metadata fusionplan.plan" "$tmp/out" || bad "validate a plain model: exit $rc: $(cat "$tmp/out")"

# Stream mappings (tests/cli/stream_validate.sh runs Stream's own code on them):
# Stream 1.13's parts, the warning naming the op, the layer_stacks form.
"$fp" plan --model squeezenet1_1 --buffer 128KB --quiet -o "$tmp/s.yaml" >/dev/null 2>"$tmp/err" || bad "plan -o s.yaml exited $?"
grep -q "^fused_groups:$" "$tmp/s.yaml" && grep -q "^layers:$" "$tmp/s.yaml" || bad "s.yaml lacks a part"
[ "$(grep -c "warning" "$tmp/err")" -eq 1 ] &&
  grep -q "^fusionplan: warning: Stream 1.13 has no parser for Concat: 8 nodes ('features.3.cat' first)$" "$tmp/err" ||
  bad "squeezenet1_1 warning: $(cat "$tmp/err")"
"$fp" plan --model resnet18 --quiet --format stream-stacks -o "$tmp/r.txt" >/dev/null 2>"$tmp/err" || bad "--format stream-stacks exited $?"
grep -q warning "$tmp/err" && bad "resnet18 has nothing Stream rejects: $(cat "$tmp/err")"
# resnet18's ONNX: 69 nodes (20 BatchNormalization); stacks = groups + unfusable, ids 0..68 once each
stacks=$(sed -n 's/^# layer_stacks: //p' "$tmp/r.txt" | grep -o '(' | wc -l)
groups=$("$fp" plan --model resnet18 --quiet | grep -o '[0-9]* groups, [0-9]* unfusable' | awk '{print $1 + $3}')
[ "$stacks" -eq "$groups" ] || bad "resnet18: $stacks layer stacks, want $groups (groups + unfusable)"
ids=$(sed -n 's/^# layer_stacks: //p' "$tmp/r.txt" | grep -o '[0-9][0-9]*' | sort -n | tr '\n' ' ')
[ "$ids" = "$(seq 0 68 | tr '\n' ' ')" ] || bad "resnet18 stacks do not number the 69 ONNX nodes once each: $ids"
grep -q '^- name: conv1/bn$' "$tmp/r.txt" && grep -q '^- name: default$' "$tmp/r.txt" || bad "r.txt: no layer list"

[ $fail -eq 0 ] && echo "ok: annotated ONNX and Stream exports"
exit $fail
