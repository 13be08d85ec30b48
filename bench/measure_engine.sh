#!/usr/bin/env bash
# Benchmarks of the measurement engine (issue 3), on the example copy kernel:
#  1. isolated-mode median vs ncu's gpu__time_duration median for kernels of 20 us or more
#     (ncu --cache-control none --clock-control none), and graph mode's per-launch difference;
#  2. two back-to-back `kk3tune time` runs of the same variant agree (1% at >= 5 us, 3% below);
#  3. ncu --nvtx --nvtx-include "kk3tune@profile/" on `kk3tune profile -n N` profiles N launches;
#  4. the wall time of one measurement at the default noise target.
# Usage: bench/measure_engine.sh OUTDIR   (run on the GPU machine; writes JSON, CSV and summary.md)
set -uo pipefail
out=${1:?usage: bench/measure_engine.sh OUTDIR}
kk3=${KK3TUNE:-build/kk3tune}
mkdir -p "$out"
fam=(--family copy_example)
echo "# kk3tune measurement-engine benchmark, $(date -u +%FT%TZ)" >"$out/commands.txt"
run() { echo "$*" >>"$out/commands.txt"; "$@"; }

# 1 and 3: ncu agreement and NVTX filtering.
n=50
for T in 2048 4096 8192; do
  for v in reference vec_bytes8-unroll2-threads512 vec_bytes4-unroll4-threads128; do
    run "$kk3" time "${fam[@]}" --variant $v -T $T --timing isolated --json "$out/isolated-$v-T$T.json" >/dev/null
    run "$kk3" time "${fam[@]}" --variant $v -T $T --timing graph --json "$out/graph-$v-T$T.json" >/dev/null
    run ncu --csv --cache-control none --clock-control none --metrics gpu__time_duration.sum \
      --nvtx --nvtx-include "kk3tune@profile/" "$kk3" profile "${fam[@]}" --variant $v -T $T -n $n \
      >"$out/ncu-$v-T$T.csv" 2>"$out/ncu-$v-T$T.log"
  done
done

# 2 and 4: back-to-back reproducibility and wall time, graph mode (the default).
for T in 1 8 64 512 2048 8192; do
  for rep in 1 2; do
    run "$kk3" time "${fam[@]}" -T $T --json "$out/repeat$rep-T$T.json" >/dev/null
  done
done
python3 "$(dirname "$0")/summarize_measure_engine.py" "$out" $n | tee "$out/summary.md"
