build/kk3tune sweep --family mla_decode_epilogue --out OUT/mla.json --cache-dir OUT/cache
