#!/usr/bin/env python3
"""Validates every kind of JSON kk3tune writes against results/schema/kk3tune-result.schema.json
(JSON Schema draft 2020-12), with python3-jsonschema (scripts/install-deps --tests installs it):

- fresh output of this build: an untimed sweep (`kk3tune sweep` with no driver), `kk3tune
  compare --format json`, and the time and sweep writers fed made-up measurements
  (kk3_write_result_samples: `time` itself needs a GPU);
- committed results: the H200 sweeps and a choice of time results (both layouts, chain timing,
  a gzipped one), and the compare fixtures;
- and, so that the schema is known to bite, files it must reject.

  validate_results.py SOURCE_DIR KK3TUNE SAMPLE_WRITER
"""
import copy
import glob
import gzip
import json
import os
import subprocess
import sys
import tempfile

try:
    import jsonschema
    from jsonschema import Draft202012Validator
except ImportError:
    print("FAIL: the Python module jsonschema is missing; scripts/install-deps --tests installs it "
          "(Debian package python3-jsonschema)")
    sys.exit(1)


def pointer(path):
    return "/" + "/".join(str(p) for p in path)


def errors_of(validator, doc):
    """The most specific errors, each as 'POINTER: message'."""
    out = []
    for e in sorted(validator.iter_errors(doc), key=lambda e: list(map(str, e.absolute_path))):
        best = jsonschema.exceptions.best_match([e])
        out.append(f"{pointer(best.absolute_path)}: {best.message[:300]}")
    return out


