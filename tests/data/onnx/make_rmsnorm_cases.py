#!/usr/bin/python3
"""Writes conformance cases for opset 23's RMSNormalization, which Debian's libonnx-testdata
(onnx 1.12) predates, in the layout of ONNX's node tests (OUT/<case>/model.onnx and
test_data_set_0/input_K.pb, output_K.pb) for `fusionplan conformance OUT`:

    /usr/bin/python3 tests/data/onnx/make_rmsnorm_cases.py OUT [CONST]
    /usr/bin/python3 tests/data/onnx/make_rmsnorm_cases.py --round-trip OUT RT

The cases are the ones of ONNX's own node tests for the op (onnx/backend/test/case/node/
rmsnormalization.py: X of [3, 4] at every axis, [2, 3, 5] with epsilon 0.1 at every axis,
[2, 3, 4, 5] at every axis, the default axis; the scale shaped like the normalised dims), then
scales that broadcast (the spec: Scale is unidirectionally broadcastable to X, "broadcastable to
the normalized shape"): [1], [1, D], [T, 1], leading ones, one scale per row, a stash_type given,
and the same broadcasts for LayerNormalization's scale and bias (opset 17). Expected outputs are
the spec's formula in numpy, in float64, cast to float32. python3-onnx 1.12 has no schema for
opset 23, so the models are built with make_node and not checked. With CONST, each model is
also written as CONST/<case>.onnx with the scale and bias as initializers (X the only input),
the form `fusionplan optimize -o` round-trips. --round-trip checks each RT/<case>/model.onnx
(fusionplan's opset-17 export of CONST/<case>.onnx) with onnx.checker (full check) and gives it
OUT/<case>'s test data, reshaped to its input and output and named as they are. Used by
tests/cli/onnx_rmsnorm_conformance.sh; the files are generated, not committed.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

if sys.argv[1] == "--round-trip":
    OUT, RT = sys.argv[2], sys.argv[3]
    for name in sorted(os.listdir(RT)):
        m = onnx.load(os.path.join(RT, name, "model.onnx"))
        onnx.checker.check_model(m, full_check=True)
        assert m.ir_version == 8 and [(o.domain, o.version) for o in m.opset_import] == [("", 17)], name
        d = os.path.join(RT, name, "test_data_set_0")
        os.makedirs(d, exist_ok=True)
        for kind, vis in (("input", m.graph.input), ("output", m.graph.output)):
            t = onnx.TensorProto()
            with open(os.path.join(OUT, name, "test_data_set_0", kind + "_0.pb"), "rb") as f:
                t.ParseFromString(f.read())
            dims = [e.dim_value for e in vis[0].type.tensor_type.shape.dim]
            a = numpy_helper.to_array(t).reshape(dims)
            with open(os.path.join(d, kind + "_0.pb"), "wb") as f:
                f.write(numpy_helper.from_array(a, vis[0].name).SerializeToString())
    print(len(os.listdir(RT)), "round-tripped cases checked in", RT)
    sys.exit(0)
OUT = sys.argv[1]
CONST = sys.argv[2] if len(sys.argv) > 2 else None
rng = np.random.RandomState(23)


def rms_ref(x, scale, axis=-1, eps=1e-5):
    """x / sqrt(mean(x^2 over axis..) + eps) * scale, in float64."""
    x64 = x.astype(np.float64)
    axes = tuple(range(axis % x.ndim, x.ndim))
    ms = np.mean(x64 * x64, axis=axes, keepdims=True)
    return (x64 / np.sqrt(ms + eps) * scale.astype(np.float64)).astype(np.float32)


def ln_ref(x, scale, bias, axis=-1, eps=1e-5):
    x64 = x.astype(np.float64)
    axes = tuple(range(axis % x.ndim, x.ndim))
    d = x64 - np.mean(x64, axis=axes, keepdims=True)
    y = d / np.sqrt(np.mean(d * d, axis=axes, keepdims=True) + eps) * scale.astype(np.float64)
    if bias is not None:
        y = y + bias.astype(np.float64)
    return y.astype(np.float32)


def write(name, node, inputs, y, opset):
    """inputs: (name, array) pairs, graph inputs as in ONNX's node tests."""
    vi = lambda n, a: helper.make_tensor_value_info(n, TensorProto.FLOAT, list(a.shape))
    g = helper.make_graph([node], name, [vi(n, a) for n, a in inputs], [vi("Y", y)])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)], producer_name="fusionplan-tests")
    m.ir_version = 10 if opset >= 23 else 8
    d = os.path.join(OUT, name, "test_data_set_0")
    os.makedirs(d, exist_ok=True)
    onnx.save(m, os.path.join(OUT, name, "model.onnx"))
    for k, (n, a) in enumerate(inputs):
        with open(os.path.join(d, f"input_{k}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(a, n).SerializeToString())
    with open(os.path.join(d, "output_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(y, "Y").SerializeToString())
    if CONST:
        os.makedirs(CONST, exist_ok=True)
        g = helper.make_graph([node], name, [vi(*inputs[0])], [vi("Y", y)],
                              [numpy_helper.from_array(a, n) for n, a in inputs[1:]])
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)], producer_name="fusionplan-tests")
        m.ir_version = 10 if opset >= 23 else 8
        onnx.save(m, os.path.join(CONST, name + ".onnx"))


def rms_case(name, x, scale_shape, axis=None, eps=None, **attrs):
    s = rng.randn(*scale_shape).astype(np.float32)
    kw = dict(attrs)
    if axis is not None:
        kw["axis"] = axis
    if eps is not None:
        kw["epsilon"] = eps
    node = helper.make_node("RMSNormalization", ["X", "W"], ["Y"], **kw)
    y = rms_ref(x, s, -1 if axis is None else axis, 1e-5 if eps is None else eps)
    write(name, node, [("X", x), ("W", s)], y, 23)


def axis_name(prefix, axis, suffix=""):
    return f"{prefix}_axis{axis}{suffix}" if axis >= 0 else f"{prefix}_axis_negative_{-axis}{suffix}"


# ONNX's own cases: the scale shaped like the normalised dims x.shape[axis:]
for shape, eps, suffix in (((3, 4), None, ""), ((2, 3, 5), 0.1, "_epsilon"), ((2, 3, 4, 5), None, "")):
    x = rng.randn(*shape).astype(np.float32)
    r = len(shape)
    for axis in list(range(r)) + list(range(-1, -r - 1, -1)):
        rms_case(axis_name(f"test_rms_normalization_{r}d", axis, suffix), x, shape[axis % r:], axis, eps)
x = rng.randn(2, 3, 4, 5).astype(np.float32)
rms_case("test_rms_normalization_default_axis", x, (5,))

# Scales that broadcast to the normalised shape (and, per the spec's summary, to X)
x2, x3, x4 = rng.randn(3, 4).astype(np.float32), rng.randn(2, 3, 5).astype(np.float32), rng.randn(2, 3, 4, 5).astype(np.float32)
rms_case("rms_broadcast_2d_scale_1", x2, (1,))
rms_case("rms_broadcast_3d_axis1_scale_1xD", x3, (1, 5), 1)
rms_case("rms_broadcast_3d_axis1_scale_Tx1", x3, (3, 1), 1)
rms_case("rms_broadcast_3d_scale_leading_ones", x3, (1, 1, 5))
rms_case("rms_broadcast_3d_scale_per_row", x3, (3, 5), -1)
rms_case("rms_broadcast_4d_axis2_scale_Hx1", x4, (4, 1), 2)
rms_case("rms_broadcast_4d_axis0_scale_1", x4, (1,), 0, 0.1)
rms_case("rms_broadcast_4d_axis_negative_3_scale_Cx1x1", x4, (3, 1, 1), -3)
rms_case("rms_stash_type_1", x3, (5,), -1, None, stash_type=1)


def ln_case(name, x, scale_shape, bias_shape, axis=-1):
    s = rng.randn(*scale_shape).astype(np.float32)
    ins = [("X", x), ("S", s)]
    b = None
    if bias_shape is not None:
        b = rng.randn(*bias_shape).astype(np.float32)
        ins.append(("B", b))
    node = helper.make_node("LayerNormalization", [n for n, _ in ins], ["Y"], axis=axis)
    write(name, node, ins, ln_ref(x, s, b, axis), 17)


ln_case("layernorm_broadcast_scale_1_bias_D", x3, (1,), (5,))
ln_case("layernorm_broadcast_axis1_scale_1xD_bias_Tx1", x3, (1, 5), (3, 1), 1)
ln_case("layernorm_broadcast_scale_leading_ones_no_bias", x4, (1, 1, 1, 5), None)
ln_case("layernorm_broadcast_per_row", x3, (3, 5), (3, 1), -1)
print(len(os.listdir(OUT)), "cases in", OUT)
