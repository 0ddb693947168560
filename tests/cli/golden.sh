#!/bin/bash
# Golden CLI output (DESIGN §15): each case of tests/golden/cases is run and
# its stdout compared byte for byte with tests/golden/NAME.txt, the plan
# summary's wall time masked. LF_GOLDEN_UPDATE=1 rewrites the files instead
# (then review `git diff tests/golden`).
set -u
fp=$1
src=$2
dir="$src/tests/golden"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
n=0
while read -r name args; do
  case "$name" in ''|'#'*) continue ;; esac
  n=$((n + 1))
  # shellcheck disable=SC2086 # the arguments are words on purpose
  if ! "$fp" $args >"$tmp/raw" 2>"$tmp/err"; then
    echo "FAIL: $name: fusionplan $args exited non-zero: $(head -1 "$tmp/err")"
    fail=1
    continue
  fi
  sed -E 's/; wall [0-9]+\.[0-9]+ s/; wall - s/' "$tmp/raw" >"$tmp/out"
  if [ "${LF_GOLDEN_UPDATE:-0}" = 1 ]; then
    cp "$tmp/out" "$dir/$name.txt"
    echo "updated tests/golden/$name.txt"
  elif [ ! -f "$dir/$name.txt" ]; then
    echo "FAIL: $name: tests/golden/$name.txt is missing (LF_GOLDEN_UPDATE=1 writes it)"
    fail=1
  elif ! cmp -s "$tmp/out" "$dir/$name.txt"; then
    echo "FAIL: $name: fusionplan $args differs from tests/golden/$name.txt:"
    diff "$dir/$name.txt" "$tmp/out" | head -20
    fail=1
  fi
done <"$dir/cases"
[ "$n" -gt 0 ] || { echo "FAIL: no cases in $dir/cases"; fail=1; }
[ $fail -eq 0 ] && echo "ok: $n golden outputs"
exit $fail
