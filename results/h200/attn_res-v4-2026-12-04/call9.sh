#!/usr/bin/env bash
# Issue 35 on the H200 (2026-12-04, second session), call 9: the default plan with 16 attn_res
# variants a mode (5 dropped after call 4's cold sweep: see README.md, "The space").
#  1. the default sweep from an empty compile cache, the README's GPU step:
#     `kk3tune sweep --out OUT/sweep.json --cache-dir <empty>`;
#  2. `kk3tune verify --family attn_res --include-test-knobs` (every variant, every mode, the edge
#     shapes; the early reader of the test knob must be flagged);
#  3. bench/chain_acceptance.sh at its attn_res cells against step 1's sweep.
set -u
mkdir -p /work && [ "$PWD" = /work/main ] || ln -sfn "$PWD" /work/main
K=$PWD/build-carry/kk3tune; R=$OUT/c9; mkdir -p $R
export XDG_CACHE_HOME=/tmp/kk3c; mkdir -p $XDG_CACHE_HOME
s=$SECONDS
timeout 260 $K sweep --out $R/sweep.json --cache-dir /tmp/kk3-empty-cache >$R/sweep.txt 2>$R/sweep.log
echo "sweep rc=$? $((SECONDS - s)) s wall" | tee $R/summary.txt; grep -E "records \(" $R/sweep.txt $R/sweep.log | cut -c1-240 | tee -a $R/summary.txt
s=$SECONDS
timeout 110 $K verify --family attn_res --include-test-knobs --seed 20261204 --cache-dir /tmp/kk3-empty-cache >$R/verify.txt 2>&1
echo "verify rc=$? $((SECONDS - s)) s" | tee -a $R/summary.txt; grep -E "variant-modes|worst ratio" $R/verify.txt | tee -a $R/summary.txt
s=$SECONDS
MLA_MODES="" timeout 70 bash bench/chain_acceptance.sh $K $R/sweep.json $R/chain /tmp/kk3-empty-cache >$R/chain.txt 2>&1
echo "chain acceptance rc=$? $((SECONDS - s)) s" | tee -a $R/summary.txt; tail -8 $R/chain.txt | tee -a $R/summary.txt
gzip -f $R/sweep.json
cd $OUT && tar czf c9.tgz c9 && rm -rf c9
