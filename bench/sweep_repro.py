#!/usr/bin/env python3
"""Two sweeps back to back: do they produce the same dispatch tables? (issue 6 acceptance)

For every family/mode/shape, compares the winner at each measured token count. Where the winner
flipped, prints both variants' final-round medians and relative standard errors in each sweep,
and whether the two were within noise of each other (the tie band the sweep itself applies:
the gain must exceed both the minimum gain and 2 combined standard errors).

With --head-to-head DIR (on the GPU machine), every flipped pair is also timed side by side in a
fresh process, `kk3tune time --variant A,B` (interleaved, graph mode), the JSON kept in DIR: the
direct answer to "were the two within noise of each other", free of either sweep's screening.

Usage: python3 bench/sweep_repro.py A.json B.json [OUT.md] [--head-to-head DIR [--cache-dir C]]
"""
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_common import Kk3tune, results, shape_of  # noqa: E402


def load(path):
    with open(path) as f:
        d = json.load(f)
    finals = {}
    for r in d["records"]:
        if r.get("statistics") and r["status"] != "dropped":
            finals[(r["family"], r["mode"], shape_of(r), r["tokens"], r["variant"])] = r["statistics"]
    winners = {}
    for e in d["dispatch"]:
        for rng in e["ranges"]:
            for t in rng["tokens"]:
                winners[(e["family"], e["mode"], shape_of(e), t)] = rng["variant"]
    return d, finals, winners


def within_noise(a, b, min_gain):
    """Whether the faster of two statistics blocks is NOT clearly faster than the other."""
    fast, slow = sorted([a, b], key=lambda s: s["median_us"])
    gain = slow["median_us"] - fast["median_us"]
    se = math.hypot(fast["rel_stderr_median"] * fast["median_us"], slow["rel_stderr_median"] * slow["median_us"])
    return not (gain > min_gain * slow["median_us"] and gain > 2 * se)


args = sys.argv[1:]
h2h_dir = cache_dir = None
if "--head-to-head" in args:
    i = args.index("--head-to-head")
    h2h_dir = args[i + 1]
    del args[i:i + 2]
    os.makedirs(h2h_dir, exist_ok=True)
if "--cache-dir" in args:
    i = args.index("--cache-dir")
    cache_dir = args[i + 1]
    del args[i:i + 2]
kk3 = Kk3tune(h2h_dir) if h2h_dir else None


def head_to_head(fam, mode, shape_dims, t, wa, wb):
    """Both winners timed side by side in one fresh run: (cell text, within noise)."""
    path = f"{h2h_dir}/{fam}-{mode}-{'-'.join(f'{k}{v}' for k, v in shape_dims)}-T{t}.json"
    shape = [a for k, v in shape_dims for a in ("--shape", f"{k}={v}")]
    cache = ["--cache-dir", cache_dir] if cache_dir else []
    kk3("time", "--family", fam, "--mode", mode, "-T", t, *shape, "--variant", f"{wa},{wb}", "--seed", 1, *cache, "--json", path)
    res = results(path)
    sa, sb = res[wa]["statistics"], res[wb]["statistics"]
    w = within_noise(sa, sb, min_gain)
    return (f"{sa['median_us']:.3f}±{100 * sa['rel_stderr_median']:.2f}% vs {sb['median_us']:.3f}±{100 * sb['rel_stderr_median']:.2f}% "
            f"({'within noise' if w else 'apart'})"), w


a_doc, a_final, a_win = load(args[0])
b_doc, b_final, b_win = load(args[1])
min_gain = a_doc["plan"].get("min_gain", 0.02)
lines = [f"# Dispatch reproducibility: {args[0]} vs {args[1]}", ""]
same = flipped = noise_ok = h2h_ok = 0
rows = []
for key in sorted(set(a_win) | set(b_win), key=str):
    wa, wb = a_win.get(key), b_win.get(key)
    if wa == wb:
        same += 1
        continue
    flipped += 1
    fam, mode, shape_dims, t = key
    cells = []
    ok = True
    for doc_final in (a_final, b_final):
        sa, sb = doc_final.get((fam, mode, shape_dims, t, wa)), doc_final.get((fam, mode, shape_dims, t, wb))
        if sa and sb:
            w = within_noise(sa, sb, min_gain)
            ok = ok and w
            cells.append(f"{sa['median_us']:.3f}±{100 * sa['rel_stderr_median']:.2f}% vs {sb['median_us']:.3f}±{100 * sb['rel_stderr_median']:.2f}% "
                         f"({'within noise' if w else 'apart'})")
        else:
            ok = False
            cells.append("not both in the final round")
    noise_ok += ok
    if kk3:
        cell, w = head_to_head(fam, mode, shape_dims, t, wa, wb)
        h2h_ok += w
        cells.append(cell)
    shape = " ".join(f"{k}={v}" for k, v in shape_dims)
    rows.append(f"| {fam} | {mode} | {shape} | {t} | {wa} | {wb} | " + " | ".join(cells) + " |")
lines.append(f"{same} token counts with the same winner, {flipped} flipped, of which {noise_ok} between variants within noise "
             f"of each other in both sweeps (minimum gain {100 * min_gain:.0f}% and 2 standard errors).")
if kk3:
    lines.append(f"Timed head to head afterwards (`kk3tune time --variant A,B`, commands in {h2h_dir}/commands.txt): "
                 f"{h2h_ok} of {flipped} flipped pairs within noise of each other.")
if rows:
    h2h_head = " | head to head: A-winner vs B-winner" if kk3 else ""
    lines += ["", "| family | mode | shape | T | winner in A | winner in B | A: median A-winner vs B-winner | B: the same" + h2h_head + " |",
              "| --- | --- | --- | --- | --- | --- | --- | --- |" + (" --- |" if kk3 else "")] + rows
text = "\n".join(lines) + "\n"
print(text)
if len(args) > 2:
    with open(args[2], "w") as f:
        f.write(text)
