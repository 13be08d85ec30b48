#!/usr/bin/env bash
# The CI regression job for a GPU runner (docs/development.md, "Regression checks in CI"): a short
# sweep (ci/short-plan.json) of this build, screened against a committed baseline sweep of the
# same plan on the same GPU model, then confirmed on this runner (A/B) when the screen finds a
# regression or when the runner's machine differs from the baseline's: two H200s of one model
# differ by 6-10% at launch-bound counts (results/h200/ci-regression-2026-12-03), so a
# committed baseline alone is red on the machine. The confirmation times a build of the base
# revision on this runner between two sweeps of this build (NEW, BASE, NEW) and fails only when
# both comparisons with BASE find a regression.
#
# The comparison goes to the log as a table and, as markdown, to $GITHUB_STEP_SUMMARY when set
# (else to $KK3_CI_OUT/compare.md). Exit codes: 0 no regression, 1 a slower count or a
# verification regression (confirmed on this runner where a base build was at hand), 2 no
# baseline or an unusable one (another GPU, another kind, another schema_version), or a base
# build that cannot be made, or a confirmation whose JSON it cannot read, 3 no GPU on this runner.
#
#   ci/gpu-regression.sh [BASELINE.json]      (default: ci/baseline/h200.json)
#
# Environment: KK3TUNE (the binary; default build/kk3tune, built by scripts/build when missing),
# KK3_CI_OUT (output folder; default build/ci-regression), KK3_COMPARE_ARGS (more compare flags, e.g.
# "--threshold 8%"), KK3_SWEEP_ARGS (more flags for this build's sweeps; e.g. "--inject-fault
# VARIANT=slow", the regression made on purpose that proves the job fails), and for the
# confirmation: KK3_CONFIRM (auto: when the screen fails or the machines differ; always; never),
# KK3_BASE_KK3TUNE (a kk3tune binary of the base revision), else KK3_BASE_REF (a git revision,
# built into $KK3_CI_OUT/base-build), else the baseline's own revision when it is clean and in
# this repository's history.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
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

summary=${GITHUB_STEP_SUMMARY:-$out/compare.md}
[ -n "${GITHUB_STEP_SUMMARY:-}" ] || : >"$summary"

# compare BASE NEW TITLE: the table to the log, the markdown to the summary under TITLE, the JSON
# to $out/compare-N.json; its exit code in $rc.
n_compares=0
compare() {
  n_compares=$((n_compares + 1))
  local json=$out/compare-$n_compares.json
  echo "gpu-regression: $3" >&2
  # shellcheck disable=SC2086  # KK3_COMPARE_ARGS is a list of flags
  "$kk3" compare "$1" "$2" ${KK3_COMPARE_ARGS:-}
  printf '# %s\n\n' "$3" >>"$summary"
  # shellcheck disable=SC2086
  "$kk3" compare "$1" "$2" --format markdown ${KK3_COMPARE_ARGS:-} >>"$summary" 2>"$out/compare.err"
  rc=$?
  # shellcheck disable=SC2086
  "$kk3" compare "$1" "$2" --format json ${KK3_COMPARE_ARGS:-} >"$json" 2>/dev/null
  if [ -s "$out/compare.err" ]; then
    cat "$out/compare.err" >&2
    printf '## kk3tune compare: failed (exit %d)\n\n```\n%s\n```\n' "$rc" "$(cat "$out/compare.err")" >>"$summary"
  fi
  echo "gpu-regression: compare exited $rc" >&2
}
machines_differ() { grep -q '"differ": true' "$out/compare-$1.json" 2>/dev/null; }
# regressed N: what comparison N found regressed, one per line and sorted: "TABLE TN" for each
# count slower or lost (the shipped counts_by_token entries of compare's JSON, indented 8),
# "verification" when a record's verification regressed.
regressed() {
  awk '/^    "verification_regressions": [1-9]/ { print "verification" }
       /^        "table": / { table = $2 }
       /^        "tokens": / { tokens = $2 }
       /^        "verdict": "(slower|lost)"/ { gsub(/[",]/, "", table); gsub(/,/, "", tokens); print table " T" tokens }' \
    "$out/compare-$1.json" | sort -u
}

compare "$baseline" "$out/sweep.json" "Screen: this build against the committed baseline ($baseline)"
screen=$rc
confirm=${KK3_CONFIRM:-auto}
case $confirm in auto | always | never) ;; *)
  echo "gpu-regression: KK3_CONFIRM=$confirm: expected auto, always or never" >&2; exit 2 ;;
esac
why=
if [ "$screen" -le 1 ]; then
  if [ "$confirm" = always ]; then why="KK3_CONFIRM=always"
  elif [ "$confirm" = auto ] && [ "$screen" = 1 ]; then why="the screen found a regression"
  elif [ "$confirm" = auto ] && machines_differ 1; then
    why="this runner's machine differs from the baseline's (see the notes), so a change there may be hidden"
  fi
fi
if [ -z "$why" ]; then
  echo "gpu-regression: exit $screen (the screen's verdict; markdown in $summary)" >&2
  exit "$screen"
fi

# The base build: a binary given, a revision to build, or the baseline's own revision.
base_kk3=${KK3_BASE_KK3TUNE:-}
if [ -z "$base_kk3" ]; then
  ref=${KK3_BASE_REF:-}
  if [ -z "$ref" ]; then
    ref=$(sed -n 's/^ *"git_revision": "\([0-9a-f]*\)\(-dirty\)\{0,1\}".*/\1\2/p' "$baseline" | head -1)
    case $ref in
      '' | *-dirty)
        echo "gpu-regression: confirming because $why, but there is no base build: the baseline names" \
             "no clean revision (${ref:-none}); set KK3_BASE_KK3TUNE or KK3_BASE_REF." \
             "The screen's verdict (exit $screen) stands unconfirmed." >&2
        printf '\n**Not confirmed on this runner**: no base build (the baseline names no clean revision; set KK3_BASE_KK3TUNE or KK3_BASE_REF).\n' >>"$summary"
        exit "$screen" ;;
    esac
  fi
  if ! rev=$(git rev-parse --verify --quiet "$ref^{commit}"); then
    echo "gpu-regression: base revision $ref is not in this repository (fetch it, or set KK3_BASE_KK3TUNE)" >&2
    exit 2
  fi
  src=$out/base-src
  build_dir=$(cd "$out" && pwd)/base-build
  echo "gpu-regression: building the base revision $rev into $build_dir" >&2
  rm -rf "$src"; git worktree prune
  if ! git worktree add --detach "$src" "$rev" >&2 ||
     ! (cd "$src" && scripts/install-deps >&2 &&
        cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
          -DCUDAToolkit_ROOT="${CUDA_HOME:-/usr/local/cuda}" -DKK3_BUILD_TESTS=OFF >/dev/null &&
        cmake --build "$build_dir" --target kk3tune -j "$(nproc)" >&2); then
    echo "gpu-regression: the base revision $rev did not build" >&2
    exit 2
  fi
  git worktree remove --force "$src" >&2  # the binary stays in $build_dir
  base_kk3=$build_dir/kk3tune
