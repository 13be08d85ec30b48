"""The summary of call 3: per cell and variant, graph and cold medians (kk3tune time), and ncu."""
import csv, glob, os, re, statistics, sys
R = sys.argv[1]
rows = {}
for f in sorted(glob.glob(os.path.join(R, "t", "*.txt"))):
    m = re.match(r"(.+)-T(\d+)-(graph|cold)-(base|cap)\.txt", os.path.basename(f))
    mode, t, timing, d = m.groups()
    for line in open(f):
        p = line.split()
        if len(p) >= 8 and p[0].startswith("b1-") and re.match(r"^[0-9.]+$", p[1]):
            rows.setdefault((mode, int(t), d, p[0]), {})[timing] = float(p[1])
ncu = {}
for f in glob.glob(os.path.join(R, "ncu", "*.csv")):
    m = re.match(r"(.+)-T(\d+)-(base|cap)-(.+)\.csv", os.path.basename(f))
    recs = [r for r in csv.reader(open(f)) if len(r) > 20]
    if len(recs) < 3:
        continue
    h = recs[0]
    def med(name):
        if name not in h: return float("nan")
        return statistics.median(float(r[h.index(name)].replace(",", "")) for r in recs[2:])
    t = int(m.group(2))
    ncu[(m.group(1), t, m.group(3), m.group(4))] = (med("gpu__time_duration.sum") / 1000, med("smsp__inst_executed.sum") / t,
        med("launch__registers_per_thread"), med("launch__occupancy_limit_registers"), med("sm__warps_active.avg.pct_of_peak_sustained_active"),
        med("smsp__issue_active.avg.pct_of_peak_sustained_active"), med("dram__throughput.avg.pct_of_peak_sustained_elapsed"))
print("| mode | T | kernels | variant | graph us | tool cold us | ncu cold us | instr/token | regs | CTAs/SM | warps % | issue % | DRAM % |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for k in sorted(rows):
    g = rows[k].get("graph", float("nan")); c = rows[k].get("cold", float("nan"))
    n = ncu.get(k)
    extra = " | ".join(f"{x:.2f}" if i == 0 else f"{x:.0f}" for i, x in enumerate(n)) if n else " | ".join(["-"] * 7)
    print(f"| {k[0]} | {k[1]} | {k[2]} | {k[3].replace('-unroll1-stages1-tpc1', '')} | {g:.2f} | {c:.2f} | {extra} |")
