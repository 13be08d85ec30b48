#!/usr/bin/env bash
# Ran on the tree of branch i35-outw-early (86948d5: kernels/ and configs/attn_res.json of that commit, kk3tune
# built from it into build-carry/); the experiment did not go to main.
# Issue 35 on the H200 (2026-12-04, second session), call 8: STAGE 2 with out_w read before the mix
# (held in registers through the norm's barrier, not read after it) and, at GPW 2, a register
# budget of two CTAs an SM (__launch_bounds__(448, 2)), against the committed kernel (12c26d5,
# carried as build-carry/kernels-before and passed with --kernel-dir).
#  1. verify of every STAGE 2 variant in every mode (new kernel);
#  2. graph timing of the STAGE 2 variants at 10 cells, before and after;
#  3. ncu cold (--cache-control all --clock-control none) of b1-gpw2-nc0-stage2 trigger 0 and 1,
#     before and after, at 8 cells.
set -u
mkdir -p /work && [ "$PWD" = /work/main ] || ln -sfn "$PWD" /work/main
K=$PWD/build-carry/kk3tune; OLD="--kernel-dir $PWD/build-carry/kernels-before"; R=$OUT/c8; mkdir -p $R/time $R/ncu
export XDG_CACHE_HOME=/tmp/kk3c; mkdir -p $XDG_CACHE_HOME
s=$SECONDS
timeout 120 $K verify --family attn_res --variant '*-stage2-*' --seed 20261204 >$R/verify.txt 2>&1
echo "verify rc=$? $((SECONDS - s)) s" | tee $R/summary.txt; tail -3 $R/verify.txt | head -2 | tee -a $R/summary.txt
cells="common_nb4:256 common_nb4:1024 common_nb4:8192 common_nb8:256 common_nb8:1024 common_nb8:8192 post_nb8:1024 post_nb8:8192 write_nb4:1024 common_nb1:1024"
s=$SECONDS
for c in $cells; do m=${c%:*} t=${c#*:}
  for k in after before; do x=""; [ $k = before ] && x="$OLD"
    timeout 40 $K $x time --family attn_res --mode $m -T $t --variant '*-stage2-*' --timing graph --json $R/time/$k-$m-T$t.json >/dev/null 2>$R/time/$k-$m-T$t.err
  done
done
echo "time $((SECONDS - s)) s" | tee -a $R/summary.txt
s=$SECONDS
M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed
for c in common_nb4:256 common_nb4:1024 common_nb4:8192 common_nb8:256 common_nb8:1024 common_nb8:8192 post_nb8:1024 write_nb4:1024; do m=${c%:*} t=${c#*:}
  for g in 1 0; do v=b1-gpw2-nc0-stage2-unroll1-stages1-tpc1-trigger$g
    for k in after before; do x=""; [ $k = before ] && x="$OLD"
      timeout 30 ncu --cache-control all --clock-control none --nvtx --nvtx-include "kk3tune@profile/" --csv --page raw --metrics $M \
        $K $x profile --family attn_res --mode $m -T $t --variant $v -n 5 --seed 1 >$R/ncu/$k-$m-T$t-trigger$g.csv 2>&1
    done
  done
done
echo "ncu $((SECONDS - s)) s" | tee -a $R/summary.txt
python3 - $R <<'PY' | tee -a $R/summary.txt
import csv, glob, io, json, os, statistics, sys
R = sys.argv[1]
def graph(f):
    try: res = json.load(open(f))["results"]
    except Exception as e: return {}
    return {x["variant"].replace("-unroll1", "").replace("-stages1-tpc1", "").replace("b1-", "").replace("-nc0", ""): x["statistics"]["median_us"] for x in res if (x.get("statistics") or {}).get("median_us", 0) > 0}
print("graph median us, before -> after (STAGE 2 variants)")
for f in sorted(glob.glob(R + "/time/after-*.json")):
    a, b = graph(f), graph(f.replace("/after-", "/before-"))
    cell = os.path.basename(f)[6:-5]
    print("%-16s" % cell, "  ".join("%s %.2f->%.2f" % (v.replace("-stage2", ""), b.get(v, float("nan")), a[v]) for v in sorted(a)))
def cold(f):
    try:
        txt = open(f).read(); i = txt.find('"ID"'); rows = list(csv.DictReader(io.StringIO(txt[i:])))
        scale = {"ns": 1e-3, "nsecond": 1e-3, "us": 1.0, "usecond": 1.0}[rows[0]["gpu__time_duration.sum"]]
        v = [float(r["gpu__time_duration.sum"].replace(",", "")) * scale for r in rows[1:]]
        d = [float(r["dram__throughput.avg.pct_of_peak_sustained_elapsed"].replace(",", "")) for r in rows[1:]]
        return "%.2f (dram %.1f%%)" % (statistics.median(v), statistics.median(d))
    except Exception as e: return "-"
print("ncu cold median of 5 us, b1-gpw2-nc0-stage2: before -> after")
for f in sorted(glob.glob(R + "/ncu/after-*.csv")):
    print("%-32s %s -> %s" % (os.path.basename(f)[6:-4], cold(f.replace("/after-", "/before-")), cold(f)))
PY
cd $OUT && tar czf c8.tgz c8 && rm -rf c8
