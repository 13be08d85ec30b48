#!/usr/bin/env bash
# A third family with a new model dimension (issue 15), without a GPU: expert_scale, whose
# dimension "experts" no other family has, goes through the plan, compile-only sweep, shards,
# merge, compare, report and emit (from its sweep with tables added, as a GPU run would give
# them), and the header it gets compiles and selects by experts. Also checks that nothing outside
# the family's folder (tests/families/expert_scale: host side, kernel, config) and its
# registration line names it. KK3TUNE is the test-only kk3tune (build/test-families/bin/kk3tune-test-families),
# the only one that registers the test families.
# usage: tests/ci/third_family.sh KK3TUNE SOURCE_DIR
set -euo pipefail
kk3=${1:?usage: third_family.sh KK3TUNE SOURCE_DIR}
src=${2:?source dir}
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
# A compile-only sweep exits 3 (no GPU) after writing its result; anything else but 0 is a failure.
sweep() {  # OUT ARGS...
  local out=$1; shift
  local rc=0
  "$kk3" sweep --config "$w/plan.json" --arch sm_90a --cache-dir "$w/cache" --out "$w/$out.json" "$@" >"$w/$out.log" 2>&1 || rc=$?
  [[ ($rc == 0 || $rc == 3) && -s "$w/$out.json" ]] || fail "sweep $out (exit $rc): $(tail -2 "$w/$out.log")"
}

# 1. Only its own files know it: its folder (host side, kernel, config) and one registration line.
#    The product tree (src, kernels, configs, the CMake files) never names it; tests/CMakeLists.txt
#    picks tests/families/*/ up by glob.
others=$(cd "$src" && grep -rlE "expert_scale|experts" src kernels configs CMakeLists.txt cmake tests/CMakeLists.txt tests/families 2>/dev/null |
         grep -vE "^(tests/families/expert_scale/|tests/families/list\.def$)" || true)
[[ -z "$others" ]] || fail "files outside the family's own name it: $others"
grep -c "expert_scale" "$src/tests/families/list.def" | grep -qx 1 || fail "tests/families/list.def should register expert_scale on one line"
ls "$src/tests/families/expert_scale" | sort | tr '\n' ' ' | grep -qx "expert_scale.cpp expert_scale.cuh expert_scale.hpp expert_scale.json " ||
  fail "tests/families/expert_scale should hold its host side, kernel and config: $(ls "$src/tests/families/expert_scale")"
"$kk3" list | grep -q "^expert_scale (test family)" || fail "the test kk3tune does not list expert_scale"
echo "ok: only tests/families/expert_scale (host side, kernel, config) and one line of tests/families/list.def name it"

# 2. The plan chooses its dimension; a compile-only sweep, whole and in shards, merged.
cat >"$w/plan.json" <<'JSON'
{
  "families": {"expert_scale": {"modes": "all", "shapes": {"experts": [2, 8]}}},
  "tokens": [1, 64, 1024],
  "verify": {"tokens": [65]}
}
JSON
sweep whole
for s in 1 2; do sweep "s$s" --shard "$s/2"; done
"$kk3" merge "$w/s1.json" "$w/s2.json" --out "$w/merged.json" >"$w/merge.log" 2>&1 || fail "merge: $(tail -2 "$w/merge.log")"
python3 - "$w/whole.json" "$w/merged.json" <<'PY' || exit 1
import json, sys
whole, merged = (json.load(open(p)) for p in sys.argv[1:])
items = whole["plan"]["items"]
assert items == ["expert_scale/bf16/experts=2", "expert_scale/bf16/experts=8"], items
assert whole["families"]["expert_scale"]["shape_keys"] == ["experts"], whole["families"]
assert whole["records"] == merged["records"], "merged shards differ from the unsharded file"
assert len(whole["records"]) == 12, len(whole["records"])
print(f"ok: items {items}; {len(whole['records'])} records, the merged shards equal the unsharded file")
PY

