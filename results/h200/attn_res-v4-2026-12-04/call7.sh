#!/usr/bin/env bash
# Ran on the tree of branch i35-reg-budget (33544fb: kernels/ and configs/attn_res.json of that commit, kk3tune
# built from it into build-carry/); the experiment did not go to main.
# Issue 35 on the H200 (2026-12-04, second session), call 7: STAGE 2 with a register budget for STAGES CTAs an SM (__launch_bounds__ min blocks;
# STAGES 1 is the committed kernel). Graph timing at 14 cells, chain at 3, ncu cold of the best 4 STAGE 2 variants and the
# best other at 6 cells. (The verify step: every STAGE 2 variant in every mode.)
set -u
mkdir -p /work && [ "$PWD" = /work/main ] || ln -sfn "$PWD" /work/main
K=$PWD/build-carry/kk3tune; R=$OUT/c7; mkdir -p $R/time $R/ncu
export XDG_CACHE_HOME=/tmp/kk3c; mkdir -p $XDG_CACHE_HOME
s=$SECONDS
timeout 170 $K verify --family attn_res --variant '*-stage2-*' --include-test-knobs --seed 20261204 >$R/verify.txt 2>&1
echo "verify rc=$? $((SECONDS - s)) s" | tee $R/summary.txt; tail -3 $R/verify.txt | tee -a $R/summary.txt
grep -v " ok" $R/verify.txt | grep -i "fail\|mismatch\|hazard\|error" | head -8 | tee -a $R/summary.txt
cells="common_nb4:256 common_nb4:1024 common_nb4:8192 common_nb8:256 common_nb8:1024 common_nb8:8192 common_nb1:256 common_nb1:1024 common_nb1:8192 post_nb8:1024 post_nb8:8192 write_nb4:1024 final_nb8:1024 final_nb8:8192"
s=$SECONDS
for c in $cells; do m=${c%:*} t=${c#*:}
  timeout 60 $K time --family attn_res --mode $m -T $t --variant all --timing graph --json $R/time/graph-$m-T$t.json >/dev/null 2>$R/time/graph-$m-T$t.err
done
for c in common_nb4:1024 common_nb8:256 common_nb4:8192; do m=${c%:*} t=${c#*:}
  timeout 60 $K time --family attn_res --mode $m -T $t --variant all --json $R/time/chain-$m-T$t.json >/dev/null 2>$R/time/chain-$m-T$t.err
done
echo "time $((SECONDS - s)) s" | tee -a $R/summary.txt
best() { python3 - "$1" "$2" "$3" <<'PY'
import json, sys
r = [x for x in json.load(open(sys.argv[1]))["results"] if (x.get("statistics") or {}).get("median_us", 0) > 0]
r = [x for x in r if ("-stage2-" in x["variant"]) == (sys.argv[2] == "s2")]
r.sort(key=lambda x: x["statistics"]["median_us"])
print(" ".join(x["variant"] for x in r[:int(sys.argv[3])]))
PY
}
s=$SECONDS
M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread
for c in common_nb4:256 common_nb4:1024 common_nb4:8192 common_nb8:256 common_nb8:1024 common_nb8:8192; do m=${c%:*} t=${c#*:}
  for v in $(best $R/time/graph-$m-T$t.json s2 4) $(best $R/time/graph-$m-T$t.json other 1); do
    timeout 40 ncu --cache-control all --clock-control none --nvtx --nvtx-include "kk3tune@profile/" --csv --page raw --metrics $M \
      $K profile --family attn_res --mode $m -T $t --variant $v -n 5 --seed 1 >$R/ncu/$m-T$t-$v.csv 2>&1
  done
done
echo "ncu $((SECONDS - s)) s" | tee -a $R/summary.txt
python3 - $R <<'PY' | tee -a $R/summary.txt
import csv, glob, io, json, os, statistics, sys
R = sys.argv[1]
print("median us: best STAGE 2 (top 3) | best other")
for f in sorted(glob.glob(R + "/time/*.json")):
    try: res = json.load(open(f))["results"]
    except Exception as e: print(os.path.basename(f), "unreadable", e); continue
    ok = sorted([x for x in res if (x.get("statistics") or {}).get("median_us", 0) > 0], key=lambda x: x["statistics"]["median_us"])
    s3 = [x for x in ok if "-stage2-" in x["variant"]]; ot = [x for x in ok if "-stage2-" not in x["variant"]]
    sh = lambda x: x["variant"].replace("-unroll1", "").replace("b1-", "").replace("-nc0", "") + " %.2f" % x["statistics"]["median_us"]
    print(os.path.basename(f)[:-5], "|", ", ".join(sh(x) for x in s3[:3]), "|", sh(ot[0]) if ot else "-", "| bad:", len(res) - len(ok))
print("ncu cold (median of 5, us; dram %; warps active %; regs)")
for f in sorted(glob.glob(R + "/ncu/*.csv")):
    txt = open(f).read(); i = txt.find('"ID"')
    if i < 0: print(os.path.basename(f), "no ncu rows"); continue
    allrows = list(csv.DictReader(io.StringIO(txt[i:]))); units, rows = allrows[0], allrows[1:]
    scale = {"nsecond": 1e-3, "ns": 1e-3, "us": 1.0, "usecond": 1.0, "msecond": 1e3}.get(units.get("gpu__time_duration.sum"), float("nan"))
    def med(k):
        v = [float(r[k].replace(",", "")) for r in rows if r.get(k) not in (None, "")]
        return statistics.median(v) if v else float("nan")
    print("%-62s %8.2f dram %5.1f warps %5.1f regs %s" % (os.path.basename(f)[:-4].replace("-unroll1", ""), med("gpu__time_duration.sum") * scale, med("dram__throughput.avg.pct_of_peak_sustained_elapsed"), med("sm__warps_active.avg.pct_of_peak_sustained_active"), rows[0].get("launch__registers_per_thread") if rows else "-"))
PY
cd $OUT && tar czf c7.tgz c7 && rm -rf c7
