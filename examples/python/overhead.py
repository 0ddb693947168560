#!/usr/bin/env python3
"""What a plan through the Python package costs beyond the library call
itself (the goal: at most 1 ms more; docs/RESULTS.md).

    PYTHONPATH=build/python python3 examples/python/overhead.py [MODEL] [PLANS]

Times, alternately, PLANS times each: the bare library call
(lf_api_plan_run and lf_api_plan_free through ctypes with prepared
arguments: what a C caller pays, plus one ctypes call) against
fusionplan.plan with its figures read (plan.dram_fusable), and the same call
followed by lf_api_plan_json (the plan file rendered by the library) against
fusionplan.plan with its groups read (that file rendered and parsed). Prints
the medians and the differences.
"""
import ctypes
import statistics
import sys
import time

import fusionplan as fp
from fusionplan import _lib

model = sys.argv[1] if len(sys.argv) > 1 else "resnet50"
n = int(sys.argv[2]) if len(sys.argv) > 2 else 200
g = fp.Graph.builtin(model)
hw = fp.Hardware(buffer="256KB")
hw_json, opts = _lib.dumps(hw.spec), _lib.dumps({"search": "greedy", "threads": 1})
no_progress = _lib.PROGRESS()


def bare():
    h = ctypes.c_void_p()
    _lib.check(_lib.lib.lf_api_plan_run(g.handle, hw_json, opts, no_progress, None, ctypes.byref(h)))
    _lib.lib.lf_api_plan_free(h)


def bare_export():
    h, out = ctypes.c_void_p(), ctypes.c_void_p()
    _lib.check(_lib.lib.lf_api_plan_run(g.handle, hw_json, opts, no_progress, None, ctypes.byref(h)))
    _lib.check(_lib.lib.lf_api_plan_json(h, ctypes.byref(out)))
    _lib.lib.lf_api_free(out)
    _lib.lib.lf_api_plan_free(h)


def figures():
    return fp.plan(g, hw, search="greedy", threads=1).dram_fusable


def groups():
    return len(fp.plan(g, hw, search="greedy", threads=1).groups)


fns = (bare, figures, bare_export, groups)
runs = {"library call": [], "fp.plan + figures": [], "library call + JSON": [], "fp.plan + groups": []}
for f in fns:  # warm up
    f()
for _ in range(n):
    for name, f in zip(runs, fns):
        t = time.perf_counter()
        f()
        runs[name].append(time.perf_counter() - t)
med = {k: statistics.median(v) * 1e3 for k, v in runs.items()}
print("%s, 256 KB, greedy, 1 thread, %d plans each (medians):" % (model, n))
base = {"fp.plan + figures": "library call", "fp.plan + groups": "library call + JSON"}
for k, v in med.items():
    extra = "  (+%.3f ms over the %s)" % (v - med[base[k]], base[k]) if k in base else ""
    print("  %-20s %8.3f ms%s" % (k, v, extra))
