#!/usr/bin/env bash
# Issue 43, call 1c (2026-12-05): call 1b's benchmark again, kk3tune's part only (call 1b's kk3tune
# runs all stopped at a config key the carried binary did not know: the tree had moved on). STAGE 2
# and 3 and the reference, graph mode and cold, at the 20 peer cells; the Triton figures are call
# 1b's, same card kind. kk3tune built from the clean commit it reports, carried in build-carry/.
#   KK3_BENCH_CASES=common_nb1,common_nb4,common_nb8,post_nb8 KK3_BENCH_PEERS=none
#   KK3_BENCH_VARIANTS='*-stage2-*,*-stage3-*,reference' KK3_BENCH_WALL_S=<left> bench/attn_res_gpu.sh OUT bench
set -u
mkdir -p /work && [ "$PWD" = /work/main ] || ln -sfn "$PWD" /work/main
mkdir -p build && cp build-carry/kk3tune build/
K=$PWD/build/kk3tune; R=$OUT/c1c; mkdir -p $R
export XDG_CACHE_HOME=/tmp/kk3c; mkdir -p $XDG_CACHE_HOME
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader | tee $R/summary.txt
$K --version | tee -a $R/summary.txt
left=$((${CALL_TOTAL_S:-160} - SECONDS)); cold=$((left * 40 / 100))
KK3TUNE=$K KK3_BENCH_CASES=common_nb1,common_nb4,common_nb8,post_nb8 KK3_BENCH_PEERS=none \
  KK3_BENCH_VARIANTS='*-stage2-*,*-stage3-*,reference' KK3_BENCH_WALL_S=$left KK3_BENCH_COLD_S=$cold \
  timeout $((left + 5)) bash bench/attn_res_gpu.sh $R bench >$R/bench-step.txt 2>&1
echo "bench step (wall $left s, cold $cold s) rc=$? $SECONDS s" | tee -a $R/summary.txt
sed -n '/^# attn_res: graph and cold/,$p' $R/bench-step.txt | head -30
cd $OUT && tar czf c1c.tgz c1c && rm -rf c1c
