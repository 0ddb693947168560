#!/usr/bin/python3
"""Writes tests/data/onnx/transformer/<case>: the transformer patterns and ops of docs/onnx.md as
small models in the layout of ONNX's node tests (model.onnx, test_data_set_0 with numpy's output),
checked by tests/cli/onnx_transformer.sh with `fusionplan conformance` and `fusionplan import`.

Run from anywhere: /usr/bin/python3 tests/data/onnx/make_transformer_fixtures.py
(needs python3-onnx; the generated files are committed, so the tests do not).
"""
import math
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "transformer")
rng = np.random.default_rng(36)


def f32(a, name):
    return numpy_helper.from_array(np.asarray(a, np.float32), name)


def i64(a, name):
    return numpy_helper.from_array(np.asarray(a, np.int64), name)


def case(name, nodes, inputs, outputs, inits=(), opset=13, check=True):
    """inputs/outputs: lists of (name, array); numpy computes the outputs."""
    vi = lambda n, a: helper.make_tensor_value_info(n, TensorProto.FLOAT, list(a.shape))
    g = helper.make_graph(nodes, name, [vi(n, a) for n, a in inputs], [vi(n, a) for n, a in outputs], list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)], producer_name="fixtures")
    if check:  # Debian's onnx 1.12 knows opsets up to 17
        onnx.checker.check_model(m)
    d = os.path.join(HERE, name)
    os.makedirs(os.path.join(d, "test_data_set_0"), exist_ok=True)
    onnx.save(m, os.path.join(d, "model.onnx"))
    for prefix, arrays in (("input", inputs), ("output", outputs)):
        for k, (n, a) in enumerate(arrays):
            with open(os.path.join(d, "test_data_set_0", f"{prefix}_{k}.pb"), "wb") as f:  # named when several
                f.write(numpy_helper.from_array(np.asarray(a, np.float32), n if len(arrays) > 1 else None)
                        .SerializeToString())


def N(op, i, o, name, **kw):
    return helper.make_node(op, i, o, name=name, **kw)


def layernorm():
    """nn.LayerNorm as torch writes it below opset 17."""
    x = rng.standard_normal((1, 5, 8)).astype(np.float32)
    g, b = rng.standard_normal(8).astype(np.float32), rng.standard_normal(8).astype(np.float32)
    nodes = [N("Relu", ["x"], ["r"], "relu"), N("ReduceMean", ["r"], ["m"], "mean", axes=[-1]),
             N("Sub", ["r", "m"], ["d"], "sub"), N("Pow", ["d", "two"], ["p"], "pow"),
             N("ReduceMean", ["p"], ["v"], "var", axes=[-1]), N("Add", ["v", "eps"], ["ve"], "add_eps"),
             N("Sqrt", ["ve"], ["s"], "sqrt"), N("Div", ["d", "s"], ["n"], "div"),
             N("Mul", ["n", "g"], ["ng"], "scale"), N("Add", ["ng", "b"], ["y"], "shift")]
    r = np.maximum(x, 0)
    m = r.mean(-1, keepdims=True)
    v = ((r - m) ** 2).mean(-1, keepdims=True)
    y = (r - m) / np.sqrt(v + 1e-5) * g + b
    case("layernorm_written", nodes, [("x", x)], [("y", y)],
         [f32(2.0, "two"), f32(1e-5, "eps"), f32(g, "g"), f32(b, "b")])


def gelu():
    x = rng.standard_normal((1, 4, 6)).astype(np.float32)
    erf = np.vectorize(math.erf)
    y = 0.5 * x * (1 + erf(x / math.sqrt(2)))
    nodes = [N("Div", ["x", "sqrt2"], ["a"], "div"), N("Erf", ["a"], ["e"], "erf"),
             N("Add", ["e", "one"], ["c"], "add"), N("Mul", ["x", "c"], ["d"], "mul"),
             N("Mul", ["d", "half"], ["y"], "half")]
    case("gelu_erf", nodes, [("x", x)], [("y", y)], [f32(math.sqrt(2), "sqrt2"), f32(1, "one"), f32(0.5, "half")])
    k = math.sqrt(2 / math.pi)
    y = 0.5 * x * (1 + np.tanh(k * (x + 0.044715 * x ** 3)))
    nodes = [N("Mul", ["x", "half"], ["h"], "half"), N("Pow", ["x", "three"], ["x3"], "cube"),
             N("Mul", ["x3", "c"], ["w"], "coef"), N("Add", ["x", "w"], ["u"], "inner"),
             N("Mul", ["u", "k"], ["t"], "scale"), N("Tanh", ["t"], ["th"], "tanh"),
             N("Add", ["th", "one"], ["c1"], "one_plus"), N("Mul", ["h", "c1"], ["y"], "gelu")]
    case("gelu_tanh", nodes, [("x", x)], [("y", y)],
         [f32(0.5, "half"), f32(3, "three"), f32(0.044715, "c"), f32(k, "k"), f32(1, "one")])


