#!/bin/bash
# Bad input to the CLI: each case must print exactly one line on stderr that
# names the problem, exit with status 2, print nothing on stdout and leave no
# output file behind.
set -u
fp=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

expect_error() { # needle, args...
  local needle=$1
  shift
  rm -f "$tmp/plan.json"
  "$fp" "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$? lines
  lines=$(wc -l <"$tmp/err")
  if [ "$rc" -ne 2 ] || [ "$lines" -ne 1 ] || ! grep -qF -- "$needle" "$tmp/err"; then
    echo "FAIL: fusionplan $*"
    echo "  status $rc (want 2), stderr ($lines lines, want 1 containing '$needle'):"
    sed 's/^/    /' "$tmp/err"
    fail=1
  fi
  if [ -s "$tmp/out" ]; then
    echo "FAIL: fusionplan $*: printed on stdout"
    fail=1
  fi
  if [ -e "$tmp/plan.json" ] || ls "$tmp" | grep -q '\.tmp'; then
    echo "FAIL: fusionplan $*: left an output file"
    fail=1
  fi
}

hw="$src/tests/data/hw"
out=(-o "$tmp/plan.json")
expect_error "not-well-formed.xml:" plan --hw "$hw/not-well-formed.xml" "${out[@]}"
expect_error "wrong-root.xml:" plan --hw "$hw/wrong-root.xml" "${out[@]}"
expect_error "missing-buffer.xml:" plan --hw "$hw/missing-buffer.xml" "${out[@]}"
expect_error "negative-size.xml:" plan --hw "$hw/negative-size.xml" "${out[@]}"
expect_error "unitless-size.xml:" plan --hw "$hw/unitless-size.xml" "${out[@]}"
expect_error "unknown-unit.xml:" plan --hw "$hw/unknown-unit.xml" "${out[@]}"
expect_error "empty.xml" plan --hw "$hw/empty.xml" "${out[@]}"
expect_error "no-such-file.xml" plan --hw "$tmp/no-such-file.xml" "${out[@]}"
expect_error "--buffer" plan --buffer 256 "${out[@]}"
expect_error "--buffer" plan --buffer -5KB "${out[@]}"
expect_error "--buffer" plan --buffer lots "${out[@]}"
expect_error "unknown model 'resnet9'" plan --model resnet9 "${out[@]}"
expect_error "unknown option '--bogus'" plan --bogus "${out[@]}"
expect_error "unknown --search 'magic'" plan --search magic "${out[@]}"
expect_error "unknown --scheme 'xyz'" plan --scheme xyz "${out[@]}"
expect_error "--input-size must be between" plan --input-size 0 "${out[@]}"
expect_error "--input-size expects an integer" plan --input-size 2x "${out[@]}"
expect_error "needs a value" plan --model
expect_error "given twice" plan --model resnet18 --model vgg16
expect_error "cannot tell the plan format of" plan -o "$tmp/plan.txt"
expect_error "unexpected argument" plan resnet50
expect_error "unknown command 'plna'" plna
expect_error "--group is required" cost --model resnet18
expect_error "no op 'nonsense'" cost --model resnet18 --group nonsense
expect_error "is a graph input" cost --model resnet18 --group input
expect_error "--proposer needs --split tree" plan --search local --proposer all
expect_error "unknown --split 'magic'" plan --search local --split magic
expect_error "--split applies to" plan --search greedy --split tree
expect_error "unknown split 'tree-nope'" bench search --splits tree-nope
expect_error "unknown --objectives 'speed'" plan --search nsga2 --objectives speed
expect_error "--objectives needs --search nsga2" plan --search local --objectives dram
expect_error "missing-dir" plan --model resnet18 -o "$tmp/missing-dir/plan.json"

# No command at all: usage on stderr, status 2.
"$fp" >/dev/null 2>&1
[ $? -eq 2 ] || { echo "FAIL: no command should exit 2"; fail=1; }

exit $fail
