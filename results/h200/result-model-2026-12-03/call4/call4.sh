#!/usr/bin/env bash
# Call 4: main at 0cd6bfd (the time writer in results/time_file, emit's skip of stale tables, the
# regression job's confirmation): the GPU suite, `time --json` through the new writer read back
# by report and compare, the faults check and the regression job. Carry: build-carry/.
set -u
mkdir -p /work && ln -sfn "$PWD" /work/main
mkdir -p build/tests && cp build-carry/kk3tune build/ && cp build-carry/kk3_gpu_tests build/tests/
export XDG_CACHE_HOME=/tmp/kk3c
R=$OUT/r4; mkdir -p $R
nvidia-smi --query-gpu=name,pci.bus_id,driver_version --format=csv > $R/gpu.txt 2>&1
step() { local name=$1; shift; local t0=$(date +%s); "$@" > $R/$name.txt 2>&1; local rc=$?; echo "$name rc=$rc $(( $(date +%s) - t0 ))s" | tee -a $R/summary.txt; }
step gpu-tests timeout 200 build/tests/kk3_gpu_tests --gtest_filter='-attn_res_gpu.every_variant_in_every_mode*'
step time-mla build/kk3tune time --family mla_decode_epilogue --mode bf16 --tokens 64 --variant reference,split3-unroll1-early_reads1-cache_wait1-rows_per_warp1-trigger_early1-threads256 --json $R/time-mla.json
step time-attn build/kk3tune time --family attn_res --mode common_nb8 --tokens 256 --json $R/time-attn.json
step report-time build/kk3tune report $R/time-mla.json --csv $R/time-mla.csv
step compare-time build/kk3tune compare $R/time-mla.json $R/time-mla.json
step faults bash tests/reliability/faults_gpu.sh build/kk3tune tests/fixtures/sweep/small-plan.json
step regression env KK3_BASE_KK3TUNE=build/kk3tune KK3_CI_OUT=/tmp/reg bash ci/gpu-regression.sh
cat $R/summary.txt
