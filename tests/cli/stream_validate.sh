#!/bin/bash
# Stream 1.13.14's own MappingValidator (../shared/thirdparty, DESIGN §17)
# on the `-o mapping.yaml` of every built-in CNN whose ops Stream parses, and
# the mapping against the ONNX it names: the same node names, groups covering
# them in file order. The networks with an op Stream lacks get one warning
# line naming it. Skipped (77) with the reason when Stream's code or a Python
# module it needs (Debian: python3-cerberus python3-networkx python3-yaml
# python3-onnx) is missing.
set -u
fp=$1
src=$2
T=${LF_STREAM_THIRDPARTY:-$src/../shared/thirdparty}
tools=${LF_STREAM_TOOLS:-$src/../shared/tools/stream-check}
py=/usr/bin/python3
[ -d "$T/stream-28fb9011" ] && [ -f "$tools/head_validate.py" ] ||
  { echo "skipped: Stream's code is not in $T (set LF_STREAM_THIRDPARTY)"; exit 77; }
for mod in cerberus networkx yaml onnx; do
  "$py" -c "import $mod" 2>/dev/null || { echo "skipped: $py lacks the module $mod (Debian: apt install python3-$mod)"; exit 77; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
validate() { PYTHONPATH=$T/stream-28fb9011:$T/zigzag-3.8.5:$T/stream-stubs "$py" "$tools/head_validate.py" "$@"; }

# The networks Stream 1.13 parses: valid, no warning, covering the ONNX.
ok_nets="resnet18 resnet34 resnet50 resnet101 resnet152 resnext50_32x4d efficientnet_b0 efficientnet_b3 randwire"
cover_nets="resnet18 resnet50 efficientnet_b0 randwire"
# a sanitizer build checks the writer's memory on two networks; the Release pass checks them all
[ "${LF_SANITIZED:-OFF}" = ON ] && ok_nets="resnet18 efficientnet_b0" && cover_nets="resnet18 efficientnet_b0"
for m in $ok_nets; do
  "$fp" plan --model "$m" --quiet -o "$tmp/$m.yaml" >/dev/null 2>"$tmp/$m.err" || bad "plan $m -o yaml: $(cat "$tmp/$m.err")"
  grep -q warning "$tmp/$m.err" && bad "$m: $(cat "$tmp/$m.err")"
done
for m in $cover_nets; do
  "$fp" plan --model "$m" --quiet -o "$tmp/$m.onnx" >/dev/null 2>&1 || bad "plan $m -o onnx"
  "$py" "$src/tests/tools/stream_cover.py" "$tmp/$m.yaml" "$tmp/$m.onnx" >"$tmp/cover" 2>&1 || bad "$(tail -1 "$tmp/cover")"
done
# resnet18's exact optimum and layer-by-layer plans too (tiles of several rows under BRR)
"$fp" plan --model resnet18 --search exact --quiet -o "$tmp/r18x.yaml" >/dev/null 2>&1 || bad "plan resnet18 exact"
"$fp" plan --model resnet18 --scheme brr --search exact --quiet -o "$tmp/r18b.yaml" >/dev/null 2>&1 || bad "plan resnet18 brr"
"$fp" plan --model resnet18 --search layer --quiet -o "$tmp/r18l.yaml" >/dev/null 2>&1 || bad "plan resnet18 layer"
grep -q "tile: [1-9][0-9]*[0-9]}" "$tmp/r18b.yaml" || bad "resnet18 under BRR: no tile of several rows"
validate "$tmp"/*.yaml >"$tmp/v" 2>&1
n=$(ls "$tmp"/*.yaml | wc -l)
[ "$(grep -c '^valid: True$' "$tmp/v")" -eq "$n" ] || bad "Stream's validator: $(grep -B1 -A3 'valid: False\|CRASH' "$tmp/v" | head -8)"
[ "$(grep -c '^  - name: ' "$tmp/r18l.yaml")" -eq "$(grep -c '^  - name: ' "$tmp/r18x.yaml")" ] &&
  bad "resnet18: layer-by-layer and the optimum have as many groups"

# The networks with an op Stream 1.13 lacks: one warning line each op, naming it.
"$fp" plan --model squeezenet1_1 --buffer 128KB --quiet -o "$tmp/s.yaml" >/dev/null 2>"$tmp/err" || bad "plan squeezenet1_1"
[ "$(grep -c warning "$tmp/err")" -eq 1 ] &&
  grep -q "^fusionplan: warning: Stream 1.13 has no parser for Concat: 8 nodes ('features.3.cat' first)$" "$tmp/err" ||
  bad "squeezenet1_1 warning: $(cat "$tmp/err")"
grep -q "^# cannot express: Stream 1.13 has no parser for Concat" "$tmp/s.yaml" || bad "s.yaml does not say what Stream lacks"
"$fp" plan --model mobilenet_v2 --quiet -o "$tmp/mb.yaml" >/dev/null 2>"$tmp/err"
grep -q "^fusionplan: warning: Stream 1.13 has no parser for Clip: 35 nodes" "$tmp/err" || bad "mobilenet_v2: $(cat "$tmp/err")"
[ $fail -eq 0 ] && echo "ok: Stream 1.13's validator accepts $n mappings; the others name the op Stream lacks"
exit $fail
