#!/bin/bash
# fusionplan rules (and, once it exists, optimize): every rule listed and
# verified, TASO's rule file loaded and mapped, one-line errors on bad input.
set -u
fp=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
taso="$src/../shared/data/taso/graph_subst.pb"

"$fp" rules --verify --model inception_v3 >"$tmp/r" || fail=1
if ! grep -q '^conv_relu  *metaflow  *2  *1  *94 ' "$tmp/r"; then
  echo "FAIL: rules lists no conv_relu row with 94 matches in inception_v3"; cat "$tmp/r"; fail=1
fi
if ! grep -q '^taso_conv_mul FAIL example 0: output .out. differs' "$tmp/r"; then
  echo "FAIL: TASO's conv_mul does not fail verification"; fail=1
fi
if ! grep -q '^22 rules verified: 21 ok, 1 failed (disabled): taso_conv_mul$' "$tmp/r"; then
  echo "FAIL: verification summary"; tail -3 "$tmp/r"; fail=1
fi
if [ "$(grep -c ' ok$' "$tmp/r")" -ne 21 ]; then
  echo "FAIL: not one ok line per passing rule"; fail=1
fi

if [ -f "$taso" ]; then
  "$fp" rules --rules builtin,taso --taso-file "$taso" --verify >"$tmp/t" || fail=1
  if ! grep -q '^129 rules: 22 built in, 107 of the 133 in TASO.s rule file (26 not mapped: 10 use SPLIT, 16 compute a conv weight in the source, 0 other)$' "$tmp/t"; then
    echo "FAIL: TASO rule counts"; head -1 "$tmp/t"; fail=1
  fi
  if ! grep -q '^129 rules verified: 128 ok, 1 failed (disabled): taso_conv_mul$' "$tmp/t"; then
    echo "FAIL: TASO verification summary"; tail -1 "$tmp/t"; fail=1
  fi
fi

# Bad input: one line naming the file, exit 2, nothing on stdout.
printf 'not a protobuf \377\377\377' >"$tmp/bad.pb"
if "$fp" rules --rules taso --taso-file "$tmp/bad.pb" >"$tmp/o" 2>"$tmp/e"; then
  echo "FAIL: a corrupt rule file is accepted"; fail=1
fi
if [ "$(wc -l <"$tmp/e")" -ne 1 ] || ! grep -q "bad.pb" "$tmp/e" || [ -s "$tmp/o" ]; then
  echo "FAIL: corrupt rule file error"; cat "$tmp/e" "$tmp/o"; fail=1
fi
if "$fp" rules --rules builtin,nonsense >/dev/null 2>"$tmp/e"; then
  echo "FAIL: an unknown rule source is accepted"; fail=1
fi
# optimize: cheaper, checked, written atomically, deterministic.
"$fp" optimize --model resnet18 --input-size 32 --budget 20 -o "$tmp/o.json" >"$tmp/opt" || fail=1
if ! grep -q '^kernels  *48.000  *39.000  *-18.75%$' "$tmp/opt"; then
  echo "FAIL: optimize resnet18 kernels before/after"; cat "$tmp/opt"; fail=1
fi
if ! grep -q '^check: the optimized graph.s outputs equal the original.s' "$tmp/opt" || [ ! -s "$tmp/o.json" ]; then
  echo "FAIL: optimize prints no check line or writes no JSON"; fail=1
fi
if [ -n "${LF_JSON_CHECK:-}" ]; then
  "$LF_JSON_CHECK" parse "$tmp/o.json" || { echo "FAIL: optimize JSON is not valid"; fail=1; }
  if [ "$("$LF_JSON_CHECK" length "$tmp/o.json" steps)" != 9 ] ||
     [ "$("$LF_JSON_CHECK" get "$tmp/o.json" steps/0/rule)" != conv_relu ]; then
    echo "FAIL: optimize JSON steps"; fail=1
  fi
fi
"$fp" optimize --model resnet18 --input-size 32 --budget 20 --threads 2 -o "$tmp/o2.json" >/dev/null || fail=1
if [ "$(sed 's/"[a-z]*_s": [0-9.e+-]*//g' "$tmp/o.json")" != "$(sed 's/"[a-z]*_s": [0-9.e+-]*//g' "$tmp/o2.json")" ]; then
  echo "FAIL: optimize differs between 1 and 2 threads"; fail=1
