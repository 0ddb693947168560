"""Every verb of the package against the CLI on the same inputs: the same
JSON, byte for byte where the CLI writes a file."""
import json
import os
import shutil
from pathlib import Path

import pytest

import fusionplan as fp


def read(path):
    with open(path, "rb") as f:
        return f.read()


def test_models_match_cli(cli):
    ms = fp.models()
    lines = cli("models").stdout.splitlines()[1:]
    assert [m["name"] for m in ms] == [ln.split()[0] for ln in lines]
    for m, ln in zip(ms, lines):
        cols = ln.split()
        assert (m["input_size"], m["ops"], m["params"]) == (int(cols[1]), int(cols[2]), int(cols[3].replace(",", "")))


def test_names_are_the_registry(cli):
    # The lists the CLI's help prints come from the same tables.
    help_ = cli("plan", "--help").stdout
    searches = fp.names("search")
    assert searches[:6] == ["greedy", "layer", "random", "local", "nsga2", "exact"]
    assert "--search NAME            %s or %s (default" % (", ".join(searches[:-1]), searches[-1]) in help_
    assert fp.names("heuristic") == ["random", "local", "nsga2"]
    assert fp.names("scheme") == ["lbdf", "brr"]
    assert fp.names("rules") == ["builtin", "taso", "generated"]
    assert "json" in fp.names("format") and "gnne" in fp.names("proposer")
    for s in fp.names("heuristic"):
        assert fp.plan("squeezenet1_1", search=s, budget=5, threads=1).dram_fusable > 0
    with pytest.raises(fp.Error, match="unknown kind of name 'searches'"):
        fp.names("searches")


def test_info_text_equals_cli(cli):
    want = cli("info", "--model", "mobilenet_v2", "--buffer", "128KB", "--scheme", "brr").stdout
    assert fp.info("mobilenet_v2", fp.Hardware(buffer="128KB"), scheme="brr") == want
    want = cli("info", "--model", "resnet18", "--no-layers").stdout
    assert fp.info("resnet18", ops=False) == want


def test_graph_json_matches_info(cli):
    g = fp.Graph.builtin("resnet18")
    assert g.to_dict() == json.loads(cli("info", "--model", "resnet18", "--json").stdout)
    ops = g.ops
    assert len(ops) == len(g) and ops[0].type == "Input" and ops[0].shape == (1, 3, 224, 224)
    conv = next(o for o in ops if o.type == "Conv")
    assert conv.attrs["kh"] == 7 and conv.shape == (1, 64, 112, 112)


@pytest.mark.parametrize("args,kw", [
    (["--search", "exact"], {"search": "exact"}),
    (["--search", "greedy", "--scheme", "brr"], {"search": "greedy", "scheme": "brr"}),
    (["--search", "local", "--budget", "300", "--seed", "7"], {"search": "local", "budget": 300, "seed": 7}),
    (["--search", "nsga2", "--budget", "200", "--split", "tree", "--proposer", "attrib"],
     {"search": "nsga2", "budget": 200, "split": "tree", "proposer": "attrib"}),
    # the shipped PGExplainer weights, found from python3 as from the CLI
    (["--search", "local", "--budget", "20", "--split", "tree", "--proposer", "pg"],
     {"search": "local", "budget": 20, "split": "tree", "proposer": "pg"}),
])
def test_plan_json_equals_cli(cli, tmp_path, args, kw):
    out = tmp_path / "cli.json"
    cli("plan", "--model", "resnet18", "--buffer", "128KB", "-o", out, *args)
    p = fp.plan(fp.Graph.builtin("resnet18"), fp.Hardware(buffer="128KB"), **kw)
    assert p.to_json().encode() == read(out)
    m = json.loads(read(out))["metrics"]
    assert (p.dram_fusable, p.dram_all, p.mbu, p.n_groups) == (m["dram_fusable"], m["dram_all"], m["mbu"], m["groups"])


