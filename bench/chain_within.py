#!/usr/bin/env python3
"""Issue 16's first check: for each `kk3tune time --timing chain --variant all` file, the variant the
sweep's table chose at that family/mode/shape/T against the fastest variant of that separate run.
Prints one line per file and a summary; exit 0 when every table variant is within LIMIT (default 3%)
of the fastest there, 1 otherwise (2 for unusable input).

usage: bench/chain_within.py SWEEP.json[.gz] TIME.json... [--limit 0.03] [--json OUT.json]"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_common import read_sweep, table_range  # noqa: E402


def table_choice(sweep, family, mode, shape, tokens):
    """The variant of the table range that holds `tokens`, None when no range does."""
    r = table_range(sweep, family, mode, shape, tokens)
    return r["variant"] if r and r["min_tokens"] <= tokens <= r["max_tokens"] else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("sweep")
    ap.add_argument("times", nargs="+")
    ap.add_argument("--limit", type=float, default=0.03)
    ap.add_argument("--json")
    a = ap.parse_args()
    sweep = read_sweep(a.sweep)
    rows, worst, bad = [], 0.0, 0
    for path in a.times:
        t = json.load(open(path))
        s = t["subject"]
        timing = {r["timing"]["objective"]["timing"] for r in t["results"]}
        if timing != {"chain"}:
            print(f"{path}: timed {sorted(timing)}, not chain", file=sys.stderr)
            return 2
        med = {r["variant"]: r["statistics"]["median_us"] for r in t["results"]}
        noise = {r["variant"]: r["statistics"]["rel_stderr_median"] for r in t["results"]}
        fastest = min(med, key=med.get)
        chosen = table_choice(sweep, s["family"], s["mode"], s.get("shape", {}), s["tokens"])
        if chosen is None or chosen not in med:
            print(f"{path}: the sweep has no table variant for it ({chosen})", file=sys.stderr)
            return 2
        rank = sorted(med, key=med.get).index(chosen) + 1
        excess = med[chosen] / med[fastest] - 1
        ok = excess <= a.limit
        bad += not ok
        worst = max(worst, excess)
        rows.append({"family": s["family"], "mode": s["mode"], "tokens": s["tokens"], "table": chosen, "table_us": med[chosen],
                     "table_noise": noise[chosen], "fastest": fastest, "fastest_us": med[fastest], "excess": excess,
                     "rank": rank, "of": len(med), "ok": ok})
    print(f"{'family':20} {'mode':12} {'T':>5} {'table us':>9} {'fastest us':>10} {'excess':>7} {'rank':>8}  ok")
    for r in rows:
        print(f"{r['family']:20} {r['mode']:12} {r['tokens']:5d} {r['table_us']:9.3f} {r['fastest_us']:10.3f} "
              f"{100 * r['excess']:6.2f}% {r['rank']:4d}/{r['of']:<3d}  {'yes' if r['ok'] else 'NO'}")
    print(f"{len(rows) - bad} of {len(rows)} within {100 * a.limit:g}% of the fastest; worst {100 * worst:.2f}%")
    if a.json:
        json.dump({"limit": a.limit, "rows": rows, "within": len(rows) - bad, "of": len(rows)}, open(a.json, "w"), indent=1)
    return 0 if bad == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
