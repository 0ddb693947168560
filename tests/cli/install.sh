#!/bin/bash
# The installed library (DESIGN §13): `cmake --install` into a temporary
# prefix, then examples/c/plan.c built against it with pkg-config and with
# CMake's find_package(fusionplan); both must print the optimum the CLI finds.
# The installed binary finds the shipped weights under PREFIX/share (run from
# another folder, with the build tree out of reach), and a wrong
# FUSIONPLAN_WEIGHTS_DIR is one clear error.
set -u
fp=$1
src=$2
build=$(cd "$(dirname "$fp")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
say() { echo "FAIL: $*"; fail=1; }

for tool in cmake pkg-config cc; do
  command -v $tool >/dev/null || { echo "skipped: $tool is not installed"; exit 77; }
done
san_flags=""
if [ "${LF_SANITIZED:-OFF}" = ON ]; then
  san_flags="-fsanitize=address,undefined"
fi

cmake --install "$build" --prefix "$tmp/prefix" >"$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; exit 1; }
for f in lib/libfusionplan.a bin/fusionplan include/fusionplan/fusionplan.h include/fusionplan/planner/graph.h \
         lib/pkgconfig/fusionplan.pc lib/cmake/fusionplan/fusionplanConfig.cmake share/fusionplan/weights/gnn-lbdf.bin; do
  [ -e "$tmp/prefix/$f" ] || say "install did not create $f"
done
# Internal headers stay out of the public include tree.
if find "$tmp/prefix/include" -name '*_internal.h' -o -name binio.h -o -name cli.h | grep -q .; then
  say "internal headers installed: $(find "$tmp/prefix/include" -name '*_internal.h' -o -name binio.h -o -name cli.h)"
fi
# Only the public API is installed: the headers fusionplan.h reaches, none
# declaring an internal lf__ name, and not the utilities or the executor.
if grep -rln '\blf__[A-Za-z0-9_]*[[:space:]]*(' "$tmp/prefix/include" | grep -q .; then
  say "installed headers declare internal lf__ functions: $(grep -rlw 'lf__[A-Za-z0-9_]*' "$tmp/prefix/include" | head -5)"
fi
for h in planner/util/bitset.h planner/graph.h planner/app/api/api.h; do
  [ -e "$tmp/prefix/include/fusionplan/$h" ] || say "public header $h (reached from fusionplan.h) is not installed"
done
for h in planner/exec/kernels.h planner/exact/downsets.h planner/util/scc.h planner/io/onnx_proto.h; do
  [ ! -e "$tmp/prefix/include/fusionplan/$h" ] || say "internal header $h is installed"
done
# Every installed header compiles on its own (so none includes an internal,
# uninstalled one or a protobuf/libxml2 header).
for h in $(cd "$tmp/prefix/include/fusionplan" && find . -name '*.h' | sort); do
  echo "#include \"${h#./}\"" | cc -fsyntax-only -Wall -I"$tmp/prefix/include" -I"$tmp/prefix/include/fusionplan" \
      -x c - 2>"$tmp/h.log" || { say "installed header $h does not compile alone: $(head -1 "$tmp/h.log")"; }
done
# No build-tree or source path baked into the installed tree's text files.
if grep -rlF "$src" "$tmp/prefix/lib/pkgconfig" "$tmp/prefix/include" >/dev/null 2>&1; then
  say "the source path appears in installed files"
fi

# Every symbol the library defines for its users starts with lf_ (issue 42):
# protoc-c's functions and descriptors carry lf_pb_ (cmake/LfPbPrefix.cmake),
# so a program with its own ONNX protobuf-c code links beside it. The
# sanitizers' instrumentation adds its own (__asan_*, __odr_asan*).
for lib in lib/libfusionplan.a lib/fusionplan/libfusionplan.so; do
  [ -e "$tmp/prefix/$lib" ] || continue
  case $lib in *.so) nmflags="-D --defined-only" ;; *) nmflags="-g --defined-only" ;; esac
  foreign=$(nm $nmflags "$tmp/prefix/$lib" | awk 'NF == 3 { print $3 }' |
            grep -v -e '^lf_' -e '^__asan' -e '^__odr_asan' -e '^__ubsan' -e '^_init$' -e '^_fini$' | sort -u)
  [ -z "$foreign" ] || say "$lib defines symbols without the lf_ prefix: $(echo $foreign | head -c 300)"
done
cat >"$tmp/own_onnx.c" <<'EOC'
/* A program's own protobuf-c code for the ONNX schema (names as protoc-c makes them). */
const int onnx__model_proto__descriptor = 1;
int onnx__model_proto__get_packed_size(void) { return 0; }
int taso_rules__rule_collection__get_packed_size(void) { return 0; }
EOC

want=$("$fp" plan --model resnet18 --buffer 128KB --search exact | sed -n 's/.*: DRAM \([0-9,]*\) B fusable.*/\1/p' | tr -d ,)
[ -n "$want" ] || say "could not read the optimum from fusionplan plan"

# 1. pkg-config
export PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig"
if cc $san_flags "$src/examples/c/plan.c" "$tmp/own_onnx.c" $(pkg-config --cflags --libs --static fusionplan) -o "$tmp/plan_pc" 2>"$tmp/cc.log"; then
  out=$("$tmp/plan_pc" resnet18 128KB)
  echo "$out" | grep -q "optimum $want bytes" || say "pkg-config build printed '$out', want optimum $want"
else
  cat "$tmp/cc.log"; say "examples/c/plan.c does not build with pkg-config"
fi

