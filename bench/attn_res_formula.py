"""attn_res (SPEC 1.2) in torch: the formula as the torch.compile peer compiles it, a float64
reference, the benchmark's inputs and the check of a peer against the reference.

Cases (kk3tune's modes): common (delta, out_w), post (no delta, out_w), final (delta, no out_w) and
write (delta when NB > 0, out_w, and the block write: p stored into blocks[t, write_idx], write_idx
= NB, so that its blocks tensor holds NB + 1 blocks a token). A peer is called as
peer(blocks, prefix, delta, rms_w, res_w, out_w, nb, write_idx), write_idx -1 for no block write;
it updates prefix (and the written block) in place and returns out.
"""
import torch

HIDDEN = 7168
EPS = 1e-5
OUT_EPS = 1e-5
BF16_EQUAL_MIN = 0.999  # SPEC 1.3: at least 99.9% of the output elements equal bf16 of the float64 result
POISON = -1  # int16 0xffff: a bf16 NaN that no kernel computes, written over the block a write mode must store


def attn_res_torch(blocks, prefix, delta, rms_w, res_w, out_w, nb: int, write_idx: int = -1, eps: float = EPS, out_eps: float = OUT_EPS):
    """The SPEC 1.2 formula, written plainly in fp32 (what torch.compile is given)."""
    if delta is not None:
        p = (prefix.float() + delta.float()).to(torch.bfloat16)
        prefix.copy_(p)
    else:
        p = prefix
    if write_idx >= 0:
        blocks[:, write_idx].copy_(p)
    v = torch.cat([blocks[:, :nb].float(), p.float().unsqueeze(1)], dim=1)  # [T, N, H]
    q = rms_w.float() * res_w.float()
    logits = torch.rsqrt(v.pow(2).mean(-1) + eps) * (v * q).sum(-1)  # [T, N]
    w = torch.softmax(logits, dim=-1)
    acc = (w.unsqueeze(-1) * v).sum(1)  # [T, H]
    s = w.sum(-1, keepdim=True)
    if out_w is None:
        return (acc / s).to(torch.bfloat16)
    out = acc * torch.rsqrt(acc.pow(2).mean(-1, keepdim=True) + out_eps * s * s) * out_w.float()
    return out.to(torch.bfloat16)


def to_bf16(x, rounding="rne"):
    """x (any float dtype) as bf16: round to nearest even ("rne", what the GPU and torch do), or
    truncated ("truncate", what Triton's interpreter does on the CPU); via fp32 either way."""
    x = x.float()
    if rounding == "rne":
        return x.to(torch.bfloat16)
    if rounding != "truncate":
        raise ValueError(f"rounding: rne or truncate, got {rounding!r}")
    return (x.contiguous().view(torch.int32) >> 16).to(torch.int16).view(torch.bfloat16)


def reference_f64(blocks, prefix, delta, rms_w, res_w, out_w, nb, eps=EPS, out_eps=OUT_EPS, rounding="rne"):
    """(p, out, mag) by SPEC 1.2 in float64, leaving the inputs alone: p = bf16(fp32 prefix + fp32
    delta) (bf16, rounded as `rounding` says), out unrounded (float64), and mag the magnitude of the
    terms that sum to out (SPEC 1.3's m_h, float64): sum_n w_n |V_n,h| / s, times the norm's scale
    rsqrt(sum(acc^2)/H + out_eps s^2) s |out_w_h| where the output is normalised."""
    p = to_bf16(prefix.float() + delta.float(), rounding) if delta is not None else prefix
    v = torch.cat([blocks[:, :nb].double(), p.double().unsqueeze(1)], dim=1)
    q = (rms_w.float() * res_w.float()).double()  # Q is kept in fp32
    logits = torch.rsqrt(v.pow(2).mean(-1) + eps) * (v * q).sum(-1)
    w = torch.softmax(logits, dim=-1)
    acc = (w.unsqueeze(-1) * v).sum(1)
    s = w.sum(-1, keepdim=True)
    mag = (w.unsqueeze(-1) * v.abs()).sum(1) / s
    if out_w is None:
        return p, acc / s, mag
    scale = torch.rsqrt(acc.pow(2).mean(-1, keepdim=True) + out_eps * s * s)
    return p, acc * scale * out_w.double(), mag * scale * s * out_w.double().abs()


def make_inputs(t, nb, has_delta, has_out_w, device="cuda", seed=0, hidden=HIDDEN, draw_on="cpu", block_write=False):
    """Random bf16 inputs (blocks, prefix, delta, rms_w, res_w, out_w) of one shape, drawn from
    `seed`; res_w is scaled so that the logits spread over a few units (a softmax that is neither
    flat nor one-hot). delta and out_w are None where the case has none. blocks holds max(nb, 1)
    block slots so that it is never empty, nb + 1 with a block write (block nb is the one p
    completes, as in kk3tune's write modes). `draw_on` is the generator's device: the CPU gives the
    same numbers everywhere; the GPU is fast enough for T=8192 (the same distributions, another
    stream of numbers)."""
    g = torch.Generator(device=draw_on).manual_seed(seed)

    def randn(*shape, scale=1.0, shift=0.0):
        x = torch.randn(*shape, generator=g, device=draw_on, dtype=torch.float32)
        return (shift + scale * x).to(torch.bfloat16).to(device)

    blocks = randn(t, nb + 1 if block_write else max(nb, 1), hidden)
    prefix = randn(t, hidden)
    delta = randn(t, hidden, scale=0.5) if has_delta else None
    rms_w = randn(hidden, scale=0.1, shift=1.0)
    res_w = randn(hidden, scale=3 / hidden ** 0.5)
    out_w = randn(hidden, scale=0.1, shift=1.0) if has_out_w else None
    return blocks, prefix, delta, rms_w, res_w, out_w


