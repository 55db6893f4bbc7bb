#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# The peer of `poslab export decay --scheme rope --positions 1024 -o decay.svg`: RoPE's score of q = k = 1
# against the distance k, relative to k = 0, and RoFormer's bound (1/(d/2)) sum_j |S_j| (Su et al. 2021,
# section 3.4.3), as an SVG line plot.
import sys
import numpy as np
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

out = sys.argv[1] if len(sys.argv) > 1 else "peer_decay.svg"
d = 128
ks = np.arange(1024)
theta = 10000.0 ** (-np.arange(0, d, 2) / d)
ang = ks[:, None] * theta[None, :]
score = 2 * np.cos(ang).sum(axis=1)
S = np.cumsum(np.exp(1j * ang), axis=1)
bound = np.abs(S).sum(axis=1) / (d // 2)

fig, ax = plt.subplots(figsize=(12, 8), dpi=100)
ax.plot(ks, score / score[0], label="rope: score q.k, q = k = 1")
ax.plot(ks, bound / bound[0], label="RoFormer bound")
ax.set_xlabel("distance k (tokens)")
ax.set_ylabel("relative to distance 0")
ax.set_title("Rotary position embedding (RoPE), d = 128")
ax.grid(True, alpha=0.3)
ax.legend()
fig.savefig(out)
