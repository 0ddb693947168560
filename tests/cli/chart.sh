#!/bin/bash
# fusionplan chart: a Markdown table as the reproduce scripts write it and a
# CSV with --by give the expected lines and labels; bad tables and options
# are one-line errors with exit status 2 that write nothing.
set -u
fp=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

cat >"$tmp/fig.md" <<'MD'
## Figure 10

| alpha | time after (us) | graphs expanded | search s |
|---:|---:|---:|---:|
| 1.0 | 1,234.5 | 10 | 0.5 |
| 1.05 | 1,100 | 20 | 1.0 |
| 1.2 | 1,050 | - | 2.0 |
MD
"$fp" chart "$tmp/fig.md" --x alpha --y "time after (us),search s" --title "Fig. 10" \
  -o "$tmp/fig.svg" >"$tmp/out" 2>"$tmp/err" || bad "chart exited $?: $(cat "$tmp/err")"
grep -q "fig.svg: 2 lines from 3 rows of" "$tmp/out" || bad "summary: $(cat "$tmp/out")"
[ "$(grep -o '<polyline' "$tmp/fig.svg" | wc -l)" = 2 ] || bad "expected two polylines"
grep -q '>Fig. 10<' "$tmp/fig.svg" || bad "no title"
grep -q '>search s<' "$tmp/fig.svg" || bad "no legend entry for 'search s'"
# the same input gives the same bytes
"$fp" chart "$tmp/fig.md" --x alpha --y "time after (us),search s" --title "Fig. 10" \
  -o "$tmp/fig2.svg" >/dev/null 2>&1
cmp -s "$tmp/fig.svg" "$tmp/fig2.svg" || bad "output not deterministic"

printf 'net,k,cost\nresnet,5,10\nsru,5,3\nresnet,10,8\nsru,10,2\n' >"$tmp/k.csv"
"$fp" chart "$tmp/k.csv" --x k --y cost --by net --log2-y -o "$tmp/k.svg" >"$tmp/out" 2>&1 \
  || bad "chart --by exited $?: $(cat "$tmp/out")"
[ "$(grep -o '<polyline' "$tmp/k.svg" | wc -l)" = 2 ] || bad "--by: expected two lines"
grep -q '>resnet<' "$tmp/k.svg" && grep -q '>sru<' "$tmp/k.svg" || bad "--by: legend labels"

# errors: one line, exit 2, no file
expect_error() { # pattern, then the arguments
  local pattern=$1
  shift
  "$fp" chart "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  [ $rc = 2 ] || bad "chart $*: exit $rc, expected 2"
  [ "$(wc -l <"$tmp/err")" = 1 ] || bad "chart $*: $(wc -l <"$tmp/err") error lines"
  grep -q -- "$pattern" "$tmp/err" || bad "chart $*: '$(cat "$tmp/err")' lacks '$pattern'"
  [ ! -e "$tmp/x.svg" ] || bad "chart $*: wrote a file"
}
printf 'a,b\n1,x\n' >"$tmp/text.csv"
printf 'a,b\n1,"x\n' >"$tmp/quote.csv"
expect_error "text.csv:2: column 'b': 'x' is not a number" "$tmp/text.csv" --x a --y b -o "$tmp/x.svg"
expect_error "quote.csv:2: unterminated quoted cell" "$tmp/quote.csv" --x a --y b -o "$tmp/x.svg"
expect_error "no column 'nope'" "$tmp/k.csv" --x k --y nope -o "$tmp/x.svg"
expect_error "missing.csv" "$tmp/missing.csv" --y b -o "$tmp/x.svg"
expect_error "--y COLUMNS is required" "$tmp/k.csv" -o "$tmp/x.svg"
expect_error "-o FILE is required" "$tmp/k.csv" --y cost
expect_error "no table file" --y cost -o "$tmp/x.svg"
expect_error "does not exist" "$tmp/k.csv" --y cost -o "$tmp/no/x.svg"
exit $fail
