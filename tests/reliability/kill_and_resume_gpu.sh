#!/usr/bin/env bash
# The GPU side of kill -9 and --resume (issue 8), run by hand on the GPU machine (results/):
# a timed sweep of the small plan is killed with SIGKILL (the supervisor; its worker follows)
# after its first measured count, then resumed. The resumed run must take every count the
# journal holds without measuring it again, finish every count, and leave no journal.
# Usage: kill_and_resume_gpu.sh KK3TUNE PLAN OUTDIR
set -uo pipefail
kk3=$1 plan=$2 out=$3
mkdir -p "$out"
fail() { echo "FAIL: $*"; exit 1; }
"$kk3" sweep --config "$plan" --out "$out/cut.json" --cache-dir "$out/cache" >"$out/cut.txt" 2>"$out/cut.err" &
pid=$!
for _ in $(seq 1200); do  # header, ceiling, then the first count
  [[ $(wc -l 2>/dev/null <"$out/cut.json.journal" || echo 0) -ge 4 ]] && break
  kill -0 $pid 2>/dev/null || fail "the sweep ended before it could be killed: $(tail -3 "$out/cut.err")"
  sleep 0.05
done
kill -9 $pid
wait $pid 2>/dev/null
sleep 1
pgrep -f -- "--out $out/cut.json" >/dev/null && fail "the worker outlived its killed supervisor"
counts=$(grep -c '"count"' "$out/cut.json.journal")
cp "$out/cut.json.journal" "$out/journal-at-kill.jsonl"
echo "killed with $counts count(s) in the journal"
"$kk3" sweep --config "$plan" --out "$out/cut.json" --cache-dir "$out/cache" --resume >"$out/resume.txt" 2>"$out/resume.err"
rc=$?
[[ $rc == 0 ]] || fail "the resumed sweep exited $rc: $(tail -3 "$out/resume.err")"
[[ ! -e $out/cut.json.journal ]] || fail "the journal is left behind"
python3 - "$out/journal-at-kill.jsonl" "$out/cut.json" <<'PY' || fail "the resumed result"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
doc = json.load(open(sys.argv[2]))
journaled = {}
for l in lines:
    if "count" in l:
        for r in l["records"]:
            journaled[(r["family"], r["mode"], r["tokens"], r["variant"])] = r
final = {(r["family"], r["mode"], r["tokens"], r["variant"]): r for r in doc["records"]}
for key, r in journaled.items():
    f = final.get(key)
    if f is None:
        sys.exit(f"{key}: journaled, missing from the result")
    if [round(x, 4) for x in r["samples_us"]] != f["samples_us"]:
        sys.exit(f"{key}: measured again (samples differ from the journal's)")
expected = {(f, m, t) for f, m in {(k[0], k[1]) for k in final} for t in doc["plan"]["tokens"]}
have = {(k[0], k[1], k[2]) for k in final}
if expected - have:
    sys.exit(f"counts missing: {sorted(expected - have)}")
print(f"{len(journaled)} journaled records kept as they were, {len(final)} records in all, every count present")
PY
