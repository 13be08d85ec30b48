#!/usr/bin/env bash
# Usage: bench/attn_res_acceptance.sh OUT   (issue 24's sweep checks, in one device call)
#  1. the cold default sweep: `kk3tune sweep` of configs/default.json from an empty compile cache,
#     timed (target: 300 s), into OUT/sweep.json (and SWEEP_COPY, default /tmp/kk3-sweep.json, for
#     a later call on the same machine);
#  2. the attn_res cells of the 3% check (bench/chain_acceptance.sh with ATTN_MODES, default
#     common_nb8 write_nb4, and no mla modes): `time --timing chain --variant all` at T 1, 64, 1024
#     against the sweep's table, into OUT/chain/;
#  3. the attn_res GPU tests (GTEST_FILTER, default attn_res*) into OUT/gpu-tests.txt.
# Each step is bounded (SWEEP_S, CHAIN_S, TESTS_S seconds) so the call ends inside its limit; what a
# step measured is kept when a later one is cut. KK3TUNE and GPU_TESTS name the binaries.
set -u
out=${1:?usage: bench/attn_res_acceptance.sh OUT}
K=${KK3TUNE:-build/kk3tune}
T_BIN=${GPU_TESTS:-build/tests/kk3_gpu_tests}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
cache=$(mktemp -d)
start=$SECONDS
timeout "${SWEEP_S:-330}" "$K" sweep --out "$out/sweep.json" --cache-dir "$cache" > "$out/sweep.txt" 2> "$out/sweep.log"
echo "sweep: exit $? in $((SECONDS - start)) s (cold cache $cache)"
tail -3 "$out/sweep.txt"
[ -f "$out/sweep.json" ] && cp "$out/sweep.json" "${SWEEP_COPY:-/tmp/kk3-sweep.json}"
s=$SECONDS
if [ -f "$out/sweep.json" ]; then
  MLA_MODES="" ATTN_MODES="${ATTN_MODES:-common_nb8 write_nb4}" timeout "${CHAIN_S:-150}" \
    bash "$here/chain_acceptance.sh" "$K" "$out/sweep.json" "$out/chain" "$cache" > "$out/chain.txt" 2>&1
  echo "3% check: exit $? in $((SECONDS - s)) s"; tail -12 "$out/chain.txt"
fi
s=$SECONDS
if [ -x "$T_BIN" ]; then
  timeout "${TESTS_S:-120}" "$T_BIN" --gtest_filter="${GTEST_FILTER:-attn_res*}" > "$out/gpu-tests.txt" 2>&1
  echo "gpu tests: exit $? in $((SECONDS - s)) s"; grep -E "^\[  (PASSED|FAILED) |^\[==========\]|tests ran|attn_res .*variants ok" "$out/gpu-tests.txt" | tail -32
fi
# At most a few files come back from a device call: the chain runs as one archive, the sweep gzip'd.
[ -d "$out/chain" ] && tar czf "$out/chain.tgz" -C "$out" chain && rm -rf "$out/chain"
[ -f "$out/sweep.json" ] && gzip -9n "$out/sweep.json"
echo "total $((SECONDS - start)) s"
