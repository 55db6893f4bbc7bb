#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs what is missing, builds, and opens PosLab. Arguments are passed to poslab
# (e.g. scripts/run.sh compute encoding --scheme sinusoidal).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
exec build/app/poslab "$@"
