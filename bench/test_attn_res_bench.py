#!/usr/bin/env python3
"""CPU tests of the attn_res benchmark scripts (no GPU): the summarizer on synthetic results, the
dispatch-table lookup in a small sweep file of the real layout, the benchmark's argument handling,
budget and partial output with a fake kk3tune binary, and, where torch and Triton are installed,
the Triton peer under TRITON_INTERPRET=1 against the float64 formula (every case and every BLOCK_L,
at H=512), the check itself against broken peers, the peer compiled for sm_90 by Triton's own
compiler, and a whole CPU run with both peers.

Usage: python3 bench/test_attn_res_bench.py [--quick]   (prints 'N passed, N failed'; exit 1 on a
failure; --quick leaves out the whole CPU run with both peers)
"""
import gzip
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import attn_res_bench as B  # noqa: E402
import summarize_attn_res_bench as S  # noqa: E402

H = 7168
MODES = ("common_nb1", "common_nb4", "common_nb8", "post_nb8", "write_nb4", "final_nb8")
FAKE_KK3TUNE = textwrap.dedent(r'''
    #!/usr/bin/env python3
    # A stand-in for build/kk3tune: `list --variants` and `time ... --json FILE` with made-up medians.
    import json, os, re, sys, time
    H = 7168
    a = sys.argv[1:]
    def opt(name, default=None):
        return a[a.index(name) + 1] if name in a else default
    ids = ["v-fast", "v-slow", "v-unlaunchable", "ref"]
    if a[0] == "list":
        print("attn_res: fake\n  variants:  4 per mode\n  knobs:\n    B: 1, 2\n  variant ids:")
        for v in ids: print("    " + v + ("  (reference)" if v == "ref" else ""))
        print(); sys.exit(0)
    fam, mode, t = opt("--family"), opt("--mode", ""), int(opt("-T", "1"))
    time.sleep(float(os.environ.get("FAKE_SLEEP", "0")) if fam == "attn_res" else 0)
    if fam == "attn_res" and not re.fullmatch(r"(common|post|final|write)_nb\d", mode):
        print(f"config error: no mode {mode}", file=sys.stderr); sys.exit(2)
    want = opt("--variant")
    chosen = ids if want == "all" else ["ref" if v == "reference" else v for v in want.split(",")]
    if any(v not in ids for v in chosen):
        print("usage error: unknown variant", file=sys.stderr); sys.exit(2)
    nb = int(mode.split("nb")[1]) if fam == "attn_res" else 0
    delta = mode.startswith(("common", "final")) or (mode.startswith("write") and nb > 0)
    if fam == "attn_res":
        nbytes = t * H * 2 * (nb + 2 + 2 * delta + mode.startswith("write")) + 3 * H * 2
        base = 1.5 + nbytes / 3.9e12 * 1e6
    elif fam == "copy_example":
        nbytes, base = t * 4096 * 2 * 2, t * 4096 * 2 * 2 / 4.1e12 * 1e6
    else:
        nbytes, base = 0, 0.6
    res = []
    for v in chosen:
        r = {"variant": v, "reference": v == "ref", "bytes_moved": float(nbytes)}
        if v != "v-unlaunchable":  # a skipped variant carries no statistics
            r["statistics"] = {"median_us": base * {"v-fast": 1.0, "v-slow": 1.7, "ref": 2.0}[v], "samples": 10}
        else:
            r["status"] = "unlaunchable"
        res.append(r)
    doc = {"schema_version": 1, "kind": "time", "context": {"gpu": {"name": "Fake H200"}, "tool_version": "0.0",
           "git_revision": "fake", "utc_time": "2026-12-01T00:00:00Z"}, "subject": {"family": fam, "mode": mode}, "results": res}
    json.dump(doc, open(opt("--json"), "w"))
    print("fake time", fam, mode, t)
''')

RESULTS = {"passed": 0, "failed": 0}


def expect(cond, what):
    if cond:
        RESULTS["passed"] += 1
    else:
        RESULTS["failed"] += 1
        print(f"FAILED: {what}", flush=True)


def run_snippet(code, what, env=None):
    """Runs `code` (a Python program given this folder as argv[1]) and returns the JSON of its last
    output line, or None after a failed expectation naming `what` when it exits non-zero."""
    r = subprocess.run([sys.executable, "-c", code, HERE], env=env, capture_output=True, text=True)
    expect(r.returncode == 0, f"{what}: {r.stderr[-3000:]}")
    return json.loads(r.stdout.strip().splitlines()[-1]) if r.returncode == 0 else None


def write_json(path, doc):
    with open(path, "w") as f:
        json.dump(doc, f)


def time_doc(records, gpu="Fake H200"):
    return {"schema_version": 1, "kind": "time", "context": {"gpu": {"name": gpu}, "tool_version": "0.1", "git_revision": "abc",
                                                              "utc_time": "2026-12-01T00:00:00Z"}, "results": records}


def rec(variant, us, nbytes, reference=False):
    return {"variant": variant, "reference": reference, "bytes_moved": nbytes, "statistics": {"median_us": us}}


def rng(lo, hi, variant, tokens):
    """One range of a dispatch table, as `kk3tune sweep` writes it (docs/sweep-result-format.md)."""
    return {"min_tokens": lo, "max_tokens": hi, "variant": variant, "knobs": {"B": 1}, "runner_up": None, "margin": 0.0,
            "incumbent_kept": False, "tokens": tokens}


def fake_sweep(path, schema=3):
    """A small sweep file in the real layout: the attn_res tables of every default mode but write_nb4
    (v-slow up to 64 tokens, v-fast above; final_nb8 names v-unlaunchable above 64 and common_nb4 a
    variant the binary does not have), and an mla table that must be passed over."""
    tables = [{"family": "mla_decode_epilogue", "mode": "bf16", "shape": {"heads": 16}, "ranges": [rng(1, 8192, "split1", [1, 8192])]}]
    for mode in MODES:
        if mode == "write_nb4":
            continue
        nb = int(mode.split("nb")[1])
        high = {"final_nb8": "v-unlaunchable", "common_nb4": "gone"}.get(mode, "v-fast")
        t = {"family": "attn_res", "mode": mode, "ranges": [rng(1, 64, "v-slow", [1, 2, 4, 64]), rng(96, 8192, high, [96, 256, 1024, 8192])]}
        if schema >= 2:
            t["shape"] = {"blocks": nb}
        else:
            t.update(heads=0, blocks=nb)
        tables.append(t)
    doc = {"schema_version": schema, "kind": "sweep",
           "context": {"gpu": {"name": "Fake H200"}, "tool_version": "0.1.0", "git_revision": "feedbeef", "utc_time": "2026-12-01T17:01:16Z",
                       "argv": ["kk3tune", "sweep"], "figures": {"copy_ceiling_tb_s": 4.2, "empty_kernel_us": 0.6}},
           "plan": {"tokens": [1, 2, 4, 64, 96, 256, 1024, 8192], "objective": {"attn_res": {"timing": "chain", "pdl": True}}},
           "families": {"attn_res": {"shape_keys": ["blocks"], "objective": {"timing": "chain", "pdl": True}}},
           "records": [], "dispatch": tables}
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "wt") as f:
        json.dump(doc, f)
    return doc


