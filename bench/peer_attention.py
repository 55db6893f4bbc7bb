#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# The peer of `poslab export attention --scheme rope --positions 1024 --softmax`: random q, k (head dim
# 128), RoPE (Su et al. 2021, eq. 34) on both, causal softmax(q k^T / sqrt(d)), a 1200 x 1000 PNG heatmap.
#
# With --scores it is instead the peer of `poslab bench`'s scores_4096_ms and scores_4096_causal_ms: in one process,
# five timed runs each (median, as poslab bench), of what those figures time: float32 N(0, 1) q and k (4096 x 128),
# RoPE at positions 0..4095 (base 10000, half-split pairs as Hugging Face's rotate_half; angles in float64, cos and sin
# rounded to float32, as PosLab's tables), and the logits q k^T / sqrt(d) into a fresh 4096 x 4096 float32 matrix
# (the scale folded into q, one pass fewer); causal: the same product, then NaN after each row's diagonal (a loop
# over rows: the fastest numpy way measured here, 8 ms against 20-60 ms for np.putmask or a np.triu mask).
# Run it as the issue says: env -u OPENBLAS_L2_SIZE OPENBLAS_CORETYPE=SkylakeX /usr/bin/python3 peer_attention.py
# --scores (OpenBLAS 0.3.21 detects this virtual Xeon as "Prescott"; the SkylakeX kernel is its fast one).
import sys
import time
import numpy as np


def scores_figures(n=4096, d=128, reps=5):
    rng = np.random.default_rng(0)
    inv_freq = 10000.0 ** (-np.arange(0, d, 2) / d)
    scale = np.float32(1.0 / np.sqrt(d))

    def run(causal):
        q = rng.standard_normal((n, d), dtype=np.float32)
        k = rng.standard_normal((n, d), dtype=np.float32)
        ang = np.arange(n)[:, None] * inv_freq[None, :]  # float64, as PosLab reduces its angles in double
        cos = np.cos(ang).astype(np.float32)
        sin = np.sin(ang).astype(np.float32)
        cos2 = np.concatenate([cos, cos], axis=1)
        sin2 = np.concatenate([-sin, sin], axis=1)
        h = d // 2

        def rope(x):  # x * cos + rotate_half(x) * sin
            return x * cos2 + np.concatenate([x[:, h:], x[:, :h]], axis=1) * sin2

        logits = (rope(q) * scale) @ rope(k).T
        if causal:
            for i in range(n - 1):
                logits[i, i + 1:] = np.nan
        return logits

    out = {}
    for causal in (False, True):
        ms = []
        run(causal)  # one untimed call first, as poslab bench
        for _ in range(reps):
            t0 = time.perf_counter()
            run(causal)
            ms.append((time.perf_counter() - t0) * 1e3)
        key = "scores_%d_causal_ms" % n if causal else "scores_%d_ms" % n
        out[key] = (sorted(ms)[len(ms) // 2], ms)
    return out


if len(sys.argv) > 1 and sys.argv[1] == "--scores":
    for key, (median, runs) in scores_figures().items():
        print("%s %.3f   (runs: %s)" % (key, median, " ".join("%.1f" % t for t in runs)))
    sys.exit(0)

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
