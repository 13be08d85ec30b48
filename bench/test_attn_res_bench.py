#!/usr/bin/env python3
"""CPU tests of the attn_res benchmark scripts (no GPU): the summarizer on synthetic results, the
benchmark's argument handling, budget and partial output with a fake kk3tune binary, and, where
torch and Triton are installed, the Triton peer under TRITON_INTERPRET=1 against the float64
formula and a whole CPU run with both peers.

Usage: python3 bench/test_attn_res_bench.py   (prints 'N passed, N failed'; exit 1 on a failure)
"""
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import summarize_attn_res_bench as S  # noqa: E402

H = 7168
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
    delta = mode.startswith(("common", "final"))
    if fam == "attn_res":
        nbytes = t * H * 2 * (nb + 2 + 2 * delta) + 3 * H * 2
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


def write_json(path, doc):
    with open(path, "w") as f:
        json.dump(doc, f)


def time_doc(records, gpu="Fake H200"):
    return {"schema_version": 1, "kind": "time", "context": {"gpu": {"name": gpu}, "tool_version": "0.1", "git_revision": "abc",
                                                              "utc_time": "2026-12-01T00:00:00Z"}, "results": records}


def rec(variant, us, nbytes, reference=False):
    return {"variant": variant, "reference": reference, "bytes_moved": nbytes, "statistics": {"median_us": us}}


