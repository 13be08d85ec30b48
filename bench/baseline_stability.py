#!/usr/bin/env python3
"""Issue 16's second check: a sweep run with `--baseline FIRST.json`. Counts the token counts whose
variant changed against the baseline (dispatch[i].baseline) and checks each change: a gain of at
least the plan's min_gain, beyond noise_sigmas combined standard errors, measured in this run.
Also recounts the changes from the two files' tables, independently of what the sweep says.
Exit 0 when at most LIMIT (default 2%) of the counts changed and every change is such a gain.

usage: bench/baseline_stability.py FIRST.json SECOND.json [--limit 0.02]"""
import argparse
import json
import sys


def choices(sweep):
    out = {}
    for d in sweep["dispatch"]:
        key = (d["family"], d["mode"], json.dumps(d.get("shape", {}), sort_keys=True))
        for r in d["ranges"]:
            for t in r["tokens"]:
                out[key + (t,)] = r["variant"]
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("first")
    ap.add_argument("second")
    ap.add_argument("--limit", type=float, default=0.02)
    a = ap.parse_args()
    first, second = json.load(open(a.first)), json.load(open(a.second))
    plan = second["plan"]
    if not plan.get("baseline"):
        print(f"{a.second}: not a sweep with --baseline", file=sys.stderr)
        return 2
    min_gain, sigmas = plan["min_gain"], plan["noise_sigmas"]
    counts, changes = 0, []
    for d in second["dispatch"]:
        b = d.get("baseline")
        if not b:
            continue
        counts += b["counts"]
        for c in b["changes"]:
            changes.append((d["family"], d["mode"], d.get("shape", {}), c))
    a_choices, b_choices = choices(first), choices(second)
    recount = sum(1 for k, v in b_choices.items() if k in a_choices and a_choices[k] != v)
    bad = 0
    for fam, mode, shape, c in changes:
        ok = c["from_qualified"] and c["gain"] >= min_gain and c["gain_sigmas"] >= sigmas
        bad += not ok
        print(f"  {fam}/{mode} {shape} T={c['tokens']}: {c['from']} -> {c['to']}: {100 * c['gain']:.2f}% faster, "
              f"{c['gain_sigmas']:.1f} sigma{'' if ok else '  NOT A CLEAR GAIN'}")
    share = len(changes) / counts if counts else 0
    print(f"{len(changes)} of {counts} token counts changed their variant against the baseline ({100 * share:.2f}%; "
          f"recounted from the two tables: {recount}); {len(changes) - bad} of them a gain of at least "
          f"{100 * min_gain:g}% beyond {sigmas:g} sigma")
    if recount != len(changes):
        print("the sweep's own count of changes disagrees with the tables", file=sys.stderr)
        return 1
    return 0 if share <= a.limit and bad == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
