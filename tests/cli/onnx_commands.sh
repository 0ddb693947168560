#!/bin/bash
# --onnx FILE wherever --model works (the model source is parsed once, by the
# library's lf_model_source): every command that takes built-in networks also
# plans tests/data/onnx/tiny.onnx, names it "tiny", and agrees with `plan` on
# the optimum; --onnx with --model(s) is one usage error.
set -u
fp=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
tiny=(--onnx "$src/tests/data/onnx/tiny.onnx" --input-shape x=1,3,16,16)
bad() { echo "FAIL: $*"; fail=1; }

want=$("$fp" plan "${tiny[@]}" --buffer 4KB --search exact --quiet 2>"$tmp/err" |
  sed -n 's/^tiny 4 KB lbdf exact: DRAM \([0-9,]*\) B fusable.*/\1/p' | tr -d ,)
[ -n "$want" ] || bad "plan --onnx: no optimum ($(cat "$tmp/err"))"

# One model: info, cost, run.
"$fp" info "${tiny[@]}" --no-layers >"$tmp/o" 2>&1 || bad "info --onnx: $(cat "$tmp/o")"
"$fp" run "${tiny[@]}" >"$tmp/o" 2>&1 || bad "run --onnx: $(cat "$tmp/o")"

# Several models: compare, bench search, sweep-buffer, dataset.
"$fp" compare "${tiny[@]}" --buffer 4KB --budget 50 --seeds 1 --search ls --proposer none,attrib \
  --format csv --quiet >"$tmp/c.csv" 2>"$tmp/err" || bad "compare --onnx: $(cat "$tmp/err")"
grep -q "^tiny,lbdf,4096,50,1,exact,,0.001828," "$tmp/c.csv" && [ "$want" = 1828 ] ||
  bad "compare --onnx rows (optimum $want): $(cat "$tmp/c.csv")"
[ "$(grep -c '^tiny,lbdf,4096,50,1,local,' "$tmp/c.csv")" = 2 ] || bad "compare --onnx search rows"

"$fp" bench search "${tiny[@]}" --buffers 4KB --budget 50 --splits random,tree-attrib --format csv \
  >"$tmp/b.csv" 2>"$tmp/err" || bad "bench search --onnx: $(cat "$tmp/err")"
grep -q "^tiny,4096,lbdf,exact,-,$want," "$tmp/b.csv" || bad "bench --onnx exact row: $(cat "$tmp/b.csv")"
[ "$(grep -c '^tiny,4096,lbdf,' "$tmp/b.csv")" = 9 ] || bad "bench --onnx rows: $(cat "$tmp/b.csv")"

"$fp" sweep-buffer "${tiny[@]}" --buffers 4KB,8KB --samples 20 --budget 50 --format csv --quiet \
  >"$tmp/s.csv" 2>"$tmp/err" || bad "sweep-buffer --onnx: $(cat "$tmp/err")"
grep -q "^tiny,lbdf,4096,9,0,$want,$want,1,[0-9]*,$want,0.00,[0-9]*,[0-9.]*,100.00,20$" "$tmp/s.csv" ||
  bad "sweep-buffer --onnx rows: $(cat "$tmp/s.csv")"

"$fp" dataset --scheme lbdf "${tiny[@]}" --groups 10 -o "$tmp/ds.bin" >"$tmp/d" 2>"$tmp/err" ||
  bad "dataset --onnx: $(cat "$tmp/err")"
grep -q "^tiny  *10  *10 " "$tmp/d" && [ -s "$tmp/ds.bin" ] || bad "dataset --onnx: $(cat "$tmp/d")"

# --onnx replaces the built-in list: naming both is one usage error.
for c in "compare --model resnet18" "bench search --models resnet18" \
         "sweep-buffer --models resnet18" "plan --model resnet18"; do
  # shellcheck disable=SC2086
  "$fp" $c "${tiny[@]}" >"$tmp/o" 2>"$tmp/err"
  rc=$?
  [ $rc = 2 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q "give either --model" "$tmp/err" ||
    bad "$c --onnx: status $rc, $(cat "$tmp/err")"
done
"$fp" dataset --scheme lbdf --groups 10 -o "$tmp/x.bin" >/dev/null 2>"$tmp/err"
[ $? = 2 ] && grep -q "applies to --onnx" "$tmp/err" || bad "dataset --groups without --onnx"
exit $fail
