#!/usr/bin/env python3
"""attn_res on the GPU, side by side with its torch peers (issue 5).

For NB in {1, 4, 8} and T in {1, 64, 256, 1024, 8192}, with delta and output norm (modes nb1,
nb4, nb8): graph-mode time per call of every kk3tune variant (reference and best reported), and
the torch peers, eager and torch.compile of the SPEC formula (recompile limits raised so every
shape is compiled), timed the same way (N calls captured in a CUDA graph). Bandwidth against a
copy ceiling measured in the same run (kk3tune's copy example, best variant, T=16384).

Usage: python3 bench/attn_res_bench.py OUTDIR   (JSON per shape, peers.json, summary.md)
"""
import json
import os
import subprocess
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_common import Kk3tune  # noqa: E402
from torch_timing import graph_time_us  # noqa: E402

OUT = sys.argv[1]
BLOCKS = [int(x) for x in os.environ.get("KK3_BENCH_BLOCKS", "1,4,8").split(",")]
TOKENS = [int(x) for x in os.environ.get("KK3_BENCH_TOKENS", "1,64,256,1024,8192").split(",")]
HIDDEN = 7168
os.makedirs(OUT, exist_ok=True)
kk3 = Kk3tune(OUT, append=True)


def attn_res(blocks, prefix, delta, rms_w, res_w, out_w, nb: int, eps: float = 1e-5, out_eps: float = 1e-5):
    """The SPEC 1.2 formula, written plainly."""
    p = (prefix.float() + delta.float()).to(torch.bfloat16)
    prefix.copy_(p)
    v = torch.cat([blocks[:, :nb].float(), p.float().unsqueeze(1)], dim=1)  # [T, N, H]
    q = rms_w.float() * res_w.float()
    logits = torch.rsqrt(v.pow(2).mean(-1) + eps) * (v * q).sum(-1)  # [T, N]
    w = torch.softmax(logits, dim=-1)
    acc = (w.unsqueeze(-1) * v).sum(1)  # [T, H]
    s = w.sum(-1, keepdim=True)
    out = acc * torch.rsqrt(acc.pow(2).mean(-1, keepdim=True) + out_eps * s * s) * out_w.float()
    return out.to(torch.bfloat16)


torch._dynamo.config.cache_size_limit = 256
torch._dynamo.config.accumulated_cache_size_limit = 4096
compiled = torch.compile(attn_res, dynamic=False)

kk3("time", "--family", "copy_example", "--variant", "all", "-T", 16384, "--json", f"{OUT}/copy.json")
kk3("time", "--family", "empty_example", "--variant", "all", "--json", f"{OUT}/empty.json")
peers = {}
for nb in BLOCKS:
    for t in TOKENS:
        tag = f"nb{nb}-T{t}"
        kk3("time", "--family", "attn_res", "--mode", f"nb{nb}", "-T", t, "--variant", "all", "--json", f"{OUT}/graph-{tag}.json")
        dev = "cuda"
        blocks = torch.randn(t, nb, HIDDEN, device=dev, dtype=torch.bfloat16)
        prefix = torch.randn(t, HIDDEN, device=dev, dtype=torch.bfloat16)
        delta = torch.randn(t, HIDDEN, device=dev, dtype=torch.bfloat16) * 0.5
        rms_w = 1 + 0.1 * torch.randn(HIDDEN, device=dev, dtype=torch.bfloat16)
        res_w = torch.randn(HIDDEN, device=dev, dtype=torch.bfloat16) * (3 / HIDDEN ** 0.5)
        out_w = 1 + 0.1 * torch.randn(HIDDEN, device=dev, dtype=torch.bfloat16)
        args = (blocks, prefix, delta, rms_w, res_w, out_w, nb)
        peers[tag] = {"eager_us": graph_time_us(lambda: attn_res(*args), calls=10, reps=20), "compiled_us": graph_time_us(lambda: compiled(*args), calls=10, reps=20)}
        print(tag, json.dumps(peers[tag]), flush=True)
        json.dump({"torch": torch.__version__, "peers": peers}, open(f"{OUT}/peers.json", "w"), indent=1)

summary = subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__), "summarize_attn_res_bench.py"), OUT],
                         check=True, capture_output=True, text=True).stdout
open(f"{OUT}/summary.md", "w").write(summary)
print(summary)
