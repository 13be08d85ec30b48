#!/usr/bin/env bash
# The third family on a GPU (issue 15): expert_scale verified at the experts values it is asked
# for, timed with `time --shape experts=N`, swept with a plan of two experts values (whole, and
# in shards 1/2 + 2/2, merged), and its header emitted from the real sweep and compiled. Writes
# everything under OUTDIR; exits 77 without a GPU. KK3TUNE is the test-only kk3tune
# (build/test-families/bin/kk3tune-test-families), the only one that registers the test families.
# usage: tests/ci/third_family_gpu.sh KK3TUNE OUTDIR
set -uo pipefail
kk3=${1:?usage: third_family_gpu.sh KK3TUNE OUTDIR}
out=${2:-$(mktemp -d)}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
rc=0; "$kk3" time --family expert_scale >/dev/null 2>"$out/probe.txt" || rc=$?
if [[ $rc == 3 ]] && grep -qE "no GPU|no NVIDIA driver" "$out/probe.txt"; then echo "no GPU: skipped"; exit 77; fi
status=0
step() {  # NAME ARGS...: one kk3tune command, its exit code and last line
  local name=$1; shift
  local s=$SECONDS rc=0
  "$kk3" "$@" >"$out/$name.log" 2>&1 || rc=$?
  echo "$name: rc=$rc, $((SECONDS - s)) s: $(tail -1 "$out/$name.log")"
  [[ $rc == 0 ]] || status=1
}
cat >"$out/plan.json" <<'JSON'
{
  "families": {"expert_scale": {"modes": "all", "shapes": {"experts": [2, 8]}}},
  "tokens": [1, 8, 64, 512, 4096],
  "verify": {"tokens": [65]}
}
JSON
step verify verify --family expert_scale --shape experts=2,8 --tokens 1,65 --seed 7
step time time --family expert_scale --shape experts=8 --tokens 4096 --variant all --json "$out/time-E8-T4096.json"
step whole sweep --config "$out/plan.json" --seed 20261201 --out "$out/whole.json"
step shard-1 sweep --config "$out/plan.json" --seed 20261201 --shard 1/2 --out "$out/shard-1.json"
step shard-2 sweep --config "$out/plan.json" --seed 20261201 --shard 2/2 --out "$out/shard-2.json"
step merge merge "$out/shard-1.json" "$out/shard-2.json" --out "$out/merged.json"
# The merged shards hold the whole sweep's items and records (their timings are another run's:
# the tie check is printed, not required, for a toy kernel of ~1 us at small T).
python3 - "$out/whole.json" "$out/merged.json" <<'PY' || status=1
import json, sys
whole, merged = (json.load(open(p)) for p in sys.argv[1:])
key = lambda r: (r["family"], r["mode"], tuple(r["shape"].items()), r["tokens"], r["variant"])
assert merged["plan"]["items"] == whole["plan"]["items"], "items differ"
assert sorted(map(key, merged["records"])) == sorted(map(key, whole["records"])), "records differ"
assert [tuple(d["shape"].items()) for d in merged["dispatch"]] == [tuple(d["shape"].items()) for d in whole["dispatch"]]
print(f"merged shards: the whole sweep's {len(whole['plan']['items'])} items and {len(whole['records'])} records")
PY
python3 "$here/tables_within_tie.py" "$out/whole.json" "$out/merged.json" || echo "(tie check: information only)"
step emit emit "$out/whole.json" --out "$out/include"
cat >"$out/use.cpp" <<'CPP'
#include <kk3tune/dispatch/expert_scale.h>
#include <cstdio>
#include <initializer_list>
namespace d = kk3tune::dispatch::expert_scale;
int main() {
  static_assert(d::is_tuned(90), "the sm_90 tables come from the sweep");
  for (int e : {2, 8}) {
    for (long long t : {1LL, 64LL, 4096LL}) {
      const d::knobs k = d::select(d::mode::bf16, e, t);
      std::printf("experts=%d T=%lld: VEC=%d THREADS=%d ROWS=%d\n", e, t, k.VEC, k.THREADS, k.ROWS);
    }
  }
  return 0;
}
CPP
if ${CXX:-c++} -std=c++17 -Wall -Wextra -Werror -I"$out/include" "$out/use.cpp" -o "$out/use" 2>"$out/use.log"; then
  "$out/use" | tee "$out/use.txt"
else
  echo "the emitted expert_scale.h does not compile: $(head -3 "$out/use.log")"; status=1
fi
exit $status
