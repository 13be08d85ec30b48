#!/usr/bin/env python3
"""Summarizes a bench/attn_res_bench.py output folder: writes FOLDER/summary.md and
FOLDER/summary.json and prints the markdown.

Usage: python3 bench/summarize_attn_res_bench.py FOLDER

Reads copy.json and empty.json (the copy ceiling and the empty kernel of the same run),
graph-<mode>-T<T>.json (`kk3tune time --variant all` per shape), and peers.json (the Triton peer,
torch.compile, the checks and the run's notes); any of them may be missing or partial (a run cut
short, variants skipped as unlaunchable): what is missing reads "-" and its targets "not measured".
Every byte count is kk3tune's bytes_moved of the shape.

Targets (issue 14): T=8192 at least 90% of the copy ceiling, T=1024 at least 80%; T=1 with NB=8 at
most 2.5 us; faster than the Triton peer at every shape; at most 0.4x torch.compile's time, unless
that is below the copy-ceiling time of the shape (bytes / ceiling): then that target is waived
(no kernel can be asked to beat the copy) and counted apart. Final line: "targets: X of Y hold",
Y the targets measured and not waived.
"""
import glob
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_common import median, timed_results  # noqa: E402

T1_NB8_LIMIT_US = 2.5
CEILING_SHARE = {8192: 0.90, 1024: 0.80}  # T -> least share of the copy ceiling
COMPILE_FACTOR = 0.4
GRAPH_NAME = re.compile(r"graph-(?P<mode>.+)-T(?P<t>\d+)\.json$")
TAG = re.compile(r"(?P<mode>.+)-T(?P<t>\d+)$")


def case_of(mode):
    """(case, NB) of a mode name: common_nb8 -> (common, 8); an older name nb8 -> (nb8, 8)."""
    m = re.fullmatch(r"(?:(?P<kind>[a-z]+)_)?nb(?P<nb>\d+)(?:_.*)?", mode)
    if not m:
        return mode, None
    return m.group("kind") or mode, int(m.group("nb"))


def load_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def ceiling_of(folder):
    """(TB/s, variant) of the fastest copy_example variant of the run, or (None, None)."""
    path = os.path.join(folder, "copy.json")
    if not os.path.exists(path):
        return None, None
    try:
        copy = timed_results(path)
    except (OSError, ValueError, KeyError):
        return None, None
    rates = {v: r["bytes_moved"] / (median(r) * 1e-6) / 1e12 for v, r in copy.items() if r.get("bytes_moved")}
    if not rates:
        return None, None
    best = max(rates, key=rates.get)
    return rates[best], best


def empty_of(folder):
    path = os.path.join(folder, "empty.json")
    try:
        e = timed_results(path)
    except (OSError, ValueError, KeyError):
        return None
    return min((median(r) for r in e.values()), default=None)


def ratio(a, b):
    return a / b if a is not None and b else None


def row_of(mode, t, graph_path, peer, ceiling_tb_s):
    case, nb = case_of(mode)
    row = {"mode": mode, "case": case, "nb": nb, "t": t, "best_us": None, "best_variant": None, "variants_timed": 0,
           "reference_us": None, "bytes_moved": None, "gb_moved": None, "tb_s": None, "ceiling_share": None,
           "ceiling_time_us": None, "triton_us": None, "triton_num_warps": None, "best_over_triton": None,
           "compiled_us": None, "compile_s": None, "best_over_compile": None}
    g = {}
    if graph_path:
        try:
            g = timed_results(graph_path)
        except (OSError, ValueError, KeyError):
            g = {}
    if g:
        best = min(g, key=lambda v: median(g[v]))
        row.update(best_us=median(g[best]), best_variant=best, variants_timed=len(g),
                   bytes_moved=g[best].get("bytes_moved") or None)
        ref = [r for r in g.values() if r.get("reference")]
        row["reference_us"] = median(ref[0]) if ref else None
    if row["bytes_moved"]:
        row["gb_moved"] = row["bytes_moved"] / 1e9
        row["tb_s"] = row["bytes_moved"] / (row["best_us"] * 1e-6) / 1e12
        if ceiling_tb_s:
            row["ceiling_share"] = row["tb_s"] / ceiling_tb_s
            row["ceiling_time_us"] = row["bytes_moved"] / (ceiling_tb_s * 1e12) * 1e6
    peer = peer or {}
    row["triton_us"] = peer.get("triton_us")
    row["triton_num_warps"] = peer.get("triton_num_warps")
    row["compiled_us"] = peer.get("compiled_us")
    row["compile_s"] = peer.get("compile_s")
    row["best_over_triton"] = ratio(row["best_us"], row["triton_us"])
    row["best_over_compile"] = ratio(row["best_us"], row["compiled_us"])
    return row


