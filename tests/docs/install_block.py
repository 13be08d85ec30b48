#!/usr/bin/env python3
"""CTest docs.install_block: the README's Install block, followed after scripts/run-main, configures
a build whose CTest runs the whole suite (issue 44, item 1).

scripts/run-main (through scripts/build) configures `build/` with KK3_BUILD_TESTS=OFF, and CMake
keeps a cached option: a later `cmake -S . -B build ...` without it built no test, and
`ctest --test-dir build` printed "Total Tests: 0", which reads like a pass. This test configures a
fresh folder the way scripts/build does for the main job, then runs the Install block's own
`cmake -S . -B build ...` line on it (the folder renamed, nothing else changed), and requires that
`ctest -N` lists the suite: at least MIN_TESTS tests (without a build, CTest lists the tests CMake
adds itself, about 20; GoogleTest's are discovered when their binaries are built). Nothing is built.

Usage: install_block.py SOURCE_DIR [MIN_TESTS]   (exit 0 when it holds, 1 when not)
"""
import os
import re
import shlex
import subprocess
import sys
import tempfile


def install_commands(readme):
    """The `cmake -S ...` configure lines of the README's first ```sh block under '## Install'."""
    text = open(readme).read()
    section = text.split("\n## Install", 1)
    if len(section) < 2:
        raise SystemExit(f"{readme}: no '## Install' section")
    block = re.search(r"```sh\n(.*?)```", section[1], re.S)
    if not block:
        raise SystemExit(f"{readme}: no ```sh block under '## Install'")
    lines = [ln.split("#", 1)[0].strip() for ln in block.group(1).splitlines()]
    return [ln for ln in lines if ln.startswith("cmake -S")]


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    source = os.path.abspath(argv[1])
    least = int(argv[2]) if len(argv) > 2 else 10
    configure = install_commands(os.path.join(source, "README.md"))
    if not configure:
        print("README.md: the Install block has no `cmake -S . -B build ...` line", file=sys.stderr)
        return 1
    cuda = os.environ.get("CUDA_HOME", "/usr/local/cuda")
    with tempfile.TemporaryDirectory() as tmp:
        build = os.path.join(tmp, "build")
        main_job = ["cmake", "-S", source, "-B", build, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
                    f"-DCUDAToolkit_ROOT={cuda}", "-DKK3_BUILD_TESTS=OFF"]  # as scripts/build, the main job
        steps = [main_job]
        for line in configure:  # the README's line, on the same folder
            words = shlex.split(line)
            words = [build if w == "build" else source if w == "." else w for w in words]
            steps.append(words)
        for cmd in steps:
            p = subprocess.run(cmd, cwd=source, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            if p.returncode != 0:
                print(f"{' '.join(cmd)} failed:\n{p.stdout[-3000:]}", file=sys.stderr)
                return 1
        p = subprocess.run(["ctest", "--test-dir", build, "-N"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True)
        m = re.search(r"Total Tests: (\d+)", p.stdout)
        count = int(m.group(1)) if m else 0
    print(f"the README's Install block after the main job's configure: ctest lists {count} tests")
    if count < least:
        print(f"expected at least {least}: the Install block does not build the tests it runs", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
