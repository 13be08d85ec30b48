#!/usr/bin/env bash
# Issue 16's first check: `kk3tune time --timing chain --variant all`, each in its own run, at the
# token counts of the issue (mla_decode_epilogue: every mode at T 1, 8, 64, 65, 256, 1024;
# attn_res: two modes at T 1, 64, 1024), then bench/chain_within.py: the sweep's table variant
# against the fastest of each run. Writes OUTDIR/time-*.json, OUTDIR/within.json and prints the
# table last. MAX_TIME (default 0.05) is each variant's sampling time; MLA_MODES and ATTN_MODES
# (default: all four, and common_nb8 write_nb4) split the runs over several calls.
# usage: bench/chain_acceptance.sh KK3TUNE SWEEP.json OUTDIR [CACHE_DIR]
set -uo pipefail
kk3=${1:?usage: chain_acceptance.sh KK3TUNE SWEEP.json OUTDIR [CACHE_DIR]}
sweep=${2:?sweep result}
out=${3:?outdir}
cache=${4:-$out/cache}
here=$(cd "$(dirname "$0")/.." && pwd)
max_time=${MAX_TIME:-0.05}
mkdir -p "$out"
files=()
timed() {  # FAMILY MODE T
  local f="$out/time-$1-$2-T$3.json"
  "$kk3" time --family "$1" --mode "$2" --tokens "$3" --timing chain --variant all --seed 16 \
    --max-time "$max_time" --cache-dir "$cache" --json "$f" >"$out/time-$1-$2-T$3.log" 2>&1 &&
    files+=("$f") || echo "time $1 $2 T=$3 failed: $(tail -2 "$out/time-$1-$2-T$3.log")"
}
for mode in ${MLA_MODES-bf16 bf16_rope fp8 fp8_rope}; do
  for t in 1 8 64 65 256 1024; do timed mla_decode_epilogue "$mode" "$t"; done
done
for mode in ${ATTN_MODES-common_nb8 write_nb4}; do
  for t in 1 64 1024; do timed attn_res "$mode" "$t"; done
done
python3 "$here/bench/chain_within.py" "$sweep" "${files[@]}" --json "$out/within.json"