def test_plan_figures_and_groups(cli):
    p = fp.plan("resnet18", fp.Hardware(buffer=128 * 1024), search="exact")
    assert p.optimal and p.exact_dram == p.dram_fusable and p.lower_bound is None
    summary = cli("plan", "--model", "resnet18", "--buffer", "128KB", "--search", "exact", "--quiet").stdout
    assert "DRAM {:,} B fusable".format(p.dram_fusable) in summary
    assert sum(g.f_d for g in p.groups) == p.dram_fusable
    assert all(g.f_beta < 128 * 1024 and g.tiles >= 1 for g in p.groups)
    covered = sorted(op for g in p.groups for op in g.ops)
    assert len(covered) == len(set(covered))
    assert p.validate() == []
    r = p.run
    assert "{} downsets, {} candidate sets, {} groups priced".format(r["states"], r["candidates"], r["groups_priced"]) in summary
    loc = fp.plan("resnet18", fp.Hardware(buffer="128KB"), search="local", budget=300, split="tree", polish=8).run
    summary = cli("plan", "--model", "resnet18", "--buffer", "128KB", "--search", "local", "--budget", "300",
                  "--split", "tree", "--polish", "8", "--quiet").stdout
    assert "{} plans proposed, {} invalid groups met, {} splits".format(loc["plans"], loc["invalid_groups"], loc["splits"]) in summary
    assert "{} distinct invalid groups".format(loc["tree"]["groups"]) in summary
    assert "polish: {} passes, {} windows solved".format(loc["polish"]["passes"], loc["polish"]["windows"]) in summary
    g = fp.plan("resnet18", fp.Hardware(buffer="128KB"), search="greedy", compare_exact=True)
    assert g.exact_dram == p.dram_fusable and g.optimal == (g.dram_fusable == p.dram_fusable)


def test_best_effort_lower_bound(cli):
    p = fp.plan("resnet18", search="exact", best_effort=True, max_states=20)
    assert p.search == "exact-best-effort" and not p.optimal and p.exact_dram is None
    assert 0 < p.lower_bound < p.dram_fusable
    out = cli("plan", "--model", "resnet18", "--search", "exact", "--best-effort", "--max-states", "20").stdout
    assert "the optimum is in [{:,}, {:,}] B".format(p.lower_bound, p.dram_fusable) in out
    with pytest.raises(fp.Error) as e:
        fp.plan("resnet18", search="exact", max_states=20)
    r = cli("plan", "--model", "resnet18", "--search", "exact", "--max-states", "20", check=False)
    assert r.returncode != 0 and "fusionplan: " + str(e.value) == r.stderr.strip()


def test_upper_bound(cli):
    # plan(upper_bound=) is `plan --upper-bound` (the exact DP's branch and bound): the optimum's
    # own figure returns the same plan, one unit less raises the CLI's one-line error, in bytes
    # and in fJ; resnet18 at 256 KB: 3,105,152 B
    opt = fp.plan("resnet18", search="exact")
    assert opt.optimal and opt.objective_fusable == opt.dram_fusable == 3105152 and opt.pruned == 0
    same = fp.plan("resnet18", search="exact", upper_bound=3105152)
    assert same.optimal and same.to_json() == opt.to_json()
    with pytest.raises(fp.Error) as e:
        fp.plan("resnet18", search="exact", upper_bound=3105151)
    assert str(e.value) == ("exact planner: no plan of 'resnet18' has DRAM over fusable ops at most the "
                            "upper bound 3105151 B (the optimum is at least 3105152 B)")
    r = cli("plan", "--model", "resnet18", "--search", "exact", "--upper-bound", "3105151", check=False)
    assert r.returncode == 1 and r.stderr.strip() == "fusionplan: " + str(e.value)
    e_opt = fp.plan("resnet18", search="exact", objective="energy")
    fig = e_opt.objective_fusable
    assert e_opt.objective_unit == "fJ" and fig > 0
    assert fp.plan("resnet18", search="exact", objective="energy", upper_bound=fig).to_json() == e_opt.to_json()
    with pytest.raises(fp.Error, match=r"at most the upper bound %d fJ \(the optimum is at least %d fJ\)$"
                       % (fig - 1, fig)):
        fp.plan("resnet18", search="exact", objective="energy", upper_bound=fig - 1)
    # it prunes, as many downsets as the CLI says (Inception-v3 under BRR: 38,097,819 B)
    p = fp.plan("inception_v3", search="exact", scheme="brr", upper_bound=38097819)
    assert p.optimal and p.dram_fusable == 38097819 and p.pruned > 0
    out = cli("plan", "--model", "inception_v3", "--scheme", "brr", "--search", "exact", "--quiet",
              "--upper-bound", "38097819").stdout
    assert "; {} downsets pruned by the upper bound;".format(p.pruned) in out
    with pytest.raises(fp.Error, match="upper_bound"):
        fp.plan("resnet18", search="exact", upper_bound=0)
    with pytest.raises(fp.Error, match="--upper-bound applies to --search exact"):
        fp.plan("resnet18", search="greedy", upper_bound=3105152)


