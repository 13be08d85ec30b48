#!/usr/bin/env bash
# Call 3 (2026-12-04): the review's mends (f5320ed: the baseline summary printed from
# summarize_baseline, merge's rescale before merging) on the H200. The GPU suite; timed shards
# merged by this build and by de804ec (cmp); a sweep with --baseline by both builds, their
# "against the baseline" summaries and the tables' baseline blocks compared. Carry: build-carry/.
set -u
mkdir -p /work && ln -sfn "$PWD" /work/main
mkdir -p build/tests && cp build-carry/kk3tune build/ && cp build-carry/kk3_gpu_tests build/tests/
export XDG_CACHE_HOME=/tmp/kk3c
R=$OUT/r3; mkdir -p $R
OLD=/work/main/build-carry/kk3tune-de804ec NEW=/work/main/build/kk3tune
step() { local name=$1; shift; local t0=$(date +%s); "$@" > $R/$name.txt 2>&1; local rc=$?; echo "$name rc=$rc $(( $(date +%s) - t0 ))s $(tail -1 $R/$name.txt | cut -c1-160)" | tee -a $R/summary.txt; }
step gpu-tests timeout 240 build/tests/kk3_gpu_tests --gtest_filter='-attn_res_gpu.every_variant_in_every_mode*'
S=/tmp/s3; mkdir -p $S
step whole $NEW sweep --config tests/fixtures/sweep/shard-plan.json --seed 20261204 --out $S/whole.json
for i in 1 2 3; do step shard-$i $NEW sweep --config tests/fixtures/sweep/shard-plan.json --seed 20261204 --shard $i/3 --out $S/shard-$i.json; done
(cd $S && ln -sfn $OLD kk3tune && ./kk3tune merge shard-1.json shard-2.json shard-3.json --out m.json && mv m.json old.json
 ln -sfn $NEW kk3tune && ./kk3tune merge shard-1.json shard-2.json shard-3.json --out m.json && mv m.json new.json) > $R/merges.txt 2>&1
step merge-old-vs-new cmp $S/old.json $S/new.json
for b in old new; do
  bin=$NEW; [[ $b == old ]] && bin=$OLD
  step baseline-$b $bin sweep --config tests/fixtures/sweep/shard-plan.json --seed 20261204 --baseline $S/whole.json --out $S/base-$b.json
  sed -n '/against the baseline/,$p' $R/baseline-$b.txt | grep -v "records (" > $R/against-$b.txt
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(json.dumps([x.get('baseline') for x in d['dispatch']]))" $S/base-$b.json > $R/blocks-$b.txt
done
echo "against the baseline: old $(head -1 $R/against-old.txt) | new $(head -1 $R/against-new.txt)" | tee -a $R/summary.txt
step blocks-have-one-shape python3 -c "import json,sys; a,b=(json.load(open(f)) for f in sys.argv[1:]); print([(x is None)==(y is None) and (x is None or set(x)==set(y)) for x,y in zip(a,b)])" $R/blocks-old.txt $R/blocks-new.txt
tar czf $OUT/r3.tgz -C $OUT r3
cat $R/summary.txt
