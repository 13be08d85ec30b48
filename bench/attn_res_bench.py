#!/usr/bin/env python3
"""attn_res side by side in one run (issue 24, item 4): kk3tune's best variant and the dispatch
table's choice, the copy ceiling of the same run, a Triton peer in vLLM's Hopper design
(bench/attn_res_triton.py) with vLLM's own tiles and with the best tile of a search, and
torch.compile of the SPEC formula.

Usage: python3 bench/attn_res_bench.py OUTDIR

Cases (kk3tune modes) common_nb1, common_nb4, common_nb8 (delta, out_w), post_nb8 (no delta, out_w),
write_nb4 (delta, out_w, p also stored into block NB: blocks holds NB + 1 blocks a token) and
final_nb8 (delta, no out_w), at T = 1, 64, 256, 1024, 8192, H = 7168. In this order, each stage
writing its files as it goes so that a run cut short keeps what it measured:
 0. with KK3_BENCH_SWEEP, the dispatch table's choice per shape: the attn_res table of the mode in
    that sweep file, the range that `select(T)` takes (the first with T <= max_tokens, else the
    last), its variant; the summary reports that variant's median from stage 1's run;
 1. kk3tune (the product): the copy ceiling (copy_example, every variant, T=16384), the empty
    kernel, then `kk3tune time --family attn_res --mode MODE -T T --variant all` per shape (graph
    timing, every variant's median) into graph-MODE-TT.json; every command in commands.txt, its
    output in logs/;
 2. the Triton peer: every tile (BLOCK_L x num_warps x num_stages) of the search grid and vLLM's own
    tile of each T compiled first (in parallel processes, into Triton's disk cache), then checked
    per case against the float64 formula at a small T (a tile whose check fails is reported and
    not timed), then timed per shape, every tile (graph method of bench/torch_timing.py, median per
    call): vLLM's tile and the best of the grid are the two figures;
 3. torch.compile of the formula, one compiled graph per shape (dynamic=False, recompile limits
    raised, a fallback to eager made an error), compile time and graph time per shape.
peers.json is rewritten after every shape; summary.md and summary.json
(bench/summarize_attn_res_bench.py) after every stage.

Environment (all optional):
  KK3TUNE              the binary (default build/kk3tune)
  KK3_BENCH_CASES      comma list of modes (default common_nb1,common_nb4,common_nb8,post_nb8,write_nb4,
                       final_nb8); peers exist for common_*, post_*, write_* and final_*
  KK3_BENCH_TOKENS     comma list of T (default 1,64,256,1024,8192)
  KK3_BENCH_VARIANTS   comma list of attn_res variant ids, or all (default); ids the binary does
                       not list are dropped with a note
  KK3_BENCH_TIME_ARGS  extra arguments for every attn_res `kk3tune time` (e.g. "--max-time 0.2")
  KK3_BENCH_SWEEP      a kk3tune sweep file (.json or .json.gz) whose attn_res dispatch tables give
                       the table's choice per shape; without it those columns read "-" (noted)
  KK3_BENCH_PEERS      comma list of triton, compile (default both; "none" for kk3tune only)
  KK3_BENCH_TILES      the Triton search grid, comma list of BLOCK_LxNUM_WARPS[xNUM_STAGES] (stages
                       2 when left out; default 1x4,1x8,1x16,2x4,2x8,2x16,4x4,4x8,4x16); vLLM's own
                       tile of each shape is timed as well, in the grid or not
  KK3_BENCH_CHECK_T    T of the peer checks (default 64)
  KK3_BENCH_BUDGET_S   wall budget of the whole run in seconds (default 300): a stage that would
                       start past it is skipped with a note, a running command is stopped at it
  KK3_BENCH_FIRST_COMPILE_S  what the first torch.compile is assumed to take before one was seen
                       (default 40): a compile that would end past the budget is not started
  KK3_BENCH_RESUME     1: go on with OUTDIR of a run cut short (a later device call): what it
                       measured is kept (kk3tune JSON files present, peers timed, checks without
                       error) and the rest measured; the summary then mixes two sessions (noted)
  KK3_BENCH_DEVICE     cuda (default); cpu is for testing the script without a GPU (Triton under
                       TRITON_INTERPRET=1, wall-clock timing instead of graphs, no precompile)
(KK3_TRITON_WARPS, the num_warps list of the earlier peer, is gone: KK3_BENCH_TILES replaces it.)
Exit code: 0 when the run finished (whatever it measured or skipped), 2 on bad usage.
"""
import json
import math
import os
import platform
import re
import signal
import statistics
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from bench_common import Kk3tune, read_sweep, table_range  # noqa: E402
import summarize_attn_res_bench  # noqa: E402

