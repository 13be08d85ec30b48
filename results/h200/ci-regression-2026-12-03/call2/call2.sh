#!/usr/bin/env bash
set -u
mkdir -p /work && ln -sfn "$PWD" /work/main
cp build-carry/kk3tune build/ 2>/dev/null || { mkdir -p build && cp build-carry/kk3tune build/; }
export XDG_CACHE_HOME=/tmp/kk3c
R=$OUT/r2; mkdir -p $R
nvidia-smi --query-gpu=name,pci.bus_id,driver_version --format=csv > $R/gpu.txt 2>&1
date -u +%FT%TZ > $R/start.txt
for i in 1 2 3 4 5 6; do
  KK3_BASE_KK3TUNE=build/kk3tune KK3_CI_OUT=/tmp/s$i bash ci/gpu-regression.sh > $R/same-auto-$i.txt 2>&1
  echo "same-auto-$i rc=$?" | tee -a $R/summary.txt
done
for i in 1 2; do
  KK3_BASE_KK3TUNE=build/kk3tune KK3_SWEEP_ARGS="--inject-fault b7-gpw1-nc0-stage0-unroll1-stages1-tpc1-trigger1=slow" KK3_CI_OUT=/tmp/w$i bash ci/gpu-regression.sh > $R/slow-auto-$i.txt 2>&1
  echo "slow-auto-$i rc=$?" | tee -a $R/summary.txt
done
tar czf $OUT/r2.tgz -C $OUT r2
grep -H "gpu-regression: exit\|^compare: " $R/*.txt | sed 's/token counts in both tables//' | cut -c1-200
