#!/usr/bin/env bash
# Where do chain-mode regimes come from (issue 16)? The same few mla_decode_epilogue variants at
# T=1, timed in chain mode in REPEATS separate processes under each chain model below; for every
# model, each variant's median per process, the spread of those medians across processes (what a
# separate run sees) and the drift within a process (first vs last 12 samples). A model under
# which the spread falls to the samples' own noise names the cause:
#   default        the family's model (persistent producer and consumer, all shared memory)
#   small-producer producer of 128 threads, no shared memory, triggering at once
#   no-read        the consumer reads nothing
#   small-consumer consumer of 128 threads, no shared memory
#   no-pdl         the variant launched without PDL
# Writes OUTDIR/<model>-<i>.json and prints the table last.
# usage: bench/chain_regimes.sh KK3TUNE OUTDIR [REPEATS] [VARIANTS]
set -uo pipefail
kk3=${1:?usage: chain_regimes.sh KK3TUNE OUTDIR [REPEATS] [VARIANTS]}
out=${2:?outdir}
repeats=${3:-4}
variants=${4:-split3-unroll1-early_reads1-cache_wait1-rows_per_warp1-trigger_early1-threads128,split3-unroll1-early_reads0-cache_wait1-rows_per_warp1-trigger_early1-threads256,split4-unroll1-early_reads0-cache_wait1-rows_per_warp1-trigger_early1-threads128,split1-unroll1-early_reads0-cache_wait1-rows_per_warp1-trigger_early0-threads128}
mkdir -p "$out"
declare -A flags=(
  [default]=""
  [small-producer]="--producer-threads 128 --producer-smem 0 --producer-trigger start"
  [no-read]="--consumer-reads none"
  [small-consumer]="--consumer-threads 128 --consumer-smem 0"
  [no-pdl]="--no-pdl")
for model in default small-producer no-read small-consumer no-pdl; do
  for i in $(seq 1 "$repeats"); do
    # shellcheck disable=SC2086
    "$kk3" time --family mla_decode_epilogue --mode bf16 --tokens 1 --timing chain --variant "$variants" \
      --seed "$i" --max-time 0.2 --min-samples 40 --cache-dir "$out/cache" ${flags[$model]} \
      --json "$out/$model-$i.json" >"$out/$model-$i.log" 2>&1 || echo "$model $i failed: $(tail -1 "$out/$model-$i.log")"
  done
done
rm -rf "$out/cache"
python3 - "$out" "$repeats" <<'PY'
import glob, json, statistics as st, sys
out, repeats = sys.argv[1], int(sys.argv[2])
print(f"{'model':15} {'variant':12} {'medians per process, us':40} {'spread':>7} {'own se':>7} {'drift':>7}")
for model in ["default", "small-producer", "no-read", "small-consumer", "no-pdl"]:
    runs = [json.load(open(f)) for f in sorted(glob.glob(f"{out}/{model}-*.json"))]
    if not runs:
        continue
    for v in [r["variant"] for r in runs[0]["results"]]:
        meds, ses, drifts = [], [], []
        for run in runs:
            e = next(r for r in run["results"] if r["variant"] == v)
            s = e["samples_us"]
            meds.append(e["statistics"]["median_us"])
            ses.append(e["statistics"]["rel_stderr_median"])
            if len(s) >= 24:
                drifts.append(abs(st.median(s[-12:]) / st.median(s[:12]) - 1))
        spread = (max(meds) / min(meds) - 1) if meds else 0
        print(f"{model:15} {v[:12]:12} {' '.join(f'{m:.3f}' for m in meds):40} {100 * spread:6.1f}% "
              f"{100 * st.median(ses):6.2f}% {100 * max(drifts or [0]):6.1f}%")
PY