# ---------------------------------------------------------------- the summarizer
def test_summarizer():
    with tempfile.TemporaryDirectory() as d:
        # ceiling 4.0 TB/s: 4e9 bytes in 1000 us; the slower copy variant must not be the ceiling
        write_json(f"{d}/copy.json", time_doc([rec("a", 1000.0, 4e9), rec("b", 2000.0, 4e9)]))
        write_json(f"{d}/empty.json", time_doc([rec("e1", 0.6, 0), rec("e2", 0.55, 0)]))
        b8192 = 8192 * H * 2 * 12
        t_ceiling = b8192 / 4e12 * 1e6
        # T=8192 at 95% of the ceiling, one variant unlaunchable (no statistics); the table's choice at 80%
        write_json(f"{d}/graph-common_nb8-T8192.json", time_doc([rec("fast", t_ceiling / 0.95, b8192), rec("ref", 2 * t_ceiling, b8192, True),
                                                                 rec("tab", t_ceiling / 0.80, b8192),
                                                                 {"variant": "skip", "reference": False, "status": "unlaunchable"}]))
        b1024 = 1024 * H * 2 * 12
        write_json(f"{d}/graph-common_nb8-T1024.json", time_doc([rec("x", b1024 / 4e12 * 1e6 / 0.70, b1024, True),  # 70% < 80%
                                                                 {"variant": "skip", "reference": False, "status": "unlaunchable"}]))
        b1 = H * 2 * 12
        write_json(f"{d}/graph-common_nb8-T1.json", time_doc([rec("y", 2.4, b1, True)]))
        write_json(f"{d}/graph-post_nb8-T1.json", time_doc([rec("z", 3.1, H * 2 * 11, True)]))
        write_json(f"{d}/graph-write_nb4-T1.json", time_doc([rec("w", 3.0, H * 2 * 9, True)]))  # write: no T=1 time target
        tiles = {"1x4x2": {"us": 3.5, "calls": 40}, "4x8x2": {"us": 3.2, "calls": 40}, "2x8x2": {"skipped": "its check failed"}}
        peers = {"torch": "2.11", "triton": "3.6", "config": {"cases": ["common_nb8", "post_nb8", "write_nb4"]},
                 "planned": ["common_nb1-T1", "common_nb8-T1", "common_nb8-T1024", "common_nb8-T8192", "post_nb8-T1", "post_nb8-T64",
                             "write_nb4-T1"],
                 "sweep": {"path": "s.json.gz", "utc_time": "2026-12-01T17:01:16Z", "git_revision": "feedbeef", "gpu": "H200",
                           "objective": "chain"},
                 "table": {"common_nb8-T8192": {"variant": "tab", "min_tokens": 256, "max_tokens": 8192, "measured": True},
                           "common_nb8-T1": {"variant": "y", "min_tokens": 1, "max_tokens": 32, "measured": True},
                           "common_nb8-T1024": {"variant": "skip", "min_tokens": 256, "max_tokens": 8192, "measured": False},
                           "post_nb8-T1": {"error": "the sweep has no attn_res dispatch table for post_nb8"}},
                 "triton_grid": ["1x4x2", "2x8x2"],
                 "peers": {"common_nb8-T8192": {"triton_tuned_us": t_ceiling, "triton_tuned_tile": "1x4x2", "triton_vllm_us": t_ceiling,
                                                "triton_vllm_tile": "1x4x2", "compiled_us": 2 * t_ceiling, "compile_s": 5.0},  # slower than Triton
                           "common_nb8-T1024": {"triton_tuned_us": 1e9, "compiled_us": 1e9},
                           "common_nb8-T1": {"triton_tuned_us": 3.5, "triton_tuned_tile": "1x4x2", "triton_vllm_us": 3.2,
                                             "triton_vllm_tile": "4x8x2", "triton_by_tile": tiles, "compiled_us": 10.0},
                           "post_nb8-T1": {"triton_tuned_us": 3.5, "compiled_us": 7.0}},
                 "checks": {"triton common_nb8 1x4x2": {"tokens": 64, "rounding": "rne", "out_max_abs_err": 0.01, "out_ref_max_abs": 4.0,
                                                        "out_bf16_equal_fraction": 0.9998, "out_within_1ulp_fraction": 1.0,
                                                        "out_within_bound_fraction": 1.0, "out_finite": True, "prefix_equal_fraction": 1.0,
                                                        "inputs_untouched": True, "ok": True},
                            "triton write_nb4 2x8x2": {"tokens": 64, "rounding": "rne", "out_max_abs_err": 0.01, "out_ref_max_abs": 4.0,
                                                       "out_bf16_equal_fraction": 0.9998, "out_within_1ulp_fraction": 1.0,
                                                       "out_within_bound_fraction": 1.0, "out_finite": True, "prefix_equal_fraction": 1.0,
                                                       "block_write_equal_fraction": 0.5, "inputs_untouched": True, "ok": False,
                                                       "failed": "block write not bitwise"},
                            "triton post_nb8 4x8x2": {"error": "RuntimeError: boom", "ok": False}},
                 "notes": ["a note"], "stages": {"kk3tune": 10.0}}
        write_json(f"{d}/peers.json", peers)
        md = S.write(d)
        s = json.load(open(f"{d}/summary.json"))
        expect(abs(s["ceiling_tb_s"] - 4.0) < 1e-9, f"ceiling 4.0, got {s['ceiling_tb_s']}")
        expect(s["ceiling_variant"] == "a", "ceiling from the fastest copy variant")
        expect(abs(s["empty_us"] - 0.55) < 1e-9, "empty kernel: the fastest")
        rows = {(r["mode"], r["t"]): r for r in s["rows"]}
        expect(("post_nb8", 64) in rows and rows[("post_nb8", 64)]["best_us"] is None, "a planned, unmeasured shape has a row of '-'")
        expect([(r["mode"], r["t"]) for r in s["rows"]] == [("common_nb8", 1), ("common_nb8", 1024), ("common_nb8", 8192), ("post_nb8", 1),
                                                             ("post_nb8", 64), ("write_nb4", 1), ("common_nb1", 1)],
               f"rows in case then T order: {[(r['mode'], r['t']) for r in s['rows']]}")
        r = rows[("common_nb8", 8192)]
        expect(r["best_variant"] == "fast" and r["variants_timed"] == 3, "unlaunchable variant left out, best chosen")
        expect(abs(r["ceiling_share"] - 0.95) < 1e-9, "95% of the ceiling")
        expect(r["table_variant"] == "tab" and abs(r["table_over_best"] - 0.95 / 0.80) < 1e-9 and abs(r["table_ceiling_share"] - 0.80) < 1e-9,
               f"the table's choice, its ratio to the best and its share of the ceiling: {r['table_over_best']} {r['table_ceiling_share']}")
        expect(r["table_range"] == [256, 8192] and r["table_note"] is None, "the table's range")
        tg = {t["key"]: t["holds"] for t in r["targets"]}
        expect(tg == {"ceiling8192": True, "triton": False}, f"T=8192 targets {tg}")
        r1024 = rows[("common_nb8", 1024)]
        expect(r1024["table_us"] is None and r1024["table_note"] == "not timed in this run (unlaunchable); T not a count the sweep measured",
               f"the table's choice without a time: {r1024['table_note']}")
        tg = {t["key"]: t["holds"] for t in r1024["targets"]}
        expect(tg == {"ceiling1024": False, "triton": True}, f"T=1024 at 70% misses 80%: {tg}")
        r1 = rows[("common_nb8", 1)]
        tg = {t["key"]: t["holds"] for t in r1["targets"]}
        expect(tg == {"t1": True, "triton": True}, f"T=1 common targets {tg}")
        expect(r1["triton_vllm_tile"] == "4x8x2" and r1["triton_tuned_tile"] == "1x4x2" and abs(r1["best_over_triton"] - 2.4 / 3.5) < 1e-9,
               "Triton's two figures")
        tg = {t["key"]: t["holds"] for t in rows[("post_nb8", 1)]["targets"]}
        expect(tg == {"t1": False, "triton": True}, f"T=1 post targets {tg}")
        expect(rows[("post_nb8", 1)]["table_note"] == "the sweep has no attn_res dispatch table for post_nb8", "a missing table is said")
        tg = {t["key"]: t["holds"] for t in rows[("write_nb4", 1)]["targets"]}
        expect(tg == {"triton": None}, f"write NB=4 T=1: no time target, Triton not measured: {tg}")
        # held: 8192 ceiling; 1024 triton; T=1 common t1 + triton; post triton -> 5
        # evaluated: 2 + 2 + 2 + 2 = 8; not measured: post T=64 triton, write T=1 triton, common_nb1 T=1 triton -> 3
        counts = (s["held"], s["evaluated"], s["not_measured"])
        expect(counts == (5, 8, 3), f"counts {counts}")
        last = md.strip().splitlines()[-1]
        expect(last == "targets: 5 of 8 hold (3 not measured)", f"last line: {last}")
        header = [ln for ln in md.splitlines() if ln.startswith("| case | NB | T | best us")][0]
        cols = [c.strip() for c in header.strip("|").split("|")]
        expect(cols == ["case", "NB", "T", "best us", "best variant", "table variant", "table us", "table/best", "GB moved", "TB/s",
                        "% of copy ceiling (best)", "% of copy ceiling (table)", "Triton vLLM-tiles us", "Triton tuned us", "tuned tile",
                        "best/Triton tuned", "torch.compile us"], f"columns {cols}")
        row8192 = [ln for ln in md.splitlines() if ln.startswith("| common | 8 | 8192 |")][0]
        expect("| 95.0 | 80.0 |" in row8192 and "| tab |" in row8192, f"T=8192 row: {row8192}")
        row1 = [ln for ln in md.splitlines() if ln.startswith("| common | 8 | 1 | 2.400")][0]
        expect("| = best |" in row1 and "| 1x4x2 | 0.686 |" in row1, f"T=1 row: {row1}")
        tile_header = [ln for ln in md.splitlines() if ln.startswith("| case | NB | T | 1x4x2")]
        expect(tile_header and tile_header[0].strip() == "| case | NB | T | 1x4x2 | 2x8x2 | 4x8x2 |", f"tile table header {tile_header}")
        expect("| common | 8 | 1 | 3.500 * | check failed | 3.200 v |" in md, "tile cells: fastest of the grid, vLLM's, a failed check")
        expect("- MISS: common NB=8 T=1024: best 70.0% of the copy ceiling" in md, "the ceiling miss with its numbers")
        expect("- MISS: common NB=8 T=8192: best " in md and "against the tuned Triton peer" in md and "the table's choice tab" in md,
               "the Triton miss with its numbers and the table's choice")
        expect("- MISS: post NB=8 T=1: best 3.100 us (z), target <= 2.5 us" in md, "the T=1 miss")
        expect("- faster than the tuned Triton peer: 3 of 4 hold (3 not measured)" in md, "per-target counts")
        expect("0.4" not in "".join(ln for ln in md.splitlines() if ln.startswith("From the measured")), "no torch.compile target any more")
        expect("FAIL: block write not bitwise" in md and "boom" in md and "a note" in md, "checks' verdicts, errors and notes reach the summary")
        expect("Dispatch table: `s.json.gz` (sweep of 2026-12-01T17:01:16Z, git feedbeef" in md, "the sweep is named")
        out = subprocess.run([sys.executable, f"{HERE}/summarize_attn_res_bench.py", d], capture_output=True, text=True)
        expect(out.returncode == 0 and out.stdout == md, "the command line prints the same markdown")
    with tempfile.TemporaryDirectory() as d:  # nothing but a copy result: no crash, no targets
        write_json(f"{d}/copy.json", time_doc([rec("a", 1000.0, 4e9)]))
        md = S.write(d)
        expect(md.strip().endswith("targets: 0 of 0 hold") and "Dispatch table: not looked up" in md, "an empty run summarizes")
    with tempfile.TemporaryDirectory() as d:  # the issue-5 layout (mode nb8, no peers.json) still reads
        write_json(f"{d}/graph-nb8-T1.json", time_doc([rec("y", 2.0, H * 2 * 12, True)]))
        with open(f"{d}/copy.json", "w") as f:
            f.write("{ truncated")
        s = S.collect(d)
        expect(s["rows"][0]["nb"] == 8 and s["rows"][0]["case"] == "nb8" and s["ceiling_tb_s"] is None, "old names, a broken copy.json")
        expect(s["rows"][0]["table_note"] == "not looked up", "without a sweep the table is not looked up")
    for args, rc in (([], 2), (["a", "b"], 2), (["--help"], 0), (["/nonexistent-folder-x"], 2)):
        out = subprocess.run([sys.executable, f"{HERE}/summarize_attn_res_bench.py", *args], capture_output=True, text=True)
        expect(out.returncode == rc, f"summarizer {args}: rc {out.returncode}, expected {rc}")


