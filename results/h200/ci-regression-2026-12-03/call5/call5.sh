#!/usr/bin/env bash
# Call 5: the job as finally committed (2cb87a4: a failed confirmation that names nothing is exit
# 2), the same build confirmed (KK3_CONFIRM=always) and the fault. Carry: build-carry/kk3tune.
set -u
mkdir -p /work && ln -sfn "$PWD" /work/main
mkdir -p build && cp build-carry/kk3tune build/
export XDG_CACHE_HOME=/tmp/kk3c
R=$OUT/r5; mkdir -p $R
nvidia-smi --query-gpu=name,pci.bus_id,driver_version --format=csv > $R/gpu.txt 2>&1
KK3_BASE_KK3TUNE=build/kk3tune KK3_CONFIRM=always KK3_CI_OUT=/tmp/a bash ci/gpu-regression.sh > $R/same-always.txt 2>&1
echo "same-always rc=$?" | tee -a $R/summary.txt
KK3_BASE_KK3TUNE=build/kk3tune KK3_SWEEP_ARGS="--inject-fault b7-gpw1-nc0-stage0-unroll1-stages1-tpc1-trigger1=slow" KK3_CI_OUT=/tmp/b bash ci/gpu-regression.sh > $R/slow-auto.txt 2>&1
echo "slow-auto rc=$?" | tee -a $R/summary.txt
grep -h "gpu-regression: exit" $R/*.txt | cut -c1-240
