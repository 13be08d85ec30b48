build/kk3tune sweep  --out /root/out/d/default-cold.json --cache-dir /root/out/d/cache