# ---------------------------------------------------------------- the dispatch table
def test_table_lookup():
    with tempfile.TemporaryDirectory() as d:
        for schema, name in ((3, "s.json.gz"), (1, "s1.json")):
            fake_sweep(f"{d}/{name}", schema)
            doc = B.read_sweep(f"{d}/{name}")
            pick = {t: B.table_choice(doc, "common_nb8", 8, t) for t in (1, 64, 65, 96, 256, 8192, 20000)}
            expect(pick[1] == {"variant": "v-slow", "min_tokens": 1, "max_tokens": 64, "measured": True}, f"schema {schema} T=1: {pick[1]}")
            expect(pick[64]["variant"] == "v-slow" and pick[65]["variant"] == "v-fast" and pick[65]["measured"] is False,
                   f"schema {schema}: the first range with T <= max_tokens ({pick[65]})")
            expect(pick[256]["measured"] and pick[8192]["variant"] == "v-fast", f"schema {schema} T=256/8192")
            expect(pick[20000]["variant"] == "v-fast" and pick[20000]["max_tokens"] == 8192, "above the last range: the last range")
            expect("error" in B.table_choice(doc, "write_nb4", 4, 1), "no table for write_nb4")
            expect("error" in B.table_choice(doc, "common_nb8", 4, 1), "a table of another NB is no match")
        write_json(f"{d}/time.json", time_doc([]))
        try:
            B.read_sweep(f"{d}/time.json")
            expect(False, "a time file is no sweep")
        except ValueError:
            expect(True, "")
    # the repository's own sweep file, where it is there: every default shape finds a variant
    real = os.path.join(HERE, "..", "results", "h200", "chain-2026-12-01", "sweep2.json.gz")
    if os.path.exists(real):
        doc = B.read_sweep(real)
        for mode in MODES:
            for t in (1, 64, 256, 1024, 8192):
                c = B.table_choice(doc, mode, int(mode.split("nb")[1]), t)
                expect(c.get("variant", "").startswith("b") and c["measured"], f"{mode} T={t} in {real}: {c}")


