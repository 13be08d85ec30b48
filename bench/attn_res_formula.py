"""attn_res (SPEC 1.2) in torch: the formula as the torch.compile peer compiles it, a float64
reference, the benchmark's inputs and the check of a peer against the reference.

Cases: common (delta, out_w), post (no delta, out_w), final (delta, no out_w); the block write of
the write case is not modelled here.
"""
import torch

HIDDEN = 7168
EPS = 1e-5
OUT_EPS = 1e-5


def attn_res_torch(blocks, prefix, delta, rms_w, res_w, out_w, nb: int, eps: float = EPS, out_eps: float = OUT_EPS):
    """The SPEC 1.2 formula, written plainly in fp32 (what torch.compile is given)."""
    if delta is not None:
        p = (prefix.float() + delta.float()).to(torch.bfloat16)
        prefix.copy_(p)
    else:
        p = prefix
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


def reference_f64(blocks, prefix, delta, rms_w, res_w, out_w, nb, eps=EPS, out_eps=OUT_EPS):
    """(p, out) by SPEC 1.2 in float64, leaving the inputs alone: p = bf16(fp32 prefix + fp32 delta)
    (bf16), out unrounded (float64)."""
    p = (prefix.float() + delta.float()).to(torch.bfloat16) if delta is not None else prefix
    v = torch.cat([blocks[:, :nb].double(), p.double().unsqueeze(1)], dim=1)
    q = (rms_w.float() * res_w.float()).double()  # Q is kept in fp32
    logits = torch.rsqrt(v.pow(2).mean(-1) + eps) * (v * q).sum(-1)
    w = torch.softmax(logits, dim=-1)
    acc = (w.unsqueeze(-1) * v).sum(1)
    s = w.sum(-1, keepdim=True)
    if out_w is None:
        return p, acc / s
    return p, acc * torch.rsqrt(acc.pow(2).mean(-1, keepdim=True) + out_eps * s * s) * out_w.double()


def make_inputs(t, nb, has_delta, has_out_w, device="cuda", seed=0, hidden=HIDDEN, draw_on="cpu"):
    """Random bf16 inputs (blocks, prefix, delta, rms_w, res_w, out_w) of one shape, drawn from
    `seed`; res_w is scaled so that the logits spread over a few units (a softmax that is neither
    flat nor one-hot). delta and out_w are None where the case has none. blocks holds max(nb, 1)
    block slots so that it is never empty. `draw_on` is the generator's device: the CPU gives the
    same numbers everywhere; the GPU is fast enough for T=8192 (the same distributions, another
    stream of numbers)."""
    g = torch.Generator(device=draw_on).manual_seed(seed)

    def randn(*shape, scale=1.0, shift=0.0):
        x = torch.randn(*shape, generator=g, device=draw_on, dtype=torch.float32)
        return (shift + scale * x).to(torch.bfloat16).to(device)

    blocks = randn(t, max(nb, 1), hidden)
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


def check(peer, inputs, nb):
    """Runs `peer(blocks, prefix, delta, rms_w, res_w, out_w, nb)` once on a copy of the inputs
    and compares it with reference_f64: the output's largest absolute error against the unrounded
    float64 value, the share of output elements equal to the reference rounded to bf16 and the
    share within 1 bf16 ulp of it, and (with delta) the share of prefix elements updated bit for
    bit. (A largest distance in ulps would mislead: an output near zero can change sign.)"""
    blocks, prefix, delta, rms_w, res_w, out_w = inputs
    p_ref, out_ref = reference_f64(*inputs, nb)
    mine = prefix.clone()
    out = peer(blocks, mine, delta, rms_w, res_w, out_w, nb)
    ulps = (bf16_ordered(out) - bf16_ordered(out_ref.to(torch.bfloat16))).abs()
    figures = {
        "tokens": prefix.shape[0],
        "out_max_abs_err": (out.double() - out_ref).abs().max().item(),
        "out_ref_max_abs": out_ref.abs().max().item(),
        "out_bf16_equal_fraction": (ulps == 0).double().mean().item(),
        "out_within_1ulp_fraction": (ulps <= 1).double().mean().item(),
        "out_finite": bool(torch.isfinite(out.float()).all().item()),
    }
    if delta is not None:
        figures["prefix_equal_fraction"] = (mine.view(torch.int16) == p_ref.view(torch.int16)).double().mean().item()
    return figures
