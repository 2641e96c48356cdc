#!/usr/bin/env python3
"""PyTorch reference for `plateau bench`: the same model, data shapes and optimizer step.

`plateau bench` runs this script once per configuration with the shape flags of that
configuration and reads the one JSON line it prints:
    {"ms_per_step": ..., "steps": ..., "threads": ..., "torch": "1.13.1", "blas": "..."}

`blas` says which BLAS did the matrix products: the one PyTorch was built with (`BLAS_INFO`) and,
where it calls a shared library (Debian's build calls the system's), that library's file.

The model is the one in `src/model/transformer.rs`, written again in PyTorch (the one
transcription of the project: `bench/parity.py` trains it step by step beside the engine):
token and learned position embeddings, pre-LN blocks (LayerNorm eps 1e-5, biased Q/K/V/out,
MLP d -> d_ff -> d with the tanh GELU), a final LayerNorm and an untied LM head without bias.
Attention is the paper's linear attention (scores / sqrt(d_head), causal entries zeroed, no
softmax) or softmax attention, causal or bidirectional, with an optional key-padding mask and an
optional multiplicative mask on the attention weights (`Block.mask`, the paper's c on Omega).

One timed step is what `Trainer::advance` does between evaluations: build a fresh batch, forward,
the loss, read the loss value back (the engine reads it once per chunk of steps; on the CPU a read
costs nothing measurable), backward, one Adam/AdamW update.

Losses:
  all   next-token cross-entropy over every position (chapter 1, moving-window sum data);
  last  cross-entropy at the last position only (chapter 2; uniform random tokens of the same
        shape stand in for the anchor task, whose generator is not reimplemented here);
  mlm   masked-LM loss on ~15 % of the positions with a key-padding mask on random sentence
        lengths (chapter 3; random tokens stand in for the grammar, and the SAS regularizer,
        which is off at λ = 0, is not computed).
"""

import argparse
import json
import math
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, d, d_ff, heads, softmax, causal):
        super().__init__()
        self.ln1 = nn.LayerNorm(d, eps=1e-5)
        self.query = nn.Linear(d, d)
        self.key = nn.Linear(d, d)
        self.value = nn.Linear(d, d)
        self.out = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d, eps=1e-5)
        self.fc = nn.Linear(d, d_ff)
        self.proj = nn.Linear(d_ff, d)
        self.heads, self.softmax, self.causal = heads, softmax, causal
        self.mask = None  # multiplicative [t, t] mask on the attention weights (the paper's c on Ω)

    def forward(self, x, pad):
        b, t, d = x.shape
        h = self.heads
        dh = d // h
        ln = self.ln1(x)
        split = lambda y: y.view(b, t, h, dh).transpose(1, 2)
        q, k, v = split(self.query(ln)), split(self.key(ln)), split(self.value(ln))
        scores = q @ k.transpose(2, 3) / math.sqrt(dh)
        if pad is not None and self.softmax:
            scores = scores.masked_fill(pad, float("-inf"))
        if not self.softmax:
            att = scores * torch.tril(torch.ones(t, t)) if self.causal else scores
        elif self.causal:
            upper = torch.triu(torch.ones(t, t, dtype=torch.bool), 1)
            att = torch.softmax(scores.masked_fill(upper, float("-inf")), dim=3)
        else:
            att = torch.softmax(scores, dim=3)
        if self.mask is not None:
            att = att * self.mask[:t, :t]
        self.last_att = att  # [b, h, t, t], for the metrics (bench/mws_metrics.py)
        y = (att @ v).transpose(1, 2).reshape(b, t, d)
        x = x + self.out(y)
        return x + self.proj(F.gelu(self.fc(self.ln2(x)), approximate="tanh"))


class Transformer(nn.Module):
    def __init__(self, vocab, positions, layers, heads, d, d_ff, softmax, causal):
        super().__init__()
        self.tok_emb = nn.Parameter(torch.randn(vocab, d) * 0.02)
        self.pos_emb = nn.Parameter(torch.randn(positions, d) * 0.02)
        self.blocks = nn.ModuleList(Block(d, d_ff, heads, softmax, causal) for _ in range(layers))
        self.ln_f = nn.LayerNorm(d, eps=1e-5)
        self.head = nn.Parameter(torch.randn(d, vocab) * 0.02)

    def forward(self, tokens, pad=None):
        t = tokens.shape[1]
        x = self.tok_emb[tokens] + self.pos_emb[:t].unsqueeze(0)
        for block in self.blocks:
            x = block(x, pad)
        self.last_hidden = self.ln_f(x)  # [b, t, d], for the metrics (bench/mws_metrics.py)
        return self.last_hidden @ self.head


