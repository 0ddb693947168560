#!/bin/bash
# fusionplan curve: the table, CSV, JSON and SVG agree; the DRAM at a step's
# buffer and one byte below it equals `plan --search exact` there; bad
# options are one-line usage errors that write nothing; a limit that fires
# leaves no output file.
set -u
fp=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

"$fp" curve --model resnet18 --min 64KB --max 1MB --csv "$tmp/c.csv" --json "$tmp/c.json" \
  --svg "$tmp/c.svg" >"$tmp/out" 2>"$tmp/err" || bad "curve exited $?: $(cat "$tmp/err")"
head -1 "$tmp/out" | grep -q '^resnet18 lbdf: optimal DRAM over all ops from 64 KB to 1 MB in [0-9]* steps' \
  || bad "summary: $(head -1 "$tmp/out")"
rows=$(($(wc -l <"$tmp/c.csv") - 1))
[ "$rows" -gt 5 ] || bad "only $rows steps"
[ "$(grep -c '^ *[0-9][0-9,]* ' "$tmp/out")" -eq "$rows" ] || bad "table and CSV differ in rows"
# The JSON holds the same steps, from 64 KB, buffers rising and DRAM falling
# (tests/tools/json_check, C over jansson; without it the test exits 77 at the end).
jc=${LF_JSON_CHECK:-}
json_skip=""
if [ -z "$jc" ]; then
  json_skip="JSON checks need tests/tools/json_check, built only when jansson (libjansson-dev) is found"
else
  [ "$("$jc" length "$tmp/c.json" points)" = "$rows" ] || bad "JSON has $("$jc" length "$tmp/c.json" points) points, CSV $rows"
  [ "$("$jc" get "$tmp/c.json" points/0/buffer_from)" = 65536 ] || bad "JSON: first step not at 64 KB"
  prev_b=0 prev_d=""
  for ((k = 0; k < rows; k++)); do
    b=$("$jc" get "$tmp/c.json" "points/$k/buffer_from") d=$("$jc" get "$tmp/c.json" "points/$k/dram_all")
    [ "$b" -gt "$prev_b" ] || bad "JSON: step $k buffer $b not above $prev_b"
    [ -z "$prev_d" ] || [ "$d" -lt "$prev_d" ] || bad "JSON: step $k DRAM $d not below $prev_d"
    prev_b=$b prev_d=$d
  done
fi
grep -q '<svg' "$tmp/c.svg" && grep -q 'resnet18 lbdf optimum' "$tmp/c.svg" || bad "SVG"

# Three steps against the single-buffer exact planner, at the step and one byte below.
dram_all() { "$fp" plan --model resnet18 --search exact --buffer "$1B" --quiet | sed 's/.*), \([0-9,]*\) B all ops.*/\1/' | tr -d ,; }
for k in 3 10 20; do
  line=$(sed -n "$((k + 1))p" "$tmp/c.csv")
  prev=$(sed -n "${k}p" "$tmp/c.csv")
  b=$(echo "$line" | cut -d, -f3); d=$(echo "$line" | cut -d, -f4); pd=$(echo "$prev" | cut -d, -f4)
  [ "$(dram_all "$b")" = "$d" ] || bad "step $k at $b B: curve $d, exact $(dram_all "$b")"
  [ "$(dram_all $((b - 1)))" = "$pd" ] || bad "below step $k at $((b - 1)) B: curve $pd, exact $(dram_all $((b - 1)))"
done

# --check: the single-buffer planner at every step, one byte below each and at --max.
"$fp" curve --model resnet18 --max 512KB --check --csv "$tmp/k.csv" >"$tmp/out" 2>"$tmp/err" \
  || bad "curve --check exited $?: $(cat "$tmp/err")"
steps=$(($(wc -l <"$tmp/k.csv") - 1))
grep -q "^check: the single-buffer exact planner agrees at all $((2 * steps)) buffers" "$tmp/out" \
  || bad "--check line: $(grep check "$tmp/out")"

