#!/bin/sh
# SPDX-License-Identifier: MIT
# Times whole-process `poslab export` against the numpy + matplotlib peer scripts: the median of
# 5 runs each, and the ratio peer / poslab (the issue asks for at least 4).
# Usage: bench/compare.sh [BUILD_DIR]   (default: build). Needs /usr/bin/python3 with numpy and matplotlib
# (Debian: apt-get install python3-matplotlib); without them it says so and exits 0.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build}
py=/usr/bin/python3
if ! "$py" -c 'import numpy, matplotlib' 2>/dev/null; then
    echo "compare.sh: numpy/matplotlib not found for $py (apt-get install python3-matplotlib); nothing timed"
    exit 0
fi
if [ -x "$build/app/poslab" ]; then
    poslab="$build/app/poslab export"
else
    echo "compare.sh: no poslab binary in $build/app; build the poslab target first" >&2
    exit 2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export MPLCONFIGDIR="$tmp/mpl" # a writable matplotlib cache (its font cache is built by the warm-up run)

median5() { # command...; prints the median wall time of 5 runs in seconds
    for i in 1 2 3 4 5; do
        s=$(date +%s.%N)
        "$@" >/dev/null 2>&1 || { echo "compare.sh: failed: $*" >&2; exit 1; }
        e=$(date +%s.%N)
        echo "$e - $s" | bc -l
    done | sort -g | sed -n 3p
}

compare() { # name, poslab arguments, peer script, peer output
    name=$1 args=$2 script=$3 out=$4
    $poslab $args >/dev/null 2>&1 # warm-up: page cache, font caches
    "$py" "$here/$script" "$tmp/$out" >/dev/null 2>&1
    tp=$(median5 $poslab $args)
    tq=$(median5 "$py" "$here/$script" "$tmp/$out")
    printf '%-44s poslab %7.3f s   numpy+matplotlib %7.3f s   ratio %5.1fx\n' "$name" "$tp" "$tq" \
        "$(echo "$tq / $tp" | bc -l)"
}

compare "(a) table 1024 x 128, PNG" \
    "table --scheme sinusoidal --dim 128 --positions 1024 --size 1200x800 -o $tmp/table.png" \
    peer_table.py peer_table.png
compare "(b) RoPE softmax attention 1024 x 1024, PNG" \
    "attention --scheme rope --dim 128 --positions 1024 --softmax --size 1200x1000 -o $tmp/attention.png" \
    peer_attention.py peer_attention.png
compare "(c) RoPE decay curve, SVG" \
    "decay --scheme rope --dim 128 --positions 1024 --size 1200x800 -o $tmp/decay.svg" \
    peer_decay.py peer_decay.svg
