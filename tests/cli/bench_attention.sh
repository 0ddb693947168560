#!/bin/bash
# fusionplan bench attention: the FlashAttention yardstick on the hand-worked
# core of tests/test_cost_attn.c (heads 2, T 8, dh 4). At 64 B the optimum
# splits the core into {S, P} and {O}, each keeping one head's K or V
# resident: 256 + 256 = 512 B; at 128 B the whole core keeps one head's K and
# V (88 B at one row): 256 B, the compulsory Q, K, V and O. Unfused: three
# ops of 256 B each. N^2 d^2 / M with M = 64: 2 x 64 x 16 / 64 = 32.
# Bad options are one line with exit status 2.
set -u
fp=$1
fail=0
bad() { echo "FAIL: $*"; fail=1; }
out=$("$fp" bench attention --seq-len 8 --dim 4 --heads 2 --from 64B --to 128B 2>&1) || bad "exit $?: $out"
echo "$out" | grep -q '^| 64 B | 512 | 32 | 16.00 | 768 | 0.667 | resident per head | unfused | 2 x 8 | 1 |$' ||
  bad "64 B row: $out"
echo "$out" | grep -q '^| 128 B | 256 | 16 | 16.00 | 768 | 0.333 | resident per head | whole rows | 2 x 8 | 1 |$' ||
  bad "128 B row: $out"
err=$("$fp" bench attention --seq-len 0 2>&1 >/dev/null)
rc=$?
[ "$rc" = 2 ] || bad "--seq-len 0 exited $rc"
[ "$(echo "$err" | wc -l)" = 1 ] && echo "$err" | grep -q 'seq-len' || bad "--seq-len 0: $err"
err=$("$fp" bench attention --from 1MB --to 1KB 2>&1 >/dev/null)
[ $? = 2 ] || bad "--from > --to accepted"
exit $fail
