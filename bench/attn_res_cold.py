#!/usr/bin/env python3
"""The cold instrument of the attn_res benchmark: Nsight Compute's kernel time after every cache is
flushed, the same instrument for kk3tune and for the Triton peer, beside the graph figures of a
bench/attn_res_bench.py run (issue 35).

Usage: python3 bench/attn_res_cold.py BENCH_OUTDIR

Reads BENCH_OUTDIR/summary.json (bench/summarize_attn_res_bench.py: per shape the dispatch table's
choice, kk3tune's best variant in graph mode, the tuned Triton tile and their graph times, the copy
ceiling) and measures, per shape, with
    ncu --cache-control all --clock-control none --metrics gpu__time_duration.sum,...
  - kk3tune: `kk3tune profile --family attn_res --mode MODE -T T --variant V -n 5` inside its NVTX
    range, for the table's choice and for the graph-best variant (one run when they are the same);
  - Triton: its tuned tile of that shape, one warm-up launch and 5 launches, every shape in one
    process (this script with --triton-worker, the kernel picked by name, the warm-up dropped).
Each figure is the median of the 5 launches. Beside the time, ncu counts what the kernel issued:
warp-instructions per token (smsp__inst_executed.sum / T) and the share of cycles in which a
scheduler issued one (smsp__issue_active, of the active cycles), the cause of an issue-bound time
(issue 43). Writes BENCH_OUTDIR/cold.json (every sample, every command) and BENCH_OUTDIR/cold.md
(graph and cold side by side, then the targets) and prints the markdown.

Targets (issue 43) at the 20 peer cells (common NB 1, 4, 8 and post NB 8 at T 1, 64, 256, 1024,
8192): the table's choice faster than the tuned Triton tile in graph mode and cold; cold at or below
the issue's figures at common NB 1, 4, 8 and T 256, 1024, 8192 (NB 1: 7.5, 18, 145 us; NB 4: 10.5,
31, 235; NB 8: 15, 45, 345); at T = 8192 at least 90% of the copy ceiling in graph mode, at
T = 1024 at least 80%; at common NB 4 and 8, T = 1024, no more warp-instructions per token than the
Triton tile.

Environment: KK3TUNE (default build/kk3tune), NCU (default: ncu on PATH, else
/usr/local/cuda/bin/ncu), KK3_COLD_BUDGET_S (default 300): a kk3tune run that would start past it
is skipped with a note. Exit code 0 when it ran (whatever it measured), 2 on bad usage.
"""
import csv
import io
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from attn_res_bench import case_flags, make_device_inputs, parse_case  # noqa: E402
from summarize_attn_res_bench import CEILING_SHARE, ratio  # noqa: E402

LAUNCHES = 5
SEED = 20261204
METRICS = ("gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,"
           "sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,"
           "smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active")
PEER_CELLS = {("common", 1), ("common", 4), ("common", 8), ("post", 8)}
COLD_LIMIT_US = {(1, 256): 7.5, (1, 1024): 18.0, (1, 8192): 145.0, (4, 256): 10.5, (4, 1024): 31.0, (4, 8192): 235.0,
                 (8, 256): 15.0, (8, 1024): 45.0, (8, 8192): 345.0}  # common NB, T -> us (issue 43)
INSTRUCTION_CELLS = {(4, 1024), (8, 1024)}  # common NB, T: no more warp-instructions per token than Triton


def ncu_binary():
    explicit = os.environ.get("NCU")
    if explicit:
        return explicit
    return shutil.which("ncu") or "/usr/local/cuda/bin/ncu"


def ncu_prefix(ncu):
    return [ncu, "--cache-control", "all", "--clock-control", "none", "--csv", "--page", "raw", "--metrics", METRICS]


