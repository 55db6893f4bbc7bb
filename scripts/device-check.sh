#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# For a machine with a real GPU (and the build packages already installed): build, run the GPU tests, and
# measure the GPU goal sizes, a 65536 x 4096 table (goal: under 2 ms) and 8192 x 8192 scores (under 5 ms).
# Prints the GPU figures of `poslab bench --json --large`. Takes a few minutes; no network needed.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-device}
for tool in cmake g++; do
  command -v "$tool" >/dev/null 2>&1 || { echo "device-check: $tool is missing on this machine" >&2; exit 1; }
done
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON >/dev/null
cmake --build "$build" -j"$(nproc)" --target poslab tst_gpucompute
QT_QPA_PLATFORM=offscreen "$build/tests/gpu/tst_gpucompute"
QT_QPA_PLATFORM=offscreen "$build/app/poslab" bench --json --large | grep -E '"(gpu|cpu)_' || true
