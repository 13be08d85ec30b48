#!/usr/bin/env bash
# One GPU call for attn_res (issue 5): its gpu tests, a full verification with the test-only
# early reader, then the benchmark against torch. Everything lands in OUTDIR.
# Compile the kernels on the build machine first and carry the cache, so no device time goes to
# NVRTC:  build/kk3tune compile --family attn_res --arch sm_90a --cache-dir build/kcache
# then run this with KK3_CACHE=build/kcache.   Usage: bench/attn_res_gpu.sh OUTDIR
set -uo pipefail
out=${1:?usage: bench/attn_res_gpu.sh OUTDIR}
kk3=${KK3TUNE:-build/kk3tune}
mkdir -p "$out"
[ -n "${KK3_CACHE:-}" ] && export XDG_CACHE_HOME="$(cd "$(dirname "$KK3_CACHE")" && pwd)/xdg" && mkdir -p "$XDG_CACHE_HOME" &&
  ln -sfn "$(cd "$KK3_CACHE" && pwd)" "$XDG_CACHE_HOME/kk3tune"
(cd "$(dirname "$kk3")" && ctest -L gpu -R attn_res --output-on-failure) >"$out/gpu-tests.txt" 2>&1
echo "gpu tests rc=$?"
"$kk3" verify --family attn_res --tokens 1,64,4097 --include-test-knobs --seed 20261130 >"$out/verify.txt" 2>&1
echo "verify rc=$?"; tail -2 "$out/verify.txt"
python3 "$(dirname "$0")/attn_res_bench.py" "$out/bench" >"$out/bench.log" 2>&1
echo "bench rc=$?"; cat "$out/bench/summary.md" 2>/dev/null || tail -20 "$out/bench.log"
