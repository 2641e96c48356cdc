#!/usr/bin/env python3
"""Chapter 1's paper preset trained by the PyTorch transcription with PyTorch's own random numbers.

One run per seed: `torch.manual_seed(seed)`, the authors' initialization
(`mws_metrics.authors_init`), a fresh training batch of 256 every step and a fresh held-out batch
of 64 at every evaluation (every 5 steps), all from PyTorch's global generator, Adam (0.9, 0.999,
1e-8) at a constant lr of 1e-4, mean cross-entropy over all 32 positions. A row is written at
every evaluation with every column of the engine's chapter 1 CSV (`mws_metrics.evaluate`), so
`plateau reproduce --against-transcription` reads both with the same code.

Like the engine's runs of that comparison, a run stops `--after-drop` steps after its drop (the
first evaluation with test accuracy >= 0.5), or at `--steps`: everything compared (the drop, the
partial solutions, the plateau's peaks, the APM at the drop) is known by then.

Writes DIR/paper-mws-c1-seed{S}.csv and .json (config, torch version, wall seconds, date); a
seed whose .json already exists with the same config is kept (rerun to continue a sweep).
"""

import argparse
import datetime
import json
import os
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_bench import Transformer  # noqa: E402
import mws_metrics as mm  # noqa: E402


def seeds_arg(text):
    if ".." in text:
        a, b = text.split("..")
        return list(range(int(a), int(b) + 1))
    return [int(s) for s in text.split(",")]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seeds", type=seeds_arg, default=seeds_arg("0..9"))
    p.add_argument("--steps", type=int, default=400)
    p.add_argument("--after-drop", type=int, default=50)
    p.add_argument("--eval-every", type=int, default=5)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--dir", default="results/transcription")
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    os.makedirs(a.dir, exist_ok=True)
    n, layers, d, d_ff, batch, eval_batch, lr = 16, 1, 256, 1024, 256, 64, 1e-4
    config = {"preset": "paper", "experiment": "mws", "c": 1.0, "n": n, "layers": layers, "heads": 1,
              "d-model": d, "d-ff": d_ff, "batch": batch, "eval-batch": eval_batch, "lr": lr,
              "steps": a.steps, "eval-every": a.eval_every, "after-drop": a.after_drop,
              "attention": "linear"}
    for seed in a.seeds:
        stem = os.path.join(a.dir, f"paper-mws-c1-seed{seed}")
        try:
            if json.load(open(stem + ".json"))["config"] == config:
                print(f"seed {seed}: finished earlier ({stem}.json)", file=sys.stderr)
                continue
        except (OSError, ValueError, KeyError):
            pass
        torch.manual_seed(seed)
        model = Transformer(mm.VOCAB, 2 * n, layers, 1, d, d_ff, False, True)
        mm.authors_init(model, layers)
        opt = torch.optim.Adam(model.parameters(), lr=lr, betas=(0.9, 0.999), eps=1e-8)
        rows, drop, start = [], None, time.perf_counter()
        for s in range(a.steps + 1):
            seqs = mm.mws_sequences(n, batch)
            logits = model(seqs[:, :-1])
            loss = F.cross_entropy(logits.reshape(-1, mm.VOCAB), seqs[:, 1:].reshape(-1))
            if s % a.eval_every == 0:
                held = mm.mws_sequences(n, eval_batch)
                row = mm.evaluate(model, s, loss.item(), logits.detach(), seqs, held, n)
                rows.append(row)
                if drop is None and row["test_acc"] >= 0.5:
                    drop = s
                print(f"\rseed {seed}: step {s} loss {loss.item():.3f} test acc {row['test_acc']:.2f}",
                      end="", file=sys.stderr)
                if drop is not None and s >= drop + a.after_drop:
                    break
            if s == a.steps:
                break
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
        wall = time.perf_counter() - start
        print(f"\rseed {seed}: drop at {drop}, {rows[-1]['step']} steps, {wall:.0f} s", file=sys.stderr)
        cols = list(rows[0].keys())
        with open(stem + ".csv", "w") as f:
            f.write(",".join(cols) + "\n")
            for r in rows:
                f.write(",".join(repr(float(r[c])) if c != "step" else str(r[c]) for c in cols) + "\n")
        meta = {"config": config, "torch": torch.__version__, "threads": torch.get_num_threads(),
                "wall_s": wall, "date": datetime.date.today().isoformat()}
        json.dump(meta, open(stem + ".json", "w"), indent=2)


if __name__ == "__main__":
    main()
