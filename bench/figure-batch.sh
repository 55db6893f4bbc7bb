#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The fixed reference batch: every view x several schemes x sizes x themes as PNG and SVG, and the data
# behind them as CSV and JSON, exported in one `poslab export --batch` run. It exists so that a change
# meant to keep behaviour (a refactor) can prove it did: every file byte for byte, and every refusal message.
#
#   bench/figure-batch.sh [--poslab BIN] write DIR    export the batch into DIR and write DIR/manifest.sha256
#   bench/figure-batch.sh [--poslab BIN] check        export into a temporary folder and compare with the
#                                                     committed bench/figure-batch.sha256 (exit 1 on any difference,
#                                                     listing each file that differs, is new, or is missing)
#   bench/figure-batch.sh [--poslab BIN] update       rewrite bench/figure-batch.sha256 from this build
#
# BIN defaults to build/app/poslab. The manifest holds one line per file (sha256 and name) and one line per
# batch message (the "entry N (FILE): problem" lines), so a refusal that changes shows too.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
poslab="$root/build/app/poslab"
if [ "${1:-}" = --poslab ]; then poslab="$(realpath "$2")"; shift 2; fi
mode="${1:-}"
reference="$here/figure-batch.sha256"

deck() {
    # The deck: written by a small generator so the matrix reads as a matrix.
    # The run file is named relative to the deck (export_batch copies it there): a figure of the length lab
    # names its run file, so an absolute path would make the manifest depend on where the checkout lies.
    /usr/bin/python3 - "$1" "figure-batch-run.json" <<'PY'
import json, sys
schemes = ["nope", "sinusoidal", "learned", "shaw", "transformer_xl", "t5", "deberta", "alibi", "kerple",
           "fire", "sandwich", "rope", "xpos", "cope", "irope"]
views = ["table", "clock", "rotation", "decay", "attention", "extension", "buckets", "precision", "pipeline",
         "families", "lengthlab"]
figures = []
# 1. Every view x every scheme, PNG: light at the default size, and dark at projector size, font scale 2.
run = sys.argv[2]
for v in views:
    for s in (schemes if v != "lengthlab" else ["rope"]):   # the length lab draws its run file, whatever the scheme
        figures.append({"view": v, "scheme": s, "output": f"png/{v}-{s}.png"})
        figures.append({"view": v, "scheme": s, "size": "1366x768", "theme": "dark", "font_scale": 2,
                        "output": f"png/{v}-{s}-projector.png"})
# 2. Every view x four schemes and a scaled RoPE, SVG, dark, projector size at font scale 2.
extra = [("rope", {}), ("t5", {}), ("alibi", {}), ("sinusoidal", {}),
         ("rope-yarn", {"rope_type": "yarn", "factor": 4})]
for v in views:
    for name, sets in (extra if v != "lengthlab" else extra[:1]):
        e = {"view": v, "scheme": name.split("-")[0], "size": "1366x768", "theme": "dark", "font_scale": 2,
             "output": f"svg/{v}-{name}.svg"}
        if sets:
            e["set"] = sets
        figures.append(e)
# 3. Slide sizes: 1280x720 and 1920x1080 PNG, light and dark, for the five workbench views.
for v in ["table", "clock", "rotation", "decay", "attention"]:
    for size, theme, fs in [("1280x720", "light", 1.5), ("1920x1080", "dark", 1)]:
        figures.append({"view": v, "scheme": "rope", "size": size, "theme": theme, "font_scale": fs,
                        "output": f"slides/{v}-{size}-{theme}.png"})
# 4. The numbers behind the views: CSV and JSON.
for v in ["table", "clock", "decay", "attention", "extension", "buckets", "precision", "pipeline"]:
    for s in ["rope", "t5", "alibi", "sinusoidal"]:
        for fmt in ["csv", "json"]:
            figures.append({"view": v, "scheme": s, "positions": 128, "output": f"data/{v}-{s}.{fmt}"})
# 5. Softmax attention and a sentence, and a lesson step's state.
for s in ["rope", "alibi", "nope", "t5"]:
    figures.append({"view": "attention", "scheme": s, "softmax": True, "content": "the cat sat on the mat",
                    "output": f"attention/{s}-softmax.png"})
for step in ["2.1", "8.2", "12.2"]:
    for v in ["clock", "decay", "extension"]:
        figures.append({"view": v, "lesson": step, "output": f"lessons/{step}-{v}.png"})
for f in figures:
    if f["view"] == "lengthlab":
        f["run"] = run   # a fixed run file (bench/figure-batch-run.json: nope, alibi, rope; 30 steps, seeds 1 and 2)
json.dump({"figures": figures}, open(sys.argv[1], "w"), indent=1)
PY
}

export_batch() {
    local dir="$1"
    mkdir -p "$dir"
    deck "$dir/deck.json"
    cp "$here/figure-batch-run.json" "$dir/figure-batch-run.json"
    (cd "$dir" && mkdir -p png svg slides data attention lessons)
    # Messages name the deck's folder; strip it so the manifest does not depend on where it ran.
    # POSLAB_KERNEL=generic: the attention kernels for AVX2 and AVX-512 sum in other orders, so their last bits
    # (and the data files of the attention and pipeline views) depend on the machine; the generic kernel is the
    # same code on every x86-64 machine, so the manifest holds wherever the batch runs.
    (cd "$dir" && QT_QPA_PLATFORM=offscreen POSLAB_KERNEL=generic "$poslab" export --batch "$dir/deck.json" >stdout.txt 2>stderr.txt) || true
    (cd "$dir" && find . -type f ! -name deck.json ! -name figure-batch-run.json ! -name stdout.txt ! -name stderr.txt ! -name manifest.sha256 \
        -printf '%P\n' | LC_ALL=C sort | xargs -d '\n' sha256sum) >"$dir/manifest.sha256"
    sed "s#$dir/##g" "$dir/stderr.txt" | LC_ALL=C sort | sed 's/^/message  /' >>"$dir/manifest.sha256"
    echo "figure batch: $(grep -vc '^message' "$dir/manifest.sha256") files, $(grep -c '^message' "$dir/manifest.sha256" || true) messages in $dir" >&2
}

case "$mode" in
write)
    [ $# -eq 2 ] || { echo "usage: $0 [--poslab BIN] write DIR" >&2; exit 2; }
    export_batch "$(realpath -m "$2")" ;;
update)
    tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
    export_batch "$tmp"
    cp "$tmp/manifest.sha256" "$reference" ;;
check)
    tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
    export_batch "$tmp"
    if diff -u "$reference" "$tmp/manifest.sha256" >"$tmp/diff.txt"; then
        echo "figure batch: byte-identical to $reference"
    else
        echo "figure batch: differs from $reference (- reference, + this build):"
        grep '^[-+][^-+]' "$tmp/diff.txt"
        exit 1
    fi ;;
*)
    echo "usage: $0 [--poslab BIN] write DIR | check | update" >&2; exit 2 ;;
esac
