#!/usr/bin/env python3
"""CTest docs.options_documented: every subcommand and long option that `kk3tune --help` and
`kk3tune SUBCOMMAND --help` show is documented in docs/*.md.

A subcommand counts as documented where a page writes `kk3tune NAME`; an option where a page
writes `--NAME` (not as part of a longer option). Fails naming each one no page mentions.
Usage: options_documented.py KK3TUNE SOURCE_DIR
"""
import os
import re
import subprocess
import sys


def help_text(kk3, *args):
    r = subprocess.run([kk3, *args, "--help"], capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, KK3TUNE_LIBCUDA="/nonexistent/libcuda.so.1"))
    if r.returncode != 0:
        sys.exit(f"docs.options_documented: `kk3tune {' '.join(args)} --help` exited {r.returncode}: {r.stderr.strip()}")
    return r.stdout


def sections(text):
    """CLI11's help as {SECTION: [lines]} (OPTIONS:, SUBCOMMANDS:, ...)."""
    out, current = {}, None
    for line in text.splitlines():
        m = re.match(r"^([A-Za-z][A-Za-z ]+):\s*$", line)
        if m:
            current = m.group(1)
            out[current] = []
        elif current and line.strip():
            out[current].append(line)
    return out


def long_options(text):
    """Every long option in the option column of a help text (`-n,--iterations UINT ...`)."""
    found = []
    for lines in sections(text).values():
        for line in lines:
            first = line.split()[0] if line.startswith(" ") and line.strip().startswith("-") else ""
            for name in first.split(","):
                if name.startswith("--") and re.fullmatch(r"--[a-z][a-z0-9-]*", name):
                    found.append(name)
    return found


def main():
    kk3, root = sys.argv[1], sys.argv[2]
    docs = os.path.join(root, "docs")
    text = "\n".join(open(os.path.join(docs, f), encoding="utf-8").read()
                     for f in sorted(os.listdir(docs)) if f.endswith(".md"))
    top = help_text(kk3)
    subs = [line.split()[0] for line in sections(top).get("Subcommands", sections(top).get("SUBCOMMANDS", []))
            if line.startswith("  ")]
    if not subs:
        sys.exit("docs.options_documented: `kk3tune --help` lists no SUBCOMMANDS section")
    wanted = [("kk3tune --help", o) for o in long_options(top)]
    missing = []
    for sub in subs:
        if not re.search(rf"kk3tune {re.escape(sub)}(?![\w-])", text):
            missing.append(f"subcommand {sub} (no page writes `kk3tune {sub}`)")
        wanted += [(f"kk3tune {sub} --help", o) for o in long_options(help_text(kk3, sub))]
    if len(wanted) <= len(subs):
        sys.exit("docs.options_documented: found almost no options in the help texts: has their layout changed?")
    for where, option in wanted:
        if not re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", text):
            missing.append(f"option {option} (shown by `{where}`)")
    for m in dict.fromkeys(missing):
        print(f"docs.options_documented: documented nowhere in docs/: {m}")
    if missing:
        return 1
    print(f"docs.options_documented: {len(subs)} subcommands and {len(set(o for _, o in wanted))} distinct long options "
          f"({len(wanted)} in all) are each documented in docs/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
