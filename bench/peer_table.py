#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# The peer a teacher would write for `poslab export table --scheme sinusoidal --dim 128 --positions 1024`:
# the sinusoidal encoding table (Vaswani et al. 2017, section 3.5) as a 1200 x 800 PNG with numpy + matplotlib.
import sys
import numpy as np
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

out = sys.argv[1] if len(sys.argv) > 1 else "peer_table.png"
positions, d = 1024, 128
p = np.arange(positions)[:, None]
i = np.arange(d // 2)[None, :]
angle = p / np.power(10000.0, 2 * i / d)
pe = np.empty((positions, d))
pe[:, 0::2] = np.sin(angle)
pe[:, 1::2] = np.cos(angle)

fig, ax = plt.subplots(figsize=(12, 8), dpi=100)
im = ax.imshow(pe, aspect="auto", cmap="RdBu_r", vmin=-1, vmax=1, interpolation="nearest")
ax.set_xlabel("dimension j")
ax.set_ylabel("position p")
ax.set_title("sinusoidal: PE(p, j)")
fig.colorbar(im, ax=ax)
fig.savefig(out, dpi=100)
