"""A Triton peer for attn_res (SPEC 1.2), written for this benchmark in the design vLLM uses for this
kernel on Hopper: one program per token, fp32 arithmetic, an online softmax over the sources, no PDL,
the sources loaded BLOCK_L at a time, and num_warps / num_stages as launch parameters.

Usage: python3 bench/attn_res_triton.py [T] [NB]   checks every tile of TILES and vLLM's choice in
every case (common, post, final, write) against the float64 formula (bench/attn_res_formula.py) on
the GPU, or on the CPU under TRITON_INTERPRET=1 (which rounds to bf16 by truncation: the check is
told so).

Design. Program t owns token t; a row of H elements is a register tensor of BLOCK_H lanes (the next
power of two of H: 8192 for H = 7168; lanes >= H are masked, no memory traffic). Q = rms_w * res_w
is loaded once, in fp32. The running state of the online softmax is fp32: the largest logit m, the
sum of weights s and the weighted row acc. The loop takes the blocks in order, BLOCK_L at a time, as
one [BLOCK_L, BLOCK_H] load (rows past NB masked): the chunk's logits rsqrt(mean(V^2) + eps) *
dot(V, Q), the chunk's largest logit, then one rescale of the
running state by exp(m_old - m_new) per chunk before the chunk's rows are added with weights
exp(logit - m_new). After the blocks comes p, the last source: with delta p = bf16(prefix + delta),
formed in fp32 and rounded, written back into prefix and used rounded; with a block write (write
modes) p is also stored into blocks[t, write_idx]. Last the output: acc * rsqrt(sum(acc^2)/H +
out_eps*s^2) * out_w with out_w, acc / s (one reciprocal) without it, rounded to bf16. Each source
element is read once, p and out written once (the weights come from L2).

Tiles. vllm_tile() is vLLM's own choice: BLOCK_L = 1 and 4 warps when T >= 256 or NB <= 1, else
BLOCK_L = 4 and 8 warps; 2 stages. TILES is the benchmark's search grid: BLOCK_L {1, 2, 4} x
num_warps {4, 8, 16}, 2 stages. With 4 warps a thread holds 64 elements of each row tensor, so the
[4, 8192] chunk alone is 256 registers a thread: some tiles spill, which is what such a kernel costs
with that tile.
"""
import os
import sys

import torch
import triton
import triton.language as tl

EPS = 1e-5
OUT_EPS = 1e-5
TILES = [(block_l, warps, 2) for block_l in (1, 2, 4) for warps in (4, 8, 16)]  # (BLOCK_L, num_warps, num_stages)

DESIGN = ("vLLM's Hopper design, written anew: one program per token, fp32, no PDL; Q = rms_w * res_w loaded once; "
          "the blocks in order, BLOCK_L at a time as one [BLOCK_L, next_pow2(H)] masked load, an online softmax per chunk "
          "(the chunk's largest logit, one rescale of the running max, weight sum and weighted row per chunk); then p = "
          "bf16(prefix + delta), written back into prefix (and into blocks[t, NB] in write modes), as the last source; "
          "then acc * rsqrt(sum(acc^2)/H + out_eps s^2) * out_w, or acc / s without out_w. "
          "Tiles (BLOCK_L x num_warps x num_stages): vLLM's own (1x4x2 at T >= 256 or NB <= 1, else 4x8x2) and the best "
          "of a search grid, each tile checked against the float64 formula first.")


def vllm_tile(t, nb):
    """vLLM's own launch choice for T tokens and NB blocks: (BLOCK_L, num_warps, num_stages)."""
    return (1, 4, 2) if t >= 256 or nb <= 1 else (4, 8, 2)


def tile_name(tile):
    """'BLOCK_LxWARPSxSTAGES', e.g. '4x8x2'."""
    return "x".join(map(str, tile))