def test_separator_pieces_prove_optimum(cli):
    # The whole DP stops at 881 candidate sets; the 15 pieces between cuts no
    # valid group spans each pass, and together they are the optimum (issue 46).
    p = fp.plan("mobilenet_v2", fp.Hardware(buffer="128KB"), search="exact", max_candidates=880)
    assert p.search == "exact" and p.optimal and p.dram_fusable == 2278656
    assert p.bound_note.startswith("proven optimal: 15 pieces between separators")
    out = cli("plan", "--model", "mobilenet_v2", "--buffer", "128KB", "--search", "exact",
              "--max-candidates", "880").stdout
    assert "DRAM 2,278,656 B fusable ops" in out and p.bound_note in out


def test_save_every_format(cli, tmp_path):
    net = ["--model", "squeezenet1_1", "--input-size", "64", "--buffer", "64KB"]
    p = fp.plan(fp.Graph.builtin("squeezenet1_1", input_size=64), fp.Hardware(buffer="64KB"), search="greedy")
    exts = ["json", "xml", "dot", "yaml", "onnx", "html"] + (["svg", "png"] if shutil.which("dot") else [])
    for ext in exts:
        mine, theirs = tmp_path / ("py." + ext), tmp_path / ("cli." + ext)
        p.save(mine)
        if ext in ("png", "svg"):  # Graphviz's drawing of the DOT compared above
            assert read(mine)[:4] in (b"\x89PNG", b"<?xm", b"<svg")
        else:
            cli("plan", *net, "-o", theirs)
            assert read(mine) == read(theirs), ext
    g64 = fp.Graph.builtin("squeezenet1_1", input_size=64)
    assert fp.validate(tmp_path / "py.json", g64)["issues"] == []
    assert fp.validate(tmp_path / "py.onnx")["issues"] == []
    assert fp.validate(tmp_path / "py.xml", g64, fp.Hardware(buffer="64KB"))["issues"] == []
    assert "digraph" in p.to_dot()
    # the page embeds the plan JSON as it is (one data source)
    page = p.to_html()
    assert page.encode() == read(tmp_path / "py.html")
    assert '<script type="application/json" id="fp-plan-0">' + p.to_json() + "</script>" in page
    # every group one ONNX function (docs/exports.md): the same bytes as the CLI's
    p.save(tmp_path / "py-groups.onnx", format="onnx-groups")
    cli("plan", *net, "--format", "onnx-groups", "-o", tmp_path / "cli-groups.onnx")
    assert read(tmp_path / "py-groups.onnx") == read(tmp_path / "cli-groups.onnx")
    assert b"fusionplan.groups" in read(tmp_path / "py-groups.onnx")
    with pytest.raises(fp.Error, match="format"):
        p.save(tmp_path / "plan.txt")


def test_validate_finds_a_wrong_figure(tmp_path):
    p = fp.plan("resnet18", fp.Hardware(buffer="128KB"))
    d = json.loads(p.to_json())
    d["metrics"]["dram_fusable"] += 1
    f = tmp_path / "bad.json"
    f.write_text(json.dumps(d))
    issues = fp.validate(f)["issues"]
    assert len(issues) == 1 and "dram_fusable" in issues[0]


