#!/usr/bin/env python3
"""Turn the console logs of 'make bench' (build/bench/boot-*.log) into a Markdown
report (stdout), CSV files and gnuplot PNG plots in the same directory.

The logs hold 'PASR-BENCH:' lines printed by the guest (tools/bench-init.sh
and mm/pasr/bench.c); the boot time is the printk timestamp of
'Run /init as init process'. Ratios are computed from the median of the rounds
of one run; nothing is tuned or dropped.
"""

import argparse
import csv
import os
import re
import statistics
import subprocess
import sys
import time

CONFIGS = [
    ("bare", "kernel built without CONFIG_PASR and without CONFIG_PAGE_REPORTING"),
    ("absent", "kernel built without CONFIG_PASR, with CONFIG_PAGE_REPORTING (as distribution "
               "kernels, where virtio-balloon selects it; PASR selects it too)"),
    ("off", "CONFIG_PASR=y with the hooks backend (CONFIG_PASR_HOOKS=y), layout given, "
            "pasr=off (static keys off)"),
    ("on", "the same kernel, layout given: the hooks backend on"),
    ("rep-off", "CONFIG_PASR=y without CONFIG_PASR_HOOKS (the reporting backend only), "
                "layout given, pasr=off"),
    ("rep-on", "the same kernel, layout given: the reporting backend on"),
]

# each PASR-on configuration against its configured-off one, and the backend's name
ON_OFF = [("on", "off", "hooks"), ("rep-on", "rep-off", "reporting")]
# what each configuration is compared with in the workload and boot tables
BASE = {"on": "off", "rep-on": "rep-off", "off": "absent", "rep-off": "absent",
        "absent": "bare"}

# power boots: mode -> (governor, backend)
POWER_MODES = {"off": ("off", "hooks"), "on": ("on", "hooks"),
               "rep-off": ("off", "reporting"), "rep-on": ("on", "reporting")}

# (order, batch) -> allowed overhead of 'on' against 'off', in percent
ALLOC_TARGET = {0: 1.0, 3: 1.0, 10: 5.0}

CALLS_FLATNESS_TARGET = 10.0

KV = re.compile(r"(\w+)=(\S+)")


def bench_line(line, errors):
    """A 'PASR-BENCH: KIND key=value...' console line: (its words after
    'PASR-BENCH:', the key/value dict); ([], {}) for any other line, and for
    an error line, which goes to errors."""
    i = line.find("PASR-BENCH: ")
    rest = line[i + len("PASR-BENCH: "):].split() if i >= 0 else []
    if not rest:
        return [], {}
    kv = dict(KV.findall(" ".join(rest[1:])))
    if "error" in kv or rest[0].startswith("error="):
        errors.append(line[i:])
        return [], {}
    return rest, kv


def histogram_head(out, name, title, ncases):
    """The gnuplot lines every clustered-histogram plot starts with."""
    return f"""set terminal pngcairo size 900,540 noenhanced
set output '{out}/{name}.png'
set title '{title}'
set style data histograms
set style histogram clustered gap 1
set xrange [-0.6:{ncases - 0.4}]
set style fill solid 0.8 border -1
"""


def parse_log(path):
    d = {"info": {}, "alloc": [], "calls": [], "workload": [], "state": [],
         "errors": [], "boot_s": None, "init": {}, "trans": [], "trans_info": {},
         "latency": [], "end": False}
    with open(path, errors="replace") as f:
        for raw in f:
            line = raw.rstrip("\r\n").replace("\r", "")
            m = re.search(r"\[\s*(\d+\.\d+)\]\s+Run /init as init process", line)
            if m:
                d["boot_s"] = float(m.group(1))
            rest, kv = bench_line(line, d["errors"])
            if not rest:
                continue
            kind = rest[0]
            if kind == "info":
                d["info"] = kv
            elif kind == "init":
                d["init"] = kv
            elif kind == "alloc":
                d["alloc"].append({k: int(v) for k, v in kv.items()})
            elif kind == "calls":
                d["calls"].append({k: int(v) for k, v in kv.items()})
            elif kind == "latency":
                d["latency"].append({k: int(v) for k, v in kv.items()})
            elif kind == "trans":
                t = {k: (v if k == "mode" else int(v)) for k, v in kv.items()}
                d["trans"].append(t)
            elif kind == "trans-info":
                d["trans_info"] = kv
            elif kind == "end":
                d["end"] = True
            elif kind == "workload":
                w = {k: int(v) for k, v in kv.items()}
                w["ns"] = w["t1"] - w["t0"]
                d["workload"].append(w)
            elif kind == "state":
                d["state"].append((rest[1] if len(rest) > 1 else "?", kv))
    return d


def med(xs):
    return statistics.median(xs) if xs else None


def spread_pct(xs):
    """(max - min) / median of the rounds, in percent."""
    if not xs or len(xs) < 2:
        return 0.0
    m = statistics.median(xs)
    return 100.0 * (max(xs) - min(xs)) / m if m else 0.0


def fmt(x, nd=1):
    return "n/a" if x is None else f"{x:,.{nd}f}"


def pct(x, nd=2):
    return "n/a" if x is None else f"{x:+.{nd}f}%"


def case_name(order, batch):
    s = f"order {order}"
    if order == 10:
        s += " (MAX_PAGE_ORDER)"
    if batch > 1:
        s += f", batches of {batch}"
    return s


def write_csv(path, header, rows):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)


def gnuplot(script, path):
    with open(path, "w") as f:
        f.write(script)
    r = subprocess.run(["gnuplot", path], capture_output=True, text=True)
    if r.returncode != 0:
        sys.stderr.write(f"bench-report: gnuplot {path} failed:\n{r.stderr}\n")
        return False
    return True


# ---- power-down effectiveness (power-MODE-1.log) ---------------------------

POWER_TIMES = [0, 5, 10, 20, 30, 60]
POWER_TARGET_PCT = 90.0     # issue 6: masked >= 90% of the ideal ...
POWER_TARGET_S = 30.0       # ... within 30 s of idle (guest time)
POWER_KINDS = {"power-info": "info", "power-peak": "peak", "power-end": "end"}


def parse_power_log(path):
    """A power boot's samples, and the simulator's power table: per die, the
    self-refresh power in nW with 0, 1, ... of its sections unrefreshed
    ('PASR-BENCH: power-table die=D temp=T nw=P0/P1/...')."""
    d = {"samples": [], "info": {}, "peak": {}, "idle_ns": None, "end": {}, "dies": {},
         "errors": []}
    with open(path, errors="replace") as f:
        for raw in f:
            line = raw.rstrip("\r\n").replace("\r", "")
            rest, kv = bench_line(line, d["errors"])
            if not rest:
                continue
            kind = rest[0]
            if kind == "power":
                d["samples"].append(kv)
            elif kind in POWER_KINDS:
                d[POWER_KINDS[kind]] = kv
            elif kind == "power-idle":
                d["idle_ns"] = int(kv["t_ns"])
            elif kind == "power-table":
                nw = [int(x) for x in kv["nw"].split("/")]
                die = d["dies"].setdefault(int(kv["die"]), {"sections": len(nw) - 1, "nw": {}})
                die["nw"][kv["temp"]] = nw
    return d


def die_power_nw(die, temp, unrefreshed):
    """The simulator's figure for a die with that many sections unrefreshed."""
    return die["nw"][temp][min(unrefreshed, die["sections"])]


