#!/usr/bin/env bash
# CTest test (label unit): ci/gpu-regression.sh without a GPU. A stand-in for kk3tune answers
# `sweep` by copying a committed compare fixture (tests/fixtures/compare) and passes everything
# else to the real binary, so the script's flow, exit codes and job summary are checked here:
# the screen against the baseline (KK3_CONFIRM=never), then the confirmation on the runner with a
# stand-in base build (NEW, BASE, NEW), which decides when the screen fails or the machines differ.
# Usage: gpu_regression.sh KK3TUNE SOURCE_DIR
set -uo pipefail
kk3=$1 source=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kk3-ci.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fixtures=$source/tests/fixtures/compare
fail() { echo "FAIL: $*"; exit 1; }

# kk3tune stand-in: `sweep ... --out FILE` copies $FAKE_SWEEP to FILE (the second sweep of a run:
# $FAKE_SWEEP2, when set) and exits $FAKE_SWEEP_RC. The base build's stand-in copies $FAKE_BASE.
cat >"$tmp/kk3tune" <<STUB
#!/usr/bin/env bash
if [ "\$1" = compare ] && [ -n "\${FAKE_REINDENT:-}" ] && [ "\${*: -1}" = json ]; then
  "$kk3" "\$@" | python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin), indent=3))'
  exit "\${PIPESTATUS[0]}"
