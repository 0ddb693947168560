"""Bad input gives fusionplan.Error with the CLI's one-line message, never
a crash; the package keeps working after it."""
import pytest

import fusionplan as fp


def cli_message(cli, *args):
    r = cli(*args, check=False)
    assert r.returncode != 0
    line = r.stderr.strip().splitlines()[0]
    assert line.startswith("fusionplan: ")
    return line[len("fusionplan: "):]


def test_bad_model_name(cli):
    with pytest.raises(fp.Error) as e:
        fp.Graph.builtin("nosuch")
    assert str(e.value) == cli_message(cli, "plan", "--model", "nosuch")
    assert "\n" not in str(e.value) and e.value.status < 0


def test_bad_onnx(cli, tmp_path):
    f = tmp_path / "bad.onnx"
    f.write_bytes(b"garbage\x00\xff" * 10)
    with pytest.raises(fp.Error) as e:
        fp.Graph.from_onnx(f)
    assert str(e.value) == cli_message(cli, "plan", "--onnx", f)
    with pytest.raises(fp.Error, match="missing.onnx"):
        fp.Graph.from_onnx(tmp_path / "missing.onnx")


def test_bad_hardware(cli, tmp_path):
    f = tmp_path / "bad.xml"
    f.write_text("<hardware")
    with pytest.raises(fp.Error) as e:
        fp.Hardware.from_xml(f)
    assert str(e.value) == cli_message(cli, "plan", "--hw", f)
    with pytest.raises(fp.Error, match="buffer"):
        fp.Hardware(buffer="12 parsecs")
    with pytest.raises(fp.Error, match="data type"):
        fp.Hardware(dtype="fp7")


def test_bad_options():
    g = fp.Graph.builtin("resnet18")
    with pytest.raises(fp.Error, match="unknown search 'best'"):
        fp.plan(g, search="best")
    with pytest.raises(fp.Error, match="scheme"):
        fp.plan(g, scheme="xyz")
    with pytest.raises(fp.Error, match="budget"):
        fp.plan(g, search="local", budget=0)
    with pytest.raises(fp.Error):
        fp.plan(g, seed_plans="greedy")  # seed plans need local or nsga2, as in the CLI
    with pytest.raises(TypeError):
        fp.plan(g, serach="exact")
    with pytest.raises(fp.Error, match="max must be larger"):
        fp.curve(g, min="1MB", max="64KB")
    with pytest.raises(fp.Error, match="objective"):
        fp.optimize(g, objective="speed")
    assert fp.plan(g).dram_fusable > 0  # still working