fi
# --dram: the exact fusion DRAM of both graphs next to any objective
"$fp" optimize --model resnet18 --input-size 32 --budget 5 --dram >"$tmp/d" || fail=1
if ! grep -q '^DRAM (bytes)  *[0-9]*\.000  *[0-9]*\.000 ' "$tmp/d"; then
  echo "FAIL: optimize --dram prints no DRAM row"; cat "$tmp/d"; fail=1
fi
node=/usr/share/libonnx-testdata/data/node
if [ -f "$node/test_sigmoid/model.onnx" ]; then
  "$fp" optimize --onnx "$node/test_sigmoid/model.onnx" -o "$tmp/none.json" >"$tmp/none" || fail=1
  if ! grep -q '^nothing to do' "$tmp/none" || [ -e "$tmp/none.json" ]; then
    echo "FAIL: optimize on a model no rule matches"; cat "$tmp/none"; fail=1
  fi
fi
if "$fp" optimize --model resnet18 --search nonsense >/dev/null 2>"$tmp/e"; then
  echo "FAIL: an unknown search is accepted"; fail=1
fi
if "$fp" optimize --model resnet18 --rules taso --taso-file "$tmp/bad.pb" -o "$tmp/x.json" >/dev/null 2>"$tmp/e" || [ -e "$tmp/x.json" ]; then
  echo "FAIL: optimize with a corrupt rule file"; fail=1
fi
# plan --optimize: the substitution optimizer as the first stage of planning. On resnet18 at 256 KB
# (LBDF, exact) fusing conv1 and six convs of layers 1, 3 and 4 with their ReLUs lowers the optimum
# from 14,622,032 to 14,220,624 B over all ops (docs/RESULTS.md).
"$fp" plan --model resnet18 --search exact --optimize backtrack --quiet -o "$tmp/po.json" >"$tmp/po" 2>"$tmp/e" ||
  { echo "FAIL: plan --optimize exited $?"; cat "$tmp/e"; fail=1; }
grep -q "^optimize: backtrack search, objective dram, .*: 7 rewrites, outputs equal to the original's.*the original graph's plan: DRAM 3,105,152 B fusable ops, 14,622,032 B all ops$" "$tmp/po" &&
  grep -q "^resnet18 256 KB lbdf exact: DRAM 2,703,744 B fusable ops (2.704 MB), 14,220,624 B all ops;" "$tmp/po" &&
  [ "$(grep -c '^  rewrite [0-9]*: conv_relu at ' "$tmp/po")" -eq 7 ] ||
  { echo "FAIL: plan --optimize figures"; cat "$tmp/po"; fail=1; }
# A graph no rule improves is planned as it is (0 rewrites, the same optimum).
"$fp" plan --model resnet18 --search exact --optimize backtrack --optimize-objective flops --quiet >"$tmp/pf" ||
  fail=1
grep -q ": 0 rewrites; the original graph's plan: DRAM 3,105,152 B fusable ops" "$tmp/pf" &&
  grep -q "DRAM 3,105,152 B fusable ops (3.105 MB), 14,622,032 B all ops" "$tmp/pf" ||
  { echo "FAIL: plan --optimize with nothing to gain"; cat "$tmp/pf"; fail=1; }
for bad in "--optimize nonsense" "--optimize-budget 5" "--optimize split --optimize-objective speed"; do
  # shellcheck disable=SC2086
  "$fp" plan --model resnet18 $bad -o "$tmp/bad.json" >/dev/null 2>"$tmp/e"
  rc=$?
  if [ $rc -ne 2 ] || [ "$(wc -l <"$tmp/e")" -ne 1 ] || [ -e "$tmp/bad.json" ]; then
    echo "FAIL: plan $bad: status $rc, $(wc -l <"$tmp/e") lines"; cat "$tmp/e"; fail=1
  fi
done
# bench subst: one table row per network, backtracking against exhaustive.
"$fp" bench subst --models inception_e --input-size 4 --budget 20 --enum-budget 30 >"$tmp/b" || fail=1
if ! grep -q '^| inception_e | 22 | [0-9.]* | [0-9.]* | 20 | ' "$tmp/b"; then
  echo "FAIL: bench subst row"; cat "$tmp/b"; fail=1
fi
exit $fail
