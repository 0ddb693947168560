#!/bin/bash
# fusionplan optimize --search prune|dpp|sample and bench ocggs (issue 13):
# the exact searches agree, Sampling reaches their optimum, the time cap,
# the OCGGS networks and their --blocks, one-line errors on bad input.
set -u
fp=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# ResNet blocks x2 (10 ops) on an 8 x 8 map (a quick numeric check): two conv+ReLU fusions
# (a launch and a round trip of the map each).
for s in prune dpp sample; do
  "$fp" optimize --rules builtin --model resnet_blocks --blocks 2 --input-size 8 --search $s -o "$tmp/$s.json" >"$tmp/$s" 2>"$tmp/e" ||
    { echo "FAIL: optimize --search $s exited $?"; cat "$tmp/e"; fail=1; }
  if ! grep -q '^model resnet_blocks (10 ops)' "$tmp/$s" || ! grep -q '^applied sequence: 2 steps$' "$tmp/$s" ||
     ! grep -q '^time (us) .* 51.457 .* 41.385 ' "$tmp/$s"; then
    echo "FAIL: optimize --search $s on resnet_blocks x2"; cat "$tmp/$s"; fail=1
  fi
  grep -q "^search: [0-9]* sequences examined, [0-9]* matches reused" "$tmp/$s" ||
    { echo "FAIL: --search $s prints no OCGGS statistics"; fail=1; }
  grep -q '^check: the optimized graph.s outputs equal the original.s' "$tmp/$s" ||
    { echo "FAIL: --search $s result not checked"; fail=1; }
done
grep -q 'search prune (K 10)' "$tmp/prune" || { echo "FAIL: K is not 10 by default"; fail=1; }
grep -q 'search sample (K 10, Q 20, eta 1, seed 1)' "$tmp/sample" || { echo "FAIL: sample settings"; fail=1; }
grep -q ' 0 matches reused' "$tmp/prune" || { echo "FAIL: prune reuses matches"; fail=1; }
grep -q ' [1-9][0-9]* matches reused' "$tmp/dpp" || { echo "FAIL: dpp reuses no matches"; fail=1; }
# the same seed twice: the same output file
"$fp" optimize --rules builtin --model resnet_blocks --blocks 2 --input-size 8 --search sample -o "$tmp/sample2.json" >/dev/null || fail=1
# (timings aside)
cmp -s <(grep -v '"stats"' "$tmp/sample.json") <(grep -v '"stats"' "$tmp/sample2.json") ||
  { echo "FAIL: sample differs between two runs"; fail=1; }
# K = 1: one step only
"$fp" optimize --rules builtin --model resnet_blocks --blocks 2 --input-size 8 --search dpp --max-steps 1 >"$tmp/k1" || fail=1
grep -q '^applied sequence: 1 steps$' "$tmp/k1" || { echo "FAIL: --max-steps 1"; cat "$tmp/k1"; fail=1; }

# The time cap: an exact search reports no result (one line, exit 1, no output file);
# sample returns its best so far.
if "$fp" optimize --rules builtin --model inception_v3 --search prune --time-limit 0.01 -o "$tmp/cap.json" >"$tmp/o" 2>"$tmp/e" ||
   [ -e "$tmp/cap.json" ]; then
  echo "FAIL: prune at the time cap gives a result"; fail=1
fi
grep -q '^fusionplan: prune: no result within the time limit of 0.01 s' "$tmp/e" && [ "$(wc -l <"$tmp/e")" = 1 ] ||
  { echo "FAIL: prune time cap message"; cat "$tmp/e"; fail=1; }
"$fp" optimize --rules builtin --model inception_v3 --input-size 75 --search sample --time-limit 0.01 >"$tmp/o" 2>"$tmp/e" ||
  { echo "FAIL: sample at the time cap exited $?"; cat "$tmp/e"; fail=1; }
