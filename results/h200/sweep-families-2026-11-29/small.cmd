build/kk3tune sweep --config tests/fixtures/sweep/small-plan.json --out OUT/small.json --cache-dir OUT/cache