def test_hardware_keywords(tmp_path):
    hw = fp.Hardware(buffer="1MB", bandwidth="12.8GB/s", dtype="fp16", dram_pj_per_byte=8.0)
    assert (hw.buffer_bytes, hw.act_bytes, hw.weight_bytes, hw.dram_bandwidth) == (1 << 20, 2, 2, 12.8e9)
    p = fp.plan("resnet18", hw)
    assert p.json["hardware"]["act_bytes"] == 2 and p.energy_j == pytest.approx(p.dram_all * 8e-12)
    assert p.dram_time_s == pytest.approx(p.dram_all / 12.8e9)
    assert p.metrics == p.json["metrics"]  # the run's copy is the plan file's, to the digit
    assert hw.replace(buffer="64KB").buffer_bytes == 65536 and hw.replace(buffer="64KB").act_bytes == 2
    xml = Path(__file__).resolve().parents[2] / "examples" / "hw" / "buffer-512k.xml"
    h = fp.Hardware.from_xml(xml)
    assert h.name == "edge-512k" and h.buffer_bytes == 512 * 1024 and h.dram_pj_per_byte == 20
    assert fp.Hardware.from_xml(xml, buffer="96KB").buffer_bytes == 96 * 1024


def test_attention_switch_equals_cli(cli, tmp_path):
    # Hardware(attention=False) is the CLI's --no-attention: the plan file says so, and a
    # product of two activations then needs both operands whole (more ops unfusable)
    out = tmp_path / "cli.json"
    cli("plan", "--model", "vit_b_16", "--buffer", "256KB", "--search", "layer", "--no-attention", "-o", out)
    off = fp.plan("vit_b_16", fp.Hardware(buffer="256KB", attention=False), search="layer")
    assert off.to_json().encode() == read(out)
    assert off.json["hardware"]["attention"] is False and fp.Hardware(attention=False).attention is False
    on = fp.plan("vit_b_16", fp.Hardware(buffer="256KB"), search="layer")
    assert "attention" not in on.json["hardware"] and on.dram_fusable > off.dram_fusable
    assert on.dram_all == off.dram_all  # layer by layer moves the same bytes either way


def test_best_effort_objective(cli):
    # --best-effort and --compare-exact under energy and latency (issue 40): the bounds, the
    # optimum and the plan's figure are in the objective's unit, as the CLI prints them
    hw = str(Path(__file__).resolve().parents[2] / "examples" / "hw" / "npu-edge-lpddr4.xml")
    h = fp.Hardware.from_xml(hw, buffer="256KB")
    for objective, unit in (("energy", "fJ"), ("latency", "fs")):
        opt = fp.plan("squeezenet1_1", h, search="exact", objective=objective)
        assert opt.optimal and opt.objective == objective and opt.objective_unit == unit
        assert opt.exact_objective == opt.objective_fusable
        p = fp.plan("squeezenet1_1", h, search="exact", objective=objective, best_effort=True, max_states=20,
                    budget=50)
        assert p.search == "exact-best-effort" and not p.optimal and p.exact_objective is None
        assert 0 < p.lower_bound <= opt.objective_fusable <= p.objective_fusable
        out = cli("plan", "--model", "squeezenet1_1", "--hw", hw, "--buffer", "256KB", "--search", "exact",
                  "--objective", objective, "--best-effort", "--max-states", "20", "--budget", "50").stdout
        assert "is in [{:,}, {:,}] {}".format(p.lower_bound, p.objective_fusable, unit) in out
        g = fp.plan("squeezenet1_1", h, search="greedy", objective=objective, compare_exact=True)
        assert g.exact_objective == opt.objective_fusable <= g.objective_fusable


