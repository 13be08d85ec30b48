#!/usr/bin/env bash
# Submits a sharded kk3tune sweep to Slurm: a job array with one task per shard
# (sweep-shard.sbatch: `kk3tune sweep --config PLAN --shard I/N --out OUTDIR/shard-I.json ...`) and a
# job that depends on the whole array (merge.sbatch: `kk3tune merge` of the shard files into
# OUTDIR/merged.json, then `kk3tune emit` of it into OUTDIR/include). See scripts/slurm/README.md.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)

usage() {
  cat <<USAGE
Usage: scripts/slurm/submit-sweep.sh [--compile-only] [--wait] PLAN OUTDIR SHARDS [SWEEP FLAGS...]

  PLAN          the sweep plan (kk3tune sweep --config PLAN)
  OUTDIR        result folder on a file system that every node sees; it must not hold the
                results of an earlier submission. Gets shard-I.json (I = 1..SHARDS),
                merged.json, include/ (the dispatch headers) and logs/ (one log per task)
  SHARDS        number of array tasks (kk3tune sweep --shard I/SHARDS)
  SWEEP FLAGS   passed to every \`kk3tune sweep\`, e.g. --arch sm_90a --cache-dir DIR --seed 1

  --compile-only  no GPU: the tasks request no GPU and see none (CUDA_VISIBLE_DEVICES=), each
                  sweep compiles its items and writes an untimed result, and its exit code 3
                  (no GPU) counts as success; the merge job merges and emits nothing. Without
                  it a sweep that exits 3 (e.g. no GPU on the node) fails its task, and the merge
                  job is cancelled. Also KK3_COMPILE_ONLY=1.
  --wait          wait for the merge job; exit 0 only when it completed (else 1, naming the
                  failed tasks and their logs)

Environment:
  KK3TUNE                kk3tune binary, on a shared file system (default: kk3tune on PATH, else
                         $repo/build/kk3tune)
  KK3_GRES               GPU request of each sweep task without --compile-only (default gpu:1,
                         e.g. gpu:h200:1; empty: none)
  KK3_SBATCH_ARGS        extra sbatch options for both jobs (e.g. "--partition=gpu --account=kk3
                         --time=02:00:00"), split at blanks
  KK3_SWEEP_SBATCH_ARGS  extra sbatch options for the array only (e.g. "--constraint=h200")
  KK3_MERGE_SBATCH_ARGS  extra sbatch options for the merge job only
  KK3_MAX_PARALLEL       at most this many tasks at once (--array=1-N%M)
  KK3_POLL_S             --wait's polling interval in seconds (default 10)
USAGE
}

compile_only=${KK3_COMPILE_ONLY:-0} wait=0
while [ $# -gt 0 ]; do
  case $1 in
    --compile-only) compile_only=1; shift ;;
    --wait) wait=1; shift ;;
    -h|--help) usage; exit 0 ;;
    --) shift; break ;;
    -*) echo "submit-sweep.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
    *) break ;;
  esac
done
[ "$compile_only" = 0 ] || compile_only=1
if [ $# -lt 3 ]; then usage >&2; exit 2; fi
plan=$1 outdir=$2 shards=$3
shift 3
die() { echo "submit-sweep.sh: $*" >&2; exit 2; }

[[ $shards =~ ^[1-9][0-9]*$ ]] || die "SHARDS must be a positive integer, not '$shards'"
[ -f "$plan" ] || die "no plan file $plan"
plan=$(realpath "$plan")
kk3=${KK3TUNE:-$(command -v kk3tune || echo "$repo/build/kk3tune")}
[ -x "$kk3" ] || die "no kk3tune binary at $kk3 (set KK3TUNE)"
kk3=$(realpath "$kk3")
command -v sbatch >/dev/null || die "sbatch not found: run this on a Slurm login node"
mkdir -p "$outdir"
outdir=$(realpath "$outdir")
shopt -s nullglob
stale=("$outdir"/shard-*.json* "$outdir"/merged.json* "$outdir"/includ[e])
shopt -u nullglob
[ ${#stale[@]} -eq 0 ] || die "$outdir holds the results of an earlier submission (${stale[0]} ...): use a new OUTDIR or remove them"
mkdir -p "$outdir/logs"

read -r -a common <<<"${KK3_SBATCH_ARGS:-}"
read -r -a sweep_extra <<<"${KK3_SWEEP_SBATCH_ARGS:-}"
read -r -a merge_extra <<<"${KK3_MERGE_SBATCH_ARGS:-}"
gres=()
[ "$compile_only" = 1 ] || [ -z "${KK3_GRES-gpu:1}" ] || gres=(--gres="${KK3_GRES-gpu:1}")
range=1-$shards
[ -z "${KK3_MAX_PARALLEL:-}" ] || range+=%$KK3_MAX_PARALLEL

# The batch scripts get everything as arguments: Slurm runs a copy of them from its spool folder.
array=$(sbatch --parsable --job-name=kk3-sweep --array="$range" --requeue \
  --output="$outdir/logs/sweep-%A_%a.out" "${gres[@]}" "${common[@]}" "${sweep_extra[@]}" \
  "$here/sweep-shard.sbatch" "$kk3" "$plan" "$outdir" "$shards" "$compile_only" "$@") \
  || die "sbatch could not submit the sweep array (its message is above)"
array=${array%%;*}
merge=$(sbatch --parsable --job-name=kk3-merge --dependency="afterok:$array" --kill-on-invalid-dep=yes \
  --output="$outdir/logs/merge-%j.out" "${common[@]}" "${merge_extra[@]}" \
  "$here/merge.sbatch" "$kk3" "$outdir" "$shards" "$compile_only") || {
  scancel "$array" || true
  die "the merge job could not be submitted; cancelled the sweep array $array"
}
merge=${merge%%;*}
mode=GPU; [ "$compile_only" = 0 ] || mode=compile-only
echo "submitted: sweep array $array ($shards tasks, $mode), merge job $merge (after all of them)"
echo "  results: $outdir/shard-I.json, $outdir/merged.json; headers: $outdir/include; logs: $outdir/logs"
[ "$wait" = 1 ] || exit 0

# --wait: poll the merge job until it ends (sbatch --wait exits 0 for a job cancelled before it
# started, so its exit code does not say whether the merge ran).
job_state() {  # JOBID -> state word (COMPLETED, FAILED, CANCELLED, PENDING, ...) or empty
  local s
  s=$(scontrol -o show job "$1" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | head -1) || true
  s=${s#JobState=}
  if [ -z "$s" ] && command -v sacct >/dev/null; then  # purged from slurmctld (MinJobAge)
    s=$(sacct -n -X -P -j "$1" -o State 2>/dev/null | head -1) || true
    s=${s%% *}
  fi
  echo "$s"
}
unknown=0
while :; do
  state=$(job_state "$merge")
  case $state in
    PENDING|RUNNING|CONFIGURING|COMPLETING|REQUEUED|RESIZING|SUSPENDED) unknown=0 ;;
    "") unknown=$((unknown + 1))
        [ $unknown -lt 5 ] || { echo "submit-sweep.sh: Slurm no longer knows merge job $merge" >&2; exit 1; } ;;
    *) break ;;
  esac
  sleep "${KK3_POLL_S:-10}"
done
if [ "$state" = COMPLETED ]; then
  echo "merge job $merge: COMPLETED: $outdir/merged.json"
  exit 0
fi
echo "merge job $merge: $state" >&2
# Name the array tasks that did not complete, with their exit codes and logs.
scontrol -o show job "$array" 2>/dev/null | sort -t= -k2 | while read -r line; do
  task=$(grep -o 'ArrayTaskId=[^ ]*' <<<"$line") st=$(grep -o 'JobState=[^ ]*' <<<"$line")
  code=$(grep -o 'ExitCode=[^ ]*' <<<"$line")
  [ "$st" = JobState=COMPLETED ] && continue
  echo "  sweep task ${task#ArrayTaskId=}: ${st#JobState=} $code, log $outdir/logs/sweep-${array}_${task#ArrayTaskId=}.out" >&2
done
[ "$state" = CANCELLED ] || echo "  merge log: $outdir/logs/merge-$merge.out" >&2
exit 1
