"""What the benchmark scripts share: running kk3tune with a log of every command, and reading
the results of `kk3tune time --json` and the dispatch tables of `kk3tune sweep`."""
import gzip
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


def read_sweep(path):
    """The sweep document of a `kk3tune sweep` file, .json or .json.gz (docs/sweep-result-format.md);
    ValueError for another kind of file."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        doc = json.load(f)
    if doc.get("kind") != "sweep":
        raise ValueError(f"{path} is no sweep result (kind {doc.get('kind')!r})")
    return doc


def table_range(doc, family, mode, shape, tokens):
    """The range of the sweep's dispatch table for family/mode/shape (a dict of the model dimensions)
    that the generated select(num_tokens) takes at `tokens`: the first with tokens <= max_tokens,
    else the last. None when the sweep has no such table or it has no ranges."""
    for d in doc.get("dispatch") or []:
        if d.get("family") == family and d.get("mode") == mode and dict(shape_of(d)) == shape:
            ranges = d.get("ranges") or []
            return next((r for r in ranges if tokens <= r["max_tokens"]), ranges[-1] if ranges else None)
    return None