def swin_windows():
    """Swin's window partition (rank 6), a mask added to the windows viewed at rank 5, and the
    window reverse (rank 6), as torchvision writes them; windows of 2 x 2 on a 4 x 6 map, 3 channels."""
    x = rng.standard_normal((1, 4, 6, 3)).astype(np.float32)
    mask = rng.standard_normal((1, 6, 1, 4, 1)).astype(np.float32)
    w = x.reshape(1, 2, 2, 3, 2, 3).transpose(0, 1, 3, 2, 4, 5).reshape(-1, 4, 3)  # 6 windows of 4 tokens
    s = (w.reshape(1, 6, 1, 4, 3) + mask).reshape(-1, 4, 3)
    s = np.maximum(s, 0)
    y = s.reshape(1, 2, 3, 2, 2, 3).transpose(0, 1, 3, 2, 4, 5).reshape(1, 4, 6, 3)
    nodes = [N("Reshape", ["x", "s6"], ["v6"], "partition_view"),
             N("Transpose", ["v6"], ["t6"], "partition", perm=[0, 1, 3, 2, 4, 5]),
             N("Reshape", ["t6", "s3"], ["win"], "windows"),
             N("Reshape", ["win", "s5"], ["v5"], "mask_view"), N("Add", ["v5", "mask"], ["a5"], "add_mask"),
             N("Reshape", ["a5", "s3"], ["a3"], "mask_back"), N("Relu", ["a3"], ["r"], "relu"),
             N("Reshape", ["r", "s6b"], ["u6"], "reverse_view"),
             N("Transpose", ["u6"], ["ut"], "reverse", perm=[0, 1, 3, 2, 4, 5]),
             N("Reshape", ["ut", "sx"], ["y"], "merge")]
    case("swin_windows", nodes, [("x", x)], [("y", y)],
         [i64([1, 2, 2, 3, 2, 3], "s6"), i64([-1, 4, 3], "s3"), i64([1, 6, 1, 4, 3], "s5"), f32(mask, "mask"),
          i64([1, 2, 3, 2, 2, 3], "s6b"), i64([1, 4, 6, 3], "sx")])


def gqa_expand():
    """Grouped-query attention's key/value heads repeated: Unsqueeze to rank 5, Expand, Reshape."""
    k = rng.standard_normal((1, 2, 5, 3)).astype(np.float32)
    y = np.repeat(k, 3, axis=1)
    nodes = [N("Relu", ["k"], ["r"], "relu"), N("Unsqueeze", ["r", "ax"], ["u"], "unsqueeze"),
             N("Expand", ["u", "shape"], ["e"], "expand"), N("Reshape", ["e", "s4"], ["y"], "heads")]
    case("gqa_expand", nodes, [("k", k)], [("y", np.maximum(y, 0))],
         [i64([2], "ax"), i64([1, 2, 3, 5, 3], "shape"), i64([1, 6, 5, 3], "s4")])


def masks():
    """A causal mask as Where with a constant condition, then Softmax; Trilu of an activation."""
    s = rng.standard_normal((1, 2, 4, 4)).astype(np.float32)
    causal = np.tril(np.ones((4, 4), bool))
    w = np.where(causal, s, np.float32(-3.4028234663852886e38))
    e = np.exp(w - w.max(-1, keepdims=True))
    y = e / e.sum(-1, keepdims=True)
    nodes = [N("Where", ["c", "s", "low"], ["w"], "mask"), N("Softmax", ["w"], ["y"], "softmax", axis=-1)]
    case("where_causal", nodes, [("s", s)], [("y", y)],
         [numpy_helper.from_array(causal, "c"), f32(-3.4028234663852886e38, "low")])
    x = rng.standard_normal((2, 3, 5)).astype(np.float32)
    case("trilu_lower", [N("Trilu", ["x", "k"], ["y"], "tril", upper=0)], [("x", x)],
         [("y", np.tril(x, 1))], [i64(1, "k")], opset=14)