def targets_of(row):
    """The issue's targets at this row's shape: dicts of name, holds (True, False, or None when not
    measured), the value and the limit, and a sentence."""
    where = f"{row['case']} NB={row['nb']} T={row['t']}"
    best = row["best_us"]
    out = []
    if row["t"] in CEILING_SHARE:
        need = CEILING_SHARE[row["t"]]
        share = row["ceiling_share"]
        out.append({"name": f"{need:.0%} of ceiling", "holds": None if share is None else share >= need, "value": share,
                    "limit": need, "text": f"{where}: {_pct(share)} of the copy ceiling, target >= {need:.0%}"})
    if row["t"] == 1 and row["nb"] == 8:
        out.append({"name": f"<= {T1_NB8_LIMIT_US} us", "holds": None if best is None else best <= T1_NB8_LIMIT_US,
                    "value": best, "limit": T1_NB8_LIMIT_US,
                    "text": f"{where}: {_us(best)} us, target <= {T1_NB8_LIMIT_US} us"})
    tri = row["triton_us"]
    out.append({"name": "< Triton", "holds": None if best is None or tri is None else best < tri, "value": best, "limit": tri,
                "text": f"{where}: {_us(best)} us against Triton {_us(tri)} us, target faster"})
    comp = row["compiled_us"]
    t_ceiling = row["ceiling_time_us"]
    if comp is not None and t_ceiling is not None and COMPILE_FACTOR * comp < t_ceiling:
        out.append({"name": f"<= {COMPILE_FACTOR}x compile", "holds": None, "waived": True, "value": best, "limit": COMPILE_FACTOR * comp,
                    "text": f"{where}: waived, {COMPILE_FACTOR} x torch.compile = {_us(COMPILE_FACTOR * comp)} us is below the "
                            f"copy-ceiling time {_us(t_ceiling)} us (best {_us(best)} us)"})
    else:
        limit = None if comp is None else COMPILE_FACTOR * comp
        out.append({"name": f"<= {COMPILE_FACTOR}x compile", "holds": None if best is None or limit is None else best <= limit,
                    "value": best, "limit": limit,
                    "text": f"{where}: {_us(best)} us, target <= {COMPILE_FACTOR} x torch.compile {_us(comp)} us = {_us(limit)} us"})
    return out


def _us(x):
    return "-" if x is None else f"{x:.3f}"


def _pct(x):
    return "-" if x is None else f"{100 * x:.1f}%"


def _x(x):
    return "-" if x is None else f"{x:.3f}"


def _mark(target):
    if target.get("waived"):
        return "waived"
    holds = target["holds"]
    return "not measured" if holds is None else ("ok" if holds else "MISS")


