"""A Triton peer for attn_res (SPEC 1.2), written for this benchmark in the design vLLM uses on
Hopper: one program per token, fp32 arithmetic, an online softmax over the sources.

Usage: python3 bench/attn_res_triton.py [T] [NB]   checks the kernel against the float64 formula
(bench/attn_res_formula.py) on the GPU, or on the CPU under TRITON_INTERPRET=1.

Design. Program t owns token t. The whole row of H = 7168 elements is one register tensor of
BLOCK_H = 8192 lanes (the next power of two; lanes >= H are masked: no memory traffic, only idle
arithmetic), so with 32 warps each thread holds 8 fp32 elements of a row (16 with 16 warps).
Q = rms_w * res_w is loaded once per program. The sources are visited once each, in the SPEC's order (blocks 0..NB-1,
then p): a source's row is loaded, its logit rsqrt(mean(V^2) + eps) * dot(V, Q) reduced across
the program, and the running state (max m, sum of weights s, weighted sum acc, all fp32) rescaled
by exp(m_old - m_new) before the source is added with weight exp(logit - m_new). The source loop
is unrolled (NB is a compile-time constant), so the loads of later sources do not wait for the
softmax of earlier ones. With delta, p = bf16(prefix + delta) is formed in fp32, rounded, written
back into prefix and used rounded. Last the output norm acc * rsqrt(sum(acc^2)/H + out_eps*s^2) *
out_w (or acc * (1 / s) without out_w) is rounded to bf16. Each source element is read once, p and out
written once: the DRAM traffic kk3tune counts (the weights, read by every program, come from L2).
The two sums of a logit are reduced together (one pass across warps). Compiled for sm_90 (Triton
3.6) at NB=8 with delta: 64 registers a thread with 32 warps, 108 with 16, no spills; one CTA per
SM either way (the row state, Q, acc, p and the loads in flight, fills the register file).
"""
import os
import sys

import torch
import triton
import triton.language as tl

DESIGN = ("one program per token over the whole row (H=7168 in one 8192-lane register tensor, masked), fp32, Q loaded once, "
          "the sources in SPEC order with an online softmax (running max, weight sum and weighted row rescaled per source), "
          "the source loop unrolled so later loads need not wait, p = bf16(prefix + delta) written back in place, "
          "then the output norm; every byte read once and written once.")


@triton.jit
def _add_pairs(a0, b0, a1, b1):
    return a0 + a1, b0 + b1


@triton.jit
def _logit(v, q, eps, H: tl.constexpr):
    """rsqrt(mean(v^2) + eps) * dot(v, q) of one source row (fp32, masked lanes are zero); the two
    sums reduced together, one pass across the program's warps."""
    sum_sq, dot = tl.reduce((v * v, v * q), 0, _add_pairs)
    return tl.rsqrt(sum_sq / H + eps) * dot


@triton.jit
def _add_source(acc, m, s, v, q, eps, H: tl.constexpr):
    """One step of the online softmax: the running (acc, m, s) with source row v added."""
    logit = _logit(v, q, eps, H)
    m_new = tl.maximum(m, logit)
    old_scale = tl.exp(m - m_new)
    w = tl.exp(logit - m_new)
    return acc * old_scale + v * w, m_new, s * old_scale + w


