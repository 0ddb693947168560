#!/usr/bin/env python3
"""Every search against the exact optimum on a few networks and buffers:
the gap of each search's DRAM (fusable ops) to the optimum, and its time.

    PYTHONPATH=build/python python3 examples/python/searches_vs_optimum.py
"""
import fusionplan as fp

NETWORKS = ["resnet18", "mobilenet_v2", "squeezenet1_1"]
BUFFERS = ["128KB", "512KB"]
SEARCHES = [("layer", {}), ("greedy", {}), ("random", {"budget": 1000}),
            ("local", {"budget": 1000}), ("nsga2", {"budget": 1000})]

print("%-14s %-6s %-7s %14s %8s %8s" % ("network", "buffer", "search", "DRAM (B)", "gap", "time"))
for name in NETWORKS:
    g = fp.Graph.builtin(name)
    for buf in BUFFERS:
        hw = fp.Hardware(buffer=buf)
        best = fp.plan(g, hw, search="exact", time_limit=60, best_effort=True)
        ref = best.dram_fusable if best.optimal else best.lower_bound
        print("%-14s %-6s %-7s %14s %8s %7.3fs%s" % (name, buf, "exact", format(best.dram_fusable, ","), "0.00%",
                                                     best.wall_s, "" if best.optimal else " (bound)"))
        for search, kw in SEARCHES:
            p = fp.plan(g, hw, search=search, seed=1, **kw)
            print("%-14s %-6s %-7s %14s %7.2f%% %7.3fs" % (name, buf, search, format(p.dram_fusable, ","),
                                                         100.0 * (p.dram_fusable - ref) / ref, p.wall_s))
