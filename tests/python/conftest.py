"""The Python package's tests: run by ctest (tests/CMakeLists.txt) with the
build's package on PYTHONPATH and FUSIONPLAN_CLI naming the build's CLI,
whose output every result is compared with."""
import os
import subprocess

import pytest


@pytest.fixture(scope="session")
def cli():
    path = os.environ.get("FUSIONPLAN_CLI")
    if not path:
        pytest.skip("FUSIONPLAN_CLI is not set (ctest sets it)")

    def run(*args, check=True):
        r = subprocess.run([path] + [str(a) for a in args], capture_output=True, text=True)
        if check and r.returncode != 0:
            raise AssertionError("fusionplan %s: exit %d: %s" % (" ".join(map(str, args)), r.returncode, r.stderr))
        return r

    return run
