#!/usr/bin/env bash
# Issue 35 on the H200 (2026-12-04), call 1: the two-pass shape (STAGE = 2) beside the v3 variants.
# verify of every STAGE = 2 variant (test knobs too) in every mode; graph timing of every variant at
# the cells where v3 lost; ncu cold (--cache-control all --clock-control none) of the graph-best
# variant and of the STAGE = 2 candidates. The binary is built on the build machine (build-carry/).
set -u
K=$PWD/build-carry/kk3tune; R=$OUT/c1; mkdir -p $R/time $R/ncu
export XDG_CACHE_HOME=/tmp/kk3c; mkdir -p $XDG_CACHE_HOME
s=$SECONDS
timeout 200 $K verify --family attn_res --variant 'b*-stage2-*' --include-test-knobs --seed 20261204 >$R/verify.txt 2>&1
echo "verify rc=$? $((SECONDS - s)) s" | tee $R/summary.txt; tail -3 $R/verify.txt | tee -a $R/summary.txt
cells="common_nb4:256 common_nb4:1024 common_nb4:8192 common_nb8:256 common_nb8:1024 common_nb8:8192 common_nb1:256 common_nb1:1024 post_nb8:1024 post_nb8:8192"
s=$SECONDS
for c in $cells; do m=${c%:*} t=${c#*:}
  timeout 60 $K time --family attn_res --mode $m -T $t --variant all --timing graph --format json >$R/time/graph-$m-T$t.json 2>$R/time/graph-$m-T$t.err
done
for c in common_nb4:1024 common_nb8:256; do m=${c%:*} t=${c#*:}
  timeout 60 $K time --family attn_res --mode $m -T $t --variant all --format json >$R/time/chain-$m-T$t.json 2>$R/time/chain-$m-T$t.err
done
echo "time $((SECONDS - s)) s" | tee -a $R/summary.txt
best() { python3 - "$1" <<'PY'
import json, sys
r = [x for x in json.load(open(sys.argv[1]))["results"] if (x.get("statistics") or {}).get("median_us", 0) > 0]
print(min(r, key=lambda x: x["statistics"]["median_us"])["variant"] if r else "")
PY
}
s=$SECONDS
M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__occupancy_limit_registers
for c in common_nb4:256 common_nb4:1024 common_nb4:8192 common_nb8:256 common_nb8:8192 common_nb1:1024; do m=${c%:*} t=${c#*:}
  b=$(best $R/time/graph-$m-T$t.json)
  for v in $b b1-gpw4-nc0-stage2-unroll1-stages1-tpc1-trigger1 b1-gpw2-nc0-stage2-unroll1-stages1-tpc1-trigger1 b1-gpw7-nc0-stage2-unroll1-stages1-tpc1-trigger1 b2-gpw2-nc0-stage2-unroll1-stages1-tpc1-trigger1; do
    timeout 40 ncu --cache-control all --clock-control none --nvtx --nvtx-include "kk3tune@profile/" --csv --page raw --metrics $M \
      $K profile --family attn_res --mode $m -T $t --variant $v -n 5 --seed 1 >$R/ncu/$m-T$t-$v.csv 2>&1
  done
done
echo "ncu $((SECONDS - s)) s" | tee -a $R/summary.txt
python3 - $R <<'PY' | tee -a $R/summary.txt
import csv, glob, io, json, os, statistics, sys
R = sys.argv[1]
print("graph (median us): best overall | best stage2 | best v3")
for f in sorted(glob.glob(R + "/time/*.json")):
    try: res = json.load(open(f))["results"]
    except Exception as e: print(os.path.basename(f), "unreadable", e); continue
    ok = [x for x in res if (x.get("statistics") or {}).get("median_us", 0) > 0]
    s2 = [x for x in ok if "-stage2-" in x["variant"]]; v3 = [x for x in ok if "-stage2-" not in x["variant"]]
    f1 = lambda xs: "%s %.2f" % (min(xs, key=lambda x: x["statistics"]["median_us"])["variant"], min(x["statistics"]["median_us"] for x in xs)) if xs else "-"
    print(os.path.basename(f)[:-5], "|", f1(s2), "|", f1(v3))
print("ncu cold (median of 5 launches, us; dram %; warps active %; regs)")
for f in sorted(glob.glob(R + "/ncu/*.csv")):
    txt = open(f).read(); i = txt.find('"ID"')
    if i < 0: print(os.path.basename(f), "no ncu rows"); continue
    allrows = list(csv.DictReader(io.StringIO(txt[i:]))); units, rows = allrows[0], allrows[1:]
    scale = {"nsecond": 1e-3, "usecond": 1.0, "msecond": 1e3}.get(units.get("gpu__time_duration.sum"), float("nan"))
    def med(k):
        v = [float(r[k].replace(",", "")) for r in rows if r.get(k) not in (None, "")]
        return statistics.median(v) if v else float("nan")
    print("%-70s n=%d %8.2f us dram %5.1f warps %5.1f regs %s" % (os.path.basename(f)[:-4], len(rows), med("gpu__time_duration.sum") * scale, med("dram__throughput.avg.pct_of_peak_sustained_elapsed"), med("sm__warps_active.avg.pct_of_peak_sustained_active"), rows[0].get("launch__registers_per_thread") if rows else "-"))
PY
cd $OUT && tar czf c1.tgz c1 && rm -rf c1
