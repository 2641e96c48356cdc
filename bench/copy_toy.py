#!/usr/bin/env python3
"""Issue 52's copy-agreement toy transcribed to PyTorch from the issue's text (pre-LN
bidirectional encoder, 2 layers x 4 heads, d 64, d_ff 256, every weight N(0, 0.02), AdamW lr 1e-3,
100-step warm-up, weight decay 0.01, batch 128 of fresh sentences; every slot masked, every other
word selected with p 0.15 and replaced by MASK), with the engine's differences as switches, to find
the factor that sets the length of the slot loss's plateau one factor at a time:
  --bert        BERT's replacement (80 % MASK, 10 % a random word, 10 % kept), as the engine's
                copy language without `mask-only 1`
  --scaled-out  the paper's init of the two output projections, N(0, (0.02/sqrt(2 layers))^2),
                as the engine without `flat-out 1`
It is a one-off comparison, not a parity test: it shares no weights or batches with the engine.
Prints one line per evaluation (step, slot loss on 512 held-out sentences with every slot masked
and nothing else), then a JSON line.

  /usr/bin/python3 bench/copy_toy.py --seed 0 --steps 3000 [--bert] [--scaled-out]

With Debian's reference BLAS a step takes about 0.6 s here; OpenBLAS (the libopenblas0-pthread
package, then LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu/openblas-pthread) makes it 0.08 s.
"""
import argparse, json, math, random, sys, time
import torch
import torch.nn as nn
import torch.nn.functional as F

P, NN, NV, C, NF = 8, 24, 24, 3, 4
PAD, MASK = 0, 1
Q0 = 2
N0 = Q0 + P
V0 = N0 + NN
C0 = V0 + NV
F0 = C0 + C
VOCAB = F0 + NF
NWORDS = VOCAB - 2


def sentence(rng, a):
    """tokens, slot positions. a.fill: 'engine' (0-2 fillers after each of the six units) or
    'between' (0-2 fillers between consecutive units, 0-2 at the end)."""
    qs = rng.sample(range(P), 3)
    cs = list(range(C))
    if a.repeat:
        cs = [rng.randrange(C) for _ in range(3)]
    else:
        rng.shuffle(cs)
    toks, slots = [], []
    units = [("s", i) for i in range(3)] + [("v", i) for i in (2, 1, 0)]
    gaps = []
    for ui, (kind, i) in enumerate(units):
        if kind == "s":
            toks += [Q0 + qs[i], N0 + rng.randrange(NN), C0 + cs[i]]
        else:
            toks += [Q0 + qs[i], V0 + rng.randrange(NV)]
            slots.append(len(toks))
            toks.append(C0 + cs[i])
        gaps.append(len(toks))
        toks += [F0 + rng.randrange(NF) for _ in range(rng.randint(0, 2))]
    return toks, slots


def batch(rng, n, a):
    sents = [sentence(rng, a) for _ in range(n)]
    T = max(len(s) for s, _ in sents) if a.pad == "batch" else 30
    x = torch.full((n, T), PAD, dtype=torch.long)
    for b, (s, _) in enumerate(sents):
        x[b, : len(s)] = torch.tensor(s)
    return x, sents


def mask(x, sents, rng, a):
    inp = x.clone()
    tgt = torch.full_like(x, -100)
    for b, (s, slots) in enumerate(sents):
        for i in range(len(s)):
            if i in slots:
                tgt[b, i] = s[i]
                inp[b, i] = MASK
            elif rng.random() < 0.15:
                tgt[b, i] = s[i]
                if a.bert:
                    r = rng.random()
                    if r < 0.8:
                        inp[b, i] = MASK
                    elif r < 0.9:
                        inp[b, i] = 2 + rng.randrange(NWORDS)
                else:
                    inp[b, i] = MASK
    return inp, tgt


