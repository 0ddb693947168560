#!/bin/bash
# fusionplan sweep-buffer: one row per buffer size, the exact optimum's DRAM
# over all ops non-increasing in the buffer and never above the search or
# layer-by-layer, the exact column equal to `plan --search exact`, the valid
# fraction non-decreasing (F_beta does not depend on beta under either
# scheme, so labels of the same groups are monotone), byte-identical output
# for 1 and 2 threads, one-line usage errors, -o and the SVG charts.
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

small=(--models resnet18 --from 128KB --to 512KB --budget 100 --samples 100 --quiet)

"$fp" sweep-buffer "${small[@]}" --format csv --threads 1 >"$tmp/t1.csv" 2>"$tmp/err" \
  || bad "small sweep exited $?: $(cat "$tmp/err")"
[ "$(wc -l <"$tmp/t1.csv")" -eq 4 ] || bad "expected a header and 3 rows, got: $(cat "$tmp/t1.csv")"
head -1 "$tmp/t1.csv" | grep -q '^model,scheme,buffer_bytes,' || bad "CSV header: $(head -1 "$tmp/t1.csv")"
cut -d, -f3 "$tmp/t1.csv" | tail -n +2 | tr '\n' ' ' | grep -q '^131072 262144 524288 $' \
  || bad "buffer sizes: $(cut -d, -f3 "$tmp/t1.csv" | tr '\n' ' ')"
[ -s "$tmp/err" ] && bad "--quiet still wrote to stderr: $(cat "$tmp/err")"

# Identical output for 1 and 2 threads, in every format.
"$fp" sweep-buffer "${small[@]}" --format csv --threads 2 >"$tmp/t2.csv" 2>/dev/null
cmp -s "$tmp/t1.csv" "$tmp/t2.csv" || bad "CSV differs between 1 and 2 threads"
for f in md json; do
  "$fp" sweep-buffer "${small[@]}" --format $f --threads 1 >"$tmp/t1.$f" 2>/dev/null || bad "--format $f exited $?"
  "$fp" sweep-buffer "${small[@]}" --format $f --threads 2 >"$tmp/t2.$f" 2>/dev/null
  cmp -s "$tmp/t1.$f" "$tmp/t2.$f" || bad "--format $f differs between 1 and 2 threads"
done
grep -q '^### resnet18, LBDF: local search, budget 100' "$tmp/t1.md" || bad "md heading: $(head -1 "$tmp/t1.md")"
[ "$(grep -c '^| [0-9]' "$tmp/t1.md")" -eq 3 ] || bad "md rows: $(cat "$tmp/t1.md")"
if [ -n "$jc" ]; then
  [ "$("$jc" length "$tmp/t1.json" sweeps/0/points)" = 3 ] || bad "JSON does not parse or lacks 3 points"
  [ "$("$jc" get "$tmp/t1.json" sweeps/0/points/2/buffer_bytes)" = 524288 ] \
    || bad "JSON's last point is not at 512 KB"
fi

# -o writes what stdout shows.
"$fp" sweep-buffer "${small[@]}" --format csv -o "$tmp/out.csv" >/dev/null 2>&1 || bad "-o exited $?"
cmp -s "$tmp/t1.csv" "$tmp/out.csv" || bad "-o file differs from stdout"

# Both schemes: monotone exact optimum and valid fraction, exact <= search and layer-by-layer.
# Columns: 1 model, 2 scheme, 3 buffer, 6 dram_all, 10 exact_dram_all, 12 layer_dram_all, 14 valid_pct.
"$fp" sweep-buffer --models resnet18 --scheme lbdf,brr --from 128KB --to 2048KB --budget 100 \
  --samples 150 --format csv --quiet >"$tmp/both.csv" 2>&1 || bad "lbdf,brr sweep exited $?"
[ "$(wc -l <"$tmp/both.csv")" -eq 11 ] || bad "lbdf,brr: expected 10 rows: $(cat "$tmp/both.csv")"
awk -F, 'NR > 1 {
    if ($10 == "") { print "no exact value: " $0; bad = 1; next }
    if ($10 + 0 > $6 + 0) { print "exact above search: " $0; bad = 1 }
    if ($10 + 0 > $12 + 0) { print "exact above layer-by-layer: " $0; bad = 1 }
    if ($2 == prev_scheme) {
      if ($10 + 0 > prev_exact + 0) { print "exact rises with the buffer: " $0; bad = 1 }
      if ($14 + 0 < prev_valid + 0) { print "valid fraction falls with the buffer: " $0; bad = 1 }
    }
    prev_scheme = $2; prev_exact = $10; prev_valid = $14
  } END { exit bad }' "$tmp/both.csv" || bad "monotonicity (see above)"

# The exact column is the optimum `plan --search exact` finds at the same point.
exact=$(awk -F, '$2 == "lbdf" && $3 == 262144 { print $10 }' "$tmp/both.csv")
plan=$("$fp" plan --model resnet18 --buffer 256KB --search exact --quiet 2>/dev/null \
  | sed -n 's/.* B fusable ops ([^)]*), \([0-9,]*\) B all ops.*/\1/p' | tr -d ,)
[ -n "$exact" ] && [ "$exact" = "$plan" ] || bad "exact column '$exact' differs from plan --search exact '$plan'"

# Usage errors: exit 2, one line on stderr, nothing on stdout.
usage() {
  "$fp" sweep-buffer "$@" >"$tmp/u.out" 2>"$tmp/u.err"
  local rc=$?
  [ $rc -eq 2 ] || bad "sweep-buffer $* exited $rc, not 2"
  [ "$(wc -l <"$tmp/u.err")" -eq 1 ] || bad "sweep-buffer $*: not one error line: $(cat "$tmp/u.err")"
  [ -s "$tmp/u.out" ] && bad "sweep-buffer $*: wrote to stdout"
}
usage --from 512KB --to 128KB
usage --from 128KB --to 384KB
usage --models resnet18,no_such_net
usage --buffers 1KB,2KB,3KB,4KB,5KB,6KB,7KB,8KB,9KB
usage --buffers 256KB,128KB
usage --buffers 128KB --from 64KB
usage --format xml
usage --scheme lbdf,nope
usage --search exact
usage --proposer attrib
usage --budget 0
usage --samples -1
usage --no-exact --exact-limit 5
usage --bogus

# The charts: DRAM and, beside it, the valid fraction.
"$fp" sweep-buffer "${small[@]}" --svg "$tmp/dram.svg" >/dev/null 2>&1 || bad "--svg exited $?"
head -c 4 "$tmp/dram.svg" 2>/dev/null | grep -q '^<svg' || bad "DRAM chart does not start with <svg"
grep -q 'on-chip buffer (KB)' "$tmp/dram.svg" || bad "DRAM chart lacks its x axis title"
grep -q 'DRAM over all ops (MB)' "$tmp/dram.svg" || bad "DRAM chart lacks its y axis title"
grep -q 'resnet18 exact' "$tmp/dram.svg" || bad "DRAM chart lacks the exact series"
head -c 4 "$tmp/dram-valid.svg" 2>/dev/null | grep -q '^<svg' || bad "no valid-fraction chart"
grep -q 'valid groups (%)' "$tmp/dram-valid.svg" || bad "valid chart lacks its y axis title"

"$fp" sweep-buffer --help | grep -q -- '--buffers' || bad "sweep-buffer --help"
"$fp" --help | grep -q 'sweep-buffer' || bad "fusionplan --help lacks sweep-buffer"
if [ $fail -eq 0 ] && [ -n "$json_skip" ]; then echo "skipped: $json_skip"; exit 77; fi
exit $fail
