#!/usr/bin/env bash
# Call 3: the job as committed (confirmation by count in both NEW sweeps), default configuration
# (ci/baseline/h200.json, KK3_CONFIRM=auto) with this build as its own base, four times; then the
# regression made on purpose, twice. Run from the repository root on the GPU machine, with
# build-carry/kk3tune carried.
set -u
mkdir -p /work && ln -sfn "$PWD" /work/main
mkdir -p build && cp build-carry/kk3tune build/
export XDG_CACHE_HOME=/tmp/kk3c
R=$OUT/r3; mkdir -p $R
nvidia-smi --query-gpu=name,pci.bus_id,driver_version --format=csv > $R/gpu.txt 2>&1
date -u +%FT%TZ > $R/start.txt
for i in 1 2 3 4; do
  KK3_BASE_KK3TUNE=build/kk3tune KK3_CI_OUT=/tmp/s$i bash ci/gpu-regression.sh > $R/same-auto-$i.txt 2>&1
  echo "same-auto-$i rc=$?" | tee -a $R/summary.txt
done
for i in 1 2; do
  KK3_BASE_KK3TUNE=build/kk3tune KK3_SWEEP_ARGS="--inject-fault b7-gpw1-nc0-stage0-unroll1-stages1-tpc1-trigger1=slow" KK3_CI_OUT=/tmp/w$i bash ci/gpu-regression.sh > $R/slow-auto-$i.txt 2>&1
  echo "slow-auto-$i rc=$?" | tee -a $R/summary.txt
done
cp /tmp/w1/compare.md $R/slow-auto-1-compare.md
tar czf $OUT/r3.tgz -C $OUT r3
grep -H "gpu-regression: exit\|^compare: " $R/*.txt | sed 's/token counts in both tables//' | cut -c1-220
