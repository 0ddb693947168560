#!/bin/bash
# fusionplan profile: without a GPU one clear line and exit 1; --cache-only
# prints a table of cached times next to the roofline (ratio, totals) for the
# cache's device, refuses malformed caches with one line naming file and line,
# and asks which device when the cache holds several. Runs on any machine:
# every cache here is written by hand, with fabricated devices.
set -u
fp=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
export XDG_CACHE_HOME="$tmp/xdg"

conv1='Conv(t1x3x224x224,c64x3x7x7,c1x64x1x1)>1x64x112x112;k7x7;s2x2;d1x1;p3,3,3,3;g=1'
relu='Relu(t1x64x112x112)>1x64x112x112'
dev_a=$'device\tTest GPU A\tGPU-aaaa\t9.0\t13000\t13000\t91900'
dev_b=$'device\tTest GPU B\tGPU-bbbb\t8.0\t12000\t12000\t90100'
mkdir -p "$tmp/xdg/fusionplan"
{
  echo 'fusionplan-gpu-cache 1'
  echo "$dev_a"
  printf 'op\t%s\t%s\n' "$conv1" 4.0068e-05 "$relu" 1.2136e-05
} >"$tmp/xdg/fusionplan/gpu-op-times.txt"

# Without a GPU (or without CUDA support): one line, exit 1, nothing on stdout.
if ! "$fp" --version | grep -q '^GPU 0:'; then
  "$fp" profile --model resnet18 >"$tmp/out" 2>"$tmp/err"
  rc=$?
  if [ "$rc" -ne 1 ] || [ "$(wc -l <"$tmp/err")" -ne 1 ] || [ -s "$tmp/out" ] ||
     ! grep -Eq 'no CUDA device|built without CUDA support' "$tmp/err" || ! grep -q -- '--cache-only' "$tmp/err"; then
    echo "FAIL: profile without a GPU: status $rc"; cat "$tmp/err" "$tmp/out"; fail=1
  fi
  # the cache-only table, from the default cache folder; the cache's only device
  "$fp" profile --model resnet18 --cache-only >"$tmp/t" 2>"$tmp/err" || { echo "FAIL: --cache-only"; cat "$tmp/err"; fail=1; }
  if ! grep -q '^profile resnet18 (49 ops) on Test GPU A (GPU-aaaa, cc 9.0, driver 13000, CUDA 13000, cuDNN 91900), cached times only$' "$tmp/t"; then
    echo "FAIL: --cache-only header"; head -2 "$tmp/t"; fail=1
  fi
  # conv1: 40.068 us measured against a 20.034 us roofline (defaults), ratio 2.00
  if ! grep -Eq '^ +1  conv1 +Conv +40\.068 +20\.034 +2\.00  cache$' "$tmp/t"; then
    echo "FAIL: conv1 row"; grep conv1 "$tmp/t"; fail=1
  fi
  if ! grep -Eq '^ +2  relu +Relu +12\.136 +12\.136 +1\.00  cache$' "$tmp/t"; then
    echo "FAIL: relu row"; grep ' relu ' "$tmp/t"; fail=1
  fi
  if ! grep -Eq '^ +3  maxpool +MaxPool +- +9\.460 +-  -$' "$tmp/t"; then
    echo "FAIL: an uncached op is not shown as such"; grep maxpool "$tmp/t"; fail=1
  fi
  if ! grep -q '^measured 2 of 48 kernels: 52.204 us measured, 32.170 us roofline for them (ratio 1.62)$' "$tmp/t"; then
    echo "FAIL: totals"; tail -3 "$tmp/t"; fail=1
  fi
  if ! grep -q "^cache: $tmp/xdg/fusionplan/gpu-op-times.txt (2 entries for this device, 0 new)$" "$tmp/t"; then
    echo "FAIL: cache line"; tail -1 "$tmp/t"; fail=1
  fi
  # --keys adds the configuration key
  "$fp" profile --model resnet18 --cache-only --keys >"$tmp/k" 2>/dev/null
  if ! grep -qF "  cache  $conv1" "$tmp/k"; then
    echo "FAIL: --keys"; grep conv1 "$tmp/k"; fail=1
  fi

  # Two devices: the user must choose; B's times are never shown for A.
  {
    cat "$tmp/xdg/fusionplan/gpu-op-times.txt"
    echo "$dev_b"
    printf 'op\t%s\t%s\n' "$relu" 9e-06
  } >"$tmp/two.txt"
  "$fp" profile --model resnet18 --cache-only --cache "$tmp/two.txt" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  if [ "$rc" -ne 2 ] || ! grep -q 'holds times of several devices' "$tmp/err" || ! grep -q 'GPU-bbbb' "$tmp/err"; then
    echo "FAIL: two devices without --cache-device: status $rc"; cat "$tmp/err"; fail=1
  fi
  "$fp" profile --model resnet18 --cache-only --cache "$tmp/two.txt" --cache-device GPU-bbbb >"$tmp/t" 2>&1
  if ! grep -q 'measured 1 of 48 kernels' "$tmp/t" || grep -Eq ' conv1 .* cache$' "$tmp/t" ||
     ! grep -Eq '^ +2  relu +Relu +9\.000 ' "$tmp/t"; then
    echo "FAIL: --cache-device GPU-bbbb"; cat "$tmp/t"; fail=1
  fi
  "$fp" profile --model resnet18 --cache-only --cache "$tmp/two.txt" --cache-device GPU-cccc >"$tmp/out" 2>"$tmp/err"
  if [ $? -ne 1 ] || ! grep -q "has no cached times of a device 'GPU-cccc'" "$tmp/err"; then
    echo "FAIL: unknown --cache-device"; cat "$tmp/err"; fail=1
  fi
