"""Hardware: the library's built-in default or an XML description, with
keyword overrides."""
import json

from . import _lib
from ._lib import lib

# bytes per element of the data types a keyword may name
DTYPES = {"int4": 1, "int8": 1, "uint8": 1, "fp8": 1, "int16": 2, "fp16": 2, "bf16": 2,
          "int32": 4, "fp32": 4, "float32": 4, "float16": 2}


def _bytes_of(dtype):
    if dtype is None or isinstance(dtype, int):
        return dtype
    try:
        return DTYPES[dtype]
    except KeyError:
        raise _lib.Error("hardware: unknown data type '%s' (use %s)" % (dtype, ", ".join(DTYPES))) from None


class Hardware:
    """Hardware(buffer="256KB", bandwidth="25.6GB/s", dtype="int8", ...)

    buffer: bytes or a size with a unit; bandwidth: bytes/s or "25.6GB/s";
    dtype (both), act_dtype, weight_dtype: a type name or bytes per element;
    dram_pj_per_byte, peak_macs: energy and compute figures; dram: a DRAM
    preset of Accelergy's table ("LPDDR4", "HBM2", ...), sram_pj_per_byte,
    mac_pj: buffer and MAC energy (any of these turns energy on; what is not
    given takes the documented default, docs/hardware-format.md);
    attention=False prices products of two activations with both operands
    whole, not as attention groups (DESIGN §16's comparison). The library
    checks every value here, so a bad one raises fusionplan.Error at once."""

    def __init__(self, buffer=None, bandwidth=None, dtype=None, act_dtype=None, weight_dtype=None,
                 dram_pj_per_byte=None, peak_macs=None, xml=None, dram=None, sram_pj_per_byte=None,
                 mac_pj=None, attention=None):
        act = _bytes_of(act_dtype if act_dtype is not None else dtype)
        weight = _bytes_of(weight_dtype if weight_dtype is not None else dtype)
        self.spec = {k: v for k, v in {"xml": None if xml is None else str(xml), "buffer": buffer,
                                       "bandwidth": bandwidth, "act_bytes": act,
                                       "weight_bytes": weight, "dram_pj_per_byte": dram_pj_per_byte,
                                       "peak_macs": peak_macs, "dram": dram,
                                       "sram_pj_per_byte": sram_pj_per_byte,
                                       "mac_pj": mac_pj, "attention": attention}.items() if v is not None}
        self.resolved = _lib.call_json(lib.lf_api_hw_json, _lib.dumps(self.spec))

    @classmethod
    def from_xml(cls, path, **overrides):
        """A description file (docs/hardware-format.md), keywords over it."""
        return cls(xml=path, **overrides)

    def replace(self, **overrides):
        """The same hardware with some keywords changed."""
        spec = dict(self.spec)
        merged = {"xml": spec.pop("xml", None), "act_dtype": spec.pop("act_bytes", None),
                  "weight_dtype": spec.pop("weight_bytes", None)}
        merged.update(spec)
        if "dtype" in overrides:  # a new dtype replaces both element sizes
            merged.pop("act_dtype")
            merged.pop("weight_dtype")
        merged.update(overrides)
        return Hardware(**merged)

    def to_json(self):
        return json.dumps(self.spec)

    def __getattr__(self, name):
        r = self.__dict__.get("resolved")
        if r is not None and name in r:
            return r[name]
        raise AttributeError(name)

    def __repr__(self):
        r = self.resolved
        return "Hardware(%r, buffer=%d B, %s B/s)" % (r["name"], r["buffer_bytes"], r["dram_bandwidth"])


def as_hardware(hw):
    if hw is None:
        return Hardware()
    if isinstance(hw, Hardware):
        return hw
    if isinstance(hw, dict):
        return Hardware(**hw)
    raise TypeError("expected a fusionplan.Hardware, got %r" % (hw,))
