#!/usr/bin/env bash
# Where does isolated mode's difference from ncu come from? Compares, for the copy kernel,
# kk3tune's isolated and cold medians (with and without PDL) with ncu's gpu__time_duration
# under --cache-control none and all.  Usage: bench/isolated_overhead.sh OUTDIR
set -uo pipefail
out=${1:?usage: bench/isolated_overhead.sh OUTDIR}
kk3=${KK3TUNE:-build/kk3tune}
mkdir -p "$out"
for T in 1 64 4096 8192; do
  for m in isolated cold graph; do
    "$kk3" time --family copy_example -T $T --timing $m --json "$out/$m-T$T.json" >/dev/null
    "$kk3" time --family copy_example -T $T --timing $m --no-pdl --json "$out/$m-nopdl-T$T.json" >/dev/null
  done
  for cc in none all; do
    ncu --csv --cache-control $cc --clock-control none --metrics gpu__time_duration.sum --nvtx --nvtx-include "kk3tune@profile/" \
      "$kk3" profile --family copy_example -T $T -n 30 >"$out/ncu-$cc-T$T.csv" 2>/dev/null
  done
done
python3 - "$out" <<'PY'
import csv, glob, json, os, statistics, sys
out = sys.argv[1]
def med(path):
    return json.load(open(path))["statistics"]["median_us"]
def ncu(path):
    lines = [l for l in open(path) if l.startswith('"')]
    s = {"nsecond": 1e-3, "ns": 1e-3, "usecond": 1.0, "us": 1.0, "msecond": 1e3, "ms": 1e3}
    v = [float(r["Metric Value"].replace(",", "")) * s[r["Metric Unit"]] for r in csv.DictReader(lines) if r.get("Metric Name") == "gpu__time_duration.sum"]
    return statistics.median(v) if v else float("nan"), len(v)
print("| T | ncu none | ncu all | isolated | isolated no-pdl | cold | cold no-pdl | graph | graph no-pdl |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for T in (1, 64, 4096, 8192):
    nn, _ = ncu(f"{out}/ncu-none-T{T}.csv"); na, _ = ncu(f"{out}/ncu-all-T{T}.csv")
    row = [med(f"{out}/{m}-T{T}.json") for m in ("isolated", "isolated-nopdl", "cold", "cold-nopdl", "graph", "graph-nopdl")]
    print(f"| {T} | {nn:.3f} | {na:.3f} | " + " | ".join(f"{x:.3f}" for x in row) + " |")
PY
