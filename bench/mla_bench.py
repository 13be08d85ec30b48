#!/usr/bin/env python3
"""mla_decode_epilogue on the GPU, side by side with its torch peers (issue 4).

For H in {8, 16}, T in {1, 8, 64, 65, 256, 1024, 8192}, modes bf16 and fp8: graph-mode time per
call of every kk3tune variant (reference and best reported), the torch peers (eager cat +
index_copy_, and torch.compile of the same) timed the same way (N calls captured in a CUDA graph),
an empty kernel timed by kk3tune, and the bandwidth against a copy ceiling measured in the same
run (torch device-to-device copy of 1 GiB and kk3tune's copy example, the faster). Then, in a PDL
chain behind an upstream producer, the reference, upstream's SPLIT=2/3/4 designs and the best.

Usage: python3 bench/mla_bench.py OUTDIR   (writes JSON per shape, peers.json and summary.md)
"""
import json
import os
import subprocess
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_common import Kk3tune, results  # noqa: E402
from torch_timing import graph_time_us  # noqa: E402

OUT = sys.argv[1]
HEADS = [8, 16]
TOKENS = [1, 8, 64, 65, 256, 1024, 8192]
MODES = os.environ.get("KK3_BENCH_MODES", "bf16,fp8").split(",")
REFERENCE = "split1-unroll1-early_reads0-cache_wait1-rows_per_warp1-trigger_early0-threads128"
UPSTREAM = {s: f"split{s}-unroll1-early_reads0-cache_wait1-rows_per_warp1-trigger_early0-threads128" for s in (2, 3, 4)}
os.makedirs(OUT, exist_ok=True)
kk3 = Kk3tune(OUT)


def peer_fn(mode):
    def f(ql_nope, q_pe, kv_c, k_pe, slots, cache, q_scale, c_scale):
        q = torch.cat([ql_nope, q_pe], dim=-1)
        kv = torch.cat([kv_c, k_pe], dim=-1)
        if mode == "fp8":
            q = (q.float() * q_scale).clamp(-448, 448).to(torch.float8_e4m3fn)
            kv = (kv.float() * c_scale).clamp(-448, 448).to(torch.float8_e4m3fn)
        if mode == "fp8":  # index_copy_ has no fp8 kernel: copy the bytes
            cache.view(torch.uint8).view(-1, 576).index_copy_(0, slots, kv.view(torch.uint8))
        else:
            cache.view(-1, 576).index_copy_(0, slots, kv)
        return q
    return f


torch._dynamo.config.cache_size_limit = 256
torch._dynamo.config.accumulated_cache_size_limit = 4096

# The copy ceiling, measured now.
src = torch.empty(1 << 30, dtype=torch.uint8, device="cuda")
dst = torch.empty_like(src)
copy_us = graph_time_us(lambda: dst.copy_(src), calls=5, reps=15)
torch_copy_tb_s = 2 * src.numel() / (copy_us * 1e-6) / 1e12
del src, dst
kk3("time", "--family", "copy_example", "--variant", "all", "-T", 16384, "--json", f"{OUT}/copy.json")
copy_best = min(r["statistics"]["median_us"] for r in results(f"{OUT}/copy.json").values())
kk3_copy_tb_s = 2 * 16384 * 14336 / (copy_best * 1e-6) / 1e12
ceiling = max(torch_copy_tb_s, kk3_copy_tb_s)
kk3("time", "--family", "empty_example", "--json", f"{OUT}/empty.json")
kk3("time", "--family", "empty_example", "--timing", "chain", "--json", f"{OUT}/empty-chain.json")
empty_us = results(f"{OUT}/empty.json")["threads32"]["statistics"]["median_us"]

peers = {}
rows = []
for mode in MODES:
    for h in HEADS:
        eager = peer_fn(mode)
        compiled = torch.compile(peer_fn(mode))
        for t in TOKENS:
            tag = f"{mode}-H{h}-T{t}"
            kk3("time", "--family", "mla_decode_epilogue", "--mode", mode, "--heads", h, "-T", t, "--variant", "all",
                "--timing", "graph", "--ceiling-tb-s", f"{ceiling:.4f}", "--json", f"{OUT}/graph-{tag}.json")
            g = results(f"{OUT}/graph-{tag}.json")
            best = min(g, key=lambda v: g[v]["statistics"]["median_us"])
            chain_set = sorted({REFERENCE, best, *UPSTREAM.values()})
            kk3("time", "--family", "mla_decode_epilogue", "--mode", mode, "--heads", h, "-T", t, "--variant", ",".join(chain_set),
                "--timing", "chain", "--json", f"{OUT}/chain-{tag}.json")
            c = results(f"{OUT}/chain-{tag}.json")

            dev = "cuda"
            ql = torch.randn(t, h, 512, device=dev, dtype=torch.bfloat16)
            qp = torch.randn(t, h, 64, device=dev, dtype=torch.bfloat16)
            kv_c = torch.randn(t, 512, device=dev, dtype=torch.bfloat16)
            k_pe = torch.randn(t, 64, device=dev, dtype=torch.bfloat16)
            cache_dtype = torch.float8_e4m3fn if mode == "fp8" else torch.bfloat16
            blocks = (2 * t + 64) // 64 + 1
            cache = torch.zeros(blocks, 64, 576, device=dev, dtype=cache_dtype)
            slots = torch.randperm(blocks * 64, device=dev)[:t]
            qs = torch.tensor(32.0, device=dev)
            cs = torch.tensor(32.0, device=dev)
            args = (ql, qp, kv_c, k_pe, slots, cache, qs, cs)
            eager_us = graph_time_us(lambda: eager(*args))
            compiled_us = graph_time_us(lambda: compiled(*args))
            peers[tag] = {"eager_us": eager_us, "compiled_us": compiled_us}
            ref, bst = g[REFERENCE]["statistics"]["median_us"], g[best]["statistics"]["median_us"]
            rows.append({
                "mode": mode, "heads": h, "tokens": t, "reference_us": ref, "best_us": bst, "best": best,
                "eager_us": eager_us, "compiled_us": compiled_us, "empty_us": empty_us,
                "best_tb_s": g[best]["achieved_tb_s"], "ceiling_tb_s": ceiling,
                "graph_split": {s: g[v]["statistics"]["median_us"] for s, v in UPSTREAM.items()},
                "chain_reference_us": c[REFERENCE]["statistics"]["median_us"],
                "chain_best_us": c[best]["statistics"]["median_us"],
                "chain_split": {s: c[v]["statistics"]["median_us"] for s, v in UPSTREAM.items()},
                "chain_best": min(c, key=lambda v: c[v]["statistics"]["median_us"]),
            })
            print(tag, f"ref {ref:.3f} best {bst:.3f} eager {eager_us:.3f} compiled {compiled_us:.3f}", flush=True)

json.dump({"ceiling": {"torch_copy_tb_s": torch_copy_tb_s, "kk3_copy_tb_s": kk3_copy_tb_s, "ceiling_tb_s": ceiling},
           "empty_us": empty_us, "rows": rows, "torch": torch.__version__}, open(f"{OUT}/peers.json", "w"), indent=1)

summary = subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__), "summarize_mla_bench.py"), OUT],
                         check=True, capture_output=True, text=True).stdout
open(f"{OUT}/summary.md", "w").write(summary)
print(summary)