@triton.jit
def attn_res_kernel(blocks_ptr, prefix_ptr, delta_ptr, rms_w_ptr, res_w_ptr, out_w_ptr, out_ptr,
                    stride_block_t, stride_block_n, stride_prefix_t, stride_delta_t, stride_out_t,
                    write_idx, eps, out_eps,
                    H: tl.constexpr, NB: tl.constexpr, HAS_DELTA: tl.constexpr, HAS_OUT_W: tl.constexpr,
                    BLOCK_WRITE: tl.constexpr, BLOCK_H: tl.constexpr, BLOCK_L: tl.constexpr):
    t = tl.program_id(0).to(tl.int64)
    offs_h = tl.arange(0, BLOCK_H)
    mask_h = offs_h < H
    q = tl.load(rms_w_ptr + offs_h, mask=mask_h, other=0.0).to(tl.float32) * \
        tl.load(res_w_ptr + offs_h, mask=mask_h, other=0.0).to(tl.float32)
    block_rows = blocks_ptr + t * stride_block_t

    acc = tl.zeros([BLOCK_H], dtype=tl.float32)
    m = tl.max(acc, axis=0) - float("inf")  # an fp32 scalar: no source seen yet
    s = tl.sum(acc, axis=0)
    for start in range(0, NB, BLOCK_L):  # the blocks, BLOCK_L sources a step
        offs_l = start + tl.arange(0, BLOCK_L)
        mask_l = offs_l < NB
        v = tl.load(block_rows + offs_l[:, None] * stride_block_n + offs_h[None, :],
                    mask=mask_l[:, None] & mask_h[None, :], other=0.0).to(tl.float32)
        logit = tl.rsqrt(tl.sum(v * v, axis=1) / H + eps) * tl.sum(v * q[None, :], axis=1)
        logit = tl.where(mask_l, logit, float("-inf"))
        m_new = tl.maximum(m, tl.max(logit, axis=0))
        rescale = tl.exp(m - m_new)
        w = tl.exp(logit - m_new)  # 0 for rows past NB
        acc = acc * rescale + tl.sum(w[:, None] * v, axis=0)
        s = s * rescale + tl.sum(w, axis=0)
        m = m_new

    prefix_row = prefix_ptr + t * stride_prefix_t + offs_h  # p, the last source
    p = tl.load(prefix_row, mask=mask_h, other=0.0)
    if HAS_DELTA:
        d = tl.load(delta_ptr + t * stride_delta_t + offs_h, mask=mask_h, other=0.0)
        p = (p.to(tl.float32) + d.to(tl.float32)).to(tl.bfloat16)
        tl.store(prefix_row, p, mask=mask_h)
    if BLOCK_WRITE:
        tl.store(block_rows + write_idx * stride_block_n + offs_h, p, mask=mask_h)
    vp = p.to(tl.float32)
    logit = tl.rsqrt(tl.sum(vp * vp, axis=0) / H + eps) * tl.sum(vp * q, axis=0)
    m_new = tl.maximum(m, logit)
    rescale = tl.exp(m - m_new)
    w = tl.exp(logit - m_new)
    acc = acc * rescale + vp * w
    s = s * rescale + w

    if HAS_OUT_W:
        out_w = tl.load(out_w_ptr + offs_h, mask=mask_h, other=0.0).to(tl.float32)
        y = acc * tl.rsqrt(tl.sum(acc * acc, axis=0) / H + out_eps * s * s) * out_w
    else:
        y = acc * (1.0 / s)
    tl.store(out_ptr + t * stride_out_t + offs_h, y.to(tl.bfloat16), mask=mask_h)


def _launch(blocks, prefix, delta, rms_w, res_w, out_w, out, nb, write_idx, eps, out_eps, strides, hidden, tile, grid, warmup):
    """Launches (or with warmup only compiles) the kernel: the one place its arguments are put
    together, so that a warmup with stand-in tensors (precompile) specializes exactly as the launch."""
    block_l, num_warps, num_stages = tile
    kernel = attn_res_kernel.warmup if warmup else attn_res_kernel[grid]
    extra = {"grid": grid} if warmup else {}
    return kernel(
        blocks, prefix, delta if delta is not None else prefix, rms_w, res_w, out_w if out_w is not None else rms_w, out,
        *strides, max(write_idx, 0), eps, out_eps,
        H=hidden, NB=nb, HAS_DELTA=delta is not None, HAS_OUT_W=out_w is not None, BLOCK_WRITE=write_idx >= 0,
        BLOCK_H=triton.next_power_of_2(hidden), BLOCK_L=block_l, num_warps=num_warps, num_stages=num_stages, **extra)


