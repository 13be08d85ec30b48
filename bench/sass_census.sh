#!/usr/bin/env bash
# Static SASS census of one kernel instantiation: registers and spills (ptxas -v), the number of
# instructions on the main path (everything before the first EXIT: the collective fallbacks the
# compiler puts after it are left out), and the most frequent opcodes. A proxy for an
# issue-bound kernel's cost that needs no GPU; confirm with a measurement.
#   bench/sass_census.sh SOURCE 'ENTRY<ARGS>' '-DNAME=VALUE ...' [ARCH]
# e.g. bench/sass_census.sh attn_res.cuh 'attn_res<1, 4, 1, 0, 1, 1, 1, 0>' \
#        '-DKK3_ATTN_RES_H=7168 -DKK3_ATTN_RES_NB=8 -DKK3_ATTN_RES_HAS_DELTA=1 -DKK3_ATTN_RES_HAS_OUT_NORM=1 -DKK3_ATTN_RES_BLOCK_WRITE=0' sm_90a
# (the mode's macros, as the dispatch header's mode_defines() gives them)
# PARAMS (default: const kk3_attn_res_params) is the kernel's parameter list.
# Needs nvcc and cuobjdump (CUDA toolkit; or $CUOBJDUMP, e.g. from the nvidia-cuda-cuobjdump wheel).
set -euo pipefail
src=${1:?usage: bench/sass_census.sh SOURCE ENTRY DEFINES [ARCH]}
entry=${2:?usage: bench/sass_census.sh SOURCE ENTRY DEFINES [ARCH]}
defines=${3:-}
arch=${4:-sm_90a}
here=$(cd "$(dirname "$0")/.." && pwd)
cuobjdump=${CUOBJDUMP:-cuobjdump}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '#include "%s"\ntemplate __global__ void %s(%s);\n' "$src" "$entry" "${PARAMS:-const kk3_attn_res_params}" >"$work/i.cu"
# shellcheck disable=SC2086
nvcc -arch="$arch" -cubin -std=c++17 $defines -I"$here/kernels" -o "$work/k.cubin" "$work/i.cu" -Xptxas -v 2>&1 |
  grep -E "registers|spill" | sed 's/^ptxas info *: //' | tr '\n' ' '
echo
"$cuobjdump" -sass "$work/k.cubin" | awk '/EXIT ;/ {exit} {print}' | grep -E "^\s+/\*[0-9a-f]{4}\*/" |
  sed -E 's/^\s+\/\*[0-9a-f]{4}\*\/\s+//; s/^@!?U?P[0-9T]+ //' | awk '{print $1}' | sed 's/\..*//' >"$work/ops"
echo "main path: $(wc -l <"$work/ops") instructions"
sort "$work/ops" | uniq -c | sort -rn | head -16 | awk '{printf "%s %s  ", $2, $1} END {print ""}'
