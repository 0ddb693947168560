#!/usr/bin/python3
"""ONNX's own node tests for opset 23's Attention and RotaryEmbedding, which Debian's
libonnx-testdata (onnx 1.12) predates: runs the case generators and the reference implementation of
an onnx source checkout (onnx/backend/test/case/node/{attention,rotaryembedding}.py and
onnx/reference/ops/op_{attention,rotary_embedding}.py, read at run time, not copied) with Debian's
python3-onnx and writes each case in the node-test layout for `fusionplan conformance OUT`.

    /usr/bin/python3 tests/data/onnx/onnx_upstream_cases.py ONNX_SRC OUT

Cases the old python3-onnx cannot build (helpers added after 1.12) are skipped with a line.
"""
import os, sys, types, numpy as np, onnx
from onnx import helper, numpy_helper
SRC, OUT = sys.argv[1], sys.argv[2]
REF = os.path.join(SRC, "onnx", "reference", "ops")
CASES = os.path.join(SRC, "onnx", "backend", "test", "case", "node")
opr = types.ModuleType("onnx.reference.op_run")
class OpRun: pass
opr.OpRun = OpRun
sys.modules["onnx.reference"] = types.ModuleType("onnx.reference")
sys.modules["onnx.reference.op_run"] = opr
sys.modules["onnx.reference.ops"] = types.ModuleType("onnx.reference.ops")
for m in ("op_attention", "op_rotary_embedding"):
    mod = types.ModuleType("onnx.reference.ops." + m)
    exec(open(os.path.join(REF, m + ".py")).read(), mod.__dict__)
    sys.modules["onnx.reference.ops." + m] = mod
import onnx.backend.test.case.node as nodemod
written = []
def expect(node, inputs, outputs, name, **kw):
    d = os.path.join(OUT, name)
    os.makedirs(os.path.join(d, "test_data_set_0"), exist_ok=True)
    ins = [n for n in node.input]
    outs = [n for n in node.output]
    vi = lambda n, a: helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(a.dtype) if hasattr(helper, "np_dtype_to_tensor_dtype") else onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[a.dtype], list(a.shape))
    present = [(n, a) for n, a in zip(ins, inputs) if n]
    g = helper.make_graph([node], name, [vi(n, a) for n, a in present], [vi(n, np.asarray(a)) for n, a in zip(outs, outputs) if n])
    ops = kw.get("opset_imports", [helper.make_opsetid("", 23)])
    m = helper.make_model(g, opset_imports=ops)
    onnx.save(m, os.path.join(d, "model.onnx"))
    for k, (n, a) in enumerate(present):
        open(os.path.join(d, "test_data_set_0", f"input_{k}.pb"), "wb").write(numpy_helper.from_array(np.asarray(a), n).SerializeToString())
    for k, (on, a) in enumerate([(n, a) for n, a in zip(outs, outputs) if n]):
        open(os.path.join(d, "test_data_set_0", f"output_{k}.pb"), "wb").write(numpy_helper.from_array(np.asarray(a), on).SerializeToString())
    written.append(name)
nodemod.expect = expect
np.random.seed(0)
for f in ("attention", "rotaryembedding"):
    mod = types.ModuleType(f)
    src = open(os.path.join(CASES, f + ".py")).read().replace("from onnx.backend.test.case.base import Base", "class Base: pass").replace("from onnx.backend.test.case.node import expect", "")
    mod.__dict__["expect"] = expect
    exec(src, mod.__dict__)
    for cname, cls in list(mod.__dict__.items()):
        if isinstance(cls, type) and cname in ("Attention", "RotaryEmbedding"):
            for k, fn in sorted(cls.__dict__.items()):
                if k.startswith("export"):
                    try:
                        fn.__func__() if hasattr(fn, "__func__") else fn()
                    except Exception as e:
                        print("skip", k, type(e).__name__, str(e)[:100])
print(len(written), "cases")
