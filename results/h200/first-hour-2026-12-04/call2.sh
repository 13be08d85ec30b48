#!/usr/bin/env bash
# Issue 34 on the H200 (2026-12-04), call 2: the tree as finished. The GPU suite (the timing test
# now passes --timing isolated), and the reliability scripts over the sweep's new up-front checks
# (file roles, kernel folder): faults, --gpus (GPU 0 twice), kill -9 and --resume.
# Carry: build-carry/ (kk3tune, kk3_gpu_tests), built at /work/wt-lead.
set -u
mkdir -p /work && ln -sfn "$PWD" /work/wt-lead
mkdir -p build/tests && cp build-carry/kk3tune build/ && cp build-carry/kk3_gpu_tests build/tests/
export XDG_CACHE_HOME=/tmp/kk3c
R=$OUT/r2; mkdir -p $R; K=$PWD/build/kk3tune; P=tests/fixtures/sweep/small-plan.json
step() { local name=$1; shift; local t0=$(date +%s); "$@" > $R/$name.txt 2>&1; local rc=$?; echo "$name rc=$rc $(( $(date +%s) - t0 ))s $(tail -1 $R/$name.txt | cut -c1-150)" | tee -a $R/summary.txt; }
step gpu-tests timeout 300 build/tests/kk3_gpu_tests --gtest_filter='-attn_res_gpu.every_variant_in_every_mode*'
step faults timeout 300 bash tests/reliability/faults_gpu.sh $K $P
step gpus timeout 300 bash tests/reliability/gpus_gpu.sh $K $P
step kill-resume timeout 300 bash tests/reliability/kill_and_resume_gpu.sh $K $P $R/kr
step no-gpu-clash bash -c "cp configs/default.json /tmp/p.json; $K sweep --config /tmp/p.json --out /tmp/p.json --family mla_decode_epilogue --mode bf16; echo rc=\$?"
tar czf $OUT/r2.tgz -C $OUT r2
cat $R/summary.txt
