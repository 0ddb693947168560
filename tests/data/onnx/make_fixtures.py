#!/usr/bin/python3
"""Writes the small ONNX fixtures of tests/cli/onnx_*.sh and test_onnx.c.

Run from anywhere: /usr/bin/python3 tests/data/onnx/make_fixtures.py
(needs python3-onnx; the generated files are committed, so the tests do not).
"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(0)


def save(model, name):
    onnx.save(model, os.path.join(HERE, name))


def inp(name, dims):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, dims)


def init(name, shape):
    return numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32), name)


def model(nodes, inputs, outputs, inits=(), opset=13):
    g = helper.make_graph(nodes, "g", inputs, outputs, list(inits))
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)], producer_name="fixtures")


def tiny():
    """Conv -> BN -> Relu -> HardSigmoid*x -> Pad -> Conv -> Sigmoid*x -> Concat(Concat) -> GAP -> Reshape -> Gemm,
    plus a shape chain that folds to Reshape's target."""
    bn = [numpy_helper.from_array(np.abs(rng.standard_normal(8)).astype(np.float32) + 0.5, "bn.scale"),
          init("bn.bias", (8,)), init("bn.mean", (8,)),
          numpy_helper.from_array(np.abs(rng.standard_normal(8)).astype(np.float32) + 0.5, "bn.var")]
    nodes = [
        helper.make_node("Conv", ["x", "c1.w", "c1.b"], ["c1"], name="conv1", pads=[1, 1, 1, 1]),
        helper.make_node("BatchNormalization", ["c1", "bn.scale", "bn.bias", "bn.mean", "bn.var"], ["b1"],
                         name="bn1", epsilon=1e-3),
        helper.make_node("Relu", ["b1"], ["r1"], name="relu1"),
        helper.make_node("HardSigmoid", ["r1"], ["hs"], name="hsig", alpha=1.0 / 6, beta=0.5),
        helper.make_node("Mul", ["r1", "hs"], ["hw"], name="hswish"),
        helper.make_node("Pad", ["hw", "pads"], ["p"], name="pad", mode="constant"),
        helper.make_node("Conv", ["p", "c2.w"], ["c2"], name="conv2"),
        helper.make_node("Sigmoid", ["c2"], ["sg"], name="sig"),
        helper.make_node("Mul", ["c2", "sg"], ["silu"], name="silu"),
        helper.make_node("Identity", ["silu"], ["id"], name="ident"),
        helper.make_node("Concat", ["id", "hw"], ["cat0"], name="cat_inner", axis=1),
        helper.make_node("Concat", ["cat0", "id"], ["cat1"], name="cat_outer", axis=1),
        helper.make_node("GlobalAveragePool", ["cat1"], ["gap"], name="gap"),
        helper.make_node("Shape", ["gap"], ["shp"], name="shape"),
        helper.make_node("Gather", ["shp", "zero"], ["n"], name="gather", axis=0),
        helper.make_node("Unsqueeze", ["n", "axes0"], ["n1"], name="unsq"),
        helper.make_node("Concat", ["n1", "minus1"], ["tgt"], name="target", axis=0),
        helper.make_node("Reshape", ["gap", "tgt"], ["flat"], name="reshape"),
        helper.make_node("Gemm", ["flat", "fc.w", "fc.b"], ["y"], name="fc", transB=1),
    ]
    inits = [init("c1.w", (8, 3, 3, 3)), init("c1.b", (8,)), *bn, init("c2.w", (8, 8, 3, 3)),
             numpy_helper.from_array(np.array([0, 0, 1, 1, 0, 0, 1, 1], np.int64), "pads"),
             numpy_helper.from_array(np.array(0, np.int64), "zero"),
             numpy_helper.from_array(np.array([0], np.int64), "axes0"),
             numpy_helper.from_array(np.array([-1], np.int64), "minus1"),
             init("fc.w", (10, 24)), init("fc.b", (10,))]
    return model(nodes, [inp("x", ["batch", 3, 16, 16])], [inp("y", ["batch", 10])], inits)


