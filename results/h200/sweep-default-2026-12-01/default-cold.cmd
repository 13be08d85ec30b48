build/kk3tune sweep  --out /root/out/sweep/default-cold.json --cache-dir /root/out/sweep/cache