# ---------------------------------------------------------------- the benchmark with a fake kk3tune
def bench(out, env, timeout=600):
    e = dict(os.environ, **env)
    return subprocess.run([sys.executable, f"{HERE}/attn_res_bench.py", *([out] if out else [])], env=e, capture_output=True,
                          text=True, timeout=timeout)


def test_bench_usage():
    expect(bench(None, {}).returncode == 2, "no OUTDIR: rc 2")
    h = subprocess.run([sys.executable, f"{HERE}/attn_res_bench.py", "--help"], capture_output=True, text=True)
    expect(h.returncode == 0 and all(k in h.stdout for k in ("KK3_BENCH_BUDGET_S", "KK3_BENCH_TILES", "KK3_BENCH_SWEEP")),
           "--help lists the knobs")
    expect([B.parse_tile(x) for x in ("1x4", "4x16x3", "2X8")] == [(1, 4, 2), (4, 16, 3), (2, 8, 2)], "tiles parse")
    with tempfile.TemporaryDirectory() as d:
        for env in ({"KK3_BENCH_TOKENS": "1,0"}, {"KK3_BENCH_TOKENS": "x"}, {"KK3_BENCH_CASES": "nb8"}, {"KK3_BENCH_CASES": ","},
                    {"KK3_BENCH_CASES": "post_nb8,post_nb8"}, {"KK3_BENCH_PEERS": "eager"}, {"KK3_BENCH_BUDGET_S": "-1"},
                    {"KK3_BENCH_BUDGET_S": "abc"}, {"KK3_BENCH_DEVICE": "tpu"}, {"KK3_BENCH_TILES": "3x4"}, {"KK3_BENCH_TILES": "1x0"},
                    {"KK3_BENCH_TILES": "4"}, {"KK3_BENCH_TILES": "1x4,1x4x2"}, {"KK3_BENCH_TILES": "1x64"},
                    {"KK3_BENCH_SWEEP": f"{d}/no-such-sweep.json"}):
            r = bench(f"{d}/o", env)
            expect(r.returncode == 2 and "attn_res_bench.py:" in r.stderr and not os.path.exists(f"{d}/o"), f"bad {env}: rc {r.returncode} {r.stderr}")


def fake_binary(d):
    path = f"{d}/fake-kk3tune"
    with open(path, "w") as f:
        f.write(FAKE_KK3TUNE.lstrip())
    os.chmod(path, 0o755)
    return path


