#!/usr/bin/env bash
out=$1; mkdir -p $out; k="build/kk3tune --config-dir exp/configs"; k0=build/kk3tune
mkdir -p /work && ln -sfn "$PWD" /work/main
m="--metrics regex:sm__inst_executed_pipe_.*\.avg\.pct_of_peak_sustained_active,regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,sm__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second"
for spec in "nb8 8192 b1-threads512-early_blocks0-keep0-stage0-occ1-tpc1-cvt1-nc3-spread0-red1" "nb8 8192 b1-threads1024-early_blocks1-keep0-stage0-occ0-tpc1-cvt1-nc3-spread0-red0" "nb8 1 b7-threads256-early_blocks1-keep0-stage0-occ0-tpc1-cvt0-nc3-spread0-red0"; do
  set -- $spec
  ncu --clock-control none --nvtx --nvtx-include "kk3tune@profile/" $m $([ $2 = 1 ] && echo $k0 || echo $k) profile --family attn_res --mode $1 -T $2 --variant $3 -n 1 > $out/ncu-$1-$2-$3.txt 2>&1
  echo "== $spec"; grep -vE "^==|^\s*$" $out/ncu-$1-$2-$3.txt | awk '$NF+0>0.5 || /duration|inst_executed.sum|per_second/' | grep -v "^  *[a-z_]*$" | head -40
done