fi

# Malformed cache: one line naming file and line, exit 2, nothing on stdout.
printf 'fusionplan-gpu-cache 1\n%s\nop\tk\tsoon\n' "$dev_a" >"$tmp/bad.txt"
"$fp" profile --model resnet18 --cache-only --cache "$tmp/bad.txt" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" -ne 2 ] || [ "$(wc -l <"$tmp/err")" -ne 1 ] || [ -s "$tmp/out" ] ||
   ! grep -qF "fusionplan: $tmp/bad.txt:3: op time is not a number of seconds in [1e-12, 3600]" "$tmp/err"; then
  echo "FAIL: malformed cache: status $rc"; cat "$tmp/err"; fail=1
fi
"$fp" profile --model resnet18 --cache-device GPU-aaaa >"$tmp/out" 2>"$tmp/err"
if [ $? -ne 2 ] || ! grep -q -- '--cache-device applies to --cache-only' "$tmp/err"; then
  echo "FAIL: --cache-device without --cache-only"; cat "$tmp/err"; fail=1
fi
# An empty cache file has no device to show.
"$fp" profile --model resnet18 --cache-only --cache "$tmp/none.txt" >"$tmp/out" 2>"$tmp/err"
if [ $? -ne 1 ] || ! grep -q 'has no cached GPU times' "$tmp/err"; then
  echo "FAIL: missing cache"; cat "$tmp/err"; fail=1
fi
# Real measurements: the cache an H200 wrote (examples/gpu/h200-op-times.txt,
# docs/results/scheduling.md "Measured GPU op costs") gives back the figures that run
# printed on the GPU: every ResNet-50 kernel, 3,608.645 us against 705.681 us.
src=${2:-$(dirname "$0")/../..}
h200=$src/examples/gpu/h200-op-times.txt
"$fp" profile --model resnet50 --hw "$src/examples/hw/gpu-h100.xml" --cache-only --cache "$h200" \
  --cache-device GPU-3ea58d0c-f30d-995c-4fef-0ba272ecfd56 >"$tmp/h200" 2>"$tmp/err" ||
  { echo "FAIL: H200 cache"; cat "$tmp/err"; fail=1; }