def test_bench_fake_kk3tune():
    with tempfile.TemporaryDirectory() as d:
        kk3 = fake_binary(d)
        out = f"{d}/run"
        r = bench(out, {"KK3TUNE": kk3, "KK3_BENCH_PEERS": "none", "KK3_TRITON_WARPS": "16,32"})
        expect(r.returncode == 0, f"fake run rc {r.returncode}: {r.stderr[-2000:]}")
        files = sorted(os.listdir(out))
        want = {f"graph-{m}-T{t}.json" for m in MODES for t in (1, 64, 256, 1024, 8192)}
        expect(want <= set(files) and {"copy.json", "empty.json", "peers.json", "summary.md", "summary.json", "commands.txt"} <= set(files),
               f"files {files}")
        cmds = open(f"{out}/commands.txt").read().splitlines()
        expect(len(cmds) == 32 and cmds[0].endswith(f"time --family copy_example --variant all -T 16384 --json {out}/copy.json")
               and cmds[2] == f"{kk3} time --family attn_res --mode common_nb1 -T 1 --variant all --timing graph --json {out}/graph-common_nb1-T1.json"
               and cmds[-1] == f"{kk3} time --family attn_res --mode final_nb8 -T 8192 --variant all --timing graph --json {out}/graph-final_nb8-T8192.json",
               f"commands {cmds[:3]} {cmds[-1:]}")
        s = json.load(open(f"{out}/summary.json"))
        expect(len(s["rows"]) == 30 and all(r["best_variant"] == "v-fast" for r in s["rows"]), "30 rows, best v-fast")
        # not measured without peers: Triton at 30 shapes, plus 3 cases x 2 T with ceiling targets... all measured (ceiling there)
        expect(s["not_measured"] == 30 and s["evaluated"] == 12 + 3, f"peers not run: {s['not_measured']} not measured, {s['evaluated']} evaluated")
        p = json.load(open(f"{out}/peers.json"))
        expect(any("KK3_TRITON_WARPS is gone" in n for n in p["notes"]), "the old knob is noted as gone")
        expect(all(r["table_note"] == "not looked up" and r["table_us"] is None for r in s["rows"]) and
               "KK3_BENCH_SWEEP not set" in open(f"{out}/summary.md").read(), "without a sweep: '-' and a note")
        # with a sweep file: the table's variant timed from the same run
        out = f"{d}/run-sweep"
        fake_sweep(f"{d}/sweep.json.gz")
        r = bench(out, {"KK3TUNE": kk3, "KK3_BENCH_PEERS": "none", "KK3_BENCH_SWEEP": f"{d}/sweep.json.gz"})
        expect(r.returncode == 0, f"sweep run rc {r.returncode}: {r.stderr[-2000:]}")
        s = json.load(open(f"{out}/summary.json"))
        rows = {(x["mode"], x["t"]): x for x in s["rows"]}
        x = rows[("common_nb8", 64)]
        expect(x["table_variant"] == "v-slow" and abs(x["table_over_best"] - 1.7) < 1e-9 and abs(x["table_ceiling_share"] * 1.7 - x["ceiling_share"]) < 1e-9,
               f"T=64: the table's v-slow at 1.7x the best: {x}")
        x = rows[("common_nb8", 8192)]
        expect(x["table_variant"] == "v-fast" and x["table_over_best"] == 1.0, "T=8192: the table takes the best")
        expect(rows[("final_nb8", 1024)]["table_us"] is None and rows[("final_nb8", 1024)]["table_note"] == "not timed in this run (unlaunchable)",
               f"an unlaunchable table variant: {rows[('final_nb8', 1024)]['table_note']}")
        expect(rows[("common_nb4", 256)]["table_note"] == "not in this run's variants", "a variant the binary does not have")
        expect(rows[("write_nb4", 1)]["table_note"] == "the sweep has no attn_res dispatch table for write_nb4", "a mode the sweep lacks")
        p = json.load(open(f"{out}/peers.json"))
        expect(p["sweep"]["git_revision"] == "feedbeef" and p["sweep"]["objective"] == "chain" and len(p["table"]) == 30, f"sweep {p['sweep']}")
        md = open(f"{out}/summary.md").read()
        expect(f"Dispatch table: `{d}/sweep.json.gz`" in md and "| common | 8 | 64 | " in md, "the summary names the sweep")
        # restricted variants and time args, a mode the binary lacks, one T
        out = f"{d}/run2"
        r = bench(out, {"KK3TUNE": kk3, "KK3_BENCH_PEERS": "none", "KK3_BENCH_CASES": "common_nb8,final_nb8,write_nb3",
                        "KK3_BENCH_TOKENS": "64", "KK3_BENCH_VARIANTS": "v-slow,gone,reference", "KK3_BENCH_TIME_ARGS": "--max-time 0.2"})
        expect(r.returncode == 0, f"restricted run rc {r.returncode}")
        cmds = open(f"{out}/commands.txt").read().splitlines()
        expect(cmds[0].endswith("list --family attn_res --variants") and "--variant v-slow,reference --max-time 0.2 --json" in cmds[3],
               f"restricted commands {cmds}")
        p = json.load(open(f"{out}/peers.json"))
        expect(any("gone" in n for n in p["notes"]), "the unknown id is dropped with a note")
        s = json.load(open(f"{out}/summary.json"))
        expect([r["best_variant"] for r in s["rows"]] == ["v-slow", "v-slow", "v-slow"], f"rows {[r['best_variant'] for r in s['rows']]}")
        # a mode the binary refuses: noted, the run goes on
        out = f"{d}/run3"
        r = bench(out, {"KK3TUNE": kk3, "KK3_BENCH_PEERS": "none", "KK3_BENCH_CASES": "common_nb10", "KK3_BENCH_TOKENS": "1"})
        p = json.load(open(f"{out}/peers.json"))
        expect(r.returncode == 0 and p["kk3tune"]["common_nb10-T1"]["rc"] == 2 and any("rc=2" in n for n in p["notes"]),
               "a failing kk3tune command is noted, the run goes on")
        # budget: each attn_res call sleeps 1.5 s, budget 2.5 s: the first is stopped at the budget, the rest skipped
        out = f"{d}/run4"
        s0 = time.monotonic()
        r = bench(out, {"KK3TUNE": kk3, "KK3_BENCH_PEERS": "none", "KK3_BENCH_BUDGET_S": "2.5", "FAKE_SLEEP": "1.5",
                        "KK3_BENCH_CASES": "common_nb8", "KK3_BENCH_TOKENS": "1,64,256"})
        wall = time.monotonic() - s0
        p = json.load(open(f"{out}/peers.json"))
        st = {k: v["status"] for k, v in p["kk3tune"].items()}
        expect(r.returncode == 0 and wall < 6 and st.get("common_nb8-T1") == "ok" and "common_nb8-T256" not in st,
               f"budget: wall {wall:.1f} s, statuses {st}")
        expect(any("skipped" in n and "T256" in n for n in p["notes"]), f"skips noted: {p['notes']}")
        # resume the cut run: the shape it measured is kept, the rest measured, commands appended
        mtime = os.path.getmtime(f"{out}/graph-common_nb8-T1.json")
        r = bench(out, {"KK3TUNE": kk3, "KK3_BENCH_PEERS": "none", "KK3_BENCH_RESUME": "1", "KK3_BENCH_CASES": "common_nb8",
                        "KK3_BENCH_TOKENS": "1,64,256"})
        p = json.load(open(f"{out}/peers.json"))
        cmds = open(f"{out}/commands.txt").read().splitlines()
        expect(r.returncode == 0 and os.path.getmtime(f"{out}/graph-common_nb8-T1.json") == mtime
               and all(os.path.exists(f"{out}/graph-common_nb8-T{t}.json") for t in (64, 256))
               and sum("-T 64 " in c for c in cmds) == 2 and sum("-T 1 " in c for c in cmds) == 1
               and any("resumed" in n for n in p["notes"]), f"resume: {cmds} {p['notes']}")
        # no binary at all
        out = f"{d}/run5"
        r = bench(out, {"KK3TUNE": f"{d}/none", "KK3_BENCH_PEERS": "none", "KK3_BENCH_TOKENS": "1"})
        p = json.load(open(f"{out}/peers.json"))
        expect(r.returncode == 0 and p["kk3tune"]["copy"]["rc"] == 127 and os.path.exists(f"{out}/summary.md"), "a missing binary is noted")


def test_gpu_script():
    """bench/attn_res_gpu.sh's bench step with the fake binary: the benchmark, then the summary
    written again (also after a kill at the wall), ncu only when asked for."""
    with tempfile.TemporaryDirectory() as d:
        kk3 = fake_binary(d)
        env = dict(os.environ, KK3TUNE=kk3, KK3_BENCH_PEERS="none", KK3_BENCH_CASES="common_nb8", KK3_BENCH_TOKENS="1,64")
        r = subprocess.run(["bash", f"{HERE}/attn_res_gpu.sh", f"{d}/o", "bench"], env=env, capture_output=True, text=True, timeout=300)
        expect(r.returncode == 0 and "bench rc=0" in r.stdout and "budget 520 s" in r.stdout and "targets:" in r.stdout
               and not os.path.exists(f"{d}/o/ncu"), f"gpu.sh bench: {r.stdout[-1500:]} {r.stderr[-1500:]}")
        # a wall too short for the sleeping fake: the benchmark is killed, the summary still written from what it left
        env.update(FAKE_SLEEP="3", KK3_BENCH_WALL_S="16", KK3_BENCH_BUDGET_S="100", KK3_BENCH_TOKENS="1,64,256")
        r = subprocess.run(["bash", f"{HERE}/attn_res_gpu.sh", f"{d}/k", "bench"], env=env, capture_output=True, text=True, timeout=300)
        s = json.load(open(f"{d}/k/bench/summary.json"))
        expect("bench rc=124" in r.stdout and any(x["best_us"] for x in s["rows"]), f"killed at the wall, summary kept: {r.stdout[-1500:]}")


