#!/usr/bin/env bash
# How much of a variant's chain-mode figure depends on the process it was measured in? A few
# variants of one family/mode/T, timed together in REPEATS separate processes (many samples each),
# then per variant: the medians per process, their relative standard deviation, the mean of the
# runs' own standard errors, and the excess the standard errors do not explain
# (sqrt(sd^2 - se^2)): an effect of the process (placement of data, code, graphs) that one run
# cannot see and that selection.noise_floor has to cover. Issue 16 measured about 1% at T=1
# (results/h200/regimes-2026-12-01/f-summary.txt).
# EXTRA (environment) adds flags to each time command, e.g. EXTRA="--chain-workspaces 1".
# usage: bench/process_spread.sh KK3TUNE OUTDIR FAMILY MODE T VARIANTS [REPEATS] [MAX_TIME]
set -uo pipefail
# shellcheck disable=SC2086  # EXTRA is split into flags on purpose
kk3=${1:?usage: process_spread.sh KK3TUNE OUTDIR FAMILY MODE T VARIANTS [REPEATS] [MAX_TIME]}
out=${2:?outdir} family=${3:?family} mode=${4:?mode} t=${5:?tokens} variants=${6:?variants} repeats=${7:-6} max_time=${8:-0.3}
mkdir -p "$out"
for i in $(seq 1 "$repeats"); do
  "$kk3" time --family "$family" --mode "$mode" --tokens "$t" --timing chain --variant "$variants" --seed "$i" \
    --max-time "$max_time" --min-samples 150 --cache-dir "$out/cache" ${EXTRA:-} --json "$out/run-$i.json" >"$out/run-$i.log" 2>&1 ||
    echo "run $i failed: $(tail -2 "$out/run-$i.log")"
done
python3 - "$out" <<'PY'
import glob, json, statistics as st, sys
runs = [json.load(open(f)) for f in sorted(glob.glob(f"{sys.argv[1]}/run-*.json"))]
if len(runs) < 2:
    sys.exit("fewer than two runs")
for r0 in runs[0]["results"]:
    v = r0["variant"]
    es = [next(x for x in run["results"] if x["variant"] == v) for run in runs]
    meds = [e["statistics"]["median_us"] for e in es]
    se = st.mean(e["statistics"]["rel_stderr_median"] for e in es)
    sd = st.stdev(meds) / st.mean(meds)
    print(f"{v[:60]:60} {' '.join(f'{m:.3f}' for m in meds)}  sd {100 * sd:.2f}%  se {100 * se:.2f}%  "
          f"excess {100 * max(0.0, sd * sd - se * se) ** 0.5:.2f}%")
PY
