#!/bin/bash
# Model-local ONNX functions (planner/io/onnx_functions.c), on models
# written here with Debian's python3-onnx (skipped, 77, without it):
# - a function whose body uses attribute references (LeakyRelu's alpha and
#   Transpose's perm taken from the call), called twice and from another
#   function, runs through `fusionplan conformance` against hand values:
#   y = LeakyRelu(x, 0.5) * 3 + x  (call 1), then the same with alpha 0.25
#   through the nested call (values below);
# - malformed functions are one line and a non-zero exit each.
set -u
fp=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
py=""
for c in python3 /usr/bin/python3; do
  if command -v "$c" >/dev/null 2>&1 && "$c" -c 'import onnx.helper, numpy' >/dev/null 2>&1; then
    py=$c
    break
  fi
done
[ -n "$py" ] || { echo "skipped: no python3 with onnx (Debian: apt install python3-onnx)"; exit 77; }
"$py" - "$tmp" <<'PY' || { echo "FAIL: writing the models"; exit 1; }
import os, sys
import numpy as np
from onnx import helper as h, TensorProto as T, numpy_helper, save
out = sys.argv[1]
ops = [h.make_opsetid("", 17), h.make_opsetid("my", 1)]

def attr_ref(name, ref, typ):
    a = h.make_attribute(name, 0.0 if typ == "f" else [0])
    a.ClearField("f"); a.ClearField("ints")
    a.ref_attr_name = ref
    a.type = h.AttributeProto.FLOAT if typ == "f" else h.AttributeProto.INTS
    return a

def leaky_fn():  # Act(x) -> y = LeakyRelu(x, alpha=@slope) * 3 + x
    n0 = h.make_node("LeakyRelu", ["x"], ["t"], name="act")
    n0.attribute.append(attr_ref("alpha", "slope", "f"))
    c = h.make_node("Constant", [], ["three"], name="three", value=numpy_helper.from_array(np.array(3.0, np.float32)))
    n1 = h.make_node("Mul", ["t", "three"], ["u"], name="scale")
    n2 = h.make_node("Add", ["u", "x"], ["y"], name="skip")
    return h.make_function("my", "Act", ["x"], ["y"], [n0, c, n1, n2], [h.make_opsetid("", 17)], ["slope"])

def outer_fn():  # Outer(x) -> Act(x, slope=@s2)
    n = h.make_node("Act", ["x"], ["y"], name="inner", domain="my")
    n.attribute.append(attr_ref("slope", "s2", "f"))
    return h.make_function("my", "Outer", ["x"], ["y"], [n], [h.make_opsetid("", 17)], ["s2"])

def model(nodes, funcs, name, shape=(1, 2, 2, 3)):
    g = h.make_graph(nodes, name, [h.make_tensor_value_info("in", T.FLOAT, shape)],
                     [h.make_tensor_value_info("out", T.FLOAT, shape)])
    return h.make_model(g, opset_imports=ops, functions=funcs, ir_version=8)

def act(x, a):
    return np.where(x >= 0, x, a * x) * 3 + x

# the good case: two calls (names clash: the second call's values are renamed)
x = np.array([-4, -2, -1, 0, 1, 2, -8, 3, 5, -0.5, 0.25, -3], np.float32).reshape(1, 2, 2, 3)
c1 = h.make_node("Act", ["in"], ["mid"], name="call1", domain="my", slope=0.5)
c2 = h.make_node("Outer", ["mid"], ["out"], name="call2", domain="my", s2=0.25)
m = model([c1, c2], [leaky_fn(), outer_fn()], "fn_good")
d = os.path.join(out, "good", "test_functions")
os.makedirs(os.path.join(d, "test_data_set_0"))
save(m, os.path.join(d, "model.onnx"))
y = act(act(x, 0.5), 0.25)
# hand values of the first four: x = -4: LeakyRelu 0.5 -> -2, *3 + x = -10;
# then -10 -> -2.5*3 - 10 = -17.5. x = 1 -> 4 -> 16.
assert y.flat[0] == -17.5 and y.flat[4] == 16.0, y.flat[:5]
open(os.path.join(d, "test_data_set_0", "input_0.pb"), "wb").write(numpy_helper.from_array(x, "in").SerializeToString())
open(os.path.join(d, "test_data_set_0", "output_0.pb"), "wb").write(numpy_helper.from_array(y, "out").SerializeToString())

bad = os.path.join(out, "bad")
os.makedirs(bad)
def badfile(name, nodes, funcs):
    save(model(nodes, funcs, name), os.path.join(bad, name + ".onnx"))
