"""fusionplan from Python: the library's pipeline over ctypes (DESIGN §18).

    import fusionplan as fp
    plan = fp.plan(fp.Graph.builtin("resnet50"), fp.Hardware(buffer="256KB"), search="exact")
    print(plan.dram_fusable, plan.optimal)

Every call is one library call (libfusionplan.so); errors raise
fusionplan.Error with the library's one-line message. docs/python.md.
"""
from ._errors import Error
from ._lib import lib as _lib_handle
from ._curve import Curve, Step, curve
from ._graph import Graph, Op
from ._hardware import Hardware
from ._plan import Group, Plan, plan
from ._verbs import info, models, names, optimize, run, schedule, validate

__version__ = _lib_handle.lf_api_version().decode()

__all__ = ["Error", "Graph", "Op", "Hardware", "Plan", "Group", "Curve", "Step", "plan", "curve",
           "optimize", "schedule", "run", "models", "names", "validate", "info", "__version__"]
