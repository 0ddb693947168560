"""Networks: a built-in one or an ONNX file, loaded by the library."""
import ctypes
import json

from . import _lib
from ._lib import lib


class Op:
    """One op of a graph: id, name, type, inputs (op ids), shape (N, C, H,
    W), attrs (dict), weights and macs, and whether it is a graph output."""

    __slots__ = ("id", "name", "type", "inputs", "shape", "attrs", "weights", "macs", "output")

    def __init__(self, d):
        self.id = d["id"]
        self.name = d["name"]
        self.type = d["type"]
        self.inputs = list(d.get("inputs", []))
        self.shape = tuple(d.get("shape", ()))
        self.attrs = d.get("attrs") or {}
        self.weights = d.get("weights", 0)
        self.macs = d.get("macs", 0)
        self.output = bool(d.get("output", False))

    def __repr__(self):
        return "Op(%d, %r, %s, shape=%s)" % (self.id, self.name, self.type, self.shape)


class Graph:
    """A network as the library holds it (lf_graph). Make one with
    Graph.builtin or Graph.from_onnx; plan it with fusionplan.plan."""

    def __init__(self, handle, source, owner=None):
        self._h = handle
        self._owner = owner  # a graph whose handle this one shares (not freed here)
        self.source = source
        self._json = None

    @classmethod
    def _load(cls, source):
        h = ctypes.c_void_p()
        _lib.check(lib.lf_api_graph_load(_lib.dumps(source), ctypes.byref(h)))
        return cls(h.value, source)

    @classmethod
    def builtin(cls, name, input_size=None, batch=None):
        """A built-in network (fusionplan.models() lists them)."""
        return cls._load({"model": name, "input_size": input_size, "batch": batch})

    @classmethod
    def from_onnx(cls, path, input_shape=None, no_rewrite=None):
        """An ONNX file; input_shape fixes free dims: "input=1,3,224,224" or
        {"input": (1, 3, 224, 224)}; no_rewrite switches normalisations off
        (a list or a comma-separated string)."""
        if isinstance(input_shape, dict):
            input_shape = ";".join("%s=%s" % (k, ",".join(str(int(x)) for x in v))
                                   for k, v in input_shape.items())
        if isinstance(no_rewrite, (list, tuple)):
            no_rewrite = ",".join(no_rewrite)
        return cls._load({"onnx": str(path), "input_shape": input_shape, "no_rewrite": no_rewrite})

    def __del__(self):
        h, self._h = getattr(self, "_h", None), None
        if h and self._owner is None and lib is not None:
            lib.lf_graph_free(h)

    @property
    def handle(self):
        return self._h

    def to_dict(self):
        """The graph as `fusionplan info --json` writes it."""
        if self._json is None:
            self._json = _lib.call_json(lib.lf_api_graph_json, self._h)
        return self._json

    def to_json(self):
        return json.dumps(self.to_dict())

    def to_onnx(self, path, seed=0):
        """Writes the graph as ONNX with the executor's weights for seed."""
        _lib.check(lib.lf_api_graph_save_onnx(self._h, _lib.enc(str(path)), seed))

    @property
    def name(self):
        return self.to_dict()["name"]

    @property
    def hash(self):
        return self.to_dict()["hash"]

    @property
    def params(self):
        return self.to_dict()["params"]

    @property
    def macs(self):
        return self.to_dict()["macs"]

    @property
    def ops(self):
        return [Op(d) for d in self.to_dict()["ops"]]

    def __len__(self):
        return len(self.to_dict()["ops"])

    def __repr__(self):
        d = self.to_dict()
        return "Graph(%r, %d ops, %d params, %.3f GMACs)" % (d["name"], len(d["ops"]), d["params"],
                                                             d["macs"] / 1e9)


def as_graph(g):
    """A Graph, or a built-in network's name."""
    if isinstance(g, Graph):
        return g
    if isinstance(g, str):
        return Graph.builtin(g)
    raise TypeError("expected a fusionplan.Graph or a built-in network's name, got %r" % (g,))
