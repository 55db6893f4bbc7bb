#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Typesets every TeX formula of the lessons (resources/lessons/L*.json, each step's "formula"), of the derivation pages
# (resources/derivations/*.json) and of the scheme
# picker (resources/formulas/schemes.json) to resources/formulas/<sha1 of the TeX>.svg with MathJax's SVG output,
# writes resources/formulas/index.json (TeX -> file) and deletes SVGs no formula uses. The SVGs are committed,
# so the build needs no Node; run this after adding or editing a formula (tst_formulas fails until you do).
#   scripts/typeset-formulas.sh           typeset what is missing or stale (quick when nothing changed)
#   scripts/typeset-formulas.sh --check   write nothing; exit 1 naming any formula without a current SVG
# Needs node and npm (Debian: apt install nodejs npm). mathjax-full is installed once into
# ${XDG_CACHE_HOME:-~/.cache}/poslab-mathjax (or $POSLAB_MATHJAX_DIR), outside the repository.
set -euo pipefail
mathjax_version=3.2.2
cd "$(dirname "$0")/.."
cache=${POSLAB_MATHJAX_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/poslab-mathjax}
for tool in node npm; do
  command -v "$tool" >/dev/null || { echo "typeset-formulas: $tool is missing (Debian: apt install nodejs npm)" >&2; exit 1; }
done
installed=$(node -e "try { console.log(require('$cache/node_modules/mathjax-full/package.json').version) } catch (e) {}")
if [ "$installed" != "$mathjax_version" ]; then
  echo "typeset-formulas: installing mathjax-full@$mathjax_version into $cache"
  mkdir -p "$cache"
  npm install --prefix "$cache" --no-audit --no-fund --save-exact "mathjax-full@$mathjax_version" >/dev/null
fi
exec node scripts/typeset-formulas.mjs "$cache" "$@"
