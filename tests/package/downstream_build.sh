#!/usr/bin/env bash
# CTest test (label unit, no GPU needed): installs this build into a temporary prefix, configures
# and builds examples/downstream against it (find_package(kk3tune), both dispatch headers and
# kernel sources, g++ and nvcc with -Wall -Wextra -Werror), then runs the launcher: with an sm_90
# GPU it launches every range of every table and the reference variant, compares their outputs
# and prints "ok"; without one it prints the cases and "no GPU: built, not run" (or, with a GPU of
# another architecture, "no sm_90 GPU (...): built, not run").
#
# Usage: downstream_build.sh BUILD_DIR SOURCE_DIR CMAKE NVCC GENERATOR MAKE_PROGRAM
set -euo pipefail
build=$1 source=$2 cmake=$3 nvcc=$4 generator=$5 make_program=$6

tmp=$(mktemp -d "${TMPDIR:-/tmp}/kk3-downstream.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

step() { echo "== $*"; "$@"; }

step "$cmake" --install "$build" --prefix "$tmp/prefix"
for f in include/kk3tune/dispatch/mla_decode_epilogue.h include/kk3tune/dispatch/attn_res.h \
         include/kk3tune/kernels/mla_decode_epilogue.cuh include/kk3tune/kernels/common/pdl.cuh \
         include/kk3tune/kernels/attn_res.cuh include/kk3tune/kernels/attn_res_launch.h \
         include/kk3tune/kernels/mla_decode_epilogue_launch.h include/kk3tune/kernels/common/launch_settings.h \
         include/kk3tune/kernels/common/launch.cuh \
         share/cmake/kk3tune/kk3tuneConfig.cmake share/cmake/kk3tune/kk3tuneConfigVersion.cmake; do
  [[ -f "$tmp/prefix/$f" ]] || { echo "not installed: $f"; exit 1; }
done

step "$cmake" -S "$source/examples/downstream" -B "$tmp/build" -G "$generator" \
  -DCMAKE_MAKE_PROGRAM="$make_program" -DCMAKE_CUDA_COMPILER="$nvcc" -DCMAKE_PREFIX_PATH="$tmp/prefix"
step "$cmake" --build "$tmp/build" --verbose

echo "== $tmp/build/launcher"
out=$("$tmp/build/launcher")
echo "$out"
last=$(tail -n 1 <<<"$out")
[[ "$last" == "ok" || "$last" == *"built, not run" ]] || { echo "unexpected last line: $last"; exit 1; }