# 3. compare refuses it (untimed: nothing to compare), report reads it (its resources).
rc=0
"$kk3" compare "$w/whole.json" "$w/merged.json" >"$w/compare.log" 2>&1 || rc=$?
[[ $rc == 2 ]] && grep -q "is an untimed sweep" "$w/compare.log" || fail "compare of an untimed sweep: $(tail -2 "$w/compare.log")"
"$kk3" report "$w/whole.json" --html "$w/report.html" >"$w/report.log" 2>&1 || fail "report: $(tail -2 "$w/report.log")"
grep -q "Resources (untimed sweep)" "$w/report.html" || fail "report: no resource report of the untimed sweep"
echo "ok: compare refuses it as untimed, report shows its resources"

# 4. Tables keyed on experts, as a GPU sweep would give them (the winners made up, each a shipped
#    variant), emitted into a header that compiles and selects by experts.
python3 - "$w/whole.json" "$w/timed.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
doc["context"]["gpu"] = {"name": "NVIDIA H200", "arch": "sm_90a", "compute_capability": "9.0", "sm_count": 132}
doc["plan"]["timed"] = True
pick = {2: ("vec8-threads64-rows2", {"VEC": 8, "THREADS": 64, "ROWS": 2}),
        8: ("vec4-threads128-rows1", {"VEC": 4, "THREADS": 128, "ROWS": 1})}
ref = ("vec2-threads128-rows1", {"VEC": 2, "THREADS": 128, "ROWS": 1})
doc["dispatch"] = [{"family": "expert_scale", "mode": "bf16", "shape": {"experts": e},
                    "ranges": [{"min_tokens": 1, "max_tokens": 64, "variant": ref[0], "knobs": ref[1],
                                "runner_up": None, "margin": 0.0, "incumbent_kept": True, "tokens": [1, 64]},
                               {"min_tokens": 1024, "max_tokens": 1024, "variant": pick[e][0], "knobs": pick[e][1],
                                "runner_up": ref[0], "margin": 0.1, "incumbent_kept": False, "tokens": [1024]}]}
                   for e in (2, 8)]
json.dump(doc, open(sys.argv[2], "w"), indent=1)
PY
"$kk3" emit "$w/timed.json" --out "$w/include" >"$w/emit.log" 2>&1 || fail "emit: $(tail -2 "$w/emit.log")"
h="$w/include/kk3tune/dispatch/expert_scale.h"
[[ -f "$h" ]] || fail "emit wrote no expert_scale.h: $(cat "$w/emit.log")"
grep -q "constexpr knobs select(mode m, int experts, long long num_tokens) noexcept" "$h" || fail "select() is not keyed on experts"
cat >"$w/use.cpp" <<'CPP'
#include <kk3tune/dispatch/expert_scale.h>
namespace d = kk3tune::dispatch::expert_scale;
static_assert(d::select(d::mode::bf16, 2, 1).VEC == 2, "T=1, E=2: the reference");
static_assert(d::select(d::mode::bf16, 2, 5000).VEC == 8 && d::select(d::mode::bf16, 2, 5000).ROWS == 2, "E=2: its table");
static_assert(d::select(d::mode::bf16, 8, 1024).VEC == 4, "E=8: its table");
static_assert(d::select_with_status(d::mode::bf16, 3, 1024).k.VEC == 2 &&
              d::select_with_status(d::mode::bf16, 3, 1024).status == d::select_status::reference_no_table,
              "E=3: no table, the reference, and select_with_status() says so");
int main() { return 0; }
CPP
${CXX:-c++} -std=c++17 -Wall -Wextra -Werror -I"$w/include" "$w/use.cpp" -o "$w/use" || fail "the expert_scale header does not compile"
grep -q "expert_scale" "$w/emit.log" || fail "emit did not name the expert_scale header"
ls "$w/include/kk3tune/dispatch/" | grep -q "mla_decode_epilogue.h" || fail "emit left out the product families"
echo "ok: emit wrote expert_scale.h keyed on experts; it compiles and selects by experts"
