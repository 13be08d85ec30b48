#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan + UBSan) into ${KK3_FUZZ_BUILD_DIR:-build-fuzz} and
# runs each for SECONDS_PER_TARGET (default 60) over a copy of its seed corpus
# (fuzz/corpus/<target>; new inputs go to the build tree, never into the committed seeds).
# Prints one line per target; exits non-zero if any target found a crash, a sanitizer report,
# a leak, a timeout or an exception other than kk3::error. The inputs that did so are saved as
# <build>/findings/<target>-crash-* (reproduce: <build>/fuzz/<target> FILE).
# usage: fuzz/run.sh [SECONDS_PER_TARGET] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(fuzz_family_config fuzz_result_reader fuzz_compare fuzz_sweep_config)
build=${KK3_FUZZ_BUILD_DIR:-build-fuzz}
cuda=${CUDA_HOME:-/usr/local/cuda}
scripts/install-deps --tests
CC=clang CXX=clang++ cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCUDAToolkit_ROOT="$cuda" -DKK3_FUZZ=ON -DKK3_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" -j "$(nproc)" --target "${targets[@]}"

export ASAN_OPTIONS="halt_on_error=1:abort_on_error=1:detect_leaks=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
mkdir -p "$build/findings"
failed=0
summary=()
for target in "${targets[@]}"; do
  corpus="$build/corpus/$target"
  mkdir -p "$corpus"
  cp -r "fuzz/corpus/$target/." "$corpus/"
  log="$build/findings/$target.log"
  set +e
  # -timeout: an input that takes 20 s is a hang worth a look (the seeds take milliseconds).
  "$build/fuzz/$target" "$corpus" -dict=fuzz/json.dict -max_total_time="$seconds" -timeout=20 \
    -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix="$build/findings/$target-" >"$log" 2>&1
  rc=$?
  set -e
  runs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$' || true)
  cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+' "$log" | tail -1 || true)
  if [ "$rc" -eq 0 ]; then
    line="fuzz: $target: ok, ${runs:-?} inputs in ${seconds} s (${cov:-no coverage line})"
  else
    failed=1
    artifact=$(grep -oE 'Test unit written to [^ ]+' "$log" | tail -1 | sed 's/Test unit written to //' || true)
    line="fuzz: $target: FAILED (exit $rc) after ${runs:-?} inputs; input ${artifact:-none saved}; log $log"
    grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error|terminate called|.*deadly signal)' "$log" | head -5 >&2 || true
  fi
  summary+=("$line")
done
printf '%s\n' "${summary[@]}"
exit "$failed"