# 2. CMake find_package
if cmake -S "$src/examples/c" -B "$tmp/cmake-build" -DCMAKE_PREFIX_PATH="$tmp/prefix" \
       -DCMAKE_C_FLAGS="$san_flags" -DCMAKE_EXE_LINKER_FLAGS="$san_flags" >"$tmp/cmake.log" 2>&1 &&
   cmake --build "$tmp/cmake-build" >>"$tmp/cmake.log" 2>&1; then
  out=$("$tmp/cmake-build/plan" resnet18 128KB)
  echo "$out" | grep -q "optimum $want bytes" || say "CMake build printed '$out', want optimum $want"
else
  cat "$tmp/cmake.log"; say "examples/c/plan.c does not build with find_package(fusionplan)"
fi

# 3. The installed binary finds its weights under PREFIX/share, from anywhere.
mkdir "$tmp/elsewhere"
( cd "$tmp/elsewhere" && "$tmp/prefix/bin/fusionplan" plan --model mobilenet_v2 --buffer 128KB --search local \
    --budget 20 --split tree --proposer pg >"$tmp/pg.out" 2>"$tmp/pg.err" ) || {
  cat "$tmp/pg.err"; say "the installed binary cannot use the shipped PGExplainer weights"; }
# The installed binary optimizes with the shipped generated rules (issue 43),
# run from an empty folder with no ../shared beside it.
mkdir "$tmp/bare"
( cd "$tmp/bare" && "$tmp/prefix/bin/fusionplan" optimize --model resnet18 --input-size 32 --budget 5 \
    -o opt.json >"$tmp/gen.out" 2>"$tmp/gen.err" ) || { cat "$tmp/gen.err"; say "the installed optimize failed"; }
[ -s "$tmp/bare/opt.json" ] || say "the installed optimize wrote no graph"
n_gen=$(cd "$tmp/bare" && "$tmp/prefix/bin/fusionplan" rules --rules generated | sed -n 's/^\([0-9]*\) rules: 0 built in, \([0-9]*\) generated$/\2/p')
grep -q "^model resnet18 (.*), $((22 + ${n_gen:-0})) rules (" "$tmp/gen.out" && [ "${n_gen:-0}" -gt 1000 ] ||
  say "the installed optimize did not use the $n_gen generated rules: $(head -1 "$tmp/gen.out")"
mkdir "$tmp/empty"
FUSIONPLAN_WEIGHTS_DIR="$tmp/empty" "$tmp/prefix/bin/fusionplan" plan --model mobilenet_v2 --buffer 128KB \
    --search local --budget 20 --split tree --proposer pg >"$tmp/bad.out" 2>"$tmp/bad.err"
rc=$?
if [ $rc -ne 2 ] || [ "$(wc -l <"$tmp/bad.err")" -ne 1 ] || ! grep -q "FUSIONPLAN_WEIGHTS_DIR" "$tmp/bad.err"; then
  say "a wrong FUSIONPLAN_WEIGHTS_DIR gave status $rc and: $(cat "$tmp/bad.err")"
fi

# 4. The Python package (docs/python.md): installed for /usr/bin/python3 under the
# prefix, the install step printing the PYTHONPATH line this prefix needs; from
# another folder it opens the installed libfusionplan.so (not the build's),
# finds the shipped weights under the prefix and prints the optimum the CLI finds. Not in the sanitizer build (LfPython.cmake).
if [ -e "$build/lib/fusionplan" ] && [ "${LF_SANITIZED:-OFF}" != ON ] && [ -x /usr/bin/python3 ]; then
  [ -e "$tmp/prefix/lib/fusionplan/libfusionplan.so" ] || say "install did not create lib/fusionplan/libfusionplan.so"
  line=$(sed -n 's/.*export PYTHONPATH=//p' "$tmp/install.log")
  [ -n "$line" ] && [ -e "$line/fusionplan/__init__.py" ] || say "the install step printed no PYTHONPATH line naming the package: '$line'"
  got=$(cd "$tmp/elsewhere" && PYTHONPATH="$line" /usr/bin/python3 -c '
import fusionplan as fp, fusionplan._lib as l
fp.plan("mobilenet_v2", fp.Hardware(buffer="128KB"), search="local", budget=5, split="tree", proposer="pg")
print(fp.plan("resnet18", fp.Hardware(buffer="128KB"), search="exact").dram_fusable, l.lib._name)' 2>&1)
  case "$got" in
    "$want $tmp/prefix/"*) ;;
    *) say "the installed Python package printed '$got', want '$want' from the installed library" ;;
  esac
  # pip install --no-build-isolation ./python, offline (a copy: pip builds in the tree)
  if /usr/bin/python3 -m pip --version >/dev/null 2>&1; then
    cp -r "$src/python" "$tmp/pysrc"
    if /usr/bin/python3 -m pip install -q --no-build-isolation --no-index --target "$tmp/pip" "$tmp/pysrc" >"$tmp/pip.log" 2>&1; then
      got=$(cd "$tmp/elsewhere" && PYTHONPATH="$tmp/pip" FUSIONPLAN_LIBRARY="$tmp/prefix/lib/fusionplan/libfusionplan.so" \
            /usr/bin/python3 -c 'import fusionplan as fp; print(fp.plan("resnet18", fp.Hardware(buffer="128KB"), search="exact").dram_fusable, fp.__file__)' 2>&1)
      [ "$got" = "$want $tmp/pip/fusionplan/__init__.py" ] || say "the pip-installed package printed '$got', want '$want'"
    else
      cat "$tmp/pip.log"; say "pip install --no-build-isolation --no-index ./python failed"
    fi
  else
    echo "note: no pip for /usr/bin/python3 (Debian: python3-pip): pip install ./python not checked"
  fi
fi

exit $fail
