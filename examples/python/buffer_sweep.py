#!/usr/bin/env python3
"""DRAM traffic against the on-chip buffer for three networks: the exact
staircase of each (fusionplan.curve) next to the layer-by-layer baseline,
drawn with matplotlib (python3-matplotlib) into buffer_sweep.png.

    PYTHONPATH=build/python python3 examples/python/buffer_sweep.py [OUT.png]
"""
import sys

import fusionplan as fp

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    sys.exit("buffer_sweep.py needs matplotlib (Debian: apt install python3-matplotlib)")

NETWORKS = ["resnet18", "mobilenet_v2", "squeezenet1_1"]
out = sys.argv[1] if len(sys.argv) > 1 else "buffer_sweep.png"

fig, ax = plt.subplots(figsize=(7, 4.5))
for name in NETWORKS:
    c = fp.curve(fp.Graph.builtin(name), min="32KB", max="2MB")
    rows = c.rows()
    xs = [r["buffer_from"] / 1024 for r in rows] + [c.json["max"] / 1024]
    ys = [r["dram_all"] / 1e6 for r in rows]
    line, = ax.step(xs, ys + ys[-1:], where="post", label="%s, fused (optimal)" % name)
    ax.step(xs, [r["layer_dram_all"] / 1e6 for r in rows] + [rows[-1]["layer_dram_all"] / 1e6],
            where="post", linestyle=":", color=line.get_color(), label="%s, layer by layer" % name)
    print("%-14s %2d steps: %s MB at %d KB -> %s MB at %d KB" % (
        name, len(rows), format(rows[0]["dram_all"] / 1e6, ".2f"), rows[0]["buffer_from"] // 1024,
        format(rows[-1]["dram_all"] / 1e6, ".2f"), rows[-1]["buffer_from"] // 1024))
ax.set_xscale("log", base=2)
ticks = [32 << k for k in range(7)]
ax.set_xticks(ticks, [str(t) for t in ticks])
ax.set_xlabel("on-chip buffer (KB)")
ax.set_ylabel("DRAM traffic, all ops (MB)")
ax.set_title("Optimal fusion against the buffer (LBDF)")
ax.legend(fontsize=7)
fig.tight_layout()
fig.savefig(out, dpi=120)
print("wrote", out)
