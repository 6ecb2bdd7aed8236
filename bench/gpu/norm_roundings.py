#!/usr/bin/env python3
"""The roundings of docsift's fused residual add and RMSNorm kernel (lib/docsift/device/cuda_plugin/
add_rms_norm.h), written out with PyTorch's CPU ops, against the LibTorch ops it replaces
(model/blocks.cpp's rms_norm after Decoder::residual_add). Needs no GPU: it checks the kernel's
rounding rules, not its code; the GPU test cases in tests/parity/test_internvl.cpp check the code.
Prints, per dtype combination and width, the largest relative difference of the normed values and
the share equal bit for bit (only the variance's summation order differs).
    scripts/pyenv.sh python3 bench/gpu/norm_roundings.py
"""
import torch

LIMIT = 65504.0 - 1000.0  # kFloat16ResidualLimit (model/decoder.cpp)


def libtorch(x, u, w, eps, clamp, out):
    """Decoder::add_norm's unfused form (Decoder::norm's without an update)."""
    s = x
    if u is not None:
        s = x.add(u)
        if clamp > 0:
            s = s.clamp(-clamp, clamp)
    xf = s.to(torch.float32)
    normed = xf.mul(torch.rsqrt(xf.pow(2).mean(-1, keepdim=True).add(eps)))
    return s, w.mul(normed.to(s.dtype)).to(s.dtype).to(out)


def rounded(dtype, v):
    return v.to(dtype).to(torch.float32)


def kernel_rules(x, u, w, eps, clamp, out):
    """add_rms_norm.h's formula, each rounding as the kernel does it."""
    xt, product = x.dtype, torch.promote_types(w.dtype, x.dtype)
    s = x.float()
    if u is not None:
        s = rounded(xt, s + u.float())
        if clamp > 0:
            s = torch.where(s > clamp, torch.tensor(clamp), torch.where(s < -clamp, torch.tensor(-clamp), s))
    scale = torch.rsqrt((s * s).sum(-1, keepdim=True) * (1.0 / s.shape[-1]) + eps)
    y = rounded(xt, s * scale)
    p = rounded(xt, rounded(product, w.float() * y))
    return s.to(xt), p.to(out)


def main():
    torch.manual_seed(0)
    cases = [(torch.bfloat16, torch.bfloat16, torch.bfloat16, 0.0), (torch.float32, torch.float16, torch.float16, 0.0),
             (torch.float16, torch.float16, torch.float16, LIMIT), (torch.float32, torch.float32, torch.float32, 0.0)]
    for xt, ut, out, clamp in cases:
        for n in (3584, 64, 100):
            x, u, w = (torch.randn(7, n) * 3).to(xt), torch.randn(7, n).to(ut), torch.randn(n) * 0.2 + 1
            if clamp:
                x.view(-1)[:2] = 65000.0  # past the clamp, and with the update past float16's range
                u.view(-1)[:1] = 1000.0
            for add in (True, False):
                a = libtorch(x, u if add else None, w, 1e-6, clamp, out)
                b = kernel_rules(x, u if add else None, w, 1e-6, clamp, out)
                assert torch.equal(a[0], b[0]), "the sums must be equal bit for bit"
                got, want = b[1].float(), a[1].float()
                rel = ((got - want).abs() / (want.abs() + 1e-3)).max().item()
                same = (got == want).float().mean().item()
                print(f"x {str(xt)[6:]:9} update {str(ut)[6:]:9} out {str(out)[6:]:9} n {n:5} add {add!s:5} "
                      f"normed: max rel diff {rel:.2e}, equal {same:.4f}")


if __name__ == "__main__":
    main()
