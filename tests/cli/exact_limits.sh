#!/bin/bash
# The exact planner's limits (issue 18.11): --time-limit, --memory-limit,
# --max-candidates and --max-states each stop a run far beyond them (Inception-v3 at 2 MB)
# with exit status 1, one line on stderr naming the limit and what was
# reached, and no output file; bad values are usage errors (exit 2); a run
# within its limits is unaffected by them.
set -u
fp=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# expect_limit NAME PATTERN ARGS...: exit 1, exactly one stderr line matching PATTERN, no file.
expect_limit() {
  local name=$1 pattern=$2
  shift 2
  "$fp" plan --model inception_v3 --buffer 2MB --search exact --quiet -o "$tmp/$name.json" "$@" \
    >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  [ "$rc" -eq 1 ] || bad "$name: exit $rc, expected 1"
  [ "$(wc -l <"$tmp/err")" -eq 1 ] || bad "$name: stderr is not one line: $(cat "$tmp/err")"
  grep -q "$pattern" "$tmp/err" || bad "$name: message lacks '$pattern': $(cat "$tmp/err")"
  grep -q "candidate sets" "$tmp/err" || bad "$name: message does not say what was reached"
  [ ! -e "$tmp/$name.json" ] || bad "$name: wrote a plan"
  [ ! -s "$tmp/out" ] || bad "$name: printed a result: $(cat "$tmp/out")"
}
# (reached early on a slow machine or under the sanitizers: the pace check below)
expect_limit time "^fusionplan: exact planner gave up on 'inception_v3' at beta 2097152 B: time limit of 0.5 s reached.* (.*); raise --time-limit" \
  --scheme brr --time-limit 0.5
# A run whose pace projects it past four times the limit stops once an
# eighth of the limit is spent (NasNet-A at 256 KB: about 70 s at the pace
# of its first states, against 4 x 2 s), saying so.
"$fp" plan --model nasnet_a --buffer 256KB --search exact --quiet --time-limit 2 >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] || bad "early stop: exit $rc, stderr: $(cat "$tmp/err")"
grep -q "^fusionplan: exact planner gave up on 'nasnet_a' at beta 262144 B: time limit of 2 s reached early (at this pace the run would take about [0-9]* s; .*); raise --time-limit" "$tmp/err" ||
  bad "early stop: $(cat "$tmp/err")"
expect_limit memory "memory limit of 0.1 MB reached (.* MB of states, .* MB of cost memo); raise --memory-limit" \
  --memory-limit 64KB
expect_limit candidates "more than 2000 candidate groups (reached .*); raise --max-candidates" \
  --max-candidates 2000
expect_limit states "more than 100 states (reached 100 states, .*); raise --max-states" --max-states 100
"$fp" plan --model resnet18 --search exact --max-states 0 --quiet >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q -- '--max-states must be between 1 and 2147483646, got 0' "$tmp/err" \
  || bad "--max-states 0: $(cat "$tmp/err")"
# Past a limit the line also gives certified bounds with the gap (issue 17 item 4).
"$fp" plan --model inception_v3 --buffer 2MB --search exact --quiet --max-candidates 2000 \
  >/dev/null 2>"$tmp/err"
grep -Eq 'certified bounds: the optimum \(DRAM over fusable ops\) is in \[[0-9]+, [0-9]+\] B \(upper: (the block plan|the greedy plan|NSGA-II seeded with (the better of the block and greedy plans|the DP.s best state, completed exactly)|the DP.s best state, completed exactly)(, polished)?(, separators)?(, (open pieces|the whole plan) polished \(([0-9]+-op windows(, [0-9]+ given up)?|until the deadline)\))?; lower: (blocks|windows of [0-9]+ ops( \(cheap ones grown\))?, [0-9]+ halved past the limits, [0-9]+ of [0-9]+ solved|the DP.s frontier|separators [0-9]+/[0-9]+, windows)\), a plan at the upper bound is within [0-9.]+% of it \([0-9]+ blocks, [0-9]+ solved exactly\)$' "$tmp/err" \
  || bad "no certified bounds: $(cat "$tmp/err")"
lo=$(sed 's/.*is in \[\([0-9]*\), \([0-9]*\)\].*/\1/' "$tmp/err")
hi=$(sed 's/.*is in \[\([0-9]*\), \([0-9]*\)\].*/\2/' "$tmp/err")
# The optimum at 2 MB (docs/results/exact.md, the exact planner without limits) lies between them.
[ "$lo" -le 27426747 ] && [ "$hi" -ge 27426747 ] || bad "bounds [$lo, $hi] miss the optimum 27426747"
# The upper bound is never above the greedy plan's DRAM.
g=$("$fp" plan --model inception_v3 --buffer 2MB --search greedy --quiet | sed -n 's/.*DRAM \([0-9,]*\) B fusable.*/\1/p' | tr -d ,)
[ -n "$g" ] && [ "$hi" -le "$g" ] || bad "upper bound $hi above the greedy plan's $g"

# --best-effort: the same limit ends in the best plan found, exit 0, with
# the bounds beside it; the plan is written, marked as not proven optimal,
# and validates. Where exact finishes, nothing changes.
"$fp" plan --model inception_v3 --buffer 2MB --search exact --quiet --max-candidates 2000 --best-effort \
  --no-progress -o "$tmp/be.json" >"$tmp/out" 2>"$tmp/err" || bad "--best-effort exited $?: $(cat "$tmp/err")"
grep -Eq 'exact-best-effort: DRAM ([0-9,]+) B fusable.*not proven optimal \(the exact planner stopped at a limit\): the optimum is in \[[0-9,]+, [0-9,]+\] B, this plan within [0-9.]+% of it' "$tmp/out" \
  || bad "--best-effort summary: $(cat "$tmp/out")"
