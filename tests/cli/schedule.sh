#!/bin/bash
# fusionplan schedule: three schedules with DOS <= greedy <= sequential on
# inception_v3, the JSON's keys, determinism, -r/-s, and one-line errors
# with no output file on bad input (measured latency or --execute without a
# GPU, bad knobs, a missing ONNX file, an unwritable output); with a GPU,
# --execute prints measured against predicted latency and writes measured_ms.
set -u
fp=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

"$fp" schedule --model inception_v3 -o "$tmp/s.json" >"$tmp/out" 2>"$tmp/err" ||
  { echo "FAIL: schedule inception_v3 exited $?"; cat "$tmp/err"; fail=1; }
for k in sequential greedy dos; do
  grep -q "^$k: [0-9.]* ms, [0-9]* stages" "$tmp/out" || { echo "FAIL: no $k schedule printed"; fail=1; }
done
grep -q '^model inception_v3: 219 ops, 125 scheduling units' "$tmp/out" || { echo "FAIL: unit count"; head -2 "$tmp/out"; fail=1; }
lat() { sed -n "s/^$1: \([0-9.]*\) ms.*/\1/p" "$tmp/out"; }
seq=$(lat sequential) greedy=$(lat greedy) dos=$(lat dos)
awk -v s="$seq" -v g="$greedy" -v d="$dos" 'BEGIN { exit !(d <= g && g <= s && d < s) }' ||
  { echo "FAIL: not dos ($dos) <= greedy ($greedy) <= sequential ($seq)"; fail=1; }
# 125 sequential stages; every stage line numbered
[ "$(awk '/^sequential:/ {on=1; next} /^$/ {on=0} on' "$tmp/out" | wc -l)" -eq 125 ] ||
  { echo "FAIL: sequential does not list 125 stages"; fail=1; }
if [ -n "${LF_JSON_CHECK:-}" ]; then
  "$LF_JSON_CHECK" parse "$tmp/s.json" || { echo "FAIL: schedule JSON is not valid"; fail=1; }
  for k in sequential greedy dos; do
    v=$("$LF_JSON_CHECK" get "$tmp/s.json" "$k/latency_ms") || { echo "FAIL: no $k/latency_ms"; fail=1; }
    [ -n "$v" ] || { echo "FAIL: empty $k/latency_ms"; fail=1; }
    n=$("$LF_JSON_CHECK" length "$tmp/s.json" "$k/stages")
    [ "${n:-0}" -ge 1 ] || { echo "FAIL: $k has no stages"; fail=1; }
  done
  [ "$("$LF_JSON_CHECK" length "$tmp/s.json" sequential/stages)" = 125 ] || { echo "FAIL: JSON sequential stages"; fail=1; }
  [ "$("$LF_JSON_CHECK" get "$tmp/s.json" sequential/stages/0/groups/0/0)" = Conv2d_1a_3x3.conv ] ||
    { echo "FAIL: JSON first op"; fail=1; }
  [ "$("$LF_JSON_CHECK" get "$tmp/s.json" dos/stages/0/strategy)" = concurrent ] || { echo "FAIL: JSON strategy"; fail=1; }
fi
# deterministic (but for the search time)
"$fp" schedule --model inception_v3 -o "$tmp/s2.json" >/dev/null || fail=1
strip() { sed 's/"search_s": [0-9.e+-]*//' "$1"; }
[ "$(strip "$tmp/s.json")" = "$(strip "$tmp/s2.json")" ] || { echo "FAIL: two runs differ"; fail=1; }
# -r 1 -s 1: DOS may only merge; a V100 description gives the same figures as the defaults
"$fp" schedule --model inception_v3 -r 1 -s 1 --hw "$src/examples/hw/gpu-v100.xml" >"$tmp/r1" || fail=1
grep -q '^DOS: r 1, s 1,' "$tmp/r1" || { echo "FAIL: -r/-s not taken"; fail=1; }
d1=$(sed -n 's/^dos: \([0-9.]*\) ms.*/\1/p' "$tmp/r1")
awk -v a="$d1" -v b="$dos" 'BEGIN { exit !(a > b) }' || { echo "FAIL: -r 1 -s 1 ($d1) not slower than defaults ($dos)"; fail=1; }
"$fp" schedule --model squeezenet1_0 --batch 8 >"$tmp/b8" || { echo "FAIL: --batch 8"; fail=1; }
# randwire is built in
"$fp" schedule --model randwire >"$tmp/rw" || { echo "FAIL: schedule randwire"; fail=1; }
grep -q '^model randwire: 421 ops' "$tmp/rw" || { echo "FAIL: randwire ops"; head -1 "$tmp/rw"; fail=1; }

# an ONNX model (ONNX's test data, when installed): one op, one stage each
node=/usr/share/libonnx-testdata/data/node
if [ -f "$node/test_sigmoid/model.onnx" ]; then
  "$fp" schedule --onnx "$node/test_sigmoid/model.onnx" >"$tmp/on" || { echo "FAIL: schedule --onnx"; fail=1; }
  [ "$(grep -c '^dos: .* 1 stages' "$tmp/on")" -eq 1 ] || { echo "FAIL: schedule --onnx stages"; cat "$tmp/on"; fail=1; }