DEFAULT_CASES = "common_nb1,common_nb4,common_nb8,post_nb8,write_nb4,final_nb8"
DEFAULT_TOKENS = "1,64,256,1024,8192"
DEFAULT_TILES = "1x4,1x8,1x16,2x4,2x8,2x16,4x4,4x8,4x16"  # attn_res_triton.TILES (kept here: no torch needed to read the config)
COPY_TOKENS = 16384
SEED = 20261201
PEER_KINDS = ("common", "post", "final", "write")


class UsageError(Exception):
    pass


class BudgetExceeded(BaseException):
    """Raised by the alarm at the end of the budget (a BaseException, so that library code catching
    Exception lets it through)."""


def case_flags(kind, nb):
    """(has_delta, has_out_w, write_idx) of a case as kk3tune's modes define it (configs/attn_res.json):
    common: delta, out_w; post: out_w; final: delta; write: delta when NB > 0, out_w, and p stored into
    block NB (write_idx = NB; -1 elsewhere). None for a kind the peers do not implement."""
    return {"common": (True, True, -1), "post": (False, True, -1), "final": (True, False, -1),
            "write": (nb > 0, True, nb)}.get(kind)


def parse_case(mode):
    """(kind, NB) of a kk3tune attn_res mode name such as common_nb8."""
    m = re.fullmatch(r"([a-z]+)_nb(\d+)", mode)
    if not m:
        raise ValueError(f"not an attn_res mode name: {mode!r} (expected KIND_nbK, e.g. common_nb8)")
    return m.group(1), int(m.group(2))


def parse_tile(text):
    """(BLOCK_L, num_warps, num_stages) of 'LxW' or 'LxWxS' (stages 2 when left out)."""
    parts = text.lower().split("x")
    if len(parts) not in (2, 3):
        raise ValueError(f"{text!r} is no BLOCK_LxNUM_WARPS[xNUM_STAGES]")
    values = [int(x) for x in parts] + ([2] if len(parts) == 2 else [])
    block_l, warps, stages = values
    if block_l <= 0 or block_l & (block_l - 1) or warps <= 0 or warps & (warps - 1) or warps > 32 or stages <= 0:
        raise ValueError(f"{text!r}: BLOCK_L and num_warps must be powers of two (num_warps at most 32), num_stages positive")
    return tuple(values)


def env_list(name, default, convert=str):
    text = os.environ.get(name, default).strip()
    items = [x.strip() for x in text.split(",") if x.strip()]
    if not items:
        raise UsageError(f"{name}: empty list")
    try:
        return [convert(x) for x in items]
    except ValueError as e:
        raise UsageError(f"{name}={text!r}: {e}") from None


def positive_int(x):
    v = int(x)
    if v <= 0:
        raise ValueError(f"{x} is not a positive integer")
    return v


