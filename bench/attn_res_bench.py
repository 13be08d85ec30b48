#!/usr/bin/env python3
"""attn_res side by side in one run (issue 14, item 4): kk3tune's best variant, the copy ceiling
of the same run, a Triton peer (bench/attn_res_triton.py) and torch.compile of the SPEC formula.

Usage: python3 bench/attn_res_bench.py OUTDIR

Cases (kk3tune modes) common_nb1, common_nb4, common_nb8 (delta, out_w) and post_nb8 (no delta,
out_w), at T = 1, 64, 256, 1024, 8192, H = 7168. In this order, each stage writing its files as it
goes so that a run cut short keeps what it measured:
 1. kk3tune (the product): the copy ceiling (copy_example, every variant, T=16384), the empty
    kernel, then `kk3tune time --family attn_res --mode MODE -T T --variant all` per shape (graph
    timing, every variant's median) into graph-MODE-TT.json; every command in commands.txt, its
    output in logs/;
 2. the Triton peer: checked against the float64 formula at a small T per case and num_warps, then
    timed per shape (graph method of bench/torch_timing.py; the faster num_warps counts);
 3. torch.compile of the formula, one compiled graph per shape (dynamic=False, recompile limits
    raised, a fallback to eager made an error), compile time and graph time per shape.
peers.json is rewritten after every shape; summary.md and summary.json
(bench/summarize_attn_res_bench.py) after every stage.

Environment (all optional):
  KK3TUNE              the binary (default build/kk3tune)
  KK3_BENCH_CASES      comma list of modes (default common_nb1,common_nb4,common_nb8,post_nb8);
                       peers exist for common_*, post_* and final_*
  KK3_BENCH_TOKENS     comma list of T (default 1,64,256,1024,8192)
  KK3_BENCH_VARIANTS   comma list of attn_res variant ids, or all (default); ids the binary does
                       not list are dropped with a note
  KK3_BENCH_TIME_ARGS  extra arguments for every attn_res `kk3tune time` (e.g. "--max-time 0.2")
  KK3_BENCH_PEERS      comma list of triton, compile (default both; "none" for kk3tune only)
  KK3_BENCH_BUDGET_S   wall budget of the whole run in seconds (default 300): a stage that would
                       start past it is skipped with a note, a running command is stopped at it
  KK3_BENCH_FIRST_COMPILE_S  what the first torch.compile is assumed to take before one was seen
                       (default 40): a compile that would end past the budget is not started
  KK3_TRITON_WARPS     num_warps values to time the Triton peer with, the faster counts (default
                       16,32: 108 and 64 registers a thread at NB=8, one CTA per SM either way; 8
                       warps needs 210 and has a quarter of the warps in flight)
  KK3_BENCH_CHECK_T    T of the peer checks (default 64)
  KK3_BENCH_RESUME     1: go on with OUTDIR of a run cut short (a later device call): what it
                       measured is kept (kk3tune JSON files present, peers timed, checks without
                       error) and the rest measured; the summary then mixes two sessions (noted)
  KK3_BENCH_DEVICE     cuda (default); cpu is for testing the script without a GPU (Triton under
                       TRITON_INTERPRET=1, wall-clock timing instead of graphs)
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
from bench_common import Kk3tune  # noqa: E402
import summarize_attn_res_bench  # noqa: E402

DEFAULT_CASES = "common_nb1,common_nb4,common_nb8,post_nb8"
DEFAULT_TOKENS = "1,64,256,1024,8192"
COPY_TOKENS = 16384
SEED = 20261201
PEER_KINDS = {"common": (True, True), "post": (False, True), "final": (True, False)}  # (delta, out_w)


class UsageError(Exception):
    pass


class BudgetExceeded(BaseException):
    """Raised by the alarm at the end of the budget (a BaseException, so that library code catching
    Exception lets it through)."""


def parse_case(mode):
    """(kind, NB, has_delta, has_out_w) of a kk3tune attn_res mode name such as common_nb8;
    has_delta and has_out_w are None for kinds the peers do not implement (write: a block write)."""
    m = re.fullmatch(r"([a-z]+)_nb(\d+)", mode)
    if not m:
        raise ValueError(f"not an attn_res mode name: {mode!r} (expected KIND_nbK, e.g. common_nb8)")
    kind, nb = m.group(1), int(m.group(2))
    has_delta, has_out_w = PEER_KINDS.get(kind, (None, None))
    return kind, nb, has_delta, has_out_w


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
    return {
        "cases": cases,
        "tokens": tokens,
        "variants": env_list("KK3_BENCH_VARIANTS", "all"),
        "time_args": os.environ.get("KK3_BENCH_TIME_ARGS", "").split(),
        "peers": peers,
        "budget_s": budget,
        "first_compile_s": first_compile,
        "triton_warps": env_list("KK3_TRITON_WARPS", "16,32", positive_int),
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
            time_one(tag, ["--family", "attn_res", "--mode", mode, "-T", t, "--variant", variants, *cfg["time_args"]],
                     os.path.join(run.out, f"graph-{tag}.json"))


# ---------------------------------------------------------------- peers: shared
def make_device_inputs(t, nb, has_delta, has_out_w, device, seed):
    """make_inputs of attn_res_formula, drawn on the device (the CPU generator is too slow for
    T=8192)."""
    from attn_res_formula import make_inputs

    return make_inputs(t, nb, has_delta, has_out_w, device=device, seed=seed, draw_on=device)


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
    """(mode, t, nb, has_delta, has_out_w) of every planned shape that has peers."""
    shapes = []
    for mode in run.config["cases"]:
        kind, nb, has_delta, has_out_w = parse_case(mode)
        if has_delta is None:
            run.note(f"{mode}: no peer for the {kind} case (block write); kk3tune only")
            continue
        shapes.extend((mode, t, nb, has_delta, has_out_w) for t in run.config["tokens"])
    return shapes


def sync(device):
    import torch
    if device == "cuda":
        torch.cuda.synchronize()


# ---------------------------------------------------------------- stage 2: Triton
def stage_triton(run, shapes):
    from attn_res_formula import check
    from attn_res_triton import DESIGN, attn_res_triton

    cfg, device = run.config, run.config["device"]
    timer = make_timer(device)
    warps = cfg["triton_warps"]
    run.data["triton_design"] = DESIGN + f" num_warps: the faster of {','.join(map(str, warps))} per shape (each checked)."
    seen = set()
    for mode, _, nb, has_delta, has_out_w in shapes:  # the checks first: one small T per case and num_warps
        if mode in seen:
            continue
        seen.add(mode)
        if run.left() <= 0:
            run.note(f"Triton: checks from {mode} on skipped, the budget of {cfg['budget_s']:.0f} s was spent")
            break
        for w in warps:
            name = f"triton {mode} num_warps={w}"
            if name in run.data["checks"]:  # resumed
                continue
            try:
                inputs = make_device_inputs(cfg["check_t"], nb, has_delta, has_out_w, device, SEED + 7)
                run.data["checks"][name] = check(lambda *a: attn_res_triton(*a, num_warps=w), inputs, nb)
            except Exception as e:
                run.data["checks"][name] = {"error": f"{type(e).__name__}: {e}".splitlines()[0][:300]}
                print(traceback.format_exc(), flush=True)
            print(f"[{run.elapsed():6.1f} s] check {name}: {run.data['checks'][name]}", flush=True)
            run.save()
    for mode, t, nb, has_delta, has_out_w in shapes:
        tag = f"{mode}-T{t}"
        if "triton_us" in run.peer(tag):  # resumed
            continue
        if run.left() <= 0:
            run.note(f"Triton: {tag} and the shapes after it skipped, the budget of {cfg['budget_s']:.0f} s was spent")
            return
        try:
            args = make_device_inputs(t, nb, has_delta, has_out_w, device, SEED + t)
            out = args[1].new_empty(args[1].shape)
            by_warps = {}
            for w in warps:
                us, calls = timer(lambda: attn_res_triton(*args, nb, out=out, num_warps=w))
                by_warps[str(w)] = {"us": us, "calls": calls}
            best = min(by_warps, key=lambda w: by_warps[w]["us"])
            run.peer(tag).update(triton_us=by_warps[best]["us"], triton_num_warps=int(best), triton_by_warps=by_warps)
            print(f"[{run.elapsed():6.1f} s] triton {tag}: {by_warps}", flush=True)
            del args, out
        except Exception as e:
            run.peer(tag)["triton_error"] = f"{type(e).__name__}: {e}".splitlines()[0][:300]
            run.note(f"Triton {tag}: {run.peer(tag)['triton_error']}")
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
        for i, (mode, t, nb, has_delta, has_out_w) in enumerate(shapes):
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
                args = make_device_inputs(t, nb, has_delta, has_out_w, device, SEED + t)
                sync(device)
                s = time.monotonic()
                compiled(*args, nb)  # compiles this shape, runs it once
                sync(device)
                compile_s = time.monotonic() - s
                longest = max(longest or 0.0, compile_s)
                us, calls = timer(lambda: compiled(*args, nb))
                run.peer(tag).update(compiled_us=us, compile_s=compile_s, compiled_calls=calls)
                print(f"[{run.elapsed():6.1f} s] torch.compile {tag}: {us:.3f} us, compiled in {compile_s:.1f} s", flush=True)
                if t == cfg["check_t"]:
                    name = f"torch.compile {mode}"
                    try:
                        fresh = make_device_inputs(t, nb, has_delta, has_out_w, device, SEED + 7)
                        run.data["checks"][name] = check(lambda *a: compiled(*a), fresh, nb)
                    except Exception as e:
                        run.data["checks"][name] = {"error": f"{type(e).__name__}: {e}".splitlines()[0][:300]}
                del args
            except BudgetExceeded:
                run.note(f"torch.compile: stopped in {tag} at the end of the budget; {len(shapes) - i - 1} more shapes not compiled")
                return
            except Exception as e:
                if in_chain(e, BudgetExceeded):
                    run.note(f"torch.compile: stopped in {tag} at the end of the budget; {len(shapes) - i - 1} more shapes not compiled")
                    return
                run.peer(tag)["compile_error"] = f"{type(e).__name__}: {e}".splitlines()[0][:300]
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
          f"budget {config['budget_s']:.0f} s, output {out}", flush=True)

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
