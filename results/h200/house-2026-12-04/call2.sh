#!/usr/bin/env bash
# Issue 36 on the H200 (2026-12-04, second session): the house's final main against the build
# before the issue. Carry: build-carry/ (kk3tune, kk3_gpu_tests and kk3tune-test-families of this
# commit, and kk3tune-before: the binary of 12c26d5's src/, the same as 4d55b64's, the commit
# before the issue's first step) and build/test-families (the test families' configs and
# kernels), all built at /work/main, of debe1da or later (README.md says why). To make them again:
#   cmake --build build && cp build/kk3tune build/tests/kk3_gpu_tests \
#     build/test-families/bin/kk3tune-test-families build-carry/
#   git worktree add /tmp/before 4d55b64 && cmake -S /tmp/before -B /tmp/before/build -G Ninja \
#     && cmake --build /tmp/before/build --target kk3tune && cp /tmp/before/build/kk3tune build-carry/kk3tune-before
#  1. the GPU suite: every kk3_gpu_tests test, the third family's script, and the reliability
#     scripts (faults, --gpus with GPU 0 twice, kill -9 and --resume);
#  2. attn_res common_nb8 swept by the build before, then by this build with --baseline of that
#     sweep: the tables must be the same;
#  3. one journal, two builds: this build sweeps mla_decode_epilogue bf16 while a hard link keeps its
#     journal; both builds then --resume a copy of that journal (nothing is left to measure) and
#     the two result files are compared field by field;
#  4. verify of both builds with one seed (mla every mode, attn_res common_nb8 with the test-only
#     variants), --format json: the same records.
set -u
mkdir -p /work && [ "$PWD" = /work/main ] || ln -sfn "$PWD" /work/main
mkdir -p build/tests build/test-families/bin
cp build-carry/kk3tune build/ && cp build-carry/kk3_gpu_tests build/tests/
cp build-carry/kk3tune-test-families build/test-families/bin/
export XDG_CACHE_HOME=/tmp/kk3c
R=$OUT/h2; mkdir -p $R; K=$PWD/build/kk3tune; B=$PWD/build-carry/kk3tune-before; P=tests/fixtures/sweep/small-plan.json
step() { local name=$1; shift; local t0=$(date +%s); "$@" > $R/$name.txt 2>&1; local rc=$?; echo "$name rc=$rc $(( $(date +%s) - t0 ))s $(tail -1 $R/$name.txt | cut -c1-160)" | tee -a $R/summary.txt; }
step gpu-tests timeout 150 build/tests/kk3_gpu_tests --gtest_filter='-attn_res_gpu.every_variant_in_every_mode*'
step third-family timeout 120 bash tests/ci/third_family_gpu.sh build/test-families/bin/kk3tune-test-families $R/third
step faults timeout 60 bash tests/reliability/faults_gpu.sh $K $P
step gpus timeout 60 bash tests/reliability/gpus_gpu.sh $K $P
step kill-resume timeout 60 bash tests/reliability/kill_and_resume_gpu.sh $K $P $R/kr
step sweep-before timeout 60 $B sweep --family attn_res --mode common_nb8 --out $R/before.json
step sweep-after timeout 60 $K sweep --family attn_res --mode common_nb8 --baseline $R/before.json --out $R/after.json
step compare timeout 30 $K compare $R/before.json $R/after.json
# 3. one journal, two builds
J=$R/journal; mkdir -p $J/run $J/old $J/new
S="sweep --family mla_decode_epilogue --mode bf16 --seed 11"
( for _ in $(seq 2000); do [ -f $J/run/x.json.journal ] && { ln $J/run/x.json.journal $J/keep.journal; break; }; sleep 0.01; done ) &
step journal-run timeout 90 $K $S --out $J/run/x.json
wait
cp $J/keep.journal $J/old/x.json.journal; cp $J/keep.journal $J/new/x.json.journal
step journal-old timeout 60 $B $S --out $J/old/x.json --resume
step journal-new timeout 60 $K $S --out $J/new/x.json --resume
# 4. verify, one seed, both builds (the JSON on stdout, the rest on stderr)
vstep() { local name=$1; shift; local t0=$(date +%s); "$@" > $R/$name.json 2> $R/$name.txt; local rc=$?; echo "$name rc=$rc $(( $(date +%s) - t0 ))s" | tee -a $R/summary.txt; }
vstep verify-mla-old timeout 90 $B verify --family mla_decode_epilogue --seed 7 --format json
vstep verify-mla-new timeout 90 $K verify --family mla_decode_epilogue --seed 7 --format json
vstep verify-ar-old timeout 90 $B verify --family attn_res --mode common_nb8 --include-test-knobs --seed 7 --format json
vstep verify-ar-new timeout 90 $K verify --family attn_res --mode common_nb8 --include-test-knobs --seed 7 --format json
python3 - $R <<'PY' | tee -a $R/summary.txt
import json, sys
R = sys.argv[1]
def table(f):
    d = json.load(open(f)); return {(t["mode"], k): r["variant"] for t in d["dispatch"] for r in t["ranges"] for k in r["tokens"]}
a, b = table(R + "/before.json"), table(R + "/after.json")
diff = [k for k in a if a[k] != b.get(k)]
print("tables: %d token counts, %d changed against the build before (--baseline)%s" % (len(a), len(diff), ": " + str(diff) if diff else ""))
def flat(x, p=""):
    if isinstance(x, dict):
        for k, v in x.items(): yield from flat(v, p + "/" + k)
    elif isinstance(x, list):
        for i, v in enumerate(x): yield from flat(v, p + "/" + str(i))
    else: yield p, x
try:
    o = open(R + "/journal/old/x.json").read(); n = open(R + "/journal/new/x.json").read()
    fo, fn = dict(flat(json.loads(o))), dict(flat(json.loads(n)))
    paths = sorted(k for k in set(fo) | set(fn) if fo.get(k, "<absent>") != fn.get(k, "<absent>"))
    same_order = [k for k, _ in flat(json.loads(o))] == [k for k, _ in flat(json.loads(n))]
    print("one journal, two builds: %d bytes vs %d, %d values, %d differ%s; key order %s" % (len(o), len(n), len(fo), len(paths), ": " + ", ".join(paths) if paths else "", "same" if same_order else "DIFFERENT"))
    for k in paths: print("   %s: %r -> %r" % (k, fo.get(k, "<absent>"), fn.get(k, "<absent>")))
except Exception as e:
    print("one journal, two builds: FAILED to compare:", e)
for fam in ("mla", "ar"):
    try:
        o, n = (json.loads(open("%s/verify-%s-%s.json" % (R, fam, w)).read()) for w in ("old", "new"))
        o.pop("gpu", None); n.pop("gpu", None)
        print("verify %s: old and new %s (%d records, ok %s / %s, failed %s / %s)" % (fam, "IDENTICAL" if o == n else "DIFFER", len(n["records"]), o["ok"], n["ok"], o["failed"], n["failed"]))
    except Exception as e:
        print("verify %s: FAILED to compare: %s" % (fam, e))
PY
step gpu-test-every-attn timeout 200 build/tests/kk3_gpu_tests --gtest_filter='attn_res_gpu.every_variant_in_every_mode*'
for f in before after journal/old/x journal/new/x journal/run/x; do [ -f $R/$f.json ] && gzip -9 $R/$f.json; done
tar czf $OUT/h2.tgz -C $OUT h2
cat $R/summary.txt
