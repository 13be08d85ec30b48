#!/usr/bin/env bash
# CTest test (label gpu): `sweep --gpus` (issue 15). Several workers, one per listed GPU, pull the
# plan's work items and their parts are merged into --out: every item covered once, one seed, the
# parts and claims removed. One variant faults on purpose: its worker restarts without it and the
# other worker goes on. Then a run stopped by SIGTERM resumes (--resume) to the same items.
# On a one-GPU machine GPU 0 is named twice (the workers share it). Exits 77 without a GPU.
# Usage: gpus_gpu.sh KK3TUNE PLAN [GPUS]
set -uo pipefail
kk3=$1 plan=$2 gpus=${3:-}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kk3-gpus.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
bad_address=split3-unroll1-early_reads0-cache_wait1-rows_per_warp1-trigger_early0-threads128
if [[ -z $gpus ]]; then
  n=$(nvidia-smi -L 2>/dev/null | wc -l)
  [[ $n -ge 1 ]] || { echo "no GPU: skipped"; exit 77; }
  if [[ $n -ge 2 ]]; then gpus=all; else gpus=0,0; fi
fi

start=$SECONDS
"$kk3" sweep --config "$plan" --gpus "$gpus" --seed 7 --out "$tmp/gpus.json" --cache-dir "$tmp/cache" \
  --inject-fault "$bad_address=illegal_address" >"$tmp/out.txt" 2>"$tmp/err.txt"
rc=$?
if [[ $rc == 3 ]] && grep -q "no GPU" "$tmp/err.txt"; then echo "no GPU: skipped"; exit 77; fi
echo "--gpus $gpus: exit $rc after $((SECONDS - start)) s"
grep -E "restarting the worker|merged the parts" "$tmp/err.txt" "$tmp/out.txt"
[[ $rc == 1 ]] || fail "expected exit 1 (a variant failed), got $rc: $(tail -5 "$tmp/err.txt")"
leftover=$(ls "$tmp" | grep -E '\.gpu[0-9]+\.json|\.claims|\.journal' || true)
[[ -z $leftover ]] || fail "left behind: $leftover"
check() {  # FILE: every item once, from --gpus' workers, the faulting variant recorded
  python3 - "$1" "$bad_address" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
items = doc["plan"]["items"]
key = lambda d: "/".join([d["family"], d["mode"]] + [f"{k}={v}" for k, v in d["shape"].items()])
tables = [key(d) for d in doc["dispatch"]]
if tables != items:
    sys.exit(f"tables {tables} are not the plan's items {items} in order")
if doc["plan"]["shard"] is not None or len(doc["plan"].get("merged_from", [])) < 2:
    sys.exit(f"not a merge of the workers' parts: shard {doc['plan']['shard']}, merged_from {doc['plan'].get('merged_from')}")
seeds = {r["verification"]["seed"] for r in doc["records"] if r["verification"]}
if len(seeds) != 1:
    sys.exit(f"the workers drew different seeds: {seeds}")
failed = [r for r in doc["records"] if r["variant"] == sys.argv[2] and r["status"] == "launch_failed"]
if not failed:
    sys.exit("the faulting variant has no launch_failed record")
print(f"{len(items)} items, {len(doc['records'])} records, seed {seeds.pop()}, merged from {len(doc['plan']['merged_from'])} parts; "
      f"{sys.argv[2][:30]} launch_failed in {sorted({r['mode'] for r in failed})}")
PY
}
check "$tmp/gpus.json" || fail "the merged result"

# Stopped mid-way (SIGTERM reaches the workers through their supervisors), then resumed.
"$kk3" sweep --config "$plan" --gpus "$gpus" --seed 7 --out "$tmp/stop.json" --cache-dir "$tmp/cache" \
  --inject-fault "$bad_address=illegal_address" >"$tmp/stop-out.txt" 2>"$tmp/stop-err.txt" &
pid=$!
# Stop it once a worker has journaled its first count (SIGTERM: each worker ends after its count).
for ((i = 0; i < 600; ++i)); do
  grep -qs '"count"' "$tmp"/stop.json.gpu*.json.journal && break
  sleep 0.05
done
kill -TERM $pid
wait $pid
rc=$?
left=$(ls "$tmp" | grep -c 'stop.json.gpu[0-9]*.json.journal')
echo "stopped: exit $rc; $left journals left"
[[ $rc == 2 && $left -ge 1 ]] || fail "the sweep did not stop mid-way (exit $rc, $left journals): the resume would test nothing"
"$kk3" sweep --config "$plan" --gpus "$gpus" --seed 7 --out "$tmp/stop.json" --cache-dir "$tmp/cache" --resume \
  --inject-fault "$bad_address=illegal_address" >"$tmp/resume-out.txt" 2>"$tmp/resume-err.txt"
rc=$?
echo "resumed: exit $rc"
[[ $rc == 1 ]] || fail "the resumed sweep: exit $rc: $(tail -5 "$tmp/resume-err.txt")"
check "$tmp/stop.json" || fail "the resumed result"
