"""Plans: one lf_plan_network call, held by the library, read as JSON."""
import ctypes
import html
import json

from . import _lib, _progress
from ._lib import lib
from ._graph import as_graph
from ._hardware import as_hardware


class Group:
    """A fusion group: id, ops (op ids), names, f_beta, f_d, mbu, weights,
    weight_reads, tile_rows, valid, inputs, outputs, and (DESIGN §19) macs,
    sram_bytes, energy_pj ({dram, sram, mac, total} or None), latency_s,
    latency_serial_s, bound ("compute"/"memory" or None)
    (docs/plan-format.md)."""

    def __init__(self, d):
        self.__dict__.update(d)
        self.tiles = d["tile_rows"]

    def __repr__(self):
        return "Group(%d, %d ops, f_beta=%d, f_d=%d)" % (self.id, len(self.ops), self.f_beta, self.f_d)


class Plan:
    """A plan of a graph on some hardware. Metrics: dram_fusable, dram_all,
    mbu, n_groups, unfusable, invalid, dram_time_s, energy_j, and energy_pj
    ({dram, sram, mac, total} or None), latency_s, latency_serial_s, bound
    (None where the hardware lacks the figures); the run:
    search, optimal, exact_dram, lower_bound, wall_s; groups; save(path);
    validate(). Under objective="energy" or "latency", lower_bound (a
    certified bound of a best-effort or compare_exact run past its limits),
    exact_objective (the optimum's figure) and objective_fusable (this
    plan's) are in objective_unit: "fJ" or "fs" ("B" for DRAM); pruned: the
    downsets an exact run's upper_bound pruned."""

    def __init__(self, handle, graph, hw):
        self._h = handle
        self.graph = graph  # the library's plan points into it
        self.hardware = hw
        self.run = _lib.call_json(lib.lf_api_plan_run_json, self._h)
        self._json = None

    def __del__(self):
        h, self._h = getattr(self, "_h", None), None
        if h and lib is not None:
            lib.lf_api_plan_free(h)

    def _text(self, fmt):
        out, n = ctypes.c_void_p(), ctypes.c_size_t()
        _lib.check(lib.lf_api_plan_render(self._h, fmt.encode(), ctypes.byref(out), ctypes.byref(n)))
        return _lib.take(out.value, n.value)

    @property
    def json(self):
        """The plan file as a dict (docs/plan-format.md), parsed on first use."""
        if self._json is None:
            self._json = json.loads(self._text("json"))
        return self._json

    @property
    def metrics(self):
        """The plan file's "metrics" (the same values, without parsing the plan)."""
        return self.run["metrics"]

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        if name in ("dram_fusable", "dram_all", "mbu", "unfusable", "invalid", "dram_time_s", "energy_j",
                    "energy_pj", "latency_s", "latency_serial_s", "bound"):
            return self.run["metrics"][name]
        if name in ("optimal", "exact_dram", "lower_bound", "wall_s", "search", "bound_note", "objective",
                    "objective_unit", "objective_fusable", "exact_objective", "pruned"):
            return self.run[name]
        raise AttributeError(name)

    @property
    def n_groups(self):
        return self.run["metrics"]["groups"]

    @property
    def groups(self):
        return [Group(d) for d in self.json["groups"]]

    @property
    def group_of(self):
        return list(self.json["group_of"])

    def to_json(self):
        """The plan file's text, as `fusionplan plan -o PLAN.json` writes it."""
        return self._text("json").decode()

    def to_dot(self):
        return self._text("dot").decode()

    def to_svg(self):
        """The plan drawn by Graphviz (fusionplan.Error when dot is missing)."""
        return self._text("svg").decode()

    def to_html(self):
        """The plan as one self-contained HTML page (docs/exports.md), as
        `fusionplan plan -o plan.html` writes it."""
        return self._text("html").decode()

    def save(self, path, format=None):
        """Writes the plan: .json, .xml, .dot/.gv, .svg, .png, .onnx (annotated
        ONNX), .yaml/.yml (Stream mapping), .html (self-contained page), or
        format= json, dot, xml, svg, png, onnx, onnx-groups (each fusion group
        one ONNX function), stream, stream-stacks, html."""
        _lib.check(lib.lf_api_plan_save(self._h, _lib.enc(str(path)), _lib.enc(format)))

    def validate(self):
        """The plan read back and re-checked by the cost model: the list of
        discrepancies, [] when it checks."""
        return _lib.call_json(lib.lf_api_plan_validate, self._h)

    def __repr__(self):
        m = self.metrics
        return "Plan(%s, %s %s: DRAM %d B fusable, %d B all, %d groups%s)" % (
            self.json["model"]["name"], self.json["scheme"], self.run["search"], m["dram_fusable"],
            m["dram_all"], m["groups"], ", optimal" if self.run["optimal"] else "")

    def _repr_svg_(self):
        try:
            return self.to_svg()
        except _lib.Error:
            return None  # no Graphviz: Jupyter shows _repr_html_

    def _repr_html_(self):
        m, r = self.metrics, self.run
        rows = "".join("<tr><td>%d</td><td>%d</td><td>%s</td><td>%s</td><td>%d</td><td>%d</td>"
                       "<td>%d</td></tr>" % (g["id"], len(g["names"]), html.escape(g["names"][0]),
                                             html.escape(g["names"][-1]), g["f_beta"], g["f_d"],
                                             g["tile_rows"]) for g in self.json["groups"])
        bound = ("optimal" if r["optimal"] else
                 "lower bound %d %s" % (r["lower_bound"], r["objective_unit"]) if r["lower_bound"] else "")
        return ("<p><b>%s</b>, %s, buffer %d B, %s: DRAM %d B over fusable ops, %d B over all; "
                "MBU %d B; %d groups %s</p><table><tr><th>group</th><th>ops</th><th>first</th>"
                "<th>last</th><th>F_beta</th><th>F_D</th><th>tile rows</th></tr>%s</table>" % (
                    html.escape(self.json["model"]["name"]), self.json["scheme"], self.json["beta"],
                    html.escape(r["search"]), m["dram_fusable"], m["dram_all"], m["mbu"], m["groups"],
                    bound, rows))