def test_objective_equals_cli(cli, tmp_path):
    # --objective energy / latency (docs/cost-models.md "Objectives"): the same plan file as the
    # CLI's, recording the objective, and validate reads it back
    hw = str(Path(__file__).resolve().parents[2] / "examples" / "hw" / "npu-edge-lpddr4.xml")
    for objective in ("energy", "latency"):
        out = tmp_path / ("p-%s.json" % objective)
        cli("plan", "--model", "squeezenet1_1", "--hw", hw, "--buffer", "256KB", "--search", "exact",
            "--objective", objective, "-o", out, "--quiet")
        p = fp.plan("squeezenet1_1", fp.Hardware.from_xml(hw, buffer="256KB"), search="exact",
                    objective=objective)
        mine = tmp_path / ("q-%s.json" % objective)
        p.save(str(mine))
        doc = json.loads(read(out))
        assert doc["objective"] == objective
        assert json.loads(read(mine))["objective"] == objective
        assert json.loads(read(mine))["group_of"] == doc["group_of"]
        cli("validate", out)
    dram = fp.plan("squeezenet1_1", fp.Hardware.from_xml(hw, buffer="256KB"), search="exact")
    energy = fp.plan("squeezenet1_1", fp.Hardware.from_xml(hw, buffer="256KB"), search="exact",
                     objective="energy")
    assert dram.dram_all <= energy.dram_all
    with pytest.raises(fp.Error, match="objective"):
        fp.plan("squeezenet1_1", search="exact", objective="joules")
    c = fp.curve("squeezenet1_1", fp.Hardware.from_xml(hw), min="128KB", max="512KB", objective="latency")
    cj = tmp_path / "c.json"
    cli("curve", "--model", "squeezenet1_1", "--hw", hw, "--min", "128KB", "--max", "512KB",
        "--objective", "latency", "--json", cj)
    assert c.to_json().encode() == read(cj)
    assert c.json["objective"] == "latency" and c.json["unit"] == "fs"


def test_curve_equals_cli(cli, tmp_path):
    out = tmp_path / "c.json"
    cli("curve", "--model", "squeezenet1_1", "--min", "64KB", "--max", "1MB", "--json", out)
    c = fp.curve("squeezenet1_1", min="64KB", max="1MB")
    assert c.to_json().encode() == read(out)
    assert len(c) >= 2 and c.steps[0].buffer_from <= 65536
    drams = [s.dram_all for s in c]
    assert drams == sorted(drams, reverse=True)
    rows = c.rows()
    assert set(rows[0]) >= {"buffer_from", "dram_all", "groups"} and "group_of" not in rows[0]
    # a step's plan is the exact plan at its buffer
    s = c.steps[-1]
    p = fp.plan("squeezenet1_1", fp.Hardware(buffer=max(s.buffer_from, 65536)), search="exact")
    assert p.dram_all == s.dram_all
    assert c._repr_svg_().lstrip().startswith(("<?xml", "<svg"))


@pytest.mark.skipif(os.environ.get("LF_SANITIZED") == "ON",
                    reason="a minute under the sanitizers; test_api runs lf_api_optimize there")
def test_optimize_and_schedule_equal_cli(cli, tmp_path):
    out = tmp_path / "o.json"
    cli("optimize", "--model", "squeezenet1_1", "--budget", "10", "-o", out)
    g = fp.optimize("squeezenet1_1", search="backtrack", objective="time", budget=10)
    want, mine = json.loads(read(out)), dict(g.optimize_report)
    for d in (want, mine):  # wall times
        d["stats"] = {k: v for k, v in d["stats"].items() if not k.endswith("_s")}
    assert want["steps"] and mine == want
    assert g.hash != fp.Graph.builtin("squeezenet1_1").hash and fp.plan(g).dram_fusable > 0
    # the rule sources as --rules: the built-in rules alone also equal the CLI's
    cli("optimize", "--model", "squeezenet1_1", "--budget", "5", "--rules", "builtin", "-o", out)
    b = fp.optimize("squeezenet1_1", budget=5, rules="builtin")
    want, mine = json.loads(read(out)), dict(b.optimize_report)
    for d in (want, mine):
        d["stats"] = {k: v for k, v in d["stats"].items() if not k.endswith("_s")}
    assert mine == want
    out = tmp_path / "s.json"
    cli("schedule", "--model", "squeezenet1_1", "-o", out)
    mine, want = fp.schedule("squeezenet1_1"), json.loads(read(out))
    for d in (mine, want):  # the search's wall time
        d["stats"].pop("search_s")
    assert mine == want


def test_plan_optimize_first(cli):
    r = cli("plan", "--model", "squeezenet1_1", "--buffer", "128KB", "--optimize", "backtrack",
            "--optimize-budget", "5", "--quiet").stdout
    p = fp.plan("squeezenet1_1", fp.Hardware(buffer="128KB"), optimize="backtrack", optimize_budget=5)
    assert "DRAM {:,} B fusable".format(p.dram_fusable) in r