def test_summarizer():
    with tempfile.TemporaryDirectory() as d:
        # ceiling 4.0 TB/s: 4e9 bytes in 1000 us; the slower copy variant must not be the ceiling
        write_json(f"{d}/copy.json", time_doc([rec("a", 1000.0, 4e9), rec("b", 2000.0, 4e9)]))
        write_json(f"{d}/empty.json", time_doc([rec("e1", 0.6, 0), rec("e2", 0.55, 0)]))
        b8192 = 8192 * H * 2 * 12
        t_ceiling = b8192 / 4e12 * 1e6
        # T=8192 at 95% of the ceiling, one variant unlaunchable (no statistics)
        write_json(f"{d}/graph-common_nb8-T8192.json", time_doc([rec("fast", t_ceiling / 0.95, b8192), rec("ref", 2 * t_ceiling, b8192, True),
                                                                 {"variant": "skip", "reference": False, "status": "unlaunchable"}]))
        b1024 = 1024 * H * 2 * 12
        write_json(f"{d}/graph-common_nb8-T1024.json", time_doc([rec("x", b1024 / 4e12 * 1e6 / 0.70, b1024, True)]))  # 70% < 80%
        b1 = H * 2 * 12
        write_json(f"{d}/graph-common_nb8-T1.json", time_doc([rec("y", 2.4, b1, True)]))
        write_json(f"{d}/graph-post_nb8-T1.json", time_doc([rec("z", 3.1, H * 2 * 11, True)]))
        peers = {"torch": "2.11", "triton": "3.6", "config": {"cases": ["common_nb8", "post_nb8"]},
                 "planned": ["common_nb8-T1", "common_nb8-T1024", "common_nb8-T8192", "post_nb8-T1", "post_nb8-T64"],
                 "peers": {"common_nb8-T8192": {"triton_us": t_ceiling, "compiled_us": 2 * t_ceiling, "compile_s": 5.0},  # slower than Triton
                           "common_nb8-T1024": {"triton_us": 1e9, "compiled_us": 1e9},
                           "common_nb8-T1": {"triton_us": 3.0, "compiled_us": 10.0},  # 2.4 <= 0.4 * 10 = 4
                           "post_nb8-T1": {"triton_us": 3.5, "compiled_us": 7.0}},  # 3.1 > 2.8: miss
                 "checks": {"triton common_nb8 num_warps=16": {"tokens": 64, "out_max_abs_err": 0.01, "out_ref_max_abs": 4.0,
                                                               "out_bf16_equal_fraction": 0.99, "out_within_1ulp_fraction": 1.0,
                                                               "out_finite": True, "prefix_equal_fraction": 1.0},
                            "triton post_nb8 num_warps=8": {"error": "RuntimeError: boom"}},
                 "notes": ["a note"], "stages": {"kk3tune": 10.0}}
        write_json(f"{d}/peers.json", peers)
        md = S.write(d)
        s = json.load(open(f"{d}/summary.json"))
        expect(abs(s["ceiling_tb_s"] - 4.0) < 1e-9, f"ceiling 4.0, got {s['ceiling_tb_s']}")
        expect(s["ceiling_variant"] == "a", "ceiling from the fastest copy variant")
        expect(abs(s["empty_us"] - 0.55) < 1e-9, "empty kernel: the fastest")
        rows = {(r["mode"], r["t"]): r for r in s["rows"]}
        expect(("post_nb8", 64) in rows and rows[("post_nb8", 64)]["best_us"] is None, "a planned, unmeasured shape has a row of '-'")
        expect([r["t"] for r in s["rows"]] == [1, 1024, 8192, 1, 64], f"rows in case then T order: {[(r['mode'], r['t']) for r in s['rows']]}")
        r = rows[("common_nb8", 8192)]
        expect("waived" in md, "the waived target is named")
        expect(r["best_variant"] == "fast" and r["variants_timed"] == 2, "unlaunchable variant left out, best chosen")
        expect(abs(r["ceiling_share"] - 0.95) < 1e-9, "95% of the ceiling")
        tg = {t["name"]: t["holds"] for t in r["targets"]}
        expect(tg == {"90% of ceiling": True, "< Triton": False, "<= 0.4x compile": None}, f"T=8192 targets {tg}")
        # 0.4 x compile = 0.8 t_ceiling is below the ceiling time: the compile target is waived
        expect([t.get("waived") for t in r["targets"]] == [None, None, True], "the compile target is waived at T=8192")
        tg = {t["name"]: t["holds"] for t in rows[("common_nb8", 1024)]["targets"]}
        expect(tg["80% of ceiling"] is False, "T=1024 at 70% misses 80%")
        tg = {t["name"]: t["holds"] for t in rows[("common_nb8", 1)]["targets"]}
        expect(tg == {"<= 2.5 us": True, "< Triton": True, "<= 0.4x compile": True}, f"T=1 common targets {tg}")
        tg = {t["name"]: t["holds"] for t in rows[("post_nb8", 1)]["targets"]}
        expect(tg == {"<= 2.5 us": False, "< Triton": True, "<= 0.4x compile": False}, f"T=1 post targets {tg}")
        # held: 8192: 90% ok; 1024: triton ok, compile ok; T=1 common: 3; post T=1: triton -> 7
        # evaluated: 2 + 3 + 3 + 3 = 11 (8192's compile target waived); not measured: post T=64: triton, compile -> 2
        counts = (s["held"], s["evaluated"], s["waived"], s["not_measured"])
        expect(counts == (7, 11, 1, 2), f"counts {counts}")
        last = md.strip().splitlines()[-1]
        expect(last == "targets: 7 of 11 hold (1 waived; 2 not measured)", f"last line: {last}")
        header = [ln for ln in md.splitlines() if ln.startswith("| case | NB | T | best us")][0]
        cols = [c.strip() for c in header.strip("|").split("|")]
        expect(cols == ["case", "NB", "T", "best us", "best variant", "GB moved", "TB/s", "% of copy ceiling", "Triton us", "best/Triton",
                        "torch.compile us", "best/compile", "verdict"], f"columns {cols}")
        expect("| common | 8 | 8192 |" in md and "95.0 |" in md, "T=8192 row with 95.0%")
        expect("boom" in md and "a note" in md, "checks' errors and notes reach the summary")
        out = subprocess.run([sys.executable, f"{HERE}/summarize_attn_res_bench.py", d], capture_output=True, text=True)
        expect(out.returncode == 0 and out.stdout == md, "the command line prints the same markdown")
    with tempfile.TemporaryDirectory() as d:  # nothing but a copy result: no crash, no targets
        write_json(f"{d}/copy.json", time_doc([rec("a", 1000.0, 4e9)]))
        md = S.write(d)
        expect(md.strip().endswith("targets: 0 of 0 hold"), "an empty run summarizes")
    with tempfile.TemporaryDirectory() as d:  # the issue-5 layout (mode nb8, no peers.json) still reads
        write_json(f"{d}/graph-nb8-T1.json", time_doc([rec("y", 2.0, H * 2 * 12, True)]))
        with open(f"{d}/copy.json", "w") as f:
            f.write("{ truncated")
        s = S.collect(d)
        expect(s["rows"][0]["nb"] == 8 and s["rows"][0]["case"] == "nb8" and s["ceiling_tb_s"] is None, "old names, a broken copy.json")
    for args, rc in (([], 2), (["a", "b"], 2), (["--help"], 0), (["/nonexistent-folder-x"], 2)):
        out = subprocess.run([sys.executable, f"{HERE}/summarize_attn_res_bench.py", *args], capture_output=True, text=True)
        expect(out.returncode == rc, f"summarizer {args}: rc {out.returncode}, expected {rc}")


