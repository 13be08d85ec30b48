#!/usr/bin/env bash
# The timed shard check of issue 15, on a GPU: the plan PLAN swept whole and in shards 1/2+2/2 and
# 1/3..3/3 (one seed, one compile cache), each into OUTDIR. Then, where `kk3tune merge` can: each
# shard set merged and its dispatch tables checked against the whole sweep's within the tie rule
# (tests/ci/tables_within_tie.py). Prints a line per run and per check; exits non-zero on any failure.
# usage: tests/ci/shards_gpu.sh KK3TUNE PLAN OUTDIR
set -uo pipefail
kk3=${1:?usage: shards_gpu.sh KK3TUNE PLAN OUTDIR}
plan=${2:?plan}
out=${3:?outdir}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
status=0
run() {  # NAME ARGS...: one sweep, its wall time and exit code
  local name=$1; shift
  local s=$SECONDS
  "$kk3" sweep --config "$plan" --seed 20261201 --out "$out/$name.json" "$@" >"$out/$name.log" 2>&1
  local rc=$?
  echo "sweep $name: rc=$rc, $((SECONDS - s)) s: $(tail -1 "$out/$name.log")"
  [[ $rc == 0 ]] || status=1
}
run whole
for n in 2 3; do
  for ((i = 1; i <= n; ++i)); do run "shard-$i-of-$n" --shard "$i/$n"; done
done
if "$kk3" --help 2>/dev/null | grep -qw merge; then
  for n in 2 3; do
    files=()
    for ((i = 1; i <= n; ++i)); do files+=("$out/shard-$i-of-$n.json"); done
    if "$kk3" merge "${files[@]}" --out "$out/merged-$n.json" >"$out/merge-$n.log" 2>&1; then
      python3 "$here/tables_within_tie.py" "$out/whole.json" "$out/merged-$n.json" || status=1
    else
      echo "merge of $n shards failed: $(tail -1 "$out/merge-$n.log")"; status=1
    fi
  done
else
  echo "kk3tune merge: not in this build; merge and compare later"
fi
exit $status