# ---------------------------------------------------------------- the cold instrument
def ncu_csv(kernels):
    """`ncu --csv --page raw` output after a line the application printed: the header, the units row,
    then one row per kernel (us, inst) with the metrics of attn_res_cold.py."""
    import attn_res_cold as C
    names = C.METRICS.split(",")
    head = ['"ID"', '"Kernel Name"'] + [f'"{n}"' for n in names]
    units = ['""', '""'] + ['"usecond"' if n == "gpu__time_duration.sum" else '"%"' if "pct" in n else '"inst"' if "inst" in n else '""'
                            for n in names]
    rows = [",".join(head), ",".join(units)]
    for i, (us, inst) in enumerate(kernels):
        vals = {"gpu__time_duration.sum": f"{us}", "smsp__inst_executed.sum": f"{inst:,}", "launch__registers_per_thread": "96",
                "smsp__issue_active.avg.pct_of_peak_sustained_active": "41.5"}
        rows.append(",".join([f'"{i}"', '"attn_res"'] + [f'"{vals.get(n, "50")}"' for n in names]))
    return "printed by the application\n" + "\n".join(rows) + "\n"


def test_cold_instrument():
    """attn_res_cold.py: warp-instructions per token and the issue-active share from ncu's rows (the
    thousands separators of the counts read), in cold.md beside the times, and the issue's targets."""
    import attn_res_cold as C
    rows = C.parse_ncu_csv(ncu_csv([(10.0, 11_000_000), (12.0, 11_000_000), (11.0, 11_200_000)]))
    s = C.summary_of(rows, 1024)
    expect(s is not None and s["us"] == 11.0 and abs(s["inst_per_token"] - 11_000_000 / 1024) < 1e-6 and s["issue_active_pct"] == 41.5,
           f"cold summary: {s}")
    expect(C.summary_of([], 1024) is None, "no kernel rows: no summary")
    row = {"mode": "common_nb4", "t": 1024, "table_variant": "b1-gpw4-nc1-stage3", "table_us": 30.0, "triton_tuned_us": 36.0,
           "table_ceiling_share": 0.85,
           "cold": {"table": dict(s, us=30.5), "best": None, "triton": {"us": 34.0, "inst_per_token": 11500.0, "issue_active_pct": 60.0}}}
    md = C.report({"rows": [row], "notes": []})
    expect("10742 / 11500" in md and "42 / 60" in md, f"cold.md columns: {md}")
    got = {name: ok for name, ok, _ in C.targets([row])}
    expect(got.get("warp-instructions per token at or below the Triton tile's") is True and got.get("cold at or below 31.0 us") is True
           and got.get("cold: the table's choice faster than tuned Triton") is True, f"targets: {got}")
    row["cold"]["triton"]["inst_per_token"] = 9000.0
    row["cold"]["table"]["us"] = 31.5
    got = {name: ok for name, ok, _ in C.targets([row])}
    expect(got.get("warp-instructions per token at or below the Triton tile's") is False and got.get("cold at or below 31.0 us") is False,
           f"missed targets: {got}")


# ---------------------------------------------------------------- the Triton peer and the check
def have_torch():
    try:
        import torch  # noqa: F401
        import triton  # noqa: F401
        return True
    except ImportError:
        return False


def test_triton_interpreter():
    """The Triton kernel run by Triton's interpreter on the CPU against the float64 formula, at H=512
    and T=3: every case (common, post, final, write), NB 0 to 8 with chunks that NB does not fill,
    every BLOCK_L of the grid. The interpreter rounds fp32 to bf16 by truncation (the GPU rounds to
    nearest even): the check is told so (rounding="truncate")."""
    code = textwrap.dedent(r'''
        import json, sys
        sys.path.insert(0, sys.argv[1])
        from attn_res_formula import make_inputs, check
        from attn_res_triton import attn_res_triton
        figs = {}
        kinds = {"common": lambda nb: (True, True, -1), "post": lambda nb: (False, True, -1), "final": lambda nb: (True, False, -1),
                 "write": lambda nb: (nb > 0, True, nb)}
        for kind, flags in kinds.items():
            for nb in ((0, 1, 3, 4, 8) if kind == "write" else (1, 3, 8)):
                hd, ho, k = flags(nb)
                inp = make_inputs(3, nb, hd, ho, device="cpu", seed=nb, hidden=512, block_write=k >= 0)
                for block_l, warps in ((1, 4), (2, 8), (4, 16), (4, 8)):
                    f = check(lambda *a: attn_res_triton(*a, block_l=block_l, num_warps=warps), inp, nb, k, "truncate")
                    figs[f"{kind} nb{nb} {block_l}x{warps}"] = f
        print(json.dumps(figs))
    ''')
    figs = run_snippet(code, "interpreter run", env=dict(os.environ, TRITON_INTERPRET="1"))
    if figs is None:
        return
    expect(len(figs) == 4 * (3 * 3 + 5), f"{len(figs)} checks")
    for name, f in figs.items():
        expect(f["ok"], f"{name}: {f.get('failed')} {f}")
        expect(f["out_within_bound_fraction"] == 1 and f["prefix_equal_fraction"] == 1 and f["inputs_untouched"], f"{name}: {f}")
        expect(("block_write_equal_fraction" in f) == name.startswith("write"), f"{name}: block write checked in write modes only")
    print(f"  interpreter: {len(figs)} checks (4 kinds x NB x BLOCK_L 1,2,4), worst bf16-equal "
          f"{min(f['out_bf16_equal_fraction'] for f in figs.values()):.4f}, worst within 1 ulp "
          f"{min(f['out_within_1ulp_fraction'] for f in figs.values()):.4f}", flush=True)


def test_check_catches():
    """The check itself: the formula passes; a peer that skips the block write, writes the wrong
    block, keeps p in fp32 (torch.compile's habit), or is one ulp off everywhere fails, each for its
    reason."""
    code = textwrap.dedent(r'''
        import json, sys, torch
        sys.path.insert(0, sys.argv[1])
        from attn_res_formula import make_inputs, check, attn_res_torch
        def no_write(b, p, d, rw, sw, ow, nb, k): return attn_res_torch(b, p, d, rw, sw, ow, nb, -1)
        def wrong_block(b, p, d, rw, sw, ow, nb, k):
            out = attn_res_torch(b, p, d, rw, sw, ow, nb, k)
            b[:, 0].copy_(p)
            return out
        def fp32_p(b, p, d, rw, sw, ow, nb, k):
            out = attn_res_torch(b, p.float() + d.float(), None, rw, sw, ow, nb, -1)
            attn_res_torch(b, p, d, rw, sw, ow, nb, k)  # prefix and block right, out from fp32 p
            return out
        def ulp_off(b, p, d, rw, sw, ow, nb, k):
            out = attn_res_torch(b, p, d, rw, sw, ow, nb, k)
            return (out.view(torch.int16) + 1).view(torch.bfloat16)
        inp = make_inputs(8, 4, True, True, device="cpu", seed=3, hidden=512, block_write=True)
        res = {name: check(fn, inp, 4, 4) for name, fn in (("formula", attn_res_torch), ("no_write", no_write), ("wrong_block", wrong_block),
                                                           ("fp32_p", fp32_p), ("ulp_off", ulp_off))}
        print(json.dumps(res))
    ''')
    res = run_snippet(code, "check run")
    if res is None:
        return
    expect(res["formula"]["ok"] and res["formula"]["block_write_equal_fraction"] == 1, f"the formula passes: {res['formula']}")
    expect(not res["no_write"]["ok"] and "block write not bitwise" in res["no_write"]["failed"], f"no write: {res['no_write']}")
    expect(not res["wrong_block"]["ok"] and "an input that is no output changed" in res["wrong_block"]["failed"], f"wrong block: {res['wrong_block']}")
    expect(not res["fp32_p"]["ok"] and "bf16-equal" in res["fp32_p"]["failed"], f"fp32 p: {res['fp32_p']}")
    expect(not res["ulp_off"]["ok"] and res["ulp_off"]["out_bf16_equal_fraction"] < 0.01, f"one ulp off: {res['ulp_off']}")


