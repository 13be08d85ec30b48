#!/usr/bin/env bash
# CTest test (label unit, no GPU needed): `cmake --install` of this build into a temporary prefix
# holds the binary, the shipped kernels and the configs (no test-only file, no test family's), and the installed
# kk3tune, run from another folder, finds its own kernels and configs beside its executable:
# `list` and `compile --arch sm_90a --family mla_decode_epilogue --mode bf16` work (issue 17).
# Usage: install.sh BUILD_DIR CMAKE
set -euo pipefail
build=$1 cmake=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kk3-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

"$cmake" --install "$build" --prefix "$tmp/prefix" >"$tmp/install.log" || { cat "$tmp/install.log"; exit 1; }
for f in bin/kk3tune share/kk3tune/configs/default.json share/kk3tune/configs/mla_decode_epilogue.json \
         share/kk3tune/kernels/mla_decode_epilogue.cuh share/kk3tune/kernels/timing/helpers.cuh \
         share/kk3tune/kernels/common/fault_point.cuh include/kk3tune/kernels/attn_res.cuh; do
  [[ -f "$tmp/prefix/$f" ]] || { echo "not installed: $f"; exit 1; }
done
if found=$(find "$tmp/prefix" -name 'fault_injection.cuh' | grep .); then echo "test-only file installed: $found"; exit 1; fi
# The test families (tests/families/<name>/) are in test builds only: no file of theirs installed.
src_dir=$(cd "$(dirname "$0")/../.." && pwd)
test_families=$(cd "$src_dir/tests/families" && ls -d */ | tr -d /)
[[ -n "$test_families" ]] || { echo "no test family found under $src_dir/tests/families"; exit 1; }
for name in $test_families; do
  if found=$(find "$tmp/prefix" -name "*$name*" | grep .); then echo "test family $name installed: $found"; exit 1; fi
done

mkdir "$tmp/elsewhere" && cd "$tmp/elsewhere"
kk3="$tmp/prefix/bin/kk3tune"
export KK3TUNE_LIBCUDA=/nonexistent/libcuda.so.1  # the same with or without a GPU
unset KK3TUNE_KERNEL_DIR KK3TUNE_CONFIG_DIR
out=$("$kk3" list)
grep -q "config:    $tmp/prefix/share/kk3tune/configs/mla_decode_epilogue.json" <<<"$out" || { echo "list did not use the installed configs:"; echo "$out"; exit 1; }
out=$("$kk3" list --all)
for name in $test_families; do
  if grep -q "$name" <<<"$out"; then echo "the installed kk3tune lists the test family $name:"; echo "$out"; exit 1; fi
done
out=$("$kk3" doctor 2>&1 || true)
grep -q "kernels: *$tmp/prefix/share/kk3tune/kernels (beside the executable)" <<<"$out" || { echo "doctor:"; echo "$out"; exit 1; }
out=$("$kk3" compile --arch sm_90a --family mla_decode_epilogue --mode bf16 --cache-dir "$tmp/cache" 2>&1) || { echo "$out" | tail -20; exit 1; }
summary=$(tail -n 1 <<<"$out")
echo "$summary"
[[ "$summary" == "288 variant compiles for 1 arch(s): 288 ok, 0 failed"* ]] || { echo "unexpected: $summary"; exit 1; }
echo "installed kk3tune works from another folder"
