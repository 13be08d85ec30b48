#!/usr/bin/env python3
"""Static census of attn_res variants from their sm_90a SASS, with no GPU: registers and spills
(ptxas -v), and the warp-instructions a token costs along the path a typical warp takes.

Usage: python3 bench/sass_census.py [--arch sm_90a] [--json FILE] MODE KNOBS [MODE KNOBS ...]
  MODE   a mode of configs/attn_res.json (common_nb4, post_nb8, ...)
  KNOBS  the variant's knobs as NAME=VALUE,... (B=1,GPW=4,NC=1,STAGE=3,TRIGGER=0); a knob left out
         takes the reference variant's value
e.g. python3 bench/sass_census.py common_nb4 B=1,GPW=2,NC=0,STAGE=2 common_nb4 B=1,GPW=4,NC=1,STAGE=3

How a path is counted. A static count of the code up to EXIT counts both sides of every branch:
the compiler duplicates the mix's unpack and fma under `rescale != 1` and its negation, and the
softmax of STAGE 3 runs in warp 0 only. So the census walks the SASS as a warp does, taking the
fall-through of every conditional branch (the common case here: a slice this warp owns, no
divergence, the fast path of a division) but a branch over a block of the mix's rescale
multiplies, which it takes (the running maximum not moved), and every unconditional jump, up to
the first unconditional EXIT. That is warp 0's path. The other warps' path takes the
one conditional branch that jumps over the softmax (its prefix-maximum scan, the SHFL.UP) and stays
between the barriers around it, where the code has one; where it has none (STAGE 2: every warp repeats the softmax) it is warp 0's path.
A token costs warp0 + (warps - 1) * other warp-instructions (one CTA a token: B = 1, TPC = 1).
A rescale costs the mix's FMULs more per moved maximum (about H_N - 1 moves on random data); the
census leaves them out, ncu's smsp__inst_executed (bench/attn_res_cold.py) counts them.

Needs nvcc (CUDA toolkit) and cuobjdump ($CUOBJDUMP, else on PATH, else the nvidia-cuda-cuobjdump
wheel's). Exit code 0, 2 on bad usage, 3 when a tool is missing or a compile fails.
"""
import collections
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
KERNELS = os.path.join(ROOT, "kernels")
CONFIG = os.path.join(ROOT, "configs", "attn_res.json")
INSN = re.compile(r"^\s+/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")
PRED = re.compile(r"^@!?U?P[0-9T]+\s+")


def tool(name, env):
    explicit = os.environ.get(env)
    if explicit:
        return explicit
    found = shutil.which(name)
    if found:
        return found
    wheel = glob.glob(os.path.join(sys.prefix, "lib", "python3*", "site-packages", "nvidia", "cu*", "bin", name))
    return wheel[0] if wheel else None