def einsum():
    """Attention scores as exporters write them with Einsum, and a projection with the weight
    transposed."""
    q = rng.standard_normal((1, 2, 3, 4)).astype(np.float32)
    k = rng.standard_normal((1, 2, 5, 4)).astype(np.float32)
    case("einsum_scores", [N("Einsum", ["q", "k"], ["y"], "scores", equation="bhqd,bhkd->bhqk")],
         [("q", q), ("k", k)], [("y", np.einsum("bhqd,bhkd->bhqk", q, k))], opset=12)
    x = rng.standard_normal((2, 3, 4)).astype(np.float32)
    w = rng.standard_normal((2, 6, 4)).astype(np.float32)
    case("einsum_transposed", [N("Einsum", ["x", "w"], ["y"], "proj", equation="bij,bkj->bki")],
         [("x", x), ("w", w)], [("y", np.einsum("bij,bkj->bki", x, w))], opset=12)


def rmsnorm():
    """Opset 23's RMSNormalization over the last axis (Llama's RMSNorm as one op)."""
    x = rng.standard_normal((1, 5, 8)).astype(np.float32)
    w = rng.standard_normal(8).astype(np.float32)
    y = x / np.sqrt((x * x).mean(-1, keepdims=True) + 1e-6) * w
    case("rmsnorm_op", [N("RMSNormalization", ["x", "w"], ["y"], "rms", axis=-1, epsilon=1e-6)], [("x", x)],
         [("y", y)], [f32(w, "w")], opset=23, check=False)


def rmsnorm_written():
    """RMSNorm written out as torch exports Llama's (HF LlamaRMSNorm: weight * (x * rsqrt(mean(x^2) + eps)),
    rsqrt as 1 / Sqrt) and as Reciprocal(Sqrt) with Pow, a float Cast and the weight on the right; and
    one without a weight (a scale of ones); each becomes one RMSNormalization (`rmsnorm` rewrite)."""
    x = rng.standard_normal((1, 5, 8)).astype(np.float32)
    w = rng.standard_normal(8).astype(np.float32)
    y = w * (x * (1 / np.sqrt((x * x).mean(-1, keepdims=True) + 1e-5)))
    nodes = [N("Mul", ["x", "x"], ["sq"], "square"), N("ReduceMean", ["sq"], ["ms"], "mean", axes=[-1]),
             N("Add", ["ms", "eps"], ["pe"], "add_eps"), N("Sqrt", ["pe"], ["s"], "sqrt"),
             N("Div", ["one", "s"], ["r"], "rsqrt"), N("Mul", ["x", "r"], ["n"], "normalize"),
             N("Mul", ["w", "n"], ["y"], "scale")]
    case("rmsnorm_rsqrt", nodes, [("x", x)], [("y", y)], [f32(1e-5, "eps"), f32([1.0], "one"), f32(w, "w")])
    x = rng.standard_normal((1, 2, 4, 6)).astype(np.float32)
    w = rng.standard_normal((4, 6)).astype(np.float32)
    y = x * (1 / np.sqrt((x ** 2).mean((-2, -1), keepdims=True) + 1e-6)) * w
    nodes = [N("Pow", ["x", "two"], ["sq"], "pow"), N("ReduceMean", ["sq"], ["ms"], "mean", axes=[2, 3]),
             N("Add", ["eps", "ms"], ["pe"], "add_eps"), N("Sqrt", ["pe"], ["s"], "sqrt"),
             N("Reciprocal", ["s"], ["r"], "inv"), N("Mul", ["r", "x"], ["n"], "normalize"),
             N("Cast", ["n"], ["c"], "cast", to=TensorProto.FLOAT), N("Mul", ["c", "w"], ["y"], "scale")]
    case("rmsnorm_reciprocal", nodes, [("x", x)], [("y", y)], [f32(2.0, "two"), f32(1e-6, "eps"), f32(w, "w")])
    x = rng.standard_normal((1, 3, 8)).astype(np.float32)
    y = x / np.sqrt((x * x).mean(-1, keepdims=True) + 1e-5)
    nodes = [N("Mul", ["x", "x"], ["sq"], "square"), N("ReduceMean", ["sq"], ["ms"], "mean", axes=[-1]),
             N("Add", ["ms", "eps"], ["pe"], "add_eps"), N("Sqrt", ["pe"], ["s"], "sqrt"),
             N("Div", ["x", "s"], ["y"], "normalize")]
    case("rmsnorm_no_weight", nodes, [("x", x)], [("y", y)], [f32(1e-5, "eps")])