class Block(nn.Module):
    def __init__(s, d, h, dff):
        super().__init__()
        s.h = h
        s.ln1 = nn.LayerNorm(d)
        s.q, s.k, s.v, s.o = (nn.Linear(d, d) for _ in range(4))
        s.ln2 = nn.LayerNorm(d)
        s.fc = nn.Linear(d, dff)
        s.proj = nn.Linear(dff, d)

    def forward(s, x, pad):
        b, t, d = x.shape
        h = s.ln1(x)
        sp = lambda y: y.view(b, t, s.h, d // s.h).transpose(1, 2)
        q, k, v = sp(s.q(h)), sp(s.k(h)), sp(s.v(h))
        sc = q @ k.transpose(2, 3) / math.sqrt(d // s.h)
        sc = sc.masked_fill(pad[:, None, None, :], float("-inf"))
        att = sc.softmax(-1)
        y = (att @ v).transpose(1, 2).reshape(b, t, d)
        x = x + s.o(y)
        return x + s.proj(F.gelu(s.fc(s.ln2(x)), approximate="tanh"))


class Model(nn.Module):
    def __init__(s, a):
        super().__init__()
        d = a.d
        s.tok = nn.Embedding(VOCAB, d)
        s.pos = nn.Embedding(40, d)
        s.blocks = nn.ModuleList(Block(d, a.heads, 4 * d) for _ in range(a.layers))
        s.lnf = nn.LayerNorm(d)
        s.head = nn.Linear(d, VOCAB, bias=False)
        for n, p in s.named_parameters():
            if p.dim() >= 2:
                std = 0.02
                if a.scaled_out and (n.endswith("o.weight") or n.endswith("proj.weight")):
                    std = 0.02 / math.sqrt(2 * a.layers)
                if a.qk != 1.0 and (n.endswith("q.weight") or n.endswith("k.weight")):
                    std *= a.qk
                nn.init.normal_(p, 0.0, std)
            elif n.endswith("bias"):
                nn.init.zeros_(p)

    def forward(s, x):
        pad = x == PAD
        h = s.tok(x) + s.pos(torch.arange(x.shape[1]))[None]
        for bl in s.blocks:
            h = bl(h, pad)
        return s.head(s.lnf(h))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--steps", type=int, default=3000)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--wd", type=float, default=0.01)
    p.add_argument("--warmup", type=int, default=100)
    p.add_argument("--batch", type=int, default=128)
    p.add_argument("--d", type=int, default=64)
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--qk", type=float, default=1.0)
    p.add_argument("--scaled-out", action="store_true", help="engine: output projections 0.02/sqrt(2L)")
    p.add_argument("--bert", action="store_true", help="engine: 80/10/10 replacement")
    p.add_argument("--pad", default="batch", help="batch (pad to the batch's longest) or fixed (30)")
    p.add_argument("--repeat", action="store_true")
    p.add_argument("--every", type=int, default=25)
    p.add_argument("--threads", type=int, default=1)
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    rng = random.Random(a.seed)
    erng = random.Random(10_000 + a.seed)
    m = Model(a)
    opt = torch.optim.AdamW(m.parameters(), lr=a.lr, weight_decay=a.wd, betas=(0.9, 0.999), eps=1e-8)
    ex, es = batch(erng, 512, a)
    ein = ex.clone()
    for b, (s, slots) in enumerate(es):
        for i in slots:
            ein[b, i] = MASK
    etgt = torch.full_like(ex, -100)
    for b, (s, slots) in enumerate(es):
        for i in slots:
            etgt[b, i] = s[i]
    curve = []
    t0 = time.time()
    for step in range(a.steps + 1):
        if step % a.every == 0:
            with torch.no_grad():
                lg = m(ein)
                sl = F.cross_entropy(lg.view(-1, VOCAB), etgt.view(-1), ignore_index=-100).item()
            curve.append((step, sl))
            print(step, round(sl, 4), flush=True)
        if step == a.steps:
            break
        for g in opt.param_groups:
            g["lr"] = a.lr * min(1.0, (step + 1) / a.warmup) if a.warmup else a.lr
        x, s = batch(rng, a.batch, a)
        inp, tgt = mask(x, s, rng, a)
        loss = F.cross_entropy(m(inp).view(-1, VOCAB), tgt.view(-1), ignore_index=-100)
        opt.zero_grad()
        loss.backward()
        opt.step()
    ln3 = math.log(3)
    near = [st for st, v in curve if abs(v - ln3) < 0.05]
    below = next((st for st, v in curve if v < 0.55 and near and st > near[0]), None)
    print(json.dumps({"args": vars(a), "first_near_ln3": near[0] if near else None,
                      "half": below, "secs": time.time() - t0, "final": curve[-1][1]}))


if __name__ == "__main__":
    main()