fi
# --svg: a chart with a line per schedule
"$fp" schedule --model squeezenet1_0 --svg "$tmp/c.svg" >/dev/null || fail=1
grep -q '^<svg' "$tmp/c.svg" && grep -q 'stages run' "$tmp/c.svg" || { echo "FAIL: no chart"; fail=1; }
# the reproduction script, with an extra network from its command line
if [ "${LF_SANITIZED:-OFF}" != ON ]; then
  bash "$src/examples/reproduce/dos.sh" --bin "$fp" --out "$tmp/dos" sru >"$tmp/dos.out" 2>"$tmp/dos.err" ||
    { echo "FAIL: dos.sh exited $?"; tail -3 "$tmp/dos.err"; fail=1; }
  for m in inception_v3 randwire squeezenet1_0 sru; do
    grep -q "^| $m | " "$tmp/dos/fig4.md" || { echo "FAIL: dos.sh fig4 has no $m row"; fail=1; }
  done
  [ "$(grep -c '^| [0-9]* | ' "$tmp/dos/table2.md")" -eq 3 ] || { echo "FAIL: dos.sh table2 rows"; fail=1; }
fi

# errors: one line, non-zero, nothing written
err() { # expected status, args...
  local want=$1
  shift
  "$fp" schedule "$@" >"$tmp/o" 2>"$tmp/e"
  local rc=$?
  if [ "$rc" -ne "$want" ] || [ "$(wc -l <"$tmp/e")" -ne 1 ] || [ -e "$tmp/x.json" ] || [ -s "$tmp/o" ]; then
    echo "FAIL: schedule $*: status $rc (want $want), $(wc -l <"$tmp/e") error lines"; cat "$tmp/e"; fail=1
  fi
  rm -f "$tmp/x.json"
}
if ! "$fp" --version | grep -q '^GPU 0:'; then
  # without a GPU (or CUDA support): measured latency and --execute fail in one line
  err 1 --model inception_v3 --latency measured -o "$tmp/x.json"
  grep -q 'analytic' "$tmp/e" || { echo "FAIL: measured error does not point at --latency analytic"; fail=1; }
  err 1 --model squeezenet1_1 --execute -o "$tmp/x.json"
  grep -Eq -- '^fusionplan: schedule: --execute: (no CUDA device|.*built without CUDA support).*; run without --execute$' "$tmp/e" ||
    { echo "FAIL: --execute error"; cat "$tmp/e"; fail=1; }
else
  # with one: the three schedules run end to end, measured beside predicted
  "$fp" schedule --model squeezenet1_1 --execute -o "$tmp/m.json" >"$tmp/m" 2>"$tmp/e" ||
    { echo "FAIL: --execute exited $?"; cat "$tmp/e"; fail=1; }
  grep -q '^run end to end on .*: 3 warm-up runs, median of 11$' "$tmp/m" || { echo "FAIL: no measured table"; fail=1; }
  for k in sequential greedy dos; do
    grep -Eq "^  $k +predicted +[0-9.]+ ms  measured +[0-9.]+ ms  measured/predicted [0-9.]+$" "$tmp/m" ||
      { echo "FAIL: no measured $k row"; fail=1; }
    if [ -n "${LF_JSON_CHECK:-}" ]; then
      v=$("$LF_JSON_CHECK" get "$tmp/m.json" "$k/measured_ms") || { echo "FAIL: no $k/measured_ms"; fail=1; }
      awk -v v="${v:-0}" 'BEGIN { exit !(v > 0) }' || { echo "FAIL: $k/measured_ms is $v"; fail=1; }
    fi
  done
fi
err 2 --model inception_v3 --latency fast -o "$tmp/x.json"
err 2 --model inception_v3 -r 0 -o "$tmp/x.json"
err 2 --model inception_v3 -s 65 -o "$tmp/x.json"
err 2 --model inception_v3 --part-size 65 -o "$tmp/x.json"
err 2 --model inception_v3 --no-merge --merge-only -o "$tmp/x.json"
err 2 --model no_such_net -o "$tmp/x.json"
err 2 --onnx "$tmp/missing.onnx" -o "$tmp/x.json"
err 2 --model inception_v3 -o "$tmp/no/such/dir/x.json"
printf 'not an onnx file' >"$tmp/bad.onnx"
"$fp" schedule --onnx "$tmp/bad.onnx" -o "$tmp/x.json" >/dev/null 2>"$tmp/e" && { echo "FAIL: a corrupt ONNX file is accepted"; fail=1; }
[ "$(wc -l <"$tmp/e")" -eq 1 ] && grep -q bad.onnx "$tmp/e" && [ ! -e "$tmp/x.json" ] ||
  { echo "FAIL: corrupt ONNX error"; cat "$tmp/e"; fail=1; }
exit $fail