def parse_ncu_csv(text):
    """The kernel rows of `ncu --csv --page raw` output (after any lines the application printed), each
    a dict of the metrics with gpu__time_duration.sum in microseconds; [] when there are none."""
    start = text.find('"ID",')
    if start < 0:
        return []
    rows = list(csv.DictReader(io.StringIO(text[start:])))
    if not rows:
        return []
    units, kernels = rows[0], rows[1:]
    scale = {"ns": 1e-3, "nsecond": 1e-3, "us": 1.0, "usecond": 1.0, "ms": 1e3, "msecond": 1e3}
    to_us = scale.get(units.get("gpu__time_duration.sum", "").strip())
    out = []
    for k in kernels:
        row = {"kernel": k.get("Kernel Name", "")}
        for name in METRICS.split(","):
            raw = (k.get(name) or "").replace(",", "")
            try:
                row[name] = float(raw)
            except ValueError:
                row[name] = None
        d = row["gpu__time_duration.sum"]
        row["us"] = d * to_us if d is not None and to_us else None
        out.append(row)
    return out


def summary_of(samples, tokens):
    """Medians over the launches: time, DRAM and warp shares, registers, warp-instructions per token
    (of `tokens`) and the issue-active share; None without a time."""
    us = [s["us"] for s in samples if s.get("us") is not None]
    if not us:
        return None

    def pick(k):
        got = [s[k] for s in samples if s.get(k) is not None]
        return statistics.median(got) if got else None

    inst = pick("smsp__inst_executed.sum")
    return {"us": statistics.median(us), "samples_us": us, "dram_pct": pick("dram__throughput.avg.pct_of_peak_sustained_elapsed"),
            "warps_active_pct": pick("sm__warps_active.avg.pct_of_peak_sustained_active"),
            "registers": pick("launch__registers_per_thread"),
            "inst_per_token": inst / tokens if inst is not None else None,
            "issue_active_pct": pick("smsp__issue_active.avg.pct_of_peak_sustained_active")}


# ------------------------------------------------------------------ kk3tune
def cold_kk3tune(ncu, kk3, mode, t, variant, logs):
    cmd = ncu_prefix(ncu) + ["--nvtx", "--nvtx-include", "kk3tune@profile/", kk3, "profile", "--family", "attn_res",
                             "--mode", mode, "-T", str(t), "--variant", variant, "-n", str(LAUNCHES), "--seed", str(SEED)]
    log = os.path.join(logs, f"ncu-{mode}-T{t}-{variant}.csv")
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=60)
        text, rc = p.stdout, p.returncode
    except subprocess.TimeoutExpired as e:
        text, rc = (e.stdout or b"").decode() if isinstance(e.stdout, bytes) else (e.stdout or ""), "timeout"
    with open(log, "w") as f:
        f.write(" ".join(cmd) + "\n" + text)
    rows = parse_ncu_csv(text)
    res = summary_of(rows, t) or {}
    res.update(variant=variant, command=" ".join(cmd), rc=rc, launches=len(rows))
    if len(rows) != LAUNCHES:
        res["note"] = f"{len(rows)} kernel rows, {LAUNCHES} expected (log {os.path.basename(log)})"
    return res


# ------------------------------------------------------------------ Triton
def triton_worker(jobs_path):
    """Runs under ncu: per job, the tuned tile once (warm-up) and LAUNCHES times."""
    import torch
    import attn_res_triton as A

    for job in json.load(open(jobs_path)):
        nb, t = job["nb"], job["t"]
        flags = case_flags(job["kind"], nb)
        write_idx = flags[2]
        args = make_device_inputs(t, nb, flags, "cuda", SEED + t)
        out = args[1].new_empty(args[1].shape)
        tile = [int(x) for x in job["tile"].split("x")]
        torch.cuda.synchronize()
        for _ in range(1 + LAUNCHES):
            A.attn_res_triton(*args, nb, write_idx, out=out, block_l=tile[0], num_warps=tile[1], num_stages=tile[2])
        torch.cuda.synchronize()
        del args, out


