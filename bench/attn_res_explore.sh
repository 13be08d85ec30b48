#!/usr/bin/env bash
# Usage: bench/attn_res_explore.sh OUT   (everything lands in OUT/explore.tgz; the table on stdout)
# A first look at an attn_res kernel change on the GPU (issues 14 and 24), in one device call:
#  1. `kk3tune verify` of every variant (test-only ones included) of the modes in VERIFY_MODES
#     (default: one of each kind and NB 0, 1, 8) at T = 65 and the edge shapes: bitwise against
#     the reference variant, the SPEC 1.3 bound against float64, the PDL hazard check;
#  2. the GPU tests named by GTEST_FILTER (default: the kernel against its CPU emulation);
#  3. `kk3tune time --variant all` (graph timing, unlaunchable variants recorded as such) of the
#     modes in TIME_MODES at T in TIME_TOKENS, with the copy ceiling and the empty kernel of the
#     same run;
#  4. Nsight Compute on the fastest variant of each MODE:T in NCU_SHAPES.
# Prints a table of the fastest variants per shape last. KK3TUNE and GPU_TESTS name the binaries.
set -u
DEST=$1
OUT=$(mktemp -d)/explore
K=${KK3TUNE:-build/kk3tune}
T_BIN=${GPU_TESTS:-build/tests/kk3_gpu_tests}
mkdir -p "$OUT" "$DEST"
trap 'tar czf "$DEST/explore.tgz" -C "$(dirname "$OUT")" explore' EXIT
trap 'exit 143' TERM INT
SEED=${SEED:-20261202}
CACHE=${CACHE:-$OUT/../cache}
export XDG_CACHE_HOME=$CACHE
$K doctor > "$OUT/doctor.txt" 2>&1
start=$SECONDS
for mode in ${VERIFY_MODES-common_nb8 post_nb8 final_nb8 write_nb4 common_nb1 write_nb0 common_nb4}; do
  $K verify --family attn_res --mode "$mode" --tokens 65 --include-test-knobs --seed "$SEED" --format json \
    > "$OUT/verify-$mode.json" 2> "$OUT/verify-$mode.log"
  echo "verify $mode: exit $? ($((SECONDS - start)) s) $(python3 -c "
import json,sys
d=json.load(open('$OUT/verify-$mode.json'))
bad=[r for r in d['records'] if r['status']!='ok' and not r['test_only'] and r['status']!='unlaunchable']
flag=[r for r in d['records'] if r['test_only'] and r['status']=='ok']
print('ok', d['ok'], 'failed', d['failed'], 'unlaunchable', d['unlaunchable'], 'worst_ratio', d.get('worst_ratio'), 'exact', d.get('worst_exact_fraction'), 'ulps', d.get('worst_ulps'), 'test-only not flagged', len(flag))
for r in bad[:6]: print('   ', r['variant'], r['status'], r['reason'][:300])
" 2>&1)" | tee -a "$OUT/verify-summary.txt"
done
if [ -x "$T_BIN" ]; then
  "$T_BIN" --gtest_filter="${GTEST_FILTER-attn_res_emulation_gpu.*}" > "$OUT/gpu-tests.txt" 2>&1
  echo "gpu tests: exit $? ($((SECONDS - start)) s)"; grep -E "^\[  (PASSED|FAILED) |Failure|differ" "$OUT/gpu-tests.txt" | head -20
fi
$K time --family copy_example --variant all -T 16384 --json "$OUT/copy.json" > "$OUT/copy.txt" 2>&1
$K time --family empty_example --variant all --json "$OUT/empty.json" > "$OUT/empty.txt" 2>&1
for mode in ${TIME_MODES-common_nb1 common_nb4 common_nb8}; do
  for t in ${TIME_TOKENS-1 64 256 1024 8192}; do
    $K time --family attn_res --mode "$mode" -T "$t" --variant all --timing graph --noise 1 --max-time "${MAX_TIME:-0.04}" --seed 5 \
      --json "$OUT/time-$mode-T$t.json" > "$OUT/time-$mode-T$t.txt" 2>&1 || echo "time $mode T=$t: exit $?"
  done
  echo "timed $mode ($((SECONDS - start)) s)"
done
python3 - "$OUT" > "$OUT/table.txt" <<'PY'
import glob, json, os, sys
out = sys.argv[1]
def timed(p):
    return [x for x in json.load(open(p))["results"] if (x.get("statistics") or {}).get("median_us", 0) > 0]
def best(p):
    r = timed(p); return min(r, key=lambda x: x["statistics"]["median_us"]), r
cb, _ = best(f"{out}/copy.json"); ceil = cb["bytes_moved"] / cb["statistics"]["median_us"] / 1e6
print(f"copy ceiling {ceil:.3f} TB/s")
eb, _ = best(f"{out}/empty.json"); print(f"empty kernel {eb['statistics']['median_us']:.3f} us")
for p in sorted(glob.glob(f"{out}/time-*.json")):
    b, r = best(p); us = b["statistics"]["median_us"]; tb = b["bytes_moved"] / us / 1e6
    ref = [x for x in r if x.get("reference") or x["variant"] == "b1-gpw4-nc1-stage0-unroll1-stages1-trigger0"]
    top = sorted(r, key=lambda x: x["statistics"]["median_us"])[:4]
    print(f"{os.path.basename(p)[5:-5]:18s} {len(r):3d} timed best {us:8.3f} us {tb:6.3f} TB/s {100*tb/ceil:5.1f}%  ref {ref[0]['statistics']['median_us'] if ref else 0:8.3f}  " +
          " ".join(f"{x['variant']}:{x['statistics']['median_us']:.2f}" for x in top))
PY
cat "$OUT/table.txt"
for spec in ${NCU_SHAPES-common_nb8:8192 common_nb8:1024 common_nb8:1}; do
  mode=${spec%%:*}; t=${spec##*:}
  [ -f "$OUT/time-$mode-T$t.json" ] || continue
  v=$(python3 -c "import json; r=[x for x in json.load(open('$OUT/time-$mode-T$t.json'))['results'] if (x.get('statistics') or {}).get('median_us',0)>0]; print(min(r,key=lambda x:x['statistics']['median_us'])['variant'])")
  timeout 90 ncu --clock-control none --profile-from-start off -c 1 --set full \
    $K profile --family attn_res --mode "$mode" -T "$t" --variant "$v" -n 1 > "$OUT/ncu-$mode-T$t.txt" 2>&1
  echo "ncu $mode T=$t $v: $(grep -E 'DRAM Throughput|Duration|Achieved Occupancy|Registers Per|Issued Warp|No Eligible' "$OUT/ncu-$mode-T$t.txt" | tr -s ' ' | tr '\n' ';')"
done
echo "total $((SECONDS - start)) s"