grep -q '^time limit reached: the best sequence found so far$' "$tmp/o" || { echo "FAIL: sample cap line"; fail=1; }
# a cap on CPU time
"$fp" optimize --rules builtin --model inception_v3 --search dpp --time-limit 0.05 --cpu-time >/dev/null 2>"$tmp/e" &&
  { echo "FAIL: dpp at a CPU cap gives a result"; fail=1; }
grep -q '^fusionplan: dpp: no result within the time limit of 0.05 s of CPU time' "$tmp/e" ||
  { echo "FAIL: dpp CPU cap message"; cat "$tmp/e"; fail=1; }

# bench ocggs: Table 3's layout on two small networks
"$fp" bench ocggs --models resnet_blocks:2,sru:1 --time-limit 20 --svg "$tmp/t" >"$tmp/b" 2>/dev/null ||
  { echo "FAIL: bench ocggs exited $?"; fail=1; }
grep -q '^| resnet_blocks:2 | 10 | 121.396 | 107.853 | 107.853 | 107.853 | 107.853 | 107.853 | 107.853 |$' "$tmp/b" ||
  { echo "FAIL: bench ocggs cost row"; cat "$tmp/b"; fail=1; }
grep -q '^| sru:1 | 10 | 79.140 | 64.118 | 64.118 | 64.118 | 64.118 | 64.118 | 64.118 |$' "$tmp/b" ||
  { echo "FAIL: bench ocggs sru row"; cat "$tmp/b"; fail=1; }
for w in cost time memory; do
  grep -q '^<svg' "$tmp/t-$w.svg" 2>/dev/null || { echo "FAIL: no $w chart"; fail=1; }
done

# Bad input: one line, non-zero exit, nothing written.
bad() {
  local want=$1; shift
  if "$fp" "$@" -o "$tmp/bad.json" >/dev/null 2>"$tmp/e" || [ -e "$tmp/bad.json" ]; then
    echo "FAIL: accepted: $*"; fail=1
  elif [ "$(wc -l <"$tmp/e")" != 1 ] || ! grep -q -- "$want" "$tmp/e"; then
    echo "FAIL: message for $*:"; cat "$tmp/e"; fail=1
  fi
}
bad "unknown --search 'greedy' (backtrack, enum, split, prune, dpp, sample)" optimize --model resnet_blocks --search greedy
bad "max-steps must be between 1 and 64, got 0" optimize --model resnet_blocks --search dpp --max-steps 0
bad "max-steps must be between 1 and 64, got -3" optimize --model resnet_blocks --search prune --max-steps -3
bad "max-steps expects an integer, got 'ten'" optimize --model resnet_blocks --search sample --max-steps ten
bad "time-limit: 'soon' is not a number" optimize --model resnet_blocks --search prune --time-limit soon
bad "time-limit: '0' is not a number" optimize --model resnet_blocks --search prune --time-limit 0
bad "sample-size must be between 2 and 100000, got 1" optimize --model resnet_blocks --search sample --sample-size 1
bad "cpu-time needs --time-limit SECONDS" optimize --model resnet_blocks --search prune --cpu-time
bad "blocks applies to resnet_blocks" optimize --model resnet18 --blocks 2
bad "alexnet: no blocks to repeat" optimize --model alexnet --blocks 2
bad "blocks must be between 1 and 64, got 0" optimize --model resnet_blocks --blocks 0
if "$fp" bench ocggs --searches prune,greedy >/dev/null 2>"$tmp/e"; then
  echo "FAIL: bench ocggs accepts an unknown search"; fail=1
fi
grep -q "unknown search 'greedy'" "$tmp/e" || { echo "FAIL: bench ocggs unknown search message"; cat "$tmp/e"; fail=1; }
if "$fp" bench ocggs --clock sundial >/dev/null 2>"$tmp/e" || ! grep -q "clock: 'sundial' (cpu or wall)" "$tmp/e"; then
  echo "FAIL: bench ocggs --clock"; fail=1
fi
if "$fp" bench ocggs --max-steps 0 >/dev/null 2>"$tmp/e"; then
  echo "FAIL: bench ocggs accepts K = 0"; fail=1
fi
exit $fail
