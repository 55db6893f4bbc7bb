#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Soak check: the real window under Xvfb with the animation playing and rope_theta sweeping, resident memory
# sampled every second (app/soak.h); fails when it grows more than 48 MiB above the warm-up's peak.
#
#   scripts/soak.sh              60 seconds (what the test run does: ctest -L soak)
#   scripts/soak.sh 1800         30 minutes, by hand
#   scripts/soak.sh --binary build/app/poslab 60
#
# Exit status 77 (CTest's skip) when xvfb-run is not installed.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
binary="$root/build/app/poslab"
seconds=60
while [ $# -gt 0 ]; do
  case "$1" in
    --binary) binary="$2"; shift 2 ;;
    -h|--help) sed -n '3,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) seconds="$1"; shift ;;
  esac
done
if ! command -v xvfb-run >/dev/null 2>&1; then
  echo "PosLab: soak check skipped: xvfb-run is not installed (Debian package xvfb; scripts/setup.sh installs it)"
  exit 77
fi
# The real window on Xvfb's X server (xcb), not the offscreen platform CTest sets for the other tests; its
# settings go to a temporary folder so a run leaves the user's alone.
unset QT_QPA_PLATFORM
config=$(mktemp -d)
trap 'rm -rf "$config"' EXIT
XDG_CONFIG_HOME="$config" exec xvfb-run -a -s "-screen 0 1600x1000x24" "$binary" --soak "$seconds"
