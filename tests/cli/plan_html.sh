#!/bin/bash
# The HTML pages (planner/io/plan_html.c, DESIGN §20) in a real browser:
# headless Chromium from Debian loads each kind of page from a file URL with
# the network off (proxy to a closed port, every host unresolvable, and the
# page's own Content-Security-Policy), must log nothing to the console, and
# its DOM must hold every op and group of the plan, equal to the plan JSON
# (tests/tools/html_check.py). The page checks without a browser run first;
# without Chromium (Debian: apt install chromium) the rest is skipped (77).
set -u
fp=$1
src=$2
py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# Pages: a plan (by extension and by --format), a curve with its slider.
"$fp" plan --model resnet50 --quiet -o "$tmp/r50.html" >/dev/null 2>"$tmp/err" || bad "plan -o html: $(cat "$tmp/err")"
"$fp" plan --model resnet50 --quiet -o "$tmp/r50.json" >/dev/null 2>&1 || bad "plan -o json"
"$fp" plan --model resnet50 --quiet --format html -o "$tmp/r50.page" >/dev/null 2>&1 || bad "plan --format html"
cmp -s "$tmp/r50.html" "$tmp/r50.page" || bad "--format html and .html differ"
"$fp" plan --model resnet50 --quiet -o "$tmp/again.html" >/dev/null 2>&1
cmp -s "$tmp/r50.html" "$tmp/again.html" || bad "two runs give different pages"
"$fp" plan --model squeezenet1_1 --buffer 128KB --quiet -o "$tmp/sq.html" >/dev/null 2>&1 || bad "plan squeezenet1_1 -o html"
"$fp" plan --model squeezenet1_1 --buffer 128KB --quiet -o "$tmp/sq.json" >/dev/null 2>&1 || bad "plan squeezenet1_1 -o json"
"$fp" curve --model squeezenet1_1 --min 64KB --max 1MB --html "$tmp/curve.html" --json "$tmp/curve-steps.json" \
  >/dev/null 2>"$tmp/err" || bad "curve --html: $(cat "$tmp/err")"
n_steps=$("$py" -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["points"]))' "$tmp/curve-steps.json")
[ "$(grep -c '<script type="application/json" id="fp-plan-' "$tmp/curve.html")" = "$n_steps" ] ||
  bad "curve --html: not one plan per step of the curve's $n_steps"
# Report pages: compare's and sweep-report's tables and budget curves.
"$fp" compare --model squeezenet1_1 --buffer 128KB --budget 60 --seeds 2 --search ls,rs --proposer none \
  --quiet --html "$tmp/cmp.html" >/dev/null 2>"$tmp/err" || bad "compare --html: $(cat "$tmp/err")"
"$fp" sweep --models squeezenet1_1 --buffers 128KB --proposers none --seeds 2 --budget 60 -o "$tmp/sw.jsonl" \
  >/dev/null 2>&1 || bad "sweep"
"$fp" sweep-report "$tmp/sw.jsonl" --html "$tmp/swr.html" >/dev/null 2>"$tmp/err" || bad "sweep-report --html: $(cat "$tmp/err")"
"$fp" curve --model squeezenet1_1 --min 64KB --max 1MB --objective latency --html "$tmp/curvel.html" \
  >/dev/null 2>"$tmp/err" || bad "curve --objective latency --html: $(cat "$tmp/err")"
pages="r50 sq curve curvel cmp swr"
for p in $pages; do  # the data blocks parse, the plan is the JSON export's, nothing outside
  [ -f "$tmp/$p.json" ] && plan=$tmp/$p.json || plan=
  "$py" "$src/tests/tools/html_check.py" --static "$tmp/$p.html" $plan || fail=1
done

command -v chromium >/dev/null 2>&1 || { [ $fail = 0 ] && { echo "skipped: no chromium to load the pages in (Debian: apt install chromium)"; exit 77; }; exit 1; }
"$py" -c 'import html.parser, json' 2>/dev/null || { echo "skipped: no $py"; exit 77; }
chrome() {  # page -> DOM after its script ran, console messages to $tmp/console
  HOME=$tmp timeout 120 chromium --headless --no-sandbox --disable-gpu --no-first-run \
    --user-data-dir="$tmp/profile" --proxy-server=127.0.0.1:9 --host-resolver-rules='MAP * ~NOTFOUND' \
    --enable-logging=stderr --v=0 --window-size=1400,1000 "$@" 2>"$tmp/console"
}
for p in $pages; do
  chrome --dump-dom "file://$tmp/$p.html" >"$tmp/$p.dom" || bad "$p: chromium failed: $(tail -2 "$tmp/console")"
  grep -a 'CONSOLE' "$tmp/console" && bad "$p: the page logged to the console"
  [ -f "$tmp/$p.json" ] && plan=$tmp/$p.json || plan=
  "$py" "$src/tests/tools/html_check.py" "$tmp/$p.dom" "$tmp/$p.html" $plan || fail=1
done
exit $fail
