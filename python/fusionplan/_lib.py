"""The shared library, opened once with ctypes, and the calls' signatures.

Every function of the binding API (planner/app/api/api.h) takes strings and
pointers and returns an lf_status; results come back as JSON text that this
module decodes. ctypes releases the GIL around each call into a CDLL, so
long plans let other Python threads run.
"""
import ctypes
import ctypes.util
import json
import os
import sys

from ._errors import Error

PROGRESS = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int64,
                            ctypes.c_int64, ctypes.c_char_p)


def _candidates():
    env = os.environ.get("FUSIONPLAN_LIBRARY")
    if env:
        return [env]  # then only there, so that a wrong setting is an error
    out = []
    try:
        from . import _libpath
        out.append(_libpath.LIBRARY)
    except ImportError:
        pass
    here = os.path.dirname(os.path.abspath(__file__))
    out.append(os.path.join(here, "libfusionplan.so"))
    # pip install ./python: the library cmake --install put under a prefix
    for prefix in dict.fromkeys((sys.prefix, "/usr/local", "/usr")):
        out.append(os.path.join(prefix, "lib", "fusionplan", "libfusionplan.so.0"))
    found = ctypes.util.find_library("fusionplan")
    out.append(found or "libfusionplan.so.0")
    return out


def _open():
    tried = []
    for path in _candidates():
        try:
            return ctypes.CDLL(path)
        except OSError as e:
            tried.append("%s (%s)" % (path, e))
    raise ImportError("fusionplan: cannot open libfusionplan.so; tried " + "; ".join(tried) +
                      ". Build it (cmake --build build), install it (cmake --install build), or set "
                      "FUSIONPLAN_LIBRARY to its path")


lib = _open()

# The explainer proposers' shipped weights are looked up next to the running
# executable (docs/library.md), which is python3 here: point the library at
# the folder the build or the install wrote down, unless the user chose one.
try:
    from ._libpath import WEIGHTS as _weights
    if os.path.isdir(_weights):
        os.environ.setdefault("FUSIONPLAN_WEIGHTS_DIR", _weights)
except ImportError:
    pass

_P = ctypes.c_void_p
_S = ctypes.c_char_p
_OUT = ctypes.POINTER(ctypes.c_void_p)
_SIGS = {
    "lf_last_error": (_S, []),
    "lf_api_free": (None, [_P]),
    "lf_api_version": (_S, []),
    "lf_graph_free": (None, [_P]),
    "lf_api_graph_load": (ctypes.c_int, [_S, _OUT]),
    "lf_api_graph_json": (ctypes.c_int, [_P, _OUT]),
    "lf_api_graph_save_onnx": (ctypes.c_int, [_P, _S, ctypes.c_uint64]),
    "lf_api_models_json": (ctypes.c_int, [_OUT]),
    "lf_api_hw_json": (ctypes.c_int, [_S, _OUT]),
    "lf_api_plan_run": (ctypes.c_int, [_P, _S, _S, PROGRESS, _P, _OUT]),
    "lf_api_plan_free": (None, [_P]),
    "lf_api_plan_json": (ctypes.c_int, [_P, _OUT]),
    "lf_api_plan_run_json": (ctypes.c_int, [_P, _OUT]),
    "lf_api_plan_save": (ctypes.c_int, [_P, _S, _S]),
    "lf_api_plan_render": (ctypes.c_int, [_P, _S, _OUT, ctypes.POINTER(ctypes.c_size_t)]),
    "lf_api_plan_validate": (ctypes.c_int, [_P, _OUT]),
    "lf_api_validate_file": (ctypes.c_int, [_S, _P, _S, _OUT]),
    "lf_api_info": (ctypes.c_int, [_P, _S, _S, ctypes.c_int, _OUT]),
    "lf_api_curve": (ctypes.c_int, [_P, _S, _S, _OUT, _OUT]),
    "lf_api_optimize": (ctypes.c_int, [_P, _S, _S, _OUT, _OUT]),
    "lf_api_schedule": (ctypes.c_int, [_P, _S, _S, _OUT]),
    "lf_exec_create": (ctypes.c_int, [_OUT, _P, _P]),
    "lf_exec_free": (None, [_P]),
    "lf_exec_set_input": (ctypes.c_int, [_P, ctypes.c_int32, _P, ctypes.c_int64]),
    "lf_exec_run": (ctypes.c_int, [_P]),
    "lf_exec_output": (_P, [_P, ctypes.c_int32, _P]),
}
for _name, (_res, _args) in _SIGS.items():
    _f = getattr(lib, _name)
    _f.restype = _res
    _f.argtypes = _args


def enc(s):
    return None if s is None else os.fsencode(s) if not isinstance(s, bytes) else s


def check(status):
    """Raises Error with the library's one-line message when status is not LF_OK."""
    if status != 0:
        msg = lib.lf_last_error()
        raise Error(msg.decode("utf-8", "replace") if msg else "error %d" % status, status)


def take(ptr, size=None):
    """The bytes of a string the library allocated, released."""
    if not ptr:
        return b""
    try:
        return ctypes.string_at(ptr, size) if size is not None else ctypes.string_at(ptr)
    finally:
        lib.lf_api_free(ptr)


def call_json(fn, *args):
    """fn(*args, &out) and the decoded JSON of out."""
    out = ctypes.c_void_p()
    check(fn(*args, ctypes.byref(out)))
    return json.loads(take(out.value))


def dumps(obj):
    return json.dumps({k: v for k, v in (obj or {}).items() if v is not None}).encode()
