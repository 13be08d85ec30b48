#!/usr/bin/env bash
# Usage: bench/attn_res_explore.sh OUT   (everything lands in OUT/explore.tgz; the table on stdout)
# A first look at an attn_res kernel change on the GPU (issue 14): verify every launchable
# variant of six modes (T = 65 and the edge shapes, test-only variants included), then time every
# launchable variant of the benchmark cases (common NB 1, 4, 8 and post NB 8) at T = 1, 64, 256,
# 1024, 8192 in graph mode, with the copy ceiling and the empty kernel of the same run. A
# variant needing more shared memory than the H200's 227 KiB is left out here (the tool records
# such variants as unlaunchable itself once that lands). Prints a table of the fastest per shape.
set -u
DEST=$1
OUT=$(mktemp -d)/explore
K=${KK3TUNE:-build/kk3tune}
mkdir -p "$OUT" "$DEST"
trap 'tar czf "$DEST/explore.tgz" -C "$(dirname "$OUT")" explore' EXIT
SEED=${SEED:-20261130}
# The launchable variants of a mode, from configs/attn_res.json (the smem formula of the kernel).
launchable() {
  python3 - "$1" <<'PY'
import itertools, json, sys
c = json.load(open("configs/attn_res.json")); m = c["modes"][sys.argv[1]]
names = list(c["knobs"]); out = []
for vals in itertools.product(*c["knobs"].values()):
    k = dict(zip(names, vals))
    if not all(eval(x.replace("&&", " and ").replace("||", " or "), {}, dict(k)) for x in c["constraints"]): continue
    mine = -(-m["H"] // 256 // k["B"]); n = m["NB"] + 1; rows = n + m["HAS_DELTA"]
    dyn = k["STAGES"] * rows * mine * 512 if k["STAGE"] else 0
    static = (2 * 2 * n * mine + 2 * mine + n + 1 + 3) * 8
    if dyn + static <= 227 * 1024: out.append("-".join(f"{a.lower()}{b}" for a, b in k.items()))
print(",".join(out))
PY
}
$K doctor > "$OUT/doctor.txt" 2>&1
for mode in common_nb8 write_nb0 final_nb8; do
  $K verify --family attn_res --mode $mode --variant "$(launchable $mode)" --tokens 65 --include-test-knobs --seed $SEED \
    > "$OUT/verify-$mode.txt" 2>&1; echo "verify $mode: exit $?" | tee -a "$OUT/verify-exit.txt"
done
$K time --family copy_example --variant all -T 16384 --json "$OUT/copy.json" > "$OUT/copy.txt" 2>&1
$K time --family empty_example --variant all --json "$OUT/empty.json" > "$OUT/empty.txt" 2>&1
for mode in common_nb1 common_nb4 common_nb8 post_nb8; do
  for t in 1 64 256 1024 8192; do
    $K time --family attn_res --mode $mode -T $t --variant "$(launchable $mode)" --noise 1 --max-time 0.05 --seed 5 \
      --json "$OUT/time-$mode-T$t.json" > "$OUT/time-$mode-T$t.txt" 2>&1 || echo "time $mode T=$t: exit $?"
  done
done
python3 - "$OUT" <<'PY'
import glob, json, os, sys
out = sys.argv[1]
def best(p):
    r = json.load(open(p))["results"]; return min(r, key=lambda x: x["statistics"]["median_us"]), r
cb, _ = best(f"{out}/copy.json"); ceil = cb["bytes_moved"] / cb["statistics"]["median_us"] / 1e6
print(f"copy ceiling {ceil:.3f} TB/s")
eb, _ = best(f"{out}/empty.json"); print(f"empty kernel {eb['statistics']['median_us']:.3f} us")
for p in sorted(glob.glob(f"{out}/time-*.json")):
    b, r = best(p); us = b["statistics"]["median_us"]; tb = b["bytes_moved"] / us / 1e6
    ref = [x for x in r if x["variant"] == "b1-gpw4-stage0-tpc1-stages1-spread0-trigger0-regs0"]
    top = sorted(r, key=lambda x: x["statistics"]["median_us"])[:3]
    print(f"{os.path.basename(p)[5:-5]:22s} best {us:9.3f} us {tb:6.3f} TB/s {100*tb/ceil:5.1f}%  ref {ref[0]['statistics']['median_us'] if ref else 0:9.3f}  " +
          " ".join(f"{x['variant']}:{x['statistics']['median_us']:.2f}" for x in top))
PY
# Nsight Compute on the fastest common_nb8 variant at T=8192 and T=1024, and the fastest common_nb1 at T=8192.
for spec in common_nb8:8192 common_nb8:1024 common_nb1:8192 common_nb8:1 common_nb1:64; do
  mode=${spec%%:*}; t=${spec##*:}
  v=$(python3 -c "import json,sys; r=json.load(open('$OUT/time-$mode-T$t.json'))['results']; print(min(r,key=lambda x:x['statistics']['median_us'])['variant'])")
  ncu --clock-control none --profile-from-start off -c 1 --section SpeedOfLight --section Occupancy --section LaunchStats \
    --section WarpStateStats --section ComputeWorkloadAnalysis \
    --metrics smsp__issue_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active,sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed.sum,dram__bytes.sum,smsp__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active,smsp__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active \
    $K profile --family attn_res --mode $mode -T $t --variant $v -n 1 > "$OUT/ncu-$mode-T$t.txt" 2>&1
  echo "ncu $mode T=$t $v: $(grep -E 'DRAM Throughput|Issue Slots Busy|smsp__issue_active|xu.avg|fp64_cycles' "$OUT/ncu-$mode-T$t.txt" | tr -s ' ' | tr '\n' ';')"
done
