#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# The peer of `poslab export attention --scheme rope --positions 1024 --softmax`: random q, k (head dim
# 128), RoPE (Su et al. 2021, eq. 34) on both, causal softmax(q k^T / sqrt(d)), a 1200 x 1000 PNG heatmap.
import sys
import numpy as np
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

out = sys.argv[1] if len(sys.argv) > 1 else "peer_attention.png"
n, d = 1024, 128
rng = np.random.default_rng(0)
q = rng.standard_normal((n, d))
k = rng.standard_normal((n, d))
theta = 10000.0 ** (-np.arange(0, d, 2) / d)
ang = np.arange(n)[:, None] * theta[None, :]
cos, sin = np.cos(ang), np.sin(ang)

def rope(x):
    x1, x2 = x[:, 0::2], x[:, 1::2]
    y = np.empty_like(x)
    y[:, 0::2] = x1 * cos - x2 * sin
    y[:, 1::2] = x1 * sin + x2 * cos
    return y

logits = rope(q) @ rope(k).T / np.sqrt(d)
logits[np.triu_indices(n, 1)] = -np.inf
logits -= logits.max(axis=1, keepdims=True)
p = np.exp(logits)
p /= p.sum(axis=1, keepdims=True)
p[np.triu_indices(n, 1)] = np.nan

fig, ax = plt.subplots(figsize=(12, 10), dpi=100)
im = ax.imshow(p, cmap="viridis", vmin=0, vmax=np.nanpercentile(p, 99), interpolation="nearest")
ax.set_xlabel("key position")
ax.set_ylabel("query position")
ax.set_title("rope: softmax attention, causal")
fig.colorbar(im, ax=ax)
fig.savefig(out, dpi=100)
