#!/bin/sh
# SPDX-License-Identifier: MIT
# Times whole-process `poslab export` against the numpy + matplotlib peer scripts: the median of
# 5 runs each, and the ratio peer / poslab (the issue asks for at least 4).
# Usage: bench/compare.sh [BUILD_DIR]   (default: build). Needs /usr/bin/python3 with numpy and matplotlib
# (Debian: apt-get install python3-matplotlib); without them it says so and exits 0.
#
#        bench/compare.sh scores [RUNS] [BUILD_DIR]   (default 5 runs)
# The attention-score figures instead: RUNS rounds, each one `poslab bench --json` process then one
# `peer_attention.py --scores` process (numpy on OpenBLAS: Debian's python3-numpy and libopenblas0-pthread), in
# turn, so that both see the same machine; prints each round's scores_4096_ms and scores_4096_causal_ms, the ratios
# poslab / numpy, the load average, and the medians. The peer runs with OPENBLAS_L2_SIZE unset and
# OPENBLAS_CORETYPE=SkylakeX (OpenBLAS 0.3.21 takes a virtual Xeon for a "Prescott" and picks its slow kernel);
# poslab runs in the environment as given.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
py=/usr/bin/python3
if [ "${1:-}" = scores ]; then
    runs=${2:-5}
    build=${3:-$here/../build}
    if ! "$py" -c 'import numpy' 2>/dev/null; then
        echo "compare.sh: numpy not found for $py (apt-get install python3-numpy libopenblas0-pthread); nothing timed"
        exit 0
    fi
    [ -x "$build/app/poslab" ] || { echo "compare.sh: no poslab binary in $build/app" >&2; exit 2; }
    figure() { sed -n "s/^ *\"$1\": *\([0-9.eE+-]*\),*$/\1/p"; } # a value of poslab bench --json
    peer() { sed -n "s/^$1 \([0-9.]*\) .*/\1/p"; }                 # a value of the peer's output
    list=""
    i=1
    while [ "$i" -le "$runs" ]; do
        load=$(cut -d' ' -f1 /proc/loadavg)
        out=$("$build/app/poslab" bench --json 2>/dev/null)
        pf=$(echo "$out" | figure scores_4096_ms)
        pc=$(echo "$out" | figure scores_4096_causal_ms)
        out=$(env -u OPENBLAS_L2_SIZE OPENBLAS_CORETYPE=SkylakeX "$py" "$here/peer_attention.py" --scores)
        nf=$(echo "$out" | peer scores_4096_ms)
        nc=$(echo "$out" | peer scores_4096_causal_ms)
        rf=$(echo "$pf / $nf" | bc -l)
        rc=$(echo "$pc / $nc" | bc -l)
        printf 'run %d  load %s  scores_4096_ms poslab %7.2f numpy %7.2f ratio %.3f   causal poslab %7.2f numpy %7.2f ratio %.3f\n' \
            "$i" "$load" "$pf" "$nf" "$rf" "$pc" "$nc" "$rc"
        list="$list$rf $rc
"
        i=$((i + 1))
    done
    printf '%s' "$list" | sort -g -k1,1 | awk -v n="$runs" 'NR == int((n + 1) / 2) { printf "median ratio, plain: %.3f\n", $1 }'
    printf '%s' "$list" | sort -g -k2,2 | awk -v n="$runs" 'NR == int((n + 1) / 2) { printf "median ratio, causal: %.3f\n", $2 }'
    exit 0
fi
build=${1:-$here/../build}
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
