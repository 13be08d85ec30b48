#!/usr/bin/env bash
# Usage: bench/attn_res_ncu.sh BENCH_OUTDIR OUTDIR
# What limits attn_res: Nsight Compute on the fastest common_nb8 variant of a bench/attn_res_bench.py
# run at T=8192 (bandwidth) and T=1 (latency), read from its graph-common_nb8-T<T>.json (variants
# without a time, e.g. skipped as unlaunchable, are passed over). One file per shape in OUTDIR,
# starting with the variant and the command. KK3_NCU_BUDGET_S (default 120) bounds the whole script:
# each ncu call gets what is left (timeout), a shape that finds none left is skipped.
# KK3_NCU_SHAPES (default "common_nb8:8192 common_nb8:1") names other MODE:T pairs.
set -uo pipefail
bench=${1:?usage: bench/attn_res_ncu.sh BENCH_OUTDIR OUTDIR}
out=${2:?usage: bench/attn_res_ncu.sh BENCH_OUTDIR OUTDIR}
kk3=${KK3TUNE:-build/kk3tune}
budget=${KK3_NCU_BUDGET_S:-120}
mkdir -p "$out"
fastest() {
  python3 - "$1" <<'PY'
import json, sys
r = [x for x in json.load(open(sys.argv[1]))["results"] if (x.get("statistics") or {}).get("median_us", 0) > 0]
print(min(r, key=lambda x: x["statistics"]["median_us"])["variant"] if r else "")
PY
}
sections="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section InstructionStats"
start=$SECONDS
for spec in ${KK3_NCU_SHAPES:-common_nb8:8192 common_nb8:1}; do
  mode=${spec%:*} t=${spec#*:}
  left=$((budget - (SECONDS - start)))
  if [ "$left" -le 5 ]; then echo "ncu $mode T=$t skipped: ${left} s left of KK3_NCU_BUDGET_S=$budget"; continue; fi
  graph="$bench/graph-$mode-T$t.json"
  variant=$([ -f "$graph" ] && fastest "$graph")
  if [ -z "$variant" ]; then echo "ncu $mode T=$t skipped: no timed variant in $graph"; continue; fi
  log="$out/ncu-$mode-T$t-fastest.txt"
  echo "# $variant" >"$log"
  echo "ncu --clock-control none --nvtx --nvtx-include kk3tune@profile/ $sections $kk3 profile --family attn_res --mode $mode -T $t --variant $variant -n 1" >>"$log"
  timeout "$left" ncu --clock-control none --nvtx --nvtx-include "kk3tune@profile/" $sections \
    "$kk3" profile --family attn_res --mode "$mode" -T "$t" --variant "$variant" -n 1 >>"$log" 2>&1
  echo "ncu $mode T=$t fastest ($variant) rc=$? ($((SECONDS - start)) s)"
  grep -E "Duration|Memory Throughput|DRAM Throughput|Compute \(SM\) Throughput|Achieved Occupancy|Registers Per|Issue Slots Busy|No Eligible|Warp Cycles Per Issued" "$log" | head -12
done
