#!/usr/bin/env bash
# The --gpus acceptance of issue 15: a sweep plan (default: configs/default.json) swept cold on
# one GPU (`--gpus 0`) and then cold on GPUS (default `all`), one seed, a fresh compile cache
# each; the wall times, their ratio (goal: at most 0.6 on two GPUs) and the tables of the second
# against the first within the tie rule (tests/ci/tables_within_tie.py). Writes OUTDIR/one.json,
# OUTDIR/many.json, their logs and OUTDIR/scaling.json; prints a short table last. Exit 0 when
# both sweeps ran, the ratio is within GOAL (default 0.6) and no table differs beyond the tie band.
# usage: bench/gpus_scaling.sh KK3TUNE OUTDIR [PLAN] [GPUS] [GOAL]
set -uo pipefail
kk3=${1:?usage: gpus_scaling.sh KK3TUNE OUTDIR [PLAN] [GPUS] [GOAL]}
out=${2:?outdir}
here=$(cd "$(dirname "$0")/.." && pwd)
plan=${3:-$here/configs/default.json}
gpus=${4:-all}
goal=${5:-0.6}
mkdir -p "$out"
run() {  # NAME GPUS: a cold sweep; prints its wall seconds
  local name=$1 list=$2
  rm -rf "$out/cache-$name"
  local start end rc=0
  start=$(date +%s.%N)
  "$kk3" sweep --config "$plan" --gpus "$list" --seed 20261201 --cache-dir "$out/cache-$name" \
    --out "$out/$name.json" >"$out/$name.log" 2>&1 || rc=$?
  end=$(date +%s.%N)
  rm -rf "$out/cache-$name"
  echo "$rc $(python3 -c "print(f'{$end - $start:.1f}')")"
}
read -r rc1 wall1 < <(run one 0)
read -r rc2 wall2 < <(run many "$gpus")
tie=$(python3 "$here/tests/ci/tables_within_tie.py" "$out/one.json" "$out/many.json" 2>&1)
tie_rc=$?
python3 - "$out" "$wall1" "$wall2" "$rc1" "$rc2" "$tie_rc" "$goal" "$gpus" "$plan" "$tie" <<'PY'
import json, sys
out, w1, w2, rc1, rc2, tie_rc, goal, gpus, plan, tie = sys.argv[1:]
w1, w2, goal = float(w1), float(w2), float(goal)
def workers(name):
    try:
        doc = json.load(open(f"{out}/{name}.json"))
        return len(doc["plan"].get("merged_from", [])) or 1, doc["context"]["gpu"]["name"]
    except Exception as e:  # noqa: BLE001 (a failed sweep has no file)
        return 0, f"no result ({e.__class__.__name__})"
(n1, gpu), (n2, _) = workers("one"), workers("many")
ratio = w2 / w1 if w1 > 0 else float("inf")
ok = rc1 == "0" and rc2 == "0" and tie_rc == "0" and ratio <= goal
summary = {"plan": plan, "gpus": gpus, "gpu": gpu, "one_gpu": {"wall_s": w1, "exit": int(rc1), "workers": n1},
           "many_gpus": {"wall_s": w2, "exit": int(rc2), "workers": n2}, "ratio": round(ratio, 3), "goal": goal,
           "tables": tie.strip().splitlines()[-1] if tie.strip() else "", "tables_within_tie": tie_rc == "0", "pass": ok}
json.dump(summary, open(f"{out}/scaling.json", "w"), indent=2)
print(tie.strip())
print(f"{'run':<10} {'workers':>7} {'wall s':>8} {'exit':>4}")
print(f"{'--gpus 0':<10} {n1:>7} {w1:>8.1f} {rc1:>4}")
print(f"{'--gpus ' + gpus:<10} {n2:>7} {w2:>8.1f} {rc2:>4}")
print(f"ratio {ratio:.3f} (goal <= {goal}); tables within the tie rule: {tie_rc == '0'} -> {'PASS' if ok else 'FAIL'}")
sys.exit(0 if ok else 1)
PY
