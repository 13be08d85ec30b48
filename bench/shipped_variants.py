#!/usr/bin/env python3
"""The shipped variants of a sweep result: per family and mode, the variants its dispatch
section selects for some token range, plus the family's reference variant (the fallback that
every select() returns on an architecture without results, so it ships too).

Usage: shipped_variants.py SWEEP.json [--headers DIR]
Prints one line per family and mode, tab-separated: family, mode, the number of variants, and
their ids as a comma list (the reference first, then the range winners in token order, each once),
which `kk3tune verify --variant` takes.

With --headers DIR (the folder holding kk3tune/dispatch/FAMILY.h, e.g. results/h200/dispatch),
it also checks that every family's union over its modes is exactly the all_variants list of the
committed header, and exits 1 naming the differences if not: the headers are what ships, the
sweep result is only where they came from.
"""
import argparse
import json
import os
import re
import sys


def shipped(sweep):
    """[(family, mode, [ids])] in the order of the dispatch section."""
    out = []
    for entry in sweep["dispatch"]:
        family = entry["family"]
        ids = [sweep["families"][family]["reference"]["variant"]]
        for r in sorted(entry["ranges"], key=lambda r: r["min_tokens"]):
            if r["variant"] not in ids:
                ids.append(r["variant"])
        out.append((family, entry["mode"], ids))
    return out


def header_variants(path):
    """The variant ids in the all_variants list of a generated dispatch header: each entry's
    trailing comment names it."""
    with open(path) as f:
        text = f.read()
    block = re.search(r"all_variants\[\] = \{(.*?)\n\};", text, re.S)
    if not block:
        raise SystemExit(f"{path}: no all_variants list")
    return set(re.findall(r"//\s*(\S+)", block.group(1)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sweep", help="a kk3tune sweep result (JSON)")
    parser.add_argument("--headers", help="folder with kk3tune/dispatch/FAMILY.h to check against")
    args = parser.parse_args()
    with open(args.sweep) as f:
        lists = shipped(json.load(f))
    for family, mode, ids in lists:
        print(f"{family}\t{mode}\t{len(ids)}\t{','.join(ids)}")
    if not args.headers:
        return 0
    bad = 0
    for family in dict.fromkeys(f for f, _, _ in lists):
        union = {i for f, _, ids in lists if f == family for i in ids}
        header = header_variants(os.path.join(args.headers, "kk3tune", "dispatch", family + ".h"))
        if union != header:
            bad += 1
            print(f"{family}: the sweep's dispatch and the header disagree: only in the sweep "
                  f"{sorted(union - header)}, only in the header {sorted(header - union)}", file=sys.stderr)
        else:
            print(f"{family}: {len(union)} variants, the same as the header's all_variants", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