# a function that calls itself, and a cycle through two
me = h.make_function("my", "Me", ["x"], ["y"], [h.make_node("Me", ["x"], ["y"], domain="my")], [h.make_opsetid("", 17)], [])
badfile("recursive", [h.make_node("Me", ["in"], ["out"], name="c", domain="my")], [me])
fa = h.make_function("my", "A", ["x"], ["y"], [h.make_node("B", ["x"], ["y"], domain="my")], [h.make_opsetid("", 17)], [])
fb = h.make_function("my", "B", ["x"], ["y"], [h.make_node("A", ["x"], ["y"], domain="my")], [h.make_opsetid("", 17)], [])
badfile("cycle", [h.make_node("A", ["in"], ["out"], name="c", domain="my")], [fa, fb])
# 17 functions deep (limit 16)
chain = [h.make_function("my", "F%d" % i, ["x"], ["y"], [h.make_node("F%d" % (i + 1), ["x"], ["y"], domain="my")], [h.make_opsetid("", 17)], []) for i in range(17)]
chain.append(h.make_function("my", "F17", ["x"], ["y"], [h.make_node("Relu", ["x"], ["y"])], [h.make_opsetid("", 17)], []))
badfile("deep", [h.make_node("F0", ["in"], ["out"], name="c", domain="my")], chain)
# the body reads a value it neither receives nor makes
badfile("unbound", [h.make_node("U", ["in"], ["out"], name="c", domain="my")],
        [h.make_function("my", "U", ["x"], ["y"], [h.make_node("Add", ["x", "ghost"], ["y"], name="add")], [h.make_opsetid("", 17)], [])])
# an output no node makes
badfile("no_output", [h.make_node("N", ["in"], ["out"], name="c", domain="my")],
        [h.make_function("my", "N", ["x"], ["y"], [h.make_node("Relu", ["x"], ["z"], name="r")], [h.make_opsetid("", 17)], [])])
# an attribute the function does not declare
badfile("undeclared", [h.make_node("Act", ["in"], ["out"], name="c", domain="my", slope=0.1, gain=2.0)], [leaky_fn()])
# more inputs than the function has
badfile("arity", [h.make_node("Act", ["in", "in"], ["out"], name="c", domain="my", slope=0.1)], [leaky_fn()])
# a body writing its own input
badfile("writes_input", [h.make_node("W", ["in"], ["out"], name="c", domain="my")],
        [h.make_function("my", "W", ["x"], ["y"], [h.make_node("Relu", ["x"], ["x"], name="r"), h.make_node("Relu", ["x"], ["y"], name="s")], [h.make_opsetid("", 17)], [])])
# another opset of ai.onnx inside the function
badfile("opset", [h.make_node("O", ["in"], ["out"], name="c", domain="my")],
        [h.make_function("my", "O", ["x"], ["y"], [h.make_node("Relu", ["x"], ["y"], name="r")], [h.make_opsetid("", 13)], [])])
PY
fail=0
out=$("$fp" conformance "$tmp/good" --verbose 2>&1) || { echo "FAIL: conformance exited $?: $out"; fail=1; }
echo "$out" | grep -q '1 pass' || { echo "FAIL: the function model does not match the hand values: $out"; fail=1; }
"$fp" import "$tmp/good/test_functions/model.onnx" --json >"$tmp/imp.json" 2>&1 || { echo "FAIL: import: $(cat "$tmp/imp.json")"; fail=1; }
# the first call keeps the body's node names, the nested second is renamed
for n in '"act"' '"scale"' '"skip"' '"call2/inner/act"'; do
  grep -q "$n" "$tmp/imp.json" || { echo "FAIL: no op named $n after inlining"; fail=1; }
done
want() { # file, words the one-line message must contain
  local f=$1
  shift
  local msg rc
  msg=$("$fp" import "$tmp/bad/$f.onnx" 2>&1)
  rc=$?
  [ $rc -ne 0 ] && [ $rc -lt 128 ] || { echo "FAIL: $f: exit $rc"; fail=1; return; }
  [ "$(printf '%s\n' "$msg" | wc -l)" -eq 1 ] || { echo "FAIL: $f: not one line: $msg"; fail=1; }
  for w in "$@"; do
    case "$msg" in *"$w"*) ;; *) echo "FAIL: $f: '$w' not in: $msg"; fail=1 ;; esac
  done
}
want recursive "function 'Me' calls itself (Me -> Me)"
want cycle "calls itself (A -> B -> A)"
want deep "nest deeper than 16"
want unbound "function 'U'" "node 'add' reads 'ghost'"
want no_output "function 'N': output 'y' is made by no node"
want undeclared "attribute 'gain', which it does not declare"
want arity "with 2 inputs"
want writes_input "node 'r' writes 'x'"
want opset "imports opset 13 of ai.onnx but the model imports 17"
[ $fail -eq 0 ] && echo "ok: functions inline (attribute references, nested calls) and malformed ones are refused in one line"
exit $fail