def test_precompile_args():
    """precompile() hands Triton's warmup the launch's arguments (stand-in tensors of the same dtype,
    every integer and constexpr the same), so that it fills the cache entry the launch then loads."""
    import torch
    import attn_res_triton as A
    from attn_res_formula import make_inputs

    class Recorder:
        def __init__(self):
            self.calls = []

        def __getitem__(self, grid):
            return lambda *a, **k: self.calls.append((a, k))

        def warmup(self, *a, **k):
            k = dict(k)
            k.pop("grid")
            self.calls.append((a, k))

    real = A.attn_res_kernel
    try:
        for kind, (hd, ho, k), nb in (("common", (True, True, -1), 8), ("post", (False, True, -1), 8), ("final", (True, False, -1), 8),
                                      ("write", (True, True, 4), 4), ("write", (False, True, 0), 0)):
            A.attn_res_kernel = rec = Recorder()
            inp = make_inputs(2, nb, hd, ho, device="cpu", seed=1, hidden=H, block_write=k >= 0)
            A.attn_res_triton(*inp, nb, k, block_l=4, num_warps=8, num_stages=2)
            A.precompile(nb, hd, ho, k, (4, 8, 2), hidden=H)
            (la, lk), (wa, wk) = rec.calls
            same = len(la) == len(wa) and lk == wk and all(
                (x.dtype == y.dtype) if isinstance(x, torch.Tensor) else (x == y) for x, y in zip(la, wa))
            expect(same, f"{kind} NB={nb}: launch {[(type(x).__name__, getattr(x, 'dtype', x)) for x in la]} {lk} vs warmup "
                         f"{[(type(x).__name__, getattr(x, 'dtype', x)) for x in wa]} {wk}")
    finally:
        A.attn_res_kernel = real
    expect(A.TILES == [B.parse_tile(x) for x in B.DEFAULT_TILES.split(",")], "the benchmark's default grid is attn_res_triton.TILES")
    expect([A.vllm_tile(t, nb) for t, nb in ((1, 8), (64, 4), (255, 8), (256, 8), (1, 1), (8192, 1))] ==
           [(4, 8, 2), (4, 8, 2), (4, 8, 2), (1, 4, 2), (1, 4, 2), (1, 4, 2)], "vLLM's tile choice")


def test_triton_aot():
    """The Triton kernel compiled for sm_90 by Triton's own compiler and ptxas, as on the H200 (no
    GPU needed): every case compiles at vLLM's two tiles and a 16-warp tile of the grid, with 16-byte
    loads (the pointers and strides marked divisible by 16, as Triton's launcher specializes them on
    the GPU); vLLM's tiles without spills. Prints registers and stack per kernel."""
    code = textwrap.dedent(r'''
        import json, os, subprocess, sys, tempfile, time, triton
        from triton.backends.compiler import GPUTarget
        from triton.compiler import ASTSource
        sys.path.insert(0, sys.argv[1])
        import attn_res_triton as A
        sig = {n: "*bf16" for n in ("blocks_ptr", "prefix_ptr", "delta_ptr", "rms_w_ptr", "res_w_ptr", "out_w_ptr", "out_ptr")}
        sig.update({n: "i32" for n in ("stride_block_t", "stride_block_n", "stride_prefix_t", "stride_delta_t", "stride_out_t", "write_idx")})
        sig.update(eps="fp32", out_eps="fp32", H="constexpr", NB="constexpr", HAS_DELTA="constexpr", HAS_OUT_W="constexpr",
                   BLOCK_WRITE="constexpr", BLOCK_H="constexpr", BLOCK_L="constexpr")
        attrs = {(i,): [["tt.divisibility", 16]] for i in range(12)}
        tool = os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "bin", "cuobjdump")
        res = {}
        for name, nb, hd, ho, bw in (("common_nb1", 1, 1, 1, 0), ("common_nb8", 8, 1, 1, 0), ("post_nb8", 8, 0, 1, 0),
                                     ("final_nb8", 8, 1, 0, 0), ("write_nb4", 4, 1, 1, 1)):
            for tile in ((1, 4, 2), (4, 8, 2), (2, 16, 2)):
                s = time.time()
                src = ASTSource(fn=A.attn_res_kernel, signature=sig, constexprs={"H": 7168, "NB": nb, "HAS_DELTA": bool(hd), "HAS_OUT_W": bool(ho),
                                "BLOCK_WRITE": bool(bw), "BLOCK_H": 8192, "BLOCK_L": tile[0]}, attrs=attrs)
                k = triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": tile[1], "num_stages": tile[2]})
                dt = time.time() - s
                usage = ""
                if os.path.exists(tool):
                    with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
                        f.write(k.asm["cubin"]); f.flush()
                        usage = subprocess.run([tool, "--dump-resource-usage", f.name], capture_output=True, text=True).stdout
                usage = usage[usage.find("REG:"):].split("CONSTANT")[0].strip() if "REG:" in usage else "?"
                res[f"{name} {A.tile_name(tile)}"] = {"usage": usage, "v4": "ld.global.v4.b32" in k.asm["ptx"], "compile_s": dt}
        print(json.dumps(res))
    ''')
    res = run_snippet(code, "sm_90 compile")
    if res is None:
        return
    for name, u in res.items():
        print(f"  sm_90 {name}: {u['usage']}, {'16-byte loads' if u['v4'] else 'NO 16-byte loads'}, compiled in {u['compile_s']:.1f} s")
        expect(u["v4"], f"{name}: 16-byte loads")
        if not name.endswith("2x16x2"):
            expect("STACK:0 " in u["usage"] + " " or u["usage"] == "?", f"{name}: vLLM's tile without spills ({u['usage']})")


