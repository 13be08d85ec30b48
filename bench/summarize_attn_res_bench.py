#!/usr/bin/env python3
"""Summarizes a bench/attn_res_bench.py output folder as markdown. Usage: summarize_attn_res_bench.py FOLDER"""
import glob
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_common import median, results  # noqa: E402

folder = sys.argv[1]


peers = json.load(open(f"{folder}/peers.json"))
copy = results(f"{folder}/copy.json")
ceiling = max(r["bytes_moved"] / (median(r) * 1e-6) / 1e12 for r in copy.values())
empty = min(median(r) for r in results(f"{folder}/empty.json").values())
first = json.load(open(glob.glob(f"{folder}/graph-*.json")[0]))["context"]
print(f"# attn_res on {first['gpu']['name']} against torch eager and torch.compile\n")
print(f"kk3tune {first['tool_version']} (git {first['git_revision']}), torch {peers['torch']}, {first['utc_time']}. "
      f"Graph mode, per call, medians. Copy ceiling measured in this run: {ceiling:.3f} TB/s; empty kernel {empty:.3f} us.\n")
print("| NB | T | reference us | best us | best/ref | eager us | compile us | best/compile | TB/s | % ceiling | best variant |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
rows = []
for path in glob.glob(f"{folder}/graph-*.json"):
    nb, t = map(int, re.match(r"graph-nb(\d+)-T(\d+)\.json", os.path.basename(path)).groups())
    g = results(path)
    ref = median(next(r for r in g.values() if r["reference"]))
    best = min(g, key=lambda v: median(g[v]))
    p = peers["peers"][f"nb{nb}-T{t}"]
    tb_s = g[best]["bytes_moved"] / (median(g[best]) * 1e-6) / 1e12
    rows.append((nb, t, ref, median(g[best]), p["eager_us"], p["compiled_us"], tb_s, best))
for nb, t, ref, b, e, c, tb_s, best in sorted(rows):
    print(f"| {nb} | {t} | {ref:.3f} | {b:.3f} | {b / ref:.3f} | {e:.3f} | {c:.3f} | {b / c:.3f} | {tb_s:.3f} | "
          f"{100 * tb_s / ceiling:.1f} | {best} |")
