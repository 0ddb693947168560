#!/bin/bash
# fusionplan validate (issue 16): plans written by `plan -o` for several
# networks, searches and schemes (and an ONNX model), as JSON and as XML,
# validate OK; a plan for
# another graph, a truncated file, a group overflowing the buffer and an op
# in two groups are each refused with a line naming the file and the field.
set -u
fp=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# Round trips: every plan written validates, exit 0, one OK line.
n=0
while read -r model scheme search buffer; do
  n=$((n + 1))
  p="$tmp/p$n.json"
  "$fp" plan --model "$model" --scheme "$scheme" --search "$search" --buffer "$buffer" \
    --budget 200 --quiet -o "$p" >/dev/null 2>"$tmp/err" || { bad "plan $model $scheme $search: $(cat "$tmp/err")"; continue; }
  "$fp" validate "$p" >"$tmp/out" 2>&1 || bad "validate $model $scheme $search $buffer exited $?: $(cat "$tmp/out")"
  grep -q "^$p: OK ($model, $scheme " "$tmp/out" || bad "validate $model $scheme $search: $(cat "$tmp/out")"
done <<EOF
resnet18 lbdf greedy 256KB
resnet18 brr exact 128KB
mobilenet_v2 brr local 256KB
mobilenet_v2 lbdf layer 64KB
squeezenet1_1 lbdf nsga2 512KB
efficientnet_b0 brr random 256KB
EOF
# A Pareto front (--pareto): every plan of the front is checked and priced too.
"$fp" plan --model squeezenet1_1 --search nsga2 --budget 300 --quiet --pareto "$tmp/front.json" >/dev/null 2>&1 || bad "plan --pareto exited $?"
npts=$(grep -c '"group_of": \[' "$tmp/front.json")
[ "$npts" -ge 3 ] || bad "front.json: $npts group_of lists (want the plan and at least 2 Pareto plans)"
"$fp" validate "$tmp/front.json" >"$tmp/out" 2>&1 || bad "validate front.json exited $?: $(cat "$tmp/out")"
# The second "dram_fusable" is pareto[0]'s.
awk '/"dram_fusable"/ && ++n == 2 {sub(/[0-9]+/, "7")} {print}' "$tmp/front.json" >"$tmp/front7.json"
"$fp" validate "$tmp/front7.json" >"$tmp/out" 2>&1
[ $? -eq 1 ] && grep -q "front7.json: pareto\[0\]: dram_fusable is 7 in the file, the cost model gives [0-9]*$" "$tmp/out" ||
  bad "changed Pareto figure: $(cat "$tmp/out")"
[ "$(grep -c discrepanc "$tmp/out")" -eq 1 ] && grep -q ": 1 discrepancy$" "$tmp/out" || bad "Pareto: $(cat "$tmp/out")"

# The plan's figures are the cost model's: the OK line repeats the file's total.
"$fp" plan --model resnet18 --quiet -o "$tmp/r18.json" >/dev/null 2>&1
want=$(grep -m1 '"dram_fusable"' "$tmp/r18.json" | tr -dc 0-9)
"$fp" validate "$tmp/r18.json" | grep -q "DRAM $want B fusable ops)$" || bad "OK line does not carry dram_fusable $want"

# XML (-o x.xml or --format xml): valid under the schema (the reader checks it),
# the same content as the JSON: validate prints the same OK line for both.
"$fp" plan --model mobilenet_v2 --scheme brr --buffer 128KB --quiet -o "$tmp/m.json" >/dev/null 2>&1
"$fp" plan --model mobilenet_v2 --scheme brr --buffer 128KB --quiet -o "$tmp/m.xml" >/dev/null 2>&1 || bad "plan -o m.xml exited $?"
"$fp" plan --model mobilenet_v2 --scheme brr --buffer 128KB --quiet -o "$tmp/m.out" --format xml >/dev/null 2>&1 || bad "plan --format xml exited $?"
cmp -s "$tmp/m.xml" "$tmp/m.out" || bad "--format xml differs from .xml"
head -2 "$tmp/m.xml" | grep -q '^<plan format="fusionplan-plan" version="1" scheme="brr" beta="131072">$' || bad "XML root: $(head -2 "$tmp/m.xml")"
"$fp" validate "$tmp/m.json" | sed 's/m\.json/m/' >"$tmp/ok.json"
"$fp" validate "$tmp/m.xml" | sed 's/m\.xml/m/' >"$tmp/ok.xml"
grep -q ": OK (mobilenet_v2, brr 131072 B, " "$tmp/ok.xml" || bad "validate m.xml: $(cat "$tmp/ok.xml")"
cmp -s "$tmp/ok.json" "$tmp/ok.xml" || bad "XML and JSON validate differently: $(cat "$tmp/ok.json" "$tmp/ok.xml")"
"$fp" validate "$tmp/m.xml" --buffer 32KB >"$tmp/out" 2>&1
[ $? -eq 1 ] && grep -q "m.xml: group [0-9]* (with op [0-9]* '[^']*') overflows the buffer" "$tmp/out" || bad "XML overflow: $(head -3 "$tmp/out")"
head -c 1500 "$tmp/m.xml" >"$tmp/trunc.xml"
"$fp" validate "$tmp/trunc.xml" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "^fusionplan: $tmp/trunc.xml:[0-9]*: not well-formed XML: " "$tmp/err" || bad "truncated XML: $(cat "$tmp/err")"
sed '0,/ f_d="[0-9]*"/s///' "$tmp/m.xml" >"$tmp/nofd.xml"
"$fp" validate "$tmp/nofd.xml" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "nofd.xml:[0-9]*: not a valid XML plan (planner/io/plan.xsd): Element 'group': The attribute 'f_d' is required but missing.$" "$tmp/err" ||
  bad "XML without f_d: $(cat "$tmp/err")"