fi
if [ "\$1" = sweep ]; then
  while [ \$# -gt 0 ]; do [ "\$1" = --out ] && out=\$2; shift; done
  from=\$FAKE_SWEEP
  [ -e "$tmp/swept" ] && [ -n "\${FAKE_SWEEP2:-}" ] && from=\$FAKE_SWEEP2
  touch "$tmp/swept"
  [ "\${FAKE_SWEEP_RC:-0}" = 3 ] || cp "\$from" "\$out"
  exit "\${FAKE_SWEEP_RC:-0}"
fi
exec "$kk3" "\$@"
STUB
sed -e 's/FAKE_SWEEP2:-}/NO_SECOND:-}/' -e 's/from=\$FAKE_SWEEP$/from=\$FAKE_BASE/' -e "s|$tmp/swept|$tmp/base-swept|g" \
  "$tmp/kk3tune" >"$tmp/base-kk3tune"
chmod +x "$tmp/kk3tune" "$tmp/base-kk3tune"
run() {  # BASELINE FAKE_SWEEP [SWEEP_RC] -> exit code in $rc, output in $tmp/log
  rm -f "$tmp/swept" "$tmp/base-swept"
  KK3TUNE=$tmp/kk3tune KK3_CI_OUT=$tmp/out FAKE_SWEEP=$2 FAKE_SWEEP_RC=${3:-0} GITHUB_STEP_SUMMARY='' \
    KK3_CONFIRM=${KK3_CONFIRM:-never} "$source/ci/gpu-regression.sh" "$1" >"$tmp/log" 2>&1
  rc=$?
}

run "$tmp/missing.json" "$fixtures/sweep-base.json"
[ $rc = 2 ] || fail "no baseline: exit $rc, expected 2"
grep -q "no baseline: $tmp/missing.json does not exist" "$tmp/log" || fail "no baseline: no clear message: $(cat "$tmp/log")"

run "$fixtures/sweep-base.json" "$fixtures/sweep-base.json"
[ $rc = 0 ] || fail "same sweep: exit $rc, expected 0: $(cat "$tmp/log")"
grep -q "^## kk3tune compare: no regression" "$tmp/out/compare.md" || fail "same sweep: no summary in compare.md"

run "$fixtures/sweep-base.json" "$fixtures/sweep-slow.json"
[ $rc = 1 ] || fail "slower sweep: exit $rc, expected 1"
grep -q "^## kk3tune compare: REGRESSION" "$tmp/out/compare.md" || fail "slower sweep: compare.md does not say REGRESSION"
grep -q "^### Slower at a token count: what ships is slower (regressions) (1)" "$tmp/out/compare.md" || fail "slower sweep: compare.md lists no slower count"
grep -q "^Slower at a token count: what ships is slower (regressions) (1)" "$tmp/log" || fail "slower sweep: the log has no table"
grep -q "mla_decode_epilogue/bf16/H=16 *T64" "$tmp/log" || fail "slower sweep: the log does not name the table and count"

# Extra sweep flags reach the sweep (KK3_SWEEP_ARGS: the regression made on purpose).
cat >"$tmp/args-kk3tune" <<STUB
#!/usr/bin/env bash
if [ "\$1" = sweep ]; then echo "\$@" >"$tmp/sweep-args"; exit 3; fi
exec "$kk3" "\$@"
STUB
chmod +x "$tmp/args-kk3tune"
KK3TUNE=$tmp/args-kk3tune KK3_CI_OUT=$tmp/out KK3_SWEEP_ARGS="--inject-fault V=slow" "$source/ci/gpu-regression.sh" "$fixtures/sweep-base.json" >"$tmp/log" 2>&1
grep -q -- "--inject-fault V=slow" "$tmp/sweep-args" || fail "KK3_SWEEP_ARGS did not reach the sweep: $(cat "$tmp/sweep-args" 2>/dev/null)"

# GitHub's job summary is appended to.
echo "earlier step" >"$tmp/summary.md"
KK3TUNE=$tmp/kk3tune KK3_CI_OUT=$tmp/out FAKE_SWEEP=$fixtures/sweep-verify.json GITHUB_STEP_SUMMARY=$tmp/summary.md KK3_CONFIRM=never \
  "$source/ci/gpu-regression.sh" "$fixtures/sweep-base.json" >"$tmp/log" 2>&1
rc=$?
[ $rc = 1 ] || fail "verification regression: exit $rc, expected 1"
[ "$(head -1 "$tmp/summary.md")" = "earlier step" ] || fail "the job summary was overwritten"
grep -q "^### Verification regressions (1)" "$tmp/summary.md" || fail "the job summary has no verification regression"

run "$fixtures/time-base.json" "$fixtures/sweep-base.json"
[ $rc = 2 ] || fail "a time baseline: exit $rc, expected 2"
grep -q "compare needs two results of one kind" "$tmp/out/compare.md" || fail "a time baseline: the summary does not say why"

run "$fixtures/sweep-base.json" "$fixtures/sweep-base.json" 3
[ $rc = 3 ] || fail "no GPU: exit $rc, expected 3"
grep -q "no GPU on this runner" "$tmp/log" || fail "no GPU: no clear message"

# --- the confirmation on this runner: NEW, BASE, NEW -------------------------------------------
export KK3_BASE_KK3TUNE=$tmp/base-kk3tune KK3_CONFIRM=auto
# The screen fails, but the base build is as slow on this runner: the machine, not the code.
FAKE_BASE=$fixtures/sweep-slow.json run "$fixtures/sweep-base.json" "$fixtures/sweep-slow.json"
[ $rc = 0 ] || fail "the machine's slowdown: exit $rc, expected 0: $(cat "$tmp/log")"
grep -q "confirming on this runner because the screen found a regression" "$tmp/log" || fail "the machine's slowdown: no confirmation: $(cat "$tmp/log")"
grep -q "^\*\*Verdict: no regression on this runner (confirmation exits 0, 0, none in both; the screen's 1)\*\* (exit 0)" "$tmp/out/compare.md" || fail "the machine's slowdown: the summary has no verdict: $(cat "$tmp/out/compare.md")"
[ -e "$tmp/base-swept" ] || fail "the base build did not sweep"
# The screen fails and the base build is fast on this runner: confirmed by both NEW sweeps.
FAKE_BASE=$fixtures/sweep-base.json run "$fixtures/sweep-base.json" "$fixtures/sweep-slow.json"
[ $rc = 1 ] || fail "a real regression: exit $rc, expected 1: $(cat "$tmp/log")"
grep -q "exit 1: a regression, confirmed by both sweeps" "$tmp/log" || fail "a real regression: no verdict line: $(cat "$tmp/log")"
[ "$(grep -c "mla_decode_epilogue/bf16/H=16 *T64" "$tmp/log")" -ge 3 ] || fail "a real regression: the screen and both confirmations do not all name the count"
grep -q "exit 1: a regression, confirmed by both sweeps: mla_decode_epilogue/bf16/H=16 T64; markdown in" "$tmp/log" || fail "a real regression: the verdict does not name the count: $(grep 'gpu-regression: exit' "$tmp/log")"
# compare's JSON in a layout the script cannot read: no verdict (exit 2), never a silent pass.
FAKE_REINDENT=1 FAKE_BASE=$fixtures/sweep-base.json run "$fixtures/sweep-base.json" "$fixtures/sweep-slow.json"
[ $rc = 2 ] && grep -q "says REGRESSION but names no count or verification this script can read" "$tmp/log" || fail "an unreadable comparison: exit $rc: $(grep 'gpu-regression' "$tmp/log")"
# Only one of the two NEW sweeps is slow: noise, no regression.
FAKE_BASE=$fixtures/sweep-base.json FAKE_SWEEP2=$fixtures/sweep-base.json \
  run "$fixtures/sweep-base.json" "$fixtures/sweep-slow.json"
[ $rc = 0 ] || fail "one slow sweep of two: exit $rc, expected 0: $(cat "$tmp/log")"
grep -q "confirmation exits 1, 0" "$tmp/log" || fail "one slow sweep of two: $(cat "$tmp/log")"
# Both NEW sweeps regress, but not at one count or in one way: no regression confirmed.
FAKE_BASE=$fixtures/sweep-base.json FAKE_SWEEP2=$fixtures/sweep-verify.json \
  run "$fixtures/sweep-base.json" "$fixtures/sweep-slow.json"
[ $rc = 0 ] || fail "two sweeps regressing differently: exit $rc, expected 0: $(cat "$tmp/log")"
grep -q "confirmation exits 1, 1, none in both" "$tmp/log" || fail "two sweeps regressing differently: $(grep 'gpu-regression: exit' "$tmp/log")"
# A verification regression in both: confirmed.
FAKE_BASE=$fixtures/sweep-base.json run "$fixtures/sweep-base.json" "$fixtures/sweep-verify.json"
[ $rc = 1 ] && grep -q "confirmed by both sweeps: verification; markdown in" "$tmp/log" || fail "a verification regression: exit $rc: $(grep 'gpu-regression: exit' "$tmp/log")"
# The screen passes on a machine that differs from the baseline's: confirmed too (a change may hide).
with_figures() {  # FROM TO EMPTY_KERNEL_US: a copy with the machine's figures
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["context"]["figures"]={"copy_ceiling_tb_s":4.2,"empty_kernel_us":float(sys.argv[3])}; json.dump(d,open(sys.argv[2],"w"))' "$@"
}
with_figures "$fixtures/sweep-base.json" "$tmp/base-627.json" 0.627
with_figures "$fixtures/sweep-base.json" "$tmp/new-632.json" 0.632
with_figures "$fixtures/sweep-base.json" "$tmp/new-662.json" 0.662
FAKE_BASE=$tmp/new-662.json run "$tmp/base-627.json" "$tmp/new-632.json"
[ $rc = 0 ] || fail "a machine alike: exit $rc: $(cat "$tmp/log")"
[ ! -e "$tmp/base-swept" ] || fail "a machine alike and no regression: confirmed anyway"
FAKE_BASE=$tmp/new-662.json run "$tmp/base-627.json" "$tmp/new-662.json"
[ $rc = 0 ] || fail "a machine that differs: exit $rc: $(cat "$tmp/log")"
grep -q "because this runner's machine differs from the baseline's" "$tmp/log" || fail "a machine that differs: not confirmed: $(cat "$tmp/log")"
# KK3_CONFIRM=always confirms a passing screen.
KK3_CONFIRM=always FAKE_BASE=$fixtures/sweep-base.json run "$fixtures/sweep-base.json" "$fixtures/sweep-base.json"
[ $rc = 0 ] && [ -e "$tmp/base-swept" ] || fail "KK3_CONFIRM=always: exit $rc, base swept: $(ls "$tmp")"
KK3_CONFIRM=sometimes run "$fixtures/sweep-base.json" "$fixtures/sweep-base.json"
[ $rc = 2 ] && grep -q "KK3_CONFIRM=sometimes: expected auto, always or never" "$tmp/log" || fail "a bad KK3_CONFIRM: exit $rc: $(cat "$tmp/log")"
# No base build: a baseline of a dirty tree names no revision to build; the screen stands, said so.
sed 's/"git_revision": "3d9d0f28690b"/"git_revision": "3d9d0f28690b-dirty"/' "$fixtures/sweep-base.json" >"$tmp/dirty.json"
KK3_BASE_KK3TUNE='' run "$tmp/dirty.json" "$fixtures/sweep-slow.json"
[ $rc = 1 ] || fail "no base build: exit $rc, expected the screen's 1"
grep -q "no base build: the baseline names no clean revision (3d9d0f28690b-dirty); set KK3_BASE_KK3TUNE or KK3_BASE_REF. The screen's verdict (exit 1) stands unconfirmed" "$tmp/log" || fail "no base build: $(cat "$tmp/log")"
KK3_BASE_KK3TUNE='' KK3_BASE_REF=0123456789abcdef0123456789abcdef01234567 run "$fixtures/sweep-base.json" "$fixtures/sweep-slow.json"
[ $rc = 2 ] && grep -q "base revision 0123456789abcdef0123456789abcdef01234567 is not in this repository" "$tmp/log" || fail "an unknown base revision: exit $rc: $(cat "$tmp/log")"
KK3_BASE_KK3TUNE=$tmp/missing run "$fixtures/sweep-base.json" "$fixtures/sweep-slow.json"
[ $rc = 2 ] && grep -q "the base build $tmp/missing is not an executable" "$tmp/log" || fail "a missing base binary: exit $rc"
echo "ci/gpu-regression.sh: exit codes 0/1/2/3, the job summary and the confirmation on the runner hold"
