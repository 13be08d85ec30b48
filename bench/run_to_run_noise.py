#!/usr/bin/env python3
"""How far one variant's final-round median moves from one sweep to the next (two sweeps of one
plan, e.g. on two machines), against the noise each run reported for it. The selection's
noise_floor (configs/default.json, docs/objective.md) is the least relative standard error a
median is taken to have; this is where its value comes from.

For each family x mode x shape x token count measured "ok" in both files: the common-mode shift
(the median ratio of all its variants: the machine or the clocks) and each variant's residual
around it (what can reorder variants). Prints, per family and T <= 64 / T > 64, the medians and
90th percentiles of both, the residual in the runs' own standard errors, and the relative
standard error one run's median has if two runs differ by the residual (p90 / (1.645 * sqrt 2)).

usage: bench/run_to_run_noise.py FIRST.json SECOND.json"""
import collections
import gzip
import json
import math
import statistics as st
import sys


def load(path):
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        return json.load(f)


def finals(doc):
    return {(r["family"], r["mode"], json.dumps(r["shape"], sort_keys=True), r["tokens"], r["variant"]): r["statistics"]
            for r in doc["records"] if r["status"] == "ok" and r.get("statistics")}


def p90(xs):
    xs = sorted(xs)
    return xs[int(0.9 * (len(xs) - 1))]


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    a, b = finals(load(sys.argv[1])), finals(load(sys.argv[2]))
    groups = collections.defaultdict(list)
    for k in a.keys() & b.keys():
        se = math.hypot(a[k]["rel_stderr_median"], b[k]["rel_stderr_median"])
        groups[k[:4]].append((b[k]["median_us"] / a[k]["median_us"], se))
    shift, residual = collections.defaultdict(list), collections.defaultdict(list)
    for (family, mode, shape, tokens), v in groups.items():
        if len(v) < 2:
            continue
        c = st.median(x for x, _ in v)
        band = (family, "T<=64" if tokens <= 64 else "T>64")
        shift[band].append(abs(c - 1))
        for x, se in v:
            residual[band].append((abs(x / c - 1), abs(x / c - 1) / se if se else 0.0))
    print(f"{'family':20} {'tokens':6} {'n':>5}  {'shift med':>9} {'p90':>6}  {'residual med':>12} {'p90':>6}  "
          f"{'in sigmas med':>13} {'p90':>6}  {'one run':>7}")
    for band in sorted(residual):
        r = [x for x, _ in residual[band]]
        z = [y for _, y in residual[band]]
        print(f"{band[0]:20} {band[1]:6} {len(r):5d}  {100 * st.median(shift[band]):8.2f}% {100 * p90(shift[band]):5.2f}%  "
              f"{100 * st.median(r):11.2f}% {100 * p90(r):5.2f}%  {st.median(z):13.1f} {p90(z):6.1f}  "
              f"{100 * p90(r) / (1.645 * math.sqrt(2)):6.2f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
