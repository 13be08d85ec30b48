#!/usr/bin/env bash
# Issue 35 on the H200 (2026-12-04), call 4: the tree as committed (21 attn_res variants a mode; the
# default plan names 12 mla variants and the reference).
#  1. the default sweep from an empty compile cache, the README's GPU step:
#     `kk3tune sweep --out OUT/sweep.json --cache-dir <empty>`;
#  2. `kk3tune verify --family attn_res` (every variant, every mode, the edge shapes);
#  3. the GPU suite (kk3_gpu_tests, built on the build machine at /work/main; every_variant_in_every_mode
#     is step 2's verify);
#  4. bench/chain_acceptance.sh at its attn_res cells against step 1's sweep.
set -u
mkdir -p /work && [ "$PWD" = /work/main ] || ln -sfn "$PWD" /work/main
K=$PWD/build-carry/kk3tune; R=$OUT/c4; mkdir -p $R
export XDG_CACHE_HOME=/tmp/kk3c; mkdir -p $XDG_CACHE_HOME
s=$SECONDS
timeout 290 $K sweep --out $R/sweep.json --cache-dir /tmp/kk3-empty-cache >$R/sweep.txt 2>$R/sweep.log
echo "sweep rc=$? $((SECONDS - s)) s wall" | tee $R/summary.txt; grep -E "records \(" $R/sweep.txt | cut -c1-240 | tee -a $R/summary.txt
s=$SECONDS
timeout 170 $K verify --family attn_res --seed 20261204 --cache-dir /tmp/kk3-empty-cache >$R/verify.txt 2>&1
echo "verify rc=$? $((SECONDS - s)) s" | tee -a $R/summary.txt; tail -2 $R/verify.txt | tee -a $R/summary.txt
s=$SECONDS
timeout 150 build-carry/kk3_gpu_tests --gtest_filter='-attn_res_gpu.every_variant_in_every_mode*' >$R/gpu-tests.txt 2>&1
echo "gpu tests rc=$? $((SECONDS - s)) s: $(grep -E '^\[  (PASSED|FAILED) ' $R/gpu-tests.txt | tr '\n' ' ')" | tee -a $R/summary.txt
s=$SECONDS
MLA_MODES="" timeout 60 bash bench/chain_acceptance.sh $K $R/sweep.json $R/chain /tmp/kk3-empty-cache >$R/chain.txt 2>&1
echo "chain acceptance rc=$? $((SECONDS - s)) s" | tee -a $R/summary.txt; tail -8 $R/chain.txt | tee -a $R/summary.txt
gzip -f $R/sweep.json
cd $OUT && tar czf c4.tgz c4 && rm -rf c4
