#!/usr/bin/env python3
"""The summary of a call folder R (argv[1]): graph medians of R/time/*.json, then ncu cold medians of
R/ncu/*.csv (us, DRAM %, warp-instructions per token, issue active %, warps active %, registers)."""
import csv, glob, io, json, os, statistics, sys
R = sys.argv[1]
short = lambda v: v.replace("-unroll1-stages1-tpc1", "").replace("b1-", "")
print("graph median us")
for f in sorted(glob.glob(R + "/time/*.json")):
    try: res = json.load(open(f))["results"]
    except Exception as e: print(os.path.basename(f), "-", e); continue
    print("%-22s" % os.path.basename(f)[:-5], "  ".join("%s %.2f" % (short(x["variant"]), x["statistics"]["median_us"])
          for x in sorted(res, key=lambda x: x["variant"]) if (x.get("statistics") or {}).get("median_us", 0) > 0))
def cold(f):
    txt = open(f).read(); i = txt.find('"ID"')
    if i < 0: return None
    rows = list(csv.DictReader(io.StringIO(txt[i:])))
    scale = {"ns": 1e-3, "nsecond": 1e-3, "us": 1.0, "usecond": 1.0, "ms": 1e3, "msecond": 1e3}[rows[0]["gpu__time_duration.sum"]]
    med = lambda k, s=1.0: statistics.median(float(r[k].replace(",", "")) * s for r in rows[1:])
    return med("gpu__time_duration.sum", scale), med("dram__throughput.avg.pct_of_peak_sustained_elapsed"), \
        med("smsp__inst_executed.sum"), med("smsp__issue_active.avg.pct_of_peak_sustained_active"), \
        med("sm__warps_active.avg.pct_of_peak_sustained_active"), med("launch__registers_per_thread")
print("ncu cold, median of 5: us | dram % | warp-instr per token | issue active % | warps active % | regs")
for f in sorted(glob.glob(R + "/ncu/*.csv")):
    name = os.path.basename(f)[:-4]; t = int(name.split("-T")[1].split("-")[0])
    try: c = cold(f)
    except Exception as e: c = None
    print("%-58s" % short(name), "-" if c is None else "%8.2f | %4.1f | %7.0f | %4.1f | %4.1f | %3.0f" % (c[0], c[1], c[2] / t, c[3], c[4], c[5]))
