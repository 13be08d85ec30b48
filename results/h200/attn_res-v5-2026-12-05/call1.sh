#!/usr/bin/env bash
# Issue 43 on the H200 (2026-12-05), call 1: STAGE 3 (kernels/attn_res_two_pass.cuh) checked,
# swept and benchmarked in one call (the H200 was scarce: every step that fits). kk3tune built on
# the build machine at /work/main, carried in build-carry/ (kernels are compiled by NVRTC here).
#  1. `kk3tune verify --family attn_res --variant '*-stage3-*,*-stage4-*' --include-test-knobs`: every STAGE 3
#     variant of every mode at the edge shapes against the reference variant and the CPU
#     reference, its early-reading twin flagged (the sweep verifies every variant it times too);
#  2. the default sweep from an empty compile cache (the README's GPU step): the product's tables;
#  3. the benchmark of the product with the sweep of step 2, graph and cold, all 30 cells, the
#     tuned Triton tile beside it, in the wall left: `KK3_BENCH_SWEEP=OUT/sweep.json.gz
#     KK3_BENCH_PEERS=triton KK3_BENCH_WALL_S=<left> KK3_BENCH_COLD_S=<half of it>
#     bench/attn_res_gpu.sh OUT bench` (cold.md: warp-instructions per token and issue-active %).
set -u
mkdir -p /work && [ "$PWD" = /work/main ] || ln -sfn "$PWD" /work/main
mkdir -p build/tests && cp build-carry/kk3tune build/ && cp build-carry/kk3_gpu_tests build/tests/
K=$PWD/build/kk3tune; R=$OUT/c1; mkdir -p $R
export XDG_CACHE_HOME=/tmp/kk3c; mkdir -p $XDG_CACHE_HOME
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader | tee $R/summary.txt
s=$SECONDS
timeout 70 $K verify --family attn_res --variant '*-stage3-*,*-stage4-*' --include-test-knobs --seed 20261205 >$R/verify.txt 2>&1
echo "verify rc=$? $((SECONDS - s)) s" | tee -a $R/summary.txt; grep -E "variant-modes|worst ratio" $R/verify.txt | tee -a $R/summary.txt
grep -E "stage[34]" $R/verify.txt | grep -vE " ok | pdl_hazard " | head -5 | tee -a $R/summary.txt
s=$SECONDS
timeout 260 $K sweep --out $R/sweep.json --cache-dir /tmp/kk3-empty-cache >$R/sweep.txt 2>$R/sweep.log
echo "sweep rc=$? $((SECONDS - s)) s wall" | tee -a $R/summary.txt; grep -E "records \(" $R/sweep.txt $R/sweep.log | cut -c1-240 | tee -a $R/summary.txt
gzip -f $R/sweep.json
left=$((540 - SECONDS)); cold=$((left / 2))
s=$SECONDS
KK3TUNE=$K KK3_BENCH_SWEEP=$R/sweep.json.gz KK3_BENCH_PEERS=triton KK3_BENCH_WALL_S=$left KK3_BENCH_COLD_S=$cold \
  timeout $((left + 5)) bash bench/attn_res_gpu.sh $R bench >$R/bench-step.txt 2>&1
echo "bench step (wall $left s, cold $cold s) rc=$? $((SECONDS - s)) s" | tee -a $R/summary.txt
sed -n '/^# attn_res: graph and cold/,$p' $R/bench-step.txt | grep -vE "^\| (write|final)" | head -40
cd $R/bench 2>/dev/null && tar czf raw.tgz --exclude=raw.tgz --exclude=summary.json --exclude=cold.json --exclude=peers.json \
  --exclude=summary.md --exclude=cold.md . 2>/dev/null; cd $OUT && tar czf c1.tgz c1 && rm -rf c1
