#!/usr/bin/env bash
# Issue 43, session 2, call 3 on the H100 (2026-12-05): A/B of c3-evict-first.patch (STAGE 3's
# pass 2 reads the block rows, their last use, with ld.global.cs: evict-first in L2, so the rows of
# the tokens still in pass 1 stay) against the committed kernels, in one call, on the same card.
# The patched kernels are a copy of kernels/ in /tmp/kev, used through --kernel-dir. Run from the
# repository root with carry: ["build-carry"].
#  graph: every STAGE 3 variant at 6 cells, A then B; ncu cold: gpw2 nc1 and gpw4 nc2 at common
#  NB 8 and NB 4, T 8192, A and B, with DRAM bytes read per token.
mkdir -p /work && ln -sfn $PWD /work/main 2>/dev/null; K=$PWD/build-carry/kk3tune; R=$OUT/c3; mkdir -p $R
ROOT=$PWD; mkdir -p /tmp/kevroot && cp -r $ROOT/kernels /tmp/kevroot/ && patch -s -p1 -d /tmp/kevroot < $ROOT/results/h100/attn_res-v5-2026-12-05/c3-evict-first.patch || { echo "patch failed"; exit 1; }
$K --version > $R/summary.txt; nvidia-smi --query-gpu=name --format=csv,noheader >> $R/summary.txt
M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,dram__bytes_read.sum
for ab in A B; do
  KD=$PWD/kernels; [ $ab = B ] && KD=/tmp/kevroot/kernels; export XDG_CACHE_HOME=/tmp/kk3c-$ab; mkdir -p $R/$ab/time $R/$ab/ncu
  timeout 40 $K --kernel-dir $KD verify --family attn_res --mode common_nb8,post_nb8,common_nb4 --variant '*-stage3-*' --seed 7 > $R/$ab/verify.txt 2>&1; echo "$ab verify rc=$? $(grep -E 'variant-modes' $R/$ab/verify.txt)" >> $R/summary.txt
  for c in common_nb4:1024 common_nb4:8192 common_nb8:1024 common_nb8:8192 post_nb8:8192 common_nb1:8192; do m=${c%:*} t=${c#*:}
    timeout 20 $K --kernel-dir $KD time --family attn_res --mode $m -T $t --variant '*-stage3-*' --timing graph --json $R/$ab/time/$m-T$t.json >/dev/null 2>$R/$ab/time/$m-T$t.err; done
  for c in common_nb4:8192 common_nb8:8192; do m=${c%:*} t=${c#*:}
    for v in b1-gpw2-nc1-stage3-unroll1-stages1-tpc1-trigger0 b1-gpw4-nc2-stage3-unroll1-stages1-tpc1-trigger0; do
      timeout 20 ncu --cache-control all --clock-control none --nvtx --nvtx-include "kk3tune@profile/" --csv --page raw --metrics $M $K --kernel-dir $KD profile --family attn_res --mode $m -T $t --variant $v -n 5 --seed 1 > $R/$ab/ncu/$m-T$t-$v.csv 2>&1; done; done
  echo "$ab done $SECONDS s" >> $R/summary.txt
done
for ab in A B; do echo "== $ab"; python3 results/h100/attn_res-v5-2026-12-05/tabulate.py $R/$ab; done >> $R/summary.txt
python3 - $R >> $R/summary.txt <<'PY'
import csv, glob, io, os, statistics, sys
for f in sorted(glob.glob(sys.argv[1] + "/*/ncu/*.csv")):
    txt = open(f).read(); i = txt.find('"ID"')
    if i < 0: continue
    rows = list(csv.DictReader(io.StringIO(txt[i:]))); unit = rows[0]["dram__bytes_read.sum"]
    t = int(os.path.basename(f).split("-T")[1].split("-")[0])
    scale = {"byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9}.get(unit, float("nan"))
    print(f.split("/")[-3], os.path.basename(f)[:-4], "DRAM read KB per token %.1f" % (statistics.median(float(r["dram__bytes_read.sum"].replace(",", "")) for r in rows[1:]) * scale / t / 1e3))
PY
cat $R/summary.txt; cd $OUT && tar czf c3.tgz c3 && rm -rf c3
