#!/usr/bin/env python3
"""Summarizes a bench/attn_res_bench.py output folder: writes FOLDER/summary.md and
FOLDER/summary.json and prints the markdown.

Usage: python3 bench/summarize_attn_res_bench.py FOLDER

Reads copy.json and empty.json (the copy ceiling and the empty kernel of the same run),
graph-<mode>-T<T>.json (`kk3tune time --variant all` per shape), and peers.json (the dispatch
table's choice per shape, the Triton peer with vLLM's tiles and with the best tile of its search,
torch.compile, the checks and the run's notes); any of them may be missing or partial (a run cut
short, variants skipped as unlaunchable): what is missing reads "-" and its targets "not measured".
Every byte count is kk3tune's bytes_moved of the shape. The table's choice is timed by the same
`time --variant all` run as the best variant: its median there.

Targets (issue 24), from the measured numbers of kk3tune's best variant only: faster than the tuned
Triton peer at every shape; T=8192 at least 90% of the copy ceiling in every case, T=1024 at least
80%; common, post and final NB=8 at T=1 at most 2.5 us. Each miss is listed with its numbers; the
final line: "targets: X of Y hold", Y the targets measured.
"""
import glob
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_common import median, results, timed_results  # noqa: E402

T1_NB8_LIMIT_US = 2.5
T1_NB8_CASES = ("common", "post", "final")
CEILING_SHARE = {8192: 0.90, 1024: 0.80}  # T -> least share of the copy ceiling
GRAPH_NAME = re.compile(r"graph-(?P<mode>.+)-T(?P<t>\d+)\.json$")
TAG = re.compile(r"(?P<mode>.+)-T(?P<t>\d+)$")
TARGET_NAMES = {"triton": "faster than the tuned Triton peer", "ceiling8192": "T=8192 >= 90% of the copy ceiling",
                "ceiling1024": "T=1024 >= 80% of the copy ceiling", "t1": f"NB=8 at T=1 <= {T1_NB8_LIMIT_US} us"}


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


def rate_of(nbytes, us):
    return nbytes / (us * 1e-6) / 1e12 if nbytes and us else None


def row_of(mode, t, graph_path, peer, table, ceiling_tb_s):
    case, nb = case_of(mode)
    row = {"mode": mode, "case": case, "nb": nb, "t": t, "best_us": None, "best_variant": None, "variants_timed": 0,
           "reference_us": None, "table_variant": None, "table_us": None, "table_over_best": None, "table_range": None,
           "table_note": None, "bytes_moved": None, "gb_moved": None, "tb_s": None, "ceiling_share": None,
           "table_ceiling_share": None, "ceiling_time_us": None, "triton_vllm_us": None, "triton_vllm_tile": None,
           "triton_tuned_us": None, "triton_tuned_tile": None, "triton_by_tile": {}, "best_over_triton": None,
           "best_over_triton_vllm": None, "compiled_us": None, "compile_s": None, "best_over_compile": None}
    g, every = {}, {}
    if graph_path:
        try:
            g, every = timed_results(graph_path), results(graph_path)
        except (OSError, ValueError, KeyError):
            g, every = {}, {}
    if g:
        best = min(g, key=lambda v: median(g[v]))
        row.update(best_us=median(g[best]), best_variant=best, variants_timed=len(g),
                   bytes_moved=g[best].get("bytes_moved") or None)
        ref = [r for r in g.values() if r.get("reference")]
        row["reference_us"] = median(ref[0]) if ref else None
    if table is None:
        row["table_note"] = "not looked up"
    elif "error" in table:
        row["table_note"] = table["error"]
    else:
        v = table["variant"]
        row.update(table_variant=v, table_range=[table["min_tokens"], table["max_tokens"]])
        if v in g:
            row["table_us"] = median(g[v])
        elif not graph_path:
            row["table_note"] = "kk3tune not run"
        elif v in every:
            row["table_note"] = f"not timed in this run ({every[v].get('status', 'no time')})"
        else:
            row["table_note"] = "not in this run's variants"
        if not table.get("measured", True):
            row["table_note"] = ((row["table_note"] + "; ") if row["table_note"] else "") + "T not a count the sweep measured"
    if row["bytes_moved"]:
        row["gb_moved"] = row["bytes_moved"] / 1e9
        row["tb_s"] = rate_of(row["bytes_moved"], row["best_us"])
        if ceiling_tb_s:
            row["ceiling_share"] = row["tb_s"] / ceiling_tb_s
            row["ceiling_time_us"] = row["bytes_moved"] / (ceiling_tb_s * 1e12) * 1e6
            if row["table_us"]:
                row["table_ceiling_share"] = rate_of(row["bytes_moved"], row["table_us"]) / ceiling_tb_s
    row["table_over_best"] = ratio(row["table_us"], row["best_us"])
    peer = peer or {}
    for key in ("triton_vllm_us", "triton_vllm_tile", "triton_tuned_us", "triton_tuned_tile", "compiled_us", "compile_s"):
        row[key] = peer.get(key)
    row["triton_by_tile"] = peer.get("triton_by_tile") or {}
    row["best_over_triton"] = ratio(row["best_us"], row["triton_tuned_us"])
    row["best_over_triton_vllm"] = ratio(row["best_us"], row["triton_vllm_us"])
    row["best_over_compile"] = ratio(row["best_us"], row["compiled_us"])
    return row