def channel_shuffle_case():
    """ShuffleNet's channel shuffle as torch exports it (Reshape to 5-D, Transpose 1<->2, Reshape back)
    between a 1x1 Conv and a Relu, as a conformance case with numpy's expected output."""
    n, c, h, w, groups = 1, 12, 5, 4, 3
    nodes = [
        helper.make_node("Conv", ["x", "w"], ["c"], name="conv"),
        helper.make_node("Reshape", ["c", "s5"], ["r5"], name="view"),
        helper.make_node("Transpose", ["r5"], ["t5"], name="transpose", perm=[0, 2, 1, 3, 4]),
        helper.make_node("Reshape", ["t5", "s4"], ["r4"], name="view_back"),
        helper.make_node("Relu", ["r4"], ["y"], name="relu"),
    ]
    wt = rng.standard_normal((c, c, 1, 1)).astype(np.float32)
    inits = [numpy_helper.from_array(wt, "w"),
             numpy_helper.from_array(np.array([n, groups, c // groups, h, w], np.int64), "s5"),
             numpy_helper.from_array(np.array([n, -1, h, w], np.int64), "s4")]
    m = model(nodes, [inp("x", [n, c, h, w])], [inp("y", [n, c, h, w])], inits)
    x = rng.standard_normal((n, c, h, w)).astype(np.float32)
    conv = np.einsum("oi,nihw->nohw", wt[:, :, 0, 0], x)
    y = np.maximum(conv.reshape(n, groups, c // groups, h, w).transpose(0, 2, 1, 3, 4).reshape(n, c, h, w), 0)
    case = os.path.join(HERE, "conformance", "channel_shuffle")
    os.makedirs(os.path.join(case, "test_data_set_0"), exist_ok=True)
    onnx.save(m, os.path.join(case, "model.onnx"))
    for name, arr in (("input_0.pb", x), ("output_0.pb", y.astype(np.float32))):
        with open(os.path.join(case, "test_data_set_0", name), "wb") as f:
            f.write(numpy_helper.from_array(arr).SerializeToString())


def conformance_case(name, m, inputs, outputs):
    """Writes a case folder in the layout of ONNX's node tests (model.onnx, test_data_set_0)."""
    case = os.path.join(HERE, "conformance", name)
    os.makedirs(os.path.join(case, "test_data_set_0"), exist_ok=True)
    onnx.save(m, os.path.join(case, "model.onnx"))
    for prefix, arrays in (("input", inputs), ("output", outputs)):
        for k, arr in enumerate(arrays):
            with open(os.path.join(case, "test_data_set_0", f"{prefix}_{k}.pb"), "wb") as f:
                f.write(numpy_helper.from_array(arr).SerializeToString())


def gather_cases():
    """x[:, 0] and x[:, -1:] on tokens (a vision transformer's class token): Gather of one constant
    index from an activation, scalar and one-element indices."""
    x = rng.standard_normal((1, 5, 6)).astype(np.float32)
    for name, index, y in (("gather_scalar", np.array(0, np.int64), x[:, 0]),
                           ("gather_one", np.array([-1], np.int64), x[:, -1:])):
        nodes = [helper.make_node("Relu", ["x"], ["r"], name="relu"),
                 helper.make_node("Gather", ["r", "k"], ["y"], name="pick", axis=1)]
        m = model(nodes, [inp("x", list(x.shape))], [inp("y", list(y.shape))],
                  [numpy_helper.from_array(index, "k")])
        conformance_case(name, m, [x], [np.maximum(y, 0)])


def constant_mask_case():
    """A constant mask computed in the graph (as swin_t's shifted windows do): Range, Mod, Equal,
    Not, Where and ScatterND on constants fold to one tensor that is added to the input."""
    i64 = lambda v, n: numpy_helper.from_array(np.array(v, np.int64), n)
    nodes = [
        helper.make_node("Range", ["start", "limit", "delta"], ["idx"], name="range"),
        helper.make_node("Mod", ["idx", "four"], ["m"], name="mod"),
        helper.make_node("Equal", ["m", "two"], ["eq"], name="eq"),
        helper.make_node("Not", ["eq"], ["ne"], name="not"),
        helper.make_node("Where", ["ne", "one", "minus2"], ["w"], name="where"),
        helper.make_node("ScatterND", ["zeros", "at", "upd"], ["sc"], name="scatter"),
        helper.make_node("Add", ["w", "sc"], ["mask"], name="mask"),
        helper.make_node("Add", ["x", "mask"], ["y"], name="add"),
    ]
    inits = [i64(-4, "start"), i64(7, "limit"), i64(2, "delta"), i64(4, "four"), i64(2, "two"),
             numpy_helper.from_array(np.array(1.0, np.float32), "one"),
             numpy_helper.from_array(np.array(-2.0, np.float32), "minus2"),
             numpy_helper.from_array(np.zeros(6, np.float32), "zeros"),
             i64([[1], [4]], "at"), numpy_helper.from_array(np.array([5.0, 7.0], np.float32), "upd")]
    m = model(nodes, [inp("x", [1, 6])], [inp("y", [1, 6])], inits)
    idx = np.arange(-4, 7, 2)  # -4 -2 0 2 4 6: Mod with fmod=0 takes the divisor's sign, so -2 % 4 = 2
    w = np.where(np.mod(idx, 4) != 2, 1.0, -2.0).astype(np.float32)
    sc = np.zeros(6, np.float32)
    sc[[1, 4]] = [5.0, 7.0]
    x = rng.standard_normal((1, 6)).astype(np.float32)
    conformance_case("constant_mask", m, [x], [(x + w + sc).astype(np.float32)])


def split_consumed_case():
    """Split whose outputs are read by later nodes: the Slices the split rewrite appends must be
    lowered before their readers, which come earlier in the file."""
    x = rng.standard_normal((1, 6, 3, 4)).astype(np.float32)
    nodes = [helper.make_node("Split", ["x", "parts"], ["a", "b"], name="split", axis=1),
             helper.make_node("Relu", ["a"], ["ra"], name="relu"),
             helper.make_node("Sigmoid", ["b"], ["sb"], name="sigmoid"),
             helper.make_node("Concat", ["sb", "ra"], ["y"], name="cat", axis=1)]
    m = model(nodes, [inp("x", list(x.shape))], [inp("y", list(x.shape))],
              [numpy_helper.from_array(np.array([2, 4], np.int64), "parts")])
    y = np.concatenate([1 / (1 + np.exp(-x[:, 2:])), np.maximum(x[:, :2], 0)], axis=1).astype(np.float32)
    conformance_case("split_consumed", m, [x], [y])


def main():
    t = tiny()
    save(t, "tiny.onnx")
    data = t.SerializeToString()
    with open(os.path.join(HERE, "truncated.onnx"), "wb") as f:
        f.write(data[: len(data) // 2])
    with open(os.path.join(HERE, "corrupt.onnx"), "wb") as f:
        f.write(bytes([0x0A, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F]) + b"garbage" * 8)

    relu = lambda a, b, n: helper.make_node("Relu", [a], [b], name=n)
    save(model([helper.make_node("Add", ["x", "b"], ["a"], name="add"), relu("a", "b", "loop"),
                relu("a", "y", "out")], [inp("x", [1, 4, 8, 8])], [inp("y", [1, 4, 8, 8])]), "cycle.onnx")
    save(model([helper.make_node("FrobnicateNd", ["x"], ["y"], name="mystery")],
               [inp("x", [1, 4, 8, 8])], [inp("y", [1, 4, 8, 8])]), "unknown_op.onnx")
    save(model([relu("x", "y", "relu")], [inp("x", ["batch", 4, 8, 8])], [inp("y", ["batch", 4, 8, 8])]),
         "free_dim.onnx")
    save(model([relu("x", "y", "relu")], [inp("x", [1, 1 << 40, 1 << 40, 1 << 20])],
               [inp("y", [1, 1, 1, 1])]), "absurd_dims.onnx")
    # A Reshape whose target overflows the element count of its output.
    save(model([helper.make_node("Reshape", ["x", "t"], ["y"], name="blowup")], [inp("x", [1, 4, 8, 8])],
               [inp("y", [1, 1, 1, 1])],
               [numpy_helper.from_array(np.array([1 << 40, 1 << 40, 0, 0], np.int64), "t")]), "absurd_reshape.onnx")

    w = init("w", (4, 4, 1, 1))
    w.ClearField("raw_data")
    w.ClearField("float_data")
    w.data_location = TensorProto.EXTERNAL
    for k, v in (("location", "missing_weights.bin"), ("offset", "0"), ("length", "64")):
        e = w.external_data.add()
        e.key, e.value = k, v
    save(model([helper.make_node("Conv", ["x", "w"], ["y"], name="conv")], [inp("x", [1, 4, 8, 8])],
               [inp("y", [1, 4, 8, 8])], [w]), "missing_external.onnx")

    # The same with the data file present (relative to the model).
    w2 = init("w", (4, 4, 1, 1))
    raw = w2.raw_data
    w2.ClearField("raw_data")
    w2.data_location = TensorProto.EXTERNAL
    for k, v in (("location", "external_weights.bin"), ("offset", "0"), ("length", str(len(raw)))):
        e = w2.external_data.add()
        e.key, e.value = k, v
    with open(os.path.join(HERE, "external_weights.bin"), "wb") as f:
        f.write(raw)
    save(model([helper.make_node("Conv", ["x", "w"], ["y"], name="conv")], [inp("x", [1, 4, 8, 8])],
               [inp("y", [1, 4, 8, 8])], [w2]), "external.onnx")
    # last: the random draws of the fixtures above stay as they were
    channel_shuffle_case()
    gather_cases()
    constant_mask_case()
    split_consumed_case()


if __name__ == "__main__":
    main()
