#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The tree's C++ follows .clang-format (clang-format 14, Debian's). `scripts/format.sh` rewrites every tracked
# .cpp and .h in place; `scripts/format.sh --check` changes nothing and lists the files that differ (the CTest
# test `format` runs it). Test data tables (QTest `_data()` functions) keep one row per line between
# `// clang-format off` and `// clang-format on`.
set -euo pipefail
cd "$(dirname "$0")/.."
formatter=${CLANG_FORMAT:-clang-format}
if ! command -v "$formatter" >/dev/null 2>&1; then
  echo "format: $formatter is not installed (Debian: apt-get install clang-format)" >&2
  exit 1
fi
if [ -d .git ] || git rev-parse --git-dir >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files '*.cpp' '*.h')
else
  mapfile -t files < <(find app core ui tests -name '*.cpp' -o -name '*.h' | sort)
fi
if [ "${1:-}" = --check ]; then
  bad=()
  for f in "${files[@]}"; do
    "$formatter" --dry-run --Werror "$f" >/dev/null 2>&1 || bad+=("$f")
  done
  if [ ${#bad[@]} -gt 0 ]; then
    echo "format: ${#bad[@]} file(s) differ from .clang-format (scripts/format.sh rewrites them):" >&2
    printf '  %s\n' "${bad[@]}" >&2
    exit 1
  fi
  echo "format: ${#files[@]} files follow .clang-format"
  exit 0
fi
"$formatter" -i "${files[@]}"
