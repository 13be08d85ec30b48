"""What the benchmark scripts share: running kk3tune with a log of every command, and reading
the results of `kk3tune time --json`."""
import json
import os
import subprocess


class Kk3tune:
    """Runs the kk3tune binary ($KK3TUNE, else build/kk3tune), appending each command line to
    OUTDIR/commands.txt so the results can be reproduced."""

    def __init__(self, out_dir, append=False):
        self.binary = os.environ.get("KK3TUNE", "build/kk3tune")
        self.log = open(os.path.join(out_dir, "commands.txt"), "a" if append else "w")

    def __call__(self, *args):
        cmd = [self.binary, *map(str, args)]
        self.log.write(" ".join(cmd) + "\n")
        self.log.flush()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)


def results(path):
    """The measurements of a `kk3tune time --json` file, by variant id."""
    with open(path) as f:
        return {r["variant"]: r for r in json.load(f)["results"]}


def median(result):
    """The median time per call of one measurement, in microseconds."""
    return result["statistics"]["median_us"]
