#!/bin/bash
# Messages that must not lie or spill (issue 41, item 7): a failed write says
# nothing about files it rolled back and prints no report on stdout; an empty
# conformance folder is an error and a single case folder runs that case; a
# folder given as a model, a model without an opset import and a too-large
# initializer are each named once with the reason; --no-rewrite's help lists
# every rewrite the importer knows, and an unknown one gets one hint.
set -u
fp=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
d="$src/tests/data/onnx"

expect_error() { # needle, args...: exit 2, one line containing needle, empty stdout
  local needle=$1
  shift
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
    head -3 "$tmp/out"
    fail=1
  fi
}

# sweep-buffer: /dev/full fails the batch; the charts are rolled back and not claimed.
if [ -w /dev/full ]; then
  mkdir "$tmp/D"
  "$fp" sweep-buffer --models squeezenet1_1 --from 128KB --to 256KB --budget 20 --samples 20 \
    --output /dev/full --svg "$tmp/D/x.svg" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  [ "$rc" -eq 2 ] || { echo "FAIL: sweep-buffer --output /dev/full exits $rc, want 2"; fail=1; }
  if grep -q "wrote" "$tmp/err" || [ -n "$(ls "$tmp/D")" ]; then
    echo "FAIL: sweep-buffer --output /dev/full claims or leaves the charts:"
    cat "$tmp/err"; ls "$tmp/D"; fail=1
  fi
  grep -q "cannot write /dev/full: no space left on device" "$tmp/err" ||
    { echo "FAIL: sweep-buffer --output /dev/full: no reason"; cat "$tmp/err"; fail=1; }
  # A successful run names both charts once written.
  "$fp" sweep-buffer --models squeezenet1_1 --from 128KB --to 256KB --budget 20 --samples 20 \
    --output "$tmp/D/o.md" --svg "$tmp/D/x.svg" >"$tmp/out" 2>"$tmp/err" &&
    grep -qxF "wrote $tmp/D/x.svg and $tmp/D/x-valid.svg" "$tmp/err" && [ -s "$tmp/D/x-valid.svg" ] ||
    { echo "FAIL: sweep-buffer --svg: no 'wrote' line for both charts"; cat "$tmp/err"; fail=1; }

  # split --dot /dev/full: one error line, no report on stdout.
  expect_error "cannot write /dev/full" split --model squeezenet1_1 --buffer 32KB --group 3-12 --dot /dev/full
  "$fp" split --model squeezenet1_1 --buffer 32KB --group 3-12 --dot "$tmp/s.dot" >"$tmp/out" 2>"$tmp/err" &&
    [ -s "$tmp/out" ] && [ -s "$tmp/s.dot" ] || { echo "FAIL: split --dot FILE"; cat "$tmp/err"; fail=1; }
fi

# conformance: an empty folder is an error; a case folder is that one case.
mkdir "$tmp/empty"
expect_error "empty: no test cases" conformance "$tmp/empty"
expect_error "model.onnx: not a folder" conformance "$d/conformance/channel_shuffle/model.onnx"
for c in "$d/conformance/channel_shuffle" "$d/conformance/channel_shuffle/"; do
  "$fp" conformance "$c" >"$tmp/out" 2>"$tmp/err" && grep -q "^total: 1 cases, 1 pass, 0 fail" "$tmp/out" ||
    { echo "FAIL: conformance $c (a single case folder)"; cat "$tmp/out" "$tmp/err"; fail=1; }
done

# Models that are not models, and reasons named once.
expect_error "empty: is a directory" import "$tmp/empty"
expect_error "empty: is a directory" plan --onnx "$tmp/empty"
expect_error "no_opset.onnx: the model has no opset import for the default domain" import "$d/no_opset.onnx"
expect_error "huge_initializer.onnx: tensor 'W': tensor of too many elements" import "$d/huge_initializer.onnx"
n=$(grep -o "huge_initializer.onnx" "$tmp/err" | wc -l)
[ "$n" -eq 1 ] || { echo "FAIL: the file is named $n times:"; cat "$tmp/err"; fail=1; }

# --no-rewrite: the error lists the importer's rewrites (from its table);
# every one must be in the help, and the hint is given once.
expect_error "unknown rewrite 'bogus' (known: " import "$d/tiny.onnx" --no-rewrite bogus
names=$(sed -n "s/.*(known: \([^)]*\)).*/\1/p" "$tmp/err" | tr -d ' ' | tr ',' ' ')
[ "$(echo $names | wc -w)" -ge 12 ] || { echo "FAIL: known rewrites: '$names'"; fail=1; }
n=$(grep -o "see '" "$tmp/err" | wc -l)
[ "$n" -eq 1 ] || { echo "FAIL: the hint is given $n times:"; cat "$tmp/err"; fail=1; }
for cmd in import info plan; do
  "$fp" $cmd --help >"$tmp/help" 2>&1
  for r in $names; do
    grep -q -- "$r" "$tmp/help" || { echo "FAIL: $cmd --help does not list rewrite '$r'"; fail=1; }
  done
done

[ $fail -eq 0 ] && echo "all message checks passed"
exit $fail
