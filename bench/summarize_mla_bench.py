#!/usr/bin/env python3
"""Summarizes bench/mla_bench.py output folders (one or more) as markdown.

Reads graph-*.json and chain-*.json (kk3tune time --json), empty.json, copy.json, and the torch
peer times from peers.json, or, for a run cut short before writing it, from the lines the script
printed (bench.log). Usage: summarize_mla_bench.py FOLDER [FOLDER ...]
"""
import glob
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_common import median, results  # noqa: E402

REFERENCE_PREFIX = "split1-unroll1-early_reads0-cache_wait1-rows_per_warp1-trigger_early0"


def upstream(variants, split):
    prefix = f"split{split}-unroll1-early_reads0-cache_wait1-rows_per_warp1-trigger_early0"
    return next(v for v in variants if v == prefix or v.startswith(prefix + "-threads128"))


rows = []
notes = []
for folder in sys.argv[1:]:
    peers = {}
    if os.path.exists(f"{folder}/peers.json"):
        for r in json.load(open(f"{folder}/peers.json"))["rows"]:
            peers[f"{r['mode']}-H{r['heads']}-T{r['tokens']}"] = (r["eager_us"], r["compiled_us"])
    elif os.path.exists(f"{folder}/bench.log"):
        for line in open(f"{folder}/bench.log"):
            m = re.match(r"(\S+) ref \S+ best \S+ eager (\S+) compiled (\S+)", line)
            if m:
                peers[m.group(1)] = (float(m.group(2)), float(m.group(3)))
    empty = min(median(r) for r in results(f"{folder}/empty.json").values())
    copy = results(f"{folder}/copy.json")
    copy_tb_s = max(r["bytes_moved"] / (median(r) * 1e-6) / 1e12 for r in copy.values())
    notes.append(f"{folder}: empty kernel {empty:.3f} us (graph); copy ceiling {copy_tb_s:.3f} TB/s "
                 f"(kk3tune copy_example, best variant, T=16384)")
    for path in glob.glob(f"{folder}/graph-*.json"):
        tag = os.path.basename(path)[6:-5]
        mode, h, t = re.match(r"(\w+)-H(\d+)-T(\d+)", tag).groups()
        g = results(path)
        ref = next(v for v in g if v.startswith(REFERENCE_PREFIX))
        best = min(g, key=lambda v: median(g[v]))
        c = results(f"{folder}/chain-{tag}.json") if os.path.exists(f"{folder}/chain-{tag}.json") else {}
        rows.append(dict(mode=mode, h=int(h), t=int(t), ref=median(g[ref]), best=median(g[best]), best_id=best,
                         tb_s=g[best]["bytes_moved"] / (median(g[best]) * 1e-6) / 1e12, ceiling=copy_tb_s, empty=empty,
                         peers=peers.get(tag), graph_split={s: median(g[upstream(g, s)]) / median(g[ref]) for s in (2, 3, 4)},
                         chain={k: median(v) for k, v in c.items()}, chain_ref=next((k for k in c if k.startswith(REFERENCE_PREFIX)), None)))
rows.sort(key=lambda r: (r["mode"], r["h"], r["t"]))

first = json.load(open(glob.glob(f"{sys.argv[1]}/graph-*.json")[0]))["context"]
print(f"# mla_decode_epilogue on {first['gpu']['name']} against torch eager and torch.compile\n")
print(f"kk3tune {first['tool_version']} (git {first['git_revision']}), driver {first['gpu']['driver_version']}, "
      f"NVRTC {first['nvrtc_version']}, {first['utc_time']}. Times are per call in graph mode (CUDA graph replay / calls), "
      "medians; torch peers: cat + index_copy_ (fp8: scale, clamp, cast, then the bytes), captured the same way.\n")
print("\n".join(notes) + "\n")
print("| mode | H | T | reference us | best us | best/ref | eager us | compile us | best/eager | best/empty | TB/s | % ceiling | best variant |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for r in rows:
    e, cp = r["peers"] if r["peers"] else (float("nan"), float("nan"))
    print(f"| {r['mode']} | {r['h']} | {r['t']} | {r['ref']:.3f} | {r['best']:.3f} | {r['best'] / r['ref']:.3f} | {e:.3f} | {cp:.3f} "
          f"| {r['best'] / e:.3f} | {r['best'] / r['empty']:.2f} | {r['tb_s']:.3f} | {100 * r['tb_s'] / r['ceiling']:.1f} | {r['best_id']} |")
print("\nUpstream's SPLIT claim: SPLIT=s with the reference's other knobs, time / reference time, in graph mode and in")
print("a PDL chain behind a 5 us producer (the latency the variant adds); and the best of the chain set against the reference.\n")
print("| mode | H | T | graph s2 | graph s3 | graph s4 | chain ref us | chain s2 | chain s3 | chain s4 | chain best/ref |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for r in rows:
    if not r["chain"]:
        continue
    c, ref = r["chain"], r["chain"][r["chain_ref"]]
    cs = [c[upstream(c, s)] / ref for s in (2, 3, 4)]
    print(f"| {r['mode']} | {r['h']} | {r['t']} | " + " | ".join(f"{r['graph_split'][s]:.3f}" for s in (2, 3, 4)) +
          f" | {ref:.3f} | " + " | ".join(f"{x:.3f}" for x in cs) + f" | {min(c.values()) / ref:.3f} |")
