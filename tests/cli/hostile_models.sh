#!/bin/bash
# Issue 41: hostile ONNX model and tensor files. Deep nesting is refused
# before protobuf-c unpacks (it recursed until the stack overflowed);
# external data cannot name a file outside the model's folder (symbolic
# links, linked folders, "..", absolute paths), a FIFO (the import blocked
# forever) or a device; /dev/zero, a 3 GiB sparse file and /dev/zero as a
# run --input are refused before they are read. Each refusal is one line,
# exit 2, within seconds and without writing the output.
set -u
fp=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
cd "$tmp" || exit 1

# Runs fusionplan (under a 20 s timeout: a hang is a failure, not a stuck
# test); expects exit 2 and one line on stderr containing $needle.
one_line() { # needle, args...
  local needle=$1
  shift
  timeout 20 "$fp" "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  [ $rc -eq 2 ] || bad "fusionplan $*: exit $rc, expected 2 ($(head -c 300 "$tmp/err"))"
  [ "$(wc -l <"$tmp/err")" -eq 1 ] || bad "fusionplan $*: stderr is not one line: $(head -c 300 "$tmp/err")"
  grep -qF -- "$needle" "$tmp/err" || bad "fusionplan $*: stderr lacks '$needle': $(head -c 300 "$tmp/err")"
}

# 1. Nesting. A ModelProto whose graph nests N If nodes, each in the
# then_branch of the one before (written by awk: bash is too slow for 3000).
nested_ifs() { # N FILE
  LC_ALL=C awk -v n="$1" '
    function vint(v,   s) { s = ""; while (v >= 128) { s = s sprintf("%c", v % 128 + 128); v = int(v / 128) } return s sprintf("%c", v) }
    function ld(tag, body) { return sprintf("%c", tag) vint(length(body)) body }
    BEGIN {
      g = ""
      for (k = 0; k < n; k++)
        g = ld(10, ld(34, "If") ld(42, ld(10, "then_branch") ld(50, g)))
      printf "%s", "\010\007" ld(66, "\020\015") ld(58, g)
    }' >"$2"
}
nested_ifs 3000 deep.onnx
[ "$(stat -c %s deep.onnx)" -eq 85102 ] || bad "deep.onnx is $(stat -c %s deep.onnx) bytes, not 85102"
deep="field 'node' of GraphProto at byte 967 nests messages more than 100 levels deep"
one_line "deep.onnx: $deep" import deep.onnx
one_line "deep.onnx: $deep" plan --onnx deep.onnx
one_line "deep.onnx: $deep" run --onnx deep.onnx
one_line "deep.onnx: $deep" info --onnx deep.onnx
one_line "deep.onnx: $deep" validate deep.onnx
# The limit is exact: 33 nested Ifs reach depth 100 and get past the check
# (to the op table, which has no If); 34 reach 101.
nested_ifs 33 d33.onnx
one_line "node 'If_0' (If): op type If is not supported" import d33.onnx
nested_ifs 34 d34.onnx
one_line "d34.onnx: field 'node' of GraphProto at byte 854 nests messages more than 100 levels deep" import d34.onnx

# 2, 3. External data stays inside the model's folder and is a regular file.
# external.onnx names external_weights.bin; the variants below replace that
# name by one of the same length (20 bytes), so the protobuf stays valid.
mkdir -p m outside/dir
cp "$src/tests/data/onnx/external.onnx" m/
cp "$src/tests/data/onnx/external_weights.bin" outside/secret.bin
cp "$src/tests/data/onnx/external_weights.bin" outside/dir/weights0.bin
variant() { # NAME LOCATION: m/NAME.onnx naming LOCATION
  LC_ALL=C sed "s|external_weights\\.bin|$2|" m/external.onnx >"m/$1.onnx"
}
cp "$src/tests/data/onnx/external_weights.bin" m/
"$fp" import m/external.onnx >/dev/null 2>"$tmp/err" || bad "external.onnx is refused: $(cat "$tmp/err")"
# A link inside the folder to a file inside it is fine.
mkdir -p m/sub && mv m/external_weights.bin m/sub/w.bin && ln -s sub/w.bin m/external_weights.bin
"$fp" import m/external.onnx >/dev/null 2>"$tmp/err" || bad "a link inside the folder is refused: $(cat "$tmp/err")"
out="resolves outside the model's folder"
ln -sf "$tmp/outside/secret.bin" m/external_weights.bin
one_line "m/external.onnx: tensor 'w': external data location 'external_weights.bin' $out" import m/external.onnx
one_line "$out" run --onnx m/external.onnx --output y.pb
[ -e y.pb ] && bad "run wrote y.pb from a file outside the model's folder"
if [ -r /etc/passwd ] && [ "$(stat -c %s /etc/passwd)" -ge 64 ]; then
  ln -sf /etc/passwd m/external_weights.bin
  one_line "$out" import m/external.onnx
