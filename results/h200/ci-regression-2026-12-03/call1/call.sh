#!/usr/bin/env bash
# One device call: the regression job proven both ways on whatever H200 this is.
set -u
mkdir -p /work && ln -sfn "$PWD" /work/main
mkdir -p build/tests && cp build-carry/kk3tune build/ && cp build-carry/kk3_gpu_tests build/tests/ && cp -r build-carry/test-families build/
export XDG_CACHE_HOME=/tmp/kk3c
R=$OUT/r; mkdir -p $R
nvidia-smi --query-gpu=name,pci.bus_id,driver_version,clocks.sm,clocks.mem --format=csv > $R/gpu.txt 2>&1
date -u +%FT%TZ > $R/start.txt
step() { local name=$1; shift; local t0=$(date +%s); "$@" > $R/$name.txt 2>&1; local rc=$?; echo "$name rc=$rc $(( $(date +%s) - t0 ))s" | tee -a $R/summary.txt; }
base=build/kk3tune
slow="--inject-fault b7-gpw1-nc0-stage0-unroll1-stages1-tpc1-trigger1=slow"
# 1. a new baseline from this clean revision (59120a3)
step baseline build/kk3tune sweep --config ci/short-plan.json --out $R/h200.json
# 2-4. against the committed baseline (2026-12-02, another machine)
step old-same-auto env KK3_BASE_KK3TUNE=$base KK3_CI_OUT=/tmp/c2 bash ci/gpu-regression.sh
step old-same-always env KK3_BASE_KK3TUNE=$base KK3_CONFIRM=always KK3_CI_OUT=/tmp/c3 bash ci/gpu-regression.sh
step old-slow-auto env KK3_BASE_KK3TUNE=$base KK3_SWEEP_ARGS="$slow" KK3_CI_OUT=/tmp/c4 bash ci/gpu-regression.sh
step old-same-screen-only env KK3_CONFIRM=never KK3_CI_OUT=/tmp/c5 bash ci/gpu-regression.sh
# 5-6. against the new baseline (this machine)
step new-same-auto env KK3_BASE_KK3TUNE=$base KK3_CI_OUT=/tmp/c6 bash ci/gpu-regression.sh $R/h200.json
step new-slow-auto env KK3_BASE_KK3TUNE=$base KK3_SWEEP_ARGS="$slow" KK3_CI_OUT=/tmp/c7 bash ci/gpu-regression.sh $R/h200.json
for i in 2 3 4 5 6 7; do mkdir -p $R/job$i && cp /tmp/c$i/*.md /tmp/c$i/*.json $R/job$i/ 2>/dev/null; cp /tmp/c$i/sweep.json $R/job$i/ 2>/dev/null; cp -r /tmp/c$i/confirm $R/job$i/ 2>/dev/null; done
step gpu-tests timeout 200 build/tests/kk3_gpu_tests --gtest_filter='-attn_res_gpu.every_variant_in_every_mode*'
step third-family bash tests/ci/third_family_gpu.sh build/test-families/bin/kk3tune-test-families /tmp/tf
tar czf $OUT/r.tgz -C $OUT r
cat $R/summary.txt; grep -h "compare: \|gpu-regression: exit\|gpu-regression: confirming" $R/old-*.txt $R/new-*.txt | cut -c1-220