def compile_variant(mode_defines, knobs, entry, arch, work):
    args = entry
    for k, v in knobs.items():
        args = args.replace("{" + k + "}", str(v))
    src = os.path.join(work, "i.cu")
    with open(src, "w") as f:
        f.write(f'#include "attn_res.cuh"\ntemplate __global__ void {args}(const kk3_attn_res_params);\n')
    defines = [f"-DKK3_ATTN_RES_{k}={v}" for k, v in mode_defines.items()]
    cubin = os.path.join(work, "k.cubin")
    p = subprocess.run(["nvcc", f"-arch={arch}", "-cubin", "-std=c++17", *defines, "-I" + KERNELS, "-o", cubin, src,
                        "-Xptxas", "-v"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"nvcc failed for {args}:\n{p.stdout}")
    regs = re.search(r"Used (\d+) registers", p.stdout)
    spill = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", p.stdout)
    return args, cubin, int(regs.group(1)), (int(spill.group(1)), int(spill.group(2))) if spill else (0, 0)


def read_sass(cuobjdump, cubin):
    text = subprocess.run([cuobjdump, "-sass", cubin], stdout=subprocess.PIPE, text=True, check=True).stdout
    code = []
    for line in text.splitlines():
        m = INSN.match(line)
        if m:
            code.append((int(m.group(1), 16), m.group(2)))
    return code


def opcode(text):
    return PRED.sub("", text).split()[0]


def rescale_block(code, start, end):
    """Whether code[start:end] is the mix's rescale (acc *= rescale when the maximum moved): mostly
    FMULs, no memory access or shuffle."""
    ops = [opcode(t).split(".")[0] for _, t in code[start:end]]
    if not ops or any(o in ("LDG", "STG", "LDS", "STS", "SHFL", "BAR", "BRA") for o in ops):
        return False
    return ops.count("FMUL") >= 0.6 * len(ops)


def walk(code, take=None):
    """The addresses a warp executes: fall-through on conditional branches (but `take`, and a
    branch over a rescale block, which is taken: no maximum moved), jumps on unconditional ones, up
    to the first unconditional EXIT."""
    index = {a: i for i, (a, _) in enumerate(code)}
    path, i, seen = [], 0, collections.Counter()
    while i < len(code):
        addr, text = code[i]
        seen[addr] += 1
        if seen[addr] > 64:
            raise RuntimeError(f"the walk loops at {addr:#x}: {text}")
        path.append(i)
        op = opcode(text)
        conditional = PRED.match(text) is not None
        if op == "EXIT" and not conditional:
            break
        if op.startswith("BRA") and not op.startswith("BRA.DIV"):
            target = re.search(r"0x([0-9a-f]+)", PRED.sub("", text))
            if target:
                j = index[int(target.group(1), 16)]
                if not conditional or addr == take or (j > i and rescale_block(code, i + 1, j)):
                    i = j
                    continue
        i += 1
    return path


def census(code):
    warp0 = walk(code)
    ops = [opcode(code[i][1]) for i in warp0]
    scans = [k for k, i in enumerate(warp0) if ops[k].startswith("SHFL.UP")]
    other = warp0
    if scans:  # a branch between the barriers around the softmax that jumps past its scan
        first, last = code[warp0[scans[0]]][0], code[warp0[scans[-1]]][0]
        bars = [code[i][0] for i in warp0 if opcode(code[i][1]).startswith("BAR")]
        opened = max((b for b in bars if b < first), default=-1)
        closed = min((b for b in bars if b > last), default=float("inf"))
        for i in warp0:
            addr, text = code[i]
            if addr >= first:
                break
            m = re.search(r"0x([0-9a-f]+)", PRED.sub("", text))
            if (addr > opened and PRED.match(text) and opcode(text).startswith("BRA") and m
                    and last < int(m.group(1), 16) <= closed):
                other = walk(code, take=addr)
                break
    return warp0, other


def histogram(code, path):
    c = collections.Counter(opcode(code[i][1]).split(".")[0] for i in path)
    return dict(c.most_common())


def parse_knobs(text, reference):
    knobs = dict(reference)
    for item in text.split(","):
        name, _, value = item.partition("=")
        if name not in knobs or not value.lstrip("-").isdigit():
            raise ValueError(f"knob '{item}': expected NAME=INTEGER with NAME one of {', '.join(knobs)}")
        knobs[name] = int(value)
    return knobs


def main(argv):
    args, arch, json_out = [], "sm_90a", None
    it = iter(argv[1:])
    for a in it:
        if a == "--arch":
            arch = next(it, None)
        elif a == "--json":
            json_out = next(it, None)
        elif a in ("-h", "--help"):
            print(__doc__)
            return 0
        else:
            args.append(a)
    if not args or len(args) % 2 or arch is None:
        print(__doc__, file=sys.stderr)
        return 2
    config = json.load(open(CONFIG))
    cuobjdump = tool("cuobjdump", "CUOBJDUMP")
    if not shutil.which("nvcc") or not cuobjdump:
        print("sass_census.py: needs nvcc and cuobjdump ($CUOBJDUMP or pip install nvidia-cuda-cuobjdump)", file=sys.stderr)
        return 3
    rows = []
    for mode, knob_text in zip(args[::2], args[1::2]):
        if mode not in config["modes"]:
            print(f"sass_census.py: no mode '{mode}' in {CONFIG}", file=sys.stderr)
            return 2
        try:
            knobs = parse_knobs(knob_text, config["reference"])
        except ValueError as e:
            print(f"sass_census.py: {e}", file=sys.stderr)
            return 2
        defines = config["modes"][mode]
        slices = defines["H"] // 256
        mine = -(-slices // knobs["B"])
        warps = knobs["B"] * -(-mine // knobs["GPW"])
        with tempfile.TemporaryDirectory() as work:
            try:
                name, cubin, regs, spills = compile_variant(defines, knobs, config["entry"], arch, work)
            except RuntimeError as e:
                print(f"sass_census.py: {e}", file=sys.stderr)
                return 3
            code = read_sass(cuobjdump, cubin)
        warp0, other = census(code)
        per_token = (len(warp0) + (warps - 1) * len(other)) / knobs["TPC"]
        rows.append({"mode": mode, "knobs": knobs, "entry": name, "arch": arch, "registers": regs,
                     "spill_stores": spills[0], "spill_loads": spills[1], "warps": warps,
                     "static_to_exit": next((k + 1 for k, (_, t) in enumerate(code) if t == "EXIT"), len(code)),
                     "warp0_path": len(warp0), "other_path": len(other), "per_token": per_token,
                     "warp0_ops": histogram(code, warp0)})
    print(f"| mode | variant | registers | spills (B) | warps | warp 0 | other warps | per token |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        k = r["knobs"]
        v = f"b{k['B']}-gpw{k['GPW']}-nc{k['NC']}-stage{k['STAGE']}-trigger{k['TRIGGER']}"
        print(f"| {r['mode']} | {v} | {r['registers']} | {r['spill_stores']} | {r['warps']} | {r['warp0_path']} | "
              f"{r['other_path']} | {r['per_token']:.0f} |")
    for r in rows:
        top = " ".join(f"{k}:{v}" for k, v in list(r["warp0_ops"].items())[:14])
        print(f"{r['mode']} {r['entry']}: warp 0 {top}")
    if json_out:
        with open(json_out, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