def cold_triton(ncu, rows, out_dir):
    jobs = []
    for r in rows:
        if r.get("triton_tuned_tile"):
            kind, nb = parse_case(r["mode"])
            jobs.append({"tag": f"{r['mode']}-T{r['t']}", "kind": kind, "nb": nb, "t": r["t"], "tile": r["triton_tuned_tile"]})
    if not jobs:
        return {}, None
    path = os.path.join(out_dir, "cold-triton-jobs.json")
    with open(path, "w") as f:
        json.dump(jobs, f, indent=1)
    cmd = ncu_prefix(ncu) + ["-k", "regex:attn_res_kernel", sys.executable, os.path.abspath(__file__), "--triton-worker", path]
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600)
        text = p.stdout
    except subprocess.TimeoutExpired as e:
        text = (e.stdout or b"").decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
    with open(os.path.join(out_dir, "logs", "ncu-triton.csv"), "w") as f:
        f.write(" ".join(cmd) + "\n" + text)
    kernels = parse_ncu_csv(text)
    per = 1 + LAUNCHES
    res = {}
    for i, job in enumerate(jobs):  # the kernel rows come in the jobs' order, per job the warm-up first
        got = kernels[i * per:(i + 1) * per]
        s = summary_of(got[1:], job["t"]) if len(got) == per else None
        res[job["tag"]] = dict(s or {}, tile=job["tile"], launches=max(len(got) - 1, 0))
        if len(kernels) != per * len(jobs):
            res[job["tag"]]["note"] = f"{len(kernels)} kernel rows for {len(jobs)} shapes: figures not assigned"
            res[job["tag"]].pop("us", None)
    return res, " ".join(cmd)


# ------------------------------------------------------------------ report
def fmt(x, spec=".2f"):
    return "-" if x is None else format(x, spec)


def report(doc):
    lines = ["# attn_res: graph and cold (ncu --cache-control all --clock-control none)", "",
             f"kk3tune's cold figure: median of {LAUNCHES} launches of `profile`; Triton's: its tuned tile (graph search), "
             f"median of {LAUNCHES} launches after one warm-up. Graph figures from summary.json of the same run.", "",
             "Warp-instructions per token: smsp__inst_executed.sum / T; issue active: smsp__issue_active of the "
             "active cycles (a scheduler issued in that share of them), both medians of the same launches, cold.", "",
             "| case | T | table variant | table graph | Triton graph | ratio | table cold | best cold | Triton cold | ratio | "
             "graph ceiling share | cold DRAM % | instr/token: table / Triton | issue active %: table / Triton |",
             "|" + " --- |" * 14]
    for r in doc["rows"]:
        c = r["cold"]
        table, triton = c.get("table") or {}, c.get("triton") or {}
        tc, bc, trc = table.get("us"), (c.get("best") or {}).get("us"), triton.get("us")
        lines.append(f"| {r['mode']} | {r['t']} | {r['table_variant'] or '-'} | {fmt(r['table_us'])} | {fmt(r['triton_tuned_us'])} | "
                     f"{fmt(ratio(r['table_us'], r['triton_tuned_us']), '.3f')} | {fmt(tc)} | {fmt(bc)} | {fmt(trc)} | "
                     f"{fmt(ratio(tc, trc), '.3f')} | {fmt(r['table_ceiling_share'], '.1%')} | "
                     f"{fmt(table.get('dram_pct'), '.0f')} | {fmt(table.get('inst_per_token'), '.0f')} / "
                     f"{fmt(triton.get('inst_per_token'), '.0f')} | {fmt(table.get('issue_active_pct'), '.0f')} / "
                     f"{fmt(triton.get('issue_active_pct'), '.0f')} |")
    lines += ["", "## Targets", ""]
    held = total = 0
    for name, ok, where in targets(doc["rows"]):
        total += 1
        held += bool(ok)
        lines.append(f"- {'holds' if ok else 'MISSED'}: {name} ({where})")
    lines += ["", f"targets: {held} of {total} hold"]
    for n in doc.get("notes", []):
        lines.append(f"- note: {n}")
    return "\n".join(lines) + "\n"


