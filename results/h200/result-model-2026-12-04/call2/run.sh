#!/usr/bin/env bash
# Call 2 (2026-12-04): is call 1's shards check (2 counts "beyond the tie band" between the whole
# sweep and its merged shards) the merge's doing or run-to-run spread? tests/ci/shards_gpu.sh run
# alternately with the build before the change (de804ec) and this one (211e5d1), twice each, on
# one machine and one compile cache. Carry: build-carry/.
set -u
mkdir -p /work && ln -sfn "$PWD" /work/main
mkdir -p build && cp build-carry/kk3tune build/
export XDG_CACHE_HOME=/tmp/kk3c
R=$OUT/r2; mkdir -p $R
for run in old-a new-a old-b new-b; do
  bin=/work/main/build/kk3tune; [[ $run == old-* ]] && bin=/work/main/build-carry/kk3tune-de804ec
  timeout 200 bash tests/ci/shards_gpu.sh $bin tests/fixtures/sweep/shard-plan.json /tmp/s-$run > $R/shards-$run.txt 2>&1
  echo "$run rc=$? $(grep -c DIFFERS $R/shards-$run.txt) beyond; $(grep 'against' $R/shards-$run.txt | sed 's/.*tables: //' | tr '\n' ';')" | tee -a $R/summary.txt
done
tar czf $OUT/r2.tgz -C $OUT r2
