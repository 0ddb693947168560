#!/bin/bash
# plan --search exact --upper-bound VALUE / --upper-bound-plan FILE (the exact
# planner's branch and bound, lf_exact_config.upper_bound): the optimum's own
# figure finds the same plan, byte for byte, in bytes, fJ and fs, with the
# units the option takes (commas, sizes, mJ, us rounded up); one unit below it
# is exit 1 with one line naming the bound and no file; a plan file's
# recomputed figure is a bound; bad values and misplaced options are usage
# errors (exit 2) of one line.
set -u
fp=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# ok NAME ARGS...: exit 0 and the same plan file as the unbounded run ($tmp/ref.json).
ok() {
  local name=$1
  shift
  "$fp" plan --search exact --quiet -o "$tmp/$name.json" "$@" >"$tmp/out" 2>"$tmp/err" ||
    bad "$name: exit $?: $(cat "$tmp/err")"
  cmp -s "$tmp/ref.json" "$tmp/$name.json" || bad "$name: another plan than without the bound"
}
# none NAME PATTERN ARGS...: exit 1, one stderr line matching PATTERN, no file, no summary.
none() {
  local name=$1 pattern=$2
  shift 2
  "$fp" plan --search exact --quiet -o "$tmp/$name.json" "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  [ "$rc" -eq 1 ] || bad "$name: exit $rc, expected 1"
  [ "$(wc -l <"$tmp/err")" -eq 1 ] || bad "$name: stderr is not one line: $(cat "$tmp/err")"
  grep -q "$pattern" "$tmp/err" || bad "$name: message lacks '$pattern': $(cat "$tmp/err")"
  [ ! -e "$tmp/$name.json" ] || bad "$name: wrote a plan"
  [ ! -s "$tmp/out" ] || bad "$name: printed a result: $(cat "$tmp/out")"
}
# usage NAME PATTERN ARGS...: exit 2 and one stderr line matching PATTERN.
usage() {
  local name=$1 pattern=$2
  shift 2
  "$fp" plan --quiet "$@" >/dev/null 2>"$tmp/err"
  local rc=$?
  [ "$rc" -eq 2 ] || bad "$name: exit $rc, expected 2"
  [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q -- "$pattern" "$tmp/err" || bad "$name: $(cat "$tmp/err")"
}

# DRAM: resnet18 at 256 KB, optimum 3,105,152 B over fusable ops (the summary's figure).
m=(--model resnet18)
"$fp" plan "${m[@]}" --search exact --quiet -o "$tmp/ref.json" >"$tmp/out" 2>&1 || bad "reference run failed"
grep -q 'DRAM 3,105,152 B fusable ops' "$tmp/out" || bad "resnet18's optimum moved: $(head -1 "$tmp/out")"
ok dram "${m[@]}" --upper-bound 3105152
ok commas "${m[@]}" --upper-bound 3,105,152
ok size "${m[@]}" --upper-bound 3MB # 3,145,728 B
ok threads "${m[@]}" --upper-bound 3105152 --threads 2
none below "^fusionplan: exact planner: no plan of 'resnet18' has DRAM over fusable ops at most the upper bound 3105151 B (the optimum is at least 3105152 B)$" \
  "${m[@]}" --upper-bound 3105151
none tiny "at most the upper bound 1 B" "${m[@]}" --upper-bound 1
# A plan file's partition, recomputed: the greedy plan (here the optimum's
# figure too) and the optimum's own file.
"$fp" plan "${m[@]}" --quiet -o "$tmp/greedy.json" >/dev/null 2>&1 || bad "greedy run failed"
ok from_greedy "${m[@]}" --upper-bound-plan "$tmp/greedy.json"
ok from_itself "${m[@]}" --upper-bound-plan "$tmp/ref.json"
none other_graph "^fusionplan: --upper-bound-plan: .*greedy.json: model.ops: the plan has 50 ops, graph 'resnet34' has 90" \
  --model resnet34 --upper-bound-plan "$tmp/greedy.json"
none invalid_here "^fusionplan: --upper-bound-plan: .*greedy.json is not a valid plan here: " \
  "${m[@]}" --buffer 64KB --upper-bound-plan "$tmp/greedy.json"
echo '{' >"$tmp/broken.json"
none not_json "^fusionplan: --upper-bound-plan: .*broken.json:2:0: not a JSON plan" "${m[@]}" --upper-bound-plan "$tmp/broken.json"

# Energy (fJ) and latency (fs): the summary gives the optimum's figure.
for o in energy latency; do
  "$fp" plan "${m[@]}" --search exact --objective $o --quiet -o "$tmp/ref.json" >"$tmp/out" 2>&1 || bad "$o reference failed"
  fig=$(sed -n "s/.*; $o \([0-9,]*\) f[Js] over fusable ops;.*/\1/p" "$tmp/out" | tr -d ,)
  [ -n "$fig" ] || bad "$o: the summary gives no figure: $(head -1 "$tmp/out")"
  ok $o "${m[@]}" --objective $o --upper-bound "$fig"
  ok $o-plan "${m[@]}" --objective $o --upper-bound-plan "$tmp/greedy.json"
  none $o-below "at most the upper bound $((fig - 1)) f[Js] (the optimum is at least $fig f[Js])$" \
    "${m[@]}" --objective $o --upper-bound $((fig - 1))
done
# resnet18's energy optimum 671,531,302,821 fJ and latency optimum 121,295,000,000 fs,
# with units: exact, rounded up from half a fJ, and one fJ or fs short.
"$fp" plan "${m[@]}" --search exact --objective energy --quiet -o "$tmp/ref.json" >/dev/null 2>&1
ok uJ "${m[@]}" --objective energy --upper-bound 671.531302821uJ
ok half_fJ "${m[@]}" --objective energy --upper-bound 671.5313028205uJ
ok mJ "${m[@]}" --objective energy --upper-bound 0.6716mJ
none uJ-below "upper bound 671531302820 fJ" "${m[@]}" --objective energy --upper-bound 671.53130282uJ
"$fp" plan "${m[@]}" --search exact --objective latency --quiet -o "$tmp/ref.json" >/dev/null 2>&1
ok us "${m[@]}" --objective latency --upper-bound 121.295us
ok ns "${m[@]}" --objective latency --upper-bound 121295ns
none us-below "upper bound 121294999999 fs" "${m[@]}" --objective latency --upper-bound 121.294999999us

# Branch and bound prunes (Inception-v3 under BRR at 256 KB, optimum
# 38,097,819 B) and says how many downsets it pruned.
"$fp" plan --model inception_v3 --scheme brr --search exact --quiet --upper-bound 38097819 >"$tmp/out" 2>&1 ||
  bad "inception_v3: $(cat "$tmp/out")"
grep -q 'DRAM 38,097,819 B fusable ops.*; [1-9][0-9]* downsets pruned by the upper bound' "$tmp/out" ||
  bad "inception_v3 pruned nothing: $(cat "$tmp/out")"
# Past a limit the run ends as without the bound (message or best-effort plan);
# a bound below the optimum can still end in "no plan" when every state is pruned first.
"$fp" plan --model inception_v3 --search exact --quiet --max-states 100 --upper-bound 20207851 >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q 'more than 100 states.*certified bounds' "$tmp/err" || bad "limit with a bound: $(cat "$tmp/err")"
none pruned_out "at most the upper bound 10000000 B" --model inception_v3 --max-states 100 --upper-bound 10000000

for v in 0 -5 abc 1.5 1,23 3105152x; do
  usage "value $v" "^fusionplan plan: --upper-bound expects a positive DRAM figure over fusable ops, in bytes .*; got '$v'" \
    "${m[@]}" --search exact --upper-bound="$v"
done
usage "energy 1.5" "expects a positive energy figure over fusable ops, in fJ (integer) or with a unit (fJ, pJ, nJ, uJ, mJ, J); got '1.5'" \
  "${m[@]}" --search exact --objective energy --upper-bound 1.5
usage "latency 5J" "expects a positive latency figure .*; got '5J'" "${m[@]}" --search exact --objective latency --upper-bound 5J
usage greedy "--upper-bound needs --search exact" "${m[@]}" --upper-bound 3105152
usage greedy-plan "--upper-bound-plan needs --search exact" "${m[@]}" --upper-bound-plan "$tmp/greedy.json"
usage both "give --upper-bound or --upper-bound-plan, not both" "${m[@]}" --search exact --upper-bound 5 \
  --upper-bound-plan "$tmp/greedy.json"
exit $fail