def plan(graph, hw=None, *, scheme=None, search=None, objective=None, budget=None, seed=None, threads=None,
         population=None, objectives=None, split=None, proposer=None, k=None, gnn_weights=None,
         pg_weights=None, rg_weights=None, split_continue=None, split_gap=None, compare_exact=None,
         seed_plans=None, guided=None, polish=None, best_effort=None, time_limit=None,
         max_states=None, max_candidates=None, memory_limit=None, upper_bound=None, optimize=None,
         optimize_objective="dram", optimize_budget=30, progress=None):
    """Plans graph (a Graph or a built-in network's name) on hw (a Hardware;
    None: the 256 KB default). The options are the CLI's `plan` options
    (docs/search.md); objective="energy" or "latency" minimises that instead
    of DRAM bytes (docs/cost-models.md "Objectives"); optimize="backtrack" (or enum, split) rewrites the
    graph with the substitution optimizer first, as `plan --optimize`. upper_bound (search="exact",
    `plan --upper-bound`): a known plan's figure over fusable ops, an int in the objective's unit (B,
    fJ or fs: a Plan's objective_fusable); the DP prunes the states that cannot end at or below it
    and returns the same optimum when it costs at most upper_bound, else raises Error naming the
    bound."""
    g = as_graph(graph)
    h = as_hardware(hw)
    if optimize is not None:
        from ._verbs import optimize as _optimize
        g = _optimize(g, h, search=optimize, objective=optimize_objective, budget=optimize_budget,
                      seed=seed, scheme=scheme)
    opts = {"scheme": scheme, "search": search, "objective": objective, "budget": budget, "seed": seed, "threads": threads,
            "population": population, "objectives": objectives, "split": split, "proposer": proposer,
            "k": k, "gnn_weights": gnn_weights, "pg_weights": pg_weights, "rg_weights": rg_weights,
            "split_continue": split_continue, "split_gap": split_gap, "compare_exact": compare_exact,
            "seed_plans": seed_plans, "guided": guided, "polish": polish, "best_effort": best_effort,
            "time_limit": None if time_limit is None else float(time_limit), "max_states": max_states,
            "max_candidates": max_candidates, "memory_limit": memory_limit, "upper_bound": upper_bound}
    cb, close = _progress.make(progress)
    out = ctypes.c_void_p()
    try:
        st = lib.lf_api_plan_run(g.handle, _lib.dumps(h.spec), _lib.dumps(opts), cb, None,
                                 ctypes.byref(out))
    finally:
        close()
    _lib.check(st)
    return Plan(out.value, g, h)
