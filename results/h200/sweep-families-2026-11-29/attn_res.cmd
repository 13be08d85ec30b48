build/kk3tune sweep --family attn_res --tokens 1,64,1024,8192 --out OUT/attn_res.json --cache-dir OUT/cache