def bench(out, env, timeout=600):
    e = dict(os.environ, **env)
    return subprocess.run([sys.executable, f"{HERE}/attn_res_bench.py", *([out] if out else [])], env=e, capture_output=True,
                          text=True, timeout=timeout)


def test_bench_usage():
    expect(bench(None, {}).returncode == 2, "no OUTDIR: rc 2")
    h = subprocess.run([sys.executable, f"{HERE}/attn_res_bench.py", "--help"], capture_output=True, text=True)
    expect(h.returncode == 0 and "KK3_BENCH_BUDGET_S" in h.stdout, "--help lists the knobs")
    with tempfile.TemporaryDirectory() as d:
        for env in ({"KK3_BENCH_TOKENS": "1,0"}, {"KK3_BENCH_TOKENS": "x"}, {"KK3_BENCH_CASES": "nb8"}, {"KK3_BENCH_CASES": ","},
                    {"KK3_BENCH_CASES": "post_nb8,post_nb8"}, {"KK3_BENCH_PEERS": "eager"}, {"KK3_BENCH_BUDGET_S": "-1"},
                    {"KK3_BENCH_BUDGET_S": "abc"}, {"KK3_BENCH_DEVICE": "tpu"}, {"KK3_TRITON_WARPS": "0"}):
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
        r = bench(out, {"KK3TUNE": kk3, "KK3_BENCH_PEERS": "none"})
        expect(r.returncode == 0, f"fake run rc {r.returncode}: {r.stderr[-2000:]}")
        files = sorted(os.listdir(out))
        want = {f"graph-{m}-T{t}.json" for m in ("common_nb1", "common_nb4", "common_nb8", "post_nb8") for t in (1, 64, 256, 1024, 8192)}
        expect(want <= set(files) and {"copy.json", "empty.json", "peers.json", "summary.md", "summary.json", "commands.txt"} <= set(files),
               f"files {files}")
        cmds = open(f"{out}/commands.txt").read().splitlines()
        expect(len(cmds) == 22 and cmds[0].endswith(f"time --family copy_example --variant all -T 16384 --json {out}/copy.json")
               and cmds[2] == f"{kk3} time --family attn_res --mode common_nb1 -T 1 --variant all --json {out}/graph-common_nb1-T1.json",
               f"commands {cmds[:3]}")
        s = json.load(open(f"{out}/summary.json"))
        expect(len(s["rows"]) == 20 and all(r["best_variant"] == "v-fast" for r in s["rows"]), "20 rows, best v-fast")
        expect(s["not_measured"] == 40, f"peers not run: 40 targets not measured, got {s['not_measured']}")
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
        # a broken mode: the fake refuses KK3_BENCH_CASES=final_nb8? no: make the binary fail by mode name
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


def have_torch():
    try:
        import torch  # noqa: F401
        import triton  # noqa: F401
        return True
    except ImportError:
        return False


