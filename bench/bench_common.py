"""What the benchmark scripts share: running kk3tune with a log of every command, and reading
the results of `kk3tune time --json`."""
import json
import os
import subprocess
import time


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

    def run(self, args, output_path, timeout_s):
        """Runs one command without raising: its stdout and stderr go to output_path, and it is
        killed after timeout_s seconds. Returns (exit code, or None when it was killed; wall s)."""
        cmd = [self.binary, *map(str, args)]
        self.log.write(" ".join(cmd) + "\n")
        self.log.flush()
        start = time.monotonic()
        with open(output_path, "w") as out:
            try:
                rc = subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT, timeout=timeout_s).returncode
            except subprocess.TimeoutExpired:
                rc = None
            except OSError as e:  # no binary, not executable
                out.write(f"{e}\n")
                rc = 127
        return rc, time.monotonic() - start


def results(path):
    """The measurements of a `kk3tune time --json` file, by variant id."""
    with open(path) as f:
        return {r["variant"]: r for r in json.load(f)["results"]}


def timed_results(path):
    """The measurements of a `kk3tune time --json` file that carry a time, by variant id: records of
    variants that were skipped or failed (no statistics, no positive median) are left out."""
    return {v: r for v, r in results(path).items() if (r.get("statistics") or {}).get("median_us", 0) > 0}


def median(result):
    """The median time per call of one measurement, in microseconds."""
    return result["statistics"]["median_us"]


def shape_of(d):
    """A record's or table's model shape: "shape" (schema_version 2), or of schema_version 1's
    "heads" and "blocks" the one its family is keyed on (mla_decode_epilogue: heads)."""
    if "shape" in d:
        return tuple(d["shape"].items())
    return (("heads", d["heads"]),) if d["heads"] else (("blocks", d["blocks"]),)
