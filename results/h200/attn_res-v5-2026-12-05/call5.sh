#!/usr/bin/env bash
# Issue 43 on the H200, 2026-12-06, call 5: the benchmark of the product (graph and cold, all 30 cells,
# the tuned Triton tile beside it) with call 4's sweep: /tmp/kk3-c4/sweep.json.gz where the machine
# is still warm, else results/h200/sweep-v5-2026-12-06/sweep.json.gz (the same file, brought back):
#   KK3_BENCH_SWEEP=<it> KK3_BENCH_PEERS=triton KK3_BENCH_WALL_S=<left> KK3_BENCH_COLD_S=<half>
#   bench/attn_res_gpu.sh OUT bench
set -u
mkdir -p /work && [ "$PWD" = /work/main ] || ln -sfn "$PWD" /work/main
mkdir -p build && cp build-carry/kk3tune build/
K=$PWD/build/kk3tune; R=$OUT/c5; mkdir -p $R
export XDG_CACHE_HOME=/tmp/kk3c; mkdir -p $XDG_CACHE_HOME
SW=/tmp/kk3-c4/sweep.json.gz; [ -f $SW ] || SW=$PWD/results/h200/sweep-v5-2026-12-06/sweep.json.gz
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader | tee $R/summary.txt
echo "sweep: $SW ($(zcat $SW | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["context"]["git_revision"], d["context"]["utc_time"])'))" | tee -a $R/summary.txt
left=$((470 - SECONDS)); cold=$((left / 2))
s=$SECONDS
KK3TUNE=$K KK3_BENCH_SWEEP=$SW KK3_BENCH_PEERS=triton KK3_BENCH_WALL_S=$left KK3_BENCH_COLD_S=$cold \
  timeout $((left + 5)) bash bench/attn_res_gpu.sh $R bench >$R/bench-step.txt 2>&1
echo "bench step (wall $left s, cold $cold s) rc=$? $((SECONDS - s)) s" | tee -a $R/summary.txt
sed -n '/^# attn_res: graph and cold/,$p' $R/bench-step.txt | grep -vE "^\| (write|final)" | head -40
cd $R/bench 2>/dev/null && tar czf raw.tgz --exclude=raw.tgz --exclude=summary.json --exclude=cold.json --exclude=peers.json \
  --exclude=summary.md --exclude=cold.md . 2>/dev/null; cd $OUT && tar czf c5.tgz c5 && rm -rf c5
