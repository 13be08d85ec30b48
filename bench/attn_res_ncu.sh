#!/usr/bin/env bash
# What limits attn_res (issue 5): Nsight Compute on the fastest variant of a benchmark run at the
# shapes the targets name (nb8: T=8192 for bandwidth, T=1 for latency), and on the reference at
# T=8192. Reads the fastest variant from bench/attn_res_bench.py's graph-*.json files.
# Usage: bench/attn_res_ncu.sh BENCH_OUTDIR OUTDIR
set -uo pipefail
bench=${1:?usage: bench/attn_res_ncu.sh BENCH_OUTDIR OUTDIR}
out=${2:?usage: bench/attn_res_ncu.sh BENCH_OUTDIR OUTDIR}
kk3=${KK3TUNE:-build/kk3tune}
mkdir -p "$out"
fastest() {
  python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['results']; print(min(r, key=lambda x: x['statistics']['median_us'])['variant'])" "$1"
}
sections="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section InstructionStats"
for spec in "nb8 8192 fastest" "nb8 8192 reference" "nb8 1 fastest"; do
  set -- $spec
  mode=$1 t=$2 which=$3
  variant=reference
  [ "$which" = fastest ] && variant=$(fastest "$bench/graph-$mode-T$t.json")
  log="$out/ncu-$mode-T$t-$which.txt"
  echo "# $variant" >"$log"
  echo "ncu --clock-control none --nvtx --nvtx-include kk3tune@profile/ $sections $kk3 profile --family attn_res --mode $mode -T $t --variant $variant -n 1" >>"$log"
  ncu --clock-control none --nvtx --nvtx-include "kk3tune@profile/" $sections \
    "$kk3" profile --family attn_res --mode "$mode" -T "$t" --variant "$variant" -n 1 >>"$log" 2>&1
  echo "ncu $mode T=$t $which ($variant) rc=$?"
  grep -E "Duration|Memory Throughput|DRAM Throughput|Compute \(SM\) Throughput|Achieved Occupancy|Registers Per|Issue Slots Busy|No Eligible|Warp Cycles Per Issued" "$log" | head -12
done
