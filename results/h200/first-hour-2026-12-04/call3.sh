#!/usr/bin/env bash
# Issue 34 on the H200 (2026-12-04), call 3: README's first command with a GPU, on 2 cores
# (taskset -c 0,1). The H200 machine cannot build (no xxhash headers, no package registry), so the
# binary built on the build machine is carried (build-carry/) and this times what run-main runs
# after its build: doctor, then the default sweep with a cold compile cache. Stopped at 570 s if
# not done (the call's limit is 600 s); the progress lines say how far it got.
set -u
mkdir -p /work && ln -sfn "$PWD" /work/wt-lead
R=$OUT/r3; mkdir -p $R; K=$PWD/build-carry/kk3tune
export XDG_CACHE_HOME=/tmp/kk3c-call3; rm -rf $XDG_CACHE_HOME
t0=$(date +%s)
( timeout 570 taskset -c 0,1 bash -c "$K doctor; echo; $K sweep --out $R/kk3tune-sweep.json" > $R/run-main.out 2> $R/run-main.err; echo "rc=$?" >> $R/run-main.out )
t1=$(date +%s)
echo "wall $((t1 - t0)) s on cores 0,1 (taskset); $(tail -1 $R/run-main.out)" | tee $R/summary.txt
grep -E "sweep [0-9]+/[0-9]+" $R/run-main.err | tail -2 | cut -c1-160 | tee -a $R/summary.txt
grep -E "records \(" $R/run-main.out | cut -c1-220 | tee -a $R/summary.txt
gzip -f $R/kk3tune-sweep.json 2>/dev/null