fi
if [ ! -x "$base_kk3" ]; then
  echo "gpu-regression: the base build $base_kk3 is not an executable" >&2
  exit 2
fi

# NEW (already timed), BASE, NEW again: each NEW against the BASE timed between them.
echo "gpu-regression: confirming on this runner because $why: $base_kk3 as BASE" >&2
mkdir -p "$out/confirm" || exit 2
"$base_kk3" sweep --config "$plan" --out "$out/confirm/base.json"
base_rc=$?
case $base_rc in 0 | 1) ;; *)
  echo "gpu-regression: the base build's sweep exited $base_rc" >&2; exit 2 ;;
esac
# shellcheck disable=SC2086
"$kk3" sweep --config "$plan" --out "$out/confirm/new.json" ${KK3_SWEEP_ARGS:-}
again_rc=$?
case $again_rc in 0 | 1) ;; *)
  echo "gpu-regression: this build's second sweep exited $again_rc" >&2; exit 2 ;;
esac
compare "$out/confirm/base.json" "$out/sweep.json" "Confirmation 1 on this runner: this build's first sweep against the base build's"
first=$rc
compare "$out/confirm/base.json" "$out/confirm/new.json" "Confirmation 2 on this runner: this build's second sweep against the base build's"
second=$rc
if [ "$first" -ge 2 ] || [ "$second" -ge 2 ]; then
  echo "gpu-regression: a confirmation gave no verdict (exits $first, $second)" >&2
  exit 2
fi
# A regression is one both NEW sweeps show against BASE: the same count slower or lost, or a
# verification regression in both. A comparison that failed but whose JSON names nothing
# regressed cannot be read here (its layout moved): no verdict, rather than a silent pass.
for pair in "$((n_compares - 1)):$first" "$n_compares:$second"; do
  n=${pair%:*}
  if [ "${pair#*:}" = 1 ] && [ -z "$(regressed "$n")" ]; then
    echo "gpu-regression: $out/compare-$n.json says REGRESSION but names no count or verification this script can read" >&2
    exit 2
  fi
done
confirmed=$(comm -12 <(regressed $((n_compares - 1))) <(regressed "$n_compares") | paste -sd, - | sed 's/,/, /g')
if [ -n "$confirmed" ]; then verdict=1; what="a regression, confirmed by both sweeps: $confirmed"
else verdict=0; what="no regression on this runner (confirmation exits $first, $second, none in both; the screen's $screen)"
fi
printf '\n**Verdict: %s** (exit %d)\n' "$what" "$verdict" >>"$summary"
echo "gpu-regression: exit $verdict: $what; markdown in $summary" >&2
exit "$verdict"
