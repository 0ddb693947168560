#!/bin/bash
# Every subcommand with bad options: an unknown option, every option that
# takes a value given without one, and for every numeric or size option
# values that are not numbers, negative, absurdly large or wrongly sized.
# Each must exit 2 with exactly one line on stderr, nothing on stdout and
# no file written. The options are read from each command's --help, so a
# new option is covered without editing this test.
set -u
fp=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
cases=0
bad() { echo "FAIL: $*"; fail=1; }
work="$tmp/cwd"
mkdir "$work"

expect_usage() { # command, args...
  cases=$((cases + 1))
  (cd "$work" && timeout 60 "$fp" "$@" >"$tmp/out" 2>"$tmp/err")
  local rc=$?
  if [ $rc -ne 2 ]; then
    bad "fusionplan $*: exit $rc, expected 2: $(head -c 200 "$tmp/err")"
  elif [ "$(wc -l <"$tmp/err")" -ne 1 ]; then
    bad "fusionplan $*: stderr has $(wc -l <"$tmp/err") lines: $(head -c 300 "$tmp/err")"
  fi
  [ -s "$tmp/out" ] && bad "fusionplan $*: printed on stdout"
  if [ -n "$(ls -A "$work")" ]; then
    bad "fusionplan $*: wrote $(ls -A "$work")"
    rm -rf "${work:?}"/* "$work"/.[!.]* 2>/dev/null
  fi
}

commands=$("$fp" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { on = 0 }')
[ "$(echo "$commands" | wc -w)" -ge 12 ] || bad "fusionplan --help lists only: $commands"
with_values=0
for c in $commands; do
  sub=()
  [ "$c" = bench ] && sub=(search)
  expect_usage "$c" "${sub[@]}" --no-such-option
  expect_usage "$c" "${sub[@]}" --no-such-option=1
  # "  --name METAVAR   help": options that take a value.
  "$fp" "$c" "${sub[@]}" --help | awk '/^  --[a-z]/ && NF >= 2 && $2 ~ /^[A-Z]/ { print $1, $2 }' >"$tmp/opts"
  # Commands whose options are all flags (conformance) have no value to
  # spoil; the count below keeps the parse of --help itself honest.
  [ -s "$tmp/opts" ] && with_values=$((with_values + 1))
  while read -r opt meta; do
    expect_usage "$c" "${sub[@]}" "$opt"           # missing value
    expect_usage "$c" "${sub[@]}" "$opt="          # empty value
    expect_usage "$c" "${sub[@]}" "$opt" x "$opt" x # given twice
    case $meta in
      N | K | S | T | SEED | SEEDS | COUNT | EPOCHS | BUDGET)
        for v in abc 1.5 -1 99999999999999999999999 1e400 ' 3'; do
          expect_usage "$c" "${sub[@]}" "$opt" "$v"
        done ;;
      SIZE)
        for v in 12XB -5KB 0KB lots 99999999999TB 1KB/s; do
          expect_usage "$c" "${sub[@]}" "$opt" "$v"
        done ;;
    esac
  done <"$tmp/opts"
done
n_commands=$(echo "$commands" | wc -w)
[ "$with_values" -ge $((n_commands - 1)) ] ||
  bad "only $with_values of $n_commands commands show an option with a value in --help"
echo "$cases bad command lines tried"
exit $fail