def best_power_nw(dies, temp, n):
    """Lowest self-refresh power of the model with n sections unrefreshed,
    over every way of spreading them over the dies (an upper bound of the
    saving: no placement of n free sections saves more)."""
    best = {0: 0}  # sections placed so far -> lowest power
    for die in dies:
        nxt = {}
        for placed, p in best.items():
            for k in range(0, die["sections"] + 1):
                if placed + k > n:
                    break
                q = p + die_power_nw(die, temp, k)
                if placed + k not in nxt or q < nxt[placed + k]:
                    nxt[placed + k] = q
        best = nxt
    return best.get(n, best[max(best)])


def uw(x):
    return float(x) if x not in (None, "") else None


def power_runs(out):
    """The parsed first boot of each power mode, and the boots of each."""
    runs, nboots = {}, {}
    for mode in POWER_MODES:
        nboots[mode] = len([n for n in os.listdir(out)
                            if re.fullmatch(rf"power-{mode}-\d+\.log", n)])
        p = os.path.join(out, f"power-{mode}-1.log")
        if os.path.exists(p):
            runs[mode] = parse_power_log(p)
    return runs, nboots


def power_point(r, s, dies, section):
    """One sample of a power boot, with the ideal's power."""
    t = (int(s["t_ns"]) - r["idle_ns"]) / 1e9
    masked, ideal = int(s["masked"]), int(s["ideal"])
    n_ideal = ideal // section if section else 0
    ip85 = best_power_nw(dies, "85c", n_ideal) / 1000 if dies else None
    ip45 = best_power_nw(dies, "45c", n_ideal) / 1000 if dies else None
    return {"t": t, "phase": s.get("phase", ""), "masked": masked, "ideal": ideal,
            "pct": 100.0 * masked / ideal if ideal else None,
            "free": int(s["free"]), "reserved": int(s["reserved"]),
            "freeable": int(s.get("freeable", -1)),
            "sim_masked": s.get("sim_masked", ""),
            "p85": uw(s.get("sim_power_85c_uw")), "full85": uw(s.get("sim_full_85c_uw")),
            "p45": uw(s.get("sim_power_45c_uw")), "full45": uw(s.get("sim_full_45c_uw")),
            "ip85": ip85, "ip45": ip45}


def power_row(mode, pt, s):
    """The power.csv row of a sample."""
    return [mode, pt["phase"], f"{pt['t']:.3f}", pt["masked"], pt["ideal"],
            "" if pt["pct"] is None else f"{pt['pct']:.2f}", pt["free"],
            pt["reserved"], pt["freeable"], s.get("freeable_map", ""),
            pt["sim_masked"], s.get("sim_power_85c_uw", ""),
            s.get("sim_full_85c_uw", ""), s.get("sim_saving_85c", "").rstrip("%"),
            s.get("sim_power_45c_uw", ""), s.get("sim_full_45c_uw", ""),
            s.get("sim_saving_45c", "").rstrip("%"),
            "" if pt["ip85"] is None else f"{pt['ip85']:.3f}",
            "" if pt["ip45"] is None else f"{pt['ip45']:.3f}"]


def power_series(out, runs, dies, section):
    """Every mode's samples as points; writes power.csv."""
    rows, series = [], {}
    for mode, r in runs.items():
        series[mode] = []
        for s in r["samples"]:
            pt = power_point(r, s, dies, section)
            series[mode].append(pt)
            rows.append(power_row(mode, pt, s))
    write_csv(os.path.join(out, "power.csv"),
              ["governor", "phase", "t_s_from_idle", "masked_bytes", "ideal_bytes",
               "masked_pct_of_ideal", "memfree_bytes", "reserved_bytes",
               "sections_without_unmovable_memory", "freeable_map", "sim_masked_sections",
               "power_85c_uw", "full_refresh_85c_uw", "saving_85c_pct", "power_45c_uw",
               "full_refresh_45c_uw", "saving_45c_pct", "ideal_power_85c_uw",
               "ideal_power_45c_uw"], rows)
    return series


def sample_at(pts, t):
    """The first sample taken at or after t s of idle."""
    c = [p for p in pts if p["t"] >= t]
    return c[0] if c else None


def first90(pts):
    """The first sample of idle from which masked stays >= 90% of the ideal."""
    t90 = None
    for p in pts:
        if p["t"] < 0:
            continue
        if p["pct"] is not None and p["pct"] >= POWER_TARGET_PCT:
            t90 = p["t"] if t90 is None else t90
        else:
            t90 = None
    return t90


def power_intro(P, a, run, nboots, dies, section, idle, unit_note):
    """The paragraphs that say what the power part ran; `run` is any of the
    boots (they all ran the same workload)."""
    info, peak = run["info"], run["peak"]
    mem = a.power_mem or "?"
    P(f"The scenario of the governor issue, on the **bench-power** kernel (the bench kernel "
      f"with CONFIG_PASR_GOVERNOR and CONFIG_PASR_SIM_CONTROLLER), `-m {mem}`, "
      f"`{a.power_cmdline}`, the default DT layout of `qemu/mkdtb.sh` "
      f"({len(dies)} dies x {dies[0]['sections'] if dies else '?'} sections of "
      f"{section >> 20} MiB, bank mode, which binds the simulated controller): a workload "
      f"holds {info.get('anon_mib', '?')} MiB of anonymous memory (a `dd` buffer) and reads "
      f"{info.get('cache_mib', '?')} MiB of a virtio disk into page cache (at the peak: "
      f"{peak.get('used_pct', '?')}% of memory used, AnonPages "
      f"{int(peak.get('anon', 0)) >> 20} MiB, Buffers {int(peak.get('buffers', 0)) >> 20} MiB: "
      "the block device's page cache is not movable and stays in ZONE_NORMAL), then the "
      f"anonymous memory is freed and the guest idles for {idle} s with the page cache kept. "
      "One sample per second of guest time. **off**: governor off (accounting only); "
      "**on**: governor on from boot (`pasr.governor=1`, default threshold and interval); "
      "**rep-off** and **rep-on**: the same with the reporting backend "
      "(`pasr.backend=reporting`). "
      + ", ".join(f"{n} boot{'s' if n != 1 else ''} {m}"
                  for m, n in nboots.items() if n)
      + " (so no boot-to-boot spread is measured here). "
      "**ideal**: the most any PASR design could mask without moving unmovable memory, as "
      "a number of sections: at most the free memory (reservations included) divided by "
      "the section size, rounded down, and counting only sections that can be emptied. "
      "**Sections that hold unmovable memory cannot count toward it**: a section counts "
      "if it is entirely free, reserved by the governor, or holds only free and movable "
      "pages; it holds unmovable memory if one of its pages is in use (referenced) and is "
      "neither on an LRU list, nor anonymous, nor a non-LRU movable page, nor in ZONE_MOVABLE "
      "(whose pages reserved at boot do count), as the kernel scans at every sample "
      "(`/sys/kernel/debug/pasr_bench/freeable`). Times are seconds of guest time "
      f"from the start of idle{unit_note}; \"at T s\" is the first sample taken at or after "
      "T s.")
    P("")
    P("Power: the simulated controller's model (IDD6 x VDD, datasheet currents interpolated "
      "in the refreshed fraction of each die; `/sys/kernel/debug/pasr-sim/status`), at 85 C, "
      "in uW, against the whole array refreshed. For **ideal**, the simulator's figures "
      "(`/sys/kernel/debug/pasr-sim/power_table`) with the ideal number of sections "
      "unrefreshed, spread over the dies in the way that saves most.")
    P("")