def collect(folder):
    """Everything the summary says, as one JSON-ready dict."""
    peers = load_json(os.path.join(folder, "peers.json")) or {}
    ceiling_tb_s, ceiling_variant = ceiling_of(folder)
    shapes = {}  # (mode, t) -> graph path or None
    for path in glob.glob(os.path.join(folder, "graph-*.json")):
        m = GRAPH_NAME.search(os.path.basename(path))
        if m:
            shapes[(m.group("mode"), int(m.group("t")))] = path
    for tag in list(peers.get("peers", {})) + list(peers.get("planned", [])):
        m = TAG.fullmatch(tag)
        if m:
            shapes.setdefault((m.group("mode"), int(m.group("t"))), None)
    order = {mode: i for i, mode in enumerate(peers.get("config", {}).get("cases", []))}
    keys = sorted(shapes, key=lambda k: (order.get(k[0], len(order)), case_of(k[0])[1] or 0, k[0], k[1]))
    rows = []
    for mode, t in keys:
        row = row_of(mode, t, shapes[(mode, t)], peers.get("peers", {}).get(f"{mode}-T{t}"), ceiling_tb_s)
        row["targets"] = targets_of(row)
        rows.append(row)
    targets = [dict(tg, mode=r["mode"], t=r["t"]) for r in rows for tg in r["targets"]]
    context = None
    for mode, t in keys:
        if shapes[(mode, t)]:
            context = (load_json(shapes[(mode, t)]) or {}).get("context")
            if context:
                break
    return {
        "context": context,
        "torch": peers.get("torch"),
        "triton": peers.get("triton"),
        "ceiling_tb_s": ceiling_tb_s,
        "ceiling_variant": ceiling_variant,
        "empty_us": empty_of(folder),
        "rows": rows,
        "targets": targets,
        "held": sum(1 for tg in targets if tg["holds"] is True),
        "evaluated": sum(1 for tg in targets if tg["holds"] is not None),
        "waived": sum(1 for tg in targets if tg.get("waived")),
        "not_measured": sum(1 for tg in targets if tg["holds"] is None and not tg.get("waived")),
        "checks": peers.get("checks", {}),
        "triton_design": peers.get("triton_design"),
        "dynamo_limits": peers.get("dynamo_limits"),
        "stages": peers.get("stages", {}),
        "notes": peers.get("notes", []),
    }


