#!/usr/bin/env bash
# Issue 43, session 2, call 2 on the H100 (2026-12-05): STAGE 3 at GPW 2 (14 warps a token) beside
# GPW 4 and STAGE 2's gpw2, on the same card in one call. Run from the repository root with
# carry: ["build-carry"] (kk3tune built on the build machine from the commit named in summary.txt).
#  1. verify every STAGE 3 GPW 2 variant in every mode (bit for bit against the reference variant
#     and the CPU reference, with the PDL hazard check);
#  2. graph timing of every STAGE 3 variant and STAGE 2 gpw2 at 10 cells;
#  3. ncu cold (caches flushed) of STAGE 3 gpw2 nc1 / nc2 and gpw4 nc2 at common NB 4 and 8, T 8192
#     and T 256; tabulate.py's table last.
mkdir -p /work && ln -sfn $PWD /work/main 2>/dev/null; K=$PWD/build-carry/kk3tune; R=$OUT/c2; mkdir -p $R/time $R/ncu
export XDG_CACHE_HOME=/tmp/kk3c; $K --version > $R/summary.txt; nvidia-smi --query-gpu=name --format=csv,noheader >> $R/summary.txt
s=$SECONDS; timeout 80 $K verify --family attn_res --variant '*-gpw2-*-stage3-*' --seed 20261205 > $R/verify.txt 2>&1
echo "verify rc=$? $((SECONDS - s)) s" >> $R/summary.txt; grep -E "variant-modes|worst ratio" $R/verify.txt >> $R/summary.txt
for c in common_nb1:256 common_nb4:64 common_nb4:256 common_nb4:1024 common_nb4:8192 common_nb8:256 common_nb8:1024 common_nb8:8192 common_nb1:8192 post_nb8:8192; do m=${c%:*} t=${c#*:}
  timeout 25 $K time --family attn_res --mode $m -T $t --variant '*-stage3-*,b1-gpw2-nc0-stage2-unroll1-stages1-tpc1-trigger1' --timing graph --json $R/time/$m-T$t.json >/dev/null 2>$R/time/$m-T$t.err; done
echo "graph done $SECONDS s" >> $R/summary.txt
M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread
for c in common_nb4:256 common_nb4:8192 common_nb8:256 common_nb8:8192; do m=${c%:*} t=${c#*:}
  for v in b1-gpw2-nc1-stage3-unroll1-stages1-tpc1-trigger0 b1-gpw2-nc2-stage3-unroll1-stages1-tpc1-trigger0 b1-gpw4-nc2-stage3-unroll1-stages1-tpc1-trigger0; do
    timeout 20 ncu --cache-control all --clock-control none --nvtx --nvtx-include "kk3tune@profile/" --csv --page raw --metrics $M $K profile --family attn_res --mode $m -T $t --variant $v -n 5 --seed 1 > $R/ncu/$m-T$t-$v.csv 2>&1; done; done
echo "ncu done $SECONDS s" >> $R/summary.txt
python3 results/h100/attn_res-v5-2026-12-05/tabulate.py $R >> $R/summary.txt; cat $R/summary.txt; cd $OUT && tar czf c2.tgz c2 && rm -rf c2