@triton.jit
def attn_res_kernel(blocks_ptr, prefix_ptr, delta_ptr, rms_w_ptr, res_w_ptr, out_w_ptr, out_ptr,
                    stride_block_t, stride_block_n, stride_prefix_t, stride_delta_t, stride_out_t,
                    eps, out_eps,
                    H: tl.constexpr, NB: tl.constexpr, HAS_DELTA: tl.constexpr, HAS_OUT_W: tl.constexpr,
                    BLOCK_H: tl.constexpr):
    t = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK_H)
    mask = offs < H
    q = tl.load(rms_w_ptr + offs, mask=mask, other=0.0).to(tl.float32) * tl.load(res_w_ptr + offs, mask=mask, other=0.0).to(tl.float32)

    # p first in program order (its loads start early), but it joins the softmax last, as in the SPEC.
    prefix_row = prefix_ptr + t * stride_prefix_t + offs
    p = tl.load(prefix_row, mask=mask, other=0.0)
    if HAS_DELTA:
        d = tl.load(delta_ptr + t * stride_delta_t + offs, mask=mask, other=0.0)
        p = (p.to(tl.float32) + d.to(tl.float32)).to(tl.bfloat16)
        tl.store(prefix_row, p, mask=mask)
    vp = p.to(tl.float32)

    if NB > 0:
        block_row = blocks_ptr + t * stride_block_t + offs
        acc = tl.load(block_row, mask=mask, other=0.0).to(tl.float32)
        m = _logit(acc, q, eps, H)
        s = m * 0.0 + 1.0  # the weight of the first source, as an fp32 tensor like the later s
        for n in tl.static_range(1, NB):
            v = tl.load(block_row + n * stride_block_n, mask=mask, other=0.0).to(tl.float32)
            acc, m, s = _add_source(acc, m, s, v, q, eps, H)
        acc, m, s = _add_source(acc, m, s, vp, q, eps, H)
    else:
        acc = vp  # one source: its softmax weight is 1
        s = tl.sum(vp * 0.0, axis=0) + 1.0

    if HAS_OUT_W:
        out_w = tl.load(out_w_ptr + offs, mask=mask, other=0.0).to(tl.float32)
        y = acc * tl.rsqrt(tl.sum(acc * acc, axis=0) / H + out_eps * s * s) * out_w
    else:
        y = acc * (1.0 / s)  # one division (a per-element IEEE division calls a slow path that spills)
    tl.store(out_ptr + t * stride_out_t + offs, y.to(tl.bfloat16), mask=mask)


def attn_res_triton(blocks, prefix, delta, rms_w, res_w, out_w, nb, out=None, eps=1e-5, out_eps=1e-5, num_warps=32):
    """attn_res of SPEC 1.2 by the Triton kernel: blocks [T, >=NB, H] (last dim contiguous), prefix
    [T, H] (updated in place when delta is given), delta [T, H] or None, rms_w, res_w [H], out_w [H]
    or None; all bf16. Returns out [T, H] bf16 (written into `out` when given)."""
    t, h = prefix.shape
    assert prefix.stride(-1) == 1 and blocks.stride(-1) == 1 and blocks.shape[0] == t and blocks.shape[1] >= nb
    assert delta is None or (delta.shape == prefix.shape and delta.stride(-1) == 1)
    if out is None:
        out = torch.empty_like(prefix)
    attn_res_kernel[(t,)](
        blocks, prefix, delta if delta is not None else prefix, rms_w, res_w, out_w if out_w is not None else rms_w, out,
        blocks.stride(0), blocks.stride(1), prefix.stride(0), delta.stride(0) if delta is not None else 0, out.stride(0),
        eps, out_eps,
        H=h, NB=nb, HAS_DELTA=delta is not None, HAS_OUT_W=out_w is not None, BLOCK_H=triton.next_power_of_2(h),
        num_warps=num_warps)
    return out


def main(argv):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from attn_res_formula import check, make_inputs  # noqa: E402

    t = int(argv[1]) if len(argv) > 1 else 3
    nb = int(argv[2]) if len(argv) > 2 else 8
    device = "cpu" if os.environ.get("TRITON_INTERPRET") == "1" else "cuda"
    for has_delta, has_out_w in ((True, True), (False, True), (True, False)):
        inputs = make_inputs(t, nb, has_delta, has_out_w, device=device, seed=20261201)
        figures = check(lambda *a: attn_res_triton(*a), inputs, nb)
        print(f"T={t} NB={nb} delta={int(has_delta)} out_w={int(has_out_w)}: {figures}")


if __name__ == "__main__":
    main(sys.argv)
