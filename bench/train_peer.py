#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""PyTorch peer of `poslab train`: the same tiny decoder-only transformer and recipe, on the CPU.

Model: token embedding (vocab + 4 specials), 2 pre-LayerNorm blocks of width 64 with 4 heads, causal attention with
RoPE (rotate_half pairs, theta 10000, as Hugging Face apply_rotary_pos_emb), MLP 4x width with GELU (tanh), final
LayerNorm, untied output. Init N(0, 0.02), residual projections 0.02/sqrt(2 layers). AdamW lr 3e-3, weight decay 0.01,
betas (0.9, 0.999). Task: copy, vocab 8, lengths 1..10 per sequence, batch 64, right padding, loss on the answer
tokens only. Prints ms per step (median after 5 warm-up steps) and the training seconds until exact match at length
10 reaches 95% (checked every 25 steps on 256 sequences; check time excluded), as poslab train-bench does.

Usage: bench/train_peer.py [--steps N] [--seconds T] [--threads 2] [--lr-schedule constant|cosine]
Needs Debian's python3-torch (apt-get install python3-torch)."""
import argparse
import math
import random
import statistics
import sys
import time

try:
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
except ImportError:
    print("train_peer.py: PyTorch not found (apt-get install python3-torch); nothing timed")
    sys.exit(0)

V, SEP, PAD = 8, 8, 11
VOCAB = V + 4


def rope_tables(T, hd, theta=10000.0):
    inv = 1.0 / theta ** (torch.arange(0, hd, 2).float() / hd)
    ang = torch.outer(torch.arange(T).float(), inv)
    emb = torch.cat([ang, ang], dim=-1)
    return emb.cos(), emb.sin()


def rotate_half(x):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
    return torch.cat([-x2, x1], dim=-1)


class Block(nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.h = h
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.o = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.fc1, self.fc2 = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

    def forward(self, x, cos, sin):
        B, T, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=-1)
        q, k, v = (t.view(B, T, self.h, d // self.h).transpose(1, 2) for t in (q, k, v))
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        s = (q @ k.transpose(-1, -2)) / math.sqrt(d // self.h)
        s = s.masked_fill(torch.triu(torch.ones(T, T, dtype=torch.bool), 1), float("-inf"))
        a = (s.softmax(-1) @ v).transpose(1, 2).reshape(B, T, d)
        x = x + self.o(a)
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x)), approximate="tanh"))


class Model(nn.Module):
    def __init__(self, d=64, h=4, layers=2):
        super().__init__()
        self.h = h
        self.wte = nn.Embedding(VOCAB, d)
        self.blocks = nn.ModuleList(Block(d, h) for _ in range(layers))
        self.lnf = nn.LayerNorm(d)
        self.out = nn.Linear(d, VOCAB, bias=False)
        for n, p in self.named_parameters():
            if p.dim() == 2:
                std = 0.02 / math.sqrt(2 * layers) if (n.endswith("o.weight") or n.endswith("fc2.weight")) else 0.02
                nn.init.normal_(p, 0.0, std)
            elif "ln" not in n:
                nn.init.zeros_(p)

    def forward(self, idx):
        T = idx.shape[1]
        cos, sin = rope_tables(T, self.wte.embedding_dim // self.h)
        x = self.wte(idx)
        for b in self.blocks:
            x = b(x, cos, sin)
        return self.out(self.lnf(x))


def batch(rng, n, length=None, L=10):
    seqs = []
    for _ in range(n):
        m = length or rng.randint(1, L)
        x = [rng.randrange(V) for _ in range(m)]
        seqs.append(x + [SEP] + x)
    T = max(len(s) for s in seqs) - 1
    idx = torch.full((n, T), PAD, dtype=torch.long)
    tgt = torch.full((n, T), -100, dtype=torch.long)
    for i, s in enumerate(seqs):
        m = (len(s) - 1) // 2
        idx[i, : len(s) - 1] = torch.tensor(s[:-1])
        tgt[i, m: len(s) - 1] = torch.tensor(s[m + 1:])
    return idx, tgt


def exact(model, rng, L=10, n=256):
    with torch.no_grad():
        idx, tgt = batch(rng, n, L)
        pred = model(idx).argmax(-1)
        ok = ((pred == tgt) | (tgt == -100)).all(-1)
        return ok.float().mean().item()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=100000)
    ap.add_argument("--seconds", type=float, default=120.0)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--lr-schedule", choices=["constant", "cosine"], default="constant")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    rng, erng = random.Random(a.seed), random.Random(a.seed + 1000)
    model = Model()
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=a.steps) if a.lr_schedule == "cosine" else None
    times, cpu, trained, to95 = [], [], 0.0, None
    for step in range(1, a.steps + 1):
        idx, tgt = batch(rng, 64)
        t0, c0 = time.perf_counter(), time.process_time()
        loss = F.cross_entropy(model(idx).reshape(-1, VOCAB), tgt.reshape(-1), ignore_index=-100)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if sched:
            sched.step()
        dt = time.perf_counter() - t0
        trained += dt
        times.append(dt)
        cpu.append(time.process_time() - c0)
        if step % 25 == 0:
            e = exact(model, erng)
            print(f"step {step} loss {loss.item():.4f} exact@10 {e:.3f} {trained:.1f} s", file=sys.stderr)
            if e >= 0.95:
                to95 = trained
                break
        if trained >= a.seconds:
            break
    print(f"peer_train_step_ms {1000 * statistics.median(times[5:] or times):.3f}")
    print(f"peer_train_step_cpu_ms {1000 * statistics.median(cpu[5:] or cpu):.3f}")
    print(f"peer_train_seconds_to_95 {to95 if to95 is not None else 'null'}")


if __name__ == "__main__":
    main()
