#!/usr/bin/env bash
# Issue 43 on the H100 (2026-12-05; no H200 could be started), call 1: the first STAGE 3 kernel (kernels/attn_res_grouped.cuh)
# beside STAGE 2, before anything is tuned. kk3tune built on the build machine at /work/main and
# carried in build-carry/ (kernels are compiled by NVRTC here, from kernels/).
#  1. verify of every STAGE 3 variant (and its PDL-hazard twin) in eight modes that cover every
#     feature (NB 0, no delta, block write, no output norm);
#  2. ncu of STAGE 2 (b1-gpw2 trigger 0) and STAGE 3 (nc 0..3 trigger 0) at common NB 4 and 8,
#     T 256 / 1024 / 8192, cold (--cache-control all): time, DRAM %, warp-instructions
#     (smsp__inst_executed.sum), issue-active %, warps active, registers; plus STAGE 3 with a
#     register budget of 3 CTAs an SM (*_m3: a copy of kernels/ with
#     __launch_bounds__(224, 3) for STAGE 3, passed with --kernel-dir);
#  3. graph timing (kk3tune time --timing graph) of the same variants at the same cells.
set -u
mkdir -p /work && [ "$PWD" = /work/main ] || ln -sfn "$PWD" /work/main
K=$PWD/build-carry/kk3tune; R=$OUT/c1; mkdir -p $R/time $R/ncu
export XDG_CACHE_HOME=/tmp/kk3c; mkdir -p $XDG_CACHE_HOME
# STAGE 3 with a register budget of 3 CTAs an SM: a copy of kernels/ with __launch_bounds__(224, 3)
KD=/tmp/kern3; rm -rf $KD; cp -r kernels $KD
sed -i 's|__launch_bounds__(kk3_ar::threads_of(B, GPW))|__launch_bounds__(kk3_ar::threads_of(B, GPW), STAGE == 3 ? 3 : 1)|' $KD/attn_res.cuh
grep -c "STAGE == 3 ? 3 : 1" $KD/attn_res.cuh
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader | tee $R/summary.txt
s=$SECONDS
for m in write_nb0 write_nb4 post_nb1 post_nb8 common_nb1 common_nb4 common_nb8 final_nb8; do
  timeout 60 $K verify --family attn_res --mode $m --variant '*-stage3-*' --include-test-knobs \
    --seed 20261205 >$R/verify-$m.txt 2>&1
  echo "verify $m rc=$? $((SECONDS - s)) s: $(tail -2 $R/verify-$m.txt | head -1)" | tee -a $R/summary.txt
done
M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread
s=$SECONDS
for c in common_nb4:256 common_nb4:1024 common_nb4:8192 common_nb8:256 common_nb8:1024 common_nb8:8192; do m=${c%:*} t=${c#*:}
  for v in b1-gpw2-nc0-stage2-unroll1-stages1-tpc1-trigger0 b1-gpw4-nc0-stage3-unroll1-stages1-tpc1-trigger0 \
           b1-gpw4-nc1-stage3-unroll1-stages1-tpc1-trigger0 b1-gpw4-nc2-stage3-unroll1-stages1-tpc1-trigger0 \
           b1-gpw4-nc3-stage3-unroll1-stages1-tpc1-trigger0 m3:b1-gpw4-nc1-stage3-unroll1-stages1-tpc1-trigger0 \
           m3:b1-gpw4-nc2-stage3-unroll1-stages1-tpc1-trigger0; do
    mm=$m x=""; case $v in m3:*) mm=${m}_m3; x="--kernel-dir $KD"; v=${v#m3:};; esac
    timeout 40 ncu --cache-control all --clock-control none --nvtx --nvtx-include "kk3tune@profile/" --csv --page raw --metrics $M \
      $K $x profile --family attn_res --mode $m -T $t --variant $v -n 5 --seed 1 >$R/ncu/$mm-T$t-$v.csv 2>&1
  done
done
echo "ncu $((SECONDS - s)) s" | tee -a $R/summary.txt
s=$SECONDS
for c in common_nb4:256 common_nb4:1024 common_nb4:8192 common_nb8:256 common_nb8:1024 common_nb8:8192 m3:common_nb4:1024 m3:common_nb4:8192 m3:common_nb8:1024 m3:common_nb8:8192; do
  x="" tag=""; case $c in m3:*) x="--kernel-dir $KD" tag=_m3 c=${c#m3:};; esac; m=${c%:*} t=${c#*:}
  v='*-stage2-*,*-stage3-*'; [ -n "$tag" ] && v='*-nc1-stage3-*,*-nc2-stage3-*'
  timeout 60 $K $x time --family attn_res --mode $m -T $t --variant "$v" --timing graph \
    --json $R/time/$m$tag-T$t.json >/dev/null 2>$R/time/$m$tag-T$t.err
done
echo "time $((SECONDS - s)) s" | tee -a $R/summary.txt
python3 results/h100/attn_res-v5-2026-12-05/tabulate.py $R | tee -a $R/summary.txt
cd $OUT && tar czf c1.tgz c1 && rm -rf c1
