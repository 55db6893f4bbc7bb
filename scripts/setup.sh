#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Shared set-up for run.sh and test.sh: installs missing Debian packages (as root, via apt-get), then
# configures and builds PosLab in ./build. Quick when everything is already there. `--no-build` stops after
# the packages (scripts/test.sh --sanitize builds elsewhere).
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake g++ make qt6-base-dev qt6-charts-dev qt6-svg-dev libqt6opengl6-dev libeigen3-dev libgl-dev
          libegl-dev libegl-mesa0 libgl1-mesa-dri libgif-dev zlib1g-dev xvfb xauth
          desktop-file-utils appstream dpkg-dev
          clang libclang-rt-14-dev    # the fuzz targets (scripts/fuzz.sh): clang++ and libFuzzer
          clang-format                # the format test (scripts/format.sh --check)
          locales)                    # the locale tests (tst_cli_locale, tst_locale): localedef and its sources
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "PosLab: installing missing Debian packages: ${missing[*]}"
  if [ "$(id -u)" -eq 0 ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
  elif command -v sudo >/dev/null 2>&1; then
    sudo apt-get update -qq
    sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
  else
    echo "PosLab: these packages are missing and this user is not root (and there is no sudo): ${missing[*]}" >&2
    exit 1
  fi
fi

# The locale tests run poslab under a comma-decimal locale (de_DE, fr_FR) and Turkish (dotted and dotless i);
# each is generated once (a few seconds), then found by `locale -a` (which spells UTF-8 as utf8).
have_locales=$(locale -a 2>/dev/null || true)
for l in de_DE fr_FR tr_TR; do
  grep -qix "$l.utf-\{0,1\}8" <<<"$have_locales" && continue
  echo "PosLab: generating the locale $l.UTF-8 (the locale tests)"
  if [ "$(id -u)" -eq 0 ]; then
    localedef -i "$l" -c -f UTF-8 "$l.UTF-8"
  elif command -v sudo >/dev/null 2>&1; then
    sudo localedef -i "$l" -c -f UTF-8 "$l.UTF-8"
  else
    echo "PosLab: cannot generate $l.UTF-8 as this user (not root, no sudo); the locale tests will skip it" >&2
  fi
done

if [ "${1:-}" = --no-build ]; then
  exit 0
fi
jobs=$(nproc 2>/dev/null || echo 2)
if [ ! -f build/CMakeCache.txt ]; then
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
# Quiet when it works; the last lines of the log when it does not.
echo "PosLab: building in build/ (log: build/build.log)"
if ! cmake --build build -j"$jobs" >build/build.log 2>&1; then
  tail -n 60 build/build.log >&2
  echo "PosLab: the build failed; the whole log is build/build.log" >&2
  exit 1
fi
