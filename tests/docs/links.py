#!/usr/bin/env python3
"""CTest docs.links: every link in README.md and docs/*.md stays inside the repository.

A relative link (Markdown `[text](target)` or `<a href>`) must name a file or folder that exists
in the source tree (its `#anchor`, if any, a heading of the page it names); no link may be
absolute, leave the tree (`../` above the root) or point outside it (http:, https:, file:,
mailto:). A path written as text (`../x`) must not leave the tree either. Usage: links.py SOURCE_DIR
"""
import os
import re
import sys

LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)|<a\s+href=\"([^\"]+)\"")
FENCE = re.compile(r"^\s*(```|~~~)")


def strip_code(text):
    """The text without fenced code blocks and inline code spans (links there are not links)."""
    out, fenced = [], False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
            out.append("")
            continue
        out.append("" if fenced else re.sub(r"`[^`]*`", "", line))
    return out


def anchors(path):
    """GitHub's anchors of a Markdown file's headings."""
    found = set()
    for line in strip_code(open(path, encoding="utf-8").read()):
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if m:
            a = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
            n = 1
            base = a
            while a in found:
                a = f"{base}-{n}"
                n += 1
            found.add(a)
    return found


def main():
    root = os.path.realpath(sys.argv[1])
    pages = [os.path.join(root, "README.md")]
    docs = os.path.join(root, "docs")
    pages += sorted(os.path.join(docs, f) for f in os.listdir(docs) if f.endswith(".md"))
    problems, count = [], 0
    for page in pages:
        rel_page = os.path.relpath(page, root)
        for n, line in enumerate(strip_code(open(page, encoding="utf-8").read()), 1):
            for m in LINK.finditer(line):
                target = m.group(1) or m.group(2)
                count += 1
                where = f"{rel_page}:{n}: {target}"
                if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target) or target.startswith("//"):
                    problems.append(f"{where}: links outside the repository")
                    continue
                if target.startswith("/"):
                    problems.append(f"{where}: an absolute path (use one relative to the page)")
                    continue
                path, _, anchor = target.partition("#")
                dest = os.path.realpath(os.path.join(os.path.dirname(page), path)) if path else page
                if dest != root and not dest.startswith(root + os.sep):
                    problems.append(f"{where}: leaves the repository")
                    continue
                if not os.path.exists(dest):
                    problems.append(f"{where}: no such file or folder")
                    continue
                if anchor and dest.endswith(".md") and anchor not in anchors(dest):
                    problems.append(f"{where}: no heading #{anchor} in {os.path.relpath(dest, root)}")
        # A path written as text or code (`../shared/SPEC.md`) must not point outside the tree either.
        for n, line in enumerate(open(page, encoding="utf-8").read().splitlines(), 1):
            for m in re.finditer(r"(?<![\w.])((?:\.\./)+[\w.\-/]*)", line):
                dest = os.path.realpath(os.path.join(os.path.dirname(page), m.group(1)))
                if dest != root and not dest.startswith(root + os.sep):
                    problems.append(f"{rel_page}:{n}: {m.group(1)}: a path outside the repository")
    for p in problems:
        print(f"docs.links: {p}")
    if problems:
        print(f"docs.links: {len(problems)} problem(s) in {len(pages)} pages ({count} links)")
        return 1
    print(f"docs.links: {count} links in {len(pages)} pages, every one inside the repository")
    return 0


if __name__ == "__main__":
    sys.exit(main())