def mws_batch(n, batch, gen):
    """Moving-window sum as in the paper's code: x_i in 1..16, SEP 17, y_i = x_{i-1} + x_i mod 17."""
    x = torch.randint(1, 17, (batch, n), generator=gen)
    prev = torch.cat([torch.zeros(batch, 1, dtype=torch.long), x[:, :-1]], dim=1)
    y = (prev + x) % 17
    seq = torch.cat([x, torch.full((batch, 1), 17, dtype=torch.long), y], dim=1)
    return seq[:, :-1], seq[:, 1:]


def blas_info():
    """The BLAS behind torch's matrix products: BLAS_INFO of the build, plus any BLAS shared
    library this process has loaded (after a product has run)."""
    import os
    import re

    m = re.search(r"BLAS_INFO=(\w+)", torch.__config__.show())
    built = m.group(1) if m else "?"
    libs = set()
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                name = os.path.basename(line.split()[-1]) if "/" in line else ""
                # (CUDA's cuBLAS, loaded by a GPU build, does not run the CPU's products.)
                if re.search(r"blas|mkl|blis|accelerate", name, re.I) and not name.startswith("libcu"):
                    libs.add(name)
    except OSError:
        pass
    return built + (" → " + ", ".join(sorted(libs)) if libs else "")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--vocab", type=int, required=True)
    p.add_argument("--seq", type=int, required=True, help="input positions per sequence")
    p.add_argument("--layers", type=int, required=True)
    p.add_argument("--heads", type=int, required=True)
    p.add_argument("--d-model", type=int, required=True)
    p.add_argument("--d-ff", type=int, required=True)
    p.add_argument("--batch", type=int, required=True)
    p.add_argument("--attention", choices=["linear", "softmax"], required=True)
    p.add_argument("--causal", choices=["yes", "no"], required=True)
    p.add_argument("--loss", choices=["all", "last", "mlm"], required=True)
    p.add_argument("--lr", type=float, required=True)
    p.add_argument("--weight-decay", type=float, default=0.0)
    p.add_argument("--steps", type=int, required=True, help="timed steps (after 3 warm-up steps)")
    p.add_argument("--threads", type=int, required=True)
    a = p.parse_args()

    torch.set_num_threads(a.threads)
    torch.manual_seed(0)
    gen = torch.Generator().manual_seed(0)
    model = Transformer(a.vocab, a.seq, a.layers, a.heads, a.d_model, a.d_ff, a.attention == "softmax", a.causal == "yes")
    if a.weight_decay > 0:
        opt = torch.optim.AdamW(model.parameters(), lr=a.lr, betas=(0.9, 0.999), eps=1e-8, weight_decay=a.weight_decay)
    else:
        opt = torch.optim.Adam(model.parameters(), lr=a.lr, betas=(0.9, 0.999), eps=1e-8)

    def step():
        pad = None
        if a.loss == "all":
            inputs, targets = mws_batch(a.seq // 2, a.batch, gen)
            logits = model(inputs)
            loss = F.cross_entropy(logits.reshape(-1, a.vocab), targets.reshape(-1))
        elif a.loss == "last":
            inputs = torch.randint(0, a.vocab, (a.batch, a.seq), generator=gen)
            labels = torch.randint(0, a.vocab, (a.batch,), generator=gen)
            loss = F.cross_entropy(model(inputs)[:, -1, :], labels)
        else:
            inputs = torch.randint(0, a.vocab, (a.batch, a.seq), generator=gen)
            lengths = torch.randint(a.seq // 3, a.seq + 1, (a.batch, 1), generator=gen)
            is_pad = torch.arange(a.seq).unsqueeze(0) >= lengths  # [b, t]
            pad = is_pad.view(a.batch, 1, 1, a.seq)
            targets = torch.where(
                (torch.rand(a.batch, a.seq, generator=gen) < 0.15) & ~is_pad, inputs, torch.full_like(inputs, -100)
            )
            targets[:, 0] = inputs[:, 0]  # at least one target per sentence
            logits = model(inputs, pad)
            loss = F.cross_entropy(logits.reshape(-1, a.vocab), targets.reshape(-1), ignore_index=-100)
        value = loss.item()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        return value

    for _ in range(3):
        step()
    t0 = time.perf_counter()
    for _ in range(a.steps):
        step()
    ms = (time.perf_counter() - t0) * 1000.0 / a.steps
    print(json.dumps({"ms_per_step": ms, "steps": a.steps, "threads": torch.get_num_threads(), "torch": torch.__version__, "blas": blas_info()}))


if __name__ == "__main__":
    main()
