#!/usr/bin/env bash
# Call 1 (2026-12-04): merge on the result model (each shard read whole, the models merged, the
# set written by the sweep's own writer) and report on the model (no second reader). On the H200:
# the GPU suite; timed shards whole / 2 / 3 merged (tests/ci/shards_gpu.sh) and each merged file
# compared byte for byte with the merge of the same shards by the build before the change
# (de804ec, carried as build-carry/kk3tune-de804ec); --gpus (its parts merged the same way);
# kill -9 and --resume (the journal's records); faults; `time --json` and a merged sweep through
# report; the regression job. Carry: build-carry/.
set -u
mkdir -p /work && ln -sfn "$PWD" /work/main
mkdir -p build/tests && cp build-carry/kk3tune build/ && cp build-carry/kk3_gpu_tests build/tests/
export XDG_CACHE_HOME=/tmp/kk3c
R=$OUT/r1; mkdir -p $R
nvidia-smi --query-gpu=name,pci.bus_id,driver_version --format=csv > $R/gpu.txt 2>&1
step() { local name=$1; shift; local t0=$(date +%s); "$@" > $R/$name.txt 2>&1; local rc=$?; echo "$name rc=$rc $(( $(date +%s) - t0 ))s $(tail -1 $R/$name.txt | cut -c1-160)" | tee -a $R/summary.txt; }
step gpu-tests timeout 240 build/tests/kk3_gpu_tests --gtest_filter='-attn_res_gpu.every_variant_in_every_mode*'
S=/tmp/shards
step shards timeout 300 bash tests/ci/shards_gpu.sh build/kk3tune tests/fixtures/sweep/shard-plan.json $S
for n in 2 3; do
  files=(); for ((i = 1; i <= n; ++i)); do files+=("shard-$i-of-$n.json"); done
  # the same argv for both builds: ./kk3tune, relative paths
  (cd $S && ln -sfn /work/main/build-carry/kk3tune-de804ec kk3tune && ./kk3tune merge "${files[@]}" --out old-$n.json > old-$n.log 2>&1 && mv old-$n.json old-merged-$n.json
   ln -sfn /work/main/build/kk3tune kk3tune && ./kk3tune merge "${files[@]}" --out old-$n.json > new-$n.log 2>&1 && mv old-$n.json new-merged-$n.json)
  step merge-old-vs-new-$n cmp $S/old-merged-$n.json $S/new-merged-$n.json
  echo "$(wc -c < $S/new-merged-$n.json) bytes, $(grep -c '{"family"' $S/new-merged-$n.json) record lines" >> $R/merge-old-vs-new-$n.txt
done
step report-merged build/kk3tune report $S/new-merged-3.json --html $R/merged-3.html --csv $R/merged-3.csv
step gpus timeout 200 bash tests/reliability/gpus_gpu.sh build/kk3tune tests/fixtures/sweep/small-plan.json
step kill-resume timeout 300 bash tests/reliability/kill_and_resume_gpu.sh build/kk3tune tests/fixtures/sweep/small-plan.json /tmp/kr
step faults timeout 200 bash tests/reliability/faults_gpu.sh build/kk3tune tests/fixtures/sweep/small-plan.json
step time-mla build/kk3tune time --family mla_decode_epilogue --mode bf16 --tokens 64 --json $R/time-mla.json
step report-time build/kk3tune report $R/time-mla.json --html $R/time-mla.html
grep -o '<dt>[^<]*</dt><dd[^>]*>[^<]*</dd>' $R/time-mla.html > $R/time-mla-facts.txt
step regression env KK3_BASE_KK3TUNE=build/kk3tune KK3_CI_OUT=/tmp/reg bash ci/gpu-regression.sh
cp $S/*.log $S/*.txt $R/ 2>/dev/null
gzip -c $S/new-merged-3.json > $R/new-merged-3.json.gz
tar czf $OUT/r1.tgz -C $OUT r1
cat $R/summary.txt
