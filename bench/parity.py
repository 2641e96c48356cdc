#!/usr/bin/env python3
"""Step-by-step parity of the engine's chapter 1 training with the PyTorch transcription.

Reads the JSON that `plateau parity-dump` writes (the engine's initial weights, every training
batch, the held-out batches of the evaluation steps, the mask, and the engine's loss at every
step, held-out loss at every evaluation and gradient norm of every parameter at every update),
loads the weights into `torch_bench.Transformer` (the project's one transcription of the authors'
model), trains it on the same batches with Adam (betas 0.9/0.999, eps 1e-8, constant lr, mean
cross-entropy over every position) and compares, step by step:
  - the training loss (before update s) at every step;
  - every parameter's gradient norm at updates 0 and 1;
  - the held-out loss at the evaluation steps.
Prints one JSON line with the figures and exits 1 when the loss or a gradient norm of the first
`--strict-steps` steps (20) differs by more than `--tol` (1e-4) relative; later f32 drift is
reported, not failed.
"""

import argparse
import json
import math
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_bench import Transformer  # noqa: E402
import mws_metrics  # noqa: E402


def rel(a, b):
    return abs(a - b) / max(abs(a), abs(b), 1e-12)


def number_or_text(v):
    """A config value as the engine writes it (text): a number where it reads as one
    (`0.8`, `1e-3`), else the text itself (`softmax`, `cell`, `after`)."""
    try:
        return float(v)
    except ValueError:
        return v


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("dump", help="the JSON of `plateau parity-dump`")
    p.add_argument("--tol", type=float, default=1e-4)
    p.add_argument("--strict-steps", type=int, default=20)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--perturb", action="store_true",
                   help="negative control: scale the query weights by 1.001 (the comparison must then fail)")
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    d = json.load(open(a.dump))
    raw = d["config"]  # every value as the engine writes it: text
    cfg = {k: number_or_text(v) for k, v in raw.items()}
    for k in ("layers", "heads", "d-model", "d-ff", "c-from"):
        cfg[k] = int(cfg[k])
    vocab, positions = d["vocab"], d["positions"]
    model = Transformer(vocab, positions, cfg["layers"], cfg["heads"], cfg["d-model"], cfg["d-ff"],
                        cfg["attention"] == "softmax", True)
    # The engine's module order (burn visits struct fields in order: the embeddings, each block,
    # the final LayerNorm, the head); PyTorch lists a module's own parameters first.
    params = dict(model.named_parameters())
    order = ["tok_emb", "pos_emb"]
    for i in range(cfg["layers"]):
        for sub in ["ln1", "query", "key", "value", "out", "ln2", "fc", "proj"]:
            order += [f"blocks.{i}.{sub}.weight", f"blocks.{i}.{sub}.bias"]
    order += ["ln_f.weight", "ln_f.bias", "head"]
    if sorted(order) != sorted(params):
        sys.exit(f"parity: the transcription's parameters {sorted(params)} are not the engine's {sorted(order)}")
    named = [(n, params[n]) for n in order]
    if len(named) != len(d["params"]):
        sys.exit(f"parity: {len(named)} tensors here, {len(d['params'])} in the engine")
    with torch.no_grad():
        for (name, t), e in zip(named, d["params"]):
            v = torch.tensor(e["values"], dtype=torch.float32).reshape(e["shape"])
            if name.startswith("blocks.") and name.endswith(".weight") and v.dim() == 2:
                v = v.t()  # burn's Linear weight is [d_in, d_out], PyTorch's [d_out, d_in]
            if list(v.shape) != list(t.shape):
                sys.exit(f"parity: {name}: shape {list(t.shape)} here, {e['shape']} in the engine")
            t.copy_(v)
        if a.perturb:
            params["blocks.0.query.weight"].mul_(1.001)
    if d["mask"] is not None:
        if cfg["c-from"] != 0:
            sys.exit("parity: a mask that starts after step 0 is not transcribed")
        m = torch.tensor(d["mask"], dtype=torch.float32).reshape(positions, positions)
        for b in model.blocks:
            b.mask = m
    opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"], betas=(0.9, 0.999), eps=1e-8)

    def tensors(batch):
        b = len(batch["inputs"]) // positions
        return (torch.tensor(batch["inputs"]).reshape(b, positions), torch.tensor(batch["targets"]).reshape(b, positions))

    steps = len(d["loss"]) - 1
    evals = dict(zip(d["eval_steps"], zip(d["eval_batches"], d["test_loss"])))
    engine_rows = dict(zip(d["eval_steps"], d["eval_rows"]))
    n = positions // 2

    def sequences(batch):
        x, y = tensors(batch)
        return torch.cat([x, y[:, -1:]], dim=1)  # [b, 2n+1]

    metric_diff = []  # (step, column, |difference|, torch, engine) at the evaluations
    loss_rel, test_rel, grad_rel = [], [], []
    names = [n for n, _ in named]
    for s in range(steps + 1):
        if s in evals:
            batch, engine_test = evals[s]
            with torch.no_grad():
                x, y = tensors(batch)
                test = F.cross_entropy(model(x).reshape(-1, vocab), y.reshape(-1)).item()
            test_rel.append((s, rel(test, engine_test), test, engine_test))
        x, y = tensors(d["batches"][s])
        logits = model(x)
        loss = F.cross_entropy(logits.reshape(-1, vocab), y.reshape(-1))
        loss_rel.append((s, rel(loss.item(), d["loss"][s]), loss.item(), d["loss"][s]))
        if s in engine_rows and engine_rows[s] is not None:
            ours = mws_metrics.evaluate(model, s, loss.item(), logits.detach(), sequences(d["batches"][s]),
                                        sequences(evals[s][0]), n, cfg["c"])
            for col, engine_v in engine_rows[s].items():
                if col == "position_acc":
                    pairs = [(f"acc_pos_{j + 1}", v) for j, v in enumerate(engine_v)]
                elif col in ours:
                    pairs = [(col, engine_v)]
                else:
                    sys.exit(f"parity: the engine's row has {col}, which the transcription does not compute")
                for name, ev in pairs:
                    ev = float("nan") if ev is None else float(ev)
                    metric_diff.append((s, name, abs(ours[name] - ev), ours[name], ev))
        if s == steps:
            break
        opt.zero_grad(set_to_none=True)
        loss.backward()
        if s < 2:
            for (name, t), engine_norm in zip(named, d["grad_norms"][s]):
                norm = t.grad.norm().item() if t.grad is not None else 0.0
                grad_rel.append((s, name, rel(norm, engine_norm), norm, engine_norm))
        opt.step()

    strict = [r for r in loss_rel if r[0] < a.strict_steps]
    worst_strict = max(strict, key=lambda r: r[1])
    worst_grad = max(grad_rel, key=lambda r: r[2])
    first_over = next((r[0] for r in loss_rel if r[1] > a.tol), None)
    # The metrics of the evaluations in the first strict steps: the continuous ones within the
    # tolerance (relative), the counted ones (accuracies, repetition) exactly.
    counted = lambda c: c.endswith("_acc") or c.startswith("acc_pos_") or c.endswith("repetition")
    strict_m = [r for r in metric_diff if r[0] < a.strict_steps]
    bad_m = [r for r in strict_m
             if not (r[2] == 0 if counted(r[1]) else r[2] <= a.tol * max(abs(r[3]), abs(r[4]), 1e-12))
             and not (math.isnan(r[3]) and math.isnan(r[4]))]
    worst_m = max(metric_diff, key=lambda r: r[2], default=None)
    ok = worst_strict[1] <= a.tol and worst_grad[2] <= a.tol and not bad_m
    report = {
        "ok": ok,
        "steps": steps,
        "tol": a.tol,
        "strict_steps": a.strict_steps,
        "max_loss_rel_first": worst_strict[1],
        "max_loss_rel_first_at": worst_strict[0],
        "max_loss_rel_all": max(r[1] for r in loss_rel),
        "loss_rel_at": {str(s): r[1] for s, r in ((s, loss_rel[s]) for s in (0, 1, 10, 20, 50, steps) if s <= steps)},
        "first_step_over_tol": first_over,
        "max_grad_rel": worst_grad[2],
        "max_grad_rel_tensor": f"step {worst_grad[0]} {worst_grad[1]}",
        "max_test_loss_rel": max((r[1] for r in test_rel), default=None),
        "metrics_compared": len(metric_diff),
        "metrics_mismatched_first": len(bad_m),
        "max_metric_diff_all": None if worst_m is None else f"step {worst_m[0]} {worst_m[1]}: {worst_m[3]} vs {worst_m[4]}",
        "final_loss": {"torch": loss_rel[-1][2], "engine": loss_rel[-1][3]},
        "torch": torch.__version__,
    }
    print(json.dumps(report))
    if not ok:
        bad = [r for r in strict if r[1] > a.tol][:5]
        badg = [r for r in grad_rel if r[2] > a.tol][:5]
        print(f"parity: MISMATCH (tolerance {a.tol}); loss {bad}; gradient norms {badg}; metrics {bad_m[:5]}",
              file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
