"""The staircase of optimal DRAM against the buffer (`fusionplan curve`)."""
import ctypes
import html
import json

from . import _lib
from ._lib import lib
from ._graph import as_graph
from ._hardware import as_hardware


class Step:
    """One step: from buffer_from bytes up, the optimum is dram_all bytes
    over all ops, by the plan group_of (group index per op id, -1 for graph
    inputs); groups, unfusable, mbu and layer_dram_all as the CLI prints."""

    def __init__(self, d):
        self.__dict__.update(d)

    @property
    def plan_groups(self):
        """The step's plan as lists of op ids, one per group index."""
        out = {}
        for op, k in enumerate(self.group_of):
            if k >= 0:
                out.setdefault(k, []).append(op)
        return [out[k] for k in sorted(out)]

    def row(self):
        return {k: v for k, v in self.__dict__.items() if k != "group_of"}

    def __repr__(self):
        return "Step(buffer_from=%d, dram_all=%d, groups=%d)" % (self.buffer_from, self.dram_all, self.groups)


class Curve:
    """curve.steps (Step), curve.rows() (dicts a pandas DataFrame takes),
    curve.to_json() (the file `curve --json` writes), curve.to_svg()."""

    def __init__(self, text, svg):
        self._text = text
        self.json = json.loads(text)
        self.svg = svg
        self.steps = [Step(p) for p in self.json["points"]]

    def rows(self):
        return [s.row() for s in self.steps]

    def to_json(self):
        return self._text

    def to_svg(self):
        return self.svg

    def __len__(self):
        return len(self.steps)

    def __iter__(self):
        return iter(self.steps)

    def __repr__(self):
        return "Curve(%s, %s, %d steps over %d..%d B)" % (self.json["model"], self.json["scheme"],
                                                          len(self.steps), self.json["min"], self.json["max"])

    def _repr_svg_(self):
        return self.svg

    def _repr_html_(self):
        rows = "".join("<tr><td>%d</td><td>%d</td><td>%d</td><td>%d</td><td>%d</td></tr>" % (
            s.buffer_from, s.dram_all, s.groups, s.mbu, s.layer_dram_all) for s in self.steps)
        return ("<p>%s, %s: %d steps</p><table><tr><th>buffer from</th><th>DRAM (all ops)</th>"
                "<th>groups</th><th>MBU</th><th>layer-by-layer</th></tr>%s</table>" % (
                    html.escape(self.json["model"]), self.json["scheme"], len(self.steps), rows))


def curve(graph, hw=None, *, min=None, max=None, scheme=None, objective=None, time_limit=None,
          max_states=None, max_candidates=None, memory_limit=None, threads=None):
    """The staircase of graph over buffers [min, max] (bytes or "64KB";
    default 64 KB to 4 MB), each step with its optimal plan. objective="energy"
    or "latency": the staircase of that optimum (dram_all then holds it in fJ
    or fs, and each step's "dram" its plan's DRAM bytes)."""
    g = as_graph(graph)
    h = as_hardware(hw)
    opts = {"min": min, "max": max, "scheme": scheme, "objective": objective,
            "time_limit": None if time_limit is None else float(time_limit), "max_states": max_states,
            "max_candidates": max_candidates, "memory_limit": memory_limit, "threads": threads}
    js, svg = ctypes.c_void_p(), ctypes.c_void_p()
    _lib.check(lib.lf_api_curve(g.handle, _lib.dumps(h.spec), _lib.dumps(opts), ctypes.byref(js),
                                ctypes.byref(svg)))
    text = _lib.take(js.value).decode()
    return Curve(text, _lib.take(svg.value).decode())
