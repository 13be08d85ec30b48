#!/usr/bin/env python3
"""CTest docs.quoted_files: a file or an output the docs print is printed as it is (issue 44,
item 7).

In README.md and docs/*.md, a fenced code block right after a line
- `<!-- file: PATH -->` (PATH from the source root) must hold exactly that file's text, so a quoted
  plan or config cannot drift from the one the program reads;
- `<!-- output: ARGS -->` must hold exactly what `kk3tune ARGS` prints (stdout and stderr), run in
  the source root: the docs' example outputs are golden files the program regenerates on every
  test run; `<!-- output, last line: ARGS -->` quotes its last line only (a summary line).
Usage: quoted_files.py SOURCE_DIR [KK3TUNE] (exit 1 naming each page, line and file or command
that differ, or a marker without a block; without KK3TUNE an output marker is a problem too).
"""
import glob
import os
import re
import shlex
import subprocess
import sys

MARKER = re.compile(r"^<!-- (file|output|output, last line): (.+?) -->$")


def output_of(kk3tune, args, root, last_line):
    """What `kk3tune ARGS` prints in the source root, or None with the reason."""
    if not kk3tune:
        return None, "no kk3tune binary given to check it against"
    run = subprocess.run([kk3tune] + shlex.split(args), cwd=root, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, timeout=60)
    text = run.stdout
    if last_line:
        text = text.rstrip("\n").split("\n")[-1] + "\n"
    return text, None


def check(page, root, kk3tune=None):
    lines = open(page).read().split("\n")
    problems, quoted = [], 0
    for i, line in enumerate(lines):
        m = MARKER.match(line.strip())
        if not m:
            continue
        kind, what = m.group(1), m.group(2)
        if i + 1 >= len(lines) or not lines[i + 1].startswith("```"):
            problems.append(f"{page}:{i + 1}: <!-- {kind}: {what} --> is not followed by a fenced block")
            continue
        end = next((j for j in range(i + 2, len(lines)) if lines[j].startswith("```")), None)
        if end is None:
            problems.append(f"{page}:{i + 2}: the block quoting {what} is not closed")
            continue
        block = "\n".join(lines[i + 2:end]) + "\n"
        if kind == "file":
            try:
                text = open(os.path.join(root, what)).read()
            except OSError as e:
                problems.append(f"{page}:{i + 1}: {what}: {e.strerror}")
                continue
            told = f"the block differs from {what}: print the file as it is"
        else:
            text, why = output_of(kk3tune, what, root, kind != "output")
            if text is None:
                problems.append(f"{page}:{i + 1}: `kk3tune {what}`: {why}")
                continue
            told = f"the block differs from what `kk3tune {what}` prints now:\n{text}"
        quoted += 1
        if block != text:
            problems.append(f"{page}:{i + 3}: {told}")
    return problems, quoted


def main(argv):
    if len(argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        return 2
    root = argv[1]
    kk3tune = os.path.abspath(argv[2]) if len(argv) == 3 else None
    pages = [os.path.join(root, "README.md")] + sorted(glob.glob(os.path.join(root, "docs", "*.md")))
    problems, quoted = [], 0
    for page in pages:
        p, n = check(page, root, kk3tune)
        problems += p
        quoted += n
    for p in problems:
        print(p)
    print(f"{quoted} quoted files and outputs checked in {len(pages)} pages, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
