#!/usr/bin/env python3
"""The emitted mla_decode_epilogue table against upstream's hand choice (issue 6 acceptance).

Upstream's kernel uses SPLIT=3 up to 64 tokens and SPLIT=1 above, trigger at the end; as a
kk3tune variant: split{3|1}-unroll1-early_reads0-cache_wait1-rows_per_warp1-trigger_early0-threads128.
For every token count of a sweep's dispatch ranges (mode, heads), this times upstream's choice
and the table's winner side by side (`kk3tune time --variant A,B`, interleaved, graph mode) and
writes OUTDIR/table-vs-upstream.md and one JSON per count.

Usage: python3 bench/mla_table_vs_upstream.py SWEEP.json OUTDIR [MODE [HEADS]]   (default bf16 16)
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_common import Kk3tune, median, results, shape_of  # noqa: E402

sweep_file, out = sys.argv[1], sys.argv[2]
mode = sys.argv[3] if len(sys.argv) > 3 else "bf16"
heads = int(sys.argv[4]) if len(sys.argv) > 4 else 16
os.makedirs(out, exist_ok=True)
kk3 = Kk3tune(out)


def upstream(t):
    split = 3 if t <= 64 else 1
    return f"split{split}-unroll1-early_reads0-cache_wait1-rows_per_warp1-trigger_early0-threads128"


with open(sweep_file) as f:
    sweep = json.load(f)
entry = next(d for d in sweep["dispatch"] if d["family"] == "mla_decode_epilogue" and d["mode"] == mode and shape_of(d) == (("heads", heads),))
rows = []
for r in entry["ranges"]:
    for t in r["tokens"]:
        table, up = r["variant"], upstream(t)
        path = f"{out}/T{t}.json"
        kk3("time", "--family", "mla_decode_epilogue", "--mode", mode, "-T", t, "--heads", heads,
            "--variant", ",".join(sorted({table, up})), "--json", path)
        res = results(path)
        rows.append((t, up, median(res[up]), table, median(res[table])))

with open(f"{out}/table-vs-upstream.md", "w") as f:
    f.write(f"# mla_decode_epilogue {mode}, H={heads}: emitted table against upstream's choice\n\n")
    f.write(f"From {os.path.basename(sweep_file)}; graph mode, medians, both variants interleaved in one run.\n\n")
    f.write("| T | upstream variant | upstream us | table variant | table us | table/upstream |\n| --- | --- | --- | --- | --- | --- |\n")
    for t, up, tu, table, tt in rows:
        f.write(f"| {t} | {up} | {tu:.3f} | {table} | {tt:.3f} | {tt / tu:.3f} |\n")
print(open(f"{out}/table-vs-upstream.md").read())
