build/kk3tune sweep --config ci/short-plan.json --out /root/out/sweep/ci-baseline.json --cache-dir /root/out/sweep/cache