def markdown(s):
    lines = []
    ctx = s["context"] or {}
    gpu = (ctx.get("gpu") or {}).get("name", "the GPU")
    lines.append(f"# attn_res on {gpu}: kk3tune's best variant, the copy ceiling, a Triton peer and torch.compile\n")
    ceiling = "not measured" if s["ceiling_tb_s"] is None else f"{s['ceiling_tb_s']:.3f} TB/s ({s['ceiling_variant']})"
    empty = "not measured" if s["empty_us"] is None else f"{s['empty_us']:.3f} us"
    lines.append(f"kk3tune {ctx.get('tool_version', '?')} (git {ctx.get('git_revision', '?')}), torch {s['torch'] or '-'}, "
                 f"Triton {s['triton'] or '-'}, {ctx.get('utc_time', '?')}. Graph mode, median time per call "
                 f"(kk3tune: `time --variant all`; peers: N calls captured in a CUDA graph). Copy ceiling measured in "
                 f"this run: {ceiling}; empty kernel: {empty}. Bytes are kk3tune's bytes_moved of the shape.\n")
    lines.append("| case | NB | T | best us | best variant | GB moved | TB/s | % of copy ceiling | Triton us | best/Triton "
                 "| torch.compile us | best/compile | verdict |")
    lines.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in s["rows"]:
        verdict = ", ".join(f"{tg['name']} {_mark(tg)}" for tg in r["targets"])
        gb = "-" if r["gb_moved"] is None else f"{r['gb_moved']:.4f}"
        tb = "-" if r["tb_s"] is None else f"{r['tb_s']:.3f}"
        pct = "-" if r["ceiling_share"] is None else f"{100 * r['ceiling_share']:.1f}"
        lines.append(f"| {r['case']} | {r['nb'] if r['nb'] is not None else '-'} | {r['t']} | {_us(r['best_us'])} | "
                     f"{r['best_variant'] or '-'} | {gb} | {tb} | {pct} | {_us(r['triton_us'])} | {_x(r['best_over_triton'])} | "
                     f"{_us(r['compiled_us'])} | {_x(r['best_over_compile'])} | {verdict} |")
    lines.append("")
    lines.append("Per shape also: variants timed, the reference variant, Triton's num_warps, torch.compile's compile time:\n")
    lines.append("| case | NB | T | variants timed | reference us | Triton num_warps | compile s |")
    lines.append("| --- | --- | --- | --- | --- | --- | --- |")
    for r in s["rows"]:
        cs = "-" if r["compile_s"] is None else f"{r['compile_s']:.1f}"
        lines.append(f"| {r['case']} | {r['nb'] if r['nb'] is not None else '-'} | {r['t']} | {r['variants_timed']} | "
                     f"{_us(r['reference_us'])} | {r['triton_num_warps'] or '-'} | {cs} |")
    if s["triton_design"]:
        lines.append(f"\nTriton peer (bench/attn_res_triton.py): {s['triton_design']}")
    if s["checks"]:
        lines.append("\nChecks against the float64 formula (SPEC 1.2; p rounded to bf16 as the SPEC says). torch.compile keeps "
                     "prefix + delta in fp32, so its figures are information, not a pass mark:\n")
        lines.append("| check | T | max abs error | reference max abs | bf16-equal | within 1 ulp | prefix bitwise | finite |")
        lines.append("| --- | --- | --- | --- | --- | --- | --- | --- |")
        for name, c in s["checks"].items():
            if "error" in c:
                lines.append(f"| {name} | - | {c['error']} | | | | | |")
                continue
            pe = c.get("prefix_equal_fraction")
            lines.append(f"| {name} | {c.get('tokens', '-')} | {c['out_max_abs_err']:.3g} | {c['out_ref_max_abs']:.3g} | "
                         f"{100 * c['out_bf16_equal_fraction']:.2f}% | {100 * c['out_within_1ulp_fraction']:.2f}% | "
                         f"{'-' if pe is None else f'{100 * pe:.2f}%'} | {c['out_finite']} |")
    if s["stages"]:
        lines.append("\nWall time by stage: " + ", ".join(f"{k} {v:.1f} s" for k, v in s["stages"].items()) + ".")
    if s["notes"]:
        lines.append("\nNotes:\n")
        lines.extend(f"- {n}" for n in s["notes"])
    lines.append("\n## Targets\n")
    lines.append(f"T=8192 >= 90% and T=1024 >= 80% of the copy ceiling; T=1 NB=8 <= {T1_NB8_LIMIT_US} us; faster than Triton at "
                 f"every shape; <= {COMPILE_FACTOR} x torch.compile, waived where {COMPILE_FACTOR} x torch.compile is below the "
                 f"copy-ceiling time of the shape (bytes / ceiling).\n")
    missing = {}
    for tg in s["targets"]:
        if tg["holds"] is None and not tg.get("waived"):
            missing.setdefault(tg["name"], []).append(f"{tg['mode']} T={tg['t']}")
        else:
            lines.append(f"- {_mark(tg)}: {tg['text']}")
    for name, where in missing.items():
        lines.append(f"- not measured ({name}): {', '.join(where)}")
    extra = [f"{s['waived']} waived" if s["waived"] else "", f"{s['not_measured']} not measured" if s["not_measured"] else ""]
    tail = f" ({'; '.join(x for x in extra if x)})" if any(extra) else ""
    lines.append(f"\ntargets: {s['held']} of {s['evaluated']} hold{tail}")
    return "\n".join(lines) + "\n"


def write(folder):
    """Writes summary.md and summary.json into folder; returns the markdown."""
    s = collect(folder)
    md = markdown(s)
    for name, text in (("summary.md", md), ("summary.json", json.dumps(s, indent=1) + "\n")):
        tmp = os.path.join(folder, name + ".tmp")
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, os.path.join(folder, name))
    return md


def main(argv):
    if len(argv) != 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip(), file=sys.stderr if len(argv) != 2 else sys.stdout)
        return 0 if len(argv) == 2 else 2
    if not os.path.isdir(argv[1]):
        print(f"summarize_attn_res_bench.py: no folder {argv[1]}", file=sys.stderr)
        return 2
    print(write(argv[1]), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
