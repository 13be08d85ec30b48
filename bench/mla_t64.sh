#!/usr/bin/env bash
# The T <= 64 target of issue 4 at its hardest shape: every mla_decode_epilogue variant at
# T=64 (H=8 and 16, bf16 and fp8) against the empty kernel, all in graph mode.
# Usage: bench/mla_t64.sh OUTDIR
set -euo pipefail
out=${1:?usage: bench/mla_t64.sh OUTDIR}
kk3=${KK3TUNE:-build/kk3tune}
mkdir -p "$out"
"$kk3" time --family empty_example --variant all --json "$out/empty.json" >/dev/null
for mode in bf16 fp8; do
  for h in 8 16; do
    "$kk3" time --family mla_decode_epilogue --mode $mode --heads $h -T 64 --variant all --timing graph --json "$out/graph-$mode-H$h-T64.json" >/dev/null
  done
done
python3 - "$out" <<'PY'
import glob, json, os, sys
out = sys.argv[1]
res = lambda p: {r["variant"]: r["statistics"]["median_us"] for r in json.load(open(p))["results"]}
empty = min(res(f"{out}/empty.json").values())
print(f"empty kernel (graph, best of its variants): {empty:.3f} us\n")
print("| shape | best us | best/empty | best variant |")
print("| --- | --- | --- | --- |")
for p in sorted(glob.glob(f"{out}/graph-*.json")):
    r = res(p)
    best = min(r, key=r.get)
    print(f"| {os.path.basename(p)[6:-5]} | {r[best]:.3f} | {r[best] / empty:.2f} | {best} |")
PY