fi
ln -s "$tmp/outside/dir" m/linkdir
variant linked linkdir/weights0.bin
one_line "m/linked.onnx: tensor 'w': external data location 'linkdir/weights0.bin' $out" import m/linked.onnx
ln -s /etc m/etclink
variant etc etclink///////passwd
one_line "$out" import m/etc.onnx
rel="must be a relative path inside the model's folder"
variant up ../aaaaaaaaaaaaaaaaa
cp outside/secret.bin aaaaaaaaaaaaaaaaa
one_line "location '../aaaaaaaaaaaaaaaaa' $rel" import m/up.onnx
variant up2 sb/../weights000.bin
one_line "location 'sb/../weights000.bin' $rel" import m/up2.onnx
variant abs /etc//////////passwd
one_line "location '/etc//////////passwd' $rel" import m/abs.onnx
rm -f m/external_weights.bin && mkfifo m/external_weights.bin
one_line "external data file m/external_weights.bin is a FIFO, not a regular file" import m/external.onnx
rm -f m/external_weights.bin && mkdir m/external_weights.bin
one_line "external data file m/external_weights.bin is a folder, not a regular file" import m/external.onnx

# 4. Sizes are checked before reading; devices and pipes are read with the
# cap, and refused after their first bytes when they are not protobuf. With
# 1 GB of address space the old readers (2 GiB buffers) ran out of memory
# (not under the sanitizers, whose shadow memory needs terabytes of it).
vlimit=1000000
[ "${LF_SANITIZED:-OFF}" = ON ] && vlimit=unlimited
capped() { # needle, args...: one_line under a memory limit, within 5 s
  local t0=$SECONDS
  ( ulimit -v $vlimit; one_line "$@"; exit $fail ) || fail=1
  [ $((SECONDS - t0)) -le 5 ] || bad "fusionplan ${*:2}: $((SECONDS - t0)) s"
}
capped "/dev/zero: not a valid ONNX model (not protobuf data at byte 0)" import /dev/zero
truncate -s 3G sparse.onnx
capped "sparse.onnx: file of 3221225472 bytes is larger than the limit of 2147483648 bytes" import sparse.onnx
capped "/dev/zero: not a valid TensorProto file (not protobuf data at byte 0)" run --model squeezenet1_1 --input /dev/zero
capped "/dev/zero: not a valid TensorProto file" run --onnx "$src/tests/data/onnx/tiny.onnx" --input-shape x=1,3,16,16 \
  --input /dev/zero
# validate reads a plan the same way: a stream that does not start like a
# JSON, XML or annotated ONNX plan is refused after its first chunk (in
# 200 MB of address space; the old reader ran out of memory taking 256 MiB).
small() { # needle, args...: one_line with 200 MB of address space, within 5 s
  local t0=$SECONDS
  ( [ "${LF_SANITIZED:-OFF}" = ON ] || ulimit -v 200000; one_line "$@"; exit $fail ) || fail=1
  [ $((SECONDS - t0)) -le 5 ] || bad "fusionplan ${*:2}: $((SECONDS - t0)) s"
}
small "/dev/zero: not a plan file (JSON, XML or annotated ONNX): byte 0 is 0x00" validate /dev/zero
ln -sf /dev/zero zero.onnx
small "zero.onnx: not a plan file (JSON, XML or annotated ONNX): byte 0 is 0x00" validate zero.onnx
( printf '\010\007\022'; head -c 100000 /dev/zero ) >trunc.bin
small "not a valid ONNX plan file (not protobuf data at byte 4)" validate <(cat trunc.bin)
# Plans through a pipe still validate: JSON and annotated ONNX.
for f in sq.json sq.onnx; do "$fp" plan --model squeezenet1_1 -o $f >/dev/null 2>&1 || bad "plan -o $f failed"; done
for f in sq.json sq.onnx; do
  out=$(cat "$f" | "$fp" validate /dev/stdin 2>&1) || bad "validate of $f through a pipe: $out"
  case $out in *"/dev/stdin: OK (squeezenet1_1"*) ;; *) bad "validate of $f through a pipe said: $out" ;; esac
done

# A model through a pipe still imports.
cat "$src/tests/data/onnx/tiny.onnx" | "$fp" import /dev/stdin --input-shape x=1,3,16,16 >/dev/null 2>"$tmp/err" \
  || bad "a model through a pipe is refused: $(cat "$tmp/err")"

exit $fail
