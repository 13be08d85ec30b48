build/kk3tune sweep  --out /root/out/default/default-warm.json --cache-dir /root/out/default/cache
