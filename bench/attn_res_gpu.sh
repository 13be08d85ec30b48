#!/usr/bin/env bash
# The GPU calls for attn_res (issue 5), in two steps that each fit one device call:
#   bench/attn_res_gpu.sh OUTDIR tests   every gpu test, then `kk3tune verify` of every variant
#                                         (test-only ones included) with a table of the figures
#   bench/attn_res_gpu.sh OUTDIR bench   the benchmark against torch, then Nsight Compute on the
#                                         fastest variants (bench/attn_res_ncu.sh)
# The tests use compiled-in paths: the checkout must be reachable as /work/main.
set -uo pipefail
out=${1:?usage: bench/attn_res_gpu.sh OUTDIR tests|bench}
step=${2:?usage: bench/attn_res_gpu.sh OUTDIR tests|bench}
kk3=${KK3TUNE:-build/kk3tune}
here=$(dirname "$0")
mkdir -p "$out"
case $step in
  tests)
    s=$SECONDS
    (cd "$(dirname "$kk3")" && ctest -L gpu --output-on-failure) >"$out/gpu-tests.txt" 2>&1
    echo "gpu tests rc=$? ($((SECONDS - s)) s)"; grep -E "tests passed|Failed|\*\*\*" "$out/gpu-tests.txt" | tail -5
    s=$SECONDS
    "$kk3" verify --family attn_res --tokens 64 --include-test-knobs --seed 20261130 >"$out/verify.txt" 2>&1
    echo "verify rc=$? ($((SECONDS - s)) s)"; tail -2 "$out/verify.txt" ;;
  bench)
    s=$SECONDS
    python3 "$here/attn_res_bench.py" "$out/bench" >"$out/bench.log" 2>&1
    echo "bench rc=$? ($((SECONDS - s)) s)"; cat "$out/bench/summary.md" 2>/dev/null || tail -20 "$out/bench.log"
    "$here/attn_res_ncu.sh" "$out/bench" "$out/ncu" ;;
  *) echo "unknown step $step (tests or bench)" >&2; exit 2 ;;
esac
