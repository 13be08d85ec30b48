#!/usr/bin/env bash
# CTest test (label unit, no GPU needed): a sweep killed with SIGKILL mid-way resumes from its
# journal and ends with the same result as an uninterrupted run (issue 8). Without a GPU the
# sweep compiles and checks the plan; its journal has one line per family/mode compiled.
# Usage: kill_and_resume.sh KK3TUNE PLAN
set -uo pipefail
kk3=$1 plan=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kk3-resume.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
fail() { echo "FAIL: $*"; exit 1; }

"$kk3" sweep --config "$plan" --out whole.json --no-cache >/dev/null 2>whole.err
[[ $? == 3 ]] || fail "the uninterrupted sweep did not exit 3 (no GPU): $(tail -2 whole.err)"
[[ ! -e whole.json.journal ]] || fail "the journal is left behind after a finished sweep"

"$kk3" sweep --config "$plan" --out cut.json --no-cache >/dev/null 2>cut.err &
pid=$!
for _ in $(seq 600); do  # at most 30 s for the first family/mode to finish
  [[ $(wc -l 2>/dev/null <cut.json.journal || echo 0) -ge 2 ]] && break
  kill -0 $pid 2>/dev/null || fail "the sweep ended before it could be killed"
  sleep 0.05
done
kill -9 $pid
wait $pid 2>/dev/null
units=$(($(wc -l <cut.json.journal) - 1))
[[ $units -ge 1 ]] || fail "no finished unit in the journal"
[[ ! -e cut.json ]] || fail "a killed sweep left a final file"
echo "killed after $units finished family/mode unit(s)"

"$kk3" sweep --config "$plan" --out cut.json --no-cache >/dev/null 2>again.err
rc=$?
[[ $rc == 2 ]] && grep -q -- "--resume" again.err || fail "a second start without --resume: exit $rc, $(cat again.err)"

"$kk3" sweep --config "$plan" --out cut.json --no-cache --resume >/dev/null 2>resume.err
[[ $? == 3 ]] || fail "the resumed sweep did not exit 3: $(tail -2 resume.err)"
grep -q "$units family/mode units from the journal" resume.err || fail "the resumed sweep did not take the finished units: $(head -2 resume.err)"
[[ ! -e cut.json.journal ]] || fail "the journal is left behind after the resumed sweep finished"
python3 - whole.json cut.json <<'PY' || fail "the resumed result differs from the uninterrupted one"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
for key in ("records", "families", "dispatch"):
    if a[key] != b[key]:
        sys.exit(f"{key} differ")
for key in ("compiles", "compile_failures", "timed", "tokens", "archs"):
    if a["plan"][key] != b["plan"][key]:
        sys.exit(f"plan/{key} differs: {a['plan'][key]} vs {b['plan'][key]}")
print(f"{len(a['records'])} records, {a['plan']['compiles']} compiles: the same after kill -9 and --resume")
PY