def launch_strides(blocks, prefix, delta, out):
    """The kernel's stride arguments: blocks' token and block strides, prefix's, delta's (0 without
    delta) and out's token strides, in elements."""
    return (blocks.stride(0), blocks.stride(1), prefix.stride(0), delta.stride(0) if delta is not None else 0, out.stride(0))


def attn_res_triton(blocks, prefix, delta, rms_w, res_w, out_w, nb, write_idx=-1, out=None, eps=EPS, out_eps=OUT_EPS,
                    block_l=1, num_warps=4, num_stages=2):
    """attn_res of SPEC 1.2 by the Triton kernel: blocks [T, >=NB, H] (last dim contiguous), prefix
    [T, H] (updated in place when delta is given), delta [T, H] or None, rms_w, res_w [H], out_w [H]
    or None; all bf16. write_idx >= 0: p is also stored into blocks[:, write_idx]. Returns out [T, H]
    bf16 (written into `out` when given)."""
    t, h = prefix.shape
    assert prefix.stride(-1) == 1 and blocks.stride(-1) == 1 and blocks.shape[0] == t and blocks.shape[1] >= nb
    assert delta is None or (delta.shape == prefix.shape and delta.stride(-1) == 1)
    assert write_idx < blocks.shape[1] and (write_idx < 0 or write_idx >= nb)
    if out is None:
        out = torch.empty_like(prefix)
    _launch(blocks, prefix, delta, rms_w, res_w, out_w, out, nb, write_idx, eps, out_eps, launch_strides(blocks, prefix, delta, out),
            h, (block_l, num_warps, num_stages), (t,), warmup=False)
    return out


def precompile(nb, has_delta, has_out_w, write_idx, tile, hidden=7168, eps=EPS, out_eps=OUT_EPS):
    """Compiles the kernel for one case and tile without launching it (Triton's warmup, with
    stand-in tensors: 16-byte aligned like torch's, contiguous as make_inputs draws them), which
    fills Triton's on-disk cache: a later launch in another process loads it instead of compiling.
    Needs the GPU's driver (Triton asks it for the target), not the GPU's time."""
    from triton.runtime.jit import MockTensor

    rows = nb + 1 if write_idx >= 0 else max(nb, 1)
    bf16 = MockTensor(torch.bfloat16)
    strides = (rows * hidden, hidden, hidden, hidden if has_delta else 0, hidden)  # launch_strides of contiguous tensors
    _launch(bf16, bf16, bf16 if has_delta else None, bf16, bf16, bf16 if has_out_w else None, bf16, nb, write_idx, eps, out_eps,
            strides, hidden, tile, (1,), warmup=True)


def main(argv):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from attn_res_formula import check, make_inputs  # noqa: E402

    t = int(argv[1]) if len(argv) > 1 else 3
    nb = int(argv[2]) if len(argv) > 2 else 8
    interpreted = os.environ.get("TRITON_INTERPRET") == "1"
    device, rounding = ("cpu", "truncate") if interpreted else ("cuda", "rne")
    tiles = list(dict.fromkeys(TILES + [vllm_tile(t, nb)]))
    for kind, has_delta, has_out_w, write_idx in (("common", True, True, -1), ("post", False, True, -1),
                                                  ("final", True, False, -1), ("write", nb > 0, True, nb)):
        inputs = make_inputs(t, nb, has_delta, has_out_w, device=device, seed=20261201, block_write=write_idx >= 0)
        for tile in tiles:
            figures = check(lambda *a: attn_res_triton(*a, block_l=tile[0], num_warps=tile[1], num_stages=tile[2]),
                            inputs, nb, write_idx, rounding)
            print(f"{kind} T={t} NB={nb} tile {tile_name(tile)}: {'ok' if figures['ok'] else 'FAILED: ' + figures['failed']} {figures}")


if __name__ == "__main__":
    main(sys.argv)
