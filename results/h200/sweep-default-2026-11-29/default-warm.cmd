build/kk3tune sweep  --out /root/out/d/default-warm.json --cache-dir /root/out/d/cache
