#!/usr/bin/env bash
# Issue 34 on the H200 (2026-12-04): the GPU suite; `time` (now under the sweep's objective by
# default) against a sweep of one mode at T = 1, 64, 1024 for attn_res/common_nb8 and
# mla_decode_epilogue/bf16: the sweep's winner against time's fastest among the sweep's finalists;
# the plan preview on a GPU; the no-GPU checks that need a GPU to be absent are in the unit tests.
# Carry: build-carry/ (kk3tune, kk3_gpu_tests), built at /work/wt-lead.
set -u
mkdir -p /work && ln -sfn "$PWD" /work/wt-lead
mkdir -p build/tests && cp build-carry/kk3tune build/ && cp build-carry/kk3_gpu_tests build/tests/
export XDG_CACHE_HOME=/tmp/kk3c
R=$OUT/r1; mkdir -p $R; K=$PWD/build/kk3tune
step() { local name=$1; shift; local t0=$(date +%s); "$@" > $R/$name.txt 2>&1; local rc=$?; echo "$name rc=$rc $(( $(date +%s) - t0 ))s $(tail -1 $R/$name.txt | cut -c1-150)" | tee -a $R/summary.txt; }
step gpu-tests timeout 300 build/tests/kk3_gpu_tests --gtest_filter='-attn_res_gpu.every_variant_in_every_mode*'
step dry-run $K sweep --dry-run
for fm in "attn_res common_nb8" "mla_decode_epilogue bf16"; do
  set -- $fm; f=$1; m=$2
  step sweep-$m $K sweep --family $f --mode $m --tokens 1,64,1024 --seed 20261204 --out $R/sweep-$m.json
  for T in 1 64 1024; do
    fin=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(','.join(r['variant'] for r in d['records'] if r['tokens']==int(sys.argv[2]) and r['status']=='ok'))" $R/sweep-$m.json $T)
    step time-$m-T$T $K time --family $f --mode $m -T $T --seed 20261204 --variant "$fin" --json $R/time-$m-T$T.json
  done
done
python3 - "$R" > $R/agreement.txt <<'PY'
import json, sys, os
R = sys.argv[1]
print("case T sweep_winner time_fastest agree time_gap_of_sweep_winner_% time_objective")
for m in ["common_nb8", "bf16"]:
    s = json.load(open(f"{R}/sweep-{m}.json"))
    for T in [1, 64, 1024]:
        win = next(r["variant"] for d in s["dispatch"] for r in d["ranges"] if T in r["tokens"])
        t = json.load(open(f"{R}/time-{m}-T{T}.json"))
        res = sorted(t["results"], key=lambda e: e["statistics"]["median_us"])
        fastest = res[0]
        w = next((e for e in res if e["variant"] == win), None)
        gap = 100 * (w["statistics"]["median_us"] / fastest["statistics"]["median_us"] - 1) if w else float("nan")
        print(m, T, win, fastest["variant"], win == fastest["variant"], f"{gap:.2f}", fastest["timing"]["mode"])
PY
cat $R/agreement.txt | tee -a $R/summary.txt
tar czf $OUT/r1.tgz -C $OUT r1
cat $R/summary.txt
