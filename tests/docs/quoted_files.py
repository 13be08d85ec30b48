#!/usr/bin/env python3
"""CTest docs.quoted_files: a file the docs print is printed as it is (issue 44, item 7).

In README.md and docs/*.md, a fenced code block right after a line `<!-- file: PATH -->` (PATH from
the source root) must hold exactly that file's text, so a quoted plan or config cannot drift from
the one the program reads. Usage: quoted_files.py SOURCE_DIR (exit 1 naming each page, line and
file that differ, or a marker without a block).
"""
import glob
import os
import re
import sys

MARKER = re.compile(r"^<!-- file: (\S+) -->$")


def check(page, root):
    lines = open(page).read().split("\n")
    problems, quoted = [], 0
    for i, line in enumerate(lines):
        m = MARKER.match(line.strip())
        if not m:
            continue
        if i + 1 >= len(lines) or not lines[i + 1].startswith("```"):
            problems.append(f"{page}:{i + 1}: <!-- file: {m.group(1)} --> is not followed by a fenced block")
            continue
        end = next((j for j in range(i + 2, len(lines)) if lines[j].startswith("```")), None)
        if end is None:
            problems.append(f"{page}:{i + 2}: the block quoting {m.group(1)} is not closed")
            continue
        block = "\n".join(lines[i + 2:end]) + "\n"
        path = os.path.join(root, m.group(1))
        try:
            text = open(path).read()
        except OSError as e:
            problems.append(f"{page}:{i + 1}: {m.group(1)}: {e.strerror}")
            continue
        quoted += 1
        if block != text:
            problems.append(f"{page}:{i + 3}: the block differs from {m.group(1)}: print the file as it is")
    return problems, quoted


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    root = argv[1]
    pages = [os.path.join(root, "README.md")] + sorted(glob.glob(os.path.join(root, "docs", "*.md")))
    problems, quoted = [], 0
    for page in pages:
        p, n = check(page, root)
        problems += p
        quoted += n
    for p in problems:
        print(p)
    print(f"{quoted} quoted files checked in {len(pages)} pages, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