def einsum_forms():
    """Einsum beyond the matrix product: a batched trace of activations ("bii->b"), an outer
    product ("bi,bj->bij"), and an implicit-output matrix product with an ellipsis ("...ij,jk")."""
    x = rng.standard_normal((2, 4, 4)).astype(np.float32)
    nodes = [N("Relu", ["x"], ["r"], "relu"), N("Einsum", ["r"], ["y"], "trace", equation="bii->b")]
    case("einsum_trace", nodes, [("x", x)], [("y", np.einsum("bii->b", np.maximum(x, 0)))], opset=12)
    a = rng.standard_normal((2, 3)).astype(np.float32)
    b = rng.standard_normal((2, 5)).astype(np.float32)
    case("einsum_outer", [N("Einsum", ["a", "b"], ["y"], "outer", equation="bi,bj->bij")],
         [("a", a), ("b", b)], [("y", np.einsum("bi,bj->bij", a, b))], opset=12)
    x = rng.standard_normal((2, 3, 4)).astype(np.float32)
    w = rng.standard_normal((4, 5)).astype(np.float32)
    case("einsum_implicit", [N("Einsum", ["x", "w"], ["y"], "proj", equation="...ij,jk")],
         [("x", x)], [("y", np.einsum("...ij,jk", x, w))], [f32(w, "w")], opset=12)


def int64_causal_mask():
    """A causal mask built in int64 as torch exports `torch.ones(T, T, dtype=torch.long).tril()` then
    `scores.masked_fill(mask == 0, lowest)`: Trilu and Equal on int64 constants fold, the Where has a
    constant condition."""
    x = rng.standard_normal((1, 2, 4, 4)).astype(np.float32)
    low = np.float32(np.finfo(np.float32).min)
    nodes = [N("Relu", ["x"], ["r"], "relu"), N("Trilu", ["ones", "k"], ["m"], "tril", upper=0),
             N("Equal", ["m", "zero"], ["c"], "is_zero"), N("Where", ["c", "low", "r"], ["y"], "mask")]
    m = np.tril(np.ones((4, 4), np.int64))
    y = np.where(m == 0, low, np.maximum(x, 0))
    case("causal_int64", nodes, [("x", x)], [("y", y)],
         [i64(np.ones((4, 4)), "ones"), i64(0, "k"), i64(0, "zero"), f32(low, "low")], opset=14)


def softmax(s):
    e = np.exp(s - s.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def attention():
    """Opset 23's Attention: 3-D inputs with grouped-query heads (4 query, 2 key/value), causal, plus
    a float mask; 4-D inputs with a KV cache, a bool mask and present_key/present_value read."""
    b, s, hq, hkv, d = 1, 5, 4, 2, 3
    q = rng.standard_normal((b, s, hq * d)).astype(np.float32)
    k = rng.standard_normal((b, s, hkv * d)).astype(np.float32)
    v = rng.standard_normal((b, s, hkv * d)).astype(np.float32)
    mask = rng.standard_normal((s, s)).astype(np.float32)
    heads = lambda x, h: x.reshape(b, s, h, d).transpose(0, 2, 1, 3)
    q4, k4, v4 = heads(q, hq), np.repeat(heads(k, hkv), 2, axis=1), np.repeat(heads(v, hkv), 2, axis=1)
    sc = q4 @ k4.transpose(0, 1, 3, 2) / math.sqrt(d) + mask + np.triu(np.full((s, s), -np.inf), 1)
    y = (softmax(sc) @ v4).transpose(0, 2, 1, 3).reshape(b, s, hq * d)
    case("attention_gqa_causal", [N("Attention", ["q", "k", "v", "mask"], ["y"], "attn", is_causal=1,
                                    q_num_heads=hq, kv_num_heads=hkv)],
         [("q", q), ("k", k), ("v", v), ("mask", mask)], [("y", y)], opset=23, check=False)
    h, p, n, dv = 2, 3, 2, 4
    q = rng.standard_normal((1, h, n, d)).astype(np.float32)
    k = rng.standard_normal((1, h, n, d)).astype(np.float32)
    v = rng.standard_normal((1, h, n, dv)).astype(np.float32)
    pk = rng.standard_normal((1, h, p, d)).astype(np.float32)
    pv = rng.standard_normal((1, h, p, dv)).astype(np.float32)
    bm = rng.random((n, p + n)) > 0.3
    bm[:, 0] = True
    kk, vv = np.concatenate([pk, k], 2), np.concatenate([pv, v], 2)
    sc = q @ kk.transpose(0, 1, 3, 2) * 0.5 + np.where(bm, 0, -np.inf)
    y = softmax(sc) @ vv
    case("attention_kv_cache", [N("Attention", ["q", "k", "v", "bm", "pk", "pv"], ["y", "present_k", "present_v"],
                                  "attn", scale=0.5)],
         [("q", q), ("k", k), ("v", v), ("pk", pk), ("pv", pv)],
         [("y", y), ("present_k", kk), ("present_v", vv)], [numpy_helper.from_array(bm, "bm")], opset=23,
         check=False)


def attention_refused():
    """An Attention whose qk_matmul_output is read: refused with one line (tests/data/onnx, not a case)."""
    t = lambda n, dims: helper.make_tensor_value_info(n, TensorProto.FLOAT, dims)
    g = helper.make_graph([N("Attention", ["q", "k", "v"], ["y", "", "", "qk"], "attn")], "attention_qk",
                          [t("q", [1, 2, 3, 4]), t("k", [1, 2, 3, 4]), t("v", [1, 2, 3, 4])],
                          [t("y", [1, 2, 3, 4]), t("qk", [1, 2, 3, 3])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 23)], producer_name="fixtures")
    onnx.save(m, os.path.join(os.path.dirname(HERE), "attention_qk_output.onnx"))


