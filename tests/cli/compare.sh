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
# JSON checks: tests/tools/json_check (C over jansson); without it the test
# runs its other checks and then exits 77 (skipped), saying why.
jc=${LF_JSON_CHECK:-}
json_skip=""
[ -n "$jc" ] || json_skip="JSON checks need tests/tools/json_check, built only when jansson (libjansson-dev) is found"

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
if [ -n "$jc" ]; then
  "$jc" parse "$tmp/t.json" || bad "compare --format json is not JSON"
  for pair in "local none" "local attrib" "random none" "random attrib"; do
    set -- $pair
    for i in 0 1; do
      seed=$((4 + i))
      split=(--split random)
      [ "$2" = none ] || split=(--split tree --proposer "$2" --k 3)
      want=$("$fp" plan --model mobilenet_v2 --buffer 128KB --search "$1" --budget 150 --seed $seed \
        "${split[@]}" --quiet | dram_of)
      got=$("$jc" get "$tmp/t.json" "0/rows/[search=$1,proposer=$2]/dram_fusable/$i")
      [ -n "$want" ] && [ "$want" = "$got" ] || bad "$1 + $2 seed $seed: compare '$got' B, plan '$want' B"
    done
  done
fi

# The budget curve never rises, has every second plan (at most 100 points)
# and ends at the table's mean. Columns: curve 4 search, 5 proposer,
# 6 plans, 7 best_dram_mean_mb; table 6 search, 7 proposer, 8 dram_mean_mb.
[ "$(head -1 "$tmp/curve.csv")" = "model,scheme,buffer_bytes,search,proposer,plans,best_dram_mean_mb,best_dram_min_mb,best_dram_max_mb" ] \
  || bad "curve header: $(head -1 "$tmp/curve.csv")"
awk -F, 'FNR == 1 { next }
  FILENAME == ARGV[1] { mean[$6 "," $7] = $8; next }
  { key = $4 "," $5; n[key]++; total++
    if (key in last && $7 + 0 > last[key] + 0) { print "curve rises: " $0; bad = 1 }
    last[key] = $7; plans[key] = $6 }
  END {
    if (total != 4 * 75) { print "curve has " total " points, expected 300"; bad = 1 }
    split("local,none local,attrib random,none random,attrib", keys, " ")
    for (i = 1; i <= 4; i++) {
      k = keys[i]
      if (n[k] != 75) { print k ": " n[k] " points"; bad = 1 }
      if (plans[k] != 150) { print k ": ends at " plans[k] " plans"; bad = 1 }
      d = last[k] - mean[k]; if (d < 0) d = -d
      if (!(k in mean) || d > 1e-6) { print k ": curve ends at " last[k] ", table mean " mean[k]; bad = 1 }
    }
    exit bad }' "$tmp/t1.csv" "$tmp/curve.csv" || bad "budget curve (see above)"
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
if [ $fail -eq 0 ] && [ -n "$json_skip" ]; then echo "skipped: $json_skip"; exit 77; fi
exit $fail
