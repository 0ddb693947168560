#!/bin/bash
# fusionplan rules --generate (issue 43, DESIGN §11): the shipped rule set is
# what the generator writes at K = 3 (byte for byte), the file does not depend
# on the thread count, the set holds TASO's mappable single-output rules, the
# rules load and verify, and bad options are one-line errors.
set -u
fp=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
say() { echo "FAIL: $*"; fail=1; }

shipped="$src/explain/weights/subst-rules-generated.bin"
"$fp" rules --generate --max-ops 3 --threads 2 -o "$tmp/k3.bin" >"$tmp/k3.out" || say "rules --generate --max-ops 3 failed"
cmp -s "$tmp/k3.bin" "$shipped" || say "the shipped $shipped is not what --generate --max-ops 3 writes: $(cat "$tmp/k3.out")"
grep -q '^[0-9]* graphs of up to 3 ops; .* [0-9]* rules written to' "$tmp/k3.out" || say "summary: $(cat "$tmp/k3.out")"

# the same bytes with one and two threads (K = 2: fast), and another seed
# changes only the fingerprints, never which rules verify
"$fp" rules --generate --max-ops 2 --threads 1 -o "$tmp/a.bin" >"$tmp/a.out" || say "K=2, 1 thread"
"$fp" rules --generate --max-ops 2 --threads 2 -o "$tmp/b.bin" >/dev/null || say "K=2, 2 threads"
cmp -s "$tmp/a.bin" "$tmp/b.bin" || say "K=2 differs between 1 and 2 threads"
# hand-checked: relu(relu(x)) = relu(x) and conv + ReLU = conv(relu) are among them
"$fp" rules --rules "generated=$tmp/a.bin" >"$tmp/list" || say "rules --rules generated=FILE"
grep -q ' generated    2    1        -  Relu, Relu  =>  Relu$' "$tmp/list" || say "relu(relu(x)) => relu(x) missing"
grep -q ' generated    2    1        -  Conv, Relu  =>  Conv(relu)$' "$tmp/list" || say "conv, relu => conv(relu) missing"
"$fp" rules --rules "generated=$tmp/a.bin" --verify >"$tmp/v" || say "rules --verify on the K=2 set"
n=$(sed -n 's/^\([0-9]*\) rules: 0 built in, \([0-9]*\) generated$/\2/p' "$tmp/list")
grep -q "^$n rules verified: $n ok, 0 failed" "$tmp/v" || say "K=2 set does not verify: $(tail -1 "$tmp/v")"

# the types filter: add and mul alone give only element-wise rules
"$fp" rules --generate --max-ops 2 --types add,mul -o "$tmp/am.bin" >/dev/null || say "--types add,mul"
"$fp" rules --rules "generated=$tmp/am.bin" | tail -n +3 | grep -v -q -E '  (Add|Mul)(, (Add|Mul))*  =>  ' &&
  say "--types add,mul made rules over other ops"

# TASO's 107 mappable rules: every one with one output is found at K = 3 (37 as a
# generated rule with variables merged: a matcher of the general rule matches them)
taso="$src/../shared/data/taso/graph_subst.pb"
if [ -f "$taso" ]; then
  "$fp" rules --generate --max-ops 3 --threads 2 -o "$tmp/c.bin" --cover "$taso" >"$tmp/cover" || say "--cover"
  grep -q "^104 of the 107 mappable rules of .* are generated (up to renaming; 37 of them" "$tmp/cover" || say "coverage: $(cat "$tmp/cover")"
  [ "$(grep -c 'two mapped outputs' "$tmp/cover")" = 3 ] || say "missing rules: $(grep missing "$tmp/cover")"
fi

expect_error() { # name, expected text, command...
  local name=$1 want=$2
  shift 2
  "$@" >"$tmp/o" 2>"$tmp/e"
  local rc=$?
  if [ $rc -eq 0 ] || [ "$(wc -l <"$tmp/e")" -ne 1 ] || ! grep -q -- "$want" "$tmp/e"; then
    say "$name: status $rc, stderr: $(cat "$tmp/e")"
  fi
}
# MetaFlow's Table 3 (bench subst) takes the rule sources too: the shipped set, verified
"$fp" bench subst --models resnet18 --budget 5 --enum-budget 5 --rules generated >"$tmp/bs.out" 2>&1 ||
  say "bench subst --rules generated failed: $(head -3 "$tmp/bs.out")"
grep -q '; 2041 rules (generated; 0 disabled by verification)' "$tmp/bs.out" ||
  say "bench subst --rules generated: $(head -1 "$tmp/bs.out")"
expect_error "bench subst taso without a file" "--taso-file" "$fp" bench subst --models resnet18 --rules taso
expect_error "max-ops 9" "max-ops" "$fp" rules --generate --max-ops 9 -o "$tmp/x"
expect_error "bad type" "unknown op type 'softmax'" "$fp" rules --generate --types relu,softmax -o "$tmp/x"
expect_error "no -o" "needs -o FILE" "$fp" rules --generate
expect_error "missing generated file" "nosuch.bin" "$fp" rules --rules "generated=$tmp/nosuch.bin"
expect_error "taso without a file" "--taso-file" "$fp" rules --rules taso
printf 'garbage' >"$tmp/bad.bin"
expect_error "a bad generated file" "bad.bin" "$fp" optimize --model alexnet --rules "generated=$tmp/bad.bin"
exit $fail
