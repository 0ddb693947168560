#!/usr/bin/python3
"""Transformer exports from torch (Debian's python3-torch and python3-torchvision, random weights,
no downloads), each written as a case folder in the layout of ONNX's node tests:
OUT/<name>/model.onnx and OUT/<name>/test_data_set_0/{input_0,output_0}.pb with torch's own input
and output, so that `fusionplan conformance OUT` imports, runs and compares every one of them
(max |a - b| <= 1e-4 * max(1, |b|)). tests/cli/onnx_torch_transformers.sh runs it.

    /usr/bin/python3 tests/data/onnx/torch_transformers.py OUT [--full] [NAME ...]

Networks (the test's sizes; --full: the real depths):
  vit_b_16   torchvision's VisionTransformer at ViT-B/16's widths, 2 encoder layers (--full: 12)
  swin_t     torchvision's SwinTransformer at swin_t's widths, depths 2,2,2,2 (--full: 2,2,6,2)
  bert       nn.TransformerEncoder at BERT-base's widths (768, 12 heads, FFN 3072, GELU),
             128 tokens, 2 layers (--full: 12)
  gpt2       a GPT-2-style decoder written here: pre-LayerNorm, causal mask as Where on a
             constant, tanh GELU; 256 wide, 4 heads, 64 tokens, 2 layers
  llama      a Llama-style decoder written here: RMSNorm, rotary embeddings (rotate-half),
             grouped-query attention (8 query, 2 key/value heads, repeated by Expand), SwiGLU
             FFN, additive causal mask; 256 wide, 64 tokens, 2 layers
Exported at opset 14, where torch writes LayerNorm and GELU out op by op (the patterns the
importer recognises); the decoders take token embeddings (the lookup is not part of the graph).
"""
import argparse
import math
import os
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from onnx import numpy_helper

OPSET = 14