# An ONNX model: --onnx names the network (its name is not a built-in one).
tiny=(--onnx "$src/tests/data/onnx/tiny.onnx" --input-shape x=1,3,16,16)
"$fp" plan "${tiny[@]}" --search exact --quiet -o "$tmp/tiny.json" >/dev/null 2>&1 || bad "plan --onnx tiny"
"$fp" validate "$tmp/tiny.json" "${tiny[@]}" >"$tmp/out" 2>&1 || bad "validate --onnx exited $?: $(cat "$tmp/out")"
"$fp" validate "$tmp/tiny.json" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] || bad "validate of an ONNX plan without --onnx exited $rc"
grep -q "tiny.json: model.name: 'tiny' is not a built-in network: give --model or --onnx" "$tmp/err" ||
  bad "ONNX plan without --onnx: $(cat "$tmp/err")"

# A plan for another graph: same op count, another input size, another hash.
"$fp" plan --model resnet18 --input-size 256 --quiet -o "$tmp/r18_256.json" >/dev/null 2>&1
"$fp" validate "$tmp/r18_256.json" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] || bad "hash mismatch exited $rc"
grep -q "^fusionplan: $tmp/r18_256.json: model.graph_hash: [0-9a-f]\{16\} is not the hash of graph 'resnet18' ([0-9a-f]\{16\}): the plan is for another graph$" "$tmp/err" ||
  bad "hash mismatch: $(cat "$tmp/err")"
[ ! -s "$tmp/out" ] || bad "hash mismatch printed on stdout: $(cat "$tmp/out")"
"$fp" validate "$tmp/r18_256.json" --input-size 256 >/dev/null 2>&1 || bad "validate --input-size 256 exited $?"
# Another network altogether: the op count already differs.
"$fp" validate "$tmp/r18.json" --model resnet50 2>"$tmp/err" >/dev/null
[ $? -eq 2 ] && grep -q "r18.json: model.ops: the plan has 50 ops, graph 'resnet50' has 123" "$tmp/err" ||
  bad "resnet18 plan on resnet50: $(cat "$tmp/err")"

# A truncated file: one line with the file, line and column.
head -c 2000 "$tmp/r18.json" >"$tmp/trunc.json"
"$fp" validate "$tmp/trunc.json" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] || bad "truncated file exited $rc"
# (where the cut falls, inside a value or between members, depends on the plan's length)
grep -Eq "^fusionplan: $tmp/trunc.json:[0-9]*:[0-9]*: not a JSON plan: (premature end of input|string or '}' expected near end of file)" "$tmp/err" ||
  bad "truncated: $(cat "$tmp/err")"
[ "$(wc -l <"$tmp/err")" -eq 1 ] || bad "truncated: more than one line"
# A field of the wrong type is named by its path.
sed '0,/"f_d": [0-9]*/s//"f_d": "x"/' "$tmp/r18.json" >"$tmp/field.json"
"$fp" validate "$tmp/field.json" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "field.json: groups\[0\].f_d: expected an integer" "$tmp/err" || bad "bad field: $(cat "$tmp/err")"
"$fp" validate "$tmp/missing.json" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] || bad "missing file: not exit 2"

# A group that overflows the buffer: the 256 KB plan checked against 64 KB.
"$fp" validate "$tmp/r18.json" --buffer 64KB >"$tmp/out" 2>&1
rc=$?
[ $rc -eq 1 ] || bad "overflow exited $rc"
grep -q "r18.json: group 0 (with op 1 'conv1') overflows the buffer: F_beta [0-9]* B >= beta 65536 B$" "$tmp/out" ||
  bad "overflow: $(cat "$tmp/out")"
grep -q "r18.json: beta: the plan says 262144 B, the hardware gives 65536 B" "$tmp/out" || bad "beta line: $(cat "$tmp/out")"
tail -1 "$tmp/out" | grep -q "^$tmp/r18.json: [0-9]* discrepancies$" || bad "overflow summary: $(tail -1 "$tmp/out")"

# An op in two groups: group 1's first op added to group 0's list.
g1=$(grep '"ops": \[' "$tmp/r18.json" | sed -n 2p | sed 's/.*\[\([0-9]*\).*/\1/')
sed "0,/\"ops\": \[1, /s//\"ops\": [1, $g1, /" "$tmp/r18.json" >"$tmp/two.json"
"$fp" validate "$tmp/two.json" >"$tmp/out" 2>&1
rc=$?
[ $rc -eq 1 ] || bad "op in two groups exited $rc"
grep -q "two.json: op $g1 '[^']*' is in two groups: groups\[0\] (group 0) and groups\[1\] (group 1)$" "$tmp/out" ||
  bad "op in two groups: $(cat "$tmp/out")"
# A changed figure is a discrepancy naming group and field.
sed '0,/"f_beta": \([0-9]*\)/s//"f_beta": 1\1/' "$tmp/r18.json" >"$tmp/fig.json"
"$fp" validate "$tmp/fig.json" >"$tmp/out" 2>&1
[ $? -eq 1 ] && grep -q "fig.json: groups\[0\] (group 0): f_beta is 1[0-9]* in the file, the cost model gives [0-9]*$" "$tmp/out" ||
  bad "changed f_beta: $(cat "$tmp/out")"

exit $fail