def test_bench_cpu_peers():
    """A whole run with both peers on the CPU: Triton under the interpreter, torch.compile by inductor's
    CPU backend, a fake kk3tune; the budget cuts torch.compile short."""
    with tempfile.TemporaryDirectory() as d:
        kk3 = fake_binary(d)
        out = f"{d}/cpu"
        env = {"KK3TUNE": kk3, "KK3_BENCH_DEVICE": "cpu", "TRITON_INTERPRET": "1", "KK3_BENCH_CASES": "common_nb1,write_nb4",
               "KK3_BENCH_TOKENS": "1,2", "KK3_BENCH_CHECK_T": "2", "KK3_BENCH_TILES": "1x4,2x8", "KK3_BENCH_BUDGET_S": "600"}
        r = bench(out, env, timeout=900)
        expect(r.returncode == 0, f"cpu run rc {r.returncode}: {r.stdout[-3000:]} {r.stderr[-3000:]}")
        p = json.load(open(f"{out}/peers.json"))
        tags = [f"{m}-T{t}" for m in ("common_nb1", "write_nb4") for t in (1, 2)]
        expect(all(p["peers"].get(tag, {}).get("triton_tuned_us") and p["peers"][tag].get("triton_vllm_us") for tag in tags),
               f"Triton timed at every shape: {p['peers']}")
        expect(p["peers"]["write_nb4-T1"]["triton_vllm_tile"] == "4x8x2" and set(p["peers"]["write_nb4-T1"]["triton_by_tile"]) == {"1x4x2", "2x8x2", "4x8x2"},
               f"vLLM's tile outside the grid is timed too: {p['peers']['write_nb4-T1']}")
        expect(p["peers"]["write_nb4-T1"]["triton_tuned_tile"] in ("1x4x2", "2x8x2"), "the tuned tile is of the grid")
        expect(all(p["peers"].get(tag, {}).get("compiled_us") and p["peers"][tag].get("compile_s") for tag in tags),
               f"torch.compile timed at every shape: {p['peers']} {p['notes']}")
        expect(set(p["checks"]) == {"triton common_nb1 1x4x2", "triton common_nb1 2x8x2", "triton write_nb4 1x4x2", "triton write_nb4 2x8x2",
                                    "triton write_nb4 4x8x2", "torch.compile common_nb1", "torch.compile write_nb4"},
               f"checks {sorted(p['checks'])}")
        expect(all(c.get("ok") for n, c in p["checks"].items() if n.startswith("triton")), f"Triton checks pass: {p['checks']}")
        expect(p["checks"]["triton write_nb4 4x8x2"]["block_write_equal_fraction"] == 1, "the block write checked")
        expect(p["dynamo_limits"].get("recompile_limit") == 1024, f"limits {p['dynamo_limits']}")
        expect(p["checks"]["torch.compile write_nb4"]["block_write_equal_fraction"] == 1
               and p["checks"]["torch.compile write_nb4"]["out_within_1ulp_fraction"] > 0.9, "compile write: block written, close to the formula")
        s = json.load(open(f"{out}/summary.json"))
        expect(all(r["triton_tuned_us"] and r["triton_vllm_us"] and r["compiled_us"] for r in s["rows"]), "summary has the peers")
        md = open(f"{out}/summary.md").read()
        expect("| case | NB | T | 1x4x2 | 2x8x2 | 4x8x2 |" in md, "the tile table")
        # budget: compiles assumed to take 1000 s: none started, every shape noted
        out = f"{d}/cpu2"
        r = bench(out, dict(env, KK3_BENCH_FIRST_COMPILE_S="1000", KK3_BENCH_TOKENS="1", KK3_BENCH_TILES="1x4"), timeout=900)
        p = json.load(open(f"{out}/peers.json"))
        expect(r.returncode == 0 and not any("compiled_us" in v for v in p["peers"].values())
               and any("torch.compile: 2 shapes skipped" in n for n in p["notes"]), f"compile skipped: {p['notes']}")
        # a tile whose check fails is reported and not timed: a broken peer module stands in for the real one
        out = f"{d}/cpu3"
        broken = f"{d}/broken"
        os.makedirs(broken)
        with open(f"{broken}/sitecustomize.py", "w") as f:
            f.write(textwrap.dedent('''
                import sys
                sys.path.insert(0, %r)
                import attn_res_triton as A
                real = A.attn_res_triton
                def bad(*a, block_l=1, **k):
                    out = real(*a, block_l=block_l, **k)
                    if block_l == 2:
                        out.view(-1)[0] = float("nan")
                    return out
                A.attn_res_triton = bad
            ''' % HERE))
        r = bench(out, dict(env, PYTHONPATH=broken, KK3_BENCH_TOKENS="1", KK3_BENCH_CASES="common_nb1", KK3_BENCH_PEERS="triton"), timeout=900)
        p = json.load(open(f"{out}/peers.json"))
        c = p["checks"].get("triton common_nb1 2x8x2", {})
        tiles = p["peers"].get("common_nb1-T1", {}).get("triton_by_tile", {})
        expect(r.returncode == 0 and not c.get("ok") and "not finite" in c.get("failed", "") and tiles.get("2x8x2") == {"skipped": "its check failed"}
               and "us" in tiles.get("1x4x2", {}) and p["peers"]["common_nb1-T1"]["triton_tuned_tile"] == "1x4x2",
               f"a failed check: {c} {tiles} {r.stderr[-2000:]}")
        md = open(f"{out}/summary.md").read()
        expect("check failed" in md and "FAIL: out not finite" in md, "the failed tile is reported")


def test_precompile_pool():
    """precompile_all's worker pool on a machine without a GPU: every kernel fails (Triton finds no
    driver) and the failures end as a note, not an exception."""
    class FakeRun:
        def __init__(self):
            self.data, self.notes = {}, []

        def left(self):
            return 120

        def elapsed(self):
            return 0.0

        def note(self, text):
            self.notes.append(text)

        def save(self):
            pass

    run = FakeRun()
    B.precompile_all(run, [(8, (True, True, -1), (1, 4, 2)), (4, (True, True, 4), (4, 8, 2))])
    pc = run.data.get("triton_precompile", {})
    expect(pc.get("kernels") == 2 and len(pc.get("errors", [])) == 2 and any("precompile: 2 failed" in n for n in run.notes),
           f"precompile without a GPU: {pc} {run.notes}")


def main():
    s0 = time.monotonic()
    test_summarizer()
    test_cold_instrument()
    test_table_lookup()
    test_bench_usage()
    test_bench_fake_kk3tune()
    test_gpu_script()
    if have_torch():
        test_triton_interpreter()
        test_check_catches()
        test_precompile_args()
        test_triton_aot()
        test_precompile_pool()
        if "--quick" not in sys.argv:
            test_bench_cpu_peers()
    else:
        print("torch or triton not installed: the Triton and torch.compile parts are not tested", flush=True)
    print(f"({time.monotonic() - s0:.0f} s)")
    print(f"{RESULTS['passed']} passed, {RESULTS['failed']} failed")
    return 1 if RESULTS["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