def randomize(model, seed):
    """Random weights of unit scale: torchvision zero-initialises some heads, which would make
    the comparison trivial."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if p.dim() >= 2:
                fan_in = p[0].numel()
                p.copy_(torch.randn(p.shape, generator=g) / math.sqrt(fan_in))
            else:
                base = 1.0 if "norm" in name and name.endswith("weight") else 0.0
                p.copy_(base + 0.1 * torch.randn(p.shape, generator=g))
    return model.eval()


def gelu(x):
    # a function of our own: nn.TransformerEncoderLayer's fused fast path is then off
    return F.gelu(x)


class Bert(nn.Module):
    def __init__(self, layers):
        super().__init__()
        layer = nn.TransformerEncoderLayer(768, 12, 3072, dropout=0.0, activation=gelu, batch_first=True)
        self.enc = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)

    def forward(self, x):
        return self.enc(x)


class Gpt2Block(nn.Module):
    def __init__(self, d, heads, tokens):
        super().__init__()
        self.h = heads
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.fc, self.out = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)
        self.register_buffer("causal", torch.tril(torch.ones(tokens, tokens, dtype=torch.bool)).view(1, 1, tokens, tokens))
        self.register_buffer("lowest", torch.tensor(torch.finfo(torch.float32).min))

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=2)
        q, k, v = (z.view(b, t, self.h, d // self.h).transpose(1, 2) for z in (q, k, v))
        s = q @ k.transpose(-2, -1) / math.sqrt(d // self.h)
        s = torch.where(self.causal[:, :, :t, :t], s, self.lowest)
        y = (s.softmax(-1) @ v).transpose(1, 2).reshape(b, t, d)
        x = x + self.proj(y)
        return x + self.out(F.gelu(self.fc(self.ln2(x)), approximate="tanh"))


class RMSNorm(nn.Module):
    def __init__(self, d, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rotate_half(x):
    h = x.shape[-1] // 2
    return torch.cat((-x[..., h:], x[..., :h]), dim=-1)


class LlamaBlock(nn.Module):
    def __init__(self, d, heads, kv_heads, ffn, tokens):
        super().__init__()
        self.h, self.kvh, self.dh = heads, kv_heads, d // heads
        self.n1, self.n2 = RMSNorm(d), RMSNorm(d)
        self.q = nn.Linear(d, d, bias=False)
        self.k = nn.Linear(d, kv_heads * self.dh, bias=False)
        self.v = nn.Linear(d, kv_heads * self.dh, bias=False)
        self.o = nn.Linear(d, d, bias=False)
        self.gate, self.up = nn.Linear(d, ffn, bias=False), nn.Linear(d, ffn, bias=False)
        self.down = nn.Linear(ffn, d, bias=False)
        inv = 1.0 / (10000 ** (torch.arange(0, self.dh, 2).float() / self.dh))
        ang = torch.outer(torch.arange(tokens).float(), inv)
        ang = torch.cat((ang, ang), dim=-1)
        self.register_buffer("cos", ang.cos())
        self.register_buffer("sin", ang.sin())
        self.register_buffer("mask", torch.full((tokens, tokens), float("-inf")).triu(1))

    def repeat_kv(self, z):
        b, kvh, t, dh = z.shape
        rep = self.h // kvh
        return z[:, :, None, :, :].expand(b, kvh, rep, t, dh).reshape(b, kvh * rep, t, dh)

    def forward(self, x):
        b, t, d = x.shape
        y = self.n1(x)
        q = self.q(y).view(b, t, self.h, self.dh).transpose(1, 2)
        k = self.k(y).view(b, t, self.kvh, self.dh).transpose(1, 2)
        v = self.v(y).view(b, t, self.kvh, self.dh).transpose(1, 2)
        q = q * self.cos + rotate_half(q) * self.sin
        k = k * self.cos + rotate_half(k) * self.sin
        k, v = self.repeat_kv(k), self.repeat_kv(v)
        s = q @ k.transpose(-2, -1) / math.sqrt(self.dh) + self.mask
        a = (s.softmax(-1) @ v).transpose(1, 2).reshape(b, t, d)
        x = x + self.o(a)
        y = self.n2(x)
        return x + self.down(F.silu(self.gate(y)) * self.up(y))


class Decoder(nn.Module):
    def __init__(self, blocks, d, vocab, norm):
        super().__init__()
        self.blocks = nn.ModuleList(blocks)
        self.norm = norm
        self.head = nn.Linear(d, vocab, bias=False)

    def forward(self, x):
        for blk in self.blocks:
            x = blk(x)
        return self.head(self.norm(x))


def build(name, full):
    import torchvision
    from torchvision.models.swin_transformer import SwinTransformer
    from torchvision.models.vision_transformer import VisionTransformer
    if name == "vit_b_16":
        m = torchvision.models.vit_b_16(weights=None) if full else \
            VisionTransformer(224, 16, num_layers=2, num_heads=12, hidden_dim=768, mlp_dim=3072)
        return m, torch.randn(1, 3, 224, 224)
    if name == "swin_t":
        m = torchvision.models.swin_t(weights=None) if full else \
            SwinTransformer([4, 4], 96, [2, 2, 2, 2], [3, 6, 12, 24], [7, 7], stochastic_depth_prob=0.0)
        return m, torch.randn(1, 3, 224, 224)
    if name == "bert":
        return Bert(12 if full else 2), torch.randn(1, 128, 768)
    if name == "gpt2":
        d, t = 256, 64
        return Decoder([Gpt2Block(d, 4, t) for _ in range(2)], d, 1000, nn.LayerNorm(d)), torch.randn(1, t, d)
    if name == "llama":
        d, t = 256, 64
        return Decoder([LlamaBlock(d, 8, 2, 688, t) for _ in range(2)], d, 1000, RMSNorm(d)), torch.randn(1, t, d)
    raise SystemExit(f"unknown network {name}")


def export(name, out, full, seed):
    torch.manual_seed(seed)
    model, x = build(name, full)
    randomize(model, seed)
    with torch.no_grad():
        y = model(x)
    case = os.path.join(out, name)
    os.makedirs(os.path.join(case, "test_data_set_0"), exist_ok=True)
    torch.onnx.export(model, x, os.path.join(case, "model.onnx"), opset_version=OPSET, do_constant_folding=True,
                      input_names=["input"], output_names=["output"])
    for prefix, t in (("input", x), ("output", y)):
        with open(os.path.join(case, "test_data_set_0", f"{prefix}_0.pb"), "wb") as f:
            f.write(numpy_helper.from_array(t.numpy().astype(np.float32)).SerializeToString())
    print(f"{name}: {sum(p.numel() for p in model.parameters())} parameters, output {tuple(y.shape)}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("names", nargs="*", default=["vit_b_16", "swin_t", "bert", "gpt2", "llama"])
    ap.add_argument("--full", action="store_true", help="the networks' real depths")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_intermixed_args()
    torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))
    for n in args.names:
        export(n, args.out, args.full, args.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
