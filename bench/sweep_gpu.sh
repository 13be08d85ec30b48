#!/usr/bin/env bash
# Sweep runs on the GPU machine, each under its own time limit (SIGTERM makes a sweep stop after
# the current shape and keep what it measured in OUT.partial). Usage:
#   bench/sweep_gpu.sh OUTDIR small            the test plan (tests/fixtures/sweep/small-plan.json)
#   bench/sweep_gpu.sh OUTDIR families         mla_decode_epilogue in full, then attn_res at 4 token counts
#   bench/sweep_gpu.sh OUTDIR default          the default sweep from a cold compile cache, then again
#                                              warm (two sweeps back to back), and bench/sweep_repro.py
#                                              with every flipped pair timed head to head; leaves
#                                              the two sweeps gzip'd, repro.md and logs.tgz
#   bench/sweep_gpu.sh OUTDIR cold             the default sweep once from a cold compile cache (320 s
#                                              limit), gzip'd, its headers emitted to OUTDIR/dispatch,
#                                              then the CI baseline of ci/short-plan.json (150 s)
#   bench/sweep_gpu.sh OUTDIR checks SWEEP.json  the emitted mla table against upstream's choice
#                                              (every mode, H=16), and the downstream example built
#                                              and run on this GPU (ctest -R package)
set -uo pipefail
out=${1:?usage: bench/sweep_gpu.sh OUTDIR small|families|default|cold|checks SWEEP.json}
kk3=${KK3TUNE:-build/kk3tune}
here=$(dirname "$0")
mkdir -p "$out"
cache="$out/cache"
run() {  # name limit_s args...
  local name=$1 limit=$2; shift 2
  local s=$SECONDS
  echo "$kk3 sweep $* --out $out/$name.json --cache-dir $cache" >"$out/$name.cmd"
  timeout -s TERM "$limit" "$kk3" sweep "$@" --out "$out/$name.json" --cache-dir "$cache" >"$out/$name.txt" 2>"$out/$name.log"
  echo "$name rc=$? $((SECONDS - s)) s"; tail -2 "$out/$name.log"; tail -3 "$out/$name.txt"
}
step=${2:?}
case $step in
  small) run small 120 --config tests/fixtures/sweep/small-plan.json ;;
  families) run mla 170 --family mla_decode_epilogue
            run attn_res 150 --family attn_res --tokens 1,64,1024,8192 ;;
  default) run default-cold 320; run default-warm 220
           timeout 200 python3 "$here/sweep_repro.py" "$out/default-cold.json" "$out/default-warm.json" "$out/repro.md" \
             --head-to-head "$out/head-to-head" --cache-dir "$cache" | head -4
           # What comes back from the GPU machine: at most 8 files of 16 MiB each.
           gzip -9n "$out"/default-*.json
           tar czf "$out/logs.tgz" -C "$out" --exclude cache --exclude '*.json.gz' --exclude repro.md . ;;
  cold) run default-cold 320
        "$kk3" emit "$out/default-cold.json" --out "$out/dispatch" >"$out/emit.txt" 2>&1; echo "emit rc=$?"
        run ci-baseline 150 --config ci/short-plan.json
        gzip -9n "$out/default-cold.json"
        tar czf "$out/logs.tgz" -C "$out" --exclude cache --exclude '*.json.gz' --exclude ci-baseline.json . ;;
  checks) sweep=${3:?usage: bench/sweep_gpu.sh OUTDIR checks SWEEP.json}
          for m in bf16 bf16_rope fp8 fp8_rope; do
            timeout 100 python3 "$here/mla_table_vs_upstream.py" "$sweep" "$out/upstream-$m" $m 16 >/dev/null 2>"$out/upstream-$m.log"
            echo "upstream $m rc=$?"; tail -n +5 "$out/upstream-$m/table-vs-upstream.md" | awk -F'|' '{printf "%s|%s|%s\n", $2, $7, $4 }' | head -25
          done
          (cd "$(dirname "$kk3")" && ctest -R package --output-on-failure) >"$out/package.txt" 2>&1
          echo "package tests rc=$?"; grep -E "ok|not run|T=|Passed|Failed" "$out/package.txt" | tail -12 ;;
  *) echo "unknown step $step" >&2; exit 2 ;;
esac
rm -rf "$cache"
