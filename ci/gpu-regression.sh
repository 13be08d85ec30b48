#!/usr/bin/env bash
# The CI regression job for a GPU runner (README, "Regression checks in CI"): a short sweep
# (ci/short-plan.json) compared with a committed baseline sweep of the same plan on the same GPU
# model. The comparison goes to the log as a table and, as markdown, to $GITHUB_STEP_SUMMARY
# when set (else to $KK3_CI_OUT/compare.md). Exits with compare's code: 0 no regression, 1 a
# slower record or a verification regression, 2 no baseline or an unusable one (another GPU,
# another kind, another schema_version), 3 no GPU on this runner.
#
#   ci/gpu-regression.sh [BASELINE.json]      (default: ci/baseline/h200.json)
#
# Environment: KK3TUNE (the binary; default build/kk3tune, built by scripts/build when missing),
# KK3_CI_OUT (output folder; default build/ci-regression), KK3_COMPARE_ARGS (more compare flags, e.g.
# "--threshold 8%"), KK3_SWEEP_ARGS (more sweep flags; e.g. "--inject-fault VARIANT=slow", the
# regression made on purpose that proves the job fails: results/h200/ci-regression-2026-12-02).
set -uo pipefail
cd "$(dirname "$0")/.."
baseline=${1:-ci/baseline/h200.json}
out=${KK3_CI_OUT:-${KK3_BUILD_DIR:-build}/ci-regression}
kk3=${KK3TUNE:-build/kk3tune}
plan=ci/short-plan.json

if [ ! -f "$baseline" ]; then
  cat >&2 <<MSG
gpu-regression: no baseline: $baseline does not exist.
Make one on the GPU model the runners have, from a build you trust, and commit it:
  $kk3 sweep --config $plan --out $baseline
or pass another baseline file as the first argument.
MSG
  exit 2
fi
if [ ! -x "$kk3" ]; then
  scripts/build || { echo "gpu-regression: the build failed" >&2; exit 2; }
fi
mkdir -p "$out" || exit 2

# shellcheck disable=SC2086  # KK3_SWEEP_ARGS is a list of flags
"$kk3" sweep --config "$plan" --out "$out/sweep.json" ${KK3_SWEEP_ARGS:-}
sweep_rc=$?
case $sweep_rc in
  0 | 1) ;;  # 1: a variant failed verification or to compile; compare reports what regressed
  3) echo "gpu-regression: no GPU on this runner (kk3tune sweep exited 3): nothing was timed" >&2
     exit 3 ;;
  *) echo "gpu-regression: kk3tune sweep exited $sweep_rc" >&2
     exit "$sweep_rc" ;;
esac

# shellcheck disable=SC2086  # KK3_COMPARE_ARGS is a list of flags
"$kk3" compare "$baseline" "$out/sweep.json" ${KK3_COMPARE_ARGS:-}
summary=${GITHUB_STEP_SUMMARY:-$out/compare.md}
[ -n "${GITHUB_STEP_SUMMARY:-}" ] || : >"$summary"
# shellcheck disable=SC2086
"$kk3" compare "$baseline" "$out/sweep.json" --format markdown ${KK3_COMPARE_ARGS:-} \
  >>"$summary" 2>"$out/compare.err"
rc=$?
if [ -s "$out/compare.err" ]; then
  cat "$out/compare.err" >&2
  printf '## kk3tune compare: failed (exit %d)\n\n```\n%s\n```\n' "$rc" "$(cat "$out/compare.err")" >>"$summary"
fi
echo "gpu-regression: compare exited $rc; markdown in $summary" >&2
exit "$rc"