def read_config():
    cases = env_list("KK3_BENCH_CASES", DEFAULT_CASES)
    for mode in cases:
        try:
            parse_case(mode)
        except ValueError as e:
            raise UsageError(f"KK3_BENCH_CASES: {e}") from None
    if len(set(cases)) != len(cases):
        raise UsageError("KK3_BENCH_CASES: a mode is named twice")
    tokens = env_list("KK3_BENCH_TOKENS", DEFAULT_TOKENS, positive_int)
    peers = env_list("KK3_BENCH_PEERS", "triton,compile")
    peers = [] if peers == ["none"] else peers
    if set(peers) - {"triton", "compile"}:
        raise UsageError(f"KK3_BENCH_PEERS: expected triton, compile or none, got {','.join(peers)}")
    tiles = env_list("KK3_BENCH_TILES", DEFAULT_TILES, parse_tile)
    if len(set(tiles)) != len(tiles):
        raise UsageError("KK3_BENCH_TILES: a tile is named twice")
    try:
        budget = float(os.environ.get("KK3_BENCH_BUDGET_S", "300"))
        first_compile = float(os.environ.get("KK3_BENCH_FIRST_COMPILE_S", "40"))
    except ValueError as e:
        raise UsageError(f"KK3_BENCH_BUDGET_S / KK3_BENCH_FIRST_COMPILE_S: {e}") from None
    if budget <= 0:
        raise UsageError("KK3_BENCH_BUDGET_S: expected a positive number of seconds")
    device = os.environ.get("KK3_BENCH_DEVICE", "cuda")
    if device not in ("cuda", "cpu"):
        raise UsageError(f"KK3_BENCH_DEVICE: expected cuda or cpu, got {device}")
    sweep = os.environ.get("KK3_BENCH_SWEEP", "").strip() or None
    if sweep is not None and not os.path.isfile(sweep):
        raise UsageError(f"KK3_BENCH_SWEEP: no file {sweep}")
    return {
        "cases": cases,
        "tokens": tokens,
        "variants": env_list("KK3_BENCH_VARIANTS", "all"),
        "time_args": os.environ.get("KK3_BENCH_TIME_ARGS", "").split(),
        "peers": peers,
        "tiles": tiles,
        "sweep": sweep,
        "budget_s": budget,
        "first_compile_s": first_compile,
        "check_t": positive_int(os.environ.get("KK3_BENCH_CHECK_T", "64")),
        "device": device,
        "kk3tune": os.environ.get("KK3TUNE", "build/kk3tune"),
        "resume": os.environ.get("KK3_BENCH_RESUME", "0") == "1",
    }


class Run:
    """The state of one benchmark run: the budget, and peers.json, which it rewrites after every step."""

    def __init__(self, out, config):
        self.out = out
        self.config = config
        self.start = time.monotonic()
        self.data = {
            "config": config,
            "planned": [f"{m}-T{t}" for m in config["cases"] for t in config["tokens"]],
            "host": platform.node(),
            "torch": None,
            "triton": None,
            "device_name": None,
            "sweep": None,
            "table": {},
            "kk3tune": {},
            "peers": {},
            "checks": {},
            "stages": {},
            "notes": [],
        }
        path = os.path.join(out, "peers.json")
        if config["resume"] and os.path.exists(path):
            with open(path) as f:
                old = json.load(f)
            for key in ("kk3tune", "peers", "checks", "notes"):
                self.data[key] = old.get(key, self.data[key])
            self.data["checks"] = {k: v for k, v in self.data["checks"].items() if "error" not in v}
            self.note(f"resumed a run of {old.get('elapsed_s', 0):.0f} s: its measurements are kept, the rest measured now")

    def elapsed(self):
        return time.monotonic() - self.start

    def left(self):
        return self.config["budget_s"] - self.elapsed()

    def note(self, text):
        print(f"[{self.elapsed():6.1f} s] note: {text}", flush=True)
        self.data["notes"].append(text)
        self.save()

    def peer(self, tag):
        return self.data["peers"].setdefault(tag, {})

    def save(self):
        self.data["elapsed_s"] = self.elapsed()
        tmp = os.path.join(self.out, "peers.json.tmp")
        with open(tmp, "w") as f:
            json.dump(self.data, f, indent=1)
        os.replace(tmp, os.path.join(self.out, "peers.json"))

    def summarize(self):
        try:
            return summarize_attn_res_bench.write(self.out)
        except Exception:  # a summary must never cost the measurements
            print(traceback.format_exc(), flush=True)
            return None


