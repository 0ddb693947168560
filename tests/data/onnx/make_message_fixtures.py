#!/usr/bin/python3
"""Writes the ONNX fixtures of tests/cli/messages.sh: models that are wrong in
a way python3-onnx's helpers refuse to build, so the protobuf wire format is
written by hand (field numbers from onnx.proto).

Run from anywhere: /usr/bin/python3 tests/data/onnx/make_message_fixtures.py
(the generated files are committed)."""
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def varint(v):
    out = bytearray()
    v &= (1 << 64) - 1
    while True:
        b = v & 0x7F
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def num(field, v):
    return varint(field << 3) + varint(v)


def msg(field, payload):
    if isinstance(payload, str):
        payload = payload.encode()
    return varint(field << 3 | 2) + varint(len(payload)) + payload


def value_info(name, dims):
    shape = b"".join(msg(1, num(1, d)) for d in dims)          # Dimension.dim_value
    tensor = num(1, 1) + msg(2, shape)                          # elem_type FLOAT, shape
    return msg(1, name) + msg(2, msg(1, tensor))                # name, type.tensor_type


def node(op, inputs, outputs, name):
    return b"".join(msg(1, i) for i in inputs) + b"".join(msg(2, o) for o in outputs) + msg(3, name) + msg(4, op)


def graph(nodes, inputs, outputs, inits=()):
    return (b"".join(msg(1, n) for n in nodes) + msg(2, "g") + b"".join(msg(5, t) for t in inits)
            + b"".join(msg(11, v) for v in inputs) + b"".join(msg(12, v) for v in outputs))


def model(g, opset):
    m = num(1, 8) + msg(7, g)                                   # ir_version 8, graph
    if opset is not None:
        m += msg(8, msg(1, "") + num(2, opset))                 # opset_import {"" , opset}
    return m


def save(data, name):
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(data)


def main():
    x, y = value_info("x", [1, 4, 8, 8]), value_info("y", [1, 4, 8, 8])
    relu = node("Relu", ["x"], ["y"], "relu")
    # No opset_import at all (ONNX requires one for the default domain).
    save(model(graph([relu], [x], [y]), None), "no_opset.onnx")
    # An initializer of 2^50 elements and no data: refused by its size.
    w = b"".join(num(1, d) for d in (1 << 20, 1 << 20, 1 << 10)) + num(2, 1) + msg(8, "W")
    add = node("Add", ["x", "W"], ["y"], "add")
    save(model(graph([add], [x], [y], [w]), 13), "huge_initializer.onnx")


if __name__ == "__main__":
    main()
