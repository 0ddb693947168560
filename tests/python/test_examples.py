"""examples/python/ run to the end and print what they promise (the
matplotlib one skips without matplotlib, which .ci/setup does not install)."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

import fusionplan

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "python"


def run(script, *args, cwd):
    r = subprocess.run([sys.executable, str(EXAMPLES / script)] + [str(a) for a in args], cwd=cwd,
                       capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=str(Path(fusionplan.__file__).resolve().parents[1])))
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_searches_vs_optimum(tmp_path):
    out = run("searches_vs_optimum.py", cwd=tmp_path)
    # library.md's example: mobilenet_v2 at 128 KB, optimum 2,278,656 B, local search 2,692,608 B
    assert "mobilenet_v2   128KB  exact        2,278,656" in out
    assert "mobilenet_v2   128KB  local        2,692,608" in out


@pytest.mark.skipif(os.environ.get("LF_SANITIZED") == "ON",
                    reason="resnet18's weights written and read twice: slow under the sanitizers")
def test_onnx_for_stream(tmp_path):
    out = run("onnx_for_stream.py", "", tmp_path, cwd=tmp_path)
    assert (tmp_path / "mapping.yaml").read_text().count("- name: group_") >= 2
    assert "issues: []" in out


def test_buffer_sweep(tmp_path):
    pytest.importorskip("matplotlib")
    out = run("buffer_sweep.py", tmp_path / "s.png", cwd=tmp_path)
    assert (tmp_path / "s.png").stat().st_size > 10000 and out.count("steps") == 3
