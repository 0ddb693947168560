#!/bin/bash
# Plan pictures (issue 16 item 4): -o plan.svg / plan.png drawn by Graphviz
# `dot` (one cluster per group, filled by F_beta / beta, unfusable ops gray
# and dashed); without dot on PATH, one clear line and no file. The drawing
# checks skip (exit 77) when Graphviz is not installed.
set -u
fp=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# Without Graphviz (an empty PATH): exit 1, one line naming the fix, nothing written.
PATH="$tmp/none" "$fp" plan --model resnet18 --quiet -o "$tmp/none.svg" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] || bad "without dot: exit $rc"
[ "$(cat "$tmp/err")" = "fusionplan: cannot draw the plan as svg: Graphviz 'dot' is not installed (Debian: apt install graphviz); write a .dot file instead" ] ||
  bad "without dot: $(cat "$tmp/err")"
[ ! -e "$tmp/none.svg" ] || bad "without dot: a file was left behind"
ls "$tmp" | grep -q tmp && bad "without dot: a temporary was left behind"

if ! command -v dot >/dev/null 2>&1; then
  [ $fail -eq 0 ] || exit 1
  echo "skipped: Graphviz 'dot' is not installed (apt install graphviz); the no-dot message was checked"
  exit 77
fi

"$fp" plan --model resnet18 --buffer 64KB -o "$tmp/p.json" --quiet >/dev/null 2>&1
"$fp" plan --model resnet18 --buffer 64KB -o "$tmp/p.svg" --quiet >"$tmp/out" 2>"$tmp/err" || bad "plan -o p.svg exited $?: $(cat "$tmp/err")"
groups=$(grep -m1 '"groups":' "$tmp/p.json" | tr -dc 0-9)
unf=$(grep -m1 '"unfusable": [0-9]' "$tmp/p.json" | tr -dc 0-9)
[ "$(grep -c '<g id="clust' "$tmp/p.svg")" -eq $((groups + unf)) ] || bad "clusters: $(grep -c '<g id="clust' "$tmp/p.svg") for $groups groups and $unf unfusable"
[ "$(grep -c '<text[^>]*>group [0-9]* (1 op): unfusable</text>' "$tmp/p.svg")" -eq "$unf" ] || bad "unfusable clusters not marked"
grep -q 'stroke-dasharray' "$tmp/p.svg" || bad "no dashed (unfusable) outline"
grep -q 'group fill: F_beta / beta' "$tmp/p.svg" || bad "no colour legend"
# The heat colours: group 0 (F_beta 46432 of 65536 B) is filled #f5b879.
grep -q 'fill="#f5b879"' "$tmp/p.svg" || bad "group 0 not filled by F_beta / beta"
"$fp" plan --model resnet18 -o "$tmp/p.png" --quiet >/dev/null 2>&1 || bad "plan -o p.png exited $?"
[ "$(head -c 8 "$tmp/p.png" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] || bad "p.png is not a PNG"
"$fp" plan --model resnet18 -o "$tmp/pic" --format svg --quiet >/dev/null 2>&1 || bad "--format svg exited $?"
head -1 "$tmp/pic" | grep -q '^<?xml' || bad "--format svg: $(head -c 80 "$tmp/pic")"
exit $fail
