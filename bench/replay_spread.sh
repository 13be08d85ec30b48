#!/usr/bin/env bash
# Does a variant's figure depend on the run it was measured in? `kk3tune time --variant all` of one
# family/mode/T in REPEATS separate processes (each from the same compile cache), then per run: how
# many candidates with 30 samples or more drift by more than 3% between their first and last 12
# samples, and across runs: the spread of each variant's median (50th/90th percentile, max) and each
# run's fastest variant. Issue 16 found both large in chain mode (results/h200/objective-2026-12-01).
# usage: bench/replay_spread.sh KK3TUNE OUTDIR FAMILY MODE T [REPEATS] [TIMING]
set -uo pipefail
kk3=${1:?usage: replay_spread.sh KK3TUNE OUTDIR FAMILY MODE T [REPEATS] [TIMING]}
out=${2:?outdir} family=${3:?family} mode=${4:?mode} t=${5:?tokens} repeats=${6:-2} timing=${7:-chain}
mkdir -p "$out"
for i in $(seq 1 "$repeats"); do
  "$kk3" time --family "$family" --mode "$mode" --tokens "$t" --timing "$timing" --variant all --seed "$i" \
    --max-time 0.1 --cache-dir "$out/cache" --json "$out/$family-$mode-T$t-$i.json" >"$out/$family-$mode-T$t-$i.log" 2>&1 ||
    echo "run $i failed: $(tail -2 "$out/$family-$mode-T$t-$i.log")"
done
python3 - "$out" "$family-$mode-T$t" <<'PY'
import glob, json, statistics as st, sys
out, stem = sys.argv[1], sys.argv[2]
runs = [json.load(open(f)) for f in sorted(glob.glob(f"{out}/{stem}-*.json"))]
meds = [{r["variant"]: r["statistics"]["median_us"] for r in run["results"]} for run in runs]
drift = [abs(st.median(r["samples_us"][-12:]) / st.median(r["samples_us"][:12]) - 1)
         for run in runs for r in run["results"] if len(r["samples_us"]) >= 30]
spread = sorted(max(m[v] for m in meds) / min(m[v] for m in meds) - 1 for v in meds[0] if all(v in m for m in meds))
fastest = [min(m, key=m.get) for m in meds]
print(f"{stem}: {len(runs)} runs, {len(meds[0])} variants; drift > 3%: {sum(d > 0.03 for d in drift)} of {len(drift)} "
      f"(median {100 * st.median(drift or [0]):.2f}%); spread of medians p50 {100 * spread[len(spread) // 2]:.2f}% "
      f"p90 {100 * spread[int(0.9 * len(spread))]:.2f}% max {100 * spread[-1]:.2f}%")
for i, f in enumerate(fastest):
    print(f"  run {i + 1} fastest {f} {meds[i][f]:.4f} us; in the other runs: " +
          " ".join(f"{m[f]:.4f}" for j, m in enumerate(meds) if j != i))
PY
