#!/usr/bin/env python3
"""Summarizes bench/measure_engine.sh's output folder as a markdown report."""
import csv
import glob
import json
import os
import statistics
import sys

out, expected_launches = sys.argv[1], int(sys.argv[2])


def load(path):
    """The first (only) result of a `kk3tune time --json` file."""
    with open(path) as f:
        return json.load(f)["results"][0]


def ncu_durations_us(path):
    """gpu__time_duration.sum of every profiled kernel in an ncu --csv file, in microseconds."""
    scale = {"nsecond": 1e-3, "ns": 1e-3, "usecond": 1.0, "us": 1.0, "msecond": 1e3, "ms": 1e3}
    rows = []
    with open(path) as f:
        lines = [l for l in f if l.startswith('"')]
    for row in csv.DictReader(lines):
        if row.get("Metric Name") == "gpu__time_duration.sum":
            value = float(row["Metric Value"].replace(",", ""))
            rows.append((row.get("Kernel Name", ""), value * scale[row["Metric Unit"]]))
    return rows


print("## 1. isolated mode vs ncu gpu__time_duration (kernels of 20 us or more)\n")
print("| variant | T | ncu kernels | ncu median us | isolated median us | isolated/ncu | graph median us | graph - isolated us |")
print("| --- | --- | --- | --- | --- | --- | --- | --- |")
worst = 0.0
nvtx_ok = True
for ncu in sorted(glob.glob(os.path.join(out, "ncu-*.csv"))):
    key = os.path.basename(ncu)[4:-4]
    variant, t = key.rsplit("-T", 1)
    rows = ncu_durations_us(ncu)
    nvtx_ok &= len(rows) == expected_launches and all("copy_kernel" in k for k, _ in rows)
    iso = load(os.path.join(out, f"isolated-{key}.json"))["statistics"]["median_us"]
    graph = load(os.path.join(out, f"graph-{key}.json"))["statistics"]["median_us"]
    if not rows:
        print(f"| {variant} | {t} | 0 | - | {iso:.3f} | - | {graph:.3f} | {graph - iso:+.3f} |")
        continue
    med = statistics.median(v for _, v in rows)
    if med >= 20:
        worst = max(worst, abs(iso / med - 1))
    print(f"| {variant} | {t} | {len(rows)} | {med:.3f} | {iso:.3f} | {iso / med:.4f} | {graph:.3f} | {graph - iso:+.3f} |")
print(f"\nworst |isolated/ncu - 1| over kernels >= 20 us: {100 * worst:.2f}% (target: within 5%)")
print(f"ncu --nvtx-include profiled exactly {expected_launches} copy_kernel launches per run: {'yes' if nvtx_ok else 'NO'}\n")

print("## 2 and 4. back-to-back `kk3tune time` runs (graph mode) and wall time\n")
print("| T | run 1 median us | run 2 median us | difference | limit | wall s (1, 2) | samples (1, 2) |")
print("| --- | --- | --- | --- | --- | --- | --- |")
for r1 in sorted(glob.glob(os.path.join(out, "repeat1-T*.json")), key=lambda p: int(p.rsplit("T", 1)[1][:-5])):
    t = r1.rsplit("T", 1)[1][:-5]
    a, b = load(r1), load(r1.replace("repeat1", "repeat2"))
    ma, mb = a["statistics"]["median_us"], b["statistics"]["median_us"]
    diff = abs(ma - mb) / ((ma + mb) / 2)
    limit = 0.01 if min(ma, mb) >= 5 else 0.03
    print(f"| {t} | {ma:.3f} | {mb:.3f} | {100 * diff:.2f}% {'ok' if diff <= limit else 'OVER'} | {100 * limit:.0f}% "
          f"| {a['timing']['wall_s']:.3f}, {b['timing']['wall_s']:.3f} | {a['statistics']['samples']}, {b['statistics']['samples']} |")
