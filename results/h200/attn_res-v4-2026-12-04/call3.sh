#!/usr/bin/env bash
# Issue 35 on the H200 (2026-12-04), call 3: the two-pass kernel as committed (STAGE = 2: one token
# per CTA, loads of pass 1 before its stores, block rows and out_w asked into L2 before the wait),
# with the pruned default space (31 attn_res and 64 mla variants a mode).
#  1. verify of every STAGE = 2 variant in every mode;
#  2. ncu cold (--cache-control all --clock-control none) of the two B = 1 candidates at 5 cells;
#  3. the default sweep from an empty compile cache (`kk3tune sweep --out ... --cache-dir <empty>`);
#  4. bench/chain_acceptance.sh at its attn_res cells (common_nb8, write_nb4 at T 1, 64, 1024).
set -u
K=$PWD/build-carry/kk3tune; R=$OUT/c3; mkdir -p $R/ncu
export XDG_CACHE_HOME=/tmp/kk3c; mkdir -p $XDG_CACHE_HOME
s=$SECONDS
timeout 150 $K verify --family attn_res --variant 'b*-stage2-*' --seed 20261204 >$R/verify.txt 2>&1
echo "verify rc=$? $((SECONDS - s)) s" | tee $R/summary.txt; tail -2 $R/verify.txt | tee -a $R/summary.txt
s=$SECONDS
M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread
for c in common_nb4:256 common_nb4:1024 common_nb4:8192 common_nb8:256 common_nb8:8192; do m=${c%:*} t=${c#*:}
  for g in 2 4; do v=b1-gpw$g-nc0-stage2-unroll1-stages1-tpc1-trigger1
    timeout 40 ncu --cache-control all --clock-control none --nvtx --nvtx-include "kk3tune@profile/" --csv --page raw --metrics $M \
      $K profile --family attn_res --mode $m -T $t --variant $v -n 5 --seed 1 >$R/ncu/$m-T$t-$v.csv 2>&1
  done
done
echo "ncu $((SECONDS - s)) s" | tee -a $R/summary.txt
python3 - $R <<'PY' | tee -a $R/summary.txt
import csv, glob, io, os, statistics, sys
for f in sorted(glob.glob(sys.argv[1] + "/ncu/*.csv")):
    txt = open(f).read(); i = txt.find('"ID"')
    rows = list(csv.DictReader(io.StringIO(txt[i:])))[1:] if i >= 0 else []
    d = [float(r["gpu__time_duration.sum"].replace(",", "")) / 1000 for r in rows]
    print("%-62s %8.2f us (ncu cold, median of %d)" % (os.path.basename(f)[:-4], statistics.median(d) if d else float("nan"), len(d)))
PY
s=$SECONDS
timeout 330 $K sweep --out $R/sweep.json --cache-dir /tmp/kk3-empty-cache >$R/sweep.txt 2>$R/sweep.log
echo "sweep rc=$? $((SECONDS - s)) s wall" | tee -a $R/summary.txt; grep -E "records \(" $R/sweep.txt | cut -c1-240 | tee -a $R/summary.txt
s=$SECONDS
MLA_MODES="" timeout 100 bash bench/chain_acceptance.sh $K $R/sweep.json $R/chain /tmp/kk3-empty-cache >$R/chain.txt 2>&1
echo "chain acceptance rc=$? $((SECONDS - s)) s" | tee -a $R/summary.txt; tail -9 $R/chain.txt | tee -a $R/summary.txt
gzip -f $R/sweep.json
cd $OUT && tar czf c3.tgz c3 && rm -rf c3