def power_mode_cells(pts, times, t_ref, idle):
    """A mode's row of the power table, and its time to 90% of the ideal."""
    cells = []
    for t in times:
        p = sample_at(pts, t)
        cells.append("n/a" if not p or p["pct"] is None else f"{p['pct']:.1f}%")
    t90 = first90(pts)
    cells.append(f"{t90:.1f} s" if t90 is not None else f"not within {idle} s")
    p = sample_at(pts, t_ref)
    sav = p["full85"] - p["p85"] if p and p["p85"] is not None else None
    savp = 100 * sav / p["full85"] if sav is not None and p["full85"] else None
    cells += [f"{p['masked'] >> 20} MiB", f"{p['ideal'] >> 20} MiB",
              f"{p['p85']:.3f} uW" if p["p85"] is not None else "n/a",
              f"{sav:.3f} uW" if sav is not None else "n/a",
              f"{savp:.1f}%" if savp is not None else "n/a"]
    return cells, t90


def power_table(rep, series, times, t_ref, idle):
    """The masked/ideal table, a row per mode and the ideal's; returns the
    ideal's sample at t_ref."""
    P = rep.P
    hdr = ["case"] + [f"masked/ideal at {t} s" for t in times] + \
        [f"time to {POWER_TARGET_PCT:.0f}% of ideal (and staying)"]
    hdr += [f"masked at {t_ref:.0f} s", f"ideal at {t_ref:.0f} s",
            f"self-refresh power at {t_ref:.0f} s (85 C)", "saving", "saving %"]
    P("| " + " | ".join(hdr) + " |")
    P("| --- |" + " ---: |" * (len(hdr) - 1))
    summary = []
    for mode in POWER_MODES:
        if mode not in series:
            continue
        cells, t90 = power_mode_cells(series[mode], times, t_ref, idle)
        gov, backend = POWER_MODES[mode]
        name = f"governor {gov}, {backend}"
        P(f"| {name} | " + " | ".join(cells) + " |")
        summary.append([mode] + cells)
        if gov == "on" and (t90 is None or t90 > POWER_TARGET_S):
            rep.failed.append(
                f"{name}: masked bytes did not reach {POWER_TARGET_PCT:.0f}% of the "
                f"ideal within {POWER_TARGET_S:.0f} s of idle "
                f"({'reached after %.1f s' % t90 if t90 is not None else 'not reached'})")
    p = sample_at(series.get("on") or series.get("off"), t_ref)
    if p and p["ip85"] is not None:
        sav = p["full85"] - p["ip85"]
        cells = ["100%"] * len(times) + ["-", f"{p['ideal'] >> 20} MiB",
                                         f"{p['ideal'] >> 20} MiB", f"{p['ip85']:.3f} uW",
                                         f"{sav:.3f} uW", f"{100 * sav / p['full85']:.1f}%"]
        P("| ideal (of the governor-on boot) | " + " | ".join(cells) + " |")
        summary.append(["ideal"] + cells)
    P("")
    write_csv(os.path.join(rep.out, "power-summary.csv"), ["case"] + hdr[1:], summary)
    return p


def power_notes(rep, runs, series, dies, section, p, t_ref):
    """What the table leaves out: the ideal's terms, the full-refresh figures
    (and that the simulator's table agrees with its status), the governor's
    statistics."""
    P = rep.P
    if p and section:
        P(f"The ideal at {t_ref:.0f} s (governor-on boot): {p['ideal'] // section} sections = "
          f"the smaller of {(p['free'] + p['reserved']) // section} (free memory, reservations "
          f"included, in whole sections) and {p['freeable']} (sections without unmovable "
          f"memory, of {len(dies) and sum(d['sections'] for d in dies)}).")
        P("")
    full_table = sum(die_power_nw(d, "85c", 0) for d in dies) / 1000 if dies else None
    full_sim = series[next(iter(series))][0]["full85"]
    table_ok = full_table is not None and full_sim is not None and \
        abs(full_table - full_sim) < 0.01
    def f3(x):
        return "n/a" if x is None else f"{x:.3f}"

    P(f"Full refresh: {p['full85']:.3f} uW at 85 C, {p['full45']:.3f} uW at 45 C. "
      f"Check: the simulator's power table gives {f3(full_table)} uW for full "
      f"refresh, its status {f3(full_sim)} uW: "
      f"{'they agree' if table_ok else 'THEY DISAGREE (ideal power not trustworthy)'}.")
    if not table_ok:
        rep.failed.append("power model: the simulator's power table disagrees with its status")
    P("")
    for mode, r in runs.items():
        e = r["end"]
        if POWER_MODES[mode][0] == "on" and e.get("evacuated") is not None:
            P(f"Governor on, {POWER_MODES[mode][1]} backend, at the end (`governor/stats/`): "
              f"evacuated {e['evacuated']}, "
              f"migrated_pages {e['migrated_pages']}, returned {e['returned']} (under the "
              f"workload's pressure), failures {e['failures']}.")
    P("")


def power_plot(rep, series):
    """power.png: masked and ideal (MiB), and saving (%), against time."""
    out = rep.out
    dat = os.path.join(out, "power.dat")
    with open(dat, "w") as f:
        for mode in POWER_MODES:
            f.write(f"# {mode}: t masked_MiB ideal_MiB saving85_pct ideal_saving85_pct\n")
            for q in series.get(mode, []):
                s85 = 100 * (q["full85"] - q["p85"]) / q["full85"] if q["p85"] is not None else 0
                i85 = 100 * (q["full85"] - q["ip85"]) / q["full85"] if q["ip85"] is not None else 0
                f.write(f"{q['t']:.3f} {q['masked'] / 1048576:.1f} {q['ideal'] / 1048576:.1f} "
                        f"{s85:.2f} {i85:.2f}\n")
            f.write("\n\n")
    idx = {m: i for i, m in enumerate(POWER_MODES)}
    plots1, plots2 = [], []
    if "on" in series:
        plots1.append(f"'{dat}' index {idx['on']} using 1:3 with lines dt 2 lw 2 lc rgb 'black' "
                      "title 'ideal (governor-on boot)'")
        plots2.append(f"'{dat}' index {idx['on']} using 1:5 with lines dt 2 lw 2 lc rgb 'black' "
                      "title 'ideal'")
    for mode, col in (("off", "red"), ("on", "blue"), ("rep-off", "orange"),
                      ("rep-on", "dark-green")):
        if mode in series:
            plots1.append(f"'{dat}' index {idx[mode]} using 1:2 with linespoints pt 7 ps 0.5 "
                          f"lc rgb '{col}' title 'masked, {mode}'")
            plots2.append(f"'{dat}' index {idx[mode]} using 1:4 with linespoints pt 7 ps 0.5 "
                          f"lc rgb '{col}' title '{mode}'")
    ok = gnuplot(f"""set terminal pngcairo size 900,800 noenhanced
set output '{out}/power.png'
set multiplot layout 2,1 title 'PASR power-down effectiveness ({rep.a.qemu_mode}); idle from t = 0'
set grid
set key bottom right
set xlabel 'guest time from the start of idle, s (negative: workload)'
set ylabel 'MiB'
set yrange [0:*]
set title 'masked bytes against the ideal (free memory in whole sections that hold no unmovable memory)'
plot {', '.join(plots1)}
set ylabel 'percent'
set yrange [0:100]
set title 'estimated self-refresh power saving, 85 C (simulated controller model)'
plot {', '.join(plots2)}
unset multiplot
""", os.path.join(out, "power.gp"))
    return ["power.png"] if ok else []