# Bad options: exit 2, one line, nothing written.
usage() {
  "$fp" curve --model resnet18 --csv "$tmp/bad.csv" "$@" >/dev/null 2>"$tmp/err"
  local rc=$?
  [ "$rc" -eq 2 ] || bad "'$*' exited $rc, expected 2"
  [ "$(wc -l <"$tmp/err")" -eq 1 ] || bad "'$*': stderr is not one line"
  [ ! -e "$tmp/bad.csv" ] || bad "'$*' wrote the CSV"
}
usage --min 1MB --max 512KB
usage --min lots
usage --buffer 256KB
usage --time-limit -3
usage --scheme xyz
usage --threads 0
usage --threads many
# Workers change nothing in the output (a network with cut ops under BRR,
# whose joined pairs are what the workers share).
for t in 1 2; do
  "$fp" curve --model resnet50 --scheme brr --max 1MB --threads $t --json "$tmp/t$t.json" \
    >"$tmp/t$t.out" 2>"$tmp/err" || bad "curve --threads $t exited $?: $(cat "$tmp/err")"
  sed -i 's/wall [0-9.]* s//' "$tmp/t$t.out"
done
cmp -s "$tmp/t1.json" "$tmp/t2.json" || bad "--threads 1 and 2: JSON differs"
cmp -s "$tmp/t1.out" "$tmp/t2.out" || bad "--threads 1 and 2: table differs"
# An output that cannot be written is refused before the work, and nothing else is written.
"$fp" curve --model resnet18 --csv "$tmp/bad.csv" --svg /nonexistent/dir/c.svg >/dev/null 2>"$tmp/err"
[ $? -ne 0 ] && [ ! -e "$tmp/bad.csv" ] || bad "unwritable --svg left the CSV behind"
# A limit that fires: exit 1, one line naming it, no file.
"$fp" curve --model inception_v3 --max 2MB --max-candidates 5000 --csv "$tmp/bad.csv" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] || bad "limit: exit status"
grep -q 'more than 5000 candidate groups' "$tmp/err" && [ "$(wc -l <"$tmp/err")" -eq 1 ] \
  || bad "limit message: $(cat "$tmp/err")"
[ ! -e "$tmp/bad.csv" ] || bad "limit left the CSV"

# bench exact: one row per network and scheme, optimal within the limits, the limit named past it.
"$fp" bench exact --models resnet18,mobilenet_v2 --schemes lbdf,brr --max 512KB --format csv \
  >"$tmp/b.csv" 2>"$tmp/err" || bad "bench exact exited $?: $(cat "$tmp/err")"
[ "$(grep -c ',optimal$' "$tmp/b.csv")" -eq 4 ] || bad "bench exact rows: $(cat "$tmp/b.csv")"
steps=$(awk -F, '$1 == "resnet18" && $2 == "lbdf" { print $5 }' "$tmp/b.csv")
"$fp" curve --model resnet18 --max 512KB --csv "$tmp/r.csv" >/dev/null 2>&1
[ "$steps" = "$(($(wc -l <"$tmp/r.csv") - 1))" ] || bad "bench exact steps $steps differ from curve"
"$fp" bench exact --models resnet18 --schemes lbdf --buffers 128KB,256KB >"$tmp/b.md" 2>"$tmp/err" \
  || bad "bench exact --buffers exited $?"
grep -q '^| resnet18 | 128 KB | lbdf | 3.409 | 16.915 | 15 | 59 |' "$tmp/b.md" \
  || bad "bench exact --buffers row: $(cat "$tmp/b.md")"
"$fp" bench exact --models inception_v3 --schemes brr --max 2MB --max-candidates 1000 --format csv \
  >"$tmp/b.csv" 2>"$tmp/err" || bad "bench exact with a limit exited $?"
grep -q ',candidate limit$' "$tmp/b.csv" || bad "bench exact limit row: $(cat "$tmp/b.csv")"
"$fp" bench exact --models nosuchnet >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] || bad "bench exact bad model"
if [ $fail -eq 0 ] && [ -n "$json_skip" ]; then echo "skipped: $json_skip"; exit 77; fi
exit $fail
