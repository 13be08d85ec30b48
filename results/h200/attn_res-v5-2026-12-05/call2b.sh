#!/usr/bin/env bash
# Issue 43 on the H200 (2026-12-05), call 2b (the budget left after call 1): the product, against call 1's sweep
# (results/h200/sweep-v5-2026-12-05/sweep.json.gz), with the binaries of call 1 (build-carry/):
#  1. the GPU suite (kk3_gpu_tests: the emulation test compares two STAGE 3 variants to the host
#     emulation bit for bit in six cases), but its every-variant test, which call 1's full verify
#     covers;
#  2. bench/chain_acceptance.sh at its attn_res cells (the table within 3% of the chain's best);
#  3. the benchmark of the product, graph and cold, all 30 cells, the tuned Triton tile beside it:
#     `KK3_BENCH_SWEEP=results/h200/sweep-v5-2026-12-05/sweep.json.gz KK3_BENCH_PEERS=triton
#     KK3_BENCH_WALL_S=330 KK3_BENCH_COLD_S=160 bench/attn_res_gpu.sh OUT bench`
#     (cold.md/cold.json carry warp-instructions per token and issue-active % of both kernels).
# call 2b runs steps 1 and 2 only (call 1 ran the benchmark against the same sweep).
set -u
mkdir -p /work && [ "$PWD" = /work/main ] || ln -sfn "$PWD" /work/main
mkdir -p build/tests && cp build-carry/kk3tune build/ && cp build-carry/kk3_gpu_tests build/tests/
export XDG_CACHE_HOME=/tmp/kk3c; mkdir -p $XDG_CACHE_HOME
SW=$PWD/results/h200/sweep-v5-2026-12-05/sweep.json.gz
R=$OUT/c2b; mkdir -p $R
nvidia-smi --query-gpu=name --format=csv,noheader | tee $R/summary.txt; build/kk3tune --version | tee -a $R/summary.txt
s=$SECONDS
timeout 150 build/tests/kk3_gpu_tests --gtest_filter='-attn_res_gpu.every_variant_in_every_mode*' >$R/gpu-tests.txt 2>&1
echo "gpu tests rc=$? $((SECONDS - s)) s: $(grep -E '^\[  (PASSED|FAILED) |tests ran' $R/gpu-tests.txt | head -4 | tr '\n' ' ')" | tee -a $R/summary.txt
grep -E "^\[  FAILED  \]" $R/gpu-tests.txt | head -10 | tee -a $R/summary.txt
s=$SECONDS
MLA_MODES="" timeout 90 bash bench/chain_acceptance.sh $PWD/build/kk3tune $SW $R/chain >$R/chain.txt 2>&1
echo "chain acceptance rc=$? $((SECONDS - s)) s" | tee -a $R/summary.txt; tail -8 $R/chain.txt | tee -a $R/summary.txt
cd $OUT && tar czf c2b.tgz c2b && rm -rf c2b