def test_onnx_round_trip(cli, tmp_path):
    f = tmp_path / "sq.onnx"
    fp.Graph.builtin("squeezenet1_1").to_onnx(f)
    g = fp.Graph.from_onnx(f, input_shape={"input": (1, 3, 224, 224)})
    assert g.ops[0].shape == (1, 3, 224, 224)
    out = tmp_path / "cli.json"
    cli("plan", "--onnx", f, "--input-shape", "input=1,3,224,224", "--buffer", "128KB", "--search", "exact", "-o", out)
    p = fp.plan(g, fp.Hardware(buffer="128KB"), search="exact")
    assert p.to_json().encode() == read(out)
    same = fp.plan(fp.Graph.builtin("squeezenet1_1"), fp.Hardware(buffer="128KB"), search="exact")
    assert p.dram_fusable == same.dram_fusable


def test_run_equals_cli(cli, tmp_path):
    onnx = pytest.importorskip("onnx")
    from onnx import numpy_helper
    np = pytest.importorskip("numpy")
    g = fp.Graph.builtin("squeezenet1_1", input_size=64)
    outs = fp.run(g, seed=3)
    ((name, y),) = outs.items()
    f = tmp_path / "y.pb"
    cli("run", "--model", "squeezenet1_1", "--input-size", "64", "--seed", "3", "--output", f)
    t = onnx.TensorProto()
    t.ParseFromString(read(f))
    assert np.array_equal(numpy_helper.to_array(t).reshape(y.shape), y)
    x = np.ones((1, 3, 64, 64), dtype=np.float32)
    y1 = fp.run(g, {g.ops[0].name: x})[name]
    assert y1.shape == y.shape and not np.array_equal(y1, y)


def test_progress_callback():
    seen = []
    fp.plan("resnet18", search="local", budget=200, progress=lambda *a: seen.append(a))
    assert seen and all(isinstance(s, str) and d <= t for s, d, t, _ in seen if t > 0)
    fp.plan("resnet18", search="local", budget=50, progress=True)  # tqdm or nothing, never an error


def test_jupyter_reprs():
    p = fp.plan("resnet18", fp.Hardware(buffer="128KB"), search="exact")
    h = p._repr_html_()
    assert "{}".format(p.dram_fusable) in h and "<table>" in h
    if shutil.which("dot"):
        assert "<svg" in p._repr_svg_()


def test_energy_and_latency(tmp_path):
    """DESIGN section 19: the plan's energy split and roofline latency are the
    sums of its groups', and the hardware keywords reach the model."""
    xml = Path(__file__).resolve().parents[2] / "examples" / "hw" / "npu-edge-lpddr4.xml"
    hw = fp.Hardware.from_xml(xml)
    assert hw.energy_dram_pj_per_byte == 64 and hw.mac_pj == pytest.approx(0.23)
    p = fp.plan("resnet18", hw)
    e = p.energy_pj
    assert e["total"] == pytest.approx(e["dram"] + e["sram"] + e["mac"])
    gs, un = p.groups, p.json["unfusable"]
    assert un  # resnet18 at 512 KB has unfusable convs: they count too
    assert sum(g.energy_pj["total"] for g in gs) + sum(u["energy_pj"]["total"] for u in un) == \
        pytest.approx(e["total"])
    assert sum(g.latency_s for g in gs) + sum(u["latency_s"] for u in un) == pytest.approx(p.latency_s)
    assert all(g.latency_s == pytest.approx(max(g.macs / 1.024e12, g.f_d / 25.6e9)) for g in gs)
    assert all(g.bound == ("compute" if g.macs / 1.024e12 > g.f_d / 25.6e9 else "memory") for g in gs)
    assert p.bound in ("compute", "memory") and p.metrics == p.json["metrics"]
    f = tmp_path / "p.json"
    p.save(f)
    assert fp.validate(f)["issues"] == []
    # No energy figures, no compute peak: the fields are there, and null.
    q = fp.plan("resnet18", fp.Hardware(buffer="128KB"))
    assert q.energy_pj is None and q.latency_s is None and q.groups[0].bound is None
    h = fp.Hardware(dram="HBM2", mac_pj=1.0)
    assert h.energy_dram_pj_per_byte == pytest.approx(31.2) and h.mac_pj == 1.0
    with pytest.raises(fp.Error):
        fp.Hardware(dram="DDR5")