def main():
    source, kk3tune, writer = sys.argv[1:4]
    schema_file = os.path.join(source, "results", "schema", "kk3tune-result.schema.json")
    with open(schema_file) as f:
        schema = json.load(f)
    Draft202012Validator.check_schema(schema)
    validator = Draft202012Validator(schema)
    failures = []
    checked = 0

    def check(name, doc):
        nonlocal checked
        checked += 1
        errs = errors_of(validator, doc)
        if errs:
            failures.append(f"{name}: " + "; ".join(errs[:5]))
        else:
            print(f"ok  {name}")

    def check_file(path, label=None):
        with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
            check(label or os.path.relpath(path, source), json.load(f))

    def must_reject(name, doc):
        nonlocal checked
        checked += 1
        if validator.is_valid(doc):
            failures.append(f"{name}: the schema accepted it, but it must reject it")
        else:
            print(f"ok  {name} (rejected, as it must be)")

    with tempfile.TemporaryDirectory(prefix="kk3schema.") as tmp:
        # Fresh output of this build.
        env = dict(os.environ, KK3TUNE_LIBCUDA="/nonexistent/libcuda.so.1")
        untimed = os.path.join(tmp, "untimed-sweep.json")
        r = subprocess.run([kk3tune, "sweep", "--config",
                            os.path.join(source, "tests", "fixtures", "sweep", "small-plan.json"),
                            "--out", untimed, "--cache-dir", os.path.join(tmp, "cache")],
                           env=env, capture_output=True, text=True)
        if r.returncode != 3 or not os.path.exists(untimed):
            failures.append(f"kk3tune sweep without a GPU exited {r.returncode} (expected 3) "
                            f"and wrote {'a' if os.path.exists(untimed) else 'no'} file: {r.stderr[-2000:]}")
        else:
            check_file(untimed, "kk3tune sweep (no GPU)")
            with open(untimed) as f:
                doc = json.load(f)
            if not doc["plan"].get("shipped") or "grid_ctas" not in doc["records"][0]:
                failures.append("kk3tune sweep (no GPU): no plan.shipped or no grid_ctas "
                                "(the marks of what ships and the grids at the plan's counts)")
            else:
                bad = copy.deepcopy(doc); bad["records"][0]["grid_ctas"] = {"T1": 4}
                must_reject("an untimed record's grid_ctas keyed by something else than a count", bad)
                bad = copy.deepcopy(doc); bad["plan"]["shipped"]["timed_archs"] = "sm_90a"
                must_reject("plan.shipped.timed_archs as a string", bad)
                bad = copy.deepcopy(doc)
                bad["records"][0]["resources"][0]["ships"] = [{"min_tokens": 0, "max_tokens": 4}]
                must_reject("a shipped range from 0 tokens", bad)

        r = subprocess.run([writer, tmp], capture_output=True, text=True)
        if r.returncode != 0:
            failures.append(f"{writer} exited {r.returncode}: {r.stderr[-2000:]}")
        for path in r.stdout.split():
            check_file(path, "writer: " + os.path.basename(path))

        fixtures = os.path.join(source, "tests", "fixtures", "compare")
        pairs = [("time-base.json", "time-slow.json"), ("time-base.json", "time-noise.json"),
                 ("sweep-base.json", "sweep-verify.json"), ("sweep-base.json", "sweep-slow.json"),
                 ("sweep-base.json", "sweep-noise.json")]
        for base, new in pairs:
            r = subprocess.run([kk3tune, "compare", os.path.join(fixtures, base),
                                os.path.join(fixtures, new), "--format", "json"],
                               capture_output=True, text=True)
            if r.returncode not in (0, 1):
                failures.append(f"kk3tune compare {base} {new} exited {r.returncode}: {r.stderr}")
                continue
            check(f"kk3tune compare --format json {base} {new}", json.loads(r.stdout))
        # A verified variant that NEW records as unlaunchable: a verification regression.
        with open(os.path.join(fixtures, "sweep-base.json")) as f:
            unlaunchable = json.load(f)
        rec = next(r for r in unlaunchable["records"] if r["status"] == "ok" and not r["reference"])
        rec.update(status="unlaunchable", verification=None, statistics=None, samples_us=[],
                   reason="unlaunchable at T1-H16: 2048 threads per CTA, but the kernel can have at most 1024")
        unlaunchable_file = os.path.join(tmp, "sweep-unlaunchable.json")
        with open(unlaunchable_file, "w") as f:
            json.dump(unlaunchable, f)
        check("a sweep with an unlaunchable record", unlaunchable)
        r = subprocess.run([kk3tune, "compare", os.path.join(fixtures, "sweep-base.json"), unlaunchable_file,
                            "--format", "json"], capture_output=True, text=True)
        if r.returncode != 1:
            failures.append(f"kk3tune compare sweep-base.json sweep-unlaunchable.json exited {r.returncode} "
                            f"(expected 1: a verification regression): {r.stderr}")
        else:
            check("kk3tune compare --format json (ok, then unlaunchable)", json.loads(r.stdout))
        r = subprocess.run([kk3tune, "compare", untimed, untimed, "--format", "json"],
                           capture_output=True, text=True)
        if os.path.exists(untimed) and (r.returncode != 2 or "is an untimed sweep" not in r.stderr):
            failures.append(f"kk3tune compare of two untimed sweeps exited {r.returncode} "
                            f"(expected 2: an untimed sweep has nothing to compare): {r.stderr}")

    # Committed results.
    h200 = os.path.join(source, "results", "h200")
    committed = sorted(glob.glob(os.path.join(h200, "sweep-families-2026-11-29", "*.json")))
    committed += [os.path.join(h200, p) for p in (
        "mla-bench-2026-11-29/bf16/chain-bf16-H8-T64.json",
        "mla-bench-2026-11-29/bf16/chain-bf16-H8-T8.json",
        "mla-bench-2026-11-29/bf16/graph-bf16-H16-T64.json.gz",
        "measure-engine-2026-11-29/repeat1-T8.json",
        "isolated-overhead-2026-11-29/cold-T64.json",
        "attn_res-323-2026-11-29/bench/copy.json",
        "chain-2026-12-01/sweep2.json.gz",  # schema 3, chain objective, --baseline with the noise floor
        "objective-2026-12-01/call4-time-bf16-T1.json.gz")]
    committed += [p for p in sorted(glob.glob(os.path.join(source, "tests", "fixtures", "compare", "*.json")))
                  if not p.endswith(("-v4.json", "-truncated.json"))]
    for path in committed:
        if not os.path.exists(path):
            failures.append(f"{os.path.relpath(path, source)}: missing")
            continue
        check_file(path)

    # The schema bites.
    with open(os.path.join(source, "tests", "fixtures", "compare", "sweep-base.json")) as f:
        sweep = json.load(f)
    with open(os.path.join(source, "tests", "fixtures", "compare", "time-base.json")) as f:
        time = json.load(f)
    bad = copy.deepcopy(time); bad["schema_version"] = 4
    must_reject("schema_version 4", bad)
    bad = copy.deepcopy(time); bad["subject"]["shape"] = {"heads": 16}
    must_reject("a subject with both a shape and heads and blocks", bad)
    bad = copy.deepcopy(time); del bad["subject"]["heads"]
    must_reject("a schema 1 subject without heads", bad)
    bad = copy.deepcopy(time); bad["kind"] = "bench"
    must_reject("kind bench", bad)
    bad = copy.deepcopy(sweep); bad["records"][0]["status"] = "great"
    must_reject("a sweep record of status great", bad)
    bad = copy.deepcopy(sweep); bad["records"][0]["status"] = "unlaunchable"; bad["records"][0]["verification"] = None
    must_reject("an unlaunchable sweep record (not from verification) with statistics", bad)
    bad = copy.deepcopy(sweep); del bad["records"][0]["statistics"]["median_us"]
    must_reject("statistics without median_us", bad)
    bad = copy.deepcopy(sweep); bad["records"][0]["samples_us"][0] = "1.5"
    must_reject("a sample as a string", bad)
    bad = copy.deepcopy(time); bad["results"][0]["statistics"]["samples"] = 20.5
    must_reject("a sample count of 20.5", bad)
    bad = copy.deepcopy(time); bad["results"][0]["extra"] = 1
    must_reject("an unknown member in a time entry", bad)
    bad = copy.deepcopy(sweep); bad["dispatch"][0]["ranges"] = []
    must_reject("a dispatch table without ranges", bad)

    # The sharding fields (issue 15): a shard, and what kk3tune merge makes of an unsharded file.
    items = []
    for r in sweep["records"]:
        # sweep-base.json is schema_version 1: the shape is the family's key of heads and blocks.
        dim = "heads" if r["family"] == "mla_decode_epilogue" else "blocks"
        key = f"{r['family']}/{r['mode']}/{dim}={r[dim]}"
        if key not in items:
            items.append(key)
    sharded = copy.deepcopy(sweep)
    sharded["plan"].update(digest="0123456789abcdef0123456789abcdef", objective="graph", items=items,
                           shard={"index": 1, "count": 2, "items": [0]})
    check("a shard of a sweep (plan.digest, objective, items, shard)", sharded)
    with tempfile.TemporaryDirectory() as tmp:
        whole = copy.deepcopy(sharded); whole["plan"]["shard"] = None
        whole_file, merged_file = os.path.join(tmp, "whole.json"), os.path.join(tmp, "merged.json")
        with open(whole_file, "w") as f:
            json.dump(whole, f)
        r = subprocess.run([kk3tune, "merge", whole_file, "--out", merged_file], capture_output=True, text=True)
        if r.returncode != 0:
            failures.append(f"kk3tune merge exited {r.returncode}: {r.stdout}{r.stderr}")
        else:
            with open(merged_file) as f:
                check("kk3tune merge (plan.merged_from)", json.load(f))
    for name, edit in (("a plan digest of 31 hex digits", lambda p: p.update(digest="0" * 31)),
                       ("shard index 0", lambda p: p["shard"].update(index=0)),
                       ("a shard without its items", lambda p: p["shard"].pop("items")),
                       ("an item key with a dimension but no value", lambda p: p["items"].append("mla/bf16/heads")),
                       ("objective fastest", lambda p: p.update(objective="fastest"))):
        bad = copy.deepcopy(sharded); edit(bad["plan"])
        must_reject(name, bad)

    print(f"\n{checked} documents checked against {os.path.relpath(schema_file, source)} "
          "(JSON Schema draft 2020-12)")
    if failures:
        print("\nFAIL:")
        for f in failures:
            print("  " + f)
        sys.exit(1)


if __name__ == "__main__":
    main()