if ! grep -qx 'measured 121 of 121 kernels: 3608.645 us measured, 705.681 us roofline for them (ratio 5.11)' "$tmp/h200" ||
   ! grep -Eq '^ +1  conv1 +Conv +38\.586 +6\.150 +6\.27  cache$' "$tmp/h200"; then
  echo "FAIL: H200 totals"; tail -3 "$tmp/h200"; fail=1
fi
"$fp" profile --model inception_v3 --hw "$src/examples/hw/gpu-h100.xml" --cache-only --cache "$h200" \
  --cache-device 'NVIDIA H200' >"$tmp/h200" 2>"$tmp/err"
if ! grep -qx 'measured 203 of 203 kernels: 4629.028 us measured, 1103.182 us roofline for them (ratio 4.20)' "$tmp/h200"; then
  echo "FAIL: H200 inception_v3 totals"; tail -3 "$tmp/h200"; cat "$tmp/err"; fail=1
fi
# The optimizer's time objective from that cache, on any machine: the input
# costs what the GPU measured (3,608.645 us), rewritten configurations the
# cache lacks the roofline times the cached convs' median ratio.
"$fp" optimize --model resnet50 --hw "$src/examples/hw/gpu-h100.xml" --cache "$h200" --cache-device 'NVIDIA H200' \
  --budget 20 >"$tmp/opt" 2>"$tmp/err" || { echo "FAIL: optimize with the H200 cache"; cat "$tmp/err"; fail=1; }
if ! grep -Eq '^time \(us\) +3608\.645 ' "$tmp/opt" ||
   ! grep -q '^op times: cached times of NVIDIA H200 (GPU-3ea58d0c-f30d-995c-4fef-0ba272ecfd56, .*(conv 7\.10, ' "$tmp/opt"; then
  echo "FAIL: optimize cost from the H200 cache"; head -6 "$tmp/opt"; fail=1
fi
"$fp" optimize --model resnet50 --cache "$h200" --cache-device GPU-nope >"$tmp/out" 2>"$tmp/err"
if [ $? -ne 1 ] || [ -s "$tmp/out" ] || [ "$(wc -l <"$tmp/err")" -ne 1 ] || ! grep -q "has no cached times of a device 'GPU-nope'" "$tmp/err"; then
  echo "FAIL: optimize with an unknown cache device"; cat "$tmp/err"; fail=1
fi
# Without a GPU, --cache alone uses the file's only device.
if ! "$fp" --version | grep -q '^GPU 0:'; then
  "$fp" optimize --model resnet50 --hw "$src/examples/hw/gpu-h100.xml" --cache "$h200" --budget 5 >"$tmp/opt" 2>"$tmp/err"
  grep -Eq '^time \(us\) +3608\.645 ' "$tmp/opt" || { echo "FAIL: optimize --cache alone"; cat "$tmp/err"; fail=1; }
fi
"$fp" optimize --model resnet50 --cache "$tmp/missing.txt" --cache-device GPU-nope >"$tmp/out" 2>"$tmp/err"
if [ $? -ne 1 ] || [ -s "$tmp/out" ] || ! grep -q "cannot read the GPU times cache $tmp/missing.txt: No such file" "$tmp/err"; then
  echo "FAIL: optimize with a missing cache file"; cat "$tmp/err"; fail=1
fi
for bad in "--objective flops" "--analytic"; do
  # shellcheck disable=SC2086
  "$fp" optimize --model resnet50 $bad --cache-device GPU-nope >"$tmp/out" 2>"$tmp/err"
  if [ $? -ne 2 ] || [ -s "$tmp/out" ]; then echo "FAIL: optimize $bad --cache-device"; cat "$tmp/err"; fail=1; fi
done
exit $fail