# ---------------------------------------------------------------- stage 0: the dispatch table
def table_choice(doc, mode, nb, t):
    """What the attn_res dispatch table of `mode` in the sweep document selects at T tokens
    (bench_common.table_range: as the generated select(num_tokens) does). Returns {variant,
    min_tokens, max_tokens, measured (T is one of the range's measured counts)}, or {error} when the
    sweep has no such table."""
    chosen = table_range(doc, "attn_res", mode, {"blocks": nb}, t)
    if chosen is None:
        return {"error": f"the sweep has no attn_res dispatch table for {mode}"}
    return {"variant": chosen["variant"], "min_tokens": chosen["min_tokens"], "max_tokens": chosen["max_tokens"],
            "measured": t in (chosen.get("tokens") or [])}


def stage_table(run):
    cfg = run.config
    if cfg["sweep"] is None:
        run.data["sweep"] = {"path": None, "note": "KK3_BENCH_SWEEP not set: the dispatch table's choice was not looked up"}
        return
    doc = read_sweep(cfg["sweep"])
    ctx = doc.get("context") or {}
    objective = (doc.get("families", {}).get("attn_res") or {}).get("objective") or (doc.get("plan", {}).get("objective") or {}).get("attn_res")
    run.data["sweep"] = {"path": cfg["sweep"], "utc_time": ctx.get("utc_time"), "git_revision": ctx.get("git_revision"),
                         "gpu": (ctx.get("gpu") or {}).get("name"), "schema_version": doc.get("schema_version"),
                         "objective": objective.get("timing") if isinstance(objective, dict) else objective}
    for mode in cfg["cases"]:
        _, nb = parse_case(mode)
        for t in cfg["tokens"]:
            choice = table_choice(doc, mode, nb, t)
            run.data["table"][f"{mode}-T{t}"] = choice
            if "error" in choice and t == cfg["tokens"][0]:
                run.note(f"dispatch table: {choice['error']} ({cfg['sweep']})")
    run.save()


# ---------------------------------------------------------------- stage 1: kk3tune
def known_variants(kk3, log_dir):
    """The attn_res variant ids the binary lists, or None when it cannot say."""
    path = os.path.join(log_dir, "list-variants.txt")
    rc, _ = kk3.run(["list", "--family", "attn_res", "--variants"], path, timeout_s=60)
    if rc != 0:
        return None
    ids, inside = set(), False
    with open(path) as f:
        for line in f:  # "  variant ids:", then one "    ID[  (reference)]" a line
            if line.strip() == "variant ids:":
                inside = True
            elif inside and line.startswith("    ") and line.strip():
                ids.add(line.split()[0])
            else:
                inside = False
    return ids or None


def stage_kk3tune(run):
    cfg = run.config
    logs = os.path.join(run.out, "logs")
    os.makedirs(logs, exist_ok=True)
    kk3 = Kk3tune(run.out, append=cfg["resume"])
    kk3.binary = cfg["kk3tune"]
    variants = "all"
    if cfg["variants"] != ["all"]:
        ids = known_variants(kk3, logs)
        wanted = cfg["variants"]
        if ids is not None:
            dropped = [v for v in wanted if v not in ids and v != "reference"]
            wanted = [v for v in wanted if v in ids or v == "reference"]
            if dropped:
                run.note(f"KK3_BENCH_VARIANTS: {len(dropped)} ids the binary does not list were dropped: {','.join(dropped)}")
        if not wanted:
            run.note("KK3_BENCH_VARIANTS: no listed id left; timing the reference variant only")
            wanted = ["reference"]
        variants = ",".join(wanted)

    def time_one(name, args, json_path):
        if cfg["resume"] and os.path.exists(json_path):
            return
        if run.left() <= 0:
            run.note(f"kk3tune {name}: skipped, the budget of {cfg['budget_s']:.0f} s was spent")
            return
        rc, wall = kk3.run(["time", *args, "--json", json_path], os.path.join(logs, f"time-{name}.txt"), timeout_s=max(1.0, run.left()))
        status = "ok" if rc == 0 else ("stopped at the budget" if rc is None else f"rc={rc}")
        run.data["kk3tune"][name] = {"rc": rc, "wall_s": wall, "status": status}
        print(f"[{run.elapsed():6.1f} s] kk3tune {name}: {status} ({wall:.1f} s)", flush=True)
        if rc != 0:
            run.note(f"kk3tune {name}: {status} after {wall:.1f} s (see logs/time-{name}.txt)")
        run.save()

    time_one("copy", ["--family", "copy_example", "--variant", "all", "-T", COPY_TOKENS], os.path.join(run.out, "copy.json"))
    time_one("empty", ["--family", "empty_example", "--variant", "all"], os.path.join(run.out, "empty.json"))
    for mode in cfg["cases"]:
        for t in cfg["tokens"]:
            tag = f"{mode}-T{t}"
            time_one(tag, ["--family", "attn_res", "--mode", mode, "-T", t, "--variant", variants, "--timing", "graph", *cfg["time_args"]],
                     os.path.join(run.out, f"graph-{tag}.json"))