def test_triton_interpreter():
    """The Triton kernel run by Triton's interpreter on the CPU against the float64 formula. The
    interpreter rounds fp32 to bf16 by truncation (the GPU rounds to nearest even), so the prefix is
    compared with the truncated sum and the output allowed 1 ulp against the rounded reference."""
    code = textwrap.dedent(r'''
        import json, sys, torch
        sys.path.insert(0, sys.argv[1])
        from attn_res_formula import make_inputs, reference_f64, check
        from attn_res_triton import attn_res_triton
        figs = {}
        for nb in (0, 1, 3, 8):
            for kind, (hd, ho) in {"common": (True, True), "post": (False, True), "final": (True, False)}.items():
                inp = make_inputs(3, nb, hd, ho, device="cpu", seed=nb)
                blocks, prefix, delta, rms_w, res_w, out_w = inp
                mine = prefix.clone()
                out = attn_res_triton(blocks, mine, delta, rms_w, res_w, out_w, nb, num_warps=16)
                if hd:  # truncated p, as the interpreter rounds
                    s32 = (prefix.float() + delta.float()).view(torch.int32)
                    p_trunc = (s32 >> 16).to(torch.int16).view(torch.bfloat16)
                    prefix_ok = bool((mine.view(torch.int16) == p_trunc.view(torch.int16)).all())
                else:
                    p_trunc, prefix_ok = prefix, bool((mine.view(torch.int16) == prefix.view(torch.int16)).all())
                _, ref = reference_f64(blocks, p_trunc, None, rms_w, res_w, out_w, nb)
                # truncation: below one bf16 ulp of the element (2^-7 relative); the interpreter's sums
                # are sequential fp32, so a logit may be off by ~1e-5 relative, which moves elements near
                # zero (where sources cancel) by ~1e-4 of the row's scale
                err = ((out.double() - ref).abs() / (2 ** -7 * ref.abs() + 2e-4 * ref.abs().max())).max().item()
                f = check(lambda *a: attn_res_triton(*a), inp, nb)
                figs[f"{kind} nb{nb}"] = {"prefix_ok": prefix_ok, "max_rel_err": err, "check": f}
        print(json.dumps(figs))
    ''')
    r = subprocess.run([sys.executable, "-c", code, HERE], env=dict(os.environ, TRITON_INTERPRET="1"), capture_output=True, text=True)
    expect(r.returncode == 0, f"interpreter run: {r.stderr[-3000:]}")
    if r.returncode:
        return
    figs = json.loads(r.stdout.strip().splitlines()[-1])
    for name, f in figs.items():
        expect(f["prefix_ok"], f"{name}: prefix is p bit for bit (interpreter rounding)")
        expect(f["max_rel_err"] <= 1, f"{name}: error {f['max_rel_err']:.3g} of the bound (one bf16 ulp plus fp32 noise)")
        expect(f["check"]["out_finite"] and f["check"]["out_max_abs_err"] < 0.05, f"{name}: check figures {f['check']}")


def test_triton_aot():
    """The Triton kernel compiled for sm_90 by Triton's own compiler and ptxas, as on the H200 (no
    GPU needed): every case and num_warps the benchmark launches compiles, without local memory,
    with 16-byte loads and stores (the pointers and strides marked divisible by 16, as Triton's
    launcher specializes them on the GPU)."""
    code = textwrap.dedent(r'''
        import json, os, subprocess, sys, tempfile, triton
        from triton.backends.compiler import GPUTarget
        from triton.compiler import ASTSource
        sys.path.insert(0, sys.argv[1])
        import attn_res_triton as A
        sig = {n: "*bf16" for n in ("blocks_ptr", "prefix_ptr", "delta_ptr", "rms_w_ptr", "res_w_ptr", "out_w_ptr", "out_ptr")}
        sig.update({n: "i32" for n in ("stride_block_t", "stride_block_n", "stride_prefix_t", "stride_delta_t", "stride_out_t")})
        sig.update(eps="fp32", out_eps="fp32", H="constexpr", NB="constexpr", HAS_DELTA="constexpr", HAS_OUT_W="constexpr", BLOCK_H="constexpr")
        attrs = {(i,): [["tt.divisibility", 16]] for i in range(12)}
        tool = os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "bin", "cuobjdump")
        res = {}
        for nb, hd, ho in ((1, 1, 1), (4, 1, 1), (8, 1, 1), (8, 0, 1), (8, 1, 0), (0, 1, 1)):
            for w in (8, 16, 32):
                src = ASTSource(fn=A.attn_res_kernel, signature=sig, constexprs={"H": 7168, "NB": nb, "HAS_DELTA": bool(hd), "HAS_OUT_W": bool(ho), "BLOCK_H": 8192}, attrs=attrs)
                k = triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": w})
                usage = ""
                if os.path.exists(tool):
                    with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
                        f.write(k.asm["cubin"]); f.flush()
                        usage = subprocess.run([tool, "--dump-resource-usage", f.name], capture_output=True, text=True).stdout
                ptx = k.asm["ptx"]
                vec = "ld.global.v4.b32" in ptx and "ld.global.b16" not in ptx and "st.global.b16" not in ptx
                res[f"nb{nb} delta{hd} out_w{ho} warps{w}"] = (usage[usage.find("REG:"):].split("CONSTANT")[0].strip() if "REG:" in usage else "?") + (" v4" if vec else " SCALAR")
        print(json.dumps(res))
    ''')
    r = subprocess.run([sys.executable, "-c", code, HERE], capture_output=True, text=True)
    expect(r.returncode == 0, f"sm_90 compile: {r.stderr[-3000:]}")
    if r.returncode:
        return
    usage = json.loads(r.stdout.strip().splitlines()[-1])
    for name, u in usage.items():
        print(f"  sm_90 {name}: {u}")
        expect(("LOCAL:0" in u or u.startswith("?")) and u.endswith(" v4"), f"{name}: no local memory, 16-byte accesses ({u})")