def targets_of(row):
    """The issue's targets at this row's shape: dicts of key, name, holds (True, False, or None when not
    measured), the value and the limit, and a sentence with the numbers."""
    where = f"{row['case']} NB={row['nb']} T={row['t']}"
    best = row["best_us"]
    variant = row["best_variant"] or "-"
    table = ""
    if row["table_us"] is not None:
        table = f"; the table's choice {row['table_variant']} {_us(row['table_us'])} us"
    out = []
    tri = row["triton_tuned_us"]
    out.append({"key": "triton", "holds": None if best is None or tri is None else best < tri, "value": best, "limit": tri,
                "text": f"{where}: best {_us(best)} us ({variant}) against the tuned Triton peer {_us(tri)} us "
                        f"(tile {row['triton_tuned_tile'] or '-'}), best/Triton {_x(row['best_over_triton'])}{table}"})
    if row["t"] in CEILING_SHARE:
        need = CEILING_SHARE[row["t"]]
        share = row["ceiling_share"]
        if row["table_ceiling_share"] is not None:
            table = f"; the table's choice {row['table_variant']} {_pct(row['table_ceiling_share'])}"
        out.append({"key": f"ceiling{row['t']}", "holds": None if share is None else share >= need, "value": share, "limit": need,
                    "text": f"{where}: best {_pct(share)} of the copy ceiling ({_us(best)} us, {_tb(row['tb_s'])} TB/s, "
                            f"{variant}), target >= {need:.0%}{table}"})
    if row["t"] == 1 and row["nb"] == 8 and row["case"] in T1_NB8_CASES:
        out.append({"key": "t1", "holds": None if best is None else best <= T1_NB8_LIMIT_US, "value": best,
                    "limit": T1_NB8_LIMIT_US, "text": f"{where}: best {_us(best)} us ({variant}), target <= {T1_NB8_LIMIT_US} us{table}"})
    for tg in out:
        tg["name"] = TARGET_NAMES[tg["key"]]
    return out


def _us(x):
    return "-" if x is None else f"{x:.3f}"


def _pct(x):
    return "-" if x is None else f"{100 * x:.1f}%"


def _x(x):
    return "-" if x is None else f"{x:.3f}"


def _tb(x):
    return "-" if x is None else f"{x:.3f}"


def _mark(target):
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
    looked_up = bool((peers.get("sweep") or {}).get("path"))
    rows = []
    for mode, t in keys:
        tag = f"{mode}-T{t}"
        table = (peers.get("table") or {}).get(tag) if looked_up else None
        if looked_up and table is None:
            table = {"error": "no table looked up for this shape"}
        row = row_of(mode, t, shapes[(mode, t)], peers.get("peers", {}).get(tag), table, ceiling_tb_s)
        row["targets"] = targets_of(row)
        rows.append(row)
    targets = [dict(tg, mode=r["mode"], t=r["t"]) for r in rows for tg in r["targets"]]
    context = None
    for mode, t in keys:
        if shapes[(mode, t)]:
            context = (load_json(shapes[(mode, t)]) or {}).get("context")
            if context:
                break
    grid = peers.get("triton_grid") or []
    tiles = list(grid)
    for r in rows:  # vLLM's tiles outside the grid, then anything else timed
        tiles.extend(n for n in r["triton_by_tile"] if n not in tiles)
    return {
        "context": context,
        "torch": peers.get("torch"),
        "triton": peers.get("triton"),
        "ceiling_tb_s": ceiling_tb_s,
        "ceiling_variant": ceiling_variant,
        "empty_us": empty_of(folder),
        "sweep": peers.get("sweep"),
        "rows": rows,
        "targets": targets,
        "held": sum(1 for tg in targets if tg["holds"] is True),
        "evaluated": sum(1 for tg in targets if tg["holds"] is not None),
        "not_measured": sum(1 for tg in targets if tg["holds"] is None),
        "checks": peers.get("checks", {}),
        "triton_design": peers.get("triton_design"),
        "triton_grid": grid,
        "triton_tiles": tiles,
        "triton_precompile": peers.get("triton_precompile"),
        "dynamo_limits": peers.get("dynamo_limits"),
        "stages": peers.get("stages", {}),
        "notes": peers.get("notes", []),
    }