u=$(sed -n 's/.*DRAM \([0-9,]*\) B fusable.*/\1/p' "$tmp/out" | tr -d ,)
[ -n "$u" ] && [ "$u" -le "$hi" ] && [ "$u" -ge 27426747 ] || bad "--best-effort plan $u: not within [27426747, $hi]"
grep -q '"algorithm": "exact-best-effort"' "$tmp/be.json" || bad "--best-effort JSON: not marked"
"$fp" validate "$tmp/be.json" --buffer 2MB >/dev/null 2>"$tmp/err" || bad "--best-effort plan does not validate: $(cat "$tmp/err")"
"$fp" plan --model resnet18 --buffer 256KB --search exact --best-effort --quiet --no-progress >"$tmp/out" 2>&1 \
  && grep -q 'resnet18 256 KB lbdf exact: ' "$tmp/out" && ! grep -q 'not proven' "$tmp/out" \
  || bad "--best-effort where exact finishes: $(cat "$tmp/out")"
"$fp" plan --model resnet18 --search local --best-effort --quiet >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q -- '--best-effort applies to --search exact' "$tmp/err" || bad "--best-effort with local: $(cat "$tmp/err")"

# --seed-plans: local/nsga2 only, known names only.
"$fp" plan --model resnet18 --search greedy --seed-plans greedy --quiet >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q 'seed-plans applies to --search local or nsga2' "$tmp/err" \
  || bad "--seed-plans with greedy: $(cat "$tmp/err")"
"$fp" plan --model resnet18 --search local --seed-plans greedy,bogus --quiet >/dev/null 2>"$tmp/err"
[ $? -ne 0 ] && grep -q "unknown seed plan 'bogus'" "$tmp/err" || bad "--seed-plans bogus: $(cat "$tmp/err")"
"$fp" plan --model resnet18 --buffer 256KB --search local --budget 50 --seed-plans blocks --quiet \
  --compare-exact --no-progress >"$tmp/out" 2>&1 || bad "--seed-plans blocks exited $?"
grep -q 'DRAM 3,[0-9,]* B fusable' "$tmp/out" || bad "--seed-plans blocks: $(cat "$tmp/out")"


# --compare-exact reports the limit and still prints the search's plan.
"$fp" plan --model inception_v3 --buffer 2MB --search greedy --compare-exact --max-candidates 2000 \
  --quiet >"$tmp/out" 2>"$tmp/err" || bad "--compare-exact with a limit exited $?"
grep -q 'no exact optimum to compare with: .*more than 2000 candidate groups' "$tmp/err" \
  || bad "--compare-exact limit message: $(cat "$tmp/err")"
grep -q 'inception_v3 2 MB lbdf greedy: DRAM' "$tmp/out" || bad "--compare-exact lost the plan"
# ... and bounds the gap by a certified lower bound instead: greedy's DRAM
# over it, which is below the optimum (27,426,747 B), so the bound printed
# is at least the true gap.
grep -q 'the gap printed is against a certified lower bound' "$tmp/err" || bad "--compare-exact: no bound: $(cat "$tmp/err")"
pct=$(sed -n 's/.*; gap to optimum at most \([0-9.]*\)% (certified).*/\1/p' "$tmp/out")
[ -n "$pct" ] && awk -v p="$pct" -v g="$g" 'BEGIN { exit !(p >= 100 * (g - 27426747) / 27426747) }' \
  || bad "--compare-exact certified gap '$pct' below the true gap of greedy ($g B)"

# Within the limits the plan is the same as without them.
"$fp" plan --model resnet18 --buffer 128KB --search exact --quiet -o "$tmp/a.json" >/dev/null 2>&1 \
  || bad "resnet18 exact exited $?"
"$fp" plan --model resnet18 --buffer 128KB --search exact --quiet -o "$tmp/b.json" --time-limit 0 \
  --memory-limit 0 --max-candidates 100000 >/dev/null 2>&1 || bad "resnet18 exact with limits exited $?"
cmp -s "$tmp/a.json" "$tmp/b.json" || bad "limits changed the plan"

# Bad values: one usage line, exit 2.
usage() {
  "$fp" plan --model resnet18 --search exact --quiet "$@" >/dev/null 2>"$tmp/err"
  local rc=$?
  [ "$rc" -eq 2 ] || bad "'$*' exited $rc, expected 2"
  [ "$(wc -l <"$tmp/err")" -eq 1 ] || bad "'$*': stderr is not one line"
}
usage --time-limit -1
usage --time-limit abc
usage --time-limit nan
usage --memory-limit lots
usage --memory-limit -5MB
usage --max-candidates 0
usage --max-candidates 12x
"$fp" plan --model resnet18 --search greedy --time-limit 5 >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q 'apply to --search exact, --compare-exact or --seed-plans' "$tmp/err" \
  || bad "limits without the exact planner: $(cat "$tmp/err")"

# --split exact: the optimal split of each invalid group; the same plan with 1 and 2 threads.
for t in 1 2; do
  "$fp" plan --model mobilenet_v2 --buffer 128KB --search local --budget 300 --split exact \
    --threads $t --quiet --no-progress -o "$tmp/x$t.json" >"$tmp/sx$t" 2>/dev/null || bad "--split exact exited $?"
done
cmp -s "$tmp/x1.json" "$tmp/x2.json" || bad "--split exact differs between 1 and 2 threads"
grep -q 'exact split' "$tmp/sx1" || bad "--split exact summary: $(cat "$tmp/sx1")"
"$fp" plan --model resnet18 --search local --split bogus >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "use random, tree or exact" "$tmp/err" || bad "--split bogus: $(cat "$tmp/err")"
exit $fail
