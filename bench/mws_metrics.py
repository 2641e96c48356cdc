"""Chapter 1 (moving-window sum) in the PyTorch transcription: the authors' initialization, the
data, and every metric of the engine's `MetricRow`, written again from their definitions
(PAPERS.md §A; `src/chapters/plateau/metrics.rs` holds the engine's).

`bench/parity.py` checks these metrics against the engine's on the engine's own weights and
held-out batches; `bench/seeds.py` uses them for runs with PyTorch's own random numbers.
Positions are 0-based in the 2n-token model input; query t predicts token t+1, so queries
n..2n-1 predict the outputs y_1..y_n.
"""

import math

import torch
import torch.nn.functional as F

SEP, VOCAB, MODULUS, MAX_INPUT = 17, 18, 17, 16


def authors_init(model, layers):
    """Every Linear and embedding weight N(0, 0.02²) (the head too), the attention-out and MLP-down
    projections N(0, (0.02/√(2·layers))²), every bias 0, LayerNorm weight 1 and bias 0; drawn
    from PyTorch's global generator (`torch.manual_seed`)."""
    scaled = 0.02 / math.sqrt(2 * layers)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith("bias"):
                p.zero_()
            elif name.startswith("blocks.") and (".ln1." in name or ".ln2." in name):
                p.fill_(1.0)
            elif name == "ln_f.weight":
                p.fill_(1.0)
            elif name.endswith("out.weight") or name.endswith("proj.weight"):
                p.normal_(0.0, scaled)
            else:
                p.normal_(0.0, 0.02)


def mws_sequences(n, batch, generator=None):
    """`[batch, 2n+1]` sequences `[x_1..x_n, SEP, y_1..y_n]`, x_i ~ Uniform{1..16},
    y_1 = x_1, y_i = (x_{i-1} + x_i) mod 17."""
    x = torch.randint(1, MAX_INPUT + 1, (batch, n), generator=generator)
    prev = torch.cat([torch.zeros(batch, 1, dtype=torch.long), x[:, :-1]], dim=1)
    y = (prev + x) % MODULUS
    return torch.cat([x, torch.full((batch, 1), SEP, dtype=torch.long), y], dim=1)


def omega(n):
    """Ω for the moving-window sum: (n, 0) and, for r = 1..n-1, (n+r, r-1) and (n+r, r)."""
    out = [(n, 0)]
    for r in range(1, n):
        out += [(n + r, r - 1), (n + r, r)]
    return out


def cross_entropy(logits, targets, positions):
    """Mean next-token cross-entropy over `positions` (f64)."""
    z = logits[:, positions, :].double()
    return F.cross_entropy(z.reshape(-1, z.shape[-1]), targets[:, positions].reshape(-1)).item()


def repetition(seqs):
    """Share of adjacent pairs that repeat, `[batch, n]`."""
    return (seqs[:, 1:] == seqs[:, :-1]).double().mean().item()


def apm(att, n):
    """mean_b Σ_Ω|A| / Σ over rows n..2n-1 of |A| on `att: [batch, T, T]` (heads averaged)."""
    a = att.double().abs()
    den = a[:, n:2 * n, :].sum(dim=(1, 2))
    q = torch.tensor([e[0] for e in omega(n)])
    k = torch.tensor([e[1] for e in omega(n)])
    num = a[:, q, k].sum(dim=1)
    ratio = torch.where(den > 0, num / torch.where(den > 0, den, torch.ones_like(den)), torch.zeros_like(den))
    return ratio.mean().item()


def hidden_cos(hidden, n):
    """C[i,j] = mean_b cos(h_{n+i}, h_{n+j}); the mean of C over the pairs 1 ≤ j < i ≤ n-1."""
    h = hidden[:, n:2 * n, :].double()
    norm = h.norm(dim=2, keepdim=True)
    u = h / torch.where(norm > 0, norm, torch.ones_like(norm))
    c = (u @ u.transpose(1, 2)).mean(dim=0)
    i, j = torch.tril_indices(n, n, offset=-1)
    keep = j >= 1
    return c[i[keep], j[keep]].mean().item()


@torch.no_grad()
def greedy(model, seqs, n):
    """From the prompt [x_1..x_n, SEP], n greedy tokens, each the argmax at the last position."""
    tokens = seqs[:, : n + 1].clone()
    out = []
    for _ in range(n):
        nxt = model(tokens)[:, -1, :].argmax(dim=-1)
        out.append(nxt)
        tokens = torch.cat([tokens, nxt.unsqueeze(1)], dim=1)
    return torch.stack(out, dim=1)


@torch.no_grad()
def evaluate(model, step, loss, train_logits, train_seqs, held_seqs, n, c=1.0):
    """Every column of the engine's chapter 1 row (`MetricRow`), as a dict by CSV column name:
    training-batch figures from this step's training logits, the rest on the held-out batch."""
    t = 2 * n
    outputs = list(range(n, t))
    targets = train_seqs[:, 1:]
    pred = train_logits.argmax(dim=-1)
    row = {
        "step": step,
        "loss": loss,
        "output_loss": cross_entropy(train_logits, targets, outputs),
        "train_acc": (pred[:, n:] == targets[:, n:]).double().mean().item(),
    }
    held_in, held_tg = held_seqs[:, :t], held_seqs[:, 1:]
    logits = model(held_in)
    att = model.blocks[0].last_att.mean(dim=1)
    hidden = model.last_hidden
    truth = held_seqs[:, n + 1:]
    gen = greedy(model, held_seqs, n)
    pos = (gen == truth).double().mean(dim=0)
    row.update({
        "test_acc": (gen == truth).double().mean().item(),
        "first_token_acc": pos[0].item(),
        "repetition": repetition(gen),
        "data_repetition": repetition(truth),
        "apm": apm(att, n),
        "hidden_cos": hidden_cos(hidden, n),
        "test_loss": cross_entropy(logits, held_tg, list(range(t))),
        "test_output_loss": cross_entropy(logits, held_tg, outputs),
        "mask_c": c,
        "train_first_acc": (pred[:, n] == targets[:, n]).double().mean().item(),
    })
    row.update({f"acc_pos_{j + 1}": pos[j].item() for j in range(n)})
    return row
