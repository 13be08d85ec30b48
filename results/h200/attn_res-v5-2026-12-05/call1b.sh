#!/usr/bin/env bash
# Issue 43, call 1b (2026-12-05): what fits when the device is scarce, on whichever Hopper is lent
# (the card is in summary.txt's first line). No sweep: STAGE 3 checked, then measured beside every
# other variant and the tuned Triton tile at the 20 peer cells. kk3tune built on the build machine
# from the clean commit 198be27, carried in build-carry/.
#  1. `kk3tune verify --family attn_res --variant '*-stage3-*' --include-test-knobs`: every STAGE 3
#     variant of every mode at the edge shapes, bit for bit against the reference variant and within
#     SPEC 1.3's bound of the CPU reference, its early-reading twin flagged;
#  2. `KK3_BENCH_CASES=common_nb1,common_nb4,common_nb8,post_nb8 KK3_BENCH_PEERS=triton
#     KK3_BENCH_WALL_S=<left> KK3_BENCH_COLD_S=<45% of it> bench/attn_res_gpu.sh OUT bench`, the call
#     held to CALL_TOTAL_S (default 370) seconds in all: graph mode, every
#     variant (`time --variant all`) and Triton's tiles; cold (ncu) of the graph-best variant and the
#     tuned Triton tile, with warp-instructions per token and issue-active %.
set -u
mkdir -p /work && [ "$PWD" = /work/main ] || ln -sfn "$PWD" /work/main
mkdir -p build/tests && cp build-carry/kk3tune build/
K=$PWD/build/kk3tune; R=$OUT/c1b; mkdir -p $R
export XDG_CACHE_HOME=/tmp/kk3c; mkdir -p $XDG_CACHE_HOME
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader | tee $R/summary.txt
$K --version | tee -a $R/summary.txt
s=$SECONDS
timeout 70 $K verify --family attn_res --variant '*-stage3-*' --include-test-knobs --seed 20261205 >$R/verify.txt 2>&1
echo "verify rc=$? $((SECONDS - s)) s" | tee -a $R/summary.txt; grep -E "variant-modes|worst ratio" $R/verify.txt | tee -a $R/summary.txt
grep -E "stage3" $R/verify.txt | grep -vE " ok | pdl_hazard " | head -5 | tee -a $R/summary.txt
s=$SECONDS
left=$((${CALL_TOTAL_S:-370} - SECONDS)); cold=$((left * 45 / 100))
KK3TUNE=$K KK3_BENCH_CASES=common_nb1,common_nb4,common_nb8,post_nb8 KK3_BENCH_PEERS=triton KK3_BENCH_WALL_S=$left \
  KK3_BENCH_COLD_S=$cold timeout $((left + 5)) bash bench/attn_res_gpu.sh $R bench >$R/bench-step.txt 2>&1
echo "bench step (wall $left s, cold $cold s) rc=$? $((SECONDS - s)) s" | tee -a $R/summary.txt
sed -n '/^# attn_res: graph and cold/,$p' $R/bench-step.txt | head -45
cd $R/bench 2>/dev/null && tar czf raw.tgz --exclude=raw.tgz --exclude=summary.json --exclude=cold.json --exclude=peers.json \
  --exclude=summary.md --exclude=cold.md . 2>/dev/null; cd $OUT && tar czf c1b.tgz c1b && rm -rf c1b
