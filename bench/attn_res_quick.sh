#!/usr/bin/env bash
# A short attn_res GPU check (about 100 s): verify every variant at T=64 and the edge shapes (test-only
# variants too), common_nb8 at T=4097, then `kk3tune time --variant all` at five shapes. Usage:
# bench/attn_res_quick.sh OUTDIR (the checkout is linked at /work/main for the compiled-in paths).
out=${1:?}; mkdir -p "$out"; kk3=build/kk3tune
mkdir -p /work && ln -sfn "$PWD" /work/main
s=$SECONDS; timeout 90 $kk3 verify --family attn_res --tokens 64 --include-test-knobs --seed 20261131 > "$out/verify-T64.txt" 2>&1; echo "verify T64 rc=$? $((SECONDS-s))s"; tail -2 "$out/verify-T64.txt"
s=$SECONDS; timeout 80 $kk3 verify --family attn_res --mode common_nb8 --tokens 4097 --seed 20261132 > "$out/verify-common_nb8-T4097.txt" 2>&1; echo "verify common_nb8 T4097 rc=$? $((SECONDS-s))s"; tail -2 "$out/verify-common_nb8-T4097.txt"
for mt in common_nb8:8192 common_nb8:1024 common_nb4:1024 common_nb1:1024 common_nb8:1; do m=${mt%:*}; t=${mt#*:}
  timeout 30 $kk3 time --family attn_res --mode $m -T $t --variant all --timing graph --json "$out/graph-$m-T$t.json" > "$out/time-$m-T$t.txt" 2>&1; echo "time $m T=$t rc=$?"; sed -n 2,4p "$out/time-$m-T$t.txt"; grep "(reference)" "$out/time-$m-T$t.txt"
done
