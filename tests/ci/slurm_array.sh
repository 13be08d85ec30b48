#!/usr/bin/env bash
# CTest test (label unit; no GPU, needs root): scripts/slurm/submit-sweep.sh on a real Slurm. It
# starts a single-node cluster here (munged as the munge user with a fresh key, slurmctld and
# slurmd on localhost, free ports; config, state, spool, logs and pid files all in one temp dir),
# then, in compile-only mode, on ci/short-plan.json for sm_90a with one compile cache:
#   - an unsharded sweep (run directly), the reference;
#   - the job array for 2 and for 3 shards and its merge job: each merged file must equal the
#     unsharded one record for record (without context.argv, context.utc_time, plan.wall_s,
#     plan.shard, plan.merged_from), and every compile of the array must hit the cache;
#   - a GPU-mode submission (no GPU visible): its tasks exit 3, which must fail them and cancel
#     the merge; a merge that fails must fail the submission (--wait).
# Every daemon it started is stopped on exit. Slurm or munge missing or not starting is a failure;
# KK3_SKIP_SLURM=1 skips the test (exit 77). Packages: slurm-wlm, munge (scripts/install-deps --tests).
# Usage: slurm_array.sh KK3TUNE SOURCE_DIR
set -uo pipefail
kk3=$1 source=$2
plan=$source/ci/short-plan.json
submit=$source/scripts/slurm/submit-sweep.sh
skip_code=77
started=$(date +%s)
tmp=
fail() {
  echo "FAIL: $*"
  if [ -n "$tmp" ] && [ -d "$tmp/slurm/log" ]; then
    for f in "$tmp"/munge/munged.log "$tmp"/slurm/log/*.log; do
      [ -f "$f" ] && { echo "--- last lines of $f"; tail -n 15 "$f"; }
    done
  fi
  exit 1
}

if [ "${KK3_SKIP_SLURM:-0}" = 1 ]; then
  echo "SKIPPED: KK3_SKIP_SLURM=1: the Slurm job array test does not run here"
  exit $skip_code
fi
hint="(scripts/install-deps --tests installs slurm-wlm and munge; KK3_SKIP_SLURM=1 skips this test)"
[ "$(id -u)" = 0 ] || fail "this test starts munged as the munge user and slurmd as root, so it runs as root (CI does) $hint"
missing=()
for b in munged mungekey munge unmunge slurmctld slurmd sbatch scontrol sinfo squeue scancel setpriv python3; do
  command -v "$b" >/dev/null || missing+=("$b")
done
[ ${#missing[@]} -eq 0 ] || fail "not installed: ${missing[*]} $hint"
id munge >/dev/null 2>&1 || fail "no munge user (the munge package creates it) $hint"
[ -x "$kk3" ] || fail "no kk3tune at $kk3"

# Nothing of the caller's Slurm (a real cluster's SLURM_CONF, SBATCH_PARTITION, a job's SLURM_*)
# reaches the commands here.
for v in $(compgen -e | grep -E '^(SLURM|SBATCH|SALLOC|SRUN)_'); do unset "$v"; done
unset KK3TUNE KK3_COMPILE_ONLY KK3_GRES KK3_SBATCH_ARGS KK3_SWEEP_SBATCH_ARGS KK3_MERGE_SBATCH_ARGS KK3_MAX_PARALLEL
export CUDA_VISIBLE_DEVICES=  # no GPU, also on a machine with one: every sweep here is untimed
base=${TMPDIR:-/tmp}
as_munge=(setpriv --reuid=munge --regid=munge --init-groups)
if ! "${as_munge[@]}" test -x "$base"; then  # munged (the munge user) must reach its socket folder
  echo "note: the munge user cannot reach TMPDIR=$base; using /tmp"
  base=/tmp
fi
# Daemons carry KK3_SLURM_TEST=<their temp dir> in their environment: this run and a later one
# find them (and only them) by it.
ours() {  # DIR -> the pids of processes started for DIR, other than this shell
  local p
  for p in /proc/[0-9]*; do
    p=${p#/proc/}
    [ "$p" = $$ ] && continue
    tr "\\0" "\\n" 2>/dev/null <"/proc/$p/environ" | grep -qxF "KK3_SLURM_TEST=$1" && echo "$p"
  done
}
stop_all() {  # DIR: TERM, then KILL, everything started for DIR
  local dir=$1 pids i
  pids=$(ours "$dir")
  [ -n "$pids" ] || return 0
  # shellcheck disable=SC2086  # a list of pids
  kill $pids 2>/dev/null
  for i in $(seq 50); do
    pids=$(ours "$dir"); [ -n "$pids" ] || return 0
    sleep 0.2
  done
  echo "killing what did not end on SIGTERM: ${pids//$'\n'/ }"
  # shellcheck disable=SC2086
  kill -9 $pids 2>/dev/null
  sleep 0.5
  pids=$(ours "$dir"); [ -z "$pids" ] || { echo "still running: $pids"; return 1; }
}
# Stale state: a run killed before its trap (kill -9, a lost container) leaves its temp dir and
# maybe daemons; those of a run whose test shell is gone are stopped and removed.
for old in "$base"/kk3-slurm.*; do
  [ -d "$old" ] || continue
  owner=$(cat "$old/owner.pid" 2>/dev/null)
  if [ -n "$owner" ] && [ -d "/proc/$owner" ] && grep -q slurm_array "/proc/$owner/cmdline" 2>/dev/null; then
    continue  # a run in progress
  fi
  echo "removing the stale $old of an earlier run"
  stop_all "$old"
  rm -rf "$old"
done

tmp=$(mktemp -d "$base/kk3-slurm.XXXXXX") || fail "cannot create a temp dir in $base"
echo $$ >"$tmp/owner.pid"
chmod 755 "$tmp"  # munged (the munge user) must reach its socket folder
cleanup() {
  local rc=$?
  if [ -n "${SLURM_CONF:-}" ] && [ -n "$(ours "$tmp")" ]; then  # our slurm.conf (set below)
    scancel --partition=ci >/dev/null 2>&1  # no job outlives the test
    for _ in $(seq 25); do [ -z "$(squeue -h 2>/dev/null)" ] && break; sleep 0.2; done
  fi
  stop_all "$tmp" || rc=1
  if [ "${KK3_KEEP_SLURM_DIR:-0}" = 1 ]; then echo "kept $tmp"; else rm -rf "$tmp"; fi
  echo "slurm_array.sh: $(( $(date +%s) - started )) s"
  exit $rc
}
trap cleanup EXIT
trap 'exit 143' TERM INT HUP

# --- munge: a fresh key, the daemon as the munge user on a socket of its own.
mkdir -p "$tmp/munge"
chown munge:munge "$tmp/munge"
chmod 755 "$tmp/munge"
"${as_munge[@]}" mungekey --create --keyfile="$tmp/munge/munge.key" || fail "mungekey could not create a key"
sock=$tmp/munge/munge.socket
KK3_SLURM_TEST=$tmp "${as_munge[@]}" munged --foreground --key-file="$tmp/munge/munge.key" --socket="$sock" \
  --pid-file="$tmp/munge/munged.pid" --log-file="$tmp/munge/munged.log" --seed-file="$tmp/munge/munged.seed" \
  >"$tmp/munge/munged.out" 2>&1 &
for _ in $(seq 50); do [ -S "$sock" ] && break; sleep 0.1; done
[ -S "$sock" ] || fail "munged did not start: $(tail -3 "$tmp/munge/munged.out")"
munge -n -S "$sock" | unmunge -S "$sock" >/dev/null || fail "munge cannot encode and decode a credential"

# --- Slurm: one node (this host, its CPUs and memory), one partition, free ports.
node=$(hostname -s)
read -r ctld_port slurmd_port < <(python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')
mem=$(awk '/^MemTotal/ {print int($2 / 1024 * 0.9)}' /proc/meminfo)
mkdir -p "$tmp/slurm/state" "$tmp/slurm/spool" "$tmp/slurm/log"
export SLURM_CONF=$tmp/slurm/slurm.conf
cat >"$SLURM_CONF" <<CONF
ClusterName=kk3ci
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$sock
StateSaveLocation=$tmp/slurm/state
SlurmdSpoolDir=$tmp/slurm/spool
SlurmctldPidFile=$tmp/slurm/slurmctld.pid
SlurmdPidFile=$tmp/slurm/slurmd.pid
SlurmctldLogFile=$tmp/slurm/log/slurmctld.log
SlurmdLogFile=$tmp/slurm/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
SlurmdParameters=config_overrides
ReturnToService=2
MailProg=/bin/true
MinJobAge=600
NodeName=$node NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=$mem State=UNKNOWN
PartitionName=ci Nodes=$node Default=YES MaxTime=INFINITE State=UP
CONF
KK3_SLURM_TEST=$tmp slurmctld -D -i -f "$SLURM_CONF" >"$tmp/slurm/log/slurmctld.out" 2>&1 &
KK3_SLURM_TEST=$tmp slurmd -D -f "$SLURM_CONF" -N "$node" >"$tmp/slurm/log/slurmd.out" 2>&1 &
state=
for _ in $(seq 120); do
  state=$(sinfo -h -n "$node" -o %T 2>/dev/null)
  [ "$state" = idle ] && break
  sleep 0.5
done
[ "$state" = idle ] || fail "the Slurm node did not come up idle within 60 s (state '${state:-no answer}'): $(scontrol show node "$node" 2>&1 | grep -i reason)"
echo "Slurm up: node $node ($(nproc) CPUs), ports $ctld_port/$slurmd_port, in $tmp ($(( $(date +%s) - started )) s)"

# --- The reference: one unsharded compile-only sweep, which also fills the compile cache.
cache=$tmp/cache
flags=(--arch sm_90a --cache-dir "$cache")
"$kk3" sweep --config "$plan" "${flags[@]}" --out "$tmp/whole.json" >"$tmp/whole.log" 2>&1
rc=$?
[ $rc = 3 ] || fail "the unsharded sweep: exit $rc, expected 3 (no GPU): $(tail -3 "$tmp/whole.log")"
cache_files() { find "$cache" -type f | wc -l; }
cached=$(cache_files)

# submit-sweep.sh --wait, at most 120 s: a job that never runs (a drained node, a dependency that
# hangs) fails the test with the queue's view instead of running into CTest's timeout.
submit() {  # LOG ARGS...: exit code in $rc
  local log=$1
  shift
  KK3_SLURM_TEST=$tmp KK3_POLL_S=1 timeout 120 "$submit" "$@" >"$log" 2>&1
  rc=$?
  if [ $rc = 124 ]; then
    fail "submit-sweep.sh $* did not end within 120 s: $(cat "$log")
$(squeue -o '%i %j %T %r' 2>&1)
$(scontrol show node "$node" 2>&1 | grep -iE 'state|reason')"
  fi
}

compare() {  # WHOLE MERGED SHARD_COUNT SHARD_FILES...
  python3 - "$@" <<'PY'
import json, sys
whole_file, merged_file, count, shard_files = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
whole, merged = (json.load(open(f)) for f in (whole_file, merged_file))
shards = [json.load(open(f)) for f in shard_files]
def bad(msg): sys.exit(f"{merged_file}: {msg}")
items = whole["plan"]["items"]
covered = []
for i, s in enumerate(shards, 1):
    sh = s["plan"].get("shard")
    if not sh or sh["index"] != i or sh["count"] != count:
        bad(f"shard file {i}: plan.shard is {sh}, expected index {i} of {count}")
    if s["plan"]["items"] != items or s["plan"]["digest"] != whole["plan"]["digest"]:
        bad(f"shard file {i}: another plan (items or digest) than the unsharded sweep's")
    covered += sh["items"]
if sorted(covered) != list(range(len(items))):
    bad(f"the shards cover items {sorted(covered)} of {len(items)}")
if merged["plan"].get("shard") is not None:
    bad(f"plan.shard is {merged['plan']['shard']}, expected null")
if len(merged["plan"].get("merged_from", [])) != count:
    bad(f"plan.merged_from has {len(merged['plan'].get('merged_from', []))} entries, expected {count}")
def strip(d):
    d = json.loads(json.dumps(d))
    for k in ("argv", "utc_time"): d["context"].pop(k, None)
    for k in ("wall_s", "shard", "merged_from"): d["plan"].pop(k, None)
    return d
a, b = strip(whole), strip(merged)
if len(a["records"]) != len(b["records"]):
    bad(f"{len(b['records'])} records, the unsharded sweep has {len(a['records'])}")
for n, (x, y) in enumerate(zip(a["records"], b["records"])):
    if x != y:
        bad(f"record {n} differs:\n  unsharded {json.dumps(x)}\n  merged    {json.dumps(y)}")
for key in sorted(set(a) | set(b)):
    if key == "records": continue
    if isinstance(a.get(key), dict) and isinstance(b.get(key), dict):
        for k in sorted(set(a[key]) | set(b[key])):
            if a[key].get(k) != b[key].get(k):
                bad(f"{key}.{k} differs: unsharded {a[key].get(k)!r}, merged {b[key].get(k)!r}")
    elif a.get(key) != b.get(key):
        bad(f"{key} differs: unsharded {a.get(key)!r}, merged {b.get(key)!r}")
print(f"{merged_file}: {len(b['records'])} records, {b['plan']['compiles']} compiles, {len(items)} items"
      f" in {count} shards: equal to the unsharded sweep")
PY
}

# --- The job array, compile-only, for 2 and 3 shards.
for n in 2 3; do
  out=$tmp/run$n
  KK3TUNE=$kk3 submit "$tmp/submit$n.log" --compile-only --wait "$plan" "$out" "$n" "${flags[@]}"
  cat "$tmp/submit$n.log"
  [ $rc = 0 ] || fail "$n shards: submit-sweep.sh --wait exited $rc; logs: $(tail -n 20 "$out"/logs/*.out 2>&1)"
  logs=$(find "$out/logs" -name "sweep-*_*.out" | wc -l)
  [ "$logs" = "$n" ] || fail "$n shards: $logs task logs in $out/logs, expected one per task"
  grep -q "no dispatch headers to emit" "$out"/logs/merge-*.out || fail "$n shards: the merge job's log does not say that compile-only emits nothing"
  files=()
  for ((i = 1; i <= n; i++)); do files+=("$out/shard-$i.json"); done
  compare "$tmp/whole.json" "$out/merged.json" "$n" "${files[@]}" || fail "$n shards: the merged file is not the unsharded sweep's"
done
[ "$(cache_files)" = "$cached" ] || fail "the array's compiles missed the cache ($cached files before, $(cache_files) after)"

# --- A GPU-mode submission on a node without a GPU: exit 3 fails the tasks, the merge never runs.
out=$tmp/gpu
KK3TUNE=$kk3 KK3_GRES='' submit "$tmp/submit-gpu.log" --wait "$plan" "$out" 2 "${flags[@]}"
[ $rc = 1 ] || fail "a GPU sweep without a GPU: submit-sweep.sh --wait exited $rc, expected 1: $(cat "$tmp/submit-gpu.log")"
grep -q "merge job [0-9]*: CANCELLED" "$tmp/submit-gpu.log" || fail "a GPU sweep without a GPU: the merge job was not cancelled: $(cat "$tmp/submit-gpu.log")"
grep -q "sweep task 1: FAILED ExitCode=3:0" "$tmp/submit-gpu.log" || fail "a GPU sweep without a GPU: task 1 is not reported failed with exit 3: $(cat "$tmp/submit-gpu.log")"
[ ! -e "$out/merged.json" ] || fail "a GPU sweep without a GPU: there is a merged file"
grep -q "a GPU sweep fails here" "$out"/logs/sweep-*_1.out || fail "a GPU sweep without a GPU: task 1's log does not say why it failed"
echo "GPU mode without a GPU: the tasks failed with exit 3 and the merge job was cancelled"

# --- A merge that fails fails the submission.
cat >"$tmp/kk3-badmerge" <<STUB
#!/usr/bin/env bash
[ "\$1" = merge ] && { echo "stand-in: merge refuses" >&2; exit 2; }
exec "$kk3" "\$@"
STUB
chmod +x "$tmp/kk3-badmerge"
out=$tmp/badmerge
KK3TUNE=$tmp/kk3-badmerge submit "$tmp/submit-bad.log" --compile-only --wait "$plan" "$out" 2 "${flags[@]}"
if [ $rc != 1 ] || ! grep -q "merge job [0-9]*: FAILED" "$tmp/submit-bad.log"; then
  fail "a failing merge: submit-sweep.sh --wait exited $rc, expected 1 and a FAILED merge job: $(cat "$tmp/submit-bad.log")"
fi
echo "a failing merge job fails the submission"
echo "slurm_array.sh: the job array (2 and 3 shards), its merge and its exit codes hold"
