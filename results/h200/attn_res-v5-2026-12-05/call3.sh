#!/usr/bin/env bash
# Issue 43 on the H200 (2026-12-05), call 3: an A/B of two shapes the census and ncu point at, before
# either enters the space (kk3tune built at /work/main, carried in build-carry/):
#  A. GPW 2 capped at 48 registers (kr48: kernels/ with `__maxnreg__(48)` on STAGE >= 3, GPW 2):
#     3 CTAs an SM (42 warps) against 2 (28); ncu at common NB 4 T 1024 found 2 CTAs by registers,
#     41% warps active, 41% issue active, 58% DRAM;
#  B. NC 0 in STAGE 3 and 4 (cfg: configs/ with NC 0 allowed): every row of a token asked for
#     at once, as the Triton tile does (GPW 4: 128 registers at NB 4; GPW 2: 71).
# Steps: verify the new variants in every mode (bit for bit against the reference variant); then per
# cell `kk3tune time` (graph, then the tool's cold: caches flushed) of the candidates beside the
# table's choices, each kernel folder in one interleaved run; then ncu cold (bench/attn_res_cold.py's
# metrics) of the main pairs; a table last.
set -u
mkdir -p /work && [ "$PWD" = /work/main ] || ln -sfn "$PWD" /work/main
mkdir -p build && cp build-carry/kk3tune build/
K=$PWD/build/kk3tune; R=$OUT/c3; mkdir -p $R/t $R/ncu
export XDG_CACHE_HOME=/tmp/kk3c; mkdir -p $XDG_CACHE_HOME
# The two folders, made here from the tree's kernels/ and configs/:
E=/tmp/kk3-exp; rm -rf $E; mkdir -p $E; cp -r kernels $E/kr48; cp -r configs $E/cfg
sed -i 's/__global__ void __launch_bounds__(kk3_ar::threads_of(B, GPW))/& __maxnreg__(STAGE >= 3 \&\& GPW == 2 ? 48 : 255)/' $E/kr48/attn_res.cuh
grep -q "__maxnreg__(STAGE >= 3 && GPW == 2 ? 48 : 255)" $E/kr48/attn_res.cuh || { echo "call3: the cap did not apply"; exit 2; }
python3 -c "
import json; p='$E/cfg/attn_res.json'; c=json.load(open(p))
c['constraints'] = ['STAGE < 3 || (B == 1 && (GPW == 2 || GPW == 4) && NC <= 2)' if x.startswith('STAGE < 3 ||') else x for x in c['constraints']]
json.dump(c, open(p, 'w'), indent=1)"
grep -q "NC <= 2" $E/cfg/attn_res.json || { echo "call3: NC 0 was not allowed"; exit 2; }
CFG="--config-dir $E/cfg"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader | tee $R/summary.txt
s=$SECONDS
timeout 80 $K $CFG verify --family attn_res --variant '*-nc0-stage3-*,*-nc0-stage4-*' --seed 20261206 >$R/verify-nc0.txt 2>&1
echo "verify NC 0 rc=$? $((SECONDS - s)) s: $(grep -E 'variant-modes' $R/verify-nc0.txt)" | tee -a $R/summary.txt
s=$SECONDS
timeout 80 $K --kernel-dir $E/kr48 $CFG verify --family attn_res --variant 'b1-gpw2-*-stage3-*,b1-gpw2-*-stage4-*' --seed 20261206 >$R/verify-kr48.txt 2>&1
echo "verify capped rc=$? $((SECONDS - s)) s: $(grep -E 'variant-modes' $R/verify-kr48.txt)" | tee -a $R/summary.txt
V4=b1-gpw2-nc2-stage3-unroll1-stages1-tpc1-trigger1,b1-gpw2-nc1-stage3-unroll1-stages1-tpc1-trigger1,b1-gpw2-nc0-stage3-unroll1-stages1-tpc1-trigger1,b1-gpw4-nc0-stage3-unroll1-stages1-tpc1-trigger1,b1-gpw4-nc1-stage3-unroll1-stages1-tpc1-trigger1
C4=b1-gpw2-nc2-stage3-unroll1-stages1-tpc1-trigger1,b1-gpw2-nc1-stage3-unroll1-stages1-tpc1-trigger1,b1-gpw2-nc1-stage3-unroll1-stages1-tpc1-trigger0
V8=b1-gpw2-nc2-stage4-unroll1-stages1-tpc1-trigger1,b1-gpw2-nc1-stage4-unroll1-stages1-tpc1-trigger1,b1-gpw4-nc1-stage4-unroll1-stages1-tpc1-trigger1,b1-gpw4-nc0-stage4-unroll1-stages1-tpc1-trigger1
C8=b1-gpw2-nc1-stage4-unroll1-stages1-tpc1-trigger1,b1-gpw2-nc2-stage4-unroll1-stages1-tpc1-trigger1
s=$SECONDS
for cell in common_nb4:256 common_nb4:1024 common_nb4:8192 common_nb8:256 common_nb8:1024 post_nb8:256; do
  m=${cell%:*}; t=${cell#*:}
  case $m in common_nb4) v=$V4; c=$C4;; *) v=$V8; c=$C8;; esac
  for timing in graph cold; do
    timeout 60 $K $CFG time --family attn_res --mode $m -T $t --variant $v --timing $timing --seed 7 >$R/t/$m-T$t-$timing-base.txt 2>&1
    timeout 60 $K --kernel-dir $E/kr48 $CFG time --family attn_res --mode $m -T $t --variant $c --timing $timing --seed 7 >$R/t/$m-T$t-$timing-cap.txt 2>&1
  done
done
echo "time steps $((SECONDS - s)) s" | tee -a $R/summary.txt
M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,launch__occupancy_limit_registers
s=$SECONDS
for job in common_nb4:256:base:b1-gpw2-nc2-stage3 common_nb4:256:cap:b1-gpw2-nc2-stage3 common_nb4:256:base:b1-gpw4-nc0-stage3 common_nb4:256:base:b1-gpw2-nc0-stage3 \
           common_nb4:1024:base:b1-gpw2-nc1-stage3 common_nb4:1024:cap:b1-gpw2-nc2-stage3 common_nb4:1024:base:b1-gpw4-nc0-stage3 common_nb4:1024:base:b1-gpw2-nc0-stage3 \
           common_nb8:256:base:b1-gpw2-nc2-stage4 common_nb8:256:cap:b1-gpw2-nc1-stage4 common_nb8:1024:base:b1-gpw2-nc2-stage4 common_nb8:1024:cap:b1-gpw2-nc1-stage4 \
           post_nb8:256:base:b1-gpw2-nc2-stage4 post_nb8:256:cap:b1-gpw2-nc1-stage4; do
  IFS=: read m t d v <<<"$job"; v=$v-unroll1-stages1-tpc1-trigger1
  kd=""; [ $d = cap ] && kd="--kernel-dir $E/kr48"
  timeout 40 /usr/local/cuda/bin/ncu --cache-control all --clock-control none --csv --page raw --metrics $M --nvtx --nvtx-include kk3tune@profile/ \
    $K $kd $CFG profile --family attn_res --mode $m -T $t --variant $v -n 5 --seed 20261204 >$R/ncu/$m-T$t-$d-$v.csv 2>&1
done
echo "ncu steps $((SECONDS - s)) s" | tee -a $R/summary.txt
python3 results/h200/attn_res-v5-2026-12-05/c3_table.py $R | tee -a $R/summary.txt
cd $OUT && tar czf c3.tgz c3 && rm -rf c3
