#!/usr/bin/env python3
"""Two sweeps back to back: do they produce the same dispatch tables? (issue 6 acceptance)

For every family/mode/shape, compares the winner at each measured token count. Where the winner
flipped, prints both variants' final-round medians and relative standard errors in each sweep,
and whether the two were within noise of each other (the tie band the sweep itself applies:
the gain must exceed both the minimum gain and 2 combined standard errors).

Usage: python3 bench/sweep_repro.py A.json B.json [OUT.md]
"""
import json
import math
import sys


def load(path):
    with open(path) as f:
        d = json.load(f)
    finals = {}
    for r in d["records"]:
        if r.get("statistics") and r["status"] != "dropped":
            finals[(r["family"], r["mode"], r["heads"], r["blocks"], r["tokens"], r["variant"])] = r["statistics"]
    winners = {}
    for e in d["dispatch"]:
        for rng in e["ranges"]:
            for t in rng["tokens"]:
                winners[(e["family"], e["mode"], e["heads"], e["blocks"], t)] = rng["variant"]
    return d, finals, winners


def within_noise(a, b, min_gain):
    """Whether the faster of two statistics blocks is NOT clearly faster than the other."""
    fast, slow = sorted([a, b], key=lambda s: s["median_us"])
    gain = slow["median_us"] - fast["median_us"]
    se = math.hypot(fast["rel_stderr_median"] * fast["median_us"], slow["rel_stderr_median"] * slow["median_us"])
    return not (gain > min_gain * slow["median_us"] and gain > 2 * se)


a_doc, a_final, a_win = load(sys.argv[1])
b_doc, b_final, b_win = load(sys.argv[2])
min_gain = a_doc["plan"].get("min_gain", 0.02)
lines = [f"# Dispatch reproducibility: {sys.argv[1]} vs {sys.argv[2]}", ""]
same = flipped = noise_ok = 0
rows = []
for key in sorted(set(a_win) | set(b_win), key=str):
    wa, wb = a_win.get(key), b_win.get(key)
    if wa == wb:
        same += 1
        continue
    flipped += 1
    fam, mode, h, nb, t = key
    cells = []
    ok = True
    for doc_final in (a_final, b_final):
        sa, sb = doc_final.get((fam, mode, h, nb, t, wa)), doc_final.get((fam, mode, h, nb, t, wb))
        if sa and sb:
            w = within_noise(sa, sb, min_gain)
            ok = ok and w
            cells.append(f"{sa['median_us']:.3f}±{100 * sa['rel_stderr_median']:.2f}% vs {sb['median_us']:.3f}±{100 * sb['rel_stderr_median']:.2f}% "
                         f"({'within noise' if w else 'apart'})")
        else:
            ok = False
            cells.append("not both in the final round")
    noise_ok += ok
    shape = f"H={h}" if h else f"NB={nb}"
    rows.append(f"| {fam} | {mode} | {shape} | {t} | {wa} | {wb} | {cells[0]} | {cells[1]} |")
lines.append(f"{same} token counts with the same winner, {flipped} flipped, of which {noise_ok} between variants within noise "
             f"of each other in both sweeps (minimum gain {100 * min_gain:.0f}% and 2 standard errors).")
if rows:
    lines += ["", "| family | mode | shape | T | winner in A | winner in B | A: median A-winner vs B-winner | B: the same |",
              "| --- | --- | --- | --- | --- | --- | --- | --- |"] + rows
text = "\n".join(lines) + "\n"
print(text)
if len(sys.argv) > 3:
    with open(sys.argv[3], "w") as f:
        f.write(text)
