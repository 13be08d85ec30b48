#!/usr/bin/env bash
# Issue 43, call 1d on the H100 (2026-12-05): the command of that call, as run (one line there, from
# the repository root, carry: ["build-carry"], kk3tune of be362d1), written out. Graph timing of
# every STAGE 2 and 3 variant at 8 cells, then ncu cold of STAGE 2 (gpw2) and STAGE 3 (nc 1, nc 2)
# at common NB 4 and 8, T 1024 and 8192, and tabulate.py's table.
mkdir -p /work && ln -sfn $PWD /work/main 2>/dev/null; K=$PWD/build-carry/kk3tune; R=$OUT/c1d; mkdir -p $R/time $R/ncu; export XDG_CACHE_HOME=/tmp/kk3c; $K --version > $R/summary.txt
for c in common_nb4:256 common_nb4:1024 common_nb4:8192 common_nb8:256 common_nb8:1024 common_nb8:8192 common_nb1:8192 post_nb8:8192; do m=${c%:*} t=${c#*:}
  timeout 30 $K time --family attn_res --mode $m -T $t --variant '*-stage2-*,*-stage3-*' --timing graph --json $R/time/$m-T$t.json >/dev/null 2>$R/time/$m-T$t.err; done
M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread
for c in common_nb4:1024 common_nb4:8192 common_nb8:1024 common_nb8:8192; do m=${c%:*} t=${c#*:}
  for v in b1-gpw2-nc0-stage2-unroll1-stages1-tpc1-trigger0 b1-gpw4-nc1-stage3-unroll1-stages1-tpc1-trigger0 b1-gpw4-nc2-stage3-unroll1-stages1-tpc1-trigger0; do
    timeout 25 ncu --cache-control all --clock-control none --nvtx --nvtx-include "kk3tune@profile/" --csv --page raw --metrics $M $K profile --family attn_res --mode $m -T $t --variant $v -n 5 --seed 1 > $R/ncu/$m-T$t-$v.csv 2>&1; done; done
python3 results/h100/attn_res-v5-2026-12-05/tabulate.py $R | tee -a $R/summary.txt; cd $OUT && tar czf c1d.tgz c1d
