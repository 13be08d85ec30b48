#!/usr/bin/env bash
# Issue 36 on the H200 (2026-12-04): the first step of the house (the sweep's run in src/sweep,
# one GPU session setup, one status, one name per concept) against the build before it.
# Carry: build-carry/ with kk3tune and kk3_gpu_tests of b16ed9c and kk3tune-before, the binary
# of the src/ before the step (that of 4d55b64; it reports 12c26d5-dirty), all built on the build
# machine at /work/main.
#  1. the GPU suite;
#  2. the reliability scripts: faults, --gpus (GPU 0 twice), kill -9 and --resume;
#  3. one mode swept by the build before (attn_res common_nb8), then by this build with
#     --baseline of that sweep: the tables must be the same.
set -u
mkdir -p /work && [ "$PWD" = /work/main ] || ln -sfn "$PWD" /work/main
mkdir -p build/tests && cp build-carry/kk3tune build/ && cp build-carry/kk3_gpu_tests build/tests/
export XDG_CACHE_HOME=/tmp/kk3c
R=$OUT/h1; mkdir -p $R; K=$PWD/build/kk3tune; B=$PWD/build-carry/kk3tune-before; P=tests/fixtures/sweep/small-plan.json
step() { local name=$1; shift; local t0=$(date +%s); "$@" > $R/$name.txt 2>&1; local rc=$?; echo "$name rc=$rc $(( $(date +%s) - t0 ))s $(tail -1 $R/$name.txt | cut -c1-150)" | tee -a $R/summary.txt; }
step gpu-tests timeout 150 build/tests/kk3_gpu_tests --gtest_filter='-attn_res_gpu.every_variant_in_every_mode*'
step faults timeout 60 bash tests/reliability/faults_gpu.sh $K $P
step gpus timeout 60 bash tests/reliability/gpus_gpu.sh $K $P
step kill-resume timeout 60 bash tests/reliability/kill_and_resume_gpu.sh $K $P $R/kr
step sweep-before timeout 60 $B sweep --family attn_res --mode common_nb8 --out $R/before.json
step sweep-after timeout 60 $K sweep --family attn_res --mode common_nb8 --baseline $R/before.json --out $R/after.json
step compare timeout 30 $K compare $R/before.json $R/after.json
python3 - $R <<'PY' | tee -a $R/summary.txt
import json, sys
R = sys.argv[1]
def table(f):
    d = json.load(open(f)); return {(t["mode"], k): r["variant"] for t in d["dispatch"] for r in t["ranges"] for k in r["tokens"]}
a, b = table(R + "/before.json"), table(R + "/after.json")
diff = [k for k in a if a[k] != b.get(k)]
print("tables: %d token counts, %d changed against the build before (--baseline)%s" % (len(a), len(diff), ": " + str(diff) if diff else ""))
PY
tar czf $OUT/h1.tgz -C $OUT h1
