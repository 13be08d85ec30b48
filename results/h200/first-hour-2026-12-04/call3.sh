#!/usr/bin/env bash
# Issue 34 on the H200 (2026-12-04), call 3: README's first command with a GPU, on 2 cores
# (taskset -c 0,1), from the copied tree with no build and a cold compile cache: the wall time of
# scripts/run-main (install-deps finds what it needs there; the build; doctor; the default sweep).
# Stopped at 570 s if not done (the call's limit is 600 s); the progress lines say how far it got.
set -u
R=$OUT/r3; mkdir -p $R
export XDG_CACHE_HOME=/tmp/kk3c-call3; rm -rf $XDG_CACHE_HOME build
t0=$(date +%s)
( timeout 570 taskset -c 0,1 ./scripts/run-main > $R/run-main.out 2> $R/run-main.err; echo "rc=$?" >> $R/run-main.out ) 
t1=$(date +%s)
echo "wall $((t1 - t0)) s on cores $(taskset -pc $$ | sed 's/.*: //') -> 0,1; $(tail -1 $R/run-main.out)" | tee $R/summary.txt
grep -E "^\[[0-9]+/[0-9]+\]" $R/run-main.out | tail -1 | tee -a $R/summary.txt
grep -E "records \(|sweep [0-9]+/" $R/run-main.err $R/run-main.out | tail -3 | cut -c1-200 | tee -a $R/summary.txt
tail -5 $R/run-main.out | cut -c1-200 | tee -a $R/summary.txt