# ---------------------------------------------------------------- peers: shared
def make_device_inputs(t, nb, flags, device, seed):
    """make_inputs of attn_res_formula for a case's flags (has_delta, has_out_w, write_idx), drawn on
    the device (the CPU generator is too slow for T=8192)."""
    from attn_res_formula import make_inputs

    has_delta, has_out_w, write_idx = flags
    return make_inputs(t, nb, has_delta, has_out_w, device=device, seed=seed, draw_on=device, block_write=write_idx >= 0)


def make_timer(device):
    """The per-call timer of the peers: graph_time_auto_us on the GPU; on the CPU (tests of the
    script only) the median wall time of a few plain calls."""
    if device == "cuda":
        from torch_timing import graph_time_auto_us
        return graph_time_auto_us

    def cpu_time_us(fn, reps=3):
        fn()
        times = []
        for _ in range(reps):
            s = time.perf_counter()
            fn()
            times.append((time.perf_counter() - s) * 1e6)
        return statistics.median(times), 1
    return cpu_time_us


def peer_shapes(run):
    """(mode, t, nb, flags) of every planned shape that has peers; flags = case_flags(kind, nb)."""
    shapes = []
    for mode in run.config["cases"]:
        kind, nb = parse_case(mode)
        flags = case_flags(kind, nb)
        if flags is None:
            run.note(f"{mode}: no peer for the {kind} case; kk3tune only")
            continue
        shapes.extend((mode, t, nb, flags) for t in run.config["tokens"])
    return shapes


def sync(device):
    import torch
    if device == "cuda":
        torch.cuda.synchronize()


def short_error(e):
    return f"{type(e).__name__}: {e}".splitlines()[0][:300]


# ---------------------------------------------------------------- stage 2: Triton
def _precompile_one(job):
    """One (nb, flags, tile) compiled in a worker process; returns (job, seconds, error or None)."""
    import attn_res_triton as A

    nb, (has_delta, has_out_w, write_idx), tile = job
    s = time.monotonic()
    try:
        A.precompile(nb, has_delta, has_out_w, write_idx, tuple(tile))
        return job, time.monotonic() - s, None
    except Exception as e:
        return job, time.monotonic() - s, short_error(e)


