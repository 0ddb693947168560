#!/bin/bash
# The GSO rule filter retrained on the generated rules (issue 43):
# `optimize --filter gso` with the default rules (builtin,generated) loads
# the shipped gso-gcn-generated.bin and keeps on resnet18 exactly the five
# rules that have a match there among the 2,062 enabled (the built-in
# conv_relu, merge_convs, enlarge_conv and the generated gen_002, gen_013),
# reaching the unfiltered search's optimum; --rules builtin still loads the
# models trained on the built-in and TASO rules.
set -u
fp=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
"$fp" optimize --model resnet18 --input-size 32 --budget 20 --filter gso >"$tmp/f" 2>&1 || { echo "FAIL: optimize --filter gso"; cat "$tmp/f"; fail=1; }
grep -q '^filter gso: 5 of 2062 rules kept (99.8% of the search space removed) in .* ms: conv_relu merge_convs enlarge_conv gen_002 gen_013$' "$tmp/f" ||
  { echo "FAIL: the generated-rules filter on resnet18"; head -2 "$tmp/f"; fail=1; }
"$fp" optimize --model resnet18 --input-size 32 --budget 20 >"$tmp/n" 2>&1 || { echo "FAIL: optimize"; fail=1; }
[ -n "$(grep '^time (us)' "$tmp/n")" ] && [ "$(grep '^time (us)' "$tmp/f")" = "$(grep '^time (us)' "$tmp/n")" ] ||
  { echo "FAIL: the filtered optimum differs"; grep '^time' "$tmp/f" "$tmp/n"; fail=1; }
"$fp" optimize --model resnet18 --input-size 32 --budget 20 --filter lr >"$tmp/l" 2>&1 || { echo "FAIL: optimize --filter lr"; cat "$tmp/l"; fail=1; }
grep -q '^filter lr: [0-9]* of 2062 rules kept' "$tmp/l" || { echo "FAIL: --filter lr with the generated rules"; head -2 "$tmp/l"; fail=1; }
"$fp" optimize --rules builtin --model resnet18 --input-size 32 --budget 20 --filter gso >"$tmp/b" 2>&1 || fail=1
grep -q '^filter gso: 3 of 21 rules kept' "$tmp/b" || { echo "FAIL: --rules builtin no longer loads gso-gcn.bin"; head -2 "$tmp/b"; fail=1; }
[ $fail -eq 0 ] && echo "ok: $(head -1 "$tmp/f")"
exit $fail