def power_section(rep):
    """Section 3 of the report; returns the PNG names written."""
    P = rep.P
    runs, nboots = power_runs(rep.out)
    P("### 3. Power-down effectiveness")
    P("")
    if not runs:
        P("**Not run** (BENCH_POWER=0).")
        P("")
        return []
    errs = [e for r in runs.values() for e in r["errors"]]
    if errs or any(not r["samples"] or r["idle_ns"] is None or not r["dies"]
                   for r in runs.values()):
        P("**Not measured**: " + ("; ".join(errs) if errs else
                                  "no samples or no power table in the log"))
        P("")
        rep.failed.append("power-down effectiveness: not measured")
        return []
    any_run = runs[next(iter(runs))]
    dies = [any_run["dies"][k] for k in sorted(any_run["dies"])]
    section = int(any_run["info"].get("section", 0))
    idle = int(any_run["info"].get("idle_s", 0))
    series = power_series(rep.out, runs, dies, section)
    times = [t for t in POWER_TIMES if t <= idle]
    t_ref = POWER_TARGET_S if POWER_TARGET_S <= idle else times[-1]
    power_intro(P, rep.a, any_run, nboots, dies, section, idle,
                ", -icount: idle time passes at once" if rep.icount else "")
    p = power_table(rep, series, times, t_ref, idle)
    power_notes(rep, runs, series, dies, section, p, t_ref)
    return power_plot(rep, series)


# ---- the report's frame ----------------------------------------------------

class Report:
    """What every section writes to: the Markdown lines, the directory of the
    logs and outputs, the arguments, and the targets missed."""

    def __init__(self, a):
        self.a, self.out = a, a.dir
        self.lines, self.failed = [], []
        self.P = self.lines.append
        self.icount = "icount" in a.qemu_mode and "no -icount" not in a.qemu_mode
        self.unit = "ns (guest clock)"


def round_groups(r):
    """A boot's rounds, grouped by case."""
    g = {}
    for t in r["trans"]:
        g.setdefault(("transitions", t["mode"], t["threads"]), []).append(t)
    for x in r["alloc"]:
        g.setdefault(("alloc", x["order"], x["batch"]), []).append(x)
    for x in r["calls"]:
        g.setdefault(("calls", x["dies"], x["sections"]), []).append(x)
    for x in r["latency"]:
        g.setdefault(("latency",), []).append(x)
    return g


def check_complete(runs, trans):
    """Every boot must hold every round of every case, and no error: a failed
    or missing round fails the report (and so 'make bench'), it is not skipped.
    @trans maps a transition configuration ('trans', 'trans-rep') to its boots."""
    bad, groups = [], {}
    for cfg, boots in list(runs.items()) + list(trans.items()):
        for r in boots:
            where = f"boot '{cfg}' {r['boot']}"
            if r["errors"]:
                bad.append(f"{where}: " + "; ".join(r["errors"]))
            if not r["end"]:
                bad.append(f"{where}: the in-kernel benchmark did not finish ('PASR-BENCH: end')")
            g = groups[(cfg, r["boot"])] = round_groups(r)
            rounds = int(r["info"].get("rounds", 0))
            if not rounds:
                bad.append(f"{where}: no 'PASR-BENCH: info' line")
            for k, xs in g.items():
                if len(xs) != rounds:
                    bad.append(f"{where}: {k}: {len(xs)} rounds, expected {rounds}")
    # every boot of a configuration has the cases any boot of it has
    for cfg in list(runs) + list(trans):
        keys = [k for (c, _), g in groups.items() if c == cfg for k in g]
        for (c, n), g in groups.items():
            if c == cfg:
                for k in sorted(set(keys) - set(g)):
                    bad.append(f"boot '{cfg}' {n}: no {k} rounds")
    for cfg, boots in trans.items():
        if boots and not any(groups[(cfg, r["boot"])] for r in boots):
            bad.append(f"boots '{cfg}': no transition rounds")
    if bad:
        sys.exit("bench-report: incomplete or failed benchmark boots:\n  " + "\n  ".join(bad))


def boots_text(nboots):
    """'5 boots each' or the counts, from the data."""
    counts = set(nboots.values())
    if len(counts) == 1:
        n = counts.pop()
        return f"{n} boot{'s' if n != 1 else ''} each"
    return ", ".join(f"{c} {n}" for c, n in nboots.items())


# ---- 1b. transitions: the locked path --------------------------------------

def trans_intro(rep, trans, backend, tag):
    """What the transition case does, for one backend."""
    P, a = rep.P, rep.a
    info = trans[0]["trans_info"]
    sec, blk = int(info.get("section_bytes", 0)), int(info.get("block_bytes", 1))
    P(f"`echo transitions > /sys/kernel/debug/pasr_bench/run` on the **on** kernel"
      + (", `pasr.backend=reporting`, " if tag else ", ") +
      f"-smp {a.trans_smp}, {len(trans)} boot{'s' if len(trans) != 1 else ''}: one kthread "
      f"per CPU ({info.get('cpus', '?')} CPUs; also 1 thread alone), "
      + ("each on its own entirely free section"
         if info.get("sections") == info.get("cpus") else
         f"on {info.get('sections', '?')} entirely free sections, shared round-robin "
         "(fewer than CPUs)")
      + f" ({sec >> 20} MiB, {sec // blk} max-order blocks), takes a max-order block off the free list and puts it back, as free "
      "page reporting does (`__isolate_free_page()`, `__putback_isolated_page()` under "
      "zone->lock"
      + ("" if tag else ", through the same PASR hooks as `alloc_pages()` and `__free_pages()`")
      + "), cycling over the section's blocks"
      + (": the take goes through `pasr_unreport()` (the block was put back marked reported), "
         "the put-back is page reporting's, `pasr_put()` as the report callback does it, then "
         "the block back on its list marked reported" if tag else "")
      + ". **transitions**: each take makes the section leave "
      "\"entirely free\" and each put-back makes it enter it again: the lock, the mask "
      "recomputation, the controller callback (dies without a controller get one that stores "
      "the value and counts)"
      + ("" if tag else ", and the placement rule's walk over the section's blocks")
      + ". **pinned**: "
      "the same loop with one block of the section held throughout, so no section changes "
      "state: the lock-free path. A cycle = one take + one put-back.")
    P("")
    if rep.icount:
        P("With -icount the vCPUs run in turn on one instruction counter: with several "
          "threads the guest clock counts the instructions of all CPUs, spinning on the locks "
          "included, so ns per cycle is the work the machine spent per cycle, not the latency "
          "of one. The threads contend for zone->lock and the PASR lock, but as QEMU runs one "
          "vCPU at a time, a thread waits only when another vCPU's turn ended inside a "
          "critical section: real parallel CPUs would collide more often, so the contended "
          "rows are a lower bound of the cost of contention.")
        P("")


def trans_groups(rep, trans, tag):
    """Per (threads, mode): the boots' medians; writes transitions{tag}.csv."""
    groups, rows = {}, []
    for r in trans:
        per = {}
        for t in r["trans"]:
            per.setdefault((t["threads"], t["mode"]), []).append(t)
            rows.append([r["boot"], t["threads"], t["mode"], t["round"], t["cycles"], t["ns"],
                         t["hook_calls"], t["mask_updates"], t["callbacks"], t["skipped"]])
        for k, ts in per.items():
            g = groups.setdefault(k, {"ns": [], "upd": [], "cb": [], "hooks": [],
                                      "skip": [], "cycles": ts[0]["cycles"]})
            g["ns"].append(med([t["ns"] / t["cycles"] for t in ts]))
            g["upd"].append(med([t["mask_updates"] for t in ts]))
            g["cb"].append(med([t["callbacks"] for t in ts]))
            g["hooks"].append(med([t["hook_calls"] / t["cycles"] for t in ts]))
            g["skip"].append(sum(t["skipped"] for t in ts))
    write_csv(os.path.join(rep.out, f"transitions{tag}.csv"),
              ["boot", "threads", "mode", "round", "cycles", "ns", "pasr_hook_calls",
               "mask_updates", "callbacks", "skipped_blocks"], rows)
    return groups


