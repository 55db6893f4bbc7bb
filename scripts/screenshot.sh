#!/bin/sh
# SPDX-License-Identifier: MIT
# Starts PosLab under Xvfb and saves a screenshot of the main window (docs/screenshot.png by default).
# Usage: scripts/screenshot.sh [BUILD_DIR] [OUTPUT.png] [extra poslab options, e.g. --theme dark --scheme sinusoidal]
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
out=${2:-$here/docs/screenshot.png}
[ $# -ge 1 ] && shift
[ $# -ge 1 ] && shift
mkdir -p "$(dirname "$out")"
command -v xvfb-run >/dev/null 2>&1 || { echo "screenshot.sh: xvfb-run is missing (apt-get install xvfb)" >&2; exit 1; }
# A fresh settings directory, so the remembered layout of whoever runs this does not leak into the picture.
export XDG_CONFIG_HOME=$(mktemp -d)
trap 'rm -rf "$XDG_CONFIG_HOME"' EXIT
xvfb-run -a -s "-screen 0 1600x1000x24" "$build/app/poslab" --screenshot "$out" --size 1600x1000 "$@"
