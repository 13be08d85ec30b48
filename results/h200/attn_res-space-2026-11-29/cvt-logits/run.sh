#!/usr/bin/env bash
# experiment: B=1 CTAs of 128..1024 threads (several tokens in flight per SM)
out=$1; mkdir -p $out; k=build/kk3tune
mkdir -p /work && ln -sfn "$PWD" /work/main
s=$SECONDS; timeout 150 $k verify --family attn_res --tokens 64 --seed 7 > $out/verify.txt 2>&1; echo "verify rc=$? $((SECONDS-s))s"; tail -2 $out/verify.txt
for mt in nb8:8192 nb8:1024 nb4:1024 nb1:1024 nb1:8192 nb8:64 nb8:1; do m=${mt%:*}; t=${mt#*:}
  s=$SECONDS; timeout 60 $k time --family attn_res --mode $m -T $t --variant all --json "$out/graph-$m-T$t.json" > "$out/time-$m-T$t.txt" 2>&1; echo "time $m T=$t rc=$? $((SECONDS-s))s"; sed -n 2,5p "$out/time-$m-T$t.txt" | cut -c1-75,86-100; grep "(reference)" "$out/time-$m-T$t.txt" | cut -c1-75,86-100
done