def test_bench_cpu_peers():
    """A whole run with both peers on the CPU: Triton under the interpreter, torch.compile by inductor's
    CPU backend, a fake kk3tune; the budget cuts torch.compile short."""
    with tempfile.TemporaryDirectory() as d:
        kk3 = fake_binary(d)
        out = f"{d}/cpu"
        env = {"KK3TUNE": kk3, "KK3_BENCH_DEVICE": "cpu", "TRITON_INTERPRET": "1", "KK3_BENCH_CASES": "common_nb1,post_nb8",
               "KK3_BENCH_TOKENS": "1,2", "KK3_BENCH_CHECK_T": "2", "KK3_TRITON_WARPS": "4,8", "KK3_BENCH_BUDGET_S": "600"}
        r = bench(out, env, timeout=900)
        expect(r.returncode == 0, f"cpu run rc {r.returncode}: {r.stdout[-3000:]} {r.stderr[-3000:]}")
        p = json.load(open(f"{out}/peers.json"))
        tags = [f"{m}-T{t}" for m in ("common_nb1", "post_nb8") for t in (1, 2)]
        expect(all(p["peers"].get(tag, {}).get("triton_us") for tag in tags), f"Triton timed at every shape: {p['peers']}")
        expect(all(p["peers"].get(tag, {}).get("compiled_us") and p["peers"][tag].get("compile_s") for tag in tags),
               f"torch.compile timed at every shape: {p['peers']} {p['notes']}")
        expect(set(p["checks"]) == {"triton common_nb1 num_warps=4", "triton common_nb1 num_warps=8", "triton post_nb8 num_warps=4",
                                    "triton post_nb8 num_warps=8", "torch.compile common_nb1", "torch.compile post_nb8"},
               f"checks {sorted(p['checks'])}")
        expect(all("error" not in c for c in p["checks"].values()), f"checks ran: {p['checks']}")
        expect(p["checks"]["triton post_nb8 num_warps=8"]["out_within_1ulp_fraction"] > 0.999, "post: within 1 ulp (truncating interpreter)")
        expect(p["dynamo_limits"].get("recompile_limit") == 1024, f"limits {p['dynamo_limits']}")
        expect(p["checks"]["torch.compile post_nb8"]["out_within_1ulp_fraction"] > 0.99, "compile post: close to the formula")
        s = json.load(open(f"{out}/summary.json"))
        expect(all(r["triton_us"] and r["compiled_us"] for r in s["rows"]), "summary has the peers")
        # budget: compiles assumed to take 1000 s: none started, every shape noted
        out = f"{d}/cpu2"
        r = bench(out, dict(env, KK3_BENCH_FIRST_COMPILE_S="1000", KK3_BENCH_TOKENS="1"), timeout=900)
        p = json.load(open(f"{out}/peers.json"))
        expect(r.returncode == 0 and not any("compiled_us" in v for v in p["peers"].values())
               and any("torch.compile: 2 shapes skipped" in n for n in p["notes"]), f"compile skipped: {p['notes']}")


def main():
    test_summarizer()
    test_bench_usage()
    test_bench_fake_kk3tune()
    if have_torch():
        test_triton_interpreter()
        test_triton_aot()
        if "--quick" not in sys.argv:
            test_bench_cpu_peers()
    else:
        print("torch or triton not installed: the Triton and torch.compile parts are not tested", flush=True)
    print(f"{RESULTS['passed']} passed, {RESULTS['failed']} failed")
    return 1 if RESULTS["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
