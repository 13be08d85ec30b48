#!/usr/bin/env bash
# CTest test (label unit): ci/gpu-regression.sh without a GPU. A stand-in for kk3tune answers
# `sweep` by copying a committed compare fixture (tests/fixtures/compare) and passes everything
# else to the real binary, so the script's flow, exit codes and job summary are checked here.
# Usage: gpu_regression.sh KK3TUNE SOURCE_DIR
set -uo pipefail
kk3=$1 source=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kk3-ci.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fixtures=$source/tests/fixtures/compare
fail() { echo "FAIL: $*"; exit 1; }

# kk3tune stand-in: `sweep ... --out FILE` copies $FAKE_SWEEP to FILE and exits $FAKE_SWEEP_RC.
cat >"$tmp/kk3tune" <<STUB
#!/usr/bin/env bash
if [ "\$1" = sweep ]; then
  while [ \$# -gt 0 ]; do [ "\$1" = --out ] && out=\$2; shift; done
  [ "\${FAKE_SWEEP_RC:-0}" = 3 ] || cp "\$FAKE_SWEEP" "\$out"
  exit "\${FAKE_SWEEP_RC:-0}"
fi
exec "$kk3" "\$@"
STUB
chmod +x "$tmp/kk3tune"
run() {  # BASELINE FAKE_SWEEP [SWEEP_RC] -> exit code in $rc, output in $tmp/log
  KK3TUNE=$tmp/kk3tune KK3_CI_OUT=$tmp/out FAKE_SWEEP=$2 FAKE_SWEEP_RC=${3:-0} GITHUB_STEP_SUMMARY= \
    "$source/ci/gpu-regression.sh" "$1" >"$tmp/log" 2>&1
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
KK3TUNE=$tmp/kk3tune KK3_CI_OUT=$tmp/out FAKE_SWEEP=$fixtures/sweep-verify.json GITHUB_STEP_SUMMARY=$tmp/summary.md \
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
echo "ci/gpu-regression.sh: exit codes 0/1/2/3 and the job summary hold"