def rotary():
    """Opset 23's RotaryEmbedding: 3-D input, interleaved, caches read at position_ids; 4-D input,
    rotate-half on the first 4 of 6 features, [B, S, r/2] caches."""
    b, s, h, d = 2, 3, 2, 4
    x = rng.standard_normal((b, s, h * d)).astype(np.float32)
    cos = rng.standard_normal((8, d // 2)).astype(np.float32)
    sin = rng.standard_normal((8, d // 2)).astype(np.float32)
    pos = np.array([[0, 1, 2], [5, 6, 7]], np.int64)
    x4 = x.reshape(b, s, h, d)
    c, sn = cos[pos][:, :, None, :], sin[pos][:, :, None, :]
    x1, x2 = x4[..., 0::2], x4[..., 1::2]
    y = np.stack([x1 * c - x2 * sn, x1 * sn + x2 * c], -1).reshape(b, s, h * d)
    case("rotary_interleaved", [N("RotaryEmbedding", ["x", "cos", "sin", "pos"], ["y"], "rope", interleaved=1,
                                  num_heads=h)],
         [("x", x)], [("y", y)], [f32(cos, "cos"), f32(sin, "sin"), i64(pos, "pos")], opset=23, check=False)
    d, r = 6, 4
    x = rng.standard_normal((1, h, s, d)).astype(np.float32)
    cos = rng.standard_normal((1, s, r // 2)).astype(np.float32)
    sin = rng.standard_normal((1, s, r // 2)).astype(np.float32)
    c, sn = cos[:, None], sin[:, None]
    x1, x2 = x[..., :r // 2], x[..., r // 2:r]
    y = np.concatenate([x1 * c - x2 * sn, x1 * sn + x2 * c, x[..., r:]], -1)
    case("rotary_partial", [N("RotaryEmbedding", ["x", "cos", "sin"], ["y"], "rope", rotary_embedding_dim=r)],
         [("x", x)], [("y", y)], [f32(cos, "cos"), f32(sin, "sin")], opset=23, check=False)


def pixel_shuffle():
    """PixelShuffle(2) written as a rank-6 view with C = 3 (Reshape, Transpose (0, 1, 4, 2, 5, 3),
    Reshape: five runs of axes, computed as two rank-4 Transposes)."""
    x = rng.standard_normal((1, 12, 2, 3)).astype(np.float32)
    y = x.reshape(1, 3, 2, 2, 2, 3).transpose(0, 1, 4, 2, 5, 3).reshape(1, 3, 4, 6)
    nodes = [N("Relu", ["x"], ["r"], "relu"), N("Reshape", ["r", "s6"], ["v6"], "view6"),
             N("Transpose", ["v6"], ["t6"], "shuffle", perm=[0, 1, 4, 2, 5, 3]), N("Reshape", ["t6", "s4"], ["y"], "merge")]
    case("pixel_shuffle_view", nodes, [("x", x)], [("y", np.maximum(y, 0))],
         [i64([1, 3, 2, 2, 2, 3], "s6"), i64([1, 3, 4, 6], "s4")])


def main():
    layernorm()
    gelu()
    swin_windows()
    gqa_expand()
    masks()
    einsum()
    rmsnorm()
    attention()
    attention_refused()
    rotary()
    pixel_shuffle()
    rmsnorm_written()
    einsum_forms()
    int64_causal_mask()


if __name__ == "__main__":
    main()