def bf16_ordered(x):
    """bf16 bit patterns as integers ordered like the values (for distances in ulps)."""
    bits = x.contiguous().view(torch.int16).to(torch.int32)
    return torch.where(bits < 0, -(bits & 0x7FFF), bits)


def ulp_bf16(x):
    """The bf16 ulp at each float64 value: 2^(floor(log2|x|) - 7), 2^-133 (the subnormal step) below
    the normal range and at zero."""
    _, e = torch.frexp(x)  # |x| = m 2^e, m in [0.5, 1)
    ulp = torch.pow(2.0, (e - 1).clamp(min=-126).double() - 7)
    return torch.where(x == 0, torch.full_like(x, 2.0 ** -133), ulp)


def same_bits(a, b):
    return a.contiguous().view(torch.int16) == b.contiguous().view(torch.int16)


def check(peer, inputs, nb, write_idx=-1, rounding="rne"):
    """Runs `peer(blocks, prefix, delta, rms_w, res_w, out_w, nb, write_idx)` once on copies of the
    inputs (the block to be written poisoned first) and compares it with reference_f64. Figures: the
    output's largest absolute error against the unrounded float64 value; the shares of output
    elements equal to the reference rounded to bf16, within 1 bf16 ulp of it, and within SPEC 1.3's
    bound |out - x| <= ulp_bf16(x) + 2^-12 m; the share of prefix elements equal bit for bit to p
    (with delta) or left as they were (without); with a block write the share of the written block
    equal to p bit for bit; whether every other input was left alone; whether out is finite. (A
    largest distance in ulps would mislead: an output near zero can change sign.)
    `ok` is SPEC 1.3's contract: finite, every element within the bound, at least 99.9% bf16-equal,
    the prefix and the block write bitwise, nothing else touched; `failed` says what broke it.
    `rounding` is how the peer rounds to bf16 (truncate: Triton's interpreter on the CPU), which the
    expected p and the rounded reference follow; with truncate the 99.9% rule counts the elements
    within 1 ulp (a result that sits on a bf16 value truncates to the one below about half the time)."""
    blocks, prefix, delta, rms_w, res_w, out_w = inputs
    p_ref, out_ref, mag = reference_f64(*inputs, nb, rounding=rounding)
    mine_prefix = prefix.clone()
    mine_blocks = blocks.clone()
    if write_idx >= 0:
        mine_blocks[:, write_idx].view(torch.int16).fill_(POISON)
    others = [x.clone() for x in (delta, rms_w, res_w, out_w) if x is not None]
    out = peer(mine_blocks, mine_prefix, delta, rms_w, res_w, out_w, nb, write_idx)
    ref_bf16 = to_bf16(out_ref, rounding)
    ulps = (bf16_ordered(out) - bf16_ordered(ref_bf16)).abs()
    err = (out.double() - out_ref).abs()
    bound = ulp_bf16(out_ref) + 2.0 ** -12 * mag
    kept = [i for i in range(blocks.shape[1]) if i != write_idx]
    untouched = bool(same_bits(mine_blocks[:, kept], blocks[:, kept]).all().item()) and all(
        bool(same_bits(x, y).all().item()) for x, y in zip(others, [x for x in (delta, rms_w, res_w, out_w) if x is not None]))
    figures = {
        "tokens": prefix.shape[0],
        "rounding": rounding,
        "out_max_abs_err": err.max().item(),
        "out_ref_max_abs": out_ref.abs().max().item(),
        "out_bf16_equal_fraction": (ulps == 0).double().mean().item(),
        "out_within_1ulp_fraction": (ulps <= 1).double().mean().item(),
        "out_within_bound_fraction": (err <= bound).double().mean().item(),
        "out_finite": bool(torch.isfinite(out.float()).all().item()),
        "prefix_equal_fraction": same_bits(mine_prefix, p_ref).double().mean().item(),
        "inputs_untouched": untouched,
    }
    if write_idx >= 0:
        figures["block_write_equal_fraction"] = same_bits(mine_blocks[:, write_idx], p_ref).double().mean().item()
    failed = []
    if not figures["out_finite"]:
        failed.append("out not finite")
    if figures["out_within_bound_fraction"] < 1:
        failed.append(f"{100 * (1 - figures['out_within_bound_fraction']):.4f}% of out beyond the SPEC 1.3 bound")
    share, what = ((figures["out_bf16_equal_fraction"], "bf16-equal") if rounding == "rne" else
                   (figures["out_within_1ulp_fraction"], "within 1 ulp"))  # truncation moves a value on a bf16 value by 1 ulp
    if share < BF16_EQUAL_MIN:
        failed.append(f"{100 * share:.2f}% of out {what} (< {100 * BF16_EQUAL_MIN:.1f}%)")
    if figures["prefix_equal_fraction"] < 1:
        failed.append("prefix not bitwise")
    if figures.get("block_write_equal_fraction", 1) < 1:
        failed.append("block write not bitwise")
    if not untouched:
        failed.append("an input that is no output changed")
    figures["ok"] = not failed
    if failed:
        figures["failed"] = "; ".join(failed)
    return figures