def _nb(r):
    return r["nb"] if r["nb"] is not None else "-"


def _tile_cell(r, name):
    rec = r["triton_by_tile"].get(name)
    if rec is None:
        return "-"
    if "us" not in rec:
        return "check failed" if rec.get("skipped") == "its check failed" else ("error" if "error" in rec else "-")
    marks = ("*" if name == r["triton_tuned_tile"] else "") + ("v" if name == r["triton_vllm_tile"] else "")
    return f"{rec['us']:.3f}{' ' + marks if marks else ''}"


def _share(x):
    return "-" if x is None else f"{100 * x:.2f}%"


def markdown(s):
    lines = []
    ctx = s["context"] or {}
    gpu = (ctx.get("gpu") or {}).get("name", "the GPU")
    lines.append(f"# attn_res on {gpu}: kk3tune's best variant and its dispatch table, the copy ceiling, a Triton peer "
                 f"(vLLM's design) and torch.compile\n")
    ceiling = "not measured" if s["ceiling_tb_s"] is None else f"{s['ceiling_tb_s']:.3f} TB/s ({s['ceiling_variant']})"
    empty = "not measured" if s["empty_us"] is None else f"{s['empty_us']:.3f} us"
    lines.append(f"kk3tune {ctx.get('tool_version', '?')} (git {ctx.get('git_revision', '?')}), torch {s['torch'] or '-'}, "
                 f"Triton {s['triton'] or '-'}, {ctx.get('utc_time', '?')}. Graph mode, median time per call "
                 f"(kk3tune: `time --variant all`; peers: N calls captured in a CUDA graph). Copy ceiling measured in "
                 f"this run: {ceiling}; empty kernel: {empty}. Bytes are kk3tune's bytes_moved of the shape.\n")
    sw = s["sweep"] or {}
    if sw.get("path"):
        lines.append(f"Dispatch table: `{sw['path']}` (sweep of {sw.get('utc_time') or '?'}, git {sw.get('git_revision') or '?'}, "
                     f"{sw.get('gpu') or '?'}, attn_res objective {sw.get('objective') or '?'}): the variant its select(T) "
                     f"takes, timed in this run's `time --variant all` beside the best.\n")
    else:
        lines.append(f"Dispatch table: not looked up ({sw.get('note') or 'KK3_BENCH_SWEEP not set'}): its columns read \"-\".\n")
    lines.append("| case | NB | T | best us | best variant | table variant | table us | table/best | GB moved | TB/s "
                 "| % of copy ceiling (best) | % of copy ceiling (table) | Triton vLLM-tiles us | Triton tuned us | tuned tile "
                 "| best/Triton tuned | torch.compile us |")
    lines.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in s["rows"]:
        gb = "-" if r["gb_moved"] is None else f"{r['gb_moved']:.4f}"
        tv = r["table_variant"] or "-"
        if r["table_variant"] and r["table_variant"] == r["best_variant"]:
            tv = "= best"
        pct = "-" if r["ceiling_share"] is None else f"{100 * r['ceiling_share']:.1f}"
        tpct = "-" if r["table_ceiling_share"] is None else f"{100 * r['table_ceiling_share']:.1f}"
        lines.append(f"| {r['case']} | {_nb(r)} | {r['t']} | {_us(r['best_us'])} | {r['best_variant'] or '-'} | {tv} | "
                     f"{_us(r['table_us'])} | {_x(r['table_over_best'])} | {gb} | {_tb(r['tb_s'])} | {pct} | {tpct} | "
                     f"{_us(r['triton_vllm_us'])} | {_us(r['triton_tuned_us'])} | {r['triton_tuned_tile'] or '-'} | "
                     f"{_x(r['best_over_triton'])} | {_us(r['compiled_us'])} |")
    lines.append("")
    lines.append("Per shape also: variants timed, the reference variant, the table's range and why its time may be "
                 "missing, Triton's vLLM tile, best/Triton with vLLM's tiles, torch.compile's compile time and best/compile:\n")
    lines.append("| case | NB | T | variants timed | reference us | table range | table note | Triton vLLM tile | best/Triton vLLM "
                 "| compile s | best/compile |")
    lines.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in s["rows"]:
        cs = "-" if r["compile_s"] is None else f"{r['compile_s']:.1f}"
        rng = "-" if not r["table_range"] else f"{r['table_range'][0]}-{r['table_range'][1]}"
        lines.append(f"| {r['case']} | {_nb(r)} | {r['t']} | {r['variants_timed']} | {_us(r['reference_us'])} | {rng} | "
                     f"{r['table_note'] or '-'} | {r['triton_vllm_tile'] or '-'} | {_x(r['best_over_triton_vllm'])} | {cs} | "
                     f"{_x(r['best_over_compile'])} |")
    if s["triton_tiles"]:
        lines.append(f"\nTriton peer, us per call by tile (BLOCK_L x num_warps x num_stages; * the fastest of the search grid "
                     f"{', '.join(s['triton_grid']) or '-'}; v vLLM's own tile; \"check failed\": not timed):\n")
        lines.append("| case | NB | T | " + " | ".join(s["triton_tiles"]) + " |")
        lines.append("| --- | --- | --- | " + " | ".join("---" for _ in s["triton_tiles"]) + " |")
        for r in s["rows"]:
            if r["triton_by_tile"]:
                lines.append(f"| {r['case']} | {_nb(r)} | {r['t']} | " + " | ".join(_tile_cell(r, n) for n in s["triton_tiles"]) + " |")
    if s["triton_design"]:
        lines.append(f"\nTriton peer (bench/attn_res_triton.py): {s['triton_design']}")
    pc = s["triton_precompile"]
    if pc:
        lines.append(f"Compiled first: {pc['kernels']} kernels in {pc['wall_s']:.1f} s by {pc['workers']} processes "
                     f"({pc['compile_s']:.1f} s of compiling){', ' + str(len(pc['errors'])) + ' failed' if pc['errors'] else ''}.")
    if s["checks"]:
        lines.append("\nChecks against the float64 formula (SPEC 1.2; p rounded to bf16 as the SPEC says). A Triton tile passes "
                     "with SPEC 1.3's contract: out finite, every element within |out - x| <= ulp_bf16(x) + 2^-12 m, at least "
                     "99.9% bf16-equal, the prefix (and the block write) bitwise, no other input touched. torch.compile keeps "
                     "prefix + delta in fp32, so its figures are information, not a pass mark:\n")
        lines.append("| check | T | max abs error | reference max abs | bf16-equal | within 1 ulp | within SPEC bound | prefix bitwise "
                     "| block write bitwise | inputs untouched | finite | verdict |")
        lines.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
        for name, c in s["checks"].items():
            if "error" in c:
                lines.append(f"| {name} | - | {c['error']} | | | | | | | | | error |")
                continue
            verdict = "pass" if c.get("ok") else f"FAIL: {c.get('failed', '?')}"
            if name.startswith("torch.compile"):
                verdict = "information" + ("" if c.get("ok") else f" ({c.get('failed', '?')})")
            ui = c.get("inputs_untouched")
            lines.append(f"| {name} | {c.get('tokens', '-')} | {c['out_max_abs_err']:.3g} | {c['out_ref_max_abs']:.3g} | "
                         f"{_share(c['out_bf16_equal_fraction'])} | {_share(c['out_within_1ulp_fraction'])} | "
                         f"{_share(c.get('out_within_bound_fraction'))} | {_share(c.get('prefix_equal_fraction'))} | "
                         f"{_share(c.get('block_write_equal_fraction'))} | {'-' if ui is None else ui} | {c['out_finite']} | {verdict} |")
    if s["stages"]:
        lines.append("\nWall time by stage: " + ", ".join(f"{k} {v:.1f} s" for k, v in s["stages"].items()) + ".")
    if s["notes"]:
        lines.append("\nNotes:\n")
        lines.extend(f"- {n}" for n in s["notes"])
    lines.append("\n## Targets\n")
    lines.append(f"From the measured numbers of kk3tune's best variant only: faster than the tuned Triton peer at every shape; "
                 f"T=8192 >= 90% and T=1024 >= 80% of the copy ceiling in every case; {', '.join(T1_NB8_CASES)} NB=8 at T=1 "
                 f"<= {T1_NB8_LIMIT_US} us. Each MISS with its numbers.\n")
    for key, name in TARGET_NAMES.items():
        mine = [tg for tg in s["targets"] if tg["key"] == key]
        if not mine:
            continue
        held = sum(1 for tg in mine if tg["holds"] is True)
        measured = sum(1 for tg in mine if tg["holds"] is not None)
        lines.append(f"- {name}: {held} of {measured} hold" + (f" ({len(mine) - measured} not measured)" if measured < len(mine) else ""))
        lines.extend(f"  - MISS: {tg['text']}" for tg in mine if tg["holds"] is False)
        missing = [f"{tg['mode']} T={tg['t']}" for tg in mine if tg["holds"] is None]
        if missing:
            lines.append(f"  - not measured: {', '.join(missing)}")
    tail = f" ({s['not_measured']} not measured)" if s["not_measured"] else ""
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
