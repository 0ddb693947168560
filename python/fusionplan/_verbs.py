"""The other verbs: optimize, schedule, run, models, validate."""
import ctypes
import json

from . import _lib
from ._lib import lib
from ._graph import Graph, as_graph
from ._hardware import as_hardware

try:
    import numpy
except ImportError:  # run() then returns lists
    numpy = None


def optimize(graph, hw=None, *, search="backtrack", objective="time", scheme=None, budget=None,
             max_steps=None, seed=None, time_limit=None, threads=None, dram=None, rules=None):
    """The substitution optimizer (`fusionplan optimize`, analytic costs):
    the rewritten Graph; its .optimize_report is the JSON report (dict).
    rules: rule sources as `--rules` (default "builtin,generated": the
    shipped generated set; "builtin" for the 22 built-in rules alone).
    When nothing applies, the result shares the input's network."""
    g = as_graph(graph)
    h = as_hardware(hw)
    opts = {"search": search, "objective": objective, "scheme": scheme, "budget": budget,
            "max_steps": max_steps, "seed": seed,
            "time_limit": None if time_limit is None else float(time_limit), "threads": threads,
            "dram": dram, "rules": rules}
    out, rep = ctypes.c_void_p(), ctypes.c_void_p()
    _lib.check(lib.lf_api_optimize(g.handle, _lib.dumps(h.spec), _lib.dumps(opts), ctypes.byref(out),
                                   ctypes.byref(rep)))
    report = json.loads(_lib.take(rep.value) or b"{}")
    src = dict(g.source, optimized=search)
    r = Graph(out.value, src) if out.value else Graph(g.handle, src, owner=g)
    r.optimize_report = report
    return r


def schedule(graph, hw=None, *, max_group_ops=None, max_groups=None, max_part_ops=None,
             max_states=None, max_endings=None, streams=None, merge=None, concurrent=None):
    """Inter-operator scheduling (`fusionplan schedule`, analytic latency):
    the JSON `schedule -o FILE` writes, as a dict (sequential, greedy, dos)."""
    g = as_graph(graph)
    h = as_hardware(hw)
    opts = {"max_group_ops": max_group_ops, "max_groups": max_groups, "max_part_ops": max_part_ops,
            "max_states": max_states, "max_endings": max_endings, "streams": streams, "merge": merge,
            "concurrent": concurrent}
    return _lib.call_json(lib.lf_api_schedule, g.handle, _lib.dumps(h.spec), _lib.dumps(opts))


class _ExecOptions(ctypes.Structure):
    _fields_ = [("seed", ctypes.c_uint64), ("threads", ctypes.c_int32), ("keep_all", ctypes.c_int32)]


class _Shape(ctypes.Structure):
    _fields_ = [("n", ctypes.c_int64), ("c", ctypes.c_int64), ("h", ctypes.c_int64), ("w", ctypes.c_int64)]


def run(graph, inputs=None, *, seed=1, threads=0):
    """Runs the network with the reference executor (float32, ONNX
    semantics). inputs: {input name: array of N*C*H*W floats} (others are
    drawn from seed, as `fusionplan run --seed`). Returns {output name:
    numpy array shaped N x C x H x W} (lists of floats without numpy)."""
    g = as_graph(graph)
    ops = g.to_dict()["ops"]
    ex = ctypes.c_void_p()
    opt = _ExecOptions(seed, threads, 0)
    _lib.check(lib.lf_exec_create(ctypes.byref(ex), g.handle, ctypes.byref(opt)))
    try:
        names = {o["name"]: o for o in ops if o["type"] == "Input"}
        for name, value in (inputs or {}).items():
            if name not in names:
                raise _lib.Error("run: no graph input '%s' (inputs: %s)" % (name, ", ".join(names)))
            if numpy is not None:
                arr = numpy.ascontiguousarray(value, dtype=numpy.float32).ravel()
                ptr, count = arr.ctypes.data, arr.size
            else:
                arr = (ctypes.c_float * len(value))(*value)
                ptr, count = ctypes.addressof(arr), len(value)
            _lib.check(lib.lf_exec_set_input(ex, names[name]["id"], ptr, count))
        _lib.check(lib.lf_exec_run(ex))
        out = {}
        for o in ops:
            if not o.get("output"):
                continue
            shape = _Shape()
            p = lib.lf_exec_output(ex, o["id"], ctypes.byref(shape))
            dims = (shape.n, shape.c, shape.h, shape.w)
            count = dims[0] * dims[1] * dims[2] * dims[3]
            buf = (ctypes.c_float * count).from_address(p)
            if numpy is not None:
                out[o["name"]] = numpy.array(buf, dtype=numpy.float32).reshape(dims)
            else:
                out[o["name"]] = list(buf)
        return out
    finally:
        lib.lf_exec_free(ex)


def info(graph, hw=None, *, scheme=None, ops=True):
    """The text `fusionplan info` prints: the network, the hardware, the
    fusable and unfusable ops, layer-by-layer DRAM, and (ops) one line per op
    with its weights, F_beta and F_D alone."""
    g = as_graph(graph)
    out = ctypes.c_void_p()
    _lib.check(lib.lf_api_info(g.handle, _lib.dumps(as_hardware(hw).spec), _lib.enc(scheme), 1 if ops else 0,
                               ctypes.byref(out)))
    return _lib.take(out.value).decode()


def models():
    """The built-in networks: dicts with name, family, input_size, min_input,
    ops, params and macs (`fusionplan models`)."""
    return _lib.call_json(lib.lf_api_models_json)


def names(kind):
    """The names the library accepts for one kind, in the order its help
    lists them: "search", "heuristic" (the budgeted searches), "scheme",
    "split", "proposer", "format" or "rules" (the registry, lf_names)."""
    return _lib.call_json(lib.lf_api_names_json, _lib.enc(kind))


def validate(path, graph=None, hw=None):
    """A plan file (JSON, XML or annotated ONNX) re-checked (`fusionplan
    validate`): {"model", "scheme", "issues"}; issues is [] when it checks."""
    g = None if graph is None else as_graph(graph)
    spec = None if hw is None else _lib.dumps(as_hardware(hw).spec)
    return _lib.call_json(lib.lf_api_validate_file, _lib.enc(str(path)), None if g is None else g.handle, spec)
