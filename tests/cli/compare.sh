#!/bin/bash
# fusionplan compare: its figures are the plan command's figures (per seed,
# and the optimum), the budget curve ends at the table's mean, the output does
# not depend on the thread count, and bad input is one line with exit 2.
set -u
fp=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# The DRAM (bytes) in a plan summary line.
dram_of() { sed -n 's/.*: DRAM \([0-9,]*\) B fusable ops.*/\1/p' | tr -d ,; }

args=(--model mobilenet_v2 --buffer 128KB --budget 150 --seeds 2 --seed 4 --search ls,rs
      --proposer none,attrib --quiet)
"$fp" compare "${args[@]}" --format csv --threads 1 --curves "$tmp/curve" >"$tmp/t1.csv" 2>"$tmp/err" \
  || bad "compare exited $?: $(cat "$tmp/err")"
"$fp" compare "${args[@]}" --format csv --threads 2 >"$tmp/t2.csv" 2>/dev/null || bad "compare (2 threads) exited $?"
"$fp" compare "${args[@]}" --format json --threads 2 -o "$tmp/t.json" 2>/dev/null || bad "compare json exited $?"
"$fp" compare "${args[@]}" --threads 2 >"$tmp/t.md" 2>/dev/null || bad "compare md exited $?"

# One header, four pairs and the optimum.
[ "$(wc -l <"$tmp/t1.csv")" -eq 6 ] || bad "csv has $(wc -l <"$tmp/t1.csv") lines, expected 6"
head -1 "$tmp/t1.csv" | grep -q '^model,scheme,buffer_bytes,budget,seeds,search,proposer,dram_mean_mb' \
  || bad "csv header: $(head -1 "$tmp/t1.csv")"
[ "$(grep -c '^| ' "$tmp/t.md")" -eq 6 ] || bad "markdown table rows: $(grep -c '^| ' "$tmp/t.md")"
grep -q '^| exact | - |' "$tmp/t.md" || bad "markdown has no exact row"

# Everything but the wall time is the same for 1 and 2 threads.
cut -d, -f1-18 "$tmp/t1.csv" >"$tmp/a"
cut -d, -f1-18 "$tmp/t2.csv" >"$tmp/b"
cmp -s "$tmp/a" "$tmp/b" || bad "compare differs between 1 and 2 threads"

# The optimum row is the exact planner's plan.
exact=$("$fp" plan --model mobilenet_v2 --buffer 128KB --search exact --quiet | dram_of)
row=$(grep ',exact,' "$tmp/t1.csv" | cut -d, -f8)
awk -v a="$exact" -v b="$row" 'BEGIN { exit !(sprintf("%.6f", a / 1e6) == b) }' \
  || bad "exact row $row MB, plan --search exact $exact B"

# Per seed, each pair found what `plan` finds with the same settings.
if command -v python3 >/dev/null; then
  for pair in "local none" "local attrib" "random none" "random attrib"; do
    set -- $pair
    for i in 0 1; do
      seed=$((4 + i))
      split=(--split random)
      [ "$2" = none ] || split=(--split tree --proposer "$2" --k 3)
      want=$("$fp" plan --model mobilenet_v2 --buffer 128KB --search "$1" --budget 150 --seed $seed \
        "${split[@]}" --quiet | dram_of)
      got=$(python3 -c 'import json,sys
t = json.load(open(sys.argv[1]))[0]
r = [r for r in t["rows"] if r["search"] == sys.argv[2] and r["proposer"] == sys.argv[3]][0]
print(r["dram_fusable"][int(sys.argv[4])])' "$tmp/t.json" "$1" "$2" $i)
      [ "$want" = "$got" ] || bad "$1 + $2 seed $seed: compare $got B, plan $want B"
    done
  done
  # The budget curve never rises and ends at the table's mean.
  python3 - "$tmp/curve.csv" "$tmp/t1.csv" <<'EOF' || bad "budget curve"
import csv, sys
curve = list(csv.DictReader(open(sys.argv[1])))
table = {(r["search"], r["proposer"]): r for r in csv.DictReader(open(sys.argv[2]))}
assert len(curve) == 4 * 75, len(curve)  # every second plan: at most 100 points
for key in [("local", "none"), ("local", "attrib"), ("random", "none"), ("random", "attrib")]:
    pts = [r for r in curve if (r["search"], r["proposer"]) == key]
    ys = [float(r["best_dram_mean_mb"]) for r in pts]
    assert all(b <= a for a, b in zip(ys, ys[1:])), key
    assert int(pts[-1]["plans"]) == 150
    assert abs(ys[-1] - float(table[key]["dram_mean_mb"])) < 1e-6, (key, ys[-1])
EOF
fi
grep -q '<svg' "$tmp/curve.svg" || bad "no SVG budget curve"
grep -q 'plans proposed' "$tmp/curve.svg" && grep -q 'exact optimum' "$tmp/curve.svg" \
  || bad "SVG lacks the axis title or the optimum's legend entry"

# Bad input: one line, exit 2, no output file.
expect_usage() {
  "$fp" compare "$@" --quiet -o "$tmp/never.csv" >/dev/null 2>"$tmp/err"
  rc=$?
  [ $rc -eq 2 ] || bad "compare $* exited $rc, expected 2"
  [ "$(wc -l <"$tmp/err")" -eq 1 ] || bad "compare $*: error is not one line: $(cat "$tmp/err")"
  [ ! -e "$tmp/never.csv" ] || bad "compare $* wrote an output file"
}
expect_usage --search foo
expect_usage --proposer bar
expect_usage --format xml
expect_usage --model nosuchnet
expect_usage --seeds 0
expect_usage --scheme xyz
expect_usage --buffer 12XB

"$fp" compare --help | grep -q -- '--fresh-memo' || bad "compare --help"
exit $fail
