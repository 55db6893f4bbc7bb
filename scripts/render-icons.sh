#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Re-renders the hicolor PNG sizes of the application and session-file icons from their SVGs with QtSvg
# (a tiny program in scripts/render-icons/, built in a temporary folder). The PNGs are committed, so the
# build needs none of this; run it after editing an SVG in resources/icons/.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake -S scripts/render-icons -B "$work" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$work" >/dev/null
export QT_QPA_PLATFORM=offscreen
icons=resources/icons
for size in 16 22 24 32 48 64 128 256 512; do
  mkdir -p "$icons/hicolor/${size}x${size}/apps" "$icons/hicolor/${size}x${size}/mimetypes"
  "$work/render-icons" "$icons/io.github.poslab.PosLab.svg" "$size" \
    "$icons/hicolor/${size}x${size}/apps/io.github.poslab.PosLab.png"
  "$work/render-icons" "$icons/application-x-poslab-session.svg" "$size" \
    "$icons/hicolor/${size}x${size}/mimetypes/application-x-poslab-session.png"
done
echo "rendered sizes 16 to 512 of both icons into $icons/hicolor"
