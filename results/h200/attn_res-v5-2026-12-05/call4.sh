#!/usr/bin/env bash
# Issue 43 (and 44, item 8) on the H200, 2026-12-06, call 4: the product from a clean commit, with the
# space of 25 variants a mode (the 10 that won no count in call 1's sweep gone but B = 2; NC 0 of
# STAGE 3 at GPW 2 and 4 in). kk3tune and kk3_gpu_tests built from a clean clone of the commit,
# carried in build-carry/ (kernels compiled by NVRTC here).
#  1. `kk3tune verify --family attn_res --variant '*-stage3-*,*-stage4-*' --include-test-knobs`;
#  2. the default sweep from an empty compile cache (the README's GPU step): the product's tables,
#     its wall time against the 200 s;
#  3. the GPU suite (kk3_gpu_tests) but its every-variant test, which step 1 and the sweep cover;
#  4. bench/chain_acceptance.sh at its attn_res cells against step 2's sweep (within 3%).
# The sweep is also left in /tmp/kk3-c4 for call 5 (the benchmark of the product) on a warm machine.
set -u
mkdir -p /work && [ "$PWD" = /work/main ] || ln -sfn "$PWD" /work/main
mkdir -p build/tests && cp build-carry/kk3tune build/ && cp build-carry/kk3_gpu_tests build/tests/
K=$PWD/build/kk3tune; R=$OUT/c4; mkdir -p $R /tmp/kk3-c4
export XDG_CACHE_HOME=/tmp/kk3c; mkdir -p $XDG_CACHE_HOME
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader | tee $R/summary.txt
$K --version | tee -a $R/summary.txt
s=$SECONDS
timeout 70 $K verify --family attn_res --variant '*-stage3-*,*-stage4-*' --include-test-knobs --seed 20261206 >$R/verify.txt 2>&1
echo "verify rc=$? $((SECONDS - s)) s" | tee -a $R/summary.txt; grep -E "variant-modes|worst ratio" $R/verify.txt | tail -2 | tee -a $R/summary.txt
s=$SECONDS
timeout 260 $K sweep --out $R/sweep.json --cache-dir /tmp/kk3-empty-cache >$R/sweep.txt 2>$R/sweep.log
echo "sweep rc=$? $((SECONDS - s)) s wall" | tee -a $R/summary.txt; grep -E "records \(" $R/sweep.txt $R/sweep.log | cut -c1-240 | tee -a $R/summary.txt
gzip -f $R/sweep.json; cp $R/sweep.json.gz /tmp/kk3-c4/
s=$SECONDS
timeout 150 build/tests/kk3_gpu_tests --gtest_filter='-attn_res_gpu.every_variant_in_every_mode*' >$R/gpu-tests.txt 2>&1
echo "gpu tests rc=$? $((SECONDS - s)) s: $(grep -E '^\[  (PASSED|FAILED) |tests ran' $R/gpu-tests.txt | head -4 | tr '\n' ' ')" | tee -a $R/summary.txt
grep -E "^\[  FAILED  \]" $R/gpu-tests.txt | head -10 | tee -a $R/summary.txt
s=$SECONDS
MLA_MODES="" timeout 100 bash bench/chain_acceptance.sh $K $R/sweep.json.gz $R/chain /tmp/kk3-empty-cache >$R/chain.txt 2>&1
echo "chain acceptance rc=$? $((SECONDS - s)) s" | tee -a $R/summary.txt; tail -8 $R/chain.txt | tee -a $R/summary.txt
rm -rf $R/chain/cache; cd $OUT && tar czf c4.tgz c4 && rm -rf c4