def targets(rows):
    """(name, held, where) per measured target."""
    out = []
    for r in rows:
        kind, nb = parse_case(r["mode"])
        c, where = r["cold"], f"{r['mode']} T={r['t']}"
        table_cold, tri_cold = (c.get("table") or {}).get("us"), (c.get("triton") or {}).get("us")
        if (kind, nb) in PEER_CELLS:
            if r["table_us"] is not None and r["triton_tuned_us"] is not None:
                out.append(("graph: the table's choice faster than tuned Triton", r["table_us"] < r["triton_tuned_us"],
                            f"{where}: {r['table_us']:.2f} vs {r['triton_tuned_us']:.2f} us"))
            if table_cold is not None and tri_cold is not None:
                out.append(("cold: the table's choice faster than tuned Triton", table_cold < tri_cold,
                            f"{where}: {table_cold:.2f} vs {tri_cold:.2f} us"))
        limit = COLD_LIMIT_US.get((nb, r["t"])) if kind == "common" else None
        if limit is not None and table_cold is not None:
            out.append((f"cold at or below {limit} us", table_cold <= limit, f"{where}: {table_cold:.2f} us"))
        ours, theirs = (c.get("table") or {}).get("inst_per_token"), (c.get("triton") or {}).get("inst_per_token")
        if kind == "common" and (nb, r["t"]) in INSTRUCTION_CELLS and ours is not None and theirs is not None:
            out.append(("warp-instructions per token at or below the Triton tile's", ours <= theirs,
                        f"{where}: {ours:.0f} vs {theirs:.0f}"))
        need = CEILING_SHARE.get(r["t"])
        if need is not None and r.get("table_ceiling_share") is not None:
            out.append((f"graph >= {need:.0%} of the copy ceiling", r["table_ceiling_share"] >= need,
                        f"{where}: {r['table_ceiling_share']:.1%}"))
    return out


def main(argv):
    if len(argv) == 3 and argv[1] == "--triton-worker":
        triton_worker(argv[2])
        return 0
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    out_dir = argv[1]
    try:
        summary = json.load(open(os.path.join(out_dir, "summary.json")))
    except (OSError, ValueError) as e:
        print(f"attn_res_cold.py: {out_dir}/summary.json: {e} (run bench/attn_res_bench.py first)", file=sys.stderr)
        return 2
    kk3 = os.path.abspath(os.environ.get("KK3TUNE", "build/kk3tune"))
    ncu, budget, start = ncu_binary(), float(os.environ.get("KK3_COLD_BUDGET_S", "300")), time.monotonic()
    logs = os.path.join(out_dir, "logs")
    os.makedirs(logs, exist_ok=True)
    doc = {"ncu": ncu, "launches": LAUNCHES, "metrics": METRICS, "notes": [], "rows": []}
    tri, doc["triton_command"] = cold_triton(ncu, summary["rows"], out_dir)
    for r in summary["rows"]:
        keep = {k: r.get(k) for k in ("mode", "t", "table_variant", "table_us", "best_variant", "best_us",
                                      "triton_tuned_tile", "triton_tuned_us", "ceiling_share", "table_ceiling_share")}
        cold = {"triton": tri.get(f"{r['mode']}-T{r['t']}")}
        for role in ("table", "best"):
            v = r.get(f"{role}_variant")
            if not v:
                continue
            if role == "best" and v == r.get("table_variant"):
                cold["best"] = cold["table"]
                continue
            if time.monotonic() - start > budget:
                doc["notes"].append(f"{r['mode']} T={r['t']} {role} {v}: skipped, KK3_COLD_BUDGET_S={budget:.0f} spent")
                continue
            cold[role] = cold_kk3tune(ncu, kk3, r["mode"], r["t"], v, logs)
        keep["cold"] = cold
        doc["rows"].append(keep)
        print(f"[{time.monotonic() - start:6.1f} s] {r['mode']} T={r['t']}: table {fmt((cold.get('table') or {}).get('us'))} "
              f"best {fmt((cold.get('best') or {}).get('us'))} Triton {fmt((cold.get('triton') or {}).get('us'))} us", flush=True)
    with open(os.path.join(out_dir, "cold.json"), "w") as f:
        json.dump(doc, f, indent=1)
    md = report(doc)
    with open(os.path.join(out_dir, "cold.md"), "w") as f:
        f.write(md)
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
