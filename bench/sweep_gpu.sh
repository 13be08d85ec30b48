#!/usr/bin/env bash
# Sweep runs on the GPU machine, each under its own time limit (SIGTERM makes a sweep stop after
# the current shape and keep what it measured in OUT.partial). Usage:
#   bench/sweep_gpu.sh OUTDIR small     the test plan (tests/fixtures/sweep/small-plan.json)
#   bench/sweep_gpu.sh OUTDIR families  mla_decode_epilogue in full, then attn_res at 4 token counts
#   bench/sweep_gpu.sh OUTDIR default   the default sweep, cold cache, then again warm
set -uo pipefail
out=${1:?usage: bench/sweep_gpu.sh OUTDIR small|families|default}
kk3=${KK3TUNE:-build/kk3tune}
mkdir -p "$out"
cache="$out/cache"
run() {  # name limit_s args...
  local name=$1 limit=$2; shift 2
  local s=$SECONDS
  echo "$kk3 sweep $* --out $out/$name.json --cache-dir $cache" >"$out/$name.cmd"
  timeout -s TERM "$limit" "$kk3" sweep "$@" --out "$out/$name.json" --cache-dir "$cache" >"$out/$name.txt" 2>"$out/$name.log"
  echo "$name rc=$? $((SECONDS - s)) s"; tail -3 "$out/$name.log"; tail -25 "$out/$name.txt"
}
for step in "${@:2}"; do
  case $step in
    small) run small 120 --config tests/fixtures/sweep/small-plan.json ;;
    families) run mla 170 --family mla_decode_epilogue
              run attn_res 150 --family attn_res --tokens 1,64,1024,8192 ;;
    default) run default-cold 330; run default-warm 200 ;;
    *) echo "unknown step $step" >&2; exit 2 ;;
  esac
done
rm -rf "$cache"
