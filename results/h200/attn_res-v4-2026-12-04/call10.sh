#!/usr/bin/env bash
# Issue 35 on the H200 (2026-12-04, second session), call 10: the GPU suite (binaries built on the
# build machine at /work/main, carried in build-carry/), then the benchmark with its cold instrument
# against call 9's sweep (the product sweep, results/h200/sweep-v4-2026-12-04):
# `KK3_BENCH_SWEEP=results/h200/sweep-v4-2026-12-04/sweep.json.gz KK3_BENCH_PEERS=triton KK3_BENCH_WALL_S=320
# KK3_BENCH_COLD_S=150 bench/attn_res_gpu.sh OUT bench` (graph: kk3tune `time --variant all`, the
# copy ceiling, Triton with vLLM's tiles and its tuned tile; cold: bench/attn_res_cold.py).
# torch.compile is left out (KK3_BENCH_PEERS=triton) to fit the session's GPU time.
set -u
mkdir -p /work && [ "$PWD" = /work/main ] || ln -sfn "$PWD" /work/main
mkdir -p build/tests && cp build-carry/kk3tune build/ && cp build-carry/kk3_gpu_tests build/tests/
export XDG_CACHE_HOME=/tmp/kk3c; mkdir -p $XDG_CACHE_HOME
R=$OUT/c10; mkdir -p $R
s=$SECONDS
timeout 100 build/tests/kk3_gpu_tests --gtest_filter='-attn_res_gpu.every_variant_in_every_mode*' >$R/gpu-tests.txt 2>&1
echo "gpu tests rc=$? $((SECONDS - s)) s: $(grep -E '^\[  (PASSED|FAILED) ' $R/gpu-tests.txt | head -3 | tr '\n' ' ')" | tee $R/summary.txt
s=$SECONDS
KK3TUNE=$PWD/build/kk3tune KK3_BENCH_SWEEP=$PWD/results/h200/sweep-v4-2026-12-04/sweep.json.gz KK3_BENCH_PEERS=triton \
  KK3_BENCH_WALL_S=320 KK3_BENCH_COLD_S=150 timeout 330 bash bench/attn_res_gpu.sh $R bench >$R/bench-step.txt 2>&1
echo "bench step rc=$? $((SECONDS - s)) s" | tee -a $R/summary.txt
cat $R/bench-step.txt | grep -vE "^\|" | head -20
sed -n '/^# attn_res: graph and cold/,$p' $R/bench-step.txt
cd $OUT && tar czf c10.tgz c10 && rm -rf c10
