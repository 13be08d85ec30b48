#!/usr/bin/env bash
# CTest test (label gpu): a sweep in which one variant stores to an illegal address, one traps
# and one hangs still completes (issue 8). Each fault ends a worker process; the supervisor
# records the variant as launch_failed or timeout with the reason, restarts the worker, and the
# worker resumes from the journal without it. Exits 77 (skipped) without a GPU.
# Usage: faults_gpu.sh KK3TUNE PLAN
set -uo pipefail
kk3=$1 plan=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kk3-faults.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
bad_address=split3-unroll1-early_reads0-cache_wait1-rows_per_warp1-trigger_early0-threads128
hang=split2-unroll1-early_reads1-cache_wait1-rows_per_warp1-trigger_early0-threads128
trapping=b2-gpw1-nc0-stage0-unroll1-stages1-tpc1-trigger1

start=$SECONDS
"$kk3" sweep --config "$plan" --out "$tmp/faults.json" --cache-dir "$tmp/cache" --variant-timeout 5 \
  --inject-fault "$bad_address=illegal_address" --inject-fault "$hang=hang" --inject-fault "$trapping=trap" \
  >"$tmp/out.txt" 2>"$tmp/err.txt"
rc=$?
if [[ $rc == 3 ]] && grep -q "no GPU" "$tmp/err.txt"; then echo "no GPU: skipped"; exit 77; fi
echo "exit $rc after $((SECONDS - start)) s"
grep "restarting the worker" "$tmp/err.txt"
[[ $rc == 1 ]] || fail "expected exit 1 (variants failed), got $rc: $(tail -5 "$tmp/err.txt")"
[[ ! -e $tmp/faults.json.journal ]] || fail "the journal is left behind"
python3 - "$tmp/faults.json" "$bad_address" "$hang" "$trapping" <<'PY' || fail "the result file"
import json, sys
doc = json.load(open(sys.argv[1]))
bad_address, hang, trapping = sys.argv[2:5]
records = doc["records"]
def statuses(variant, mode):
    return {(r["status"], r["tokens"]) for r in records if r["variant"] == variant and r["mode"] == mode}
expect = [(bad_address, "bf16", "launch_failed", "illegal"), (bad_address, "fp8", "launch_failed", "illegal"),
          (hang, "bf16", "timeout", "--variant-timeout"), (hang, "fp8", "timeout", "--variant-timeout"),
          (trapping, "common_nb1", "launch_failed", "")]
for variant, mode, status, reason in expect:
    hits = [r for r in records if r["variant"] == variant and r["mode"] == mode and r["status"] == status]
    if not hits:
        sys.exit(f"{mode}/{variant}: no {status} record; has {statuses(variant, mode)}")
    if reason.lower() not in hits[0]["reason"].lower():
        sys.exit(f"{mode}/{variant}: reason {hits[0]['reason']!r} does not say {reason!r}")
    print(f"{mode:10} {variant[:40]:40} {status:13} T={hits[0]['tokens']}: {hits[0]['reason'][:90]}")
argv = doc["context"]["argv"]  # the command typed, not a restarted worker's (issue 25, item 5)
if any(a in ("--worker", "--gpu-worker", "--claims") for a in argv) or argv.count("--inject-fault") != 3:
    sys.exit(f"context.argv is not the command that was typed: {argv}")
faulty = {bad_address, hang, trapping}
tables = {(d["family"], d["mode"]) for d in doc["dispatch"]}
if tables != {("mla_decode_epilogue", "bf16"), ("mla_decode_epilogue", "fp8"), ("attn_res", "common_nb1")}:
    sys.exit(f"dispatch tables: {tables}")
for d in doc["dispatch"]:
    for r in d["ranges"]:
        if r["variant"] in faulty:
            sys.exit(f"a faulting variant won {d['mode']} T{r['min_tokens']}-{r['max_tokens']}")
ok = [r for r in records if r["status"] == "ok"]
if not ok:
    sys.exit("no record measured and verified")
print(f"{len(records)} records, {len(ok)} ok; every dispatch table selected among the others")
PY