def precompile_all(run, jobs):
    """Compiles every (case, tile) of the Triton stage in parallel worker processes (spawned: each its
    own CUDA driver state; the kernels land in Triton's disk cache, which the checks and timings of
    this process then load). Triton compiles one kernel in about a second, mostly single-threaded
    Python and MLIR: with 50-odd kernels the workers save most of a minute. A failure here is only
    a note: the launch compiles the kernel itself."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    workers = max(1, min(len(jobs), (os.cpu_count() or 2) - 2, 12))
    s = time.monotonic()
    errors, seconds = [], []
    try:
        # a spawned worker imports this script as its main module: bench/ is on its path, attn_res_triton found
        pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"))
        try:
            for job, dt, err in pool.map(_precompile_one, jobs, timeout=max(1.0, run.left())):
                seconds.append(dt)
                if err:
                    errors.append(f"NB={job[0]} {job[1]} {tile_name(job[2])}: {err}")
        finally:
            pool.shutdown(wait=True, cancel_futures=True)  # at the budget: the queued kernels dropped, the running ones end
    except Exception as e:
        run.note(f"Triton precompile: stopped ({short_error(e)}); the launches compile what is left")
    run.data["triton_precompile"] = {"kernels": len(jobs), "workers": workers, "wall_s": time.monotonic() - s,
                                     "compile_s": sum(seconds), "errors": errors}
    print(f"[{run.elapsed():6.1f} s] Triton precompile: {len(seconds)} of {len(jobs)} kernels in {time.monotonic() - s:.1f} s "
          f"with {workers} workers ({sum(seconds):.1f} s of compiling)", flush=True)
    if errors:
        run.note(f"Triton precompile: {len(errors)} failed, e.g. {errors[0]}")
    run.save()


def tile_name(tile):
    return "x".join(map(str, tile))


def stage_triton(run, shapes):
    import attn_res_triton as A
    from attn_res_formula import check

    cfg, device = run.config, run.config["device"]
    rounding = "rne" if device == "cuda" else "truncate"  # Triton's interpreter truncates to bf16
    timer = make_timer(device)
    grid = [tuple(t) for t in cfg["tiles"]]
    run.data["triton_design"] = A.DESIGN
    run.data["triton_grid"] = [tile_name(t) for t in grid]
    cases = {}  # mode -> (nb, flags, tiles to check: the grid, then vLLM's tile of each T)
    for mode, t, nb, flags in shapes:
        tiles = cases.setdefault(mode, (nb, flags, list(grid)))[2]
        if A.vllm_tile(t, nb) not in tiles:
            tiles.append(A.vllm_tile(t, nb))

    def check_name(mode, tile):
        return f"triton {mode} {tile_name(tile)}"

    todo = [(nb, flags, tile) for mode, (nb, flags, tiles) in cases.items() for tile in tiles
            if check_name(mode, tile) not in run.data["checks"]]
    if device == "cuda" and todo:
        precompile_all(run, list(dict.fromkeys(todo)))
    for mode, (nb, flags, tiles) in cases.items():  # the checks: one small T per case and tile
        if run.left() <= 0:
            run.note(f"Triton: checks from {mode} on skipped, the budget of {cfg['budget_s']:.0f} s was spent")
            break
        inputs = None
        for tile in tiles:
            name = check_name(mode, tile)
            if name in run.data["checks"]:  # resumed
                continue
            s = time.monotonic()
            try:
                inputs = inputs or make_device_inputs(cfg["check_t"], nb, flags, device, SEED + 7)
                run.data["checks"][name] = check(
                    lambda *a: A.attn_res_triton(*a, block_l=tile[0], num_warps=tile[1], num_stages=tile[2]),
                    inputs, nb, flags[2], rounding)
            except Exception as e:
                run.data["checks"][name] = {"error": short_error(e), "ok": False}
                print(traceback.format_exc(), flush=True)
            c = run.data["checks"][name]
            c["seconds"] = time.monotonic() - s  # about 1 s more where the kernel was compiled here, not loaded from the cache
            print(f"[{run.elapsed():6.1f} s] check {name}: {'ok' if c.get('ok') else 'FAILED: ' + c.get('failed', c.get('error', '?'))} "
                  f"({c['seconds']:.2f} s)", flush=True)
            run.save()
        del inputs
    for mode, t, nb, flags in shapes:
        tag = f"{mode}-T{t}"
        if "triton_by_tile" in run.peer(tag) and not run.peer(tag).get("triton_partial"):  # resumed
            continue
        if run.left() <= 0:
            run.note(f"Triton: {tag} and the shapes after it skipped, the budget of {cfg['budget_s']:.0f} s was spent")
            return
        vt = A.vllm_tile(t, nb)
        by_tile = {}
        peer = run.peer(tag)
        peer.update(triton_vllm_tile=tile_name(vt), triton_by_tile=by_tile, triton_partial=True)
        try:
            args = make_device_inputs(t, nb, flags, device, SEED + t)
            out = args[1].new_empty(args[1].shape)
            for tile in grid + ([vt] if vt not in grid else []):
                name = tile_name(tile)
                c = run.data["checks"].get(check_name(mode, tile))
                if c is None or not c.get("ok"):
                    by_tile[name] = {"skipped": "not checked" if c is None else "its check failed"}
                    continue
                try:
                    us, calls = timer(lambda: A.attn_res_triton(*args, nb, flags[2], out=out, block_l=tile[0], num_warps=tile[1],
                                                                num_stages=tile[2]))
                    by_tile[name] = {"us": us, "calls": calls}
                except Exception as e:
                    by_tile[name] = {"error": short_error(e)}
                    print(traceback.format_exc(), flush=True)
            timed = {n: r["us"] for n, r in by_tile.items() if "us" in r and parse_tile(n) in grid}
            best = min(timed, key=timed.get) if timed else None
            peer.update(triton_vllm_us=by_tile.get(tile_name(vt), {}).get("us"), triton_tuned_tile=best,
                        triton_tuned_us=timed.get(best))
            peer.pop("triton_partial")
            print(f"[{run.elapsed():6.1f} s] triton {tag}: vLLM tile {tile_name(vt)} {peer['triton_vllm_us']}, tuned {best} "
                  f"{peer['triton_tuned_us']}; " + ", ".join(f"{n} {r.get('us', '-')}" for n, r in by_tile.items()), flush=True)
            args = out = None  # freed before the next shape's inputs
        except Exception as e:
            peer["triton_error"] = short_error(e)
            run.note(f"Triton {tag}: {peer['triton_error']}")
            print(traceback.format_exc(), flush=True)
        run.save()


# ---------------------------------------------------------------- stage 3: torch.compile
def raise_dynamo_limits():
    """Raises every recompile limit torch has (names vary across versions) and makes hitting one
    an error instead of a silent fallback to eager. Returns what was set."""
    import torch._dynamo

    c = torch._dynamo.config
    done = {}
    for name, value in (("cache_size_limit", 1024), ("recompile_limit", 1024), ("accumulated_cache_size_limit", 8192),
                        ("accumulated_recompile_limit", 8192), ("fail_on_recompile_limit_hit", True),
                        ("fail_on_cache_limit_hit", True)):
        if hasattr(c, name):
            try:
                setattr(c, name, value)
                done[name] = value
            except Exception as e:  # a removed alias may refuse
                done[name] = f"not set: {e}"
    return done


def in_chain(e, kind):
    while e is not None:
        if isinstance(e, kind):
            return True
        e = e.__cause__ or e.__context__
    return False


def stage_compile(run, shapes):
    import torch
    from attn_res_formula import attn_res_torch, check

    cfg, device = run.config, run.config["device"]
    timer = make_timer(device)
    run.data["dynamo_limits"] = raise_dynamo_limits()
    compiled = torch.compile(attn_res_torch, dynamic=False)
    longest = None  # the longest compile seen, s

    def on_alarm(signum, frame):
        raise BudgetExceeded()

    previous = signal.signal(signal.SIGALRM, on_alarm) if hasattr(signal, "SIGALRM") else None
    try:
        for i, (mode, t, nb, flags) in enumerate(shapes):
            tag = f"{mode}-T{t}"
            if "compiled_us" in run.peer(tag):  # resumed
                continue
            expect = longest if longest is not None else cfg["first_compile_s"]
            if run.left() < expect:
                left = ", ".join(f"{m}-T{x}" for m, x, *_ in shapes[i:])
                run.note(f"torch.compile: {len(shapes) - i} shapes skipped ({left}): {run.left():.0f} s of the budget left, "
                         f"a compile takes about {expect:.0f} s")
                return
            if previous is not None:
                signal.alarm(max(1, math.ceil(run.left())))
            try:
                args = make_device_inputs(t, nb, flags, device, SEED + t)
                sync(device)
                s = time.monotonic()
                compiled(*args, nb, flags[2])  # compiles this shape, runs it once
                sync(device)
                compile_s = time.monotonic() - s
                longest = max(longest or 0.0, compile_s)
                us, calls = timer(lambda: compiled(*args, nb, flags[2]))
                run.peer(tag).update(compiled_us=us, compile_s=compile_s, compiled_calls=calls)
                print(f"[{run.elapsed():6.1f} s] torch.compile {tag}: {us:.3f} us, compiled in {compile_s:.1f} s", flush=True)
                if t == cfg["check_t"]:
                    name = f"torch.compile {mode}"
                    try:
                        fresh = make_device_inputs(t, nb, flags, device, SEED + 7)
                        run.data["checks"][name] = check(lambda *a: compiled(*a), fresh, nb, flags[2])
                    except Exception as e:
                        run.data["checks"][name] = {"error": short_error(e), "ok": False}
                args = None
            except BudgetExceeded:
                run.note(f"torch.compile: stopped in {tag} at the end of the budget; {len(shapes) - i - 1} more shapes not compiled")
                return
            except Exception as e:
                if in_chain(e, BudgetExceeded):
                    run.note(f"torch.compile: stopped in {tag} at the end of the budget; {len(shapes) - i - 1} more shapes not compiled")
                    return
                run.peer(tag)["compile_error"] = short_error(e)
                run.note(f"torch.compile {tag}: {run.peer(tag)['compile_error']}")
                print(traceback.format_exc(), flush=True)
            finally:
                if previous is not None:
                    signal.alarm(0)
                run.save()
    finally:
        if previous is not None:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, previous)


# ---------------------------------------------------------------- the run
def stage(run, name, fn, *args):
    s = time.monotonic()
    try:
        fn(run, *args)
    except BudgetExceeded:
        run.note(f"{name}: stopped at the end of the budget")
    except Exception as e:
        run.note(f"{name}: failed: {type(e).__name__}: {str(e).splitlines()[0][:300] if str(e) else ''}")
        print(traceback.format_exc(), flush=True)
    run.data["stages"][name] = time.monotonic() - s
    run.save()
    run.summarize()


def main(argv):
    if len(argv) == 2 and argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0
    if len(argv) != 2:
        print("usage: python3 bench/attn_res_bench.py OUTDIR   (--help for the environment knobs)", file=sys.stderr)
        return 2
    try:
        config = read_config()
    except UsageError as e:
        print(f"attn_res_bench.py: {e}", file=sys.stderr)
        return 2
    out = argv[1]
    os.makedirs(out, exist_ok=True)
    run = Run(out, config)
    run.save()
    print(f"attn_res bench: {len(config['cases'])} cases x {len(config['tokens'])} T, peers {config['peers'] or 'none'}, "
          f"{len(config['tiles'])} Triton tiles, sweep {config['sweep'] or '-'}, budget {config['budget_s']:.0f} s, output {out}",
          flush=True)
    if os.environ.get("KK3_TRITON_WARPS"):
        run.note("KK3_TRITON_WARPS is gone and was ignored: KK3_BENCH_TILES names the Triton tiles (BLOCK_LxNUM_WARPS)")

    stage(run, "dispatch table", stage_table)
    stage(run, "kk3tune", stage_kk3tune)
    shapes = []
    if config["peers"]:
        try:
            import torch
            run.data["torch"] = torch.__version__
            if config["device"] == "cuda":
                if not torch.cuda.is_available():
                    raise RuntimeError("torch sees no CUDA device")
                run.data["device_name"] = torch.cuda.get_device_name()
            import triton
            run.data["triton"] = triton.__version__
            shapes = peer_shapes(run)
        except Exception as e:
            run.note(f"peers skipped: {type(e).__name__}: {e}")
    if "triton" in config["peers"] and shapes:
        stage(run, "triton", stage_triton, shapes)
    if "compile" in config["peers"] and shapes:
        stage(run, "torch.compile", stage_compile, shapes)
    run.data["stages"]["total"] = run.elapsed()
    run.save()
    md = run.summarize()
    print(md or "(no summary: see the traceback above)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
