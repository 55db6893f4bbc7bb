#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Function lengths in C++ sources, for the house-keeping figures (functions over 80 and 150 lines).

A function is a definition that starts at column 0 (the tree's style: `Type Class::name(...)` then `{` at column
0 or at the end of the signature) and ends at the next `}` at column 0; its length counts the lines from its
signature's first line to that brace. Usage: scripts/function-sizes.py [--over N] DIR...
"""
import os
import re
import sys


def functions(path):
    lines = open(path, encoding="utf-8", errors="replace").read().split("\n")
    out = []
    start = None
    sig = None
    for i, line in enumerate(lines):
        if start is None:
            if line.startswith("{") and i > 0:
                # signature: walk back to the first line of the declaration (a non-indented line)
                j = i - 1
                while j > 0 and (lines[j].startswith(" ") or lines[j].startswith("\t")):
                    j -= 1
                text = lines[j]
                if "(" in text and not re.match(r"^(namespace|struct|class|enum|union|extern)\b", text) \
                        and not text.rstrip().endswith(("=", ";")):
                    start, sig = j, text.strip()
        elif line.startswith("}"):
            out.append((i - start + 1, start + 1, sig))
            start = None
    return out


def main(argv):
    over = 80
    if len(argv) > 1 and argv[0] == "--over":
        over = int(argv[1])
        argv = argv[2:]
    rows = []
    for root in argv:
        for d, _, files in os.walk(root):
            for f in files:
                if f.endswith(".cpp"):
                    p = os.path.join(d, f)
                    rows += [(n, p, line, sig) for n, line, sig in functions(p)]
    rows.sort(reverse=True)
    for n, p, line, sig in rows:
        if n > over:
            print(f"{n:5d}  {p}:{line}  {sig[:90]}")
    print(f"functions over 80 lines: {sum(1 for r in rows if r[0] > 80)}; over 150: "
          f"{sum(1 for r in rows if r[0] > 150)}; functions read: {len(rows)}")


if __name__ == "__main__":
    main(sys.argv[1:])
