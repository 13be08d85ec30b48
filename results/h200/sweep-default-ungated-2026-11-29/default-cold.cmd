build/kk3tune sweep  --out /root/out/default/default-cold.json --cache-dir /root/out/default/cache
