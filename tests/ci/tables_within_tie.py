#!/usr/bin/env python3
"""Checks that two timed sweeps of one plan chose the same dispatch tables within the tie rule.

usage: tables_within_tie.py A.json B.json

For each table (family, mode, heads, blocks) and each token count, the winners in A and B are the
same variant, or each file measured the two winners within its plan's min_gain of each other (the
band in which selection keeps the incumbent: a tie, either choice is right). Prints one line per
table and a summary; exits 1 when a count's winners differ by more than the band in either file,
or when the files do not hold the same tables and counts.
"""
import json
import sys


def shape_of(d):
    """A record's or table's model shape: "shape" (schema_version 2), or of schema_version 1's
    "heads" and "blocks" the one its family is keyed on (mla_decode_epilogue: heads)."""
    if "shape" in d:
        return tuple(d["shape"].items())
    return (("heads", d["heads"]),) if d["heads"] else (("blocks", d["blocks"]),)


def winners(doc):
    out = {}
    for d in doc["dispatch"]:
        key = (d["family"], d["mode"], shape_of(d))
        for r in d["ranges"]:
            for t in r["tokens"]:
                out[key + (t,)] = r["variant"]
    return out


def medians(doc):
    out = {}
    for r in doc["records"]:
        if r["statistics"] and r["status"] != "dropped":
            out[(r["family"], r["mode"], shape_of(r), r["tokens"], r["variant"])] = r["statistics"]["median_us"]
    return out


def main(a_file, b_file):
    a, b = json.load(open(a_file)), json.load(open(b_file))
    band = max(a["plan"]["min_gain"], b["plan"]["min_gain"])
    wa, wb = winners(a), winners(b)
    if set(wa) != set(wb):
        print(f"tables differ: only in {a_file}: {sorted(set(wa) - set(wb))[:5]}; only in {b_file}: {sorted(set(wb) - set(wa))[:5]}")
        return 1
    ma, mb = medians(a), medians(b)
    same = tie = bad = 0
    for key in sorted(wa):
        va, vb = wa[key], wb[key]
        if va == vb:
            same += 1
            continue
        ok = True
        for name, m in ((a_file, ma), (b_file, mb)):
            ta, tb = m.get(key + (va,)), m.get(key + (vb,))
            if ta is None or tb is None:
                continue  # one of them was not a finalist there: selection never compared them in this file
            if abs(ta / tb - 1) > band:
                ok = False
                print(f"DIFFERS {'/'.join(map(str, key))}: {va} vs {vb}: in {name} {ta:.3f} vs {tb:.3f} us (> {band:.0%})")
        if ok:
            tie += 1
        else:
            bad += 1
    print(f"{b_file} against {a_file}: {same + tie + bad} counts in {len({k[:3] for k in wa})} tables: "
          f"{same} same winner, {tie} within the tie band ({band:.0%}), {bad} beyond it")
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2]))
