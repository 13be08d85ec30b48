"""What the house's source checks (scripts/house-sizes, scripts/house-names) share: the sources of
a folder and their text with the raw string literals emptied."""
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RAW_STRING = re.compile(r'R"([^(\s]*)\(')


def sources(*folders, endings=(".cpp", ".hpp", ".cuh")):
    """The files of `folders` (relative to the checkout) whose names end in `endings`."""
    for folder in folders:
        for base, _, names in os.walk(os.path.join(ROOT, folder)):
            for name in sorted(names):
                if name.endswith(endings):
                    yield os.path.relpath(os.path.join(base, name), ROOT)


def code_of(path):
    """The text of `path` with the inside of each raw string literal emptied but for its line
    breaks (the header templates of src/codegen): a brace or a type there is not the tool's, and
    every line keeps its number."""
    with open(os.path.join(ROOT, path)) as f:
        text = f.read()
    out, i = [], 0
    for m in RAW_STRING.finditer(text):
        if m.start() < i:
            continue
        end = text.find(")" + m.group(1) + '"', m.end())
        if end < 0:
            break
        out.append(text[i:m.end()])
        out.append("\n" * text.count("\n", m.end(), end))
        i = end
    out.append(text[i:])
    return "".join(out)
