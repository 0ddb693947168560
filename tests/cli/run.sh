#!/bin/bash
# fusionplan run and bench exec: output statistics, the same checksum for
# every thread count, a different one for another seed, and one-line errors.
set -u
fp=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

"$fp" run --model resnet18 --input-size 64 --threads 1 >"$tmp/t1" || fail=1
"$fp" run --model resnet18 --input-size 64 --threads 2 >"$tmp/t2" || fail=1
"$fp" run --model resnet18 --input-size 64 --seed 2 >"$tmp/s2" || fail=1
if ! grep -q '^output fc: shape 1x1000x1x1 .*checksum [0-9a-f]\{16\}$' "$tmp/t1"; then
  echo "FAIL: run prints no statistics line for fc"; cat "$tmp/t1"; fail=1
fi
if ! cmp -s "$tmp/t1" "$tmp/t2"; then
  echo "FAIL: run output differs between 1 and 2 threads"; diff "$tmp/t1" "$tmp/t2"; fail=1
fi
if [ "$(grep -o 'checksum.*' "$tmp/t1")" = "$(grep -o 'checksum.*' "$tmp/s2")" ]; then
  echo "FAIL: another seed gives the same checksum"; fail=1
fi
"$fp" run --model mobilenet_v2 --input-size 64 --inputs >"$tmp/in" || fail=1
if ! grep -q '^input [a-z_.0-9]*: shape 1x3x64x64 ' "$tmp/in"; then
  echo "FAIL: --inputs prints no input line"; cat "$tmp/in"; fail=1
fi

# alone and next to a spinning co-runner: four rows, one checksum
"$fp" bench exec --models squeezenet1_1 --threads 1,2 --repeat 1 --co-runner both >"$tmp/bench" || fail=1
if [ "$(grep -c '^| squeezenet1_1 | 1 | [12] | no |' "$tmp/bench")" -ne 2 ] ||
   [ "$(grep -c '^| squeezenet1_1 | 1 | [12] | yes |' "$tmp/bench")" -ne 2 ]; then
  echo "FAIL: bench exec rows"; cat "$tmp/bench"; fail=1
fi
if [ "$(grep '^| squeezenet1_1' "$tmp/bench" | awk -F'|' '{print $11}' | sort -u | wc -l)" -ne 1 ]; then
  echo "FAIL: bench exec checksums differ between thread counts"; cat "$tmp/bench"; fail=1
fi

# ONNX models and TensorProto files (Debian's libonnx-testdata, when installed).
node=/usr/share/libonnx-testdata/data/node
if [ -d "$node/test_relu" ]; then
  relu=(run --onnx "$node/test_relu/model.onnx")
  "$fp" "${relu[@]}" --input "$node/test_relu/test_data_set_0/input_0.pb" --output "$tmp/y.pb" >"$tmp/r1" || fail=1
  # Relu is idempotent: our output and ONNX's expected output, fed back in,
  # give our first output again (same checksum).
  "$fp" "${relu[@]}" --input "$tmp/y.pb" >"$tmp/r2" || fail=1
  "$fp" "${relu[@]}" --input "$node/test_relu/test_data_set_0/output_0.pb" --threads 1 >"$tmp/r3" || fail=1
  if ! grep -q 'checksum' "$tmp/r1" || ! cmp -s "$tmp/r1" "$tmp/r2" || ! cmp -s "$tmp/r1" "$tmp/r3"; then
    echo "FAIL: run --onnx test_relu: outputs differ"; cat "$tmp/r1" "$tmp/r2" "$tmp/r3"; fail=1
  fi
fi

expect_error() { # needle, args...
  local needle=$1
  shift
  "$fp" "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  if [ "$rc" -ne 2 ] || [ "$(wc -l <"$tmp/err")" -ne 1 ] || ! grep -qF -- "$needle" "$tmp/err" || [ -s "$tmp/out" ]; then
    echo "FAIL: fusionplan $* (status $rc, want 2 and one line with '$needle')"
    cat "$tmp/err"
    fail=1
  fi
}
expect_error "no-such-net" run --model no-such-net
expect_error "missing.pb" run --model resnet18 --input-size 64 --input "$tmp/missing.pb"
if [ -d "$node/test_relu" ]; then
  expect_error "input_0.pb" run --model resnet18 --input-size 64 --input "$node/test_relu/test_data_set_0/input_0.pb"
  expect_error "--onnx" run --model resnet18 --onnx "$node/test_relu/model.onnx"
  expect_error "2 files for 1 graph outputs" run --onnx "$node/test_relu/model.onnx" --output "$tmp/a.pb,$tmp/b.pb"
  [ -e "$tmp/a.pb" ] && { echo "FAIL: --output wrote a file after an error"; fail=1; }
fi
expect_error "--threads" run --model resnet18 --threads many
expect_error "--seed" run --model resnet18 --seed -1
expect_error "--threads" bench exec --threads 0
expect_error "no-such-net" bench exec --models no-such-net --repeat 1
exit $fail
