#!/bin/bash
# fusionplan curve --best-effort: where the exact staircase ends, its steps,
# every row proven and equal to plain `curve`; where a limit stops it, a grid
# of buffers whose rows hold lower <= upper, monotone across buffers, a
# proven row equal to `plan --search exact` there, the table, CSV and JSON
# alike, the same with 1 and 2 threads; bad options are one-line usage
# errors that write nothing.
set -u
fp=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# The exact staircase ends: its steps, lower = upper = plain curve's DRAM.
"$fp" curve --model squeezenet1_1 --max 512KB --csv "$tmp/plain.csv" >/dev/null 2>"$tmp/err" \
  || bad "plain curve exited $?: $(cat "$tmp/err")"
"$fp" curve --model squeezenet1_1 --max 512KB --best-effort --time-limit 60 --csv "$tmp/e.csv" \
  >"$tmp/out" 2>"$tmp/err" || bad "curve --best-effort exited $?: $(cat "$tmp/err")"
head -1 "$tmp/out" | grep -q '^squeezenet1_1 lbdf: optimal DRAM over all ops from 64 KB to 512 KB in [0-9]* steps, every one proven' \
  || bad "exact summary: $(head -1 "$tmp/out")"
[ "$(tail -n +2 "$tmp/plain.csv" | cut -d, -f3,4)" = "$(tail -n +2 "$tmp/e.csv" | cut -d, -f3,4)" ] \
  || bad "best-effort steps differ from plain curve's"
awk -F, 'NR > 1 && ($4 != $5 || $7 != 1) { exit 1 }' "$tmp/e.csv" || bad "an exact step is not proven"

# A limit stops the exact staircase: four grid buffers with bounds.
run() { "$fp" curve --model squeezenet1_1 --max 512KB --best-effort --time-limit 0 --max-states 50 --points 4 "$@"; }
for t in 1 2; do
  run --threads $t --csv "$tmp/s$t.csv" --json "$tmp/s$t.json" --svg "$tmp/s$t.svg" >"$tmp/s$t.out" 2>"$tmp/err" \
    || bad "curve --best-effort --max-states exited $?: $(cat "$tmp/err")"
done
head -1 "$tmp/s1.out" | grep -q '^squeezenet1_1 lbdf: best-effort DRAM over all ops from 64 KB to 512 KB at 4 buffers, [0-9] proven, worst gap ' \
  || bad "summary: $(head -1 "$tmp/s1.out")"
grep -q '^the exact staircase stopped after .*more than 50 states' "$tmp/s1.out" || bad "no stop line"
[ "$(tail -n +2 "$tmp/s1.csv" | cut -d, -f3 | tr '\n' ' ')" = "65536 131072 262144 524288 " ] \
  || bad "grid: $(tail -n +2 "$tmp/s1.csv" | cut -d, -f3 | tr '\n' ' ')"
[ "$(grep -c '^ *[0-9][0-9,]* ' "$tmp/s1.out")" -eq 4 ] || bad "table rows"
awk -F, 'NR > 1 { if ($4 > $5) exit 1; if (NR > 2 && ($4 > pl || $5 > pu)) exit 1; pl = $4; pu = $5 }' "$tmp/s1.csv" \
  || bad "bounds not ordered or not monotone: $(cat "$tmp/s1.csv")"
cmp -s "$tmp/s1.csv" "$tmp/s2.csv" && cmp -s "$tmp/s1.json" "$tmp/s2.json" && cmp -s "$tmp/s1.svg" "$tmp/s2.svg" \
  || bad "--threads 1 and 2 differ"
grep -q 'squeezenet1_1 lbdf upper (plans found)' "$tmp/s1.svg" && grep -q 'squeezenet1_1 lbdf lower (certified)' "$tmp/s1.svg" \
  || bad "SVG lines"
# Every row against the single-buffer exact planner: inside the band, and equal where proven.
dram_all() { "$fp" plan --model squeezenet1_1 --search exact --buffer "$1B" --quiet | sed 's/.*), \([0-9,]*\) B all ops.*/\1/' | tr -d ,; }
proven=0
while IFS=, read -r _ _ b lo up _ pr _; do
  d=$(dram_all "$b")
  [ "$lo" -le "$d" ] && [ "$d" -le "$up" ] || bad "at $b B the optimum $d is outside [$lo, $up]"
  [ "$pr" = 0 ] || { [ "$d" = "$up" ] || bad "proven row at $b B: $up, exact $d"; proven=$((proven + 1)); }
done < <(tail -n +2 "$tmp/s1.csv")
[ "$proven" -ge 1 ] || bad "no proven row to check"
jc=${LF_JSON_CHECK:-}
if [ -n "$jc" ]; then
  [ "$("$jc" length "$tmp/s1.json" steps)" = 4 ] || bad "JSON steps"
  [ "$("$jc" get "$tmp/s1.json" steps/3/buffer)" = 524288 ] || bad "JSON last buffer"
fi

# Bad options: exit 2, one line, nothing written.
usage() {
  "$fp" curve --model squeezenet1_1 --csv "$tmp/bad.csv" "$@" >/dev/null 2>"$tmp/err"
  local rc=$?
  [ "$rc" -eq 2 ] || bad "'$*' exited $rc, expected 2"
  [ "$(wc -l <"$tmp/err")" -eq 1 ] || bad "'$*': stderr is not one line: $(cat "$tmp/err")"
  [ ! -e "$tmp/bad.csv" ] || bad "'$*' wrote the CSV"
}
usage --best-effort --time-limit 0
usage --best-effort --points 1
usage --best-effort --points 5000
usage --best-effort --points many
usage --points 4
usage --best-effort --html "$tmp/x.html"
usage --best-effort --check
usage --best-effort --objective energy
usage --best-effort --time-limit -1
grep -q 'needs a limit' <("$fp" curve --best-effort --time-limit 0 2>&1) || bad "no-limit message"
exit $fail