def trans_table(rep, groups):
    """The per-(threads, mode) table; returns the mask updates of the
    transitions rounds."""
    P = rep.P
    P(f"| threads | mode | cycles/round | {rep.unit} per cycle | spread | PASR hook calls per "
      "cycle | mask updates per round | controller callbacks per round | transitions per cycle |")
    P("| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    total_upd = 0
    for k in sorted(groups):
        g = groups[k]
        upd = med(g["upd"])
        if k[1] == "transitions":
            total_upd += sum(g["upd"])
        P(f"| {k[0]} | {k[1]} | {g['cycles']} | {fmt(med(g['ns']))} | "
          f"{spread_pct(g['ns']):.2f}% | {fmt(med(g['hooks']), 2)} | {fmt(upd, 0)} | "
          f"{fmt(med(g['cb']), 0)} | {fmt(upd / g['cycles'], 2)} |")
    P("")
    return total_upd


def trans_costs(rep, groups, tag):
    """The cost of one transition per thread count; writes the summary CSV."""
    P, summary = rep.P, []
    for n in sorted({k[0] for k in groups}):
        tr, pin = groups.get((n, "transitions")), groups.get((n, "pinned"))
        if not tr or not pin:
            continue
        per_cycle = med(tr["upd"]) / tr["cycles"]
        extra = med(tr["ns"]) - med(pin["ns"])
        cost = extra / per_cycle if per_cycle else None
        summary.append([n, f"{med(tr['ns']):.1f}", f"{med(pin['ns']):.1f}", f"{per_cycle:.3f}",
                        "" if cost is None else f"{cost:.1f}", med(tr["upd"])])
        P(f"- **{n} thread{'s' if n > 1 else ''}**: {fmt(med(tr['upd']), 0)} mask updates per "
          f"round ({per_cycle:.2f} per cycle); cost per transition (ns per cycle, transitions "
          f"against pinned, over transitions per cycle): **{fmt(cost)} {rep.unit.split(' ')[0]}**"
          + (f", the work of all {n} CPUs" if n > 1 and rep.icount else ""))
    write_csv(os.path.join(rep.out, f"transitions{tag}-summary.csv"),
              ["threads", "ns_per_cycle_transitions", "ns_per_cycle_pinned",
               "transitions_per_cycle", "ns_per_transition", "mask_updates_per_round"], summary)
    skipped = sum(sum(g["skip"]) for g in groups.values())
    P(f"- blocks found in use and passed over: {skipped}")
    P("")


def trans_section(rep, trans, backend, tag):
    """The transition case (boot-trans-N.log, boot-trans-rep-N.log with the
    reporting backend): sections forced to enter and leave "entirely free".
    Exits non-zero if it made no mask update: then it did not measure the
    locked path."""
    P = rep.P
    P(f"#### Locked path, {backend} backend: sections entering and leaving \"entirely free\", "
      "all CPUs contending")
    P("")
    if not trans:
        P("**Not run** (BENCH_TRANS=0" + (" or BENCH_REPORTING=0" if tag else "") + ").")
        P("")
        return
    info = trans[0]["trans_info"]
    if info.get("backend", "hooks") != backend:
        sys.exit(f"bench-report: the {backend} transition boots ran the "
                 f"{info.get('backend')} backend")
    trans_intro(rep, trans, backend, tag)
    groups = trans_groups(rep, trans, tag)
    total_upd = trans_table(rep, groups)
    trans_costs(rep, groups, tag)
    if total_upd == 0:
        print("\n".join(rep.lines), file=sys.stdout)
        sys.exit("bench-report: the transition case made no mask update: it did not measure "
                 "the locked path")


# ---- the boots and the header ----------------------------------------------

def parse_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--qemu-mode", required=True)
    ap.add_argument("--qemu", default="")
    ap.add_argument("--machine", default="")
    ap.add_argument("--smp", default="1")
    ap.add_argument("--trans-smp", default="?")
    ap.add_argument("--layout", default="")
    ap.add_argument("--host", default="")
    ap.add_argument("--kernel", default="")
    ap.add_argument("--command", default="make bench")
    ap.add_argument("--elapsed", type=int, default=0)
    ap.add_argument("--power-mem", default="")
    ap.add_argument("--power-cmdline", default="")
    return ap.parse_args()


def load_runs(out):
    """config -> its parsed boots, in boot order; each must say it ran as that
    configuration."""
    runs = {}
    for cfg, _ in CONFIGS:
        logs = []
        for name in os.listdir(out):
            m = re.fullmatch(rf"boot-{cfg}-(\d+)\.log", name)
            if m:
                logs.append((int(m.group(1)), os.path.join(out, name)))
        if logs:
            runs[cfg] = [dict(parse_log(p), boot=n) for n, p in sorted(logs)]
    if "on" not in runs or "off" not in runs:
        sys.exit("bench-report: boot-on-N.log and boot-off-N.log are needed")
    for cfg, boots in runs.items():
        for r in boots:
            got = r["info"].get("pasr")
            if got != cfg:
                sys.exit(f"bench-report: boot '{cfg}' {r['boot']}: the kernel says pasr={got}, "
                         f"expected {cfg}")
    return runs


def load_trans(out):
    """'trans' and 'trans-rep' -> their parsed boots, in boot order."""
    trans = {"trans": [], "trans-rep": []}
    for name in os.listdir(out):
        m = re.fullmatch(r"boot-(trans|trans-rep)-(\d+)\.log", name)
        if m:
            trans[m.group(1)].append(dict(parse_log(os.path.join(out, name)),
                                          boot=int(m.group(2))))
    for boots in trans.values():
        boots.sort(key=lambda r: r["boot"])
    return trans


def read_times(out):
    """build-times.txt and boot-times.txt: name -> [(what, seconds)]."""
    times = {}
    for name in ("build-times.txt", "boot-times.txt"):
        p = os.path.join(out, name)
        if os.path.exists(p):
            for ln in open(p):
                k, v = ln.split()
                times.setdefault(name, []).append((k, int(v)))
    return times


def boots_line(rep, nboots, trans):
    """The 'Boots' line: how many boots each part had, from the logs."""
    a, out = rep.a, rep.out
    power_boots = {m: len([n for n in os.listdir(out) if re.fullmatch(rf"power-{m}-\d+\.log", n)])
                   for m in POWER_MODES}
    parts = [f"allocator, per-call and boot cost: {boots_text(nboots)} "
             f"({', '.join(c for c in nboots)}), -smp {a.smp}"]
    for cfg, boots in trans.items():
        parts.append(f"{cfg}: {len(boots)} boot{'s' if len(boots) != 1 else ''}, "
                     f"-smp {a.trans_smp}" if boots else f"{cfg}: not run")
    parts.append("power: " + ", ".join(f"{m} {n} boot{'s' if n != 1 else ''}"
                                       for m, n in power_boots.items() if n)
                 if any(power_boots.values()) else "power: not run")
    rep.P("- Boots (counted from the logs): " + "; ".join(parts))


def header(rep, runs, trans):
    """The run's conditions: date, kernels, QEMU, boots, host, time taken."""
    P, a = rep.P, rep.a
    times = read_times(rep.out)
    P("## PASR benchmark")
    P("")
    P(f"- Date: {time.strftime('%Y-%m-%d %H:%M %Z')}")
    P(f"- Kernel: Linux {a.kernel}, arm64, non-debug: allnoconfig + `Kconfig.fragment` changed by "
      "`tools/bench.delta` (no DEBUG_KERNEL, PROVE_LOCKING, KUNIT or PASR test options; "
      "CONFIG_PASR_BENCH=y); rep-off and rep-on: the same without CONFIG_PASR_HOOKS"
      + ("; power part: the same + `tools/bench-power.delta` (CONFIG_PASR_GOVERNOR, "
         "CONFIG_PASR_SIM_CONTROLLER, virtio disk)" if a.power_mem else ""))
    P(f"- QEMU: {a.qemu}; machine {a.machine}")
    if rep.icount:
        P(f"- QEMU mode: `{a.qemu_mode}`: guest time follows the instruction count "
          "(with shift=0, 1 ns per guest instruction), so the figures are instruction path "
          "lengths; caches and memory latency are not modelled. -icount is not record/replay: "
          "host timing still moves interrupts, so boots differ slightly; configurations are "
          "booted several times, interleaved, and the boot-to-boot spread is the noise")
    else:
        P(f"- QEMU mode: {a.qemu_mode}: figures are wall-clock TCG emulation times, noisy")
    boots_line(rep, {cfg: len(b) for cfg, b in runs.items()}, trans)
    P(f"- Host: {a.host}")
    P(f"- Layout (on and off boots): `{a.layout}`")
    P(f"- Command: `{a.command}`")
    bt = [f"{k} kernel {v} s" for k, v in times.get("build-times.txt", [])]
    bo = [v for _, v in times.get("boot-times.txt", [])]
    P(f"- Time taken: {a.elapsed} s in all (builds: {', '.join(bt) or 'n/a'}; "
      f"{len(bo)} boots: {sum(bo)} s)")
    P("")
    P("Configurations: " + "; ".join(f"**{c}** = {d}" for c, d in CONFIGS if c in runs) + ".")
    P("")
    P("Every figure is the median over the boots of the median over the rounds of one boot; "
      "spread = (max - min) / median of the per-boot figures (boot-to-boot noise; 0 when a "
      "part had one boot).")
    P("")


# ---- 1. allocator ----------------------------------------------------------

def alloc_stats(rep, runs):
    """The allocator cases, in order, and per (config, order, batch) the
    median over the boots; writes alloc.csv."""
    cases = []
    for r in runs["on"][0]["alloc"]:
        k = (r["order"], r["batch"])
        if k not in cases:
            cases.append(k)
    alloc_rows = []
    stats = {}  # (cfg, order, batch) -> dict
    for cfg, boots in runs.items():
        for k in cases:
            bmeds, hooks, upd, iters = [], [], [], None
            for r in boots:
                rs = [x for x in r["alloc"] if (x["order"], x["batch"]) == k]
                for x in rs:
                    alloc_rows.append([cfg, r["boot"], x["order"], x["batch"], x["round"],
                                       x["iters"], x["ns"], f"{x['ns'] / x['iters']:.3f}",
                                       x["hook_calls"], x["mask_updates"]])
                if rs:
                    bmeds.append(med([x["ns"] / x["iters"] for x in rs]))
                    hooks += [x["hook_calls"] / x["iters"] for x in rs]
                    upd += [x["mask_updates"] for x in rs]
                    iters = rs[0]["iters"]
            stats[(cfg,) + k] = {"med": med(bmeds), "spread": spread_pct(bmeds),
                                 "hooks": med(hooks), "upd": med(upd), "iters": iters}
    write_csv(os.path.join(rep.out, "alloc.csv"),
              ["config", "boot", "order", "batch", "round", "pairs", "ns", "ns_per_pair",
               "pasr_hook_calls", "mask_updates"], alloc_rows)
    return cases, stats


def csv_cells(rows):
    """Rows with floats at 4 decimals and None empty."""
    return [[("" if v is None else (f"{v:.4f}" if isinstance(v, float) else v)) for v in row]
            for row in rows]


def alloc_rows(rep, runs, cases, stats):
    """The on/off table's rows, per backend and case; returns the summary rows."""
    summary = []
    for on_cfg, off_cfg, backend in ON_OFF:
        if on_cfg not in runs or off_cfg not in runs:
            continue
        for k in cases:
            off, on = stats[(off_cfg,) + k], stats[(on_cfg,) + k]
            ratio = on["med"] / off["med"] if off["med"] and on["med"] else None
            ovh = (ratio - 1) * 100 if ratio else None
            tgt = ALLOC_TARGET.get(k[0])
            met = None if ovh is None or tgt is None else ovh <= tgt
            if met is False:
                rep.failed.append(
                    f"allocator overhead, {backend} backend, {case_name(*k)}: {pct(ovh)} > {tgt}%")
            rep.P(f"| {backend} | {case_name(*k)} | {on['iters']} | {fmt(off['med'])} | "
                  f"{fmt(on['med'])} | {fmt(ratio, 4)} | {pct(ovh)} | <= {tgt}% | "
                  f"{'yes' if met else 'NO' if met is False else 'n/a'} | "
                  f"{off['spread']:.2f}% / {on['spread']:.2f}% | {fmt(on['hooks'], 2)} | "
                  f"{fmt(on['upd'], 0)} |")
            summary.append([backend, k[0], k[1], off["med"], on["med"], ratio, ovh, tgt,
                            "yes" if met else "no", off["spread"], on["spread"], on["hooks"]])
    return summary


def alloc_section(rep, runs, cases, stats):
    """Section 1: PASR on against off, same kernel; writes alloc-summary.csv."""
    P = rep.P
    rounds = runs["on"][0]["info"].get("rounds", "?")
    P("### 1. Allocator overhead: PASR on against off, same kernel, per backend")
    P("")
    P(f"One `alloc_pages(GFP_KERNEL)` + `__free_pages()` pair, in {rep.unit} per pair "
      f"({rounds} rounds per boot). PASR calls = `pasr_put`/`pasr_get` calls per pair "
      "(hooks, reports and unreports), and mask updates per round, in the PASR-on boots.")
    P("")
    P("| backend | case | pairs/round | off | on | on/off | overhead | target | met "
      "| spread off / on | PASR calls per pair | mask updates per round |")
    P("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | :---: | ---: | ---: | ---: |")
    summary = alloc_rows(rep, runs, cases, stats)
    P("")
    low = [k for k in cases if k[0] < 10]
    if low and all((stats[("on",) + k]["hooks"] or 0) == 0 for k in low):
        P("Orders 0 and 3 are served by the per-cpu page lists: in the **on** boots no pair "
          "reached the PASR hooks (0 calls), which fire only when a MAX_PAGE_ORDER block enters "
          "or leaves a buddy free list. Their difference from **off** is not PASR code running. "
          "With the reporting backend, PASR counts blocks in page reporting's worker, seconds "
          "after they are freed, and a pair's own cost is at most the unreport call when it "
          "takes a reported block.")
    else:
        P("Orders 0 and 3: see the PASR-call column for how often PASR ran.")
    P("")
    write_csv(os.path.join(rep.out, "alloc-summary.csv"),
              ["backend", "order", "batch", "off_ns_per_pair", "on_ns_per_pair", "on_off_ratio",
               "overhead_pct", "target_pct", "target_met", "spread_off_pct", "spread_on_pct",
               "pasr_calls_per_pair_on"], csv_cells(summary))


OFF_BASES = (("off", "hooks and reporting, against absent", "absent"),
             ("rep-off", "reporting only, against absent", "absent"),
             ("absent", "PAGE_REPORTING alone, absent against bare", "bare"))


def off_rows(rep, runs, cases, stats):
    """The configured-off table's rows; returns the CSV rows."""
    offrows = []
    for off_cfg, label, base in OFF_BASES:
        if off_cfg not in runs or base not in runs:
            continue
        for k in cases:
            ab, off = stats[(base,) + k], stats[(off_cfg,) + k]
            ratio = off["med"] / ab["med"] if ab["med"] and off["med"] else None
            diff = (ratio - 1) * 100 if ratio else None
            noise = max(ab["spread"], off["spread"])
            ok = None if diff is None else abs(diff) <= noise
            if ok is False and off_cfg != "absent":
                rep.failed.append(
                    f"configured off against not built, {label}, {case_name(*k)}: "
                    f"{pct(diff)}, noise {noise:.2f}%")
            rep.P(f"| {label} | {case_name(*k)} | {fmt(ab['med'])} | {fmt(off['med'])} | "
                  f"{fmt(ratio, 4)} | {pct(diff)} | {noise:.2f}% | "
                  f"{'yes' if ok else 'NO' if ok is False else 'n/a'} |")
            offrows.append([off_cfg, k[0], k[1], ab["med"], off["med"], diff, noise,
                            "yes" if ok else "no"])
    return offrows


def off_section(rep, runs, cases, stats):
    """PASR configured off against a kernel built without it."""
    P = rep.P
    if "absent" not in runs:
        return
    P("#### PASR configured off against a kernel built without CONFIG_PASR")
    P("")
    P("Same cases; **off** / **rep-off**: the kernel with / without the hooks backend, "
      "booted with `pasr=off`; **absent**: the kernel built without CONFIG_PASR but with "
      "CONFIG_PAGE_REPORTING, which PASR selects and distribution kernels have; the last "
      "rows, **absent** against **bare** (neither), are what selecting PAGE_REPORTING "
      "costs a kernel that has it for PASR only. Noise = the larger boot-to-boot spread of "
      "the two; the target is a difference within it.")
    P("")
    P("| kernel | case | baseline | configured off | off/baseline | difference | noise "
      "| within noise |")
    P("| --- | --- | ---: | ---: | ---: | ---: | ---: | :---: |")
    offrows = off_rows(rep, runs, cases, stats)
    P("")
    write_csv(os.path.join(rep.out, "off-vs-absent.csv"),
              ["config", "order", "batch", "baseline_ns_per_pair", "off_ns_per_pair",
               "off_vs_baseline_pct", "noise_pct", "within_noise"], csv_cells(offrows))


def latency_section(rep, runs):
    """Latency from "section entirely free" to "masked"."""
    P = rep.P
    rounds = runs["on"][0]["info"].get("rounds", "?")
    P("#### Latency from \"section entirely free\" to \"masked\"")
    P("")
    P("After the workload, in each PASR-on boot: every max-order block of an entirely free, "
      "masked section is taken off the free lists, then all are put back and page reporting "
      "is told, as a free does; the time until the section is masked again, polled every "
      f"20-50 us, in ms of guest time ({rounds} sections in turn per boot). Median over the "
      "boots of each boot's median; min and max over every round.")
    P("")
    P("| backend | median (ms) | min (ms) | max (ms) | spread |")
    P("| --- | ---: | ---: | ---: | ---: |")
    lrows = []
    for on_cfg, _, backend in ON_OFF:
        boots = runs.get(on_cfg, [])
        per = [med([x["ns"] for x in r["latency"]]) for r in boots if r["latency"]]
        every = [x["ns"] for r in boots for x in r["latency"]]
        for r in boots:
            for x in r["latency"]:
                lrows.append([on_cfg, r["boot"], x["round"], x["section"], x["ns"]])
        if per:
            P(f"| {backend} | {fmt(med(per) / 1e6, 3)} | {fmt(min(every) / 1e6, 3)} | "
              f"{fmt(max(every) / 1e6, 3)} | {spread_pct(per):.2f}% |")
    write_csv(os.path.join(rep.out, "latency.csv"), ["config", "boot", "round", "section", "ns"],
              lrows)
    P("")


def workload_section(rep, runs):
    """The tmpfs dd workload, per configuration."""
    P = rep.P
    P("#### User-space workload")
    P("")
    w0 = runs["on"][0]["workload"]
    mib = w0[0]["mib"] if w0 else 0
    P(f"`dd if=/dev/zero of=/mnt/fill bs=1M count={mib}; rm /mnt/fill` on tmpfs, "
      f"{len(w0)} rounds per boot, {rep.unit} per round read from "
      "`/sys/kernel/debug/pasr_bench/now_ns`.")
    P("")
    P("| config | ms per round | MiB/s | spread | against |")
    P("| --- | ---: | ---: | ---: | ---: |")
    wrows, wmed, wspread = [], {}, {}
    for cfg, boots in runs.items():
        bm = []
        for r in boots:
            for w in r["workload"]:
                wrows.append([cfg, r["boot"], w["round"], w["mib"], w["ns"]])
            if r["workload"]:
                bm.append(med([w["ns"] for w in r["workload"]]))
        wmed[cfg], wspread[cfg] = med(bm), spread_pct(bm)
    for cfg, _ in CONFIGS:
        if wmed.get(cfg) is None:
            continue
        b = BASE.get(cfg)
        vs = (wmed[cfg] / wmed[b] - 1) * 100 if wmed.get(b) else None
        P(f"| {cfg} | {fmt(wmed[cfg] / 1e6, 2)} | {fmt(mib * 1e9 / wmed[cfg], 0)} | "
          f"{wspread[cfg]:.2f}% | {f'{pct(vs)} vs {b}' if vs is not None else '-'} |")
    write_csv(os.path.join(rep.out, "workload.csv"), ["config", "boot", "round", "mib", "ns"],
              wrows)
    P("")


# ---- 2. per-call -----------------------------------------------------------

def calls_stats(rep, runs):
    """The layouts, in order, and each one's per-boot medians; writes calls.csv."""
    crow, layouts, cbm = [], [], {}
    for r in runs["on"]:
        for c in r["calls"]:
            k = (c["dies"], c["sections"])
            if k not in layouts:
                layouts.append(k)
            crow.append([r["boot"], c["dies"], c["sections"], c["round"], c["pairs"], c["ns"],
                         f"{c['ns'] / (2 * c['pairs']):.3f}"])
        for k in layouts:
            per = [c["ns"] / (2 * c["pairs"]) for c in r["calls"]
                   if (c["dies"], c["sections"]) == k]
            if per:
                cbm.setdefault(k, []).append(med(per))
    write_csv(os.path.join(rep.out, "calls.csv"),
              ["boot", "dies", "sections", "round", "put_get_pairs", "ns", "ns_per_call"], crow)
    return layouts, cbm


def calls_section(rep, runs):
    """Section 2: per-call cost of pasr_put / pasr_get; returns the layouts
    and their medians."""
    P = rep.P
    P("### 2. Per-call cost of pasr_put / pasr_get")
    P("")
    layouts, cbm = calls_stats(rep, runs)
    errs = [e for r in runs["on"] for e in r["errors"] if "calls" in e]
    cmed = {k: med(v) for k, v in cbm.items()}
    if not layouts:
        P("**Not measured**: " + ("; ".join(errs) if errs else "no per-call results in the log"))
        rep.failed.append("per-call cost: not measured")
        P("")
        return layouts, cmed
    P("`pasr_bench_calls()`: put + get pairs of max-order blocks on a private map of N "
      "dies of 512 MiB, cycling over every block; the live map is not touched. "
      f"{rep.unit} per call (half a pair), in the **on** boots.")
    P("")
    P("| layout | sections | ns per call | ns per put+get pair | spread | against 1 die |")
    P("| --- | ---: | ---: | ---: | ---: | ---: |")
    base = cmed[layouts[0]]
    for k in layouts:
        P(f"| {k[0]} die{'s' if k[0] > 1 else ''} x {k[1] // k[0]} | {k[1]} | "
          f"{fmt(cmed[k], 2)} | {fmt(2 * cmed[k], 2)} | {spread_pct(cbm[k]):.2f}% | "
          f"{pct((cmed[k] / base - 1) * 100)} |")
    vals = [v for v in cmed.values() if v]
    flat = (max(vals) / min(vals) - 1) * 100
    ok = flat <= CALLS_FLATNESS_TARGET
    if not ok:
        rep.failed.append(f"per-call cost flatness: {flat:.2f}% > {CALLS_FLATNESS_TARGET}%")
    P("")
    P(f"Flatness (slowest / fastest layout - 1): **{flat:.2f}%**; target at most "
      f"{CALLS_FLATNESS_TARGET:.0f}%: **{'met' if ok else 'MISSED'}**.")
    P("")
    return layouts, cmed


# ---- 4. boot, targets ------------------------------------------------------

def boot_section(rep, runs):
    """Section 4: kernel start to /init, per configuration."""
    P = rep.P
    P("### 4. Boot cost")
    P("")
    P("Kernel start to `Run /init as init process` (printk timestamp, guest clock).")
    P("")
    P("| config | to init (ms) | spread | against |")
    P("| --- | ---: | ---: | ---: |")
    brow, bmed = [], {}
    for cfg, boots in runs.items():
        bs = [r["boot_s"] for r in boots if r["boot_s"] is not None]
        for r in boots:
            brow.append([cfg, r["boot"], "" if r["boot_s"] is None else f"{r['boot_s']:.6f}"])
        bmed[cfg] = (med(bs), spread_pct(bs))
    for cfg, _ in CONFIGS:
        if cfg not in bmed or bmed[cfg][0] is None:
            continue
        b, sp = bmed[cfg]
        base = BASE.get(cfg)
        boff = bmed[base][0] if base in bmed else None
        vs = (b / boff - 1) * 100 if b and boff else None
        P(f"| {cfg} | {fmt(b * 1e3, 3)} | {sp:.2f}% | "
          f"{f'{pct(vs)} vs {base}' if vs is not None else '-'} |")
    write_csv(os.path.join(rep.out, "boot.csv"), ["config", "boot", "run_init_s"], brow)
    P("")


def targets_section(rep):
    """Every target missed, or that all were met."""
    P = rep.P
    P("### Targets")
    P("")
    if rep.failed:
        P("**Missed:**")
        P("")
        for t in rep.failed:
            P(f"- {t}")
    else:
        P("All targets met.")
    P("")


# ---- plots -----------------------------------------------------------------

def case_label(k):
    return f"order{k[0]}" + (f"x{k[1]}" if k[1] > 1 else "")


def alloc_plots(rep, runs, cases, stats):
    """alloc.png (ns per pair per configuration) and overhead.png (on against
    off, and the target); returns the PNG names written."""
    out, pngs = rep.out, []
    dat = os.path.join(out, "alloc.dat")
    cfgs = [c for c, _ in CONFIGS if c in runs]
    with open(dat, "w") as f:
        f.write("# case " + " ".join(cfgs) + "\n")
        for k in cases:
            f.write(case_label(k) + " " +
                    " ".join(f"{stats[(c,) + k]['med']:.3f}" for c in cfgs) + "\n")
    cols = ", ".join(
        (f"'{dat}' using {i + 2}:xtic(1) title '{c}'" if i == 0 else f"'' using {i + 2} title '{c}'")
        for i, c in enumerate(cfgs))
    ylabel = "ns per pair (guest clock" + (", icount" if rep.icount else "") + ")"
    if gnuplot(f"""{histogram_head(out, 'alloc', f'alloc_pages + __free_pages, median ns per pair ({rep.a.qemu_mode})', len(cases))}set logscale y
set ylabel '{ylabel}'
set key top left
set grid ytics
plot {cols}
""", os.path.join(out, "alloc.gp")):
        pngs.append("alloc.png")

    dat = os.path.join(out, "overhead.dat")
    with open(dat, "w") as f:
        f.write("# case overhead target\n")
        for k in cases:
            on, off = stats[("on",) + k]["med"], stats[("off",) + k]["med"]
            f.write(f"{case_label(k)} {(on / off - 1) * 100:.4f} {ALLOC_TARGET.get(k[0], 0)}\n")
    if gnuplot(f"""{histogram_head(out, 'overhead', f'PASR on against off: allocator overhead per case, and its target', len(cases))}set ylabel 'overhead, percent'
set grid ytics
set key top left
plot '{dat}' using 2:xtic(1) title 'measured overhead (on/off - 1)', '' using 3 title 'target: at most' fs pattern 4
""", os.path.join(out, "overhead.gp")):
        pngs.append("overhead.png")
    return pngs


def calls_plot(rep, layouts, cmed):
    """calls.png: ns per call against the number of sections."""
    if not cmed:
        return []
    out = rep.out
    dat = os.path.join(out, "calls.dat")
    base = cmed[layouts[0]]
    with open(dat, "w") as f:
        f.write("# sections ns lo hi\n")
        for k in layouts:
            f.write(f"{k[1]} {cmed[k]:.4f} {base * 0.9:.4f} {base * 1.1:.4f}\n")
    ok = gnuplot(f"""set terminal pngcairo size 900,540 noenhanced
set output '{out}/calls.png'
set title 'pasr_put / pasr_get: median ns per call against the number of sections'
set logscale x 2
set xrange [4:512]
set yrange [0:*]
set xlabel 'sections in the map (1x8, 8x8, 16x16 dies x sections)'
set ylabel 'ns per call (guest clock)'
set grid
set key bottom right
plot '{dat}' using 1:3:4 with filledcurves fs transparent solid 0.2 title '+-10% of the 1-die cost', \\
     '' using 1:2 with linespoints lw 2 pt 7 title 'ns per call'
""", os.path.join(out, "calls.gp"))
    return ["calls.png"] if ok else []


def files_line(rep, trans, pngs, power_pngs):
    """The list of files the report wrote."""
    csvs = ["alloc.csv", "alloc-summary.csv", "off-vs-absent.csv", "latency.csv",
            "workload.csv", "calls.csv", "boot.csv"]
    for tag, cfg in (("", "trans"), ("-rep", "trans-rep")):
        if trans[cfg]:
            csvs += [f"transitions{tag}.csv", f"transitions{tag}-summary.csv"]
    if "power.png" in power_pngs or os.path.exists(os.path.join(rep.out, "power.csv")):
        csvs += ["power.csv", "power-summary.csv"]
    rep.P("Files: " + ", ".join(f"`build/bench/{n}`" for n in csvs + pngs + power_pngs) + ".")


def main():
    rep = Report(parse_args())
    runs, trans = load_runs(rep.out), load_trans(rep.out)
    check_complete(runs, trans)
    header(rep, runs, trans)
    cases, stats = alloc_stats(rep, runs)
    alloc_section(rep, runs, cases, stats)
    off_section(rep, runs, cases, stats)
    latency_section(rep, runs)
    workload_section(rep, runs)
    trans_section(rep, trans["trans"], "hooks", "")
    trans_section(rep, trans["trans-rep"], "reporting", "-rep")
    layouts, cmed = calls_section(rep, runs)
    power_pngs = power_section(rep)
    boot_section(rep, runs)
    targets_section(rep)
    pngs = alloc_plots(rep, runs, cases, stats) + calls_plot(rep, layouts, cmed)
    files_line(rep, trans, pngs, power_pngs)
    print("\n".join(rep.lines))


if __name__ == "__main__":
    main()
